//! The reference host of the Codex app-server: the Codex series
//! ([`CODEX_STEPS`]) against a `codex` it starts from a path, written
//! from the app-server's README: `app-server`, JSON-RPC without
//! `"jsonrpc"` read through rpcspec's own NDJSON framer, `initialize` then
//! `initialized`, the adapter contract's approvals (commands accepted,
//! file changes declined), -32601 for a method it does not serve, every
//! step given [`CALL_TIMEOUT`], stdin closed at the end.
//!
//! Each [`HostQuirk`] is one realistic host bug: `rpcspec-mutant-host
//! NAME CODEX` runs it, and the self-test proves the scenarios written for
//! it catch it.

use std::{
    collections::HashMap,
    ffi::OsString,
    io::{self, Read, Write},
    process::{ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex,
        mpsc::{self, Receiver, Sender},
    },
    thread,
    time::{Duration, Instant},
};

use rpcspec_framer::Event;
use serde_json::{Value, json};

use super::{by_name, lock, send};
use crate::capture::{Capture, Framing};
use crate::client::{
    CALL_TIMEOUT,
    codex::{PROMPT, decision},
};

/// One realistic host bug, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostQuirk {
    /// The reference: no bug.
    None,
    /// Never sends `initialized`.
    NoInitialized,
    /// Sends `thread/start` before `initialized`.
    InitializedLate,
    /// Leaves a request of a method it does not serve unanswered.
    IgnoresUnknown,
    /// Answers a method it does not serve with an empty result.
    ResultForUnknown,
    /// Accepts every approval, file changes included.
    AcceptsAll,
    /// Answers the server's requests with an id of its own.
    WrongId,
    /// Answers each of the server's requests twice.
    AnswersTwice,
    /// Reads only messages that carry `"jsonrpc"`.
    NeedsJsonrpc,
    /// Takes only integer ids for the server's requests.
    IntegerIdsOnly,
    /// Waits for `turn/completed` without a timeout, deaf to the stream's
    /// end.
    NoTurnTimeout,
}

impl HostQuirk {
    /// Every quirk by its name (`rpcspec-mutant-host NAME`).
    pub const ALL: [(&'static str, HostQuirk); 11] = [
        ("reference", HostQuirk::None),
        ("no-initialized", HostQuirk::NoInitialized),
        ("initialized-late", HostQuirk::InitializedLate),
        ("ignores-unknown", HostQuirk::IgnoresUnknown),
        ("result-for-unknown", HostQuirk::ResultForUnknown),
        ("accepts-all", HostQuirk::AcceptsAll),
        ("wrong-id", HostQuirk::WrongId),
        ("answers-twice", HostQuirk::AnswersTwice),
        ("needs-jsonrpc", HostQuirk::NeedsJsonrpc),
        ("integer-ids-only", HostQuirk::IntegerIdsOnly),
        ("no-turn-timeout", HostQuirk::NoTurnTimeout),
    ];

    /// The quirk called `name`.
    pub fn named(name: &str) -> Option<HostQuirk> {
        by_name(&HostQuirk::ALL, name)
    }
}

/// What the reader hands the series.
enum Heard {
    /// A response to the host's request with this id: its result, or
    /// its error.
    Response(u64, Result<Value, Value>),
    /// A notification: its method and params.
    Note(String, Value),
    /// The app-server's stdout ended.
    End,
}

/// The host's end of the connection.
struct Host {
    quirk: HostQuirk,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    heard: Receiver<Heard>,
    next: u64,
    /// Responses that came while another was awaited, by id.
    early: HashMap<u64, Result<Value, Value>>,
    /// Notifications that came while a response was awaited.
    notes: Vec<(String, Value)>,
    ended: bool,
}

impl Host {
    fn write(&self, message: &Value) -> Result<(), String> {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        send(&self.stdin, &line, "the app-server")
    }

