//! The MCP checks: one session with the server, as a client would hold it,
//! and a result per check (`mcp/<area>/<name>`), each gated on what the
//! server declared: a capability it did not declare gets SKIPPED with the
//! reason, never FAIL; a check its revision does not have gets N/A.
//!
//! Three connections at most, two at a time:
//!
//! * the session: version negotiation (`server/discover` first, as
//!   2026-07-28's stdio backward-compatibility rules say, then
//!   `initialize` for a server that does not know it), the lifecycle, the
//!   utilities and every declared feature, then the shutdown;
//! * a second process, meanwhile, for what a session can be asked once:
//!   `initialize` of a version no server supports (legacy), or `initialize`
//!   at all (a 2026-07-28 server: whether it also speaks a legacy revision).
//!
//! Then the graders of whole transcripts (`grade.rs`) run over both: only
//! MCP messages on stdout, every message against the revision's schema,
//! only negotiated capabilities used. [`run_every`] runs it all again,
//! pinned at 2025-11-25, for a 2026-07-28 server that also has
//! `initialize` (the role's default: every revision a server speaks).

mod asks;
mod calls;
mod features;
mod fixtures;
mod mrtr;
mod open;
mod reads;
mod table;

use table::{
    ASK_CHECKS, BEFORE_INITIALIZED, CANCEL_UNKNOWN, CLIENT_DECLARED, DISCOVER, FX_LOGGING,
    INITIALIZE, MRTR_CHECKS, PING, RESOURCES_SUBSCRIBE, SCHEMA, SECOND_INITIALIZE, SERVER_DECLARED,
    SERVER_REQUESTS, SET_LEVEL, SHUTDOWN, STDIO, UNKNOWN_VERSION,
};
pub use table::{CHECKS, Check};

pub use open::run_every;
use open::{speaks_legacy, unknown_version_legacy};

use std::{
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use super::{
    Revision,
    conn::{Conn, Mark, Reply, ShutdownStep, initialize_params, short},
    grade::{self, finding},
    rules::{
        MCP_CANCEL_UNKNOWN, MCP_LOGGING_SET_LEVEL, MCP_PING, MCP_SECOND_INITIALIZE, MCP_SHUTDOWN,
        MCP_VERSION_ERROR,
    },
};
use crate::{
    budget::Budget,
    report::{CaseResult, Evidence, Verdict},
    target::Target,
};

/// How to run the checks.
#[derive(Debug, Clone)]
pub struct Options {
    /// The revision to speak, or `None`: negotiate (the newest the server
    /// supports of those rpcspec knows).
    pub pinned: Option<Revision>,
    /// How long a new process may take to answer its first request.
    pub startup: Duration,
    /// How long any later request may take.
    pub timeout: Duration,
    /// What a connection may read ([`crate::budget`]).
    pub budget: Budget,
    /// Tool calls the target file lets the checks make.
    pub calls: ToolCalls,
    /// What the run has learnt of the target's start, shared with the
    /// JSON-RPC cases: a target that answered neither them nor the
    /// session's first requests halts the run.
    pub readiness: std::sync::Arc<crate::drive::Readiness>,
}

/// A `tools/call` the target file names (`[mcp]`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// Its arguments, an object.
    pub arguments: Value,
}

impl ToolCall {
    fn params(&self) -> Value {
        json!({"name": self.tool, "arguments": self.arguments})
    }
}

/// The tool calls the checks may make: none unless the target file names
/// them, because a tool can do anything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCalls {
    /// A call that is safe to make and succeeds (`mcp/tools/call`).
    pub call: Option<ToolCall>,
    /// A call that takes a second or more (`mcp/utilities/cancel-in-flight`,
    /// `mcp/utilities/progress`).
    pub slow: Option<ToolCall>,
    /// A call that fails as a tool, on its input (`mcp/tools/execution-error`).
    pub failing: Option<ToolCall>,
    /// A call during which the server sends the client requests
    /// (`mcp/tools/asks-client`).
    pub asks_client: Option<ToolCall>,
    /// `--fixtures conformance`: the server implements the official
    /// conformance suite's fixtures, which the `mcp/fixtures/…` checks
    /// call by name.
    pub fixtures: bool,
}

/// What a run of the checks found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// A result per check run, in the order of [`CHECKS`].
    pub results: Vec<CaseResult>,
    /// Whether the server opens a session with `initialize` (the JSON-RPC
    /// cases' handshake): a 2026-07-28 server may or may not also speak
    /// an older revision. `None`: not found out (no session).
    pub has_initialize: Option<bool>,
    /// The revision of the session, when one was had.
    pub revision: Option<Revision>,
}

