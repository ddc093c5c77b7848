//! The reference client (`rpcspec serve --role client SERVER...`): the
//! adapter contract's series ([`super::STEPS`]) over a server it spawns,
//! written from JSON-RPC 2.0's text. Replies are paired by id (the exact
//! JSON text of the id), lines are framed by the reference framer, a
//! request from the server is answered with -32601, every call has
//! [`CALL_TIMEOUT`], and a server that closes its stdout fails every call
//! in flight and every one after.
//!
//! Each [`Quirk`] is one realistic client bug: `rpcspec-mutant-client NAME
//! SERVER...` runs it, and the self-test proves the scenarios written for
//! it catch it.

use std::{
    collections::VecDeque,
    ffi::OsString,
    io::{self, Read, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex,
        mpsc::{self, Receiver, Sender},
    },
    thread,
    time::{Duration, Instant},
};

use rpcspec_framer::Event;

use crate::capture::{Capture, Framing};
use serde_json::{Value, json};

use super::{BATCH_NOTIFICATION, CALL_TIMEOUT, STEPS, StepKind};

mod claude;
mod codex;
mod codex_exec;
mod lsp;
mod mcp;
mod modern;
mod quirk;

pub use claude::{SdkQuirk, run_claude};
pub use codex::{HostQuirk, run_codex_host};
pub use codex_exec::{ExecQuirk, run_codex_exec};
pub use lsp::run_lsp;
pub use mcp::run_mcp;
pub use modern::run_mcp_modern;
pub use quirk::Quirk;

/// `m` locked, even if a thread panicked holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `bytes` to the child's stdin (`to` names the child, for the
/// error), flushed.
pub(crate) fn send(
    stdin: &Mutex<Option<ChildStdin>>,
    bytes: &[u8],
    to: &str,
) -> Result<(), String> {
    let mut guard = lock(stdin);
    let s = guard.as_mut().ok_or("stdin is closed")?;
    s.write_all(bytes)
        .and_then(|()| s.flush())
        .map_err(|e| format!("cannot write to {to}: {e}"))
}

/// The quirk called `name` in a table of them.
pub(crate) fn by_name<Q: Copy>(all: &[(&str, Q)], name: &str) -> Option<Q> {
    all.iter().find(|(n, _)| *n == name).map(|(_, q)| *q)
}

/// What a dialect's reference client does with what its server sends of
/// its own accord (ACP's agent: permission requests, session updates).
/// Called on the reader's thread, in the order the messages came.
pub(crate) trait Hooks: Send + Sync {
    /// The answer to the server's request `method`: `Ok(result)` or
    /// `Err(error)`; `None`: the JSON-RPC client's own table.
    fn request(&self, method: &str, params: &Value) -> Option<Result<Value, Value>>;

    /// A notification from the server.
    fn notification(&self, method: &str, params: &Value);
}

/// What a call came to.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    Result(Value),
    Error(Value),
    Failed(String),
}

struct Pending {
    key: String,
    tx: Sender<Outcome>,
}

#[derive(Default)]
struct State {
    pending: VecDeque<Pending>,
    /// Why the server can answer nothing more.
    closed: Option<String>,
}

pub(crate) struct Client {
    pub(crate) quirk: Quirk,
    framing: Framing,
    state: Arc<Mutex<State>>,
    pub(crate) stdin: Arc<Mutex<Option<ChildStdin>>>,
    next_id: u64,
    /// MCP 2026-07-28: the `_meta` of every request, and members added
    /// to every request's params.
    meta: Option<Value>,
    extra: serde_json::Map<String, Value>,
}

/// Starts `server` (argv) and a reader thread on its stdout, both ways
/// framed as `framing` says.
fn connect(server: &[OsString], quirk: Quirk, framing: &Framing) -> io::Result<(Child, Client)> {
    connect_with(server, quirk, framing, None)
}

/// [`connect`], with the dialect's [`Hooks`].
pub(crate) fn connect_with(
    server: &[OsString],
    quirk: Quirk,
    framing: &Framing,
    hooks: Option<Arc<dyn Hooks>>,
) -> io::Result<(Child, Client)> {
    let Some((program, args)) = server.split_first() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no server command",
        ));
    };
    let mut child: Child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let stdout = child.stdout.take().expect("piped");
    let stdin = Arc::new(Mutex::new(child.stdin.take()));
    let state = Arc::new(Mutex::new(State::default()));
    {
        let (state, stdin) = (Arc::clone(&state), Arc::clone(&stdin));
        let framing = framing.clone();
        thread::spawn(move || {
            read_loop(stdout, quirk, &framing, &state, &stdin, hooks.as_deref());
        });
    }
    let client = Client {
        quirk,
        framing: framing.clone(),
        state,
        stdin,
        next_id: 0,
        meta: None,
        extra: serde_json::Map::new(),
    };
    Ok((child, client))
}

