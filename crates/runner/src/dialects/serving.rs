//! What the server role asks of a dialect beyond its matcher dialect and
//! framing: how to hint at a target that never answered, what each request
//! rpcspec sends carries, how rpcspec answers the target's own requests,
//! and the session's quirks. Data, and functions of what the target sent;
//! a base every dialect may import.

use rpcspec_matcher::Id;

use crate::report::Evidence;

/// One message a target sent, as the server role read it.
#[derive(Debug, Clone, Copy)]
pub struct Wrote<'a> {
    /// Its text, if it was one JSON text.
    pub text: Option<&'a str>,
    /// A reply (or a batch of them), not a call of its own.
    pub reply: bool,
    /// The ids it carries, as the matcher read them.
    pub ids: &'a [Id],
}

/// What a target sent of its own accord, graded by its dialect's rules:
/// each finding as evidence naming its rule.
pub type Initiated = fn(wrote: &[Wrote<'_>]) -> Vec<Evidence>;

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
    /// The target answers a request it cannot read with an error that
    /// carries a string or integer id, never null: silence to such a
    /// request is no finding of the session (the Codex app-server).
    pub silent_to_unreadable: bool,
    /// What the target sent of its own accord (its calls, its answer to
    /// the handshake), held to the dialect's lifecycle and schema; graded
    /// once, by the case whose rule it is.
    pub initiated: Option<Initiated>,
}

impl Serving {
    /// JSON-RPC 2.0's: nothing of its own.
    pub const PLAIN: Serving = Serving {
        startup_hint: "is it reading stdin? does it flush stdout after each message?",
        params_always: false,
        answer: None,
        initialize_alone: false,
        silent_to_unreadable: false,
        initiated: None,
    };
}

impl Default for Serving {
    fn default() -> Self {
        Serving::PLAIN
    }
}
