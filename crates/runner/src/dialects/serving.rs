//! What the server role asks of a dialect beyond its matcher dialect and
//! framing: how to hint at a target that never answered, what each request
//! rpcspec sends carries, how rpcspec answers the target's own requests,
//! and the session's quirks. Data, and functions of what the target sent;
//! a base every dialect may import.

use rpcspec_matcher::Id;
use serde_json::Value;

use crate::{report::Evidence, server::serve::Reference};

/// One message a target sent, as the server role read it.
#[derive(Debug, Clone, Copy)]
pub struct Wrote<'a> {
    /// Its text, if it was one JSON text.
    pub text: Option<&'a str>,
    /// A reply (or a batch of them), not a call of its own.
    pub reply: bool,
    /// The ids it carries, as the matcher read them.
    pub ids: &'a [Id],
    /// The method of the request of rpcspec's it answers, where a case's
    /// step sent one with its id.
    pub answers: Option<&'a str>,
    /// The step whose window it arrived in.
    pub window: usize,
}

/// What a target sent of its own accord, graded by its dialect's rules:
/// each finding as evidence naming its rule.
pub type Initiated = fn(wrote: &[Wrote<'_>]) -> Vec<Evidence>;

/// A request whose answer is known, as data: its method, its params (JSON
/// text; `None`: none), the members its reply holds besides `jsonrpc` and
/// `id` (pattern text), and the feature of the target it needs, if any
/// (`--without` that feature leaves it out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// The method requested.
    pub method: &'static str,
    /// The params, as JSON text.
    pub params: Option<&'static str>,
    /// The reply's members, as pattern text (`"result": "$object"`).
    pub reply: &'static str,
    /// The feature it needs (`subtract`).
    pub needs: Option<&'static str>,
}

/// Plain JSON-RPC's probe: a method no server has, answered by an error
/// with the exact id.
pub const UNKNOWN_PROBE: Call = Call {
    method: "rpcspec/probe",
    params: None,
    reply: r#""error": "$object""#,
    needs: None,
};

/// What a dialect makes of JSON-RPC 2.0's batches (§6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batches {
    /// As §6 says: a batch is answered with an array of replies.
    Taken,
    /// It has none, for this reason: a server may answer one member by
    /// member or refuse it whole, and neither can be graded, so the cases
    /// that send one are N/A (and the fuzzer sends none).
    Absent(&'static str),
    /// It names none: a server that refuses or ignores one is NON-STRICT,
    /// for this reason.
    Unnamed(&'static str),
}

/// How a dialect answers a request whose id could not be read, where
/// JSON-RPC 2.0 (§5.1, §7) writes an error with `"id": null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable {
    /// The error omits `id` instead (MCP 2025-11-25).
    pub id_absent: bool,
    /// Why silence is only NON-STRICT there: its errors cannot carry a
    /// null id.
    pub why_silence: &'static str,
}

/// What the server role does in a dialect.
#[derive(Debug, Clone, Copy)]
pub struct Serving {
    /// What to ask of a target that answered nothing at start-up: the
    /// likely reasons, as questions.
    pub startup_hint: &'static str,
    /// Every request rpcspec sends carries `params`, barriers too (LSP's
    /// requests are typed with them; some servers refuse one without).
    pub params_always: bool,
    /// How rpcspec, a client that declared nothing, answers a request the
    /// target sends: the reply's `result` or `error` member as JSON text
    /// (LSP), so that a server waiting on its client goes on. `None`: the
    /// target's requests are left unanswered.
    pub answer: Option<fn(method: &str) -> &'static str>,
    /// Nothing may follow an `initialize` until it is answered (LSP 3.17:
    /// "until the server has responded to the initialize request with an
    /// InitializeResult, the client must not send any additional requests
    /// or notifications"): no barrier after one.
    pub initialize_alone: bool,
    /// Methods whose requests may take long, and be answered after later
    /// ones (an ACP agent's `session/new` starts a model session, its
    /// `session/prompt` plays a turn): after a step that sends one, its
    /// reply is awaited, up to the case deadline, rather than judged
    /// missing once the barrier is answered.
    pub awaited: &'static [&'static str],
    /// The target answers a request it cannot read with an error that
    /// carries a string or integer id, never null: silence to such a
    /// request is no finding of the session (the Codex app-server).
    pub silent_to_unreadable: bool,
    /// What the target sent of its own accord (its calls, its answer to
    /// the handshake), held to the dialect's lifecycle and schema; graded
    /// once, by the case whose rule it is.
    pub initiated: Option<Initiated>,
    /// The request every target of the dialect answers with a known reply
    /// (a case's `$probe`); `None`: it has none, and such cases are N/A.
    pub probe: Option<Call>,
    /// Calls known to succeed (a case's `$call`), best first, where the
    /// target file gives none.
    pub calls: &'static [Call],
    /// Where no call fits, a method no server has may stand in for one in
    /// a case that allows it (`or_unknown_method`): the dialect's probe is
    /// one.
    pub unknown_stands_in: bool,
    /// The barrier request's method, where it is not one no server has:
    /// MCP's `ping`, which a server answers even before
    /// `notifications/initialized`.
    pub barrier: Option<&'static str>,
    /// Its methods are its own: why the JSON-RPC 2.0 §7 example methods
    /// do not exist there (the cases that need them are N/A).
    pub own_methods: Option<&'static str>,
    /// What it makes of batches.
    pub batches: Batches,
    /// How it answers a request whose id could not be read, where that
    /// differs from JSON-RPC 2.0.
    pub unreadable: Option<Unreadable>,
    /// Replies may leave out `"jsonrpc": "2.0"`.
    pub version_optional: bool,
    /// Which number or null ids it has room for, where not every one
    /// (LSP: "id: integer | string", 32-bit): the fuzzer sends no other.
    pub id_fits: Option<fn(id: &Value) -> bool>,
    /// The notification that ends a correct server (LSP's `exit`): the
    /// fuzzer sends none, as it could only find that the server ended.
    pub ending: Option<&'static str>,
    /// Its reference server (`rpcspec serve --role server`), if it has one.
    pub reference: Option<Reference>,
}

impl Serving {
    /// JSON-RPC 2.0's: nothing of its own.
    pub const PLAIN: Serving = Serving {
        startup_hint: "is it reading stdin? does it flush stdout after each message?",
        params_always: false,
        answer: None,
        initialize_alone: false,
        awaited: &[],
        silent_to_unreadable: false,
        initiated: None,
        probe: Some(UNKNOWN_PROBE),
        calls: &[],
        unknown_stands_in: true,
        barrier: None,
        own_methods: None,
        batches: Batches::Taken,
        unreadable: None,
        version_optional: false,
        id_fits: None,
        ending: None,
        reference: None,
    };
}

impl Default for Serving {
    fn default() -> Self {
        Serving::PLAIN
    }
}
