//! One MCP connection to a server process, as a client would hold it: on
//! the drive layer (budget, caps, reaping), every byte both ways kept in a
//! transcript that the checks grade afterwards.
//!
//! The connection answers what the server asks on its own, as a client
//! that declared exactly [`CLIENT_CAPABILITIES`]: `ping` with `{}`,
//! `roots/list` with no roots, anything else with -32601. What the server
//! asked stays in the transcript for the capability checks to grade.

use std::time::{Duration, Instant};

use crate::capture::{Arrival, Capture, Framing};
use rpcspec_framer::{Config, Event, ProblemKind};
use serde_json::{Value, json};

use super::Revision;
use crate::{
    budget::Budget,
    drive::Drive,
    plan::Write,
    report::{Bytes, CaseResult, Evidence, Received, Sent},
    target::{Msg, Target, describe_exit},
};

/// What rpcspec declares as a client: roots (it has none to give), and
/// neither sampling nor elicitation, so a server that asks for those has
/// used a capability that was not negotiated.
pub const CLIENT_CAPABILITIES: &str = r#"{"roots": {"listChanged": false}}"#;

/// The `clientInfo` rpcspec gives.
pub fn client_info() -> Value {
    json!({"name": "rpcspec", "version": env!("CARGO_PKG_VERSION")})
}

/// The params of rpcspec's `initialize` offering `version`.
pub fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": serde_json::from_str::<Value>(CLIENT_CAPABILITIES).expect("valid JSON"),
        "clientInfo": client_info(),
    })
}

/// What rpcspec, as a client that declared sampling, elicitation and
/// roots, answers to the server's `method` with `params` (a request, or
/// one of an InputRequiredResult's `inputRequests`): an elicitation
/// accepted with a value for every requested property (its `default`, its
/// first `enum`, `oneOf` or `anyOf` choice, else a value of its type), a
/// sampled text, one root.
pub fn client_answer(method: &str, params: &Value) -> Value {
    match method {
        "elicitation/create" => {
            let mut content = serde_json::Map::new();
            let props = params
                .pointer("/requestedSchema/properties")
                .and_then(Value::as_object);
            for (name, schema) in props.into_iter().flatten() {
                content.insert(name.clone(), elicited(name, schema));
            }
            json!({"action": "accept", "content": content})
        }
        "sampling/createMessage" => json!({"role": "assistant",
            "content": {"type": "text", "text": "The capital of France is Paris."},
            "model": "rpcspec", "stopReason": "endTurn"}),
        _ => json!({"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}),
    }
}

/// A value for the requested property `name` of `schema`.
fn elicited(name: &str, schema: &Value) -> Value {
    let first_const = |list: Option<&Value>| {
        list.and_then(|l| l.get(0))
            .and_then(|c| c.get("const"))
            .cloned()
    };
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    if let Some(c) = first_const(schema.get("oneOf")) {
        return c;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => json!(true),
        Some("integer" | "number") => json!(1),
        Some("array") => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let one = items
                .get("enum")
                .and_then(|e| e.get(0))
                .cloned()
                .or_else(|| first_const(items.get("anyOf")))
                .unwrap_or(json!("rpcspec"));
            json!([one])
        }
        _ if schema.get("format").and_then(Value::as_str) == Some("email") => {
            json!("rpcspec@example.com")
        }
        _ => json!(match name {
            "name" => "Alice",
            "color" => "blue",
            "context" => "test context",
            _ => "rpcspec",
        }),
    }
}

/// One line the server wrote, and what it was.
#[derive(Debug, Clone)]
pub struct Line {
    /// When it arrived, since the process started.
    pub at: Duration,
    /// 1-based line number on stdout.
    pub number: u64,
    /// Byte offset of the line on stdout.
    pub offset: u64,
    /// The bytes, without the line ending.
    pub bytes: Vec<u8>,
    /// The message, when the line is one JSON value.
    pub value: Option<Value>,
    /// A framing problem in place of a line (not UTF-8, over-long, cut).
    pub problem: Option<ProblemKind>,
    /// For a reply to one of rpcspec's requests: that request's method.
    pub reply_to: Option<String>,
    /// The line is longer than [`KEEP_VALUE`]: `value` keeps only its
    /// envelope (`jsonrpc`, `id`, `method`, and whether it has a `result`
    /// or an `error`), not the whole message.
    pub elided: bool,
}

/// The longest line whose parsed value is kept whole: a value can cost
/// sixteen times its text (`[0,0,…]`), and a session keeps every line.
pub const KEEP_VALUE: usize = 1 << 20;

/// The envelope of a long line, as a small value: its `jsonrpc`, `id`,
/// `method` and `error`, and for a `result` a string saying it was left out. `Null` for JSON
/// that is not an object, `None` for what is not JSON.
fn envelope_of(bytes: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        jsonrpc: Option<Value>,
        id: Option<Value>,
        method: Option<Value>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    match serde_json::from_slice::<Envelope>(bytes) {
        Ok(e) => {
            let mut out = serde_json::Map::new();
            for (key, value) in [("jsonrpc", e.jsonrpc), ("id", e.id), ("method", e.method)] {
                if let Some(v) = value {
                    out.insert(key.into(), v);
                }
            }
            if e.result.is_some() {
                out.insert(
                    "result".into(),
                    format!(
                        "(a result on a line of {} bytes, not kept by rpcspec)",
                        bytes.len()
                    )
                    .into(),
                );
            }
            if e.error.is_some() {
                out.insert("error".into(), json!({}));
            }
            Some(Value::Object(out))
        }
        Err(_) => serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
            .ok()
            .map(|_| Value::Null),
    }
}

/// One message rpcspec wrote.
#[derive(Debug, Clone)]
pub struct Out {
    /// When, since the process started.
    pub at: Duration,
    /// The message.
    pub value: Value,
}

/// What came of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A result.
    Result(Value),
    /// An error object.
    Error(Value),
    /// Nothing by the deadline.
    NoReply,
    /// The server closed stdout or exited first.
    Gone,
}

