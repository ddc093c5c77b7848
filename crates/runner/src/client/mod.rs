//! The `client` role: rpcspec plays the server, and tests a JSON-RPC client
//! over stdio.
//!
//! The client under test is a small adapter around a client library
//! (`spec-cases/client/README.md`, the contract): it spawns the server it
//! is given (`{server}` in its argv, or `RPCSPEC_SERVER`), makes a fixed
//! series of calls ([`STEPS`]) and writes, one JSON object per line of
//! its stdout, what its library returned for each. The server it spawns is
//! rpcspec itself as a relay (`rpcspec peer`, [`peer`]), which hands every
//! byte to the runner; the runner plays one scenario ([`Scenario`], from
//! `spec-cases/client/*.toml`: a server behaviour such as replies out of
//! order, split across writes, a server that exits mid-call) with the
//! sans-IO [`script::Server`], and grades ([`grade`], pure) what the client
//! wrote and what its adapter reported against what the server sent.
//!
//! `reference/` is the reference client (`rpcspec serve --role client
//! [--dialect mcp|lsp] {server}`; its MCP and LSP series in `mcp.rs` and
//! `lsp.rs`), whose `Quirk`s are `rpcspec-mutant-client`'s bugs. A
//! language client (`--dialect lsp`) makes [`LSP_STEPS`] in Content-Length
//! framing against the script's language server (`answers.rs`); what it
//! sends is held to LSP's meta-model ([`crate::dialects::lsp::model`]).

use std::{path::Path, time::Duration};

use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

use crate::{
    casefile::{self, Listing, LoadError, Meta},
    dialects::{self, Descriptor, Peer, Playing},
    shipped,
};

mod act;
pub mod agent;
mod agents;
pub(crate) mod answers;
mod canary;
pub mod claude;
pub mod codex;
pub mod codex_exec;
pub mod grade;
mod load;
pub mod peer;
pub mod reference;
mod role;
pub mod run;
pub mod script;
mod steps;
pub mod twist;
pub mod writes;

pub use answers::{LSP_HOVER, LSP_SERVER_NAME, declares};
pub use load::load_str;
pub use role::Clients;
pub use run::{SERVER_ENV, run_scenario};
pub use steps::{CLAUDE_STEPS, CODEX_EXEC_STEPS, CODEX_STEPS, LSP_STEPS, MCP_STEPS, STEPS};

/// The deadlines of a scenario.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// From the spawn to the peer's connection.
    pub startup: std::time::Duration,
    /// From the connection to the adapter's exit.
    pub timeout: std::time::Duration,
}

/// A call of the adapter's fixed series: what it sends, and what it
/// reports as `step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The name the adapter reports it under.
    pub name: &'static str,
    /// The method it calls.
    pub method: &'static str,
    /// Its params, as JSON.
    pub params: &'static str,
    /// What kind of step it is.
    pub kind: StepKind,
}

/// How a step is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// MCP: the session's opening (`initialize`, or `server/discover` in
    /// 2026-07-28), however the library makes it.
    Connect,
    /// MCP: a call the adapter gives up on after [`ABANDON_AFTER`] (the
    /// server answers it only after [`SLOW_MS`]): it must fail, and the
    /// library should cancel it.
    Abandoned,
    /// A call on its own, after the one before it returned.
    Call,
    /// A notification: nothing comes back.
    Notify,
    /// One of the calls made at once, all in flight together.
    Concurrent,
    /// A member of the batch (with a notification `update` `[4]`), where
    /// the library offers batches.
    Batch,
}

/// How long the MCP adapter waits for the `slow` call before it gives up.
pub const ABANDON_AFTER: Duration = Duration::from_secs(1);

/// What the `slow` call asks the server to take, in milliseconds.
pub const SLOW_MS: u64 = 10_000;

/// The dialect a client is checked in: an entry of the registry that the
/// client role takes, whose [`Playing`] says how.
#[derive(Clone, Copy)]
pub struct Protocol(&'static Descriptor);

impl Protocol {
    /// The dialect named `name` (no revision), if the client role takes it.
    pub fn named(name: &str) -> Option<Protocol> {
        let (d, revision) = dialects::find(name)?;
        (revision.is_none() && d.play.is_some()).then_some(Protocol(d))
    }

    /// The dialect a scenario file at `prefix` (`client/mcp/tools/`)
    /// belongs to: the one of the deepest folder that holds it.
    pub fn of_file(prefix: &str) -> Option<Protocol> {
        dialects::DIALECTS
            .iter()
            .filter(|d| {
                d.play
                    .as_ref()
                    .is_some_and(|p| prefix.starts_with(p.folder))
            })
            .max_by_key(|d| d.play.as_ref().map_or(0, |p| p.folder.len()))
            .map(Protocol)
    }

    /// Its name: `mcp`.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// What the client role does in it.
    pub fn play(self) -> &'static Playing {
        self.0
            .play
            .as_ref()
            .expect("a Protocol is made of a dialect that plays")
    }

    /// The adapter's series in this protocol.
    pub fn steps(self) -> &'static [Step] {
        self.play().steps
    }

    /// The peer rpcspec plays behind its clients.
    pub fn peer(self) -> Peer {
        self.play().peer
    }
}

