//! The reference SDK: the Claude series ([`CLAUDE_STEPS`]) against a
//! Claude Code CLI it starts from a path, written from the official SDKs'
//! sources (`docs/agents.md`). It opens the session with `initialize`
//! (one `PreToolUse` hook, the SDK-hosted MCP server `rpcspec`), answers
//! the CLI's control requests by their `request_id` (the adapter
//! contract's permission callback, hook and `echo` tool; `error` for a
//! subtype it does not serve), never answers a cancel, skips what it
//! cannot read, gives every step [`CALL_TIMEOUT`], reads stderr to its
//! end, and closes the CLI's stdin at the end.
//!
//! Each [`SdkQuirk`] is one realistic SDK bug: `rpcspec-mutant-sdk NAME
//! CLI` runs it, and the self-test proves the scenarios written for it
//! catch it.

use std::{
    collections::HashMap,
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
use serde_json::{Map, Value, json};

use crate::capture::{Capture, Framing};
use crate::client::{
    CALL_TIMEOUT, CLAUDE_STEPS,
    claude::{ALLOWED_MARK, ALLOWED_TOOL, DENIED_MESSAGE, MCP_SERVER, prompt},
};

use super::{lock, send};

/// One realistic SDK bug, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdkQuirk {
    /// The reference: no bug.
    None,
    /// Answers every `assistant` record with a `control_response`.
    AnswersEvents,
    /// Answers `keep_alive` with a `control_response`.
    AnswersKeepAlive,
    /// Answers the CLI's requests with a `request_id` of its own.
    WrongRequestId,
    /// Answers each of the CLI's requests twice.
    AnswersTwice,
    /// Takes a `control_cancel_request` for a request and answers it too.
    AnswersCancel,
    /// Never answers `can_use_tool`.
    IgnoresCanUseTool,
    /// Allows a tool without the `updatedInput` its callback gave.
    AllowDropsInput,
    /// Puts its own id in an `mcp_response`.
    McpWrongId,
    /// Answers a subtype it does not serve with `success`.
    SuccessOnUnknown,
    /// Takes an `error` response for a success.
    IgnoresErrorResponse,
    /// Sends its first `user` message without `initialize`.
    NoInitialize,
    /// Waits for `initialize` without a timeout.
    NoInitializeTimeout,
    /// Waits for a turn's `result` without a timeout, and ignores the end of
    /// the stream.
    HangsWithoutResult,
    /// Ends lines at `\r` too.
    SplitsOnCr,
    /// Parses each read as one line.
    ReadIsLine,
    /// Drops the line after a line that is not JSON.
    DropsAfterNoise,
    /// Drops lines over 64 KiB.
    LineLimit,
    /// Stops reading at a record of a type it does not know.
    StopsAtUnknownType,
    /// Pipes the CLI's stderr and never reads it.
    UnreadStderr,
    /// Exits at the end with the CLI still running: its stdin is handed to
    /// a child that outlives it.
    LeavesCli,
}

impl SdkQuirk {
    /// Every quirk by name, the reference (`reference`) first.
    pub const ALL: [(&'static str, SdkQuirk); 21] = [
        ("reference", SdkQuirk::None),
        ("answers-events", SdkQuirk::AnswersEvents),
        ("answers-keep-alive", SdkQuirk::AnswersKeepAlive),
        ("wrong-request-id", SdkQuirk::WrongRequestId),
        ("answers-twice", SdkQuirk::AnswersTwice),
        ("answers-cancel", SdkQuirk::AnswersCancel),
        ("ignores-can-use-tool", SdkQuirk::IgnoresCanUseTool),
        ("allow-drops-input", SdkQuirk::AllowDropsInput),
        ("mcp-wrong-id", SdkQuirk::McpWrongId),
        ("success-on-unknown", SdkQuirk::SuccessOnUnknown),
        ("ignores-error-response", SdkQuirk::IgnoresErrorResponse),
        ("no-initialize", SdkQuirk::NoInitialize),
        ("no-initialize-timeout", SdkQuirk::NoInitializeTimeout),
        ("hangs-without-result", SdkQuirk::HangsWithoutResult),
        ("splits-on-cr", SdkQuirk::SplitsOnCr),
        ("read-is-line", SdkQuirk::ReadIsLine),
        ("drops-after-noise", SdkQuirk::DropsAfterNoise),
        ("line-limit", SdkQuirk::LineLimit),
        ("stops-at-unknown-type", SdkQuirk::StopsAtUnknownType),
        ("unread-stderr", SdkQuirk::UnreadStderr),
        ("leaves-cli", SdkQuirk::LeavesCli),
    ];

    /// The quirk called `name`.
    pub fn named(name: &str) -> Option<SdkQuirk> {
        super::by_name(&SdkQuirk::ALL, name)
    }
}

/// The flags the SDKs start the CLI with (streaming input, a permission
/// prompt through the control protocol).
const FLAGS: [&str; 7] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
    "--permission-prompt-tool",
    "stdio",
];

