//! The reference MCP server (`rpcspec serve --dialect mcp[@REVISION]`):
//! what every MCP check must pass, in every revision of [`Revision::ALL`]
//! (a dual-era server, 2026-07-28 basic/versioning) or in one.
//!
//! [`Server`] is the protocol without I/O: a line in, the lines to write
//! out; [`Server::next_due`] says when a pending `slow` call next has
//! something to say and [`Server::on_tick`] says it. [`serve`] is the
//! loop over stdin and stdout.
//!
//! How a request is served:
//!
//! * `params._meta["io.modelcontextprotocol/protocolVersion"]` present:
//!   a modern request, served statelessly when it names a modern revision
//!   this server speaks; else `-32022` UnsupportedProtocolVersionError with
//!   `data.supported` (every revision served, newest first, legacy ones
//!   included: they are served through `initialize`) and `data.requested`.
//!   A modern request without `clientCapabilities` or with an unknown
//!   `logLevel` is `-32602` (basic/index `_meta`: "A request missing any
//!   required field is malformed; the server MUST reject it with … -32602").
//! * `initialize`: the legacy handshake, answered with the client's
//!   revision when this server speaks it, else its newest legacy one; a
//!   server of 2026-07-28 alone answers `-32022` naming what it speaks
//!   (basic/versioning: a modern-only server "SHOULD name the protocol
//!   versions it supports in any error it returns to an `initialize`").
//!   A second `initialize` is `-32600`.
//! * Anything else belongs to the legacy session: until
//!   `notifications/initialized`, only `ping` is answered (others are
//!   `-32600`, "not initialized", as the Python SDK refuses them); without
//!   a session, `ping` is answered, a method no revision here has is
//!   `-32601`, and the rest `-32602` (the modern rule for a request
//!   without its version) or, in a legacy-only server, `-32600`.
//!
//! Tools: `echo`, `add`, `fail` (a result with `isError`), `slow`
//! (`{ms}`: progress when asked, nothing more once cancelled), `log`
//! (`{level, message}`), and in legacy revisions `roots` (asks the client
//! for `roots/list` only if it declared `roots`). Five resources, two a
//! page; one template; the prompt `greet` and completions of its `name`.

mod calls;
mod features;
mod fixtures;
mod io;
mod mrtr;
mod quirk;
#[cfg(test)]
mod tests;
mod wire;

use std::time::{Duration, Instant};

use rpcspec_matcher::{Dialect, Id, Kind, classify};
use serde_json::{Map, Value, json, value::RawValue};

pub use io::{serve, serve_blocking};
#[doc(hidden)]
pub use quirk::Quirk;

use self::features::{ToolCall, level_rank, text_result};
use self::wire::{Out, RpcError, mcp_id, message, request_text};
use crate::dialects::mcp::Revision;

/// The `_meta` key of a modern request's protocol version.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of a modern request's client capabilities.
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of a modern request's minimum log level.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The `_meta` key a modern result names its server under.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// `-32022`: the request's protocol version is not one the server speaks
/// (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The methods of 2026-07-28 this server has.
const MODERN_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// Results a client may cache (2026-07-28 `CacheableResult`).
const CACHEABLE: &[&str] = &[
    "server/discover",
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
];

/// How many progress notifications a `slow` call with a progress token
/// sends: one a quarter of its time, the last just before its result.
const STEPS: u32 = 4;

/// The legacy session: none, `initialize` answered, or initialized.
#[derive(Debug, Clone, PartialEq)]
enum Session {
    Fresh,
    Answered { revision: Revision, client: Value },
    Ready { revision: Revision, client: Value },
}

/// A `slow` call under way.
#[derive(Debug, Clone)]
struct Slow {
    id: Value,
    raw: String,
    modern: bool,
    start: Instant,
    ms: u64,
    token: Option<Value>,
    sent: u32,
}

impl Slow {
    fn at(&self, step: u32) -> Instant {
        self.start + Duration::from_millis(self.ms * u64::from(step) / u64::from(STEPS))
    }

    /// When it next has something to write: a progress step or its end.
    fn due(&self) -> Instant {
        if self.token.is_some() && self.sent + 1 < STEPS {
            self.at(self.sent + 1)
        } else {
            self.at(STEPS)
        }
    }
}