impl PartialEq for Protocol {
    fn eq(&self, other: &Protocol) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Protocol {}

impl std::fmt::Debug for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

/// Whether `actual` holds `pattern`: every member of a pattern object is
/// in `actual` and holds its value; anything else is equal. `Null` holds
/// anything (a step whose params do not matter).
pub fn holds(pattern: &Value, actual: &Value) -> bool {
    match (pattern, actual) {
        (Value::Null, _) => true,
        (Value::Object(p), Value::Object(a)) => p
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| holds_exactly(v, av))),
        _ => pattern == actual,
    }
}

/// [`holds`] below the top: `null` is a value there.
fn holds_exactly(pattern: &Value, actual: &Value) -> bool {
    match (pattern, actual) {
        (Value::Object(p), Value::Object(a)) => p
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| holds_exactly(v, av))),
        _ => pattern == actual,
    }
}

/// A step's params pattern, parsed (`Null` for an empty one).
pub fn pattern(step: &Step) -> Value {
    if step.params.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(step.params).expect("the steps' params are JSON")
    }
}

/// The notification sent in the batch.
pub const BATCH_NOTIFICATION: (&str, &str) = ("update", "[4]");

/// How long an adapter gives each call before it reports it failed
/// (`spec-cases/client/README.md`): a call the server never answers must
/// not hang the series.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(3);

/// A scenario's deadline when `--timeout` is not given: the adapter's
/// start, a slow reply and a few calls that run into [`CALL_TIMEOUT`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A request of the series a scenario singles out: by method, and by
/// params when given.
#[derive(Debug, Clone, PartialEq)]
pub struct CallMatch {
    /// The method.
    pub method: String,
    /// The params, when only some calls of the method are meant: a
    /// pattern the request's params hold ([`holds`]).
    pub params: Option<Value>,
}

impl CallMatch {
    /// Whether a request with `method` and `params` is this one.
    pub fn matches(&self, method: &str, params: &Value) -> bool {
        self.method == method && self.params.as_ref().is_none_or(|p| holds(p, params))
    }
}

/// In which order held replies go out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// As their requests arrived.
    Received,
    /// The last request's reply first.
    Reverse,
}

/// How each message the server writes is cut into writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// One write per line.
    Line,
    /// Everything due at one moment in one write.
    Coalesced,
    /// Each line in two writes, cut in its middle, with a pause between.
    Split,
    /// A byte per write (the first [`BYTEWISE_MAX`] bytes of a line; the
    /// rest in one write).
    Bytewise,
    /// Content-Length: each message's header in one write, its body in the
    /// next, with a pause between.
    HeaderApart,
    /// Everything due at one moment in writes of [`CHUNK`] bytes, each
    /// read before the next: most cuts fall inside a multi-byte
    /// character.
    Chunks,
}

/// The bytes of a write in [`Writes::Chunks`]: prime to 2, 3 and 4.
pub const CHUNK: usize = 7;

/// Bytes of a line written one at a time in [`Writes::Bytewise`].
pub const BYTEWISE_MAX: usize = 256;

/// Lines written around each reply, made from the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoy {
    /// Before it: a reply whose id no request had.
    UnknownId,
    /// Before it: a reply with the request's id of the other type
    /// (`7` ↔ `"7"`).
    RetypedId,
    /// After it: the same reply again.
    Duplicate,
}

