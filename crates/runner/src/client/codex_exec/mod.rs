//! The client role in Codex's exec stream (`--dialect codex-exec`):
//! rpcspec plays `codex exec --experimental-json`, and the client under
//! test is what decodes its stream, such as `@openai/codex-sdk`
//! (`spec-cases/client/README.md`, "Codex exec decoders";
//! `docs/agents.md`, each rule with its source).
//!
//! The SDK starts the CLI from a path (`codexPathOverride`), writes its
//! prompt to the CLI's stdin and ends it, then reads one JSON event per
//! line of stdout until the CLI exits: one process per turn. `{server}`
//! is one executable, a shell script the run writes ([`launcher`]). A
//! scenario's [`Act`]s are what the CLI writes once its prompt is read
//! (events, noise, stderr, an exit); [`script::Exec`] plays them, sans-IO,
//! and `grade/codex_exec.rs` grades what the adapter reported the SDK
//! yielded against what was written.

use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

pub mod script;

/// What the launcher answers `codex --version` with: the Codex whose
/// stream is played.
pub const VERSION: &str = "codex-cli 0.171.0";

/// The prompt the contract has the adapter send for its one turn.
pub const PROMPT: &str = "rpcspec: hello";

/// The `thread_id` of `thread.started`.
pub const THREAD: &str = "rpcspec-thread";

/// The text of the default turn's agent message.
pub const HELLO: &str = "rpcspec: hello back";

/// The event types of the exec stream (`codex-rs/exec/src/exec_events.rs`,
/// the SDK's `ThreadEvent`): a decoder owes its caller each of these.
pub const KNOWN: [&str; 8] = [
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
];

/// One thing the CLI does once it has read its prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum Act {
    /// A line as written (its end with `end`).
    Line {
        /// Its bytes, without the line end.
        bytes: Vec<u8>,
        /// Whether a line end follows.
        end: bool,
    },
    /// This many bytes on stderr: log lines, or (`one_line`) one line
    /// that long.
    Stderr {
        /// How many.
        bytes: usize,
        /// As one line, ended at its last byte.
        one_line: bool,
    },
    /// A pause, once the SDK has read what came before.
    Sleep(Duration),
    /// Its stdout closes; the process lives on to its next act.
    Close,
    /// The process exits with this status.
    Exit(i32),
}

/// `thread.started` and `turn.started`, as Codex opens every turn.
fn start() -> Vec<Act> {
    vec![
        event(format!(
            r#"{{"type":"thread.started","thread_id":"{THREAD}"}}"#
        )),
        event(r#"{"type":"turn.started"}"#.to_owned()),
    ]
}

/// An agent message item, completed.
fn message(n: usize, text: &str) -> Act {
    let text = serde_json::Value::from(text);
    event(format!(
        r#"{{"type":"item.completed","item":{{"id":"item_{n}","type":"agent_message","text":{text}}}}}"#
    ))
}

/// `turn.completed`, with every usage member the SDK's `Usage` names.
fn completed() -> Act {
    event(
        r#"{"type":"turn.completed","usage":{"input_tokens":12,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":3,"reasoning_output_tokens":0}}"#
            .to_owned(),
    )
}

fn event(text: String) -> Act {
    Act::Line {
        bytes: text.into_bytes(),
        end: true,
    }
}

/// A turn that goes well: started, one agent message, completed, exit 0.
pub fn plain_stream() -> Vec<Act> {
    let mut acts = start();
    acts.extend([message(0, HELLO), completed(), Act::Exit(0)]);
    acts
}

/// A `[[scenario.stream]]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ActDef {
    act: Spanned<String>,
    text: Option<String>,
    line: Option<String>,
    end: Option<bool>,
    bytes: Option<usize>,
    code: Option<i32>,
    ms: Option<u64>,
}

/// Each act, and the fields it takes.
const ACTS: &[(&str, &[&str])] = &[
    ("start", &[]),
    ("message", &["text"]),
    ("completed", &[]),
    ("failed", &["text"]),
    ("line", &["line", "end"]),
    ("stderr", &["bytes", "end"]),
    ("sleep", &["ms"]),
    ("close", &[]),
    ("exit", &["code"]),
];

