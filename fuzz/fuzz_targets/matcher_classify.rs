//! Arbitrary bytes and arbitrary structured messages: classification never
//! panics, is deterministic, and is unchanged by re-serialising the value
//! (whitespace, member order).
//!
//! The check lives in `rpcspec_oracles::matcher_classify`, which `cargo test` also
//! replays over `corpus/matcher_classify/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::matcher_classify(data));