/// A tool call waiting for the client's answer to the server's request
/// (`roots/list`; with the fixtures, `sampling/createMessage` or
/// `elicitation/create`).
#[derive(Debug, Clone)]
struct Asked {
    server_id: String,
    method: &'static str,
    call: Value,
    raw: String,
}

/// The server's state; see the module docs for its behaviour.
#[derive(Debug, Clone)]
pub struct Server {
    served: Vec<Revision>,
    quirk: Option<Quirk>,
    /// It serves the official conformance suite's fixtures too.
    fixtures: bool,
    session: Session,
    /// `logging/setLevel`'s level (a rank in `features::LEVELS`); none:
    /// every level.
    log_level: Option<usize>,
    slow: Vec<Slow>,
    asked: Vec<Asked>,
    next_id: u64,
}

impl Server {
    /// A server of every revision in `served` (non-empty).
    pub fn new(served: &[Revision]) -> Server {
        assert!(!served.is_empty(), "a server speaks some revision");
        let mut served = served.to_vec();
        served.sort();
        served.dedup();
        Server {
            served,
            quirk: None,
            fixtures: false,
            session: Session::Fresh,
            log_level: None,
            slow: Vec::new(),
            asked: Vec::new(),
            next_id: 1,
        }
    }

    /// The server a `--dialect` name asks for: `mcp` (every revision) or
    /// `mcp@REVISION`.
    pub fn for_dialect(name: &str) -> Option<Server> {
        match name.strip_prefix("mcp") {
            Some("") => Some(Server::new(Revision::ALL)),
            Some(rest) => Some(Server::new(&[rest.strip_prefix('@')?.parse().ok()?])),
            None => None,
        }
    }

    /// The same server with one bug.
    #[doc(hidden)]
    pub fn with_quirk(mut self, quirk: Quirk) -> Server {
        self.quirk = Some(quirk);
        self
    }

    /// The server, serving the official conformance suite's fixtures
    /// besides its own tools, resources and prompts (`--fixtures
    /// conformance`).
    pub fn with_fixtures(mut self) -> Server {
        self.fixtures = true;
        self
    }

    fn quirk(&self, quirk: Quirk) -> bool {
        self.quirk == Some(quirk)
    }

    /// Whether it keeps running after its input ends (a mutant's bug).
    pub fn lingers(&self) -> bool {
        self.quirk(Quirk::Lingers)
    }

