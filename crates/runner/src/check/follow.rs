//! What `check` follows across messages beyond pairing: a transcript
//! line's mark, and MCP's cancels and progress.

use std::collections::{HashMap, HashSet, VecDeque};

use rpcspec_matcher::{Direction, Kind, Rule};

/// The marks of a transcript line: its sender, and the bytes of the mark
/// (`--> `). `None` for a line without one.
pub(super) fn mark(text: &str) -> Option<(Direction, usize)> {
    let from = if text.starts_with("-->") {
        Direction::ClientToServer
    } else if text.starts_with("<--") {
        Direction::ServerToClient
    } else {
        return None;
    };
    let spaces = text[3..].len() - text[3..].trim_start_matches([' ', '\t']).len();
    Some((from, 3 + spaces))
}

/// MCP progress, as `check` follows it: "The progress value MUST increase
/// with each notification"; "Progress notifications MUST stop after
/// completion".
#[derive(Default)]
pub(super) struct Progress {
    /// Token (its JSON text) → the latest progress.
    latest: HashMap<String, f64>,
    /// (side, request id text) → the token its request gave.
    tokens: HashMap<(Direction, String), String>,
    /// Tokens whose request was answered.
    done: HashSet<String>,
    /// The order tokens were first seen, for forgetting the oldest.
    order: VecDeque<String>,
}

impl Progress {
    /// Follows one MCP message sent `from` a side: a request's progress
    /// token, the reply that completes it, a progress notification. What it
    /// breaks, with the rule.
    pub(super) fn message(
        &mut self,
        from: Direction,
        kind: &Kind,
        text: &str,
        window: usize,
    ) -> Vec<(&'static Rule, String)> {
        use crate::dialects::mcp::rules::{MCP_PROGRESS_AFTER_COMPLETION, MCP_PROGRESS_INCREASING};
        let mut out = Vec::new();
        match kind {
            Kind::Request { id, .. } if text.contains("progressToken") => {
                let token = serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .and_then(|v| {
                        v.pointer("/params/_meta/progressToken")
                            .map(|t| t.to_string())
                    });
                if let Some(token) = token {
                    self.done.remove(&token);
                    self.latest.remove(&token);
                    self.remember(&token, window);
                    self.tokens.insert((from, id.raw().to_owned()), token);
                }
            }
            Kind::Success { id } | Kind::Error { id: Some(id), .. } => {
                if let Some(token) = self.tokens.remove(&(from.reverse(), id.raw().to_owned())) {
                    // Bounded: past a window's worth, the oldest are let go.
                    if self.done.len() >= window {
                        self.done.clear();
                    }
                    self.done.insert(token);
                }
            }
            Kind::Notification { method } if &**method == "notifications/progress" => {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
                    return out;
                };
                let (Some(token), Some(progress)) = (
                    v.pointer("/params/progressToken").map(|t| t.to_string()),
                    v.pointer("/params/progress")
                        .and_then(serde_json::Value::as_f64),
                ) else {
                    return out;
                };
                if self.done.contains(&token) {
                    out.push((
                        &MCP_PROGRESS_AFTER_COMPLETION,
                        format!("progress for token {token} after its request was answered"),
                    ));
                }
                if let Some(&last) = self.latest.get(&token)
                    && progress <= last
                {
                    out.push((
                        &MCP_PROGRESS_INCREASING,
                        format!(
                            "progress {progress} for token {token} after {last}: it must increase"
                        ),
                    ));
                }
                if !self.latest.contains_key(&token) {
                    self.remember(&token, window);
                }
                self.latest.insert(token, progress);
            }
            _ => {}
        }
        out
    }

    /// Notes a token; beyond `window` tokens the oldest is forgotten.
    fn remember(&mut self, token: &str, window: usize) {
        self.order.push_back(token.to_owned());
        while self.order.len() > window {
            if let Some(old) = self.order.pop_front() {
                self.latest.remove(&old);
                self.done.remove(&old);
            }
        }
        if self.tokens.len() > window {
            self.tokens.clear();
        }
    }
}