impl Reply {
    /// The error's code, if an error with an integer code.
    pub fn code(&self) -> Option<i64> {
        match self {
            Reply::Error(e) => e.get("code").and_then(Value::as_i64),
            _ => None,
        }
    }

    /// In words, for evidence.
    pub fn describe(&self) -> String {
        match self {
            Reply::Result(v) => format!("the result {}", short(v)),
            Reply::Error(e) => format!("the error {}", short(e)),
            Reply::NoReply => "no reply".to_owned(),
            Reply::Gone => "no reply: the server closed stdout or exited".to_owned(),
        }
    }
}

/// `value` as compact JSON, cut to 200 bytes.
pub fn short(value: &Value) -> String {
    let mut text = value.to_string();
    if text.len() > 200 {
        let mut end = 200;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// A connection to one server process.
pub struct Conn {
    drive: Drive,
    capture: Capture,
    /// Every line the server wrote.
    pub lines: Vec<Line>,
    /// Every message rpcspec wrote.
    pub sent: Vec<Out>,
    /// rpcspec's requests awaiting a reply: (id, method).
    pending: Vec<(String, String)>,
    next_id: u64,
    /// The revision spoken: it decides `_meta` (2026-07-28) and what is
    /// answered.
    pub revision: Revision,
    /// The server closed stdout.
    pub stdout_closed: bool,
    /// How the process ended, once it did.
    pub exit: Option<String>,
    /// A write to stdin failed.
    pub write_failed: Option<String>,
    /// What stopped the connection for the budget, if anything.
    pub flood: Option<Evidence>,
    /// When the process was started.
    pub started: Instant,
    /// The start-up limit: the first reply may take this long.
    pub startup: Duration,
    /// The deadline for later replies.
    pub timeout: Duration,
    /// What rpcspec declared as a client: what it answers of the
    /// server's requests ([`CLIENT_CAPABILITIES`] unless
    /// [`Conn::declare`]d otherwise).
    pub capabilities: Value,
}

impl Conn {
    /// Starts `target`.
    pub fn spawn(
        target: &Target,
        budget: &Budget,
        revision: Revision,
        startup: Duration,
        timeout: Duration,
    ) -> Result<Conn, Box<Evidence>> {
        let drive = Drive::spawn(target, budget)?;
        Ok(Conn {
            drive,
            capture: Capture::new(Framing::Ndjson(
                Config::default().with_max_line_len(budget.output()),
            )),
            lines: Vec::new(),
            sent: Vec::new(),
            pending: Vec::new(),
            next_id: 0,
            revision,
            stdout_closed: false,
            exit: None,
            write_failed: None,
            flood: None,
            started: Instant::now(),
            startup,
            timeout,
            capabilities: serde_json::from_str(CLIENT_CAPABILITIES).expect("valid JSON"),
        })
    }

    /// Declares `capabilities` as the client's (before `initialize`):
    /// the server's `sampling/createMessage` and `elicitation/create` are
    /// answered once declared ([`client_answer`]).
    pub fn declare(&mut self, capabilities: Value) {
        self.capabilities = capabilities;
    }

    /// Whether the server can still answer.
    pub fn alive(&self) -> bool {
        !self.stdout_closed && self.exit.is_none() && self.flood.is_none()
    }

    /// The deadline of the next reply: the start-up limit until the
    /// server has written its first line, then the case timeout.
    pub fn deadline(&self) -> Instant {
        let later = Instant::now() + self.timeout;
        if self.lines.is_empty() {
            // The start-up limit counts from the process's start: paid
            // once, however many requests go unanswered in it.
            later.max(self.started + self.startup)
        } else {
            later
        }
    }

    /// Writes `value` as one line.
    pub fn send(&mut self, value: Value) {
        let mut bytes = value.to_string().into_bytes();
        bytes.push(b'\n');
        self.sent.push(Out {
            at: self.drive.elapsed(),
            value,
        });
        self.drive.write(vec![Write {
            pause: Duration::ZERO,
            bytes,
        }]);
    }

    /// Writes raw bytes (a line that is not a message, for the checks of
    /// how a server takes one); kept in the transcript as a string value.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.sent.push(Out {
            at: self.drive.elapsed(),
            value: Value::String(String::from_utf8_lossy(bytes).into_owned()),
        });
        self.drive.write(vec![Write {
            pause: Duration::ZERO,
            bytes: bytes.to_vec(),
        }]);
    }

    /// `params` with the `_meta` a 2026-07-28 request carries (protocol
    /// version, client capabilities and identity); unchanged before it.
    pub fn params(&self, params: Value) -> Value {
        self.params_of(params, self.revision.as_str())
    }

    /// [`Conn::params`] for an explicit protocol version (for the checks
    /// of versions a server does not support).
    pub fn params_of(&self, mut params: Value, version: &str) -> Value {
        if self.revision.has_initialize() {
            return params;
        }
        if !params.is_object() {
            params = json!({});
        }
        let meta = params
            .as_object_mut()
            .expect("an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                version.into(),
            );
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".into(),
                serde_json::from_str(CLIENT_CAPABILITIES).expect("valid JSON"),
            );
            meta.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
        }
        params
    }

    /// Sends a request (its params completed by [`Conn::params`]) and
    /// waits for its reply until `deadline`.
    pub fn request(&mut self, method: &str, params: Value, deadline: Instant) -> Reply {
        let params = self.params(params);
        self.request_raw(method, params, deadline)
    }

    /// Sends a request with exactly these params and waits for its reply.
    pub fn request_raw(&mut self, method: &str, params: Value, deadline: Instant) -> Reply {
        let id = self.send_request(method, params);
        self.wait_reply(&id, self.lines.len(), deadline)
    }

    /// Sends a request with exactly these params; its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> String {
        self.next_id += 1;
        let id = format!("rpcspec-{}", self.next_id);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message);
        self.pending.push((id.clone(), method.to_owned()));
        id
    }

    /// The reply to request `id` among the lines from index `from` on,
    /// waiting for it until `deadline`.
    pub fn wait_reply(&mut self, id: &str, mut from: usize, deadline: Instant) -> Reply {
        loop {
            for line in &self.lines[from.min(self.lines.len())..] {
                if let Some(v) = &line.value
                    && v.get("method").is_none()
                    && v.get("id").and_then(Value::as_str) == Some(id)
                {
                    if let Some(e) = v.get("error") {
                        return Reply::Error(e.clone());
                    }
                    return Reply::Result(v.get("result").cloned().unwrap_or(Value::Null));
                }
            }
            from = self.lines.len();
            if !self.alive() {
                return Reply::Gone;
            }
            if !self.pump(deadline) {
                return if self.alive() {
                    Reply::NoReply
                } else {
                    Reply::Gone
                };
            }
        }
    }

    /// Sends a notification (params completed as a request's).
    pub fn notify(&mut self, method: &str, params: Value) {
        let params = self.params(params);
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message);
    }

    /// Reads what comes until `until`.
    pub fn settle(&mut self, until: Instant) {
        while self.pump(until) {}
    }

    /// Handles the next event by `until`; false when none came in time or
    /// nothing more can come.
    pub fn pump(&mut self, until: Instant) -> bool {
        let Some(msg) = self.drive.next(until) else {
            return false;
        };
        match msg {
            Msg::Stdout(bytes) => {
                let at = self.drive.elapsed();
                for arrival in self.capture.push_owned(&bytes, at) {
                    self.take(arrival);
                }
                if let Some(flood) = self.drive.take_flood() {
                    self.flood = Some(flood);
                }
            }
            Msg::StdoutClosed => {
                let at = self.drive.elapsed();
                for arrival in self.capture.finish_owned(at) {
                    self.take(arrival);
                }
                self.stdout_closed = true;
            }
            Msg::Exited(status) => self.exit = Some(describe_exit(status)),
            Msg::Wrote => {}
            Msg::WriteFailed(why) => self.write_failed = Some(why),
        }
        true
    }

    fn take(&mut self, arrival: Arrival<'static>) {
        let (at, number, offset) = (arrival.at, arrival.number(), arrival.offset());
        let (bytes, problem) = match arrival.event {
            Event::Line(line) => (line.bytes.into_owned(), None),
            Event::Problem(p) => (p.bytes.into_owned(), Some(p.kind)),
        };
        let elided = problem.is_none() && bytes.len() > KEEP_VALUE;
        let value = if problem.is_none() {
            if elided {
                envelope_of(&bytes)
            } else {
                serde_json::from_slice::<Value>(&bytes).ok()
            }
        } else {
            None
        };
        let mut reply_to = None;
        if let Some(v) = &value
            && v.get("method").is_none()
            && let Some(id) = v.get("id").and_then(Value::as_str)
            && let Some(i) = self.pending.iter().position(|(p, _)| p == id)
        {
            reply_to = Some(self.pending.remove(i).1);
        }
        let request = value.as_ref().and_then(|v| {
            let method = v.get("method")?.as_str()?.to_owned();
            Some((v.get("id")?.clone(), method))
        });
        self.lines.push(Line {
            at,
            number,
            offset,
            bytes,
            value,
            problem,
            reply_to,
            elided,
        });
        if let Some((id, method)) = request {
            self.answer(id, &method);
        }
    }

    /// Answers a request of the server as a client with
    /// [`CLIENT_CAPABILITIES`] would.
    fn answer(&mut self, id: Value, method: &str) {
        if !self.revision.server_requests() {
            // 2026-07-28 servers send no requests: no result shape fits.
            self.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
                "message": format!("{method}: servers of {} send no requests", self.revision)}}));
            return;
        }
        let declared = |c: &str| self.capabilities.get(c).is_some();
        let reply = match method {
            "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "roots/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}}),
            "sampling/createMessage" | "elicitation/create"
                if declared(method.split('/').next().unwrap_or_default()) =>
            {
                let params = self
                    .lines
                    .last()
                    .and_then(|l| l.value.as_ref())
                    .and_then(|v| v.get("params"))
                    .cloned()
                    .unwrap_or(Value::Null);
                json!({"jsonrpc": "2.0", "id": id, "result": client_answer(method, &params)})
            }
            _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
                "message": format!("rpcspec declared no capability for {method}")}}),
        };
        self.send(reply);
    }

    /// Closes stdin and grades the shutdown: how long the server took to
    /// exit, and which step of the specification's sequence (close stdin,
    /// wait, SIGTERM, wait, SIGKILL) it needed. `wait` is each wait.
    pub fn shut_down(&mut self, wait: Duration) -> Shutdown {
        let closed = Instant::now();
        self.drive.close_stdin();
        let mut step = ShutdownStep::Eof;
        loop {
            let limit = closed
                + match step {
                    ShutdownStep::Eof => wait,
                    ShutdownStep::Term => 2 * wait,
                    ShutdownStep::Kill => 2 * wait + crate::drive::KILL_GRACE,
                };
            while self.exit.is_none() && self.pump(limit) {}
            if self.exit.is_some() {
                return Shutdown {
                    step,
                    took: closed.elapsed(),
                    exit: self.exit.clone(),
                };
            }
            step = match step {
                ShutdownStep::Eof => {
                    self.drive.terminate();
                    ShutdownStep::Term
                }
                ShutdownStep::Term => {
                    self.drive.kill();
                    ShutdownStep::Kill
                }
                ShutdownStep::Kill => {
                    return Shutdown {
                        step: ShutdownStep::Kill,
                        took: closed.elapsed(),
                        exit: None,
                    };
                }
            };
        }
    }

    /// Ends the process, whatever it is doing.
    pub fn kill(&mut self) {
        self.drive.kill();
        let until = Instant::now() + crate::drive::KILL_GRACE;
        while self.exit.is_none() && self.pump(until) {}
    }

    /// The lines written since line index `from`, as a report keeps them.
    pub fn received_since(&self, from: usize) -> Vec<Received> {
        self.lines[from.min(self.lines.len())..]
            .iter()
            .map(|l| Received {
                at_ms: l.at.as_millis() as u64,
                line: l.number,
                offset: l.offset,
                bytes: Bytes::new(&l.bytes),
                unit: Default::default(),
            })
            .collect()
    }

    /// The messages sent since index `from`, as a report keeps them.
    pub fn sent_since(&self, from: usize) -> Vec<Sent> {
        self.sent[from.min(self.sent.len())..]
            .iter()
            .map(|o| {
                let text = match &o.value {
                    Value::String(raw) => raw.clone(),
                    v => format!("{v}\n"),
                };
                Sent {
                    at_ms: o.at.as_millis() as u64,
                    bytes: Bytes::new(text.as_bytes()),
                }
            })
            .collect()
    }

    /// Fills `result`'s traffic with what was exchanged since the marks,
    /// and its stderr and exit.
    pub fn attach(&self, result: &mut CaseResult, mark: Mark) {
        result.sent = self.sent_since(mark.sent);
        result.received = self.received_since(mark.lines);
        result.stderr = String::from_utf8_lossy(&self.drive.stderr_tail()).into_owned();
        result.exit = self.exit.clone();
    }

    /// Where the transcript is now, to attach what follows to a result.
    pub fn mark(&self) -> Mark {
        Mark {
            sent: self.sent.len(),
            lines: self.lines.len(),
        }
    }
}

/// A place in a connection's transcript.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mark {
    /// Index into [`Conn::sent`].
    pub sent: usize,
    /// Index into [`Conn::lines`].
    pub lines: usize,
}

/// Which step of the shutdown sequence ended the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShutdownStep {
    /// It exited once stdin closed.
    Eof,
    /// It needed SIGTERM.
    Term,
    /// It needed SIGKILL (or outlived it).
    Kill,
}

/// How a server shut down.
#[derive(Debug, Clone)]
pub struct Shutdown {
    /// The step that ended it.
    pub step: ShutdownStep,
    /// From closing stdin to its exit.
    pub took: Duration,
    /// How it exited (`None`: not even SIGKILL was seen to end it).
    pub exit: Option<String>,
}
