//! Opening the session: version negotiation, the handshake, and the
//! processes of their own for what a session can be asked once.

use std::{sync::mpsc, thread, time::Instant};

use serde_json::{Value, json};

use super::{
    CaseResult, Conn, Evidence, MAX_REOPENS, Mark, Options, Outcome, Reply, Revision, Session,
    Target, ToolCalls, Verdict, finding, initialize_params, result_with, run, run_signalling,
    short,
    table::{DISCOVER, INITIALIZE, UNKNOWN_VERSION},
};
use crate::dialects::mcp::rules::{MCP_DISCOVER, MCP_INITIALIZE_RESULT, MCP_VERSION_UNSUPPORTED};

/// A session being opened: its connection, the results of the handshake
/// so far, and what is negotiated.
struct Opening<'a> {
    target: &'a Target,
    opts: &'a Options,
    conn: Conn,
    results: Vec<CaseResult>,
    started: Instant,
    /// The revision asked for first: the pinned one, else the newest.
    first: Revision,
    revision: Revision,
    /// Whether the session is of the `initialize` era.
    legacy: bool,
    capabilities: Value,
    /// The version the server answered `initialize` with, when rpcspec
    /// has no rules or schema of it.
    unknown_version: Option<String>,
}

impl Session {
    /// Starts the server and negotiates a revision. An error: the server
    /// could not be started, or answered neither `server/discover` nor
    /// `initialize` in a way rpcspec can go on from.
    pub(super) fn open(target: &Target, opts: &Options) -> Result<Session, Box<Evidence>> {
        let started = Instant::now();
        let first = opts.pinned.unwrap_or(Revision::NEWEST);
        let conn = Conn::spawn(target, &opts.budget, first, opts.startup, opts.timeout)?;
        let mut opening = Opening {
            target,
            opts,
            conn,
            results: Vec::new(),
            started,
            first,
            revision: first,
            legacy: first.has_initialize(),
            capabilities: Value::Null,
            unknown_version: None,
        };
        Ok(match opening.negotiate() {
            Ok(()) => opening.session(),
            Err(why) => opening.broken(*why),
        })
    }
}

