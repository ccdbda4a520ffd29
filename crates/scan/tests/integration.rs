//! The scanner's integration tests, one binary (each file a module).
//! Run one file's tests with `cargo test -p linksieve-scan --test integration FILE::`.

mod adversarial;
mod auto_encoding;
mod chunking;
mod escaped_and_lists;
mod extract;
mod finding_rules;
mod html;
mod html_oracle;
mod legacy_corpus;
mod linear;
mod scanner;
