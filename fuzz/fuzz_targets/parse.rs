//! The `parse` fuzz target: see `linksieve_fuzz::parse` (fuzz/src/parse.rs) for its oracles.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linksieve_fuzz::parse::run(data));
