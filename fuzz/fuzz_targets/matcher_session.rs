//! Arbitrary interleavings of requests, notifications, replies and batches:
//! when each request is answered once (batch members in any order) the
//! session finds nothing and nothing stays outstanding; one dropped reply is
//! exactly one `session.unanswered`, one repeated reply exactly one
//! `session.duplicate-reply`.
//!
//! The check lives in `rpcspec_oracles::matcher_session`, which `cargo test` also
//! replays over `corpus/matcher_session/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| rpcspec_oracles::matcher_session(data));