    /// Sends a request and waits (until `deadline`) for its response.
    fn call(&mut self, method: &str, params: Value, deadline: Instant) -> Result<Value, String> {
        let id = self.next;
        self.next += 1;
        self.write(&json!({"id": id, "method": method, "params": params}))?;
        loop {
            if let Some(r) = self.early.remove(&id) {
                return r.map_err(|e| e.to_string());
            }
            match self.hear(deadline)? {
                Heard::Response(got, r) if got == id => return r.map_err(|e| e.to_string()),
                Heard::Response(got, r) => {
                    self.early.insert(got, r);
                }
                Heard::Note(m, p) => self.notes.push((m, p)),
                Heard::End => unreachable!("hear reports the end as an error"),
            }
        }
    }

    /// The next thing heard before `deadline`.
    fn hear(&mut self, deadline: Instant) -> Result<Heard, String> {
        if self.ended {
            return Err("the app-server's stdout ended".into());
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.heard.recv_timeout(wait) {
            Ok(Heard::End) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.ended = true;
                Err("the app-server's stdout ended".into())
            }
            Ok(h) => Ok(h),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Err(format!("timed out after {CALL_TIMEOUT:?}"))
            }
        }
    }

    /// Reads notifications up to `turn/completed`: the agent messages'
    /// texts and the turn's final status.
    fn turn(&mut self, deadline: Instant) -> Result<Value, String> {
        let mut text = String::new();
        let mut pending = std::mem::take(&mut self.notes).into_iter();
        loop {
            let (method, params) = match pending.next() {
                Some(n) => n,
                None => match self.hear(deadline) {
                    Ok(Heard::Note(m, p)) => (m, p),
                    Ok(_) => continue,
                    // The quirk waits on, whatever happened.
                    Err(_) if self.quirk == HostQuirk::NoTurnTimeout => loop {
                        thread::sleep(Duration::from_secs(60));
                    },
                    Err(e) => return Err(e),
                },
            };
            match method.as_str() {
                "item/completed" if params["item"]["type"] == "agentMessage" => {
                    text.push_str(params["item"]["text"].as_str().unwrap_or_default());
                }
                "turn/completed" => {
                    return Ok(json!({"text": text, "status": params["turn"]["status"]}));
                }
                _ => {}
            }
        }
    }
}

