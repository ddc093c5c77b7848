//! The client role in the Codex app-server's protocol (`--dialect
//! codex`): rpcspec plays `codex app-server`, and the client under test is
//! a host that drives it (`spec-cases/client/README.md`, "Codex
//! app-server hosts"; `docs/agents.md`, each rule with its source).
//!
//! The app-server speaks JSON-RPC 2.0 without the `"jsonrpc"` member, one
//! message a line (codex-rs/app-server/README.md, "Protocol"). A host
//! starts it from a path (`codex_bin`, `codex_command`,
//! `codex_path_override`): `{server}` is one executable, a launcher the
//! run writes. A scenario ([`Play`]) says which requests of its own the
//! server sends during the turn (approvals, a method the host does not
//! know), how it ends the turn, and how its lines are cut;
//! [`script::AppServer`] plays it, sans-IO, and `grade/codex.rs` grades
//! what the host wrote and what its adapter reported
//! ([`super::CODEX_STEPS`]).

use std::time::Duration;

pub mod script;

/// The user agent the scripted `initialize` answers with (a host may
/// read `name/version` from it), which `connect` reports.
pub const USER_AGENT: &str = "rpcspec_app_server/0.171.0 (rpcspec; scripted)";

/// The thread `thread/start` opens, whose id `thread` reports.
pub const THREAD: &str = "rpcspec-thread";

/// The turn `turn/start` begins.
pub const TURN: &str = "rpcspec-turn";

/// The text the adapter sends as the turn's input.
pub const PROMPT: &str = "rpcspec: hello";

/// The agent message of every turn.
pub const REPLY: &str = "rpcspec: hello back";

/// How long the server waits for the host to answer a request of its
/// own before the turn goes on.
pub const ASK_WAIT: Duration = Duration::from_secs(2);

/// A command approval: the adapter's handler accepts it.
pub const COMMAND_APPROVAL: &str = "item/commandExecution/requestApproval";

/// A file change approval: the adapter's handler declines it.
pub const FILE_APPROVAL: &str = "item/fileChange/requestApproval";

/// What the adapter contract's handler decides for an approval method,
/// if it is one.
pub fn decision(method: &str) -> Option<&'static str> {
    match method {
        COMMAND_APPROVAL => Some("accept"),
        FILE_APPROVAL => Some("decline"),
        _ => None,
    }
}

/// The server's requests of a plain turn: a command to approve, then a
/// file change to decline, as JSON texts of `{method, params}`.
pub fn approvals() -> Vec<String> {
    vec![
        format!(
            r#"{{"method":"{COMMAND_APPROVAL}","params":{{"threadId":"{THREAD}","turnId":"{TURN}","itemId":"rpcspec-command","startedAtMs":0,"command":"echo rpcspec","cwd":"/"}}}}"#
        ),
        format!(
            r#"{{"method":"{FILE_APPROVAL}","params":{{"threadId":"{THREAD}","turnId":"{TURN}","itemId":"rpcspec-patch","startedAtMs":0}}}}"#
        ),
    ]
}

/// How the server ends the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `turn/completed`, status `completed`.
    Completed,
    /// `turn/completed`, status `failed`, with an error.
    Failed,
    /// The process exits (status 1) before the turn completes.
    Exit,
}

/// The server's own ids for its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ids {
    /// Integers from 0, as the app-server's.
    Integer,
    /// Strings (`"rpcspec-0"`): JSON-RPC allows both.
    String,
}

/// What a Codex host scenario plays.
#[derive(Debug, Clone, PartialEq)]
pub struct Play {
    /// The server's requests during the turn, each the JSON text of
    /// `{method, params}`.
    pub asks: Vec<String>,
    /// Written at once (else each after the answer to the one before).
    pub together: bool,
    /// The ids of the server's requests.
    pub ids: Ids,
    /// Notifications written after `turn/started` (JSON texts).
    pub notes: Vec<String>,
    /// How the turn ends.
    pub ending: Ending,
}

impl Default for Play {
    fn default() -> Play {
        Play {
            asks: approvals(),
            together: false,
            ids: Ids::Integer,
            notes: Vec::new(),
            ending: Ending::Completed,
        }
    }
}

/// The launcher the host starts as `codex`: `--version` answered, as the
/// exec stream's, everything else handed to the peer.
pub fn launcher(peer: &std::path::Path, socket: &std::path::Path) -> String {
    super::peer::launcher(
        peer,
        socket,
        "`codex app-server`",
        Some(super::codex_exec::VERSION),
    )
}

#[cfg(test)]
mod tests;