/// The checks whose id `selected` takes, run against `target`.
pub fn run(target: &Target, opts: &Options, selected: &dyn Fn(&str) -> bool) -> Outcome {
    run_signalling(target, opts, selected, None)
}

/// [`run`], sending on `dual` once the server shows it is a dual-era one:
/// a 2026-07-28 session, and a second process that opened one with
/// `initialize` (the sender is dropped unsent otherwise).
pub(super) fn run_signalling(
    target: &Target,
    opts: &Options,
    selected: &dyn Fn(&str) -> bool,
    dual: Option<mpsc::Sender<()>>,
) -> Outcome {
    let chosen: Vec<&Check> = CHECKS.iter().copied().filter(|c| selected(c.id)).collect();
    if chosen.is_empty() {
        // Still: whether the JSON-RPC cases' handshake can work.
        return Outcome {
            has_initialize: Some(match opts.pinned {
                Some(r) => r.has_initialize(),
                None => speaks_legacy(target, opts),
            }),
            ..Outcome::default()
        };
    }
    let mut session = match Session::open(target, opts) {
        Ok(s) => s,
        Err(e) => {
            return Outcome {
                results: chosen
                    .iter()
                    .map(|c| result_with(c, "-", vec![(*e).clone()]))
                    .collect(),
                ..Outcome::default()
            };
        }
    };
    let wanted = |c: &Check| chosen.iter().any(|x| x.id == c.id);
    // The second process meanwhile: `initialize` of an unknown version
    // (legacy), or whether a modern server has `initialize` at all.
    let legacy = session.revision.has_initialize();
    let broken = session.broken.is_some();
    let second = (!broken && (!legacy || wanted(UNKNOWN_VERSION))).then(|| {
        let (target, opts) = (target.clone(), opts.clone());
        thread::spawn(move || {
            if legacy {
                (Some(unknown_version_legacy(&target, &opts)), true)
            } else {
                let speaks = speaks_legacy(&target, &opts);
                if speaks && let Some(dual) = dual {
                    // The receiver may be gone; the outcome says the same.
                    let _ = dual.send(());
                }
                (None, speaks)
            }
        })
    });
    match session.broken.clone() {
        None => session.run_checks(&wanted),
        Some(why) => session.none_for(&chosen, &why),
    }
    // Not found out when no session could be had.
    let mut has_initialize = (!broken).then_some(legacy);
    if let Some(handle) = second {
        match handle.join() {
            Ok((result, initialize)) => {
                session.results.extend(result);
                has_initialize = Some(initialize);
            }
            Err(_) => session.results.push(result_with(
                UNKNOWN_VERSION,
                "-",
                vec![Evidence::note(
                    Verdict::Error,
                    "the check panicked (a bug in rpcspec)".into(),
                )],
            )),
        }
    }
    session.finish(&wanted);
    // In the order of CHECKS.
    let mut results = session.results;
    // Opening the session makes results of its own: only the chosen stay.
    results.retain(|r| chosen.iter().any(|c| c.id == r.id));
    results.sort_by_key(|r| CHECKS.iter().position(|c| c.id == r.id));
    Outcome {
        results,
        has_initialize,
        revision: (!broken).then_some(session.revision),
    }
}

impl Session {
    /// Every check of `chosen` that needs the session says `why` there is
    /// none (what the revision does not have stays N/A).
    fn none_for(&mut self, chosen: &[&Check], why: &Evidence) {
        for check in chosen {
            if [
                STDIO.id,
                SCHEMA.id,
                SERVER_DECLARED.id,
                CLIENT_DECLARED.id,
                SHUTDOWN.id,
            ]
            .contains(&check.id)
                || self.results.iter().any(|r| r.id == check.id)
            {
                continue;
            }
            // What the revision does not have stays N/A.
            let asks = ASK_CHECKS.iter().any(|c| c.id == check.id);
            let missing = if asks {
                self.revision != Revision::V2025_11_25
            } else if self.revision.has_initialize() {
                [DISCOVER.id].contains(&check.id) || MRTR_CHECKS.iter().any(|c| c.id == check.id)
            } else {
                [
                    INITIALIZE.id,
                    BEFORE_INITIALIZED.id,
                    PING.id,
                    SECOND_INITIALIZE.id,
                    SET_LEVEL.id,
                    SERVER_REQUESTS.id,
                    RESOURCES_SUBSCRIBE.id,
                    FX_LOGGING.id,
                ]
                .contains(&check.id)
            };
            if missing {
                let result = self.not_in_revision(check, "not in this revision");
                self.results.push(result);
                continue;
            }
            self.results.push(result_with(
                check,
                self.revision.as_str(),
                vec![why.clone()],
            ));
        }
    }
}

