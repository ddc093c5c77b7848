//! What the client role asks of a dialect: where its scenarios are, the
//! adapter's series of calls, the framing its clients speak, the peer
//! rpcspec plays behind them and the rules their messages are held to.
//! Data; a base every dialect may import.

use std::{
    collections::HashMap,
    ffi::OsString,
    io::{self, Write},
    time::Duration,
};

use rpcspec_matcher::Dialect;
use serde_json::Value;

use super::Framed;
use crate::{
    capture::Framing,
    client::{
        Step,
        agent::AgentCli,
        grade::{Observed, Outcome},
        reference::Quirk,
        script::{Answer, Backend, Body},
    },
    report::Evidence,
    rules::Rule,
};

/// The peer rpcspec plays behind a client, and so how the scenario's
/// script answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// A JSON-RPC 2.0 server answering from the scenario and the plain
    /// series' answers, or its dialect's backend's (MCP's reference
    /// server).
    Plain,
    /// A scripted Claude Code CLI, started from a launcher.
    Claude,
    /// A scripted `codex exec`, started from a launcher.
    CodexExec,
    /// A scripted Codex app-server, started from a launcher.
    Codex,
}

/// The reference client of a dialect (`rpcspec serve --role client`):
/// makes the adapter's series against `server` (its argv) in `framing`,
/// of `revision` where the name pins one, writing the adapter's report
/// lines to `out`; the status to exit with.
pub type Reference = fn(
    server: &[OsString],
    framing: &Framing,
    revision: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<i32>;

/// A dialect's grader of a scripted server's session: evidence from what
/// was observed and the adapter's outcomes.
pub type Session =
    fn(o: &Observed<'_>, outcomes: &HashMap<&'static str, Outcome>, out: &mut Vec<Evidence>);

/// Whether the script may send its own request `ask` before answering a
/// call of `method`, given the client's `initialize` params (`None`: none
/// came) and the scenario's `ask_if`.
pub type MayAsk = fn(init: Option<&Value>, method: &str, ask: &str, ask_if: Option<&str>) -> bool;

/// How a dialect's scripted server answers the adapter's series itself
/// (no backend behind it), and the lifecycle it keeps (LSP's).
#[derive(Debug, Clone, Copy)]
pub struct Answers {
    /// The answer to `method`, once the server has shut down or not.
    pub body: fn(method: &str, params: &Value, shut_down: bool) -> Body,
    /// How long the answer to `method` waits, if it does.
    pub delay: fn(method: &str, params: &Value) -> Option<Duration>,
    /// The request that shuts the server down (every later request is
    /// refused), and the notification that ends it: status 0 after that
    /// request, else 1.
    pub shutdown: Option<(&'static str, &'static str)>,
    /// What a notification `method` with `params` does to a request still
    /// waiting (`waiting`): the reply it now gets at once (LSP's
    /// `$/cancelRequest` of its id: -32800; ACP's `session/cancel` of its
    /// session: the `cancelled` stop reason), or `None`: nothing.
    pub cancels: fn(method: &str, params: &Value, waiting: &Answer) -> Option<Body>,
    /// The notifications the server writes as soon as it reads a request
    /// of `method` (ACP: a turn's first `session/update`), before anything
    /// else it does with it.
    pub on_request: fn(method: &str, params: &Value) -> Vec<Vec<u8>>,
    /// Whether the scenario's `before` lines may go ahead of the reply to
    /// `method` (ACP: only a turn's; an update before `session/new` is
    /// answered would name a session the client does not know).
    pub before: fn(method: &str) -> bool,
}

impl Answers {
    /// No cancellation notification.
    pub fn cancels_nothing(_: &str, _: &Value, _: &Answer) -> Option<Body> {
        None
    }

    /// Nothing written on reading a request.
    pub fn nothing_on_request(_: &str, _: &Value) -> Vec<Vec<u8>> {
        Vec::new()
    }
}

/// Everything the client role asks of a dialect.
#[derive(Debug)]
pub struct Playing {
    /// Its scenarios' folder under `spec-cases/` (`client/mcp/`); the
    /// plain dialect's is `client/`, which holds what no other takes.
    pub folder: &'static str,
    /// What case-file errors call its scenarios: `MCP` in "`version`
    /// belongs to MCP scenarios (client/mcp/)".
    pub label: &'static str,
    /// The adapter's series of calls.
    pub steps: &'static [Step],
    /// The one framing its clients speak, and why (`MCP clients speak
    /// NDJSON (MCP's stdio transport)`); `None`: either framing.
    pub framing: Option<(Framed, &'static str)>,
    /// The scenario fields only its scenarios take (`version`, `twist`):
    /// another dialect's scenario that sets one is refused.
    pub fields: &'static [&'static str],
    /// The peer rpcspec plays.
    pub peer: Peer,
    /// The scripted CLI it plays, where the client starts a command, not a
    /// server (an SDK starting its agent's CLI).
    pub cli: Option<AgentCli>,
    /// Whether a call is the adapter's `echo`, which the script holds
    /// until the series' concurrent calls have all come.
    pub held: fn(method: &str, params: &Value) -> bool,
    /// The pairing rules its clients' messages are read by; `None`: a
    /// client writes no messages (a decoder writes its prompt).
    pub messages: Option<fn() -> Dialect>,
    /// The rule a client breaks by leaving the script's own request
    /// unanswered; `None`: none here (MCP grades it with its session).
    pub server_request: Option<&'static Rule>,
    /// The rules a scenario's `level` applies to (a scenario of SHOULD
    /// feeding a malformed request); every other rule is a MUST.
    pub scenario_level: &'static [&'static str],
    /// What the adapter reports of a result of `method` (the contract's
    /// shapes: `None` when any string will do); `None`: the whole result.
    pub reported: Option<fn(method: &str, result: &Value) -> Option<Value>>,
    /// The dialect's own grader of a scripted server's session, beside
    /// the client role's.
    pub session: Option<Session>,
    /// A reference server behind the script, answering what the scenario
    /// does not (MCP's).
    pub backend: Option<fn() -> Box<dyn Backend>>,
    /// How the script answers without a backend; `None`: the plain
    /// series (`subtract`, `echo`, `fail`).
    pub answers: Option<Answers>,
    /// When the script may send its own request; `None`: before the first
    /// reply, whatever was declared.
    pub may_ask: Option<MayAsk>,
    /// Its reference client, whose quirks are the mutant clients' bugs.
    pub reference: Reference,
}

impl Playing {
    /// JSON-RPC 2.0 as specified: the plain series, in either framing.
    pub const PLAIN: Playing = Playing {
        folder: "client/",
        label: "JSON-RPC",
        steps: &crate::client::STEPS,
        framing: None,
        fields: &[],
        peer: Peer::Plain,
        cli: None,
        held: |method, _| method == "echo",
        messages: Some(|| Dialect::Jsonrpc2),
        server_request: Some(&crate::rules::CLIENT_SERVER_REQUEST),
        scenario_level: &[],
        reported: None,
        session: None,
        backend: None,
        answers: None,
        may_ask: None,
        reference: |server, framing, _, out| {
            crate::client::reference::run(server, Quirk::None, framing, out)
        },
    };
}
