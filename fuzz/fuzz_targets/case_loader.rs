//! Arbitrary bytes as a case file: cases, or an error with a line and column
//! inside the file; never a panic.
//!
//! The check lives in `rpcspec_oracles::case_loader`, which `cargo test` also
//! replays over `corpus/case_loader/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::case_loader(data));
