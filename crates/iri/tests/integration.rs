//! The IRI model's integration tests, one binary (each file a module; `common` is shared by them).
//! Run one file's tests with `cargo test -p linksieve-iri --test integration FILE::`.

mod common;

mod adversarial;
mod conformance;
mod ladder_conformance;
mod ladder_properties;
mod properties;
