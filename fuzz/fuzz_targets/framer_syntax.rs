//! Differential: the framer's JSON syntax checker against serde_json, and
//! against itself fed in two pieces.
//!
//! The check lives in `rpcspec_oracles::framer_syntax`, which `cargo test`
//! also replays over `corpus/framer_syntax/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::framer_syntax(data));