fn result_with(check: &Check, plan: &str, evidence: Vec<Evidence>) -> CaseResult {
    let mut result = CaseResult::new(
        check.id.to_owned(),
        plan.to_owned(),
        check.title.to_owned(),
        check.rules.first().map_or("MCP", |r| r.section).to_owned(),
    );
    result.evidence = evidence;
    result.settle();
    result
}

/// The session with the server: the negotiated revision and what the
/// server declared, and the results so far.
struct Session {
    conn: Conn,
    revision: Revision,
    /// The server's `capabilities`.
    capabilities: Value,
    results: Vec<CaseResult>,
    started: Instant,
    /// Why no session could be had: every check that needs one gets this.
    broken: Option<Evidence>,
    /// How long the `[mcp] slow` call took, once made.
    slow_took: Option<Duration>,
    /// The target file's tool calls.
    calls: ToolCalls,
    /// What the session was started with, for new processes.
    target: Target,
    opts: Options,
    /// Processes of the session that died, oldest first.
    past: Vec<Conn>,
    /// New processes started so far.
    reopens: usize,
    /// The server stopped answering in the last check, and was stopped.
    stalled: bool,
    /// A request of the check under way got no reply by its deadline.
    timed_out: bool,
    /// The version the server answered `initialize` with, when rpcspec
    /// knows no such revision: its messages have no schema here.
    unknown_version: Option<String>,
}

/// At most this many new processes a session starts after its server died.
const MAX_REOPENS: usize = 3;

impl Session {
    fn declared(&self, capability: &str) -> bool {
        self.capabilities.get(capability).is_some()
    }

    /// SKIPPED, `why`.
    fn skipped(&self, check: &Check, why: String) -> CaseResult {
        result_with(
            check,
            self.revision.as_str(),
            vec![Evidence::note(Verdict::Skipped, why)],
        )
    }

    /// SKIPPED: the server did not declare `capability`.
    fn not_declared(&self, check: &Check, capability: &str) -> CaseResult {
        let declared: Vec<&str> = self
            .capabilities
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let declared = if declared.is_empty() {
            "none".to_owned()
        } else {
            declared.join(", ")
        };
        self.skipped(
            check,
            format!("not declared: the server's capabilities have no `{capability}` (it declared: {declared})"),
        )
    }

    /// N/A: `check` does not exist in this revision.
    fn not_in_revision(&self, check: &Check, why: &str) -> CaseResult {
        result_with(
            check,
            self.revision.as_str(),
            vec![Evidence::note(
                Verdict::NotApplicable,
                format!("{}: {why}", self.revision),
            )],
        )
    }

    /// Runs `body` as `check`: its evidence, and the traffic it caused.
    fn check(&mut self, check: &Check, body: impl FnOnce(&mut Session) -> Vec<Evidence>) {
        let mut notes = Vec::new();
        if !self.conn.alive() {
            // A server that died in one check gets a new process for the
            // next, so one crash does not hide every later check.
            match self.reopen() {
                Ok(note) => notes.push(note),
                Err(why) => {
                    self.results
                        .push(result_with(check, self.revision.as_str(), vec![*why]));
                    return;
                }
            }
        }
        let mark = self.conn.mark();
        let started = Instant::now();
        self.timed_out = false;
        let mut evidence = body(self);
        if let Some(flood) = &self.conn.flood {
            evidence.push(flood.clone());
        }
        // A server that stopped answering is stopped: the next check gets
        // a new process, not a deadline per request of its own.
        if self.conn.alive()
            && (std::mem::take(&mut self.timed_out)
                || evidence.iter().any(|e| e.verdict == Verdict::Timeout))
        {
            self.stalled = true;
            self.conn.kill();
        } else if !self.conn.alive() && !evidence.iter().any(|e| e.verdict == Verdict::Crash) {
            let how = match (&self.conn.exit, self.conn.stdout_closed) {
                (Some(exit), _) => format!("the server exited during this check ({exit})"),
                (None, true) => "the server closed stdout during this check".to_owned(),
                (None, false) => "the server was stopped during this check".to_owned(),
            };
            evidence.push(Evidence::note(Verdict::Crash, how));
        }
        evidence.extend(notes);
        let mut result = result_with(check, self.revision.as_str(), evidence);
        result.duration = started.elapsed();
        self.conn.attach(&mut result, mark);
        self.results.push(result);
    }

