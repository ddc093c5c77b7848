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
//! only negotiated capabilities used.

use std::{
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use super::{
    Revision,
    conn::{Conn, Mark, Reply, ShutdownStep, client_info},
    grade::{self, finding},
    rules::*,
};
use crate::{
    budget::Budget,
    report::{CaseResult, Evidence, Verdict},
    rules::Rule,
    target::Target,
};

/// One MCP check, as `rpcspec list --dialect mcp` shows it.
#[derive(Debug)]
pub struct Check {
    /// The case id (`mcp/tools/list`).
    pub id: &'static str,
    /// What it checks, in one line.
    pub title: &'static str,
    /// The rules it grades.
    pub rules: &'static [&'static Rule],
    /// What it needs of the server, in words ("" for every server).
    pub gate: &'static str,
}

macro_rules! checks {
    ($( $name:ident = $id:literal, $title:literal, [$($rule:ident),*], $gate:literal; )*) => {
        $( const $name: &Check = &Check { id: $id, title: $title, rules: &[$(&$rule),*], gate: $gate }; )*
        /// Every MCP check, in the order a run reports them.
        pub static CHECKS: &[&Check] = &[$($name),*];
    };
}

checks! {
    DISCOVER = "mcp/lifecycle/discover", "`server/discover` answers with versions, capabilities and identity",
        [MCP_DISCOVER], "2026-07-28";
    INITIALIZE = "mcp/lifecycle/initialize", "`initialize` answers with the server's version, capabilities and information",
        [MCP_INITIALIZE_RESULT], "2025-06-18, 2025-11-25";
    UNKNOWN_VERSION = "mcp/lifecycle/unknown-version", "a protocol version no server supports is answered with the versions it does",
        [MCP_VERSION_UNSUPPORTED, MCP_VERSION_ERROR], "";
    BEFORE_INITIALIZED = "mcp/lifecycle/before-initialized", "before `initialized`, `ping` is answered and the server asks nothing",
        [MCP_PING, MCP_BEFORE_INITIALIZED], "2025-06-18, 2025-11-25";
    PING = "mcp/utilities/ping", "`ping` is answered promptly with an empty result",
        [MCP_PING], "2025-06-18, 2025-11-25";
    CANCEL_UNKNOWN = "mcp/utilities/cancel-unknown", "a cancellation of an unknown request is ignored",
        [MCP_CANCEL_UNKNOWN], "";
    TOOLS_LIST = "mcp/tools/list", "every tool has a valid input schema and a well-formed, unique name; the list ends",
        [MCP_TOOLS_INPUT_SCHEMA, MCP_TOOLS_NAME, MCP_PAGINATION_ENDS], "capability `tools`";
    TOOLS_UNKNOWN = "mcp/tools/unknown-tool", "a call of an unknown tool is a protocol error",
        [MCP_TOOLS_UNKNOWN], "capability `tools`";
    RESOURCES_LIST = "mcp/resources/list", "the resource and template lists end",
        [MCP_PAGINATION_ENDS], "capability `resources`";
    RESOURCES_UNKNOWN = "mcp/resources/unknown-uri", "reading an unknown resource gets the not-found error",
        [MCP_RESOURCES_UNKNOWN], "capability `resources`";
    PROMPTS_LIST = "mcp/prompts/list", "the prompt list ends",
        [MCP_PAGINATION_ENDS], "capability `prompts`";
    PROMPTS_UNKNOWN = "mcp/prompts/unknown-name", "getting an unknown prompt gets -32602",
        [MCP_PROMPTS_UNKNOWN], "capability `prompts`";
    INVALID_CURSOR = "mcp/pagination/invalid-cursor", "a cursor the server never gave gets -32602",
        [MCP_PAGINATION_INVALID], "capability `tools`, `resources` or `prompts`";
    UNDECLARED = "mcp/capabilities/undeclared-method", "the methods of capabilities the server did not declare get -32601",
        [MCP_UNDECLARED_METHOD], "a capability not declared";
    SET_LEVEL = "mcp/logging/set-level", "`logging/setLevel` is accepted",
        [MCP_LOGGING_SET_LEVEL], "capability `logging`, 2025-06-18, 2025-11-25";
    SERVER_DECLARED = "mcp/capabilities/server-declared", "the server sends log messages only if it declared `logging`",
        [MCP_SERVER_CAPABILITY], "";
    CLIENT_DECLARED = "mcp/capabilities/client-declared", "the server asks the client only for capabilities the client declared",
        [MCP_CLIENT_CAPABILITY, MCP_STDIO_NO_REQUESTS], "";
    STDIO = "mcp/stdio/messages-only", "every line on stdout is one MCP message, UTF-8, on one line",
        [MCP_STDIO_MESSAGES_ONLY], "";
    SCHEMA = "mcp/schema/messages", "every message matches the revision's JSON Schema",
        [MCP_SCHEMA], "";
    SHUTDOWN = "mcp/shutdown/stdin-eof", "the server exits once stdin is closed",
        [MCP_SHUTDOWN], "";
}

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
}

