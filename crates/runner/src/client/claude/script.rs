//! The scripted Claude Code CLI, sans-IO: the SDK's lines in, orders for
//! the peer out, time given by the caller. It answers the SDK's control
//! requests as the scenario says (`initialize` with [`COMMAND`] among its
//! commands, the others with `success`, `error`, late or never), and
//! plays a turn for each `user` message: the scenario's [`Act`]s for the
//! first, [`plain_turn`] for the others. What it did and saw is its
//! [`Log`], all a grader reads of it.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};

use super::{ASK_WAIT, Act, Answering, COMMAND, LATE, plain_turn};
use crate::client::{
    Scenario,
    peer::ToPeer,
    script::Stop,
    writes::{records, stderr_text},
};

/// The session id of every record.
pub const SESSION: &str = "rpcspec-session";

/// The model the records name.
pub const MODEL: &str = "rpcspec-model";

/// The error text of a control request the scenario refuses.
pub const REFUSED: &str = "rpcspec: refused";

/// The `request_id` of the decoy response (`decoy = "unknown-id"`).
pub const DECOY_ID: &str = "rpcspec-no-such-request";

/// A control request of the SDK's, and how it was answered.
#[derive(Debug, Clone)]
pub struct SdkRequest {
    /// Its `request.subtype`.
    pub subtype: String,
    /// Its `request_id`.
    pub id: Value,
    /// Its `request`.
    pub request: Value,
    /// Which line of the SDK's it was (from 1).
    pub line: usize,
    /// The answer the CLI gives: `Ok(response)` for `success`,
    /// `Err(text)` for `error`; `None` for none.
    pub answer: Option<Result<Value, String>>,
    /// Whether that answer was written (a late one may never be).
    pub written: bool,
}

/// A control request of the CLI's, and the SDK's answers to it.
#[derive(Debug, Clone)]
pub struct Asked {
    /// Its `request_id`.
    pub id: String,
    /// Its `request`.
    pub request: Value,
    /// When it was written.
    pub at: Duration,
    /// Whether a `control_cancel_request` followed it.
    pub cancelled: bool,
    /// Each `response` the SDK wrote for it, and when.
    pub responses: Vec<(Duration, Value)>,
}

impl Asked {
    /// Its `request.subtype`.
    pub fn subtype(&self) -> &str {
        self.request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// What a turn came to.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// The text of the `user` message that asked for it.
    pub prompt: String,
    /// When that message came.
    pub asked: Duration,
    /// When its `result` record was written.
    pub done: Option<Duration>,
    /// The texts of its `assistant` records.
    pub texts: Vec<String>,
    /// Its `result` record's `result` (none in an error's) and
    /// `is_error`, once written whole.
    pub result: Option<(Option<String>, bool)>,
}

/// What the scripted CLI did and saw.
#[derive(Debug, Default)]
pub struct Log {
    /// The arguments the SDK started it with.
    pub args: Vec<String>,
    /// The SDK's control requests, in arrival order.
    pub requests: Vec<SdkRequest>,
    /// The CLI's own control requests.
    pub asks: Vec<Asked>,
    /// The `control_response`s that answered none of them: `for
    /// request_id "…"` (its id as JSON text), or `without a request_id`.
    pub stray: Vec<String>,
    /// A turn per `user` message, in order.
    pub turns: Vec<Turn>,
    /// The hook callback ids the SDK registered in `initialize`.
    pub callbacks: Vec<String>,
    /// Why an ask of the scenario could not be made (no hook callback).
    pub missing: Option<String>,
    /// Lines the SDK wrote, JSON or not.
    pub messages: usize,
    /// How many of them came before the first `user` message.
    pub before_user: Option<usize>,
    /// When and why it stopped.
    pub stop: Option<(Duration, Stop)>,
    /// When its stdin ended.
    pub eof: Option<Duration>,
}

/// The scripted CLI of one scenario.
pub struct Cli<'a> {
    sc: &'a Scenario,
    /// What it did and saw.
    pub log: Log,
    /// The current turn's acts still to play.
    acts: VecDeque<Act>,
    /// `user` messages waiting for the turn before them to end: their
    /// text, and when they came.
    queued: VecDeque<(String, Duration)>,
    /// The asks the turn waits on, until this time.
    blocked: Option<(Duration, Vec<usize>)>,
    /// Answers due later: when, the line, and the request it answers.
    late: Vec<(Duration, Vec<u8>, usize)>,
    next_ask: u32,
    /// SDK-hosted servers opened after `mcp_set_servers`.
    opened: usize,
}

