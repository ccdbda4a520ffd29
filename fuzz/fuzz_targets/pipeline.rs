//! The `pipeline` fuzz target: see `linksieve_fuzz::pipeline` (fuzz/src/pipeline.rs) for its
//! oracle. Built only with the `pipeline` feature (scripts/fuzz.sh turns it on when
//! crates/pipeline builds).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linksieve_fuzz::pipeline::run(data));
