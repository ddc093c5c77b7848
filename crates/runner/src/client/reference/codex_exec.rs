//! The reference decoder of Codex's exec stream: the codex-exec series
//! ([`CODEX_EXEC_STEPS`], one turn) against a `codex` it starts from a
//! path, as `@openai/codex-sdk` does (`docs/agents.md`): `exec
//! --experimental-json`, the prompt on stdin and stdin ended, stderr read
//! to its end, stdout read through rpcspec's own NDJSON framer. It hands
//! on every event in order, raises at a line that is no event, at a
//! non-zero exit and at a stream without `turn.completed` or
//! `turn.failed`, and gives the turn [`CALL_TIMEOUT`].
//!
//! Each [`ExecQuirk`] is one realistic decoder bug: `rpcspec-mutant-exec
//! NAME CODEX` runs it, and the self-test proves the scenarios written
//! for it catch it.

use std::{
    ffi::OsString,
    io::{self, Read, Write},
    process::{Child, Command, Stdio},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    thread,
    time::{Duration, Instant},
};

use rpcspec_framer::{Event, ProblemKind};
use serde_json::{Value, json};

use crate::capture::{Capture, Framing};
use crate::client::{CALL_TIMEOUT, codex_exec::PROMPT};

use super::by_name;

/// One realistic decoder bug, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecQuirk {
    /// The reference: no bug.
    None,
    /// Never ends the CLI's stdin.
    KeepsStdinOpen,
    /// Never reads the CLI's stderr.
    UnreadStderr,
    /// Ends lines at `\r` too.
    SplitsOnCr,
    /// Parses each read as one line.
    ReadIsLine,
    /// Skips a line that is no JSON, and the line after it.
    DropsAfterNoise,
    /// Raises at an event of a type it does not know.
    StopsAtUnknownType,
    /// Takes the turn for done whatever the exit status.
    IgnoresExit,
    /// Takes a stream without `turn.completed` for a whole turn.
    AcceptsCutTurn,
    /// Drops a last line that has no line end.
    DropsUnterminated,
    /// Hands on each `item.completed` twice.
    RepeatsItems,
}

impl ExecQuirk {
    /// Every quirk by its name (`rpcspec-mutant-exec NAME`).
    pub const ALL: [(&'static str, ExecQuirk); 11] = [
        ("reference", ExecQuirk::None),
        ("keeps-stdin-open", ExecQuirk::KeepsStdinOpen),
        ("unread-stderr", ExecQuirk::UnreadStderr),
        ("splits-on-cr", ExecQuirk::SplitsOnCr),
        ("read-is-line", ExecQuirk::ReadIsLine),
        ("drops-after-noise", ExecQuirk::DropsAfterNoise),
        ("stops-at-unknown-type", ExecQuirk::StopsAtUnknownType),
        ("ignores-exit", ExecQuirk::IgnoresExit),
        ("accepts-cut-turn", ExecQuirk::AcceptsCutTurn),
        ("drops-unterminated", ExecQuirk::DropsUnterminated),
        ("repeats-items", ExecQuirk::RepeatsItems),
    ];

    /// The quirk called `name`.
    pub fn named(name: &str) -> Option<ExecQuirk> {
        by_name(&ExecQuirk::ALL, name)
    }
}

/// The most bytes of the CLI's stderr kept for an error's text.
const STDERR_KEPT: usize = 4 << 10;

/// A line of the CLI's stdout, as the reader made it out.
enum Piece {
    /// A line (`ended`: with its line end).
    Line(Vec<u8>, bool),
    /// A line the framer refused, and why.
    Bad(String),
}

/// Runs the series against `codex` (the CLI's path and any arguments
/// before the SDK's), writing the report to `out`; returns the exit
/// status.
pub fn run_codex_exec(
    codex: &[OsString],
    quirk: ExecQuirk,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let Some((program, args)) = codex.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no CLI path"));
    };
    let mut child: Child = Command::new(program)
        .args(args)
        .args(["exec", "--experimental-json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("piped");
    let written = stdin.write_all(PROMPT.as_bytes());
    let _held = if quirk == ExecQuirk::KeepsStdinOpen {
        Some(stdin)
    } else {
        drop(stdin);
        None
    };
    let err = child.stderr.take().expect("piped");
    let (err_tx, err_rx) = mpsc::channel();
    // Held, unread, with the quirk; read to its end without it.
    let _unread = if quirk == ExecQuirk::UnreadStderr {
        Some(err)
    } else {
        thread::spawn(move || {
            let _ = err_tx.send(tail(err));
        });
        None
    };
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || read_lines(stdout, quirk, &tx));
    let deadline = Instant::now() + CALL_TIMEOUT;
    let report = match written {
        Err(e) => json!({"step": "turn", "failed": format!("cannot write the prompt: {e}")}),
        Ok(()) => turn(&mut child, &rx, &err_rx, quirk, deadline),
    };
    let _ = child.kill();
    let _ = child.wait();
    writeln!(out, "{report}")?;
    out.flush()?;
    Ok(0)
}

/// The last [`STDERR_KEPT`] bytes of `err`, read to its end.
fn tail(mut err: impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = [0; 8192];
    while let Ok(n) = err.read(&mut buf) {
        if n == 0 {
            break;
        }
        kept.extend_from_slice(&buf[..n]);
        if kept.len() > 2 * STDERR_KEPT {
            kept.drain(..kept.len() - STDERR_KEPT);
        }
    }
    let from = kept.len().saturating_sub(STDERR_KEPT);
    kept.split_off(from)
}

/// Reads the CLI's stdout into lines until it ends.
fn read_lines(mut stdout: impl Read, quirk: ExecQuirk, tx: &mpsc::Sender<Piece>) {
    let mut capture = Capture::new(Framing::ndjson());
    let mut carry: Vec<u8> = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    let mut lines = Vec::new();
    let take = |e: Event<'_>, lines: &mut Vec<Piece>| match e {
        Event::Line(l) => lines.push(Piece::Line(l.bytes.into_owned(), true)),
        Event::Problem(p) => match p.kind {
            ProblemKind::Blank | ProblemKind::Bom => {}
            ProblemKind::Truncated => lines.push(Piece::Line(p.bytes.into_owned(), false)),
            kind => lines.push(Piece::Bad(format!(
                "line {} of the stream: {kind}",
                p.number
            ))),
        },
    };
    loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        match quirk {
            ExecQuirk::ReadIsLine => lines.push(Piece::Line(chunk.to_vec(), true)),
            ExecQuirk::SplitsOnCr => {
                carry.extend_from_slice(chunk);
                while let Some(at) = carry.iter().position(|b| *b == b'\n' || *b == b'\r') {
                    let line: Vec<u8> = carry.drain(..=at).collect();
                    if line.len() > 1 {
                        lines.push(Piece::Line(line[..line.len() - 1].to_vec(), true));
                    }
                }
            }
            _ => capture.push(chunk, Duration::ZERO, |a| take(a.event, &mut lines)),
        }
        for l in lines.drain(..) {
            let _ = tx.send(l);
        }
    }
    match quirk {
        ExecQuirk::SplitsOnCr if !carry.is_empty() => lines.push(Piece::Line(carry, false)),
        ExecQuirk::ReadIsLine | ExecQuirk::SplitsOnCr => {}
        _ => capture.finish(Duration::ZERO, |a| take(a.event, &mut lines)),
    }
    for l in lines {
        let _ = tx.send(l);
    }
}

