//! The pipeline's integration tests, one binary (each file a module).
//! Run one file's tests with `cargo test -p linksieve-pipeline --test integration FILE::`.

mod damaged;
mod dedup_lines;
mod run;