/// The hook callback id the reference registers.
const HOOK_ID: &str = "hook_0";

/// What a request or a turn came to.
type Outcome = Result<Value, Failure>;

/// Why it came to no result.
#[derive(Debug, Clone)]
enum Failure {
    /// An `error` response, with its text.
    Error(String),
    /// Anything else.
    Failed(String),
}

#[derive(Default)]
struct State {
    /// The SDK's requests awaiting their response, by `request_id`.
    pending: HashMap<String, Sender<Outcome>>,
    /// The turn being read: its texts so far, and where its end goes.
    turn: Option<(Vec<String>, Sender<Outcome>)>,
    /// Why the CLI can say nothing more.
    closed: Option<String>,
}

struct Sdk {
    quirk: SdkQuirk,
    state: Arc<Mutex<State>>,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    next: u64,
}

/// Writes one line to the CLI.
fn write_line(stdin: &Mutex<Option<ChildStdin>>, v: &Value) -> Result<(), String> {
    let mut line = v.to_string().into_bytes();
    line.push(b'\n');
    send(stdin, &line, "the CLI")
}

/// Runs the Claude series against the CLI at `cli` (its path, then any
/// arguments of its own), reporting to `out`; returns the exit status.
pub fn run_claude(cli: &[OsString], quirk: SdkQuirk, out: &mut dyn Write) -> io::Result<i32> {
    let Some((program, args)) = cli.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no CLI path"));
    };
    let mut child: Child = Command::new(program)
        .args(args)
        .args(FLAGS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    // Held, unread, with the quirk; read to its end without it.
    let _unread = if quirk == SdkQuirk::UnreadStderr {
        Some(err)
    } else {
        thread::spawn(move || {
            let mut err = err;
            let _ = io::copy(&mut err, &mut io::sink());
        });
        None
    };
    let sdk = Sdk {
        quirk,
        state: Arc::new(Mutex::new(State::default())),
        stdin: Arc::new(Mutex::new(child.stdin.take())),
        next: 0,
    };
    {
        let (state, stdin) = (Arc::clone(&sdk.state), Arc::clone(&sdk.stdin));
        thread::spawn(move || read_loop(stdout, quirk, &state, &stdin));
    }
    let stdin = Arc::clone(&sdk.stdin);
    series(sdk, out)?;
    if quirk == SdkQuirk::LeavesCli {
        // A `sleep` holds the CLI's stdin open after this process exits.
        if let Some(held) = lock(&stdin).take() {
            let _ = Command::new("sleep")
                .arg("30")
                .stdin(held)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn();
        }
        return Ok(0);
    }
    // Stdin closed, 2 s to exit, then killed.
    super::end(child, &stdin);
    Ok(0)
}

