//! The dialects `--dialect` names, for every role: the matcher's
//! dialects, `codex` and `mcp@REVISION`, each with its handshake.

use rpcspec_matcher::Dialect;

/// The dialects `--dialect` takes: the matcher's, plus `codex`, the
/// lenient dialect opened by the Codex app-server's handshake, and
/// `mcp@REVISION`, MCP pinned to a revision. Returns the dialect and the
/// name of its handshake.
pub fn dialect_named(name: &str) -> Option<(Dialect, String)> {
    match name {
        "codex" => Some((Dialect::Lenient, "codex".to_owned())),
        // MCP pinned to a revision (`mcp@2025-11-25`): the MCP handshake.
        pinned
            if pinned
                .strip_prefix("mcp@")
                .is_some_and(|r| r.parse::<crate::mcp::Revision>().is_ok()) =>
        {
            Some((Dialect::Mcp, "mcp".to_owned()))
        }
        other => other.parse::<Dialect>().ok().map(|d| (d, other.to_owned())),
    }
}

/// Every name [`dialect_named`] knows.
pub const DIALECTS: &[&str] = &["jsonrpc2", "lenient", "codex", "mcp", "claude", "events"];