impl Opening<'_> {
    /// `server/discover` (unless the first revision has `initialize`),
    /// then `initialize` for a server of that era; a result for each. An
    /// error: why there is no session.
    fn negotiate(&mut self) -> Result<(), Box<Evidence>> {
        if !self.legacy {
            self.discover()?;
        }
        let revision = self.revision;
        if self.legacy {
            self.initialize()?;
        } else {
            self.conn.revision = revision;
            self.results.push(result_with(
                INITIALIZE,
                revision.as_str(),
                vec![Evidence::note(
                    Verdict::NotApplicable,
                    format!("{revision} has no `initialize` (changelog, major change 2: the handshake is removed)"),
                )],
            ));
        }
        let revision = self.revision;
        if self.legacy && !self.results.iter().any(|r| r.id == DISCOVER.id) {
            self.results.push(result_with(
                DISCOVER,
                revision.as_str(),
                vec![Evidence::note(
                    Verdict::NotApplicable,
                    format!("{revision} has no `server/discover` (it came in 2026-07-28)"),
                )],
            ));
        }
        Ok(())
    }

    /// `server/discover` in the first revision: a modern server answers
    /// it; one without that revision lists those it has (one is taken,
    /// unless pinned); any other answer, unpinned, means a legacy server.
    fn discover(&mut self) -> Result<(), Box<Evidence>> {
        let (first, opts) = (self.first, self.opts);
        let mark = self.conn.mark();
        let deadline = self.conn.deadline();
        let reply = self.conn.request("server/discover", json!({}), deadline);
        if let Some(why) = silence(
            &self.conn,
            &reply,
            opts,
            "`server/discover`",
            opts.pinned.is_some(),
        ) {
            return Err(Box::new(why));
        }
        let mut evidence = Vec::new();
        let supported = match &reply {
            Reply::Error(e) if reply.code() == Some(-32022) => e
                .pointer("/data/supported")
                .and_then(Value::as_array)
                .cloned(),
            _ => None,
        };
        match &reply {
            Reply::Result(r) => evidence = self.discovered(r),
            Reply::Error(e) if opts.pinned.is_none() && supported.is_some() => {
                self.fall_back(e, &supported.unwrap_or_default())?;
            }
            Reply::Error(e) if supported.is_some() => {
                return Err(self.unsupported_pin(e, supported, mark));
            }
            _ if opts.pinned.is_none() => self.legacy = true,
            other => evidence.push(finding(
                &MCP_DISCOVER,
                format!("`server/discover` got {}", other.describe()),
            )),
        }
        let mut result = result_with(DISCOVER, first.as_str(), evidence);
        if self.legacy && opts.pinned.is_none() {
            result.evidence = vec![Evidence::note(
                Verdict::NotApplicable,
                format!(
                    "a server of the `initialize` era: it answered `server/discover` in {first} with {} (MCP 2026-07-28 basic/transports/stdio, Backward Compatibility: any other error, or none, means legacy)",
                    reply.describe()
                ),
            )];
            result.settle();
        }
        self.conn.attach(&mut result, mark);
        self.results.push(result);
        Ok(())
    }

    /// A DiscoverResult: the capabilities it declares, and the findings
    /// of one without them or without the version asked in.
    fn discovered(&mut self, r: &Value) -> Vec<Evidence> {
        let first = self.first;
        let mut evidence = Vec::new();
        let versions: Vec<&str> = r
            .get("supportedVersions")
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        self.capabilities = r.get("capabilities").cloned().unwrap_or(Value::Null);
        if !self.capabilities.is_object() {
            evidence.push(finding(
                &MCP_DISCOVER,
                format!(
                    "the DiscoverResult has no `capabilities` object: {}",
                    short(r)
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
        evidence
    }

    /// A modern server without the first revision (error `e`, listing
    /// `supported`): the newest it lists that rpcspec knows, modern or
    /// legacy. An error: it lists none rpcspec checks.
    fn fall_back(&mut self, e: &Value, supported: &[Value]) -> Result<(), Box<Evidence>> {
        let known: Vec<Revision> = supported
            .iter()
            .filter_map(|v| v.as_str()?.parse().ok())
            .collect();
        match known.iter().max() {
            Some(r) if !r.has_initialize() => self.revision = *r,
            Some(r) => {
                self.legacy = true;
                self.revision = *r;
            }
            None => {
                return Err(Box::new(Evidence::note(
                    Verdict::Skipped,
                    format!(
                        "the server supports none of the MCP revisions rpcspec checks ({}): it lists {}",
                        Revision::NAMES.join(", "),
                        short(e)
                    ),
                )));
            }
        }
        Ok(())
    }

    /// Pinned to a revision the server says it does not support (error
    /// `e`, listing `supported`), as the versioning page asks it to say:
    /// `server/discover` passes, and why there is no session.
    fn unsupported_pin(
        &mut self,
        e: &Value,
        supported: Option<Vec<Value>>,
        mark: Mark,
    ) -> Box<Evidence> {
        let first = self.first;
        let listed = supported.map(Value::Array).unwrap_or_default();
        let mut result = result_with(
            DISCOVER,
            first.as_str(),
            vec![Evidence::note(
                Verdict::Pass,
                format!("the server does not support {first}: {}", short(e)),
            )],
        );
        self.conn.attach(&mut result, mark);
        self.results.push(result);
        Box::new(Evidence::note(
            Verdict::Skipped,
            format!(
                "pinned to {first}, which the server does not support (it lists {listed}): drop the pin or pin one of those"
            ),
        ))
    }

    /// `initialize`, offering the pinned revision, else the one the server
    /// listed, else the newest that has it. An error: why there is no
    /// session.
    fn initialize(&mut self) -> Result<(), Box<Evidence>> {
        // Pinned: that one; else one the server listed, or the newest.
        let offered = match self.opts.pinned {
            Some(r) => r,
            None if self.revision.has_initialize() => self.revision,
            None => Revision::NEWEST_LEGACY,
        };
        self.conn.revision = offered;
        // Whatever comes, this session is of the `initialize` era.
        self.revision = offered;
        let mark = self.conn.mark();
        let params = initialize_params(offered.as_str());
        let deadline = self.conn.deadline();
        let reply = self.conn.request("initialize", params, deadline);
        if let Some(why) = silence(&self.conn, &reply, self.opts, "`initialize`", true) {
            return Err(Box::new(why));
        }
        let evidence = match &reply {
            Reply::Result(r) => self.initialized(r, offered, mark)?,
            other => return Err(self.not_initialized(other, offered, mark)),
        };
        self.conn.revision = self.revision;
        let mut result = result_with(INITIALIZE, self.revision.as_str(), evidence);
        self.conn.attach(&mut result, mark);
        self.results.push(result);
        Ok(())
    }

    /// An InitializeResult, to `initialize` in `offered`: the capabilities
    /// it declares, the revision it answered, the findings of what it
    /// lacks. An error: it answered a version rpcspec does not check.
    fn initialized(
        &mut self,
        r: &Value,
        offered: Revision,
        mark: Mark,
    ) -> Result<Vec<Evidence>, Box<Evidence>> {
        let mut evidence = Vec::new();
        self.capabilities = r.get("capabilities").cloned().unwrap_or(Value::Null);
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
            Some(Ok(r)) if r.has_initialize() => self.revision = r,
            Some(Ok(r)) => evidence.push(finding(
                &MCP_VERSION_UNSUPPORTED,
                format!("offered {offered}, the server answered `initialize` with {r}, which has no `initialize`"),
            )),
            Some(Err(_)) => {
                // A version it supports, as the lifecycle asks:
                // one rpcspec has no rules or schema of.
                let version = answered.unwrap_or_default().to_owned();
                evidence.push(Evidence::note(
                    Verdict::Pass,
                    format!("the server speaks {version}, which rpcspec does not check"),
                ));
                let mut result = result_with(INITIALIZE, offered.as_str(), evidence);
                self.conn.attach(&mut result, mark);
                self.results.push(result);
                let why = Evidence::note(
                    Verdict::Skipped,
                    format!(
                        "offered {offered}, the server answered `initialize` with {version}: rpcspec checks {} only",
                        Revision::NAMES.join(", ")
                    ),
                );
                self.unknown_version = Some(version);
                return Err(Box::new(why));
            }
            None => self.revision = offered,
        }
        Ok(evidence)
    }

    /// `initialize` in `offered` got `other`, not a result: its finding,
    /// and why there is no session.
    fn not_initialized(&mut self, other: &Reply, offered: Revision, mark: Mark) -> Box<Evidence> {
        let why = format!("`initialize` in {offered} got {}", other.describe());
        let mut result = result_with(
            INITIALIZE,
            offered.as_str(),
            vec![finding(&MCP_INITIALIZE_RESULT, why.clone())],
        );
        let verdict = if matches!(other, Reply::NoReply) {
            Verdict::Timeout
        } else if matches!(other, Reply::Gone) {
            Verdict::Crash
        } else {
            Verdict::Fail
        };
        if verdict != Verdict::Fail {
            result.evidence.push(Evidence::note(verdict, why.clone()));
            result.settle();
        }
        self.conn.attach(&mut result, mark);
        self.results.push(result);
        Box::new(Evidence::note(
            verdict,
            format!("no MCP session: {why}; every check needs one"),
        ))
    }

    /// The session, negotiated.
    fn session(self) -> Session {
        let (target, opts) = (self.target, self.opts);
        Session {
            conn: self.conn,
            revision: self.revision,
            capabilities: self.capabilities,
            results: self.results,
            started: self.started,
            broken: None,
            slow_took: None,
            calls: opts.calls.clone(),
            target: target.clone(),
            opts: opts.clone(),
            past: Vec::new(),
            reopens: 0,
            stalled: false,
            timed_out: false,
            unknown_version: None,
        }
    }

    /// The session that could not be had, for `why`; one whose server
    /// speaks a version rpcspec does not check keeps what it declared.
    fn broken(self, why: Evidence) -> Session {
        let mut session = Session::broken(
            self.conn,
            (self.target, self.opts),
            self.revision,
            self.results,
            self.started,
            why,
        );
        if self.unknown_version.is_some() {
            session.capabilities = self.capabilities;
            session.unknown_version = self.unknown_version;
        }
        session
    }
}

impl Session {
    /// A session that could not be had, for `why`: the checks that need
    /// one get `why`, the graders of the transcript still run.
    pub(super) fn broken(
        mut conn: Conn,
        (target, opts): (&Target, &Options),
        revision: Revision,
        results: Vec<CaseResult>,
        started: Instant,
        why: Evidence,
    ) -> Session {
        conn.revision = revision;
        Session {
            conn,
            revision,
            capabilities: Value::Null,
            results,
            started,
            broken: Some(why),
            slow_took: None,
            calls: ToolCalls::default(),
            target: target.clone(),
            opts: opts.clone(),
            past: Vec::new(),
            // A broken session starts no new processes.
            reopens: MAX_REOPENS,
            stalled: false,
            timed_out: false,
            unknown_version: None,
        }
    }
}

/// Whether the server answers `initialize` of the newest revision that
/// has it with a result, on a process of its own.
pub(super) fn speaks_legacy(target: &Target, opts: &Options) -> bool {
    let revision = Revision::NEWEST_LEGACY;
    let Ok(mut conn) = Conn::spawn(target, &opts.budget, revision, opts.startup, opts.timeout)
    else {
        return false;
    };
    let params = initialize_params(revision.as_str());
    let deadline = conn.deadline();
    let reply = conn.request("initialize", params, deadline);
    conn.kill();
    matches!(reply, Reply::Result(_))
}

/// `mcp/lifecycle/unknown-version` for a server of the `initialize` era,
/// on a process of its own: `initialize` of 1900-01-01.
pub(super) fn unknown_version_legacy(target: &Target, opts: &Options) -> CaseResult {
    let asked = "1900-01-01";
    let revision = opts.pinned.unwrap_or(Revision::NEWEST_LEGACY);
    let mut conn = match Conn::spawn(target, &opts.budget, revision, opts.startup, opts.timeout) {
        Ok(c) => c,
        Err(e) => return result_with(UNKNOWN_VERSION, revision.as_str(), vec![*e]),
    };
    let mark = conn.mark();
    let params = initialize_params(asked);
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
                format!("the answer names no `protocolVersion`: {}", short(r)),
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

/// Why the session ends before it began, when the run halted because its
/// target answered nothing: `asked` got no reply, and the process wrote
/// no line. `last`: this was the session's last try at a first answer, so
/// its silence halts the run unless a process of the run was heard; else
/// the session only stops when the JSON-RPC cases already halted it.
fn silence(
    conn: &Conn,
    reply: &Reply,
    opts: &Options,
    asked: &str,
    last: bool,
) -> Option<Evidence> {
    if !conn.lines.is_empty() {
        opts.readiness.heard();
        return None;
    }
    if last && matches!(reply, Reply::NoReply) {
        opts.readiness.unheard(crate::report::Halt {
            verdict: Verdict::Timeout,
            message: format!(
                "the target wrote nothing to stdout in {:.1?} (--startup-timeout {:?}), not even an \
                 answer to {asked}: is it an MCP server over stdio (some need an argument, such as \
                 `stdio`)? does it flush stdout after each message? If it starts slower, raise \
                 --startup-timeout",
                conn.started.elapsed(),
                opts.startup
            ),
        });
    }
    let halt = opts.readiness.halted()?;
    Some(Evidence::note(halt.verdict, halt.message.clone()))
}

/// [`run`] in the revision the server negotiates and, when that is
/// 2026-07-28 and the server also opens a session with `initialize`
/// (a dual-era server), again pinned at 2025-11-25: by default every
/// revision a server speaks is checked, each result's plan naming its
/// revision. A pinned run (`mcp@REVISION`) is one session.
pub fn run_every(
    target: &Target,
    opts: &Options,
    selected: &(dyn Fn(&str) -> bool + Sync),
) -> Outcome {
    if opts.pinned.is_some() {
        return run(target, opts, selected);
    }
    // The 2025-11-25 session of a dual-era server starts as soon as the
    // 2026-07-28 session's second process has opened one with
    // `initialize`, beside the rest of the 2026-07-28 checks.
    let (dual, is_dual) = mpsc::channel();
    thread::scope(|scope| {
        let legacy = scope.spawn(move || {
            is_dual.recv().ok()?;
            let legacy = Options {
                pinned: Some(Revision::V2025_11_25),
                ..opts.clone()
            };
            Some(run(target, &legacy, selected))
        });
        let mut outcome = run_signalling(target, opts, selected, Some(dual));
        if let Some(legacy) = legacy.join().expect("the MCP checks do not panic") {
            outcome.results.extend(legacy.results);
        }
        outcome
    })
}