    /// A new process in place of one that died, opened as the session was
    /// (same revision; `initialize` and `initialized`, or `server/discover`):
    /// a note for the check that runs on it, or why there is none. At most
    /// [`MAX_REOPENS`] a session.
    fn reopen(&mut self) -> Result<Evidence, Box<Evidence>> {
        let gone = match (&self.conn.exit, self.conn.flood.is_some()) {
            _ if std::mem::take(&mut self.stalled) => {
                "stopped answering (rpcspec stopped it)".to_owned()
            }
            (_, true) => "was stopped for writing past the budget".to_owned(),
            (Some(exit), _) => format!("ended ({exit})"),
            (None, _) => "closed stdout".to_owned(),
        };
        if self.reopens >= MAX_REOPENS {
            return Err(Box::new(Evidence::note(
                Verdict::Crash,
                format!(
                    "the server {gone} earlier in the session, and {MAX_REOPENS} new processes did too"
                ),
            )));
        }
        self.reopens += 1;
        let revision = self.revision;
        let mut conn = Conn::spawn(
            &self.target,
            &self.opts.budget,
            revision,
            self.opts.startup,
            self.opts.timeout,
        )?;
        let deadline = conn.deadline();
        let reply = if revision.has_initialize() {
            let params = initialize_params(revision.as_str());
            let reply = conn.request("initialize", params, deadline);
            conn.notify("notifications/initialized", Value::Null);
            reply
        } else {
            conn.request("server/discover", json!({}), deadline)
        };
        let old = std::mem::replace(&mut self.conn, conn);
        self.past.push(old);
        match reply {
            Reply::Result(_) => Ok(Evidence::note(
                Verdict::Pass,
                format!("on a new process: the session's server {gone} in an earlier check"),
            )),
            other => Err(Box::new(Evidence::note(
                Verdict::Crash,
                format!(
                    "the server {gone} earlier in the session, and a new one's handshake got {}",
                    other.describe()
                ),
            ))),
        }
    }

    /// A request, with the reply's deadline of the connection.
    fn ask(&mut self, method: &str, params: Value) -> Reply {
        let params = self.conn.params(params);
        self.ask_raw(method, params)
    }

    /// [`Session::ask`] with exactly these params (the caller wrote its
    /// `_meta`).
    fn ask_raw(&mut self, method: &str, params: Value) -> Reply {
        let deadline = self.conn.deadline();
        let reply = self.conn.request_raw(method, params, deadline);
        self.timed_out |= reply == Reply::NoReply;
        reply
    }

