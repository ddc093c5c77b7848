//! rpcspec-core: the layer every role of `rpcspec` stands on, and nothing
//! of any role.
//!
//! A target's process ([`target`], [`reap`]) or HTTP endpoint ([`http`])
//! under the policies every role shares ([`drive`]: spawn failures, the
//! budget's caps, the graces, whether the run has heard its target), within
//! the one memory [`budget`]; reading a target's output through its
//! [`capture::Framing`] ([`capture`]); the write [`plan`]s; pretty-printed values
//! ([`gather`]); the expectation [`pattern`]s of JSON messages; the one
//! report model ([`report`]) and its renderers ([`render`]), known failures
//! ([`baseline`]), exit codes ([`exit`]); the [`rules`] of framing and
//! processes; what every role is to `run` and `list` ([`role`]); running
//! work on `--jobs` threads ([`parallel`]) and
//! `--filter` ([`filter`]); what every role's case files share
//! ([`casefile`]) and their escapes ([`unescape`]).
//!
//! Architecture invariant: core imports no role and no dialect (it cannot:
//! the roles are in `rpcspec`, above it), and it depends on neither clap
//! nor jsonschema. It is the only crate below `rpcspec` that spawns
//! processes, opens sockets or reads the clock.

#![warn(missing_docs)]

pub mod baseline;
pub mod budget;
pub mod capture;
pub mod casefile;
pub mod drive;
pub mod exit;
pub mod filter;
pub mod gather;
pub mod http;
pub mod parallel;
pub mod pattern;
pub mod plan;
pub mod reap;
pub mod render;
pub mod report;
pub mod role;
pub mod rules;
pub mod target;
pub mod unescape;