impl<'a> Cli<'a> {
    /// The CLI of `sc`, nothing received yet.
    pub fn new(sc: &'a Scenario) -> Cli<'a> {
        Cli {
            sc,
            log: Log::default(),
            acts: VecDeque::new(),
            queued: VecDeque::new(),
            blocked: None,
            late: Vec::new(),
            next_ask: 0,
            opened: 0,
        }
    }

    fn play(&self) -> &super::Play {
        self.sc.claude.as_ref().expect("a Claude scenario")
    }

    fn stopped(&self) -> bool {
        self.log.stop.is_some()
    }

    /// One line from the SDK (without its end), at `now`.
    pub fn on_line(&mut self, line: &[u8], now: Duration) -> Vec<ToPeer> {
        self.log.messages += 1;
        let mut out = Vec::new();
        if self.stopped() {
            return out;
        }
        let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(line) else {
            return out;
        };
        let mut lines = Vec::new();
        match o.get("type").and_then(Value::as_str) {
            Some("control_request") => self.request(&o, now, &mut lines),
            Some("control_response") => self.response(&o, now),
            Some("user") => {
                self.log.before_user.get_or_insert(self.log.messages - 1);
                // A turn writes a kilobyte for a line of tens of bytes: a
                // session has at most MAX_TURNS.
                if self.log.turns.len() + self.queued.len() < MAX_TURNS {
                    self.queued.push_back((prompt(&o), now));
                }
            }
            _ => {}
        }
        self.emit(lines, &mut out);
        self.advance(now, &mut out);
        out
    }

    /// The SDK closed the CLI's stdin, at `now`: the CLI ends the turn it
    /// is in, then exits 0.
    pub fn on_eof(&mut self, now: Duration) -> Vec<ToPeer> {
        self.log.eof.get_or_insert(now);
        let mut out = Vec::new();
        // No answer can come now: nothing is waited for, nothing late sent.
        self.blocked = None;
        self.late.clear();
        if let Some((_, Stop::Closed)) = self.log.stop {
            // A CLI whose stdout closed lives until its stdin ends.
            self.log.stop = Some((now, Stop::Exited(0)));
            out.push(ToPeer::Exit(0));
            return out;
        }
        self.advance(now, &mut out);
        out
    }

    /// When [`Cli::on_tick`] has something to do.
    pub fn next_due(&self) -> Option<Duration> {
        if self.stopped() {
            return None;
        }
        let late = self.late.iter().map(|(at, ..)| *at).min();
        let blocked = self.blocked.as_ref().map(|(at, _)| *at);
        [late, blocked].into_iter().flatten().min()
    }

    /// Writes what has fallen due by `now`.
    pub fn on_tick(&mut self, now: Duration) -> Vec<ToPeer> {
        let mut out = Vec::new();
        if self.stopped() {
            return out;
        }
        let (due, later): (Vec<_>, Vec<_>) = self.late.drain(..).partition(|(at, ..)| *at <= now);
        self.late = later;
        let mut lines = Vec::new();
        for (_, line, i) in due {
            self.log.requests[i].written = true;
            lines.push(line);
        }
        self.emit(lines, &mut out);
        if self.blocked.as_ref().is_some_and(|(at, _)| *at <= now) {
            self.blocked = None;
        }
        self.advance(now, &mut out);
        out
    }

    /// A control request of the SDK's: answered as the scenario says.
    fn request(
        &mut self,
        o: &serde_json::Map<String, Value>,
        now: Duration,
        lines: &mut Vec<Vec<u8>>,
    ) {
        // Each answer is bigger than its request: a session answers at most
        // MAX_REQUESTS.
        if self.log.requests.len() >= MAX_REQUESTS {
            return;
        }
        let id = o.get("request_id").cloned().unwrap_or(Value::Null);
        let request = o.get("request").cloned().unwrap_or(Value::Null);
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let (initialize, controls) = (self.play().initialize, self.play().controls);
        let answering = match subtype.as_str() {
            "initialize" => {
                self.log.callbacks.extend(callbacks(&request));
                initialize
            }
            "set_permission_mode" | "set_model" | "interrupt" => controls,
            _ => Answering::Success,
        };
        let answer: Option<Result<Value, String>> = match (subtype.as_str(), answering) {
            (_, Answering::Never) => None,
            (_, Answering::Error) => Some(Err(REFUSED.to_owned())),
            ("initialize", _) => Some(Ok(initialize_response())),
            ("set_permission_mode", _) => Some(Ok(json!({"mode": request.get("mode")}))),
            ("mcp_set_servers", _) => {
                let mut names = sdk_servers(&request);
                names.truncate(MAX_SERVERS.saturating_sub(self.opened));
                self.opened += names.len();
                // As Claude Code does: it connects to each SDK-hosted server
                // through the SDK at once (2.1.327, seen by a port that
                // waits for it).
                for act in names.iter().flat_map(|n| handshake(n)).rev() {
                    self.acts.push_front(act);
                }
                Some(Ok(json!({"added": names, "removed": [], "errors": {}})))
            }
            ("set_model" | "interrupt", _) => Some(Ok(json!({}))),
            (s, _) if SERVED.contains(&s) => Some(Ok(json!({}))),
            (other, _) => Some(Err(format!("Unsupported control request subtype: {other}"))),
        };
        let index = self.log.requests.len();
        let mut written = false;
        if let Some(a) = &answer {
            if subtype == "initialize" && self.sc.decoy == Some(crate::client::Decoy::UnknownId) {
                lines.push(response_line(&Value::from(DECOY_ID), &Ok(json!({}))));
            }
            let line = response_line(&id, a);
            if answering == Answering::Late {
                self.late.push((now + LATE, line, index));
            } else {
                lines.push(line);
                written = true;
            }
        }
        self.log.requests.push(SdkRequest {
            subtype,
            id,
            request,
            line: self.log.messages,
            answer,
            written,
        });
    }

    /// A `control_response` of the SDK's: kept with the ask it answers.
    fn response(&mut self, o: &serde_json::Map<String, Value>, now: Duration) {
        let response = o.get("response").cloned().unwrap_or(Value::Null);
        let id = response.get("request_id");
        match self
            .log
            .asks
            .iter_mut()
            .find(|a| id.is_some_and(|i| i == a.id.as_str()))
        {
            Some(ask) => ask.responses.push((now, response)),
            None => self.log.stray.push(match id {
                Some(id) => format!("for request_id {id}"),
                None => "without a request_id".to_owned(),
            }),
        }
        if let Some((_, waiting)) = &self.blocked {
            let all = waiting
                .iter()
                .all(|&i| !self.log.asks[i].responses.is_empty());
            if all {
                self.blocked = None;
            }
        }
    }

    /// Plays acts until one waits, a turn ends with none queued, or the
    /// process ends; at the end of input, with nothing left to play, it
    /// exits 0.
    fn advance(&mut self, now: Duration, out: &mut Vec<ToPeer>) {
        let mut lines: Vec<Vec<u8>> = Vec::new();
        loop {
            if self.stopped() || self.blocked.is_some() {
                break;
            }
            let Some(act) = self.acts.pop_front() else {
                if let Some((prompt, asked)) = self.queued.pop_front() {
                    let turn = if self.log.turns.is_empty() {
                        self.play().turn.clone()
                    } else {
                        plain_turn()
                    };
                    self.log.turns.push(Turn {
                        prompt,
                        asked,
                        ..Turn::default()
                    });
                    self.acts.extend(turn);
                    continue;
                }
                if self.log.eof.is_some() && self.late.is_empty() {
                    self.emit(std::mem::take(&mut lines), out);
                    self.log.stop = Some((now, Stop::Exited(0)));
                    out.push(ToPeer::Exit(0));
                }
                break;
            };
            self.act(act, now, &mut lines, out);
        }
        self.emit(lines, out);
    }

    fn act(&mut self, act: Act, now: Duration, lines: &mut Vec<Vec<u8>>, out: &mut Vec<ToPeer>) {
        let n = self.log.turns.len();
        match act {
            Act::Init => lines.push(init_record().into_bytes()),
            Act::Text(text) => {
                lines.push(assistant_record(&text, n).into_bytes());
                self.turn().texts.push(text);
            }
            Act::Result {
                is_error,
                subtype,
                text,
            } => {
                lines.push(result_record(is_error, &subtype, &text).into_bytes());
                let result = (subtype == "success").then_some(text);
                let turn = self.turn();
                turn.result = Some((result, is_error));
                turn.done = Some(now);
            }
            Act::Line { bytes, end: true } => lines.push(bytes),
            Act::Line { bytes, end: false } => {
                self.emit(std::mem::take(lines), out);
                out.push(ToPeer::Write(bytes));
            }
            Act::Ask { requests, cancel } => {
                let mut waiting = Vec::new();
                for r in requests {
                    let mut request: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
                    if let Some(slot) = callback_slot(&mut request) {
                        let Some(cb) = self.log.callbacks.first() else {
                            self.log.missing.get_or_insert_with(|| {
                                "the SDK registered no hook callback in `initialize`: there is none to call".into()
                            });
                            continue;
                        };
                        *slot = Value::from(cb.as_str());
                    }
                    self.next_ask += 1;
                    let id = format!("rpcspec-{}", self.next_ask);
                    lines.push(
                        json!({"type": "control_request", "request_id": id, "request": request})
                            .to_string()
                            .into_bytes(),
                    );
                    if cancel {
                        lines.push(
                            json!({"type": "control_cancel_request", "request_id": id})
                                .to_string()
                                .into_bytes(),
                        );
                    } else {
                        waiting.push(self.log.asks.len());
                    }
                    self.log.asks.push(Asked {
                        id,
                        request,
                        at: now,
                        cancelled: cancel,
                        responses: Vec::new(),
                    });
                }
                if !waiting.is_empty() {
                    self.blocked = Some((now + ASK_WAIT, waiting));
                }
            }
            Act::Stderr(n) => {
                self.emit(std::mem::take(lines), out);
                out.push(ToPeer::Stderr(stderr_text(n)));
            }
            Act::Exit(code) => {
                self.emit(std::mem::take(lines), out);
                self.log.stop = Some((now, Stop::Exited(code)));
                out.push(ToPeer::Exit(code));
            }
            Act::Close => {
                self.emit(std::mem::take(lines), out);
                self.log.stop = Some((now, Stop::Closed));
                out.push(ToPeer::CloseStdout);
            }
        }
    }

    fn turn(&mut self) -> &mut Turn {
        self.log.turns.last_mut().expect("a turn is playing")
    }

    /// Frames `lines` and cuts them into orders as the scenario writes.
    fn emit(&self, lines: Vec<Vec<u8>>, out: &mut Vec<ToPeer>) {
        out.extend(records(self.sc, lines));
    }
}

/// The most turns the CLI plays in one session (the series needs two).
const MAX_TURNS: usize = 64;

/// The most control requests of the SDK's the CLI answers in one session
/// (the series makes five).
const MAX_REQUESTS: usize = 1024;

/// The most SDK-hosted servers the CLI opens (`mcp_set_servers`).
const MAX_SERVERS: usize = 8;

/// The text of a `user` message: its content, or its text blocks joined.
fn prompt(o: &serde_json::Map<String, Value>) -> String {
    match o.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// The member of a request whose value is the string `$callback`: where
/// the SDK's hook callback id goes.
fn callback_slot(request: &mut Value) -> Option<&mut Value> {
    request
        .as_object_mut()?
        .values_mut()
        .find(|v| v.as_str() == Some("$callback"))
}

/// The subtypes of the SDK's requests Claude Code serves, besides those
/// the scenario answers (`initialize`, `set_permission_mode`,
/// `set_model`, `interrupt`) and `mcp_set_servers`: answered `success`
/// (sdk.d.ts `SDKControlRequestInner`, 0.3.328). Any other is refused as
/// the CLI refuses it.
const SERVED: [&str; 31] = [
    "set_max_thinking_tokens",
    "rename_session",
    "set_color",
    "mcp_status",
    "get_context_usage",
    "get_session_cost",
    "list_models",
    "get_usage",
    "get_binary_version",
    "mcp_call",
    "file_suggestions",
    "rewind_files",
    "cancel_async_message",
    "read_file",
    "seed_read_state",
    "register_repo_root",
    "reload_plugins",
    "reload_skills",
    "reload_output_styles",
    "mcp_reconnect",
    "mcp_toggle",
    "set_has_subscribers",
    "stop_task",
    "background_tasks",
    "get_task_output",
    "apply_flag_settings",
    "get_settings",
    "get_hooks_listing",
    "update_settings",
    "list_permission_rules",
    "mcp_read_resource",
];

/// The names of the SDK-hosted servers (`"type": "sdk"`) of an
/// `mcp_set_servers` request.
fn sdk_servers(request: &Value) -> Vec<String> {
    let servers = request.get("servers").and_then(Value::as_object);
    servers
        .into_iter()
        .flatten()
        .filter(|(_, c)| c.get("type").and_then(Value::as_str) == Some("sdk"))
        .map(|(name, _)| name.clone())
        .collect()
}

/// The MCP handshake the CLI makes with an SDK-hosted server through
/// `mcp_message`: `initialize`, `notifications/initialized`, `tools/list`,
/// each answered before the next.
fn handshake(server: &str) -> Vec<Act> {
    let message = |m: Value| Act::Ask {
        requests: vec![
            json!({"subtype": "mcp_message", "server_name": server, "message": m}).to_string(),
        ],
        cancel: false,
    };
    vec![
        message(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.197"}}}),
        ),
        message(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})),
    ]
}