/// The turn: every event handed on, then how the process ended.
fn turn(
    child: &mut Child,
    rx: &Receiver<Piece>,
    err_rx: &Receiver<Vec<u8>>,
    quirk: ExecQuirk,
    deadline: Instant,
) -> Value {
    let mut events: Vec<Value> = Vec::new();
    let raise = |why: String, events: Vec<Value>| json!({"step": "turn", "error": {"message": why, "events": events}});
    let mut skip_next = false;
    loop {
        let read = match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(r) => r,
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                return json!({"step": "turn", "failed": format!("timed out after {CALL_TIMEOUT:?}")});
            }
        };
        let (bytes, ended) = match read {
            Piece::Line(bytes, ended) => (bytes, ended),
            Piece::Bad(why) => return raise(why, events),
        };
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if !ended && quirk == ExecQuirk::DropsUnterminated {
            continue;
        }
        let event = match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) if v.get("type").is_some_and(Value::is_string) => v,
            _ if quirk == ExecQuirk::DropsAfterNoise => {
                skip_next = true;
                continue;
            }
            _ => {
                let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
                let why = if ended {
                    format!("a line is no JSON event: {text}")
                } else {
                    format!("the stream ended inside a line: {text}")
                };
                return raise(why, events);
            }
        };
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        if quirk == ExecQuirk::StopsAtUnknownType
            && !crate::client::codex_exec::KNOWN.contains(&kind.as_str())
        {
            return raise(format!("an event of an unknown type: {kind}"), events);
        }
        if quirk == ExecQuirk::RepeatsItems && kind == "item.completed" {
            events.push(event.clone());
        }
        events.push(event);
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                return json!({"step": "turn", "failed": format!("the CLI's stdout ended, and it had not exited after {CALL_TIMEOUT:?}")});
            }
            Err(e) => return raise(format!("cannot wait for the CLI: {e}"), events),
        }
    };
    if !status.success() && quirk != ExecQuirk::IgnoresExit {
        let stderr = err_rx
            .recv_timeout(Duration::from_millis(200))
            .unwrap_or_default();
        let how = status
            .code()
            .map_or_else(|| "a signal".to_owned(), |c| format!("status {c}"));
        return raise(
            format!(
                "codex exec exited with {how}: {}",
                String::from_utf8_lossy(&stderr).trim_end()
            ),
            events,
        );
    }
    let ended = events
        .iter()
        .any(|e| matches!(e["type"].as_str(), Some("turn.completed" | "turn.failed")));
    if !ended && quirk != ExecQuirk::AcceptsCutTurn {
        return raise(
            "the stream ended without turn.completed or turn.failed".to_owned(),
            events,
        );
    }
    json!({"step": "turn", "result": {"events": events}})
}
