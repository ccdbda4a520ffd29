//! The `normalize` fuzz target: see `linksieve_fuzz::normalize` (fuzz/src/normalize.rs) for its oracles.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linksieve_fuzz::normalize::run(data));
