//! The client role in Claude Code's protocol (`--dialect claude`): rpcspec
//! plays the Claude Code CLI, and the client under test is an agent SDK
//! (`spec-cases/client/README.md`, "Agent SDKs"; `docs/agents.md`, each
//! rule with its source).
//!
//! The SDK starts the CLI from a path (`cli_path`,
//! `pathToClaudeCodeExecutable`): `{server}` is one executable, a shell
//! script the run writes ([`launcher`]) that answers `-v` as the CLI does
//! and hands the rest to the peer. A scenario ([`Play`]) says how the CLI
//! answers the SDK's control requests and what its first turn holds
//! ([`Act`]: records, control requests of its own, noise, an exit);
//! [`script::Cli`] plays it, sans-IO, and the client role's graders
//! (`grade/claude.rs`) grade what the SDK wrote and what its adapter
//! reported ([`super::CLAUDE_STEPS`]).

use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

pub mod script;

/// The command the CLI's `initialize` answer lists, which the adapter
/// reports from `connect`.
pub const COMMAND: &str = "rpcspec";

/// The user message the contract has the adapter send for a turn's step
/// (`turn`, `turn-2`).
pub fn prompt(step: &str) -> &'static str {
    match step {
        "turn-2" => "rpcspec: again",
        _ => "rpcspec: hello",
    }
}

/// The tool the adapter's permission callback allows (with
/// [`ALLOWED_MARK`] added to its input); it denies every other with
/// [`DENIED_MESSAGE`].
pub const ALLOWED_TOOL: &str = "Read";

/// What the adapter adds to an allowed tool's input: `"rpcspec":
/// "allowed"`.
pub const ALLOWED_MARK: (&str, &str) = ("rpcspec", "allowed");

/// The message the adapter's permission callback denies with.
pub const DENIED_MESSAGE: &str = "rpcspec: denied";

/// The SDK-hosted MCP server the adapter declares, and its one tool.
pub const MCP_SERVER: (&str, &str) = ("rpcspec", "echo");

/// How long the CLI waits for the SDK to answer a control request of its
/// own before the turn goes on.
pub const ASK_WAIT: Duration = Duration::from_secs(2);

/// How long a `late` answer waits: within the adapter's 3 s.
pub const LATE: Duration = Duration::from_millis(1500);

/// The version the launcher answers `-v` with: a real CLI's, at or above
/// what the SDKs ask for.
pub const VERSION: &str = "2.1.197 (Claude Code)";

/// How the CLI answers a control request of the SDK's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answering {
    /// `success`, at once.
    Success,
    /// `error`, at once.
    Error,
    /// `success`, after [`LATE`].
    Late,
    /// Never.
    Never,
}

impl Answering {
    const NAMES: [(&'static str, Answering); 4] = [
        ("success", Answering::Success),
        ("error", Answering::Error),
        ("late", Answering::Late),
        ("never", Answering::Never),
    ];
}

/// One thing the CLI does in a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Act {
    /// The `system` `init` record.
    Init,
    /// An `assistant` record with one text block.
    Text(String),
    /// Control requests of the CLI's (each the JSON text of `request`; a
    /// member whose value is the string `"$callback"` gets the first hook
    /// callback id the SDK registered), written together; the turn goes on once each is
    /// answered, or after [`ASK_WAIT`]. With `cancel`, a
    /// `control_cancel_request` follows each at once and the turn goes on.
    Ask {
        /// The requests.
        requests: Vec<String>,
        /// Each is cancelled at once.
        cancel: bool,
    },
    /// A line as written (its end with `end`).
    Line {
        /// Its bytes, without the line end.
        bytes: Vec<u8>,
        /// Whether a line end follows.
        end: bool,
    },
    /// This many bytes of text on stderr.
    Stderr(usize),
    /// The `result` record.
    Result {
        /// Its `is_error`.
        is_error: bool,
        /// Its `subtype`.
        subtype: String,
        /// Its `result` text.
        text: String,
    },
    /// The process exits with this status.
    Exit(i32),
    /// Its stdout closes; it lives on until its stdin closes.
    Close,
}

/// The text of the default turn's `assistant` record.
pub const HELLO: &str = "rpcspec: hello back";

/// The text of the default turn's `result`.
pub const DONE: &str = "rpcspec: done";

/// A turn with nothing in it but its records.
pub fn plain_turn() -> Vec<Act> {
    vec![
        Act::Init,
        Act::Text(HELLO.to_owned()),
        Act::Result {
            is_error: false,
            subtype: "success".to_owned(),
            text: DONE.to_owned(),
        },
    ]
}