/// Runs the series against `codex` (the CLI's path and any arguments
/// before `app-server`), writing the report to `out`; returns the exit
/// status.
pub fn run_codex_host(
    codex: &[OsString],
    quirk: HostQuirk,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let Some((program, args)) = codex.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no CLI path"));
    };
    let mut child = Command::new(program)
        .args(args)
        .arg("app-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut err = child.stderr.take().expect("piped");
    thread::spawn(move || {
        let _ = io::copy(&mut err, &mut io::sink());
    });
    let stdin = Arc::new(Mutex::new(child.stdin.take()));
    let (tx, heard) = mpsc::channel();
    {
        let (stdout, stdin) = (child.stdout.take().expect("piped"), Arc::clone(&stdin));
        thread::spawn(move || read_loop(stdout, quirk, &stdin, &tx));
    }
    let mut host = Host {
        quirk,
        stdin,
        heard,
        next: 0,
        early: HashMap::new(),
        notes: Vec::new(),
        ended: false,
    };
    let mut report = |step: &str, outcome: Result<Value, String>| -> io::Result<()> {
        let line = match outcome {
            Ok(v) => json!({"step": step, "result": v}),
            Err(why) => json!({"step": step, "failed": why}),
        };
        writeln!(out, "{line}")?;
        out.flush()
    };
    let deadline = || Instant::now() + CALL_TIMEOUT;
    let init = host.call(
        "initialize",
        json!({"clientInfo": {"name": "rpcspec_reference_host", "version": env!("CARGO_PKG_VERSION")}}),
        deadline(),
    );
    let connected = init.is_ok();
    report(
        "connect",
        init.map(|r| r.get("userAgent").cloned().unwrap_or(Value::Null)),
    )?;
    let initialized = json!({"method": "initialized"});
    if connected && !matches!(quirk, HostQuirk::NoInitialized | HostQuirk::InitializedLate) {
        let _ = host.write(&initialized);
    }
    let thread_id = host.call("thread/start", json!({"cwd": "/"}), deadline());
    if connected && quirk == HostQuirk::InitializedLate {
        let _ = host.write(&initialized);
    }
    let id = thread_id
        .as_ref()
        .ok()
        .and_then(|r| r.pointer("/thread/id"))
        .cloned()
        .unwrap_or(Value::Null);
    report("thread", thread_id.map(|_| id.clone()))?;
    let until = deadline();
    let turn = host
        .call(
            "turn/start",
            json!({"threadId": id, "input": [{"type": "text", "text": PROMPT}]}),
            until,
        )
        .and_then(|_| host.turn(until));
    report("turn", turn)?;
    // The session ends with the app-server's stdin: it exits then.
    lock(&host.stdin).take();
    let end = Instant::now() + Duration::from_secs(2);
    while Instant::now() < end && matches!(child.try_wait(), Ok(None)) {
        thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    writeln!(out, "{}", json!({"step": "close", "sent": true}))?;
    out.flush()?;
    Ok(0)
}

/// Reads the app-server's stdout: the server's requests answered at
/// once, responses and notifications handed on.
fn read_loop(
    mut stdout: impl Read,
    quirk: HostQuirk,
    stdin: &Mutex<Option<ChildStdin>>,
    tx: &Sender<Heard>,
) {
    let mut capture = Capture::new(Framing::ndjson());
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut lines = Vec::new();
        capture.push(&buf[..n], Duration::ZERO, |a| {
            if let Event::Line(l) = a.event {
                lines.push(l.bytes.into_owned());
            }
        });
        for line in lines {
            let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            if quirk == HostQuirk::NeedsJsonrpc && !o.contains_key("jsonrpc") {
                continue;
            }
            let method = o.get("method").and_then(Value::as_str).map(str::to_owned);
            match (method, o.get("id")) {
                (Some(method), Some(id)) => answer(&method, id, quirk, stdin),
                (Some(method), None) => {
                    let params = o.get("params").cloned().unwrap_or(Value::Null);
                    let _ = tx.send(Heard::Note(method, params));
                }
                (None, Some(id)) => {
                    let Some(id) = id.as_u64() else { continue };
                    let r = match (o.get("result"), o.get("error")) {
                        (Some(r), _) => Ok(r.clone()),
                        (None, Some(e)) => Err(e.clone()),
                        _ => continue,
                    };
                    let _ = tx.send(Heard::Response(id, r));
                }
                _ => {}
            }
        }
    }
    let _ = tx.send(Heard::End);
}

/// Answers a request of the server's, as the adapter contract says (or
/// as the quirk gets it wrong).
fn answer(method: &str, id: &Value, quirk: HostQuirk, stdin: &Mutex<Option<ChildStdin>>) {
    if quirk == HostQuirk::IntegerIdsOnly && !id.is_u64() {
        return;
    }
    let id = if quirk == HostQuirk::WrongId {
        json!(format!("host-{id}"))
    } else {
        id.clone()
    };
    let response = match decision(method) {
        Some(_) if quirk == HostQuirk::AcceptsAll => {
            json!({"id": id, "result": {"decision": "accept"}})
        }
        Some(d) => json!({"id": id, "result": {"decision": d}}),
        None => match quirk {
            HostQuirk::IgnoresUnknown => return,
            HostQuirk::ResultForUnknown => json!({"id": id, "result": {}}),
            _ => {
                json!({"id": id, "error": {"code": -32601, "message": format!("Method not found: {method}")}})
            }
        },
    };
    let mut line = response.to_string().into_bytes();
    line.push(b'\n');
    let times = if quirk == HostQuirk::AnswersTwice {
        2
    } else {
        1
    };
    for _ in 0..times {
        let _ = send(stdin, &line, "the app-server");
    }
}