/// The most bytes a scenario writes to stderr in one act.
const STDERR_MAX: usize = 16 << 20;

/// The longest `sleep`.
const SLEEP_MAX: u64 = 5_000;

/// The acts of a stream as written (an `exit 0` added when none is
/// written); errors are (span, message).
pub(super) fn acts(
    defs: Vec<Spanned<ActDef>>,
    bytes: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<Act>, (std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    let mut messages = 0;
    // After an unterminated line or a close, no line can be told apart.
    let mut no_more_lines: Option<&str> = None;
    for spanned in defs {
        let span = spanned.span();
        let d = spanned.into_inner();
        let err = |m: String| (span.clone(), m);
        let writes = matches!(
            d.act.get_ref().as_str(),
            "start" | "message" | "completed" | "failed" | "line"
        );
        if let Some(why) = no_more_lines.filter(|_| writes) {
            return Err(err(format!("no line can follow {why}")));
        }
        let given = [
            ("text", d.text.is_some()),
            ("line", d.line.is_some()),
            ("end", d.end.is_some()),
            ("bytes", d.bytes.is_some()),
            ("code", d.code.is_some()),
            ("ms", d.ms.is_some()),
        ];
        super::act::check_act(&d.act, &span, ACTS, &given)?;
        let text = |default: &str| -> Result<String, (std::ops::Range<usize>, String)> {
            let raw = bytes(d.text.as_deref().unwrap_or(default)).map_err(&err)?;
            String::from_utf8(raw).map_err(|_| err("`text` must be UTF-8".into()))
        };
        match d.act.get_ref().as_str() {
            "start" => out.extend(start()),
            "message" => {
                out.push(message(messages, &text(HELLO)?));
                messages += 1;
            }
            "completed" => out.push(completed()),
            "failed" => {
                let why = serde_json::Value::from(text("rpcspec: the turn failed")?);
                out.push(event(format!(
                    r#"{{"type":"turn.failed","error":{{"message":{why}}}}}"#
                )));
            }
            "line" => {
                let b = bytes(d.line.as_deref().unwrap_or_default()).map_err(&err)?;
                if b.contains(&b'\n') {
                    return Err(err("a line may not hold `\\x0A`".into()));
                }
                let end = d.end.unwrap_or(true);
                if !end {
                    no_more_lines = Some("a line without its line end");
                }
                out.push(Act::Line { bytes: b, end });
            }
            "stderr" => {
                let n = d.bytes.unwrap_or(0);
                if n == 0 || n > STDERR_MAX {
                    return Err(err(format!("`bytes` is 1 to {STDERR_MAX}")));
                }
                // `end = false`: no line end before the last byte.
                out.push(Act::Stderr {
                    bytes: n,
                    one_line: d.end == Some(false),
                });
            }
            "sleep" => {
                let ms = d.ms.unwrap_or(0);
                if ms == 0 || ms > SLEEP_MAX {
                    return Err(err(format!("`ms` is 1 to {SLEEP_MAX}")));
                }
                out.push(Act::Sleep(Duration::from_millis(ms)));
            }
            "close" => {
                no_more_lines = Some("`close`");
                out.push(Act::Close);
            }
            "exit" => {
                let code = d.code.unwrap_or(0);
                if !(0..=255).contains(&code) {
                    return Err(err("`code` is an exit status, 0 to 255".into()));
                }
                out.push(Act::Exit(code));
            }
            _ => unreachable!("checked above"),
        }
    }
    if !out.iter().any(|a| matches!(a, Act::Exit(_))) {
        out.push(Act::Exit(0));
    }
    Ok(out)
}

/// The launcher the SDK starts as `codex`: `--version` answered with
/// [`VERSION`], everything else handed to the peer (`peer` is the rpcspec
/// executable, `socket` the runner's).
pub fn launcher(peer: &std::path::Path, socket: &std::path::Path) -> String {
    super::peer::launcher(peer, socket, "`codex exec`", Some(VERSION))
}

#[cfg(test)]
mod tests;