/// The hook callback ids of an `initialize` request:
/// `hooks.EVENT[].hookCallbackIds[]`.
fn callbacks(request: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(events) = request.get("hooks").and_then(Value::as_object) {
        for matchers in events.values().filter_map(Value::as_array) {
            for m in matchers {
                let ids = m.get("hookCallbackIds").and_then(Value::as_array);
                out.extend(
                    ids.into_iter()
                        .flatten()
                        .filter_map(|i| i.as_str().map(str::to_owned)),
                );
            }
        }
    }
    out
}

/// A `control_response` line for `id`: `success` with the response, or
/// `error` with the text.
fn response_line(id: &Value, answer: &Result<Value, String>) -> Vec<u8> {
    let response = match answer {
        Ok(r) => json!({"subtype": "success", "request_id": id, "response": r}),
        Err(e) => json!({"subtype": "error", "request_id": id, "error": e}),
    };
    json!({"type": "control_response", "response": response})
        .to_string()
        .into_bytes()
}

/// What the CLI answers `initialize` with, as Claude Code 2.1 does (the
/// members the SDKs read: `commands`, `models`, `output_style`).
pub fn initialize_response() -> Value {
    json!({
        "commands": [{"name": COMMAND, "description": "rpcspec's command", "argumentHint": ""}],
        "agents": [],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [{"value": MODEL, "displayName": "rpcspec", "description": "rpcspec's model"}],
        "account": {},
    })
}