    fn run_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        self.before_initialized(wanted);
        self.ping_check(wanted);
        self.unknown_version_check(wanted);
        self.cancel_unknown_check(wanted);
        self.feature_checks(wanted);
        self.read_checks(wanted);
        self.tool_call_checks(wanted);
        self.fixture_checks(wanted);
        self.ask_checks(wanted);
        self.mrtr_checks(wanted);
        self.set_level_check(wanted);
    }

    /// The legacy handshake's end: a ping, and what the server sent, before
    /// `notifications/initialized`, which it then sends.
    fn before_initialized(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if self.revision.has_initialize() {
            // Before `initialized`: a ping, and what the server sends from
            // its `initialize` reply on (in the reply's read, perhaps).
            let mark = self.conn.mark();
            let from = self
                .conn
                .lines
                .iter()
                .rposition(|l| l.reply_to.as_deref() == Some("initialize"))
                .map_or(mark.lines, |i| i + 1);
            let reply = self.ask("ping", Value::Null);
            let mut evidence = grade::before_initialized(&self.conn.lines[from..]);
            if !matches!(reply, Reply::Result(ref r) if r.as_object().is_some_and(|o| o.keys().all(|k| k == "_meta")))
            {
                evidence.push(finding(
                    &MCP_PING,
                    format!(
                        "a `ping` before `notifications/initialized` got {}",
                        reply.describe()
                    ),
                ));
            }
            self.conn.notify("notifications/initialized", Value::Null);
            if wanted(BEFORE_INITIALIZED) {
                let mut result = result_with(BEFORE_INITIALIZED, self.revision.as_str(), evidence);
                self.conn.attach(&mut result, mark);
                self.results.push(result);
            }
        } else if wanted(BEFORE_INITIALIZED) {
            self.results.push(
                self.not_in_revision(BEFORE_INITIALIZED, "there is no `initialize` handshake"),
            );
        }
    }

    /// A `ping`, answered promptly with an empty result.
    fn ping_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(PING) {
            if self.revision.has_initialize() {
                self.check(PING, |s| {
                    let asked = Instant::now();
                    let reply = s.ask("ping", Value::Null);
                    match reply {
                        Reply::Result(r)
                            if r.as_object()
                                .is_some_and(|o| o.keys().all(|k| k == "_meta")) =>
                        {
                            let took = asked.elapsed();
                            if took > Duration::from_secs(1) {
                                // "Promptly" has no number: slow is a
                                // reading, not a broken MUST.
                                vec![Evidence::note(
                                    Verdict::NonStrict,
                                    format!("`ping` took {took:.1?}: the specification asks for a prompt answer (basic/utilities/ping, no number given)"),
                                )]
                            } else {
                                Vec::new()
                            }
                        }
                        other => vec![finding(
                            &MCP_PING,
                            format!("`ping` got {}, not an empty result", other.describe()),
                        )],
                    }
                });
            } else {
                self.results.push(
                    self.not_in_revision(PING, "`ping` is removed (changelog, major change 5)"),
                );
            }
        }
    }

    /// `server/discover` of a version no server supports: error -32022,
    /// with the versions it does.
    fn unknown_version_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(UNKNOWN_VERSION) && !self.revision.has_initialize() {
            self.check(UNKNOWN_VERSION, |s| {
                let params = s.conn.params_of(json!({}), "1900-01-01");
                let deadline = s.conn.deadline();
                let reply = s.conn.request_raw("server/discover", params, deadline);
                match &reply {
                    Reply::Error(e) if reply.code() == Some(-32022) => {
                        let supported = e.pointer("/data/supported").and_then(Value::as_array);
                        match supported {
                            Some(list) if !list.is_empty() => Vec::new(),
                            _ => vec![finding(&MCP_VERSION_ERROR, format!("error -32022 without the `data.supported` list: {}", short(e)))],
                        }
                    }
                    other => vec![finding(
                        &MCP_VERSION_ERROR,
                        format!("`server/discover` with protocol version 1900-01-01 in `_meta` got {}, not error -32022", other.describe()),
                    )],
                }
            });
        }
    }

    /// A cancellation of a request never sent, then a request that must
    /// still be answered.
    fn cancel_unknown_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(CANCEL_UNKNOWN) {
            self.check(CANCEL_UNKNOWN, |s| {
                s.conn.notify(
                    "notifications/cancelled",
                    json!({"requestId": "rpcspec-never-sent", "reason": "rpcspec: a request this server never saw"}),
                );
                let (method, params) = if s.revision.has_ping() {
                    ("ping", Value::Null)
                } else {
                    ("server/discover", json!({}))
                };
                match s.ask(method, params) {
                    Reply::Result(_) | Reply::Error(_) => Vec::new(),
                    other => vec![finding(
                        &MCP_CANCEL_UNKNOWN,
                        format!("after a cancellation of an unknown request, `{method}` got {}", other.describe()),
                    )],
                }
            });
        }
    }

    /// `logging/setLevel`, with `logging` declared.
    fn set_level_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(SET_LEVEL) {
            if !self.revision.has_initialize() {
                self.results.push(self.not_in_revision(
                    SET_LEVEL,
                    "`logging/setLevel` is removed (changelog, major change 5)",
                ));
            } else if !self.declared("logging") {
                self.results.push(self.not_declared(SET_LEVEL, "logging"));
            } else {
                self.check(SET_LEVEL, |s| {
                    match s.ask("logging/setLevel", json!({"level": "debug"})) {
                        Reply::Result(_) => Vec::new(),
                        other => vec![finding(
                            &MCP_LOGGING_SET_LEVEL,
                            format!(
                                "`logging/setLevel` with level debug got {}",
                                other.describe()
                            ),
                        )],
                    }
                });
            }
        }
    }

    /// The graders of the whole transcript, and the shutdown.
    fn finish(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        // Last on the session: a server that takes it may start over.
        self.second_initialize_check(wanted);
        self.shutdown_check(wanted);
        self.transcript_checks(wanted);
    }

    /// A second `initialize`, after `notifications/initialized`: an error.
    fn second_initialize_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(SECOND_INITIALIZE) && self.broken.is_none() {
            if !self.revision.has_initialize() {
                self.results
                    .push(self.not_in_revision(SECOND_INITIALIZE, "there is no `initialize`"));
            } else {
                self.check(SECOND_INITIALIZE, |s| {
                    let params = initialize_params(s.revision.as_str());
                    match s.ask("initialize", params) {
                        Reply::Error(_) => Vec::new(),
                        other => vec![finding(
                            &MCP_SECOND_INITIALIZE,
                            format!(
                                "a second `initialize`, after `notifications/initialized`, got {}",
                                other.describe()
                            ),
                        )],
                    }
                });
            }
        }
    }

    /// The shutdown: the server exits once its stdin closes (one that had
    /// ended is a CRASH; one that a check ended, a new process's).
    fn shutdown_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        let revision = self.revision;
        if wanted(SHUTDOWN) && !self.conn.alive() && self.broken.is_some() {
            let why = match &self.conn.exit {
                Some(exit) => format!("the server had ended before its stdin was closed ({exit})"),
                None => "the server had closed stdout before its stdin was closed".to_owned(),
            };
            self.results.push(result_with(
                SHUTDOWN,
                revision.as_str(),
                vec![Evidence::note(Verdict::Crash, why)],
            ));
        }
        if wanted(SHUTDOWN) && !self.conn.alive() && self.broken.is_none() {
            // Its last check ended the process: the shutdown is a new one's.
            if let Err(why) = self.reopen() {
                self.results
                    .push(result_with(SHUTDOWN, revision.as_str(), vec![*why]));
            }
        }
        if wanted(SHUTDOWN) && self.conn.alive() {
            let mark = self.conn.mark();
            let wait = Duration::from_secs(2);
            let shutdown = self.conn.shut_down(wait);
            let evidence = match shutdown.step {
                ShutdownStep::Eof => vec![Evidence::note(
                    Verdict::Pass,
                    format!(
                        "exited {:.0?} after stdin closed ({})",
                        shutdown.took,
                        shutdown.exit.clone().unwrap_or_default()
                    ),
                )],
                ShutdownStep::Term => vec![finding(
                    &MCP_SHUTDOWN,
                    format!(
                        "still running {wait:?} after stdin closed; SIGTERM ended it ({:.1?} in all)",
                        shutdown.took
                    ),
                )],
                ShutdownStep::Kill => vec![finding(
                    &MCP_SHUTDOWN,
                    format!(
                        "still running {wait:?} after stdin closed and {wait:?} after SIGTERM; SIGKILL was needed"
                    ),
                )],
            };
            let mut result = result_with(SHUTDOWN, revision.as_str(), evidence);
            result.duration = shutdown.took;
            self.conn.attach(&mut result, mark);
            self.results.push(result);
        } else {
            self.conn.kill();
        }
    }

    /// The graders of the whole transcript, over every process of the
    /// session: those that died, then this one.
    fn transcript_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        let revision = self.revision;
        let all = Mark::default();
        // Every process of the session: those that died, then this one.
        let mut transcript: [(&Check, Vec<Evidence>); 4] = [
            (STDIO, Vec::new()),
            (SCHEMA, Vec::new()),
            (SERVER_DECLARED, Vec::new()),
            (CLIENT_DECLARED, Vec::new()),
        ];
        for (n, conn) in self
            .past
            .iter()
            .chain(std::iter::once(&self.conn))
            .enumerate()
        {
            let lines = &conn.lines;
            let found = [
                grade::stdio(lines),
                grade::schema(revision, lines, &conn.sent),
                grade::server_capabilities(&self.capabilities, lines),
                grade::client_capabilities(revision, &conn.capabilities, lines),
            ];
            for ((_, evidence), mut more) in transcript.iter_mut().zip(found) {
                if n < self.past.len() {
                    for e in &mut more {
                        e.message = format!("process {}, {}", n + 1, e.message);
                    }
                }
                evidence.extend(more);
            }
        }
        for (check, evidence) in transcript {
            if !wanted(check) {
                continue;
            }
            let evidence = match &self.unknown_version {
                Some(version) if check.id == SCHEMA.id => vec![Evidence::note(
                    Verdict::NotApplicable,
                    format!("the server speaks {version}: rpcspec has no schema of it"),
                )],
                _ => evidence,
            };
            let mut result = result_with(check, revision.as_str(), evidence);
            result.duration = self.started.elapsed();
            self.conn.attach(&mut result, all);
            self.results.push(result);
        }
    }
}
