//! The reference ACP client (`rpcspec serve --role client --dialect acp
//! AGENT...`): the ACP series ([`super::played::STEPS`]) against an agent
//! it starts, as an editor that declares `fs.readTextFile` and
//! `fs.writeTextFile` (served from memory: every file reads
//! [`FILE_TEXT`], a write is kept nowhere) and `terminal` (commands run
//! for real, their output capped, killed at the end of the series). A permission
//! request is answered with the first option that allows, or `cancelled`
//! once its turn is cancelled; the turn [`CANCEL_ME`] is cancelled when
//! its first update or permission request arrives.
//!
//! Each [`Bug`] is one realistic client bug, the JSON-RPC client's or the
//! editor's own (`rpcspec-mutant-client NAME --acp AGENT...`).

use std::{
    ffi::OsString,
    io::{self, Read, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{Arc, Mutex, OnceLock},
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use super::series::{CANCEL_ME, STEPS};
use crate::{
    capture::Framing,
    client::{
        StepKind,
        reference::{Client, Hooks, Outcome, Quirk, by_name, close, connect_with, lock, send},
    },
};

/// One realistic bug of an ACP client: the JSON-RPC client's ([`Quirk`],
/// `Rpc(Quirk::None)` for none) or the editor's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// The JSON-RPC client's.
    Rpc(Quirk),
    /// Answers a permission request with an option after it has cancelled
    /// the turn.
    PermissionAfterCancel,
    /// Answers a permission request with an option it was not offered
    /// (`allow`).
    UnofferedOption,
    /// Opens its session with the cwd `.`.
    RelativeCwd,
    /// Sends `session/new` with `initialize`, before its reply.
    EagerSession,
    /// Never cancels the turn it means to cancel.
    NoCancel,
    /// Answers a custom (`_…`) request it does not know with `null`.
    AnswersExtensions,
    /// Sends the protocol version as the string `"1"`.
    VersionString,
}

impl Bug {
    /// The reference: no bug.
    pub const NONE: Bug = Bug::Rpc(Quirk::None);

    /// The editor's own bugs by name.
    pub const OWN: [(&'static str, Bug); 7] = [
        ("acp-permission-after-cancel", Bug::PermissionAfterCancel),
        ("acp-unoffered-option", Bug::UnofferedOption),
        ("acp-relative-cwd", Bug::RelativeCwd),
        ("acp-eager-session", Bug::EagerSession),
        ("acp-no-cancel", Bug::NoCancel),
        ("acp-answers-extensions", Bug::AnswersExtensions),
        ("acp-version-string", Bug::VersionString),
    ];

    /// The bug called `name`: the editor's own, or the JSON-RPC client's.
    pub fn named(name: &str) -> Option<Bug> {
        by_name(&Bug::OWN, name).or_else(|| Quirk::named(name).map(Bug::Rpc))
    }

    /// The JSON-RPC client's bug it is, if any.
    fn rpc(self) -> Quirk {
        match self {
            Bug::Rpc(q) => q,
            _ => Quirk::None,
        }
    }
}

/// The text a `fs/read_text_file` of any path gives.
pub const FILE_TEXT: &str = "rpcspec: a file\n";

/// The most output a terminal keeps, in bytes (its start is dropped
/// beyond it, at a character boundary, as ACP's `outputByteLimit` has it).
const TERMINAL_OUTPUT: usize = 64 * 1024;

/// How long `terminal/wait_for_exit` waits before it kills the command.
const TERMINAL_WAIT: Duration = Duration::from_secs(2);

/// A command the agent runs in one of the editor's terminals: its process
/// and its output (stdout and stderr, as they come), at most
/// [`TERMINAL_OUTPUT`] of it.
struct Terminal {
    child: Child,
    output: Arc<Mutex<(Vec<u8>, bool)>>,
}

impl Terminal {
    /// Starts `params`' command (`command`, `args`, `cwd`) with its output
    /// read into the terminal.
    fn start(params: &Value) -> Result<Terminal, String> {
        let command = params
            .get("command")
            .and_then(Value::as_str)
            .ok_or("no command")?;
        let args: Vec<&str> = params
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut cmd = Command::new(command);
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = params.get("cwd").and_then(Value::as_str) {
            cmd.current_dir(cwd);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot run {command}: {e}"))?;
        let output = Arc::new(Mutex::new((Vec::new(), false)));
        let pipes: [Option<Box<dyn Read + Send>>; 2] = [
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ];
        for mut pipe in pipes.into_iter().flatten() {
            let output = Arc::clone(&output);
            thread::spawn(move || {
                let mut buf = [0; 8192];
                while let Ok(n @ 1..) = pipe.read(&mut buf) {
                    let mut o = lock(&output);
                    o.0.extend_from_slice(&buf[..n]);
                    if o.0.len() > TERMINAL_OUTPUT {
                        let mut cut = o.0.len() - TERMINAL_OUTPUT;
                        while cut < o.0.len() && (o.0[cut] & 0xC0) == 0x80 {
                            cut += 1;
                        }
                        o.0.drain(..cut);
                        o.1 = true;
                    }
                }
            });
        }
        Ok(Terminal { child, output })
    }

    /// Its exit status, if the command has ended.
    fn status(&mut self) -> Option<Value> {
        let status = self.child.try_wait().ok()??;
        Some(exit_status(status))
    }

    /// Its output so far, whether its start was dropped, and its status.
    fn output(&mut self) -> Value {
        let status = self.status();
        let (text, truncated) = {
            let o = lock(&self.output);
            (String::from_utf8_lossy(&o.0).into_owned(), o.1)
        };
        let mut v = json!({"output": text, "truncated": truncated});
        if let Some(status) = status {
            v["exitStatus"] = status;
        }
        v
    }

    /// Waits for the command to end (killed after [`TERMINAL_WAIT`]).
    fn wait(&mut self) -> Value {
        let until = Instant::now() + TERMINAL_WAIT;
        while Instant::now() < until {
            if let Some(status) = self.status() {
                return status;
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
        self.child
            .wait()
            .map_or(json!({"exitCode": null, "signal": null}), exit_status)
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An exit status as ACP's `TerminalExitStatus`.
fn exit_status(status: std::process::ExitStatus) -> Value {
    #[cfg(unix)]
    let signal = {
        use std::os::unix::process::ExitStatusExt;
        status.signal().map(|s| format!("signal {s}"))
    };
    #[cfg(not(unix))]
    let signal: Option<String> = None;
    json!({"exitCode": status.code(), "signal": signal})
}

/// What the editor keeps of the agent's session while the series runs.
#[derive(Default)]
struct Editor {
    /// The text of the message chunks of the turn in flight.
    text: String,
    /// The session whose turn is to be cancelled at its first sign.
    cancel: Option<String>,
    /// Whether that turn's `session/cancel` was sent.
    cancelled: bool,
    /// The terminals the agent made, by id.
    terminals: Vec<(String, Terminal)>,
}

/// The editor's answers and its cancel, on the reader's thread.
struct AcpHooks {
    bug: Bug,
    editor: Mutex<Editor>,
    /// The client's stdin, once it is started.
    stdin: OnceLock<Arc<Mutex<Option<ChildStdin>>>>,
    framing: Framing,
}

impl AcpHooks {
    fn editor(&self) -> std::sync::MutexGuard<'_, Editor> {
        lock(&self.editor)
    }

    /// Cancels the armed turn of `session`, once.
    fn cancel(&self, session: Option<&Value>) {
        if self.bug == Bug::NoCancel {
            return;
        }
        let mut editor = self.editor();
        let armed = editor
            .cancel
            .as_deref()
            .is_some_and(|s| session.and_then(Value::as_str) == Some(s));
        if !armed || editor.cancelled {
            return;
        }
        editor.cancelled = true;
        let mut line = json!({"jsonrpc": "2.0", "method": "session/cancel",
            "params": {"sessionId": editor.cancel.clone()}});
        if self.bug == Bug::Rpc(Quirk::NotificationWithId) {
            line["id"] = json!(1000);
        }
        if let Some(stdin) = self.stdin.get() {
            let _ = send(
                stdin,
                &self.framing.encode(line.to_string().as_bytes()),
                "the agent",
            );
        }
    }
}

impl Hooks for AcpHooks {
    fn request(&self, method: &str, params: &Value) -> Option<Result<Value, Value>> {
        let session = params.get("sessionId");
        match method {
            "session/request_permission" => {
                self.cancel(session);
                let cancelled = self.editor().cancelled && self.bug != Bug::PermissionAfterCancel;
                let options = params
                    .get("options")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let allow = options
                    .iter()
                    .find(|o| {
                        o.get("kind")
                            .and_then(Value::as_str)
                            .is_some_and(|k| k.starts_with("allow"))
                    })
                    .or(options.first())
                    .and_then(|o| o.get("optionId").cloned());
                let outcome = match (cancelled, allow) {
                    (false, Some(_)) if self.bug == Bug::UnofferedOption => {
                        json!({"outcome": "selected", "optionId": "allow"})
                    }
                    (false, Some(id)) => json!({"outcome": "selected", "optionId": id}),
                    _ => json!({"outcome": "cancelled"}),
                };
                Some(Ok(json!({ "outcome": outcome })))
            }
            "terminal/create" => Some(match Terminal::start(params) {
                Ok(t) => {
                    let mut editor = self.editor();
                    let id = format!("rpcspec-terminal-{}", editor.terminals.len() + 1);
                    editor.terminals.push((id.clone(), t));
                    Ok(json!({ "terminalId": id }))
                }
                Err(why) => Err(json!({"code": -32603, "message": why})),
            }),
            m if m.starts_with("terminal/") => {
                let id = params
                    .get("terminalId")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let mut editor = self.editor();
                let Some(at) = editor.terminals.iter().position(|(t, _)| t == id) else {
                    return Some(Err(
                        json!({"code": -32602, "message": format!("no terminal {id:?}")}),
                    ));
                };
                let t = &mut editor.terminals[at].1;
                Some(Ok(match m {
                    "terminal/output" => t.output(),
                    "terminal/wait_for_exit" => t.wait(),
                    "terminal/kill" => {
                        t.kill();
                        json!({})
                    }
                    "terminal/release" => {
                        t.kill();
                        editor.terminals.remove(at);
                        json!({})
                    }
                    _ => return Some(Err(json!({"code": -32601, "message": "Method not found"}))),
                }))
            }
            "fs/read_text_file" => Some(Ok(json!({ "content": FILE_TEXT }))),
            "fs/write_text_file" => Some(Ok(json!({}))),
            m if m.starts_with('_') && self.bug == Bug::AnswersExtensions => Some(Ok(Value::Null)),
            _ => Some(Err(json!({"code": -32601, "message": "Method not found"}))),
        }
    }

    fn notification(&self, method: &str, params: &Value) {
        if method != "session/update" {
            return;
        }
        let update = params.get("update");
        let chunk = update
            .filter(|u| {
                u.get("sessionUpdate").and_then(Value::as_str) == Some("agent_message_chunk")
            })
            .and_then(|u| u.pointer("/content/text"))
            .and_then(Value::as_str);
        if let Some(text) = chunk {
            self.editor().text.push_str(text);
        }
        self.cancel(params.get("sessionId"));
    }
}

/// Runs the ACP series against `agent` (argv) with `bug`,
/// reporting to `out`; returns the exit status.
pub fn run(agent: &[OsString], bug: Bug, out: &mut dyn Write) -> io::Result<i32> {
    let framing = Framing::ndjson();
    let hooks = Arc::new(AcpHooks {
        bug,
        editor: Mutex::new(Editor::default()),
        stdin: OnceLock::new(),
        framing: framing.clone(),
    });
    let (child, mut client) = connect_with(agent, bug.rpc(), &framing, Some(hooks.clone()))?;
    // The hooks' cancel goes where the client writes (nothing comes from
    // the agent before the client's first message).
    let _ = hooks.stdin.set(Arc::clone(&client.stdin));
    let step = |name: &str| STEPS.iter().find(|s| s.name == name).expect("a step");
    let params =
        |name: &str| -> Value { serde_json::from_str(step(name).params).unwrap_or(json!({})) };
    let version = if bug == Bug::VersionString {
        json!("1")
    } else {
        json!(1)
    };
    let init = json!({
        "protocolVersion": version,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true},
        "clientInfo": {"name": "rpcspec-reference-client", "version": env!("CARGO_PKG_VERSION")},
    });
    let cwd = if bug == Bug::RelativeCwd {
        ".".to_owned()
    } else {
        std::env::current_dir().map_or_else(|_| "/".to_owned(), |d| d.display().to_string())
    };
    let new = json!({"cwd": cwd, "mcpServers": []});
    let (opened, session) = if bug == Bug::EagerSession {
        // `session/new` written with `initialize`, before its reply.
        let (i, s) = (client.id(), client.id());
        let waits = (client.expect(i), client.expect(s));
        let _ = client.write(&client.message("initialize", &init, Some(i)));
        let _ = client.write(&client.message("session/new", &new, Some(s)));
        let until = std::time::Instant::now() + crate::client::CALL_TIMEOUT;
        match waits {
            (Ok(i), Ok(s)) => (client.wait(&i, until), client.wait(&s, until)),
            (Err(why), _) | (_, Err(why)) => (Outcome::Failed(why.clone()), Outcome::Failed(why)),
        }
    } else {
        let opened = client.call("initialize", init);
        let session = match opened {
            Outcome::Result(_) => client.call("session/new", new),
            _ => Outcome::Failed("not initialized".into()),
        };
        (opened, session)
    };
    report(out, "initialize", &opened, |r| {
        r.get("protocolVersion").cloned()
    })?;
    report(out, "session", &session, |r| r.get("sessionId").cloned())?;
    let Outcome::Result(ref s) = session else {
        for step in &STEPS[2..] {
            report(
                out,
                step.name,
                &Outcome::Failed("no session".into()),
                |_| None,
            )?;
        }
        return close(child, &client);
    };
    let id = s.get("sessionId").cloned().unwrap_or_default();
    let turn = |client: &mut Client, name: &str| -> Outcome {
        let mut p = params(name);
        p["sessionId"] = id.clone();
        {
            let mut editor = hooks.editor();
            editor.text.clear();
            if step(name).params.contains(CANCEL_ME) {
                editor.cancel = id.as_str().map(str::to_owned);
            }
        }
        let outcome = client.call("session/prompt", p);
        match outcome {
            Outcome::Result(r) => Outcome::Result(json!({
                "stopReason": r.get("stopReason").cloned().unwrap_or_default(),
                "text": hooks.editor().text.clone(),
            })),
            other => other,
        }
    };
    let outcome = turn(&mut client, "prompt");
    report(out, "prompt", &outcome, |r| Some(r.clone()))?;
    let outcome = client.call("_rpcspec/fail", json!({}));
    report(out, "error", &outcome, |r| Some(r.clone()))?;
    let calls: Vec<(&str, String, Value)> = STEPS
        .iter()
        .filter(|s| s.kind == StepKind::Concurrent)
        .map(|s| (s.method, s.name.to_owned(), params(s.name)))
        .collect();
    for (name, outcome) in client.together(&calls, false) {
        report(out, &name, &outcome, |r| Some(r.clone()))?;
    }
    let outcome = turn(&mut client, "cancel");
    report(out, "cancel", &outcome, |r| Some(r.clone()))?;
    let outcome = turn(&mut client, "after");
    report(out, "after", &outcome, |r| Some(r.clone()))?;
    for (_, mut t) in std::mem::take(&mut hooks.editor().terminals) {
        t.kill();
    }
    close(child, &client)
}

/// Reports `step`'s `outcome`, a result as `shown` makes it: one line,
/// flushed.
fn report(
    out: &mut dyn Write,
    step: &str,
    outcome: &Outcome,
    shown: impl Fn(&Value) -> Option<Value>,
) -> io::Result<()> {
    let line = match outcome {
        Outcome::Result(v) => json!({"step": step, "result": shown(v).unwrap_or_default()}),
        Outcome::Error(v) => json!({"step": step, "error": v}),
        Outcome::Failed(why) => json!({"step": step, "failed": why}),
    };
    writeln!(out, "{line}")?;
    out.flush()
}
