//! The `differential` fuzz target: see `linksieve_fuzz::differential` (fuzz/src/differential.rs)
//! for its oracle. Built only with the `pipeline` feature.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linksieve_fuzz::differential::run(data));
