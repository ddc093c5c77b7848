//! Arbitrary bytes, an arbitrary chunking and arbitrary bounds, read as
//! Content-Length framing: the events equal those of the same bytes pushed
//! in one chunk, and no event keeps more than the larger bound.
//!
//! The check lives in `rpcspec_oracles::headers_chunks`, which `cargo test`
//! also replays over `corpus/headers_chunks/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::headers_chunks(data));
