//! What the server role asks of a dialect beyond its matcher dialect and
//! framing: how to hint at a target that never answered, what each request
//! rpcspec sends carries, how rpcspec answers the target's own requests,
//! and the session's quirks. Data, and functions of one message; a base
//! every dialect may import.

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
}

impl Serving {
    /// JSON-RPC 2.0's: nothing of its own.
    pub const PLAIN: Serving = Serving {
        startup_hint: "is it reading stdin? does it flush stdout after each message?",
        params_always: false,
        answer: None,
        initialize_alone: false,
        silent_to_unreadable: false,
    };
}

impl Default for Serving {
    fn default() -> Self {
        Serving::PLAIN
    }
}