/// The steps, each reported as it ends.
fn series(mut sdk: Sdk, out: &mut dyn Write) -> io::Result<()> {
    for step in &CLAUDE_STEPS {
        let outcome = match step.name {
            "connect" => sdk.connect(),
            "turn" | "turn-2" => sdk.turn(prompt(step.name)),
            "close" => {
                writeln!(out, "{}", json!({"step": "close", "sent": true}))?;
                out.flush()?;
                continue;
            }
            _ => {
                let params: Value = serde_json::from_str(step.params).unwrap_or(json!({}));
                let mut request = json!({"subtype": step.method});
                if let (Some(r), Value::Object(p)) = (request.as_object_mut(), params) {
                    r.extend(p);
                }
                sdk.request(request, CALL_TIMEOUT).map(|_| Value::Null)
            }
        };
        let line = match outcome {
            Ok(v) => json!({"step": step.name, "result": v}),
            Err(Failure::Error(e)) => json!({"step": step.name, "error": e}),
            Err(Failure::Failed(why)) => json!({"step": step.name, "failed": why}),
        };
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    Ok(())
}

impl Sdk {
    fn connect(&mut self) -> Outcome {
        if self.quirk == SdkQuirk::NoInitialize {
            return Ok(json!([]));
        }
        let wait = if self.quirk == SdkQuirk::NoInitializeTimeout {
            Duration::MAX
        } else {
            CALL_TIMEOUT
        };
        let request = json!({
            "subtype": "initialize",
            "hooks": {"PreToolUse": [{"matcher": null, "hookCallbackIds": [HOOK_ID]}]},
            "sdkMcpServers": [MCP_SERVER.0],
        });
        let response = self.request(request, wait)?;
        Ok(response
            .get("commands")
            .and_then(Value::as_array)
            .map(|c| c.iter().filter_map(|c| c.get("name").cloned()).collect())
            .unwrap_or_default())
    }

    /// A control request of the SDK's, awaited at most `wait`.
    fn request(&mut self, request: Value, wait: Duration) -> Outcome {
        self.next += 1;
        let id = format!("req_{}_rpcspec", self.next);
        let (tx, rx) = mpsc::channel();
        {
            let mut state = lock(&self.state);
            if let Some(why) = &state.closed {
                return Err(Failure::Failed(why.clone()));
            }
            state.pending.insert(id.clone(), tx);
        }
        let line = json!({"type": "control_request", "request_id": id, "request": request});
        write_line(&self.stdin, &line).map_err(Failure::Failed)?;
        let outcome = wait_for(&rx, wait);
        lock(&self.state).pending.remove(&id);
        match outcome {
            Err(Failure::Error(_)) if self.quirk == SdkQuirk::IgnoresErrorResponse => Ok(json!({})),
            other => other,
        }
    }

    /// A turn: the `user` message, then its records up to `result`.
    fn turn(&mut self, prompt: &str) -> Outcome {
        let (tx, rx) = mpsc::channel();
        {
            let mut state = lock(&self.state);
            if let Some(why) = &state.closed
                && self.quirk != SdkQuirk::HangsWithoutResult
            {
                return Err(Failure::Failed(why.clone()));
            }
            state.turn = Some((Vec::new(), tx));
        }
        let line = json!({
            "type": "user",
            "message": {"role": "user", "content": prompt},
            "parent_tool_use_id": null,
            "session_id": "default",
        });
        write_line(&self.stdin, &line).map_err(Failure::Failed)?;
        let wait = if self.quirk == SdkQuirk::HangsWithoutResult {
            Duration::MAX
        } else {
            CALL_TIMEOUT
        };
        let outcome = wait_for(&rx, wait);
        lock(&self.state).turn = None;
        outcome
    }
}

fn wait_for(rx: &Receiver<Outcome>, wait: Duration) -> Outcome {
    let got = match Instant::now().checked_add(wait) {
        Some(_) => rx.recv_timeout(wait).map_err(|e| match e {
            mpsc::RecvTimeoutError::Timeout => format!("timed out after {wait:?}"),
            mpsc::RecvTimeoutError::Disconnected => "the reader ended".to_owned(),
        }),
        None => rx.recv().map_err(|_| "the reader ended".to_owned()),
    };
    got.unwrap_or_else(|why| Err(Failure::Failed(why)))
}

/// Reads the CLI's stdout into lines (as the quirk frames them) and hands
/// each to [`on_line`]; at the end, fails everything awaited.
fn read_loop(
    mut stdout: impl Read,
    quirk: SdkQuirk,
    state: &Mutex<State>,
    stdin: &Mutex<Option<ChildStdin>>,
) {
    let mut capture = Capture::new(Framing::ndjson());
    let mut carry: Vec<u8> = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    let mut after_noise = false;
    'reading: loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        let mut lines: Vec<Vec<u8>> = Vec::new();
        match quirk {
            SdkQuirk::ReadIsLine => lines.push(chunk.to_vec()),
            SdkQuirk::SplitsOnCr => {
                carry.extend_from_slice(chunk);
                while let Some(at) = carry.iter().position(|b| *b == b'\n' || *b == b'\r') {
                    let line: Vec<u8> = carry.drain(..=at).collect();
                    lines.push(line[..line.len() - 1].to_vec());
                }
            }
            _ => capture.push(chunk, Duration::ZERO, |a| {
                if let Event::Line(l) = a.event {
                    lines.push(l.bytes.into_owned());
                }
            }),
        }
        for line in lines {
            if quirk == SdkQuirk::LineLimit && line.len() > 64 * 1024 {
                continue;
            }
            if std::mem::take(&mut after_noise) && quirk == SdkQuirk::DropsAfterNoise {
                continue;
            }
            match serde_json::from_slice::<Value>(&line) {
                Ok(Value::Object(o)) => {
                    if !on_line(&o, quirk, state, stdin) {
                        break 'reading;
                    }
                }
                _ => after_noise = true,
            }
        }
    }
    if quirk == SdkQuirk::HangsWithoutResult {
        return;
    }
    let why = "the CLI's stdout ended".to_owned();
    let mut state = lock(state);
    state.closed = Some(why.clone());
    for (_, tx) in state.pending.drain() {
        let _ = tx.send(Err(Failure::Failed(why.clone())));
    }
    if let Some((_, tx)) = state.turn.take() {
        let _ = tx.send(Err(Failure::Failed(format!("{why} before a result"))));
    }
}

