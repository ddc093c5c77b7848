//! rpcspec: a conformance suite for JSON-RPC 2.0 and NDJSON over lines.
//!
//! This crate is the `rpcspec` command and the roles behind it, on the
//! layer every role shares (`rpcspec-core`, re-exported here under its own
//! module names: [`target`], [`drive`], [`plan`], [`report`], [`render`]…).
//! The server role loads the case files ([`cases`]), drives any executable
//! over stdin/stdout ([`exec`]) under several write plans, and grades every
//! answer with the reference framer and the matcher. Three more roles share
//! the report model: event-stream producers over stdio or HTTP
//! ([`producer`]), NDJSON decoders ([`decoder`]) and clients ([`client`]);
//! [`matrix`] merges many targets' reports into one table.

#![warn(missing_docs)]

pub mod check;
pub mod client;
pub mod decoder;
pub mod dialects;
pub mod fuzz;
pub mod matrix;
pub mod producer;
pub mod rules;
pub mod server;
pub mod shipped;

// The server role's modules, under the names they have always had.
pub use server::{cases, exec, probe, run_suite, serve, target_file};

// The layer under every role, under the names the roles have always used.
pub use rpcspec_core::{
    baseline, budget, capture, casefile, drive, exit,
    filter::{compile_filters, selected},
    gather, http,
    parallel::{run_parallel, run_parallel_jobs, run_parallel_with},
    pattern, plan, reap, render, report, role, target, unescape,
};
