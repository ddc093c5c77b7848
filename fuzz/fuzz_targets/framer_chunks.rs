//! Arbitrary bytes, an arbitrary chunking and an arbitrary framer configuration:
//! the events equal those of the same bytes pushed in one chunk, and the
//! framer's buffer stays within max_line_len (hence within max_line_len plus
//! one chunk).
//!
//! The check lives in `rpcspec_oracles::framer_chunks`, which `cargo test` also
//! replays over `corpus/framer_chunks/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::framer_chunks(data));