/// Ends the session: stdin closed, the server given 2 s to exit, then
/// killed (with [`Quirk::KillsServer`], killed at once).
pub(crate) fn close(mut child: Child, client: &Client) -> io::Result<i32> {
    if client.quirk == Quirk::KillsServer {
        let _ = child.kill();
        let _ = child.wait();
        return Ok(0);
    }
    end(child, &client.stdin);
    Ok(0)
}

/// Closes the server's stdin, gives it 2 s to exit, then kills it.
fn end(mut child: Child, stdin: &Mutex<Option<ChildStdin>>) {
    lock(stdin).take();
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Reports `step`'s `outcome` to `out`: one line, flushed.
fn report(out: &mut dyn Write, step: &str, outcome: &Outcome) -> io::Result<()> {
    let line = match outcome {
        Outcome::Result(v) => json!({"step": step, "result": v}),
        Outcome::Error(v) => json!({"step": step, "error": v}),
        Outcome::Failed(why) => json!({"step": step, "failed": why}),
    };
    writeln!(out, "{line}")?;
    out.flush()
}

/// Runs the series against the server `server` (argv) in `framing`,
/// reporting to `out`; returns the exit status.
pub fn run(
    server: &[OsString],
    quirk: Quirk,
    framing: &Framing,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let (child, mut client) = connect(server, quirk, framing)?;
    let params = |s: &super::Step| -> Value { serde_json::from_str(s.params).expect("JSON") };
    for step in STEPS
        .iter()
        .filter(|s| s.kind == StepKind::Call && s.name != "after")
    {
        let outcome = client.call(step.method, params(step));
        report(out, step.name, &outcome)?;
        if step.name == "named" {
            let notify = &STEPS[2];
            let sent = client.notify(notify.method, params(notify));
            let line = match sent {
                Ok(()) => json!({"step": notify.name, "sent": true}),
                Err(why) => json!({"step": notify.name, "failed": why}),
            };
            writeln!(out, "{line}")?;
        }
    }
    let concurrent: Vec<_> = STEPS
        .iter()
        .filter(|s| s.kind == StepKind::Concurrent)
        .collect();
    let calls: Vec<(&str, String, Value)> = concurrent
        .iter()
        .map(|s| (s.method, s.name.to_owned(), params(s)))
        .collect();
    for (name, outcome) in client.together(&calls, false) {
        report(out, &name, &outcome)?;
    }
    let batch: Vec<_> = STEPS.iter().filter(|s| s.kind == StepKind::Batch).collect();
    let calls: Vec<(&str, String, Value)> = batch
        .iter()
        .map(|s| (s.method, s.name.to_owned(), params(s)))
        .collect();
    for (name, outcome) in client.together(&calls, true) {
        report(out, &name, &outcome)?;
    }
    let after = STEPS.iter().find(|s| s.name == "after").expect("a step");
    let outcome = client.call(after.method, params(after));
    report(out, after.name, &outcome)?;
    close(child, &client)
}

impl Client {
    pub(crate) fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub(crate) fn message(&self, method: &str, params: &Value, id: Option<u64>) -> Value {
        let mut m = json!({"method": method});
        // JSON-RPC 2.0 §4.2: params, when there, are structured.
        if !params.is_null() {
            m["params"] = params.clone();
        }
        if self.quirk != Quirk::NoJsonrpc {
            m["jsonrpc"] = json!("2.0");
        }
        if let Some(id) = id {
            m["id"] = json!(id);
            if let Some(meta) = &self.meta {
                let p = m["params"].as_object().cloned().unwrap_or_default();
                m["params"] = Value::Object(p);
                m["params"]["_meta"] = meta.clone();
                for (k, v) in &self.extra {
                    m["params"][k] = v.clone();
                }
            }
        }
        m
    }

    pub(crate) fn write(&self, line: &Value) -> Result<(), String> {
        let bytes = self.framing.encode(line.to_string().as_bytes());
        send(&self.stdin, &bytes, "the server")
    }

    /// Registers a call awaiting the reply with `id`.
    pub(crate) fn expect(&self, id: u64) -> Result<Receiver<Outcome>, String> {
        let mut state = lock(&self.state);
        if let Some(why) = &state.closed
            && self.quirk != Quirk::HangsOnExit
        {
            return Err(why.clone());
        }
        let (tx, rx) = mpsc::channel();
        let key = if self.quirk == Quirk::RetypedIdMatches {
            id.to_string()
        } else {
            json!(id).to_string()
        };
        state.pending.push_back(Pending { key, tx });
        Ok(rx)
    }

    pub(crate) fn wait(&self, rx: &Receiver<Outcome>, until: Instant) -> Outcome {
        if self.quirk == Quirk::HangsOnExit {
            return rx
                .recv()
                .unwrap_or_else(|_| Outcome::Failed("the reader ended".into()));
        }
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(o) => o,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Outcome::Failed(format!("no reply within {CALL_TIMEOUT:?}"))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Outcome::Failed("the reader ended".into()),
        }
    }

    /// A call given up on after [`super::ABANDON_AFTER`]: forgotten, and
    /// cancelled with the message `cancel(id)` makes (unless
    /// [`Quirk::NoCancel`]).
    fn abandoned(
        &mut self,
        method: &str,
        params: &Value,
        cancel: impl Fn(u64) -> Value,
    ) -> Outcome {
        use super::ABANDON_AFTER;
        let id = self.id();
        let rx = match self.expect(id) {
            Ok(rx) => rx,
            Err(why) => return Outcome::Failed(why),
        };
        if let Err(why) = self.write(&self.message(method, params, Some(id))) {
            return Outcome::Failed(why);
        }
        match self.wait(&rx, Instant::now() + ABANDON_AFTER) {
            Outcome::Failed(_) => {
                self.forget(id);
                if self.quirk != Quirk::NoCancel {
                    let _ = self.write(&cancel(id));
                }
                Outcome::Failed(format!("gave up after {ABANDON_AFTER:?}"))
            }
            other => other,
        }
    }

    /// Stops waiting for the reply with `id`.
    fn forget(&self, id: u64) {
        let key = json!(id).to_string();
        let mut state = lock(&self.state);
        state.pending.retain(|p| p.key != key);
    }

    pub(crate) fn call(&mut self, method: &str, params: Value) -> Outcome {
        let id = self.id();
        self.call_as(id, method, params)
    }

    /// A call with the id `id`.
    fn call_as(&mut self, id: u64, method: &str, params: Value) -> Outcome {
        let rx = match self.expect(id) {
            Ok(rx) => rx,
            Err(why) => return Outcome::Failed(why),
        };
        if let Err(why) = self.write(&self.message(method, &params, Some(id))) {
            return Outcome::Failed(why);
        }
        self.wait(&rx, Instant::now() + CALL_TIMEOUT)
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        let id = (self.quirk == Quirk::NotificationWithId).then(|| self.id());
        self.write(&self.message(method, &params, id))
    }

    /// Several calls in flight at once (or as one batch, with the batch
    /// notification), each reported under its name.
    pub(crate) fn together(
        &mut self,
        calls: &[(&str, String, Value)],
        batch: bool,
    ) -> Vec<(String, Outcome)> {
        let shared = self.id();
        let mut waits = Vec::new();
        let mut messages = Vec::new();
        for (n, (method, name, params)) in calls.iter().enumerate() {
            let id = if self.quirk == Quirk::ReusesId || n == 0 {
                shared
            } else {
                self.id()
            };
            match self.expect(id) {
                Ok(rx) => waits.push((name.clone(), Ok(rx))),
                Err(why) => waits.push((name.clone(), Err(why))),
            }
            messages.push(self.message(method, params, Some(id)));
        }
        let written = if batch {
            let (method, params) = BATCH_NOTIFICATION;
            let params: Value = serde_json::from_str(params).expect("JSON");
            messages.push(self.message(method, &params, None));
            self.write(&Value::Array(messages))
        } else {
            messages.iter().try_for_each(|m| self.write(m))
        };
        let until = Instant::now() + CALL_TIMEOUT;
        waits
            .into_iter()
            .map(|(name, rx)| {
                let outcome = match (rx, &written) {
                    (Err(why), _) => Outcome::Failed(why),
                    (Ok(_), Err(why)) => Outcome::Failed(why.clone()),
                    (Ok(rx), Ok(())) => self.wait(&rx, until),
                };
                (name, outcome)
            })
            .collect()
    }
}