fn init_record() -> String {
    json!({
        "type": "system", "subtype": "init", "cwd": "/", "session_id": SESSION,
        "tools": ["Read", "Bash"], "mcp_servers": [], "model": MODEL,
        "permissionMode": "default", "slash_commands": [COMMAND], "apiKeySource": "none",
        "claude_code_version": "2.1.197", "output_style": "default", "agents": [],
        "skills": [], "plugins": [], "uuid": "00000000-0000-4000-8000-000000000001",
    })
    .to_string()
}

fn assistant_record(text: &str, turn: usize) -> String {
    json!({
        "type": "assistant",
        "message": {
            "id": format!("msg_rpcspec_{turn}"), "type": "message", "role": "assistant",
            "model": MODEL, "content": [{"type": "text", "text": text}],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
        "parent_tool_use_id": null, "session_id": SESSION,
        "uuid": "00000000-0000-4000-8000-000000000002",
    })
    .to_string()
}

/// A `result` record as Claude Code writes it (sdk.d.ts `SDKResultSuccess`,
/// `SDKResultError`): a success carries `result`, an error subtype
/// `errors` (`text` its one message) and no `result`.
fn result_record(is_error: bool, subtype: &str, text: &str) -> String {
    let mut r = json!({
        "type": "result", "subtype": subtype, "is_error": is_error,
        "duration_ms": 12, "duration_api_ms": 0, "num_turns": 1,
        "stop_reason": "end_turn", "session_id": SESSION, "total_cost_usd": 0,
        "usage": {"input_tokens": 1, "output_tokens": 1}, "modelUsage": {},
        "permission_denials": [], "uuid": "00000000-0000-4000-8000-000000000003",
    });
    if subtype == "success" {
        r["result"] = json!(text);
    } else {
        r["errors"] = json!([text]);
    }
    r.to_string()
}

impl crate::client::agent::Agent for Cli<'_> {
    fn on_args(&mut self, args: Vec<String>, _at: Duration) -> Vec<ToPeer> {
        self.log.args = args;
        Vec::new()
    }

    fn on_line(&mut self, line: &[u8], at: Duration) -> Vec<ToPeer> {
        Cli::on_line(self, line, at)
    }

    fn on_eof(&mut self, at: Duration) -> Vec<ToPeer> {
        Cli::on_eof(self, at)
    }

    fn next_due(&self) -> Option<Duration> {
        Cli::next_due(self)
    }

    fn on_tick(&mut self, at: Duration) -> Vec<ToPeer> {
        Cli::on_tick(self, at)
    }

    fn grade(
        &self,
        o: &crate::client::grade::Observed<'_>,
        outcomes: &std::collections::HashMap<&'static str, crate::client::grade::Outcome>,
        out: &mut Vec<crate::report::Evidence>,
    ) {
        crate::client::grade::claude_session(o, &self.log, outcomes, out);
    }
}
