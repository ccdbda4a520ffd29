//! The profiles' integration tests, one binary (each file a module).

// The IRI crate's test helpers (the vector folder, expectations files, the run's report),
// shared rather than copied.
#[path = "../../iri/tests/common/mod.rs"]
mod common;

mod properties;
mod vectors;
