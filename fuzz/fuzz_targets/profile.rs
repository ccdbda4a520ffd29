//! The `profile` fuzz target: see `linksieve_fuzz::profile` (fuzz/src/profile.rs) for its oracles.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linksieve_fuzz::profile::run(data));
