//! Arbitrary UTF-8 bodies written with `Content-Length` headers, some behind
//! a stray line: the bodies come back exactly, in order, and each stray
//! line is reported as bytes between messages.
//!
//! The check lives in `rpcspec_oracles::headers_roundtrip`, which `cargo
//! test` also replays over `corpus/headers_roundtrip/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::headers_roundtrip(data));
