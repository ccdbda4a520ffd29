//! The CLI's integration tests, one binary (each file a module; `common` is shared by them).
//! Run one file's tests with `cargo test -p linksieve-cli --test integration FILE::`.

mod common;

mod arg_ranges;
mod bounded_memory;
mod damaged_store;
mod dedup_command;
mod delivery;
mod differential;
mod edges;
mod engine_rows;
mod escaped_and_lists;
mod formats;
mod graph_files;
mod html_outlinks;
mod html_references;
mod implied_scheme;
mod inputs;
mod iri_commands;
mod ladder_commands;
mod no_loss;
mod output_faults;
mod parquet_output;
mod profiles;
mod registered_schemes;
mod run_command;
mod wat_input;