/// What a Claude scenario plays.
#[derive(Debug, Clone, PartialEq)]
pub struct Play {
    /// How `initialize` is answered.
    pub initialize: Answering,
    /// How `set_permission_mode`, `set_model` and `interrupt` are
    /// answered.
    pub controls: Answering,
    /// The first turn (the later ones are [`plain_turn`]).
    pub turn: Vec<Act>,
}

/// A `[[scenario.turn]]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ActDef {
    act: Spanned<String>,
    text: Option<String>,
    #[serde(default)]
    requests: Vec<String>,
    #[serde(default)]
    cancel: bool,
    line: Option<String>,
    end: Option<bool>,
    bytes: Option<usize>,
    code: Option<i32>,
    is_error: Option<bool>,
    subtype: Option<String>,
}

/// Each act, and the fields it takes.
const ACTS: &[(&str, &[&str])] = &[
    ("init", &[]),
    ("text", &["text"]),
    ("ask", &["requests", "cancel"]),
    ("line", &["line", "end"]),
    ("stderr", &["bytes"]),
    ("result", &["text", "is_error", "subtype"]),
    ("exit", &["code"]),
    ("close", &[]),
];

/// The most bytes a scenario writes to stderr in one act.
const STDERR_MAX: usize = 16 << 20;

/// The acts of a turn as written; errors are (span, message).
pub(super) fn acts(
    defs: Vec<Spanned<ActDef>>,
    bytes: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<Act>, (std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    for spanned in defs {
        let span = spanned.span();
        let d = spanned.into_inner();
        let err = |m: String| (span.clone(), m);
        let given = [
            ("text", d.text.is_some()),
            ("requests", !d.requests.is_empty()),
            ("cancel", d.cancel),
            ("line", d.line.is_some()),
            ("end", d.end.is_some()),
            ("bytes", d.bytes.is_some()),
            ("code", d.code.is_some()),
            ("is_error", d.is_error.is_some()),
            ("subtype", d.subtype.is_some()),
        ];
        super::act::check_act(&d.act, &span, ACTS, &given)?;
        let text =
            |t: Option<&str>, default: &str| -> Result<String, (std::ops::Range<usize>, String)> {
                let raw = bytes(t.unwrap_or(default)).map_err(&err)?;
                String::from_utf8(raw).map_err(|_| err("`text` must be UTF-8".into()))
            };
        out.push(match d.act.get_ref().as_str() {
            "init" => Act::Init,
            "close" => Act::Close,
            "text" => Act::Text(text(d.text.as_deref(), HELLO)?),
            "ask" => {
                if d.requests.is_empty() {
                    return Err(err("an `ask` needs `requests`".into()));
                }
                for r in &d.requests {
                    let probe = r.replace("$callback", "x");
                    match serde_json::from_str::<serde_json::Value>(&probe) {
                        Ok(serde_json::Value::Object(o))
                            if o.get("subtype").is_some_and(|s| s.is_string()) => {}
                        _ => {
                            return Err(err(format!(
                                "each of `requests` is a JSON object with a string `subtype`: {r}"
                            )));
                        }
                    }
                }
                Act::Ask {
                    requests: d.requests,
                    cancel: d.cancel,
                }
            }
            "line" => {
                let b = bytes(d.line.as_deref().unwrap_or_default()).map_err(&err)?;
                if b.contains(&b'\n') {
                    return Err(err("a line may not hold `\\x0A`".into()));
                }
                Act::Line {
                    bytes: b,
                    end: d.end.unwrap_or(true),
                }
            }
            "stderr" => {
                let n = d.bytes.unwrap_or(0);
                if n == 0 || n > STDERR_MAX {
                    return Err(err(format!("`bytes` is 1 to {STDERR_MAX}")));
                }
                Act::Stderr(n)
            }
            "result" => Act::Result {
                is_error: d.is_error.unwrap_or(false),
                subtype: d.subtype.unwrap_or_else(|| "success".to_owned()),
                text: text(d.text.as_deref(), DONE)?,
            },
            "exit" => Act::Exit(d.code.unwrap_or(0)),
            _ => unreachable!("checked above"),
        });
    }
    Ok(out)
}

/// How `initialize` or the controls are answered, from its name.
pub(super) fn answering(name: &str) -> Result<Answering, String> {
    Answering::NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, a)| *a)
        .ok_or_else(|| format!("`{name}` is not one of success, error, late, never"))
}

/// The launcher the SDK starts as its CLI: `-v` and `--version` answered
/// with [`VERSION`], anything else handed to the peer (`peer` is the
/// rpcspec executable, `socket` the runner's).
pub fn launcher(peer: &std::path::Path, socket: &std::path::Path) -> String {
    super::peer::launcher(peer, socket, "Claude Code", Some(VERSION))
}

#[cfg(test)]
mod tests;