/// What a run of the checks found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// A result per check run, in the order of [`CHECKS`].
    pub results: Vec<CaseResult>,
    /// The revision negotiated, if a session was had.
    pub revision: Option<Revision>,
    /// Whether the server opens a session with `initialize` (the JSON-RPC
    /// cases' handshake): a 2026-07-28 server may or may not also speak
    /// an older revision. `None`: not found out (no session).
    pub has_initialize: Option<bool>,
}

/// The checks whose id `selected` takes, run against `target`.
pub fn run(target: &Target, opts: &Options, selected: &dyn Fn(&str) -> bool) -> Outcome {
    let chosen: Vec<&Check> = CHECKS.iter().copied().filter(|c| selected(c.id)).collect();
    if chosen.is_empty() {
        return Outcome::default();
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
    let second = (!legacy || wanted(UNKNOWN_VERSION)).then(|| {
        let (target, opts) = (target.clone(), opts.clone());
        thread::spawn(move || {
            if legacy {
                (Some(unknown_version_legacy(&target, &opts)), true)
            } else {
                (None, speaks_legacy(&target, &opts))
            }
        })
    });
    session.run_checks(&wanted);
    let mut has_initialize = Some(legacy);
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
    results.sort_by_key(|r| CHECKS.iter().position(|c| c.id == r.id));
    Outcome {
        results,
        revision: Some(session.revision),
        has_initialize,
    }
}

/// Whether the server answers `initialize` of the newest revision that
/// has it with a result, on a process of its own.
fn speaks_legacy(target: &Target, opts: &Options) -> bool {
    let revision = Revision::NEWEST_LEGACY;
    let Ok(mut conn) = Conn::spawn(target, &opts.budget, revision, opts.startup, opts.timeout)
    else {
        return false;
    };
    let params = json!({
        "protocolVersion": revision.as_str(),
        "capabilities": serde_json::from_str::<Value>(super::conn::CLIENT_CAPABILITIES).expect("JSON"),
        "clientInfo": client_info(),
    });
    let deadline = conn.deadline();
    let reply = conn.request("initialize", params, deadline);
    conn.kill();
    matches!(reply, Reply::Result(_))
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
}

impl Session {
    /// Starts the server and negotiates a revision. An error: the server
    /// could not be started, or answered neither `server/discover` nor
    /// `initialize` in a way rpcspec can go on from.
    fn open(target: &Target, opts: &Options) -> Result<Session, Box<Evidence>> {
        let started = Instant::now();
        let first = opts.pinned.unwrap_or(Revision::NEWEST);
        let mut conn = Conn::spawn(target, &opts.budget, first, opts.startup, opts.timeout)?;
        let mut results = Vec::new();
        let mut legacy = first.has_initialize();
        let mut capabilities = Value::Null;
        let mut revision = first;
        if !legacy {
            let mark = conn.mark();
            let deadline = conn.deadline();
            let reply = conn.request("server/discover", json!({}), deadline);
            let mut evidence = Vec::new();
            let supported = match &reply {
                Reply::Error(e) if reply.code() == Some(-32022) => e
                    .pointer("/data/supported")
                    .and_then(Value::as_array)
                    .cloned(),
                _ => None,
            };
            match &reply {
                Reply::Result(r) => {
                    let versions: Vec<&str> = r
                        .get("supportedVersions")
                        .and_then(Value::as_array)
                        .map(|v| v.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    capabilities = r.get("capabilities").cloned().unwrap_or(Value::Null);
                    if !capabilities.is_object() {
                        evidence.push(finding(
                            &MCP_DISCOVER,
                            format!(
                                "the DiscoverResult has no `capabilities` object: {}",
                                super::conn::short(r)
                            ),
                        ));
                    }
                    if !versions.contains(&first.as_str()) {
                        evidence.push(finding(
                            &MCP_DISCOVER,
                            format!(
                                "asked in {first}, the server answered a DiscoverResult whose `supportedVersions` ({versions:?}) lacks it: it answered a version it does not support"
                            ),
                        ));
                    }
                }
                Reply::Error(e) if opts.pinned.is_none() && supported.is_some() => {
                    let supported = supported.unwrap_or_default();
                    // Modern, without our version: one it lists, else legacy.
                    let known: Vec<Revision> = supported
                        .iter()
                        .filter_map(|v| v.as_str()?.parse().ok())
                        .collect();
                    match known.iter().max() {
                        Some(r) if !r.has_initialize() => revision = *r,
                        Some(r) => {
                            legacy = true;
                            revision = *r;
                        }
                        None => {
                            return Err(Box::new(Evidence::note(
                                Verdict::Error,
                                format!(
                                    "the server supports none of the MCP revisions rpcspec knows ({}): it lists {}",
                                    Revision::NAMES.join(", "),
                                    super::conn::short(e)
                                ),
                            )));
                        }
                    }
                }
                _ if opts.pinned.is_none() => legacy = true,
                other => evidence.push(finding(
                    &MCP_DISCOVER,
                    format!("`server/discover` got {}", other.describe()),
                )),
            }
            let mut result = result_with(DISCOVER, first.as_str(), evidence);
            if legacy && opts.pinned.is_none() {
                result.evidence = vec![Evidence::note(
                    Verdict::NotApplicable,
                    format!(
                        "a server of the `initialize` era: it answered `server/discover` in {first} with {} (MCP 2026-07-28 basic/transports/stdio, Backward Compatibility: any other error, or none, means legacy)",
                        reply.describe()
                    ),
                )];
                result.settle();
            }
            conn.attach(&mut result, mark);
            results.push(result);
        }
        if legacy {
            // Pinned: that one; else one the server listed, or the newest.
            let offered = match opts.pinned {
                Some(r) => r,
                None if revision.has_initialize() => revision,
                None => Revision::NEWEST_LEGACY,
            };
            conn.revision = offered;
            let mark = conn.mark();
            let params = json!({
                "protocolVersion": offered.as_str(),
                "capabilities": serde_json::from_str::<Value>(super::conn::CLIENT_CAPABILITIES).expect("JSON"),
                "clientInfo": client_info(),
            });
            let deadline = conn.deadline();
            let reply = conn.request("initialize", params, deadline);
            let mut evidence = Vec::new();
            match &reply {
                Reply::Result(r) => {
                    capabilities = r.get("capabilities").cloned().unwrap_or(Value::Null);
                    let answered = r.get("protocolVersion").and_then(Value::as_str);
                    for member in ["protocolVersion", "capabilities", "serverInfo"] {
                        if r.get(member).is_none() {
                            evidence.push(finding(
                                &MCP_INITIALIZE_RESULT,
                                format!("the InitializeResult has no `{member}`"),
                            ));
                        }
                    }
                    match answered.map(str::parse::<Revision>) {
                        Some(Ok(r)) if r.has_initialize() => revision = r,
                        Some(Ok(r)) => evidence.push(finding(
                            &MCP_VERSION_UNSUPPORTED,
                            format!("offered {offered}, the server answered `initialize` with {r}, which has no `initialize`"),
                        )),
                        Some(Err(_)) => {
                            let version = answered.unwrap_or_default();
                            return Err(Box::new(Evidence::note(
                                Verdict::Skipped,
                                format!(
                                    "offered {offered}, the server answered `initialize` with {version}: rpcspec checks {} only",
                                    Revision::NAMES.join(", ")
                                ),
                            )));
                        }
                        None => revision = offered,
                    }
                }
                other => {
                    let why = format!("`initialize` in {offered} got {}", other.describe());
                    let mut result = result_with(
                        INITIALIZE,
                        offered.as_str(),
                        vec![finding(&MCP_INITIALIZE_RESULT, why.clone())],
                    );
                    conn.attach(&mut result, mark);
                    let verdict = if matches!(other, Reply::NoReply) {
                        Verdict::Timeout
                    } else if matches!(other, Reply::Gone) {
                        Verdict::Crash
                    } else {
                        Verdict::Fail
                    };
                    return Err(Box::new(Evidence::note(
                        verdict,
                        format!("no MCP session: {why}; every check needs one"),
                    )));
                }
            }
            conn.revision = revision;
            let mut result = result_with(INITIALIZE, revision.as_str(), evidence);
            conn.attach(&mut result, mark);
            results.push(result);
        } else {
            conn.revision = revision;
            results.push(result_with(
                INITIALIZE,
                revision.as_str(),
                vec![Evidence::note(
                    Verdict::NotApplicable,
                    format!("{revision} has no `initialize` (changelog, major change 2: the handshake is removed)"),
                )],
            ));
        }
        if legacy && !results.iter().any(|r| r.id == DISCOVER.id) {
            results.push(result_with(
                DISCOVER,
                revision.as_str(),
                vec![Evidence::note(
                    Verdict::NotApplicable,
                    format!("{revision} has no `server/discover` (it came in 2026-07-28)"),
                )],
            ));
        }
        Ok(Session {
            conn,
            revision,
            capabilities,
            results,
            started,
        })
    }

    fn declared(&self, capability: &str) -> bool {
        self.capabilities.get(capability).is_some()
    }

    /// SKIPPED: the server did not declare `capability`.
    fn not_declared(&self, check: &Check, capability: &str) -> CaseResult {
        let declared: Vec<&str> = self
            .capabilities
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        result_with(
            check,
            self.revision.as_str(),
            vec![Evidence::note(
                Verdict::Skipped,
                format!(
                    "not declared: the server's capabilities have no `{capability}` (it declared: {})",
                    if declared.is_empty() {
                        "none".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ),
            )],
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
        if !self.conn.alive() {
            let why = if self.conn.flood.is_some() {
                "the server was stopped for writing past the budget"
            } else {
                "the server closed stdout or exited earlier in the session"
            };
            self.results.push(result_with(
                check,
                self.revision.as_str(),
                vec![Evidence::note(Verdict::Crash, why.to_owned())],
            ));
            return;
        }
        let mark = self.conn.mark();
        let started = Instant::now();
        let mut evidence = body(self);
        if let Some(flood) = self.conn.flood.take() {
            evidence.push(flood);
        }
        let mut result = result_with(check, self.revision.as_str(), evidence);
        result.duration = started.elapsed();
        self.conn.attach(&mut result, mark);
        self.results.push(result);
    }

    /// A request, with the reply's deadline of the connection.
    fn ask(&mut self, method: &str, params: Value) -> Reply {
        let deadline = self.conn.deadline();
        self.conn.request(method, params, deadline)
    }

    fn run_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        let legacy = self.revision.has_initialize();
        if legacy {
            // Before `initialized`: a ping, and what the server sends.
            let mark = self.conn.mark();
            let reply = self.ask("ping", Value::Null);
            let mut evidence = grade::before_initialized(&self.conn.lines[mark.lines..]);
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

        if wanted(PING) {
            if legacy {
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
                                vec![finding(
                                    &MCP_PING,
                                    format!("`ping` took {took:.1?}: not promptly"),
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

        if wanted(UNKNOWN_VERSION) && !legacy {
            self.check(UNKNOWN_VERSION, |s| {
                let params = s.conn.params_of(json!({}), "1900-01-01");
                let deadline = s.conn.deadline();
                let reply = s.conn.request_raw("server/discover", params, deadline);
                match &reply {
                    Reply::Error(e) if reply.code() == Some(-32022) => {
                        let supported = e.pointer("/data/supported").and_then(Value::as_array);
                        match supported {
                            Some(list) if !list.is_empty() => Vec::new(),
                            _ => vec![finding(&MCP_VERSION_ERROR, format!("error -32022 without the `data.supported` list: {}", super::conn::short(e)))],
                        }
                    }
                    other => vec![finding(
                        &MCP_VERSION_ERROR,
                        format!("`server/discover` with protocol version 1900-01-01 in `_meta` got {}, not error -32022", other.describe()),
                    )],
                }
            });
        }

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

        self.feature_checks(wanted);

        if wanted(SET_LEVEL) {
            if !legacy {
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

    fn feature_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        // tools
        if wanted(TOOLS_LIST) {
            if self.declared("tools") {
                self.check(TOOLS_LIST, |s| {
                    let (items, mut evidence) = s.list_all("tools/list", "tools");
                    let mut seen = std::collections::HashMap::new();
                    for tool in &items {
                        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                        match tool.get("inputSchema") {
                            None => evidence.push(finding(&MCP_TOOLS_INPUT_SCHEMA, format!("tool `{name}` has no `inputSchema`"))),
                            Some(schema) => {
                                if let Some(why) = super::schema::schema_problems(schema) {
                                    evidence.push(finding(&MCP_TOOLS_INPUT_SCHEMA, format!("tool `{name}`: `inputSchema` is {why}")));
                                } else if schema.get("type").and_then(Value::as_str) != Some("object") {
                                    evidence.push(finding(&MCP_TOOLS_INPUT_SCHEMA, format!("tool `{name}`: `inputSchema` is not of type \"object\": {}", super::conn::short(schema))));
                                }
                            }
                        }
                        if s.revision >= Revision::V2025_11_25
                            && let Some(why) = grade::tool_name_problem(name)
                        {
                            evidence.push(finding(&MCP_TOOLS_NAME, format!("tool name {name:?} {why}")));
                        }
                        *seen.entry(name.to_owned()).or_insert(0) += 1;
                    }
                    let mut twice: Vec<_> = seen.into_iter().filter(|(_, n)| *n > 1).collect();
                    twice.sort();
                    for (name, n) in twice {
                        evidence.push(finding(&MCP_TOOLS_NAME, format!("tool name `{name}` is listed {n} times: names are unique within a server")));
                    }
                    evidence
                });
            } else {
                self.results.push(self.not_declared(TOOLS_LIST, "tools"));
            }
        }
        if wanted(TOOLS_UNKNOWN) {
            if self.declared("tools") {
                self.check(TOOLS_UNKNOWN, |s| {
                    let reply = s.ask("tools/call", json!({"name": "rpcspec-no-such-tool", "arguments": {}}));
                    match &reply {
                        Reply::Error(_) => Vec::new(),
                        Reply::Result(r) if r.get("isError") == Some(&Value::Bool(true)) => vec![finding(
                            &MCP_TOOLS_UNKNOWN,
                            format!("an unknown tool got a result with `isError: true` ({}), where the section lists unknown tools under protocol errors", super::conn::short(r)),
                        )],
                        other => vec![finding(&MCP_TOOLS_UNKNOWN, format!("calling the unknown tool `rpcspec-no-such-tool` got {}", other.describe()))],
                    }
                });
            } else {
                self.results.push(self.not_declared(TOOLS_UNKNOWN, "tools"));
            }
        }
        // resources
        if wanted(RESOURCES_LIST) {
            if self.declared("resources") {
                self.check(RESOURCES_LIST, |s| {
                    let (_, mut evidence) = s.list_all("resources/list", "resources");
                    let (_, more) = s.list_all("resources/templates/list", "resourceTemplates");
                    evidence.extend(more);
                    evidence
                });
            } else {
                self.results
                    .push(self.not_declared(RESOURCES_LIST, "resources"));
            }
        }
        if wanted(RESOURCES_UNKNOWN) {
            if self.declared("resources") {
                self.check(RESOURCES_UNKNOWN, |s| {
                    let uri = "rpcspec://no-such-resource/0";
                    let reply = s.ask("resources/read", json!({"uri": uri}));
                    let want = s.revision.resource_not_found();
                    match reply.code() {
                        Some(code) if code == want => Vec::new(),
                        _ => vec![finding(
                            &MCP_RESOURCES_UNKNOWN,
                            format!(
                                "reading the unknown resource {uri} got {}, not error {want}",
                                reply.describe()
                            ),
                        )],
                    }
                });
            } else {
                self.results
                    .push(self.not_declared(RESOURCES_UNKNOWN, "resources"));
            }
        }
        // prompts
        if wanted(PROMPTS_LIST) {
            if self.declared("prompts") {
                self.check(PROMPTS_LIST, |s| s.list_all("prompts/list", "prompts").1);
            } else {
                self.results
                    .push(self.not_declared(PROMPTS_LIST, "prompts"));
            }
        }
        if wanted(PROMPTS_UNKNOWN) {
            if self.declared("prompts") {
                self.check(PROMPTS_UNKNOWN, |s| {
                    let reply = s.ask("prompts/get", json!({"name": "rpcspec-no-such-prompt"}));
                    match reply.code() {
                        Some(-32602) => Vec::new(),
                        _ => vec![finding(&MCP_PROMPTS_UNKNOWN, format!("getting the unknown prompt `rpcspec-no-such-prompt` got {}, not error -32602", reply.describe()))],
                    }
                });
            } else {
                self.results
                    .push(self.not_declared(PROMPTS_UNKNOWN, "prompts"));
            }
        }
        if wanted(INVALID_CURSOR) {
            let list = [
                ("tools", "tools/list"),
                ("resources", "resources/list"),
                ("prompts", "prompts/list"),
            ]
            .into_iter()
            .find(|(c, _)| self.declared(c));
            match list {
                Some((_, method)) => self.check(INVALID_CURSOR, |s| {
                    let reply = s.ask(method, json!({"cursor": "rpcspec-not-a-cursor"}));
                    match reply.code() {
                        Some(-32602) => Vec::new(),
                        _ => vec![finding(&MCP_PAGINATION_INVALID, format!("`{method}` with the cursor \"rpcspec-not-a-cursor\", which it never gave, got {}", reply.describe()))],
                    }
                }),
                None => self.results.push(self.not_declared(INVALID_CURSOR, "tools`, `resources` or `prompts")),
            }
        }
        if wanted(UNDECLARED) {
            let undeclared: Vec<(&str, &str, Value)> = [
                ("tools", "tools/list", json!({})),
                ("resources", "resources/list", json!({})),
                ("prompts", "prompts/list", json!({})),
                ("completions", "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "rpcspec"}, "argument": {"name": "a", "value": ""}})),
            ]
            .into_iter()
            .filter(|(c, _, _)| !self.declared(c))
            .collect();
            if undeclared.is_empty() {
                self.results.push(result_with(
                    UNDECLARED,
                    self.revision.as_str(),
                    vec![Evidence::note(Verdict::Skipped, "the server declared tools, resources, prompts and completions: no undeclared method to call".into())],
                ));
            } else {
                self.check(UNDECLARED, |s| {
                    let mut evidence = Vec::new();
                    for (capability, method, params) in undeclared {
                        let reply = s.ask(method, params);
                        if reply.code() != Some(-32601) {
                            evidence.push(finding(
                                &MCP_UNDECLARED_METHOD,
                                format!("`{method}` (capability `{capability}`, not declared) got {}, not error -32601", reply.describe()),
                            ));
                        }
                    }
                    evidence
                });
            }
        }
    }

    /// Every item of a paginated list, following `nextCursor`; findings
    /// of `mcp.pagination.terminates` and of requests that failed.
    fn list_all(&mut self, method: &str, member: &str) -> (Vec<Value>, Vec<Evidence>) {
        const MAX_PAGES: usize = 100;
        let mut items = Vec::new();
        let mut evidence = Vec::new();
        let mut cursors: Vec<String> = Vec::new();
        let mut params = json!({});
        for page in 1..=MAX_PAGES {
            let reply = self.ask(method, params.clone());
            let Reply::Result(result) = reply else {
                evidence.push(Evidence::note(
                    Verdict::Fail,
                    format!("`{method}` (page {page}) got {}", reply.describe()),
                ));
                return (items, evidence);
            };
            if let Some(list) = result.get(member).and_then(Value::as_array) {
                items.extend(list.iter().cloned());
            }
            let Some(next) = result.get("nextCursor").and_then(Value::as_str) else {
                return (items, evidence);
            };
            if cursors.iter().any(|c| c == next) {
                evidence.push(finding(
                    &MCP_PAGINATION_ENDS,
                    format!("`{method}` page {page} gave the cursor {next:?} again: following `nextCursor` never ends"),
                ));
                return (items, evidence);
            }
            cursors.push(next.to_owned());
            params = json!({"cursor": next});
        }
        evidence.push(finding(
            &MCP_PAGINATION_ENDS,
            format!(
                "`{method}` still had a `nextCursor` after {MAX_PAGES} pages ({} items)",
                items.len()
            ),
        ));
        (items, evidence)
    }

    /// The graders of the whole transcript, and the shutdown.
    fn finish(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        let revision = self.revision;
        let all = Mark::default();
        if wanted(SHUTDOWN) {
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
        let lines = self.conn.lines.clone();
        let transcript: [(&Check, Vec<Evidence>); 4] = [
            (STDIO, grade::stdio(&lines)),
            (SCHEMA, grade::schema(revision, &lines, &self.conn.sent)),
            (
                SERVER_DECLARED,
                grade::server_capabilities(&self.capabilities, &lines),
            ),
            (
                CLIENT_DECLARED,
                grade::client_capabilities(revision, &lines),
            ),
        ];
        for (check, evidence) in transcript {
            if !wanted(check) {
                continue;
            }
            let mut result = result_with(check, revision.as_str(), evidence);
            result.duration = self.started.elapsed();
            self.conn.attach(&mut result, all);
            self.results.push(result);
        }
    }
}

/// `mcp/lifecycle/unknown-version` for a server of the `initialize` era,
/// on a process of its own: `initialize` of 1900-01-01.
fn unknown_version_legacy(target: &Target, opts: &Options) -> CaseResult {
    let asked = "1900-01-01";
    let revision = opts.pinned.unwrap_or(Revision::NEWEST_LEGACY);
    let mut conn = match Conn::spawn(target, &opts.budget, revision, opts.startup, opts.timeout) {
        Ok(c) => c,
        Err(e) => return result_with(UNKNOWN_VERSION, revision.as_str(), vec![*e]),
    };
    let mark = conn.mark();
    let params = json!({
        "protocolVersion": asked,
        "capabilities": serde_json::from_str::<Value>(super::conn::CLIENT_CAPABILITIES).expect("JSON"),
        "clientInfo": client_info(),
    });
    let deadline = conn.deadline();
    let reply = conn.request("initialize", params, deadline);
    let evidence = match &reply {
        Reply::Result(r) => match r.get("protocolVersion").and_then(Value::as_str) {
            Some(v) if v == asked => vec![finding(
                &MCP_VERSION_UNSUPPORTED,
                format!(
                    "`initialize` of protocol version {asked} was answered with {asked}: the server claims a version no server supports"
                ),
            )],
            Some(_) => Vec::new(),
            None => vec![finding(
                &MCP_VERSION_UNSUPPORTED,
                format!(
                    "the answer names no `protocolVersion`: {}",
                    super::conn::short(r)
                ),
            )],
        },
        // The lifecycle page's own example answers with an error listing
        // the supported versions.
        Reply::Error(_) => Vec::new(),
        other => vec![finding(
            &MCP_VERSION_UNSUPPORTED,
            format!(
                "`initialize` of protocol version {asked} got {}",
                other.describe()
            ),
        )],
    };
    conn.kill();
    let mut result = result_with(UNKNOWN_VERSION, revision.as_str(), evidence);
    conn.attach(&mut result, mark);
    result
}