/// Reads the server's stdout into messages (as the quirk frames them) and
/// hands each to [`on_message`]; at the end, fails every call in flight.
fn read_loop(
    mut stdout: impl Read,
    quirk: Quirk,
    framing: &Framing,
    state: &Mutex<State>,
    stdin: &Mutex<Option<ChildStdin>>,
    hooks: Option<&dyn Hooks>,
) {
    let content_length = matches!(framing, Framing::ContentLength(_));
    let mut capture = Capture::new(framing.clone());
    let mut carry: Vec<u8> = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        let mut lines: Vec<Vec<u8>> = Vec::new();
        match quirk {
            Quirk::ReadIsMessage if content_length => {
                // A header, then the rest of the read as its body; a read
                // without one is no message.
                if let Some(end) = chunk.windows(4).position(|w| w == b"\r\n\r\n") {
                    lines.push(chunk[end + 4..].to_vec());
                }
            }
            Quirk::ReadIsMessage => lines.push(chunk.to_vec()),
            q if q.content_length() => {
                carry.extend_from_slice(chunk);
                lines.extend(quirky_messages(&mut carry, q));
            }
            Quirk::DropsSplitLine => {
                let mut pieces: Vec<&[u8]> = chunk.split(|b| *b == b'\n').collect();
                pieces.pop(); // the unterminated tail
                let skip_head = !carry.is_empty();
                carry.clear();
                if !chunk.ends_with(b"\n") {
                    carry.push(1);
                }
                lines.extend(
                    pieces
                        .into_iter()
                        .skip(usize::from(skip_head))
                        .map(<[u8]>::to_vec),
                );
            }
            Quirk::CrIsLineEnd | Quirk::Splitlines => {
                carry.extend_from_slice(chunk);
                // Decoded only when a line may have ended: a long line is
                // not decoded again at every read.
                let ends_here = if quirk == Quirk::CrIsLineEnd {
                    chunk.iter().any(|b| *b == b'\n' || *b == b'\r')
                } else {
                    chunk
                        .iter()
                        .any(|b| *b == b'\n' || *b == 0x85 || *b == 0xA8 || *b == 0xA9)
                };
                if !ends_here {
                    continue;
                }
                let text = String::from_utf8_lossy(&carry).into_owned();
                let ends: &[char] = if quirk == Quirk::CrIsLineEnd {
                    &['\n', '\r']
                } else {
                    &['\n', '\u{2028}', '\u{2029}', '\u{85}']
                };
                let mut pieces: Vec<&str> = text.split(ends).collect();
                let tail = pieces.pop().unwrap_or_default().as_bytes().to_vec();
                lines.extend(pieces.into_iter().map(|p| p.as_bytes().to_vec()));
                carry = tail;
            }
            _ => capture.push(chunk, Duration::ZERO, |a| {
                if let Event::Line(l) = a.event {
                    lines.push(l.bytes.into_owned());
                }
            }),
        }
        for line in lines {
            if quirk == Quirk::LineLimit && line.len() > 64 * 1024 {
                continue;
            }
            on_message(&line, quirk, framing, state, stdin, hooks);
        }
    }
    if quirk == Quirk::HangsOnExit {
        return;
    }
    let mut state = lock(state);
    state.closed = Some("the server closed its stdout".into());
    for p in state.pending.drain(..) {
        let _ =
            p.tx.send(Outcome::Failed("the server closed its stdout".into()));
    }
}