/// One record of the CLI's; whether to read on.
fn on_line(
    o: &Map<String, Value>,
    quirk: SdkQuirk,
    state: &Mutex<State>,
    stdin: &Mutex<Option<ChildStdin>>,
) -> bool {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_owned();
    match o.get("type").and_then(Value::as_str).unwrap_or_default() {
        "control_response" => {
            let response = o.get("response").cloned().unwrap_or_default();
            let id = text(response.get("request_id"));
            let outcome = match text(response.get("subtype")).as_str() {
                "success" => Ok(response.get("response").cloned().unwrap_or(json!({}))),
                _ => Err(Failure::Error(text(response.get("error")))),
            };
            if let Some(tx) = lock(state).pending.remove(&id) {
                let _ = tx.send(outcome);
            }
        }
        "control_request" => {
            // A request without its id cannot be answered: skipped.
            let Some(id) = o.get("request_id").filter(|i| i.is_string()).cloned() else {
                return true;
            };
            let request = o.get("request").cloned().unwrap_or_default();
            if let Some(answer) = answer(&request, quirk) {
                let id = if quirk == SdkQuirk::WrongRequestId {
                    json!(format!("{}-mine", text(Some(&id))))
                } else {
                    id
                };
                let line = response_line(&id, answer);
                let _ = write_line(stdin, &line);
                if quirk == SdkQuirk::AnswersTwice {
                    let _ = write_line(stdin, &line);
                }
            }
        }
        "control_cancel_request" if quirk == SdkQuirk::AnswersCancel => {
            let id = o.get("request_id").cloned().unwrap_or_default();
            let _ = write_line(stdin, &response_line(&id, Err("cancelled".to_owned())));
        }
        "assistant" => {
            if quirk == SdkQuirk::AnswersEvents {
                let id = o.get("uuid").cloned().unwrap_or_default();
                let _ = write_line(stdin, &response_line(&id, Ok(json!({}))));
            }
            let texts = o
                .get("message")
                .and_then(|m| m.get("content"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| text(b.get("text")));
            if let Some((seen, _)) = lock(state).turn.as_mut() {
                seen.extend(texts);
            }
        }
        "result" => {
            if let Some((texts, tx)) = lock(state).turn.take() {
                let _ = tx.send(Ok(json!({
                    "text": texts.concat(),
                    "result": o.get("result").cloned().unwrap_or(Value::Null),
                    "is_error": o.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                })));
            }
        }
        "keep_alive" if quirk == SdkQuirk::AnswersKeepAlive => {
            let id = json!("keep_alive");
            let _ = write_line(stdin, &response_line(&id, Ok(json!({}))));
        }
        "system" | "user" | "stream_event" | "keep_alive" | "control_cancel_request" => {}
        _ if quirk == SdkQuirk::StopsAtUnknownType => return false,
        _ => {}
    }
    true
}

/// The SDK's answer to a control request of the CLI's: `Ok(response)` for
/// `success`, `Err(text)` for `error`; `None` for none.
fn answer(request: &Value, quirk: SdkQuirk) -> Option<Result<Value, String>> {
    let field = |k: &str| request.get(k).cloned().unwrap_or_default();
    let subtype = request
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some(match subtype {
        "can_use_tool" if quirk == SdkQuirk::IgnoresCanUseTool => return None,
        "can_use_tool" => {
            let tool = request.get("tool_name").and_then(Value::as_str);
            if tool == Some(ALLOWED_TOOL) {
                let mut input = field("input");
                if let Some(o) = input.as_object_mut() {
                    o.insert(ALLOWED_MARK.0.into(), ALLOWED_MARK.1.into());
                }
                if quirk == SdkQuirk::AllowDropsInput {
                    Ok(json!({"behavior": "allow", "updatedInput": {}}))
                } else {
                    Ok(json!({"behavior": "allow", "updatedInput": input}))
                }
            } else {
                Ok(json!({"behavior": "deny", "message": DENIED_MESSAGE}))
            }
        }
        "hook_callback" if field("callback_id") == json!(HOOK_ID) => Ok(json!({})),
        "hook_callback" => Err(format!(
            "No hook callback found for ID: {}",
            field("callback_id")
        )),
        "mcp_message" if field("server_name") == json!(MCP_SERVER.0) => {
            Ok(json!({"mcp_response": mcp(&field("message"), quirk)}))
        }
        "mcp_message" => Err(format!("Server '{}' not found", field("server_name"))),
        _ if quirk == SdkQuirk::SuccessOnUnknown => Ok(json!({})),
        other => Err(format!("Unsupported control request subtype: {other}")),
    })
}

/// The SDK-hosted MCP server's reply to `message`.
fn mcp(message: &Value, quirk: SdkQuirk) -> Value {
    let id = match (message.get("id"), quirk) {
        (Some(_), SdkQuirk::McpWrongId) => json!("rpcspec-sdk"),
        (Some(id), _) => id.clone(),
        (None, _) => return json!({"jsonrpc": "2.0", "result": {}}),
    };
    let (tool, text) = MCP_SERVER;
    let result = match message.get("method").and_then(Value::as_str) {
        Some("initialize") => json!({
            "protocolVersion": message.pointer("/params/protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": tool, "version": "1.0.0"},
        }),
        Some("tools/list") => json!({"tools": [{
            "name": text,
            "description": "echoes its text",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        }]}),
        Some("tools/call") if message.pointer("/params/name") == Some(&json!(text)) => {
            let said = message
                .pointer("/params/arguments/text")
                .cloned()
                .unwrap_or_default();
            json!({"content": [{"type": "text", "text": said}]})
        }
        _ => {
            return json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}});
        }
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A `control_response` line.
fn response_line(id: &Value, answer: Result<Value, String>) -> Value {
    let response = match answer {
        Ok(r) => json!({"subtype": "success", "request_id": id, "response": r}),
        Err(e) => json!({"subtype": "error", "request_id": id, "error": e}),
    };
    json!({"type": "control_response", "response": response})
}