    /// The revisions it speaks, newest first: `supportedVersions`.
    pub fn supported(&self) -> Vec<&'static str> {
        self.served.iter().rev().map(|r| r.as_str()).collect()
    }

    fn newest_legacy(&self) -> Option<Revision> {
        self.served
            .iter()
            .rev()
            .copied()
            .find(|r| r.has_initialize())
    }

    fn serves_modern(&self) -> bool {
        self.served.iter().any(|r| !r.has_initialize())
    }

    /// What to write for one line read (without its `\n`).
    pub fn on_line(&mut self, line: &str, now: Instant) -> Vec<String> {
        let mut out = Out::new(self.quirk(Quirk::EmbeddedNewline));
        let invalid = |out: &mut Out, code, id: Option<&Id>, drops: bool| {
            if !drops {
                let id = id.filter(|id| mcp_id(id)).map(Id::raw);
                out.error(id, &RpcError::new(code, message(code)));
            }
        };
        let drops = self.quirk(Quirk::DropsInvalid);
        let Ok(raw) = serde_json::from_str::<&RawValue>(line) else {
            invalid(&mut out, -32700, None, drops);
            return out.lines;
        };
        if raw.get().starts_with('[') {
            // MCP has no batches (removed in 2025-06-18): no request.
            invalid(&mut out, -32600, None, drops);
            return out.lines;
        }
        let params = || {
            serde_json::from_str::<Value>(raw.get())
                .ok()
                .and_then(|mut v| v.get_mut("params").map(Value::take))
        };
        match classify(raw.get(), &Dialect::Mcp).kind {
            Kind::Request { id, method } if mcp_id(&id) => {
                self.request(&id, &method, params(), now, &mut out);
            }
            Kind::Request { .. } => invalid(&mut out, -32600, None, drops),
            Kind::Notification { method } => self.notification(&method, params()),
            Kind::Invalid { id, .. } => invalid(&mut out, -32600, id.as_ref(), drops),
            Kind::Success { id } => {
                let result = serde_json::from_str::<Value>(raw.get())
                    .ok()
                    .and_then(|mut v| v.get_mut("result").map(Value::take));
                self.answered(&id, Ok(result.unwrap_or_default()), &mut out);
            }
            Kind::Error { id: Some(id), .. } => {
                self.answered(&id, Err(()), &mut out);
            }
            _ => {}
        }
        out.lines
    }

    /// What to write for a line that is not text (bad UTF-8, too long).
    pub fn on_unreadable(&mut self) -> Vec<String> {
        let mut out = Out::new(self.quirk(Quirk::EmbeddedNewline));
        if !self.quirk(Quirk::DropsInvalid) {
            out.error(None, &RpcError::new(-32700, message(-32700)));
        }
        out.lines
    }

    /// When a pending call next has something to write.
    pub fn next_due(&self) -> Option<Instant> {
        self.slow.iter().map(Slow::due).min()
    }

    /// What pending calls have to write by `now`: progress, results.
    pub fn on_tick(&mut self, now: Instant) -> Vec<String> {
        let mut out = Out::new(self.quirk(Quirk::EmbeddedNewline));
        let backwards = self.quirk(Quirk::ProgressBackwards);
        let progress = |out: &mut Out, token: &Value, step: u32| {
            let value = if backwards { STEPS + 1 - step } else { step };
            out.notify(
                "notifications/progress",
                json!({"progressToken": token, "progress": value, "total": STEPS,
                       "message": format!("step {step} of {STEPS}")}),
            );
        };
        let mut done = Vec::new();
        for (i, slow) in self.slow.iter_mut().enumerate() {
            if let Some(token) = &slow.token {
                while slow.sent + 1 < STEPS && slow.at(slow.sent + 1) <= now {
                    slow.sent += 1;
                    progress(&mut out, token, slow.sent);
                }
            }
            if slow.at(STEPS) <= now {
                if let Some(token) = &slow.token {
                    progress(&mut out, token, STEPS);
                }
                done.push(i);
            }
        }
        for i in done.into_iter().rev() {
            let slow = self.slow.remove(i);
            let result = text_result(format!("slept {} ms", slow.ms), false);
            let result = self.finish(slow.modern, "tools/call", result);
            out.result(&slow.raw, &result);
        }
        out.lines
    }

    /// The input ended: pending calls are abandoned.
    pub fn on_eof(&mut self) {
        self.slow.clear();
        self.asked.clear();
    }

    fn request(
        &mut self,
        id: &Id,
        method: &str,
        params: Option<Value>,
        now: Instant,
        out: &mut Out,
    ) {
        if self.quirk(Quirk::StdoutLog) {
            out.lines
                .push(format!("[rpcspec-reference] handling {method}"));
        }
        let call = Call {
            raw: id.raw().to_owned(),
            id: serde_json::from_str(id.raw()).unwrap_or_default(),
            method,
            params: match params {
                None => Some(Map::new()),
                Some(Value::Object(p)) => Some(p),
                Some(_) => None,
            },
            now,
        };
        match self.route(&call, out) {
            Ok(Some(result)) => out.result(&call.raw, &result),
            Ok(None) => {}
            Err(e) => out.error(Some(&call.raw), &e),
        }
        // Whatever the answer had to be followed by.
        out.lines.append(&mut out.after);
    }

    /// Which era serves the request, and its answer (`None`: later).
    fn route(&mut self, call: &Call<'_>, out: &mut Out) -> Answer {
        let meta = call
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object);
        if let Some(asked) = meta.and_then(|m| m.get(PROTOCOL_VERSION)) {
            let Some(asked) = asked.as_str() else {
                return Err(RpcError::params(format!(
                    "_meta[\"{PROTOCOL_VERSION}\"] must be a string"
                )));
            };
            match asked.parse::<Revision>() {
                Ok(r) if self.served.contains(&r) && !r.has_initialize() => {
                    return self.modern(r, call, meta.expect("the version is in it"), out);
                }
                Ok(r) if self.session.revision() == Some(r) => {}
                _ => return Err(self.unsupported(asked, "Unsupported protocol version")),
            }
        }
        if call.method == "initialize" {
            return self.initialize(call, out);
        }
        if let Some(revision) = self.session.revision() {
            return self.legacy(revision, call, out);
        }
        if call.method == "ping" && self.newest_legacy().is_some() {
            return self.ping();
        }
        if self.serves_modern() {
            return Err(if MODERN_METHODS.contains(&call.method) {
                RpcError::params(format!(
                    "missing params._meta[\"{PROTOCOL_VERSION}\"] (or send initialize first)"
                ))
            } else {
                RpcError::new(-32601, message(-32601))
            });
        }
        Err(RpcError::new(
            -32600,
            "Not initialized: send initialize, then notifications/initialized",
        ))
    }

    fn unsupported(&self, requested: &str, message: &str) -> RpcError {
        RpcError {
            code: UNSUPPORTED_PROTOCOL_VERSION,
            message: message.into(),
            data: Some(json!({"supported": self.supported(), "requested": requested})),
        }
    }

    fn ping(&self) -> Answer {
        if self.quirk(Quirk::NoPing) {
            return Err(RpcError::new(-32601, message(-32601)));
        }
        Ok(Some(json!({})))
    }

    fn initialize(&mut self, call: &Call<'_>, out: &mut Out) -> Answer {
        let params = call.params.as_ref();
        let asked = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let Some(newest) = self.newest_legacy() else {
            return Err(self.unsupported(
                asked.unwrap_or_default(),
                &format!(
                    "Unsupported protocol version: this server speaks only {} (no initialize)",
                    self.supported().join(", ")
                ),
            ));
        };
        if self.session != Session::Fresh && !self.quirk(Quirk::SecondInitializeOk) {
            return Err(RpcError::new(-32600, "Already initialized"));
        }
        let Some(asked) = asked else {
            return Err(RpcError::params("`protocolVersion` must be a string"));
        };
        let client = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        let revision = asked
            .parse::<Revision>()
            .ok()
            .filter(|r| self.served.contains(r) && r.has_initialize())
            .unwrap_or(newest);
        let version = if self.quirk(Quirk::EchoUnknownVersion) {
            asked
        } else if self.quirk(Quirk::Speaks2024) {
            // Not a bug: a server of an older revision, as the lifecycle
            // allows ("another protocol version it supports").
            "2024-11-05"
        } else {
            revision.as_str()
        };
        if self.quirk(Quirk::RequestsBeforeInitialized) && client.get("roots").is_some() {
            let id = self.server_id();
            out.after.push(request_text(&id, "roots/list", None));
        }
        self.session = Session::Answered { revision, client };
        Ok(Some(json!({
            "protocolVersion": version,
            "capabilities": capabilities(true),
            "serverInfo": server_info(),
            "instructions": INSTRUCTIONS,
        })))
    }

    fn legacy(&mut self, revision: Revision, call: &Call<'_>, out: &mut Out) -> Answer {
        if call.method == "ping" {
            return self.ping();
        }
        if matches!(self.session, Session::Answered { .. }) {
            return Err(RpcError::new(
                -32600,
                "Not initialized: waiting for notifications/initialized",
            ));
        }
        let Some(params) = &call.params else {
            return Err(RpcError::params("params must be an object"));
        };
        if let "resources/subscribe" | "resources/unsubscribe" = call.method {
            // Its resources never change: a subscription sends nothing.
            if self.quirk(Quirk::SubscribeMissing) {
                return Err(RpcError::new(-32601, message(-32601)));
            }
            return match params.get("uri") {
                Some(Value::String(_)) => Ok(Some(json!({}))),
                _ => Err(RpcError::params("`uri` must be a string")),
            };
        }
        if call.method == "logging/setLevel" {
            let level = params.get("level").and_then(Value::as_str);
            return match level.and_then(level_rank) {
                Some(rank) => {
                    self.log_level = Some(rank);
                    Ok(Some(json!({})))
                }
                None => Err(RpcError::params("`level` must be a log level")),
            };
        }
        let floor = self.log_level;
        let logs = move |rank: usize| floor.is_none_or(|min| rank >= min);
        self.feature(revision, call, params, &logs, out)
    }

    fn modern(
        &mut self,
        revision: Revision,
        call: &Call<'_>,
        meta: &Map<String, Value>,
        out: &mut Out,
    ) -> Answer {
        if !MODERN_METHODS.contains(&call.method)
            || (call.method == "server/discover" && self.quirk(Quirk::DiscoverMissing))
        {
            return Err(RpcError::new(-32601, message(-32601)));
        }
        let params = call.params.as_ref().expect("_meta was read from them");
        if !meta.get(CLIENT_CAPABILITIES).is_some_and(Value::is_object) {
            return Err(RpcError::params(format!(
                "missing params._meta[\"{CLIENT_CAPABILITIES}\"]"
            )));
        }
        let floor = match meta.get(LOG_LEVEL) {
            None => None,
            Some(level) => match level.as_str().and_then(level_rank) {
                Some(rank) => Some(rank),
                None => return Err(RpcError::params(format!("unknown {LOG_LEVEL}: {level}"))),
            },
        };
        // "servers MUST NOT emit notifications/message for requests that
        // did not include this field" (2026-07-28 changelog, 5).
        let logs = |rank: usize| floor.is_some_and(|min| rank >= min);
        let result = if call.method == "server/discover" {
            Some(json!({
                "supportedVersions": self.supported(),
                "capabilities": capabilities(false),
                "instructions": INSTRUCTIONS,
            }))
        } else {
            self.feature(revision, call, params, &logs, out)?
        };
        Ok(result.map(|r| self.finish(true, call.method, r)))
    }

    /// A result as its era writes it: modern ones with `resultType`, the
    /// server's identity and, where cacheable, `ttlMs` and `cacheScope`.
    fn finish(&self, modern: bool, method: &str, mut result: Value) -> Value {
        if modern {
            // An InputRequiredResult says so itself.
            if !self.quirk(Quirk::NoResultType) && result.get("resultType").is_none() {
                result["resultType"] = json!("complete");
            }
            result["_meta"] = json!({ SERVER_INFO: server_info() });
            if CACHEABLE.contains(&method) {
                result["ttlMs"] = json!(60_000);
                result["cacheScope"] = json!("public");
            }
        }
        result
    }

    /// `prompts/get`: a fixture's, with `--fixtures conformance`, or the
    /// server's own.
    fn prompt(&self, params: &Map<String, Value>, quirk: Option<Quirk>) -> Result<Value, RpcError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        match self
            .fixtures
            .then(|| fixtures::get_prompt(name, &arguments))
            .flatten()
        {
            Some(Ok(result)) => Ok(result),
            Some(Err(why)) => Err(RpcError::params(why)),
            None => features::get_prompt(params, quirk),
        }
    }

    /// The methods both eras share.
    fn feature(
        &mut self,
        revision: Revision,
        call: &Call<'_>,
        params: &Map<String, Value>,
        logs: &dyn Fn(usize) -> bool,
        out: &mut Out,
    ) -> Answer {
        let quirk = self.quirk;
        let fixtures = self.fixtures;
        // The fixtures after the server's own, on the first page; the
        // round trips' in 2026-07-28 only.
        let modern = !revision.has_initialize();
        let more = |mut result: Value, key: &str, items: fn() -> Vec<Value>| {
            if fixtures && params.get("cursor").is_none() {
                let list = result[key].as_array_mut().expect("a list");
                list.extend(items());
                match key {
                    "tools" if modern => list.extend(mrtr::tools()),
                    "tools" => list.extend(fixtures::asking_tools()),
                    "prompts" if modern => list.push(mrtr::prompt()),
                    _ => {}
                }
            }
            result
        };
        Ok(Some(match call.method {
            "tools/list" => more(
                features::one_page(params, "tools", features::tools(revision, quirk), quirk)?,
                "tools",
                fixtures::tools,
            ),
            "tools/call" | "prompts/get" if fixtures && !revision.has_initialize() => {
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let capabilities = params
                    .get("_meta")
                    .and_then(|m| m.get(CLIENT_CAPABILITIES))
                    .unwrap_or(&Value::Null);
                let asked = if call.method == "tools/call" {
                    mrtr::call(name, params, capabilities, quirk)
                } else {
                    mrtr::get_prompt(name, params, quirk)
                };
                match asked {
                    Some(answer) => answer?,
                    None if call.method == "tools/call" => {
                        return self.call_tool(revision, call, params, logs, out);
                    }
                    None => self.prompt(params, quirk)?,
                }
            }
            "tools/call" => return self.call_tool(revision, call, params, logs, out),
            "resources/list" => more(
                features::list_resources(params, quirk)?,
                "resources",
                fixtures::resources,
            ),
            "resources/templates/list" => more(
                features::list_templates(params, quirk)?,
                "resourceTemplates",
                || vec![fixtures::template()],
            ),
            "resources/read" => match params.get("uri").and_then(Value::as_str) {
                Some(uri) if fixtures => match fixtures::read(uri, quirk) {
                    Some(result) => result,
                    None => features::read_resource(revision, params, quirk)?,
                },
                _ => features::read_resource(revision, params, quirk)?,
            },
            "prompts/list" => more(
                features::one_page(params, "prompts", features::prompts(), quirk)?,
                "prompts",
                fixtures::prompts,
            ),
            "prompts/get" => self.prompt(params, quirk)?,
            // Declared, and not there: the `no-completion` mutant.
            "completion/complete" if self.quirk(Quirk::NoCompletion) => {
                return Err(RpcError::new(-32601, message(-32601)));
            }
            "completion/complete" => features::complete(params)?,
            _ => return Err(RpcError::new(-32601, message(-32601))),
        }))
    }

    /// A fresh id for a request of the server's: `srv-1`, `srv-2`, ...
    fn server_id(&mut self) -> String {
        if self.quirk(Quirk::ReusesServerId) {
            return "srv-1".into();
        }
        let id = format!("srv-{}", self.next_id);
        self.next_id += 1;
        id
    }

    fn notification(&mut self, method: &str, params: Option<Value>) {
        match method {
            "notifications/initialized" => {
                if let Session::Answered { revision, client } = &self.session {
                    self.session = Session::Ready {
                        revision: *revision,
                        client: client.clone(),
                    };
                }
            }
            "notifications/cancelled" if !self.quirk(Quirk::AnswersCancelled) => {
                // An id this server is not working on is ignored
                // (basic/utilities/cancellation: "MAY ignore").
                if let Some(id) = params.as_ref().and_then(|p| p.get("requestId")) {
                    self.slow.retain(|s| &s.id != id);
                    self.asked.retain(|a| &a.call != id);
                }
            }
            _ => {}
        }
    }

    /// The client answered a request of the server's.
    fn answered(&mut self, id: &Id, reply: Result<Value, ()>, out: &mut Out) {
        let id: Value = serde_json::from_str(id.raw()).unwrap_or_default();
        let Some(i) = self
            .asked
            .iter()
            .position(|a| Value::String(a.server_id.clone()) == id)
        else {
            return;
        };
        let asked = self.asked.remove(i);
        let method = asked.method;
        let result = match (reply, method) {
            (Err(()), _) => {
                text_result(format!("The client answered {method} with an error"), true)
            }
            (Ok(result), "roots/list") => match result.get("roots") {
                Some(roots @ Value::Array(_)) => text_result(format!("roots: {roots}"), false),
                _ => text_result("The client's roots/list result has no roots", true),
            },
            (Ok(result), "sampling/createMessage") => {
                let said = result.pointer("/content/text").and_then(Value::as_str);
                text_result(format!("LLM response: {}", said.unwrap_or_default()), false)
            }
            (Ok(result), _) => text_result(
                format!(
                    "User response: action={}, content={}",
                    result.get("action").unwrap_or(&Value::Null),
                    result.get("content").unwrap_or(&Value::Null)
                ),
                false,
            ),
        };
        out.result(&asked.raw, &result);
    }
}

impl Session {
    fn revision(&self) -> Option<Revision> {
        match self {
            Session::Fresh => None,
            Session::Answered { revision, .. } | Session::Ready { revision, .. } => Some(*revision),
        }
    }
}

/// A request being served.
struct Call<'a> {
    raw: String,
    id: Value,
    method: &'a str,
    /// `None`: params that are not an object.
    params: Option<Map<String, Value>>,
    now: Instant,
}

/// A result now, later (`None`), or an error.
type Answer = Result<Option<Value>, RpcError>;

const INSTRUCTIONS: &str = "rpcspec's reference MCP server: tools echo, add, fail, slow, log.";

fn server_info() -> Value {
    json!({"name": "rpcspec-reference", "version": env!("CARGO_PKG_VERSION")})
}

/// What the server declares; `legacy`: resource subscriptions too
/// (2026-07-28 replaces `resources/subscribe` by `subscriptions/listen`).
fn capabilities(legacy: bool) -> Value {
    json!({
        "tools": {"listChanged": false},
        "resources": if legacy { json!({"subscribe": true}) } else { json!({}) },
        "prompts": {},
        "completions": {},
        "logging": {},
    })
}