fn on_message(
    line: &[u8],
    quirk: Quirk,
    framing: &Framing,
    state: &Mutex<State>,
    stdin: &Mutex<Option<ChildStdin>>,
    hooks: Option<&dyn Hooks>,
) {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    let members = match value {
        Value::Array(v) => v,
        other => vec![other],
    };
    for m in members {
        let Value::Object(o) = m else { continue };
        if o.get("method").is_some() {
            let method = o.get("method").and_then(Value::as_str).unwrap_or_default();
            let params = o.get("params").cloned().unwrap_or(Value::Null);
            if let (Some(hooks), None) = (hooks, o.get("id")) {
                hooks.notification(method, &params);
            }
            let own = hooks
                .zip(o.get("id"))
                .and_then(|(h, _)| h.request(method, &params));
            if let (Some(id), Some(answer)) = (o.get("id"), own)
                && quirk != Quirk::IgnoresServerRequests
            {
                let answer = match answer {
                    Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
                    Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
                };
                let _ = send(
                    stdin,
                    &framing.encode(answer.to_string().as_bytes()),
                    "the server",
                );
            } else if let Some(id) = o.get("id")
                && quirk != Quirk::IgnoresServerRequests
            {
                // MCP's `ping` and `roots/list` (declared), LSP's requests
                // of what the LSP series declares; -32601 else.
                let items = o
                    .get("params")
                    .and_then(|p| p.get("items"))
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                let result = match method {
                    "ping" => Some(json!({})),
                    "roots/list" => Some(mcp::roots()),
                    "elicitation/create" => Some(mcp::elicited(o.get("params"), quirk)),
                    "workspace/configuration" => Some(Value::Array(vec![Value::Null; items])),
                    "window/workDoneProgress/create"
                    | "workspace/codeLens/refresh"
                    | "window/showMessageRequest"
                    | "client/registerCapability"
                    | "client/unregisterCapability" => Some(Value::Null),
                    m if m.starts_with("$/") && quirk == Quirk::AnswersDollarRequests => {
                        Some(Value::Null)
                    }
                    _ => None,
                };
                let answer = match result {
                    Some(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
                    None => json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32601, "message": "Method not found"}}),
                };
                let _ = send(
                    stdin,
                    &framing.encode(answer.to_string().as_bytes()),
                    "the server",
                );
            }
            continue;
        }
        let outcome = match (o.get("result"), o.get("error")) {
            (Some(r), None) => Outcome::Result(r.clone()),
            (None, Some(e)) => {
                let mut e = e.clone();
                if quirk == Quirk::DropsErrorData
                    && let Some(obj) = e.as_object_mut()
                {
                    obj.remove("data");
                }
                Outcome::Error(e)
            }
            _ => continue,
        };
        let id = o.get("id").cloned().unwrap_or(Value::Null);
        let key = match (&id, quirk) {
            (Value::String(s), Quirk::RetypedIdMatches) => s.clone(),
            _ => id.to_string(),
        };
        let mut state = lock(state);
        let at = if quirk == Quirk::ArrivalOrder {
            (!state.pending.is_empty()).then_some(0)
        } else {
            state.pending.iter().position(|p| p.key == key)
        };
        match at {
            Some(i) => {
                let p = state.pending.remove(i).expect("in range");
                let _ = p.tx.send(outcome);
            }
            None if quirk == Quirk::CrashesOnUnknownId => {
                eprintln!("client: a reply to no call in flight (id {id}): giving up");
                std::process::exit(101);
            }
            None => {}
        }
    }
}

