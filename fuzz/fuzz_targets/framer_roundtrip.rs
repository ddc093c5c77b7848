//! Arbitrary JSON values, encoded with the framer's encoder and framed back
//! under arbitrary chunking, give the same values, one line each.
//!
//! The check lives in `rpcspec_oracles::framer_roundtrip`, which `cargo test` also
//! replays over `corpus/framer_roundtrip/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::framer_roundtrip(data));
