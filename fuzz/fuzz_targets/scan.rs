//! The `scan` fuzz target: see `linksieve_fuzz::scan` (fuzz/src/scan.rs) for its oracles.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linksieve_fuzz::scan::run(data));