/// The whole Content-Length messages at the front of `carry` (taken out of
/// it), read with `quirk`'s bug: a header block that names no length the
/// quirk can see is dropped with nothing after it taken as its body.
fn quirky_messages(carry: &mut Vec<u8>, quirk: Quirk) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let Some(end) = carry.windows(4).position(|w| w == b"\r\n\r\n") else {
            return out;
        };
        let block = String::from_utf8_lossy(&carry[..end]).into_owned();
        let fields: Vec<(&str, &str)> = block
            .split("\r\n")
            .filter_map(|f| f.split_once(':'))
            .map(|(n, v)| (n.trim(), v.trim()))
            .collect();
        let named = |(n, _): &&(&str, &str)| match quirk {
            Quirk::CaseSensitiveHeader => *n == "Content-Length",
            _ => n.eq_ignore_ascii_case("content-length"),
        };
        let length = match quirk {
            Quirk::LengthFirst => fields.first().filter(|f| named(f)),
            _ => fields.iter().find(|f| named(f)),
        }
        .and_then(|(_, v)| v.parse::<usize>().ok());
        let dropped = quirk == Quirk::StrictCharset
            && fields.iter().any(|(n, v)| {
                n.eq_ignore_ascii_case("content-type")
                    && v.split(';')
                        .filter_map(|p| p.trim().strip_prefix("charset="))
                        .any(|c| c != "utf-8")
            });
        let start = end + 4;
        let Some(length) = length else {
            carry.drain(..start);
            continue;
        };
        let body_end = if quirk == Quirk::LengthInCharacters {
            // `length` characters, however many bytes they take.
            let text = String::from_utf8_lossy(&carry[start..]);
            match text.char_indices().nth(length) {
                Some((at, _)) => start + at,
                None if text.chars().count() == length => carry.len(),
                None => return out,
            }
        } else if carry.len() - start >= length {
            start + length
        } else {
            return out;
        };
        let body: Vec<u8> = carry.drain(..body_end).skip(start).collect();
        if !dropped {
            out.push(body);
        }
    }
}
