//! Differential: the framer against a deliberately simple reference (split
//! the whole stream on the delimiter, then apply the policies), on arbitrary
//! bytes and configuration.
//!
//! The check lives in `rpcspec_oracles::framer_oracle`, which `cargo test` also
//! replays over `corpus/framer_oracle/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::framer_oracle(data));
