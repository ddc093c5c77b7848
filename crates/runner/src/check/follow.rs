//! What `check` follows across messages beyond pairing: a transcript
//! line's mark, a dialect's cancels and its progress.

use std::collections::{HashMap, HashSet, VecDeque};

use rpcspec_matcher::{Direction, Kind, Rule};
use serde_json::Value;

use crate::dialects::{
    checking::{ProgressRules, Shapes},
    directions::Directions,
};

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

/// Progress, as `check` follows it where a dialect has rules of it (MCP:
/// "The progress value MUST increase with each notification"; "Progress
/// notifications MUST stop after completion"): the tokens its requests
/// give and the notifications that report on them, from its
/// [`Directions`].
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
    /// Follows one message sent `from` a side: a request's progress
    /// token, the reply that completes it, a progress notification. What it
    /// breaks, with the rule.
    pub(super) fn message(
        &mut self,
        (directions, rules): (&Directions, &ProgressRules),
        from: Direction,
        kind: &Kind,
        text: &str,
        window: usize,
    ) -> Vec<(&'static Rule, String)> {
        let mut out = Vec::new();
        // Most requests carry no token: no second parse for them.
        let tokened = |t: &str| t.contains("oken");
        match kind {
            Kind::Request { id, .. } if tokened(text) => {
                let token = serde_json::from_str::<Value>(text).ok().and_then(|v| {
                    directions
                        .tokens_given
                        .iter()
                        .find_map(|at| v.pointer(at).map(Value::to_string))
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
            Kind::Notification { method } if directions.progress_token(method).is_some() => {
                let Ok(v) = serde_json::from_str::<Value>(text) else {
                    return out;
                };
                let at = directions.progress_token(method).unwrap_or_default();
                let (Some(token), Some(progress)) = (
                    v.pointer(at).map(Value::to_string),
                    v.pointer(rules.value).and_then(Value::as_f64),
                ) else {
                    return out;
                };
                if self.done.contains(&token) {
                    out.push((
                        rules.after_completion,
                        format!("progress for token {token} after its request was answered"),
                    ));
                }
                if let Some(&last) = self.latest.get(&token)
                    && progress <= last
                {
                    out.push((
                        rules.increasing,
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

/// Messages against a dialect's schema, as `check` follows them: a call
/// by its own method, a reply by its request's.
#[derive(Default)]
pub(super) struct Shaped {
    /// (side, request id text) → the method of its latest request.
    methods: HashMap<(Direction, String), String>,
    /// The order they came, for forgetting the oldest past the window.
    order: VecDeque<(Direction, String)>,
}

impl Shaped {
    /// The problems `shapes` finds in one message sent `from` a side; a
    /// request's method kept (at most `window` of them) for its reply.
    pub(super) fn message(
        &mut self,
        shapes: Shapes,
        from: Direction,
        kind: &Kind,
        text: &str,
        window: usize,
    ) -> Vec<String> {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return Vec::new();
        };
        match kind {
            Kind::Request { id, method } => {
                let key = (from, id.raw().to_owned());
                if self
                    .methods
                    .insert(key.clone(), method.to_string())
                    .is_none()
                {
                    self.order.push_back(key);
                }
                while self.order.len() > window {
                    if let Some(old) = self.order.pop_front() {
                        self.methods.remove(&old);
                    }
                }
                shapes(method, &value, false)
            }
            Kind::Notification { method } => shapes(method, &value, false),
            Kind::Success { id } => {
                match self.methods.remove(&(from.reverse(), id.raw().to_owned())) {
                    Some(method) => shapes(&method, &value, true),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }
}