/// One scripted server behaviour and what the client must make of it.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// What the scenario says of itself (`client/<file>/<name>`, …); it
    /// requires what the client must offer for it to test anything:
    /// `concurrency`, `batch`.
    pub meta: Meta,
    /// The order of held replies: the concurrent calls', a batch's.
    pub order: Order,
    /// How lines are cut into writes.
    pub writes: Writes,
    /// Lines end in `\r\n`.
    pub crlf: bool,
    /// Whitespace put after every `,` between a reply's members.
    pub whitespace: Option<Vec<u8>>,
    /// Lines written before every reply.
    pub before: Vec<Vec<u8>>,
    /// Lines written when a notification arrives.
    pub on_notification: Vec<Vec<u8>>,
    /// Lines made from each reply, around it.
    pub decoy: Option<Decoy>,
    /// The reply to this call is this line instead (`$id` is its id).
    pub replace: Option<(CallMatch, Vec<u8>)>,
    /// The result of this call is this JSON text instead.
    pub result: Option<(CallMatch, Vec<u8>)>,
    /// The error `fail` replies with, as JSON text.
    pub error: Option<Vec<u8>>,
    /// The server exits with this status when this call arrives.
    pub exit: Option<(CallMatch, i32)>,
    /// The server closes its stdout when this call arrives.
    pub close: Option<CallMatch>,
    /// Replies to this call wait this long.
    pub delay: Option<(CallMatch, Duration)>,
    /// Before its first reply the server asks the client this method, and
    /// waits for the answer (at most [`ASK_WAIT`]).
    pub ask: Option<String>,
    /// The ask's params, as JSON text.
    pub ask_params: Option<Vec<u8>>,
    /// LSP, ACP: the ask is made only to a client whose `initialize`
    /// params hold `true` (or an object) at this JSON pointer: the
    /// capability that lets the server ask
    /// (`/capabilities/window/workDoneProgress`, `/clientCapabilities/terminal`).
    pub ask_if: Option<String>,
    /// The call the scenario's request goes out before (`None`: the first
    /// the dialect lets it); a call the dialect answers late (ACP's held
    /// turn) is asked before and still answered late.
    pub ask_on: Option<CallMatch>,
    /// MCP: the version the server's `initialize` result names instead of
    /// the one it would choose.
    pub version: Option<String>,
    /// MCP 2026-07-28: what the server does besides the reference's
    /// answers ([`twist`]).
    pub twist: Option<twist::Twist>,
    /// Its dialect: the one whose folder its file is in (`client/mcp/`).
    pub protocol: Protocol,
    /// The framing the scenario is written for (one of
    /// `Framing::NAMES`); `None`: it plays in any.
    pub framing: Option<String>,
    /// Content-Length: the header written before each message, `$len`
    /// standing for its length in bytes (`None`: `Content-Length:
    /// $len\r\n\r\n`).
    pub header: Option<Vec<u8>>,
    /// Claude: what the scripted CLI plays.
    pub claude: Option<claude::Play>,
    /// Codex exec: what the scripted CLI writes once it has its prompt.
    pub codex_exec: Option<Vec<codex_exec::Act>>,
    /// Codex host: what the scripted app-server plays.
    pub codex: Option<codex::Play>,
}

/// The longest the server waits for the client to answer its request.
pub const ASK_WAIT: Duration = Duration::from_secs(2);

impl Scenario {
    /// The scenario as `rpcspec list` shows it.
    pub fn listing(&self) -> Listing {
        self.meta.listing(vec!["stdio".to_owned()])
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    #[serde(default)]
    scenario: Vec<Spanned<ScenarioDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallDef {
    method: String,
    params: Option<toml::Value>,
    line: Option<String>,
    value: Option<String>,
    code: Option<i32>,
    ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDef {
    name: Spanned<String>,
    title: String,
    section: String,
    level: Option<Spanned<String>>,
    #[serde(default)]
    requires: Vec<Spanned<String>>,
    order: Option<Spanned<String>>,
    writes: Option<Spanned<String>>,
    #[serde(default)]
    crlf: bool,
    whitespace: Option<Spanned<String>>,
    #[serde(default)]
    before: Vec<Spanned<String>>,
    #[serde(default)]
    on_notification: Vec<Spanned<String>>,
    decoy: Option<Spanned<String>>,
    replace: Option<Spanned<CallDef>>,
    result: Option<Spanned<CallDef>>,
    error: Option<Spanned<String>>,
    exit: Option<Spanned<CallDef>>,
    close: Option<Spanned<CallDef>>,
    delay: Option<Spanned<CallDef>>,
    ask: Option<String>,
    ask_params: Option<Spanned<String>>,
    ask_if: Option<Spanned<String>>,
    ask_on: Option<Spanned<CallDef>>,
    version: Option<String>,
    twist: Option<Spanned<String>>,
    framing: Option<Spanned<String>>,
    header: Option<Spanned<String>>,
    initialize: Option<Spanned<String>>,
    controls: Option<Spanned<String>>,
    #[serde(default)]
    turn: Vec<Spanned<claude::ActDef>>,
    #[serde(default)]
    stream: Vec<Spanned<codex_exec::ActDef>>,
    #[serde(default)]
    requests: Vec<Spanned<String>>,
    together: Option<bool>,
    ids: Option<Spanned<String>>,
    #[serde(default)]
    notes: Vec<Spanned<String>>,
    ending: Option<Spanned<String>>,
}

/// The shipped scenarios (`spec-cases/client/`).
pub fn builtin() -> Result<Vec<Scenario>, LoadError> {
    let mut all = Vec::new();
    for (rel, text) in shipped::builtin_files(Some("client")) {
        all.extend(load_str(rel, text)?);
    }
    Ok(all)
}

/// The scenarios under `root/client/`.
pub fn load_dir(root: &Path) -> Result<Vec<Scenario>, LoadError> {
    let mut all = Vec::new();
    for (rel, text) in casefile::read_tree(root, Some("client"))? {
        all.extend(load_str(&rel, &text)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests;
