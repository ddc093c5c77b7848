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
        // A language server: JSON-RPC 2.0 in Content-Length framing, after
        // LSP's initialize handshake.
        "lsp" => Some((Dialect::Jsonrpc2, "lsp".to_owned())),
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
pub const DIALECTS: &[&str] = &[
    "jsonrpc2", "lenient", "codex", "mcp", "lsp", "claude", "events",
];

/// The framing a dialect's peers speak, by its handshake's name: a language
/// server's is Content-Length (LSP 3.17, Base Protocol), every other's NDJSON.
pub fn framing_of(handshake: &str) -> crate::capture::Framing {
    match handshake {
        "lsp" => crate::capture::Framing::content_length(),
        _ => crate::capture::Framing::ndjson(),
    }
}
