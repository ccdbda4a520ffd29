//! The `convert` fuzz target: see `linksieve_fuzz::convert` (fuzz/src/convert.rs) for its oracles.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linksieve_fuzz::convert::run(data));
