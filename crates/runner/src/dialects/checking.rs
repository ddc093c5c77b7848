//! What `rpcspec check` asks of a dialect beyond pairing and who sends what
//! ([`super::directions`]): the names of its two sides, its own words for
//! its messages, the schema each message is held to, what a cancel does,
//! and the rules of its progress notifications. Data, and functions of one
//! message; a base every dialect may import.

use rpcspec_matcher::Rule;
use serde_json::Value;

/// The problems of one message against a dialect's schema: a call of
/// `method` (`reply` false) or a reply to one, the whole message given.
pub type Shapes = fn(method: &str, message: &Value, reply: bool) -> Vec<String>;

/// A dialect's rules of progress: on each token the value at `value` (a
/// JSON Pointer in the notification) must grow, and stop once the request
/// that gave the token is answered.
#[derive(Debug, Clone, Copy)]
pub struct ProgressRules {
    /// Where the progress value is.
    pub value: &'static str,
    /// Each value greater than the last.
    pub increasing: &'static Rule,
    /// None after the request is answered.
    pub after_completion: &'static Rule,
}

/// What `check` does in a dialect beyond pairing.
#[derive(Debug, Clone, Copy)]
pub struct Checking {
    /// The names of a session's two lanes in the sequence diagram: the side
    /// that asks first, and the side that serves.
    pub lanes: (&'static str, &'static str),
    /// Its requests and replies are control messages (Claude Code's
    /// `control_request`, paired by `request_id`): the notes say so.
    pub control: bool,
    /// The records that end a stream or a turn, which the notes name.
    pub ends: &'static [&'static str],
    /// Each message against the dialect's schema, under this rule.
    pub shapes: Option<(&'static Rule, Shapes)>,
    /// A cancel (a notification [`super::directions::Directions`] names
    /// as one) withdraws its request: no reply is due, and one that crosses
    /// it is fine. Else the request still needs its reply (LSP).
    pub withdraws: bool,
    /// Its rules of progress, if it has any.
    pub progress: Option<ProgressRules>,
}

impl Checking {
    /// JSON-RPC 2.0's: a client and a server, no words, schema, cancel or
    /// progress of its own.
    pub const PLAIN: Checking = Checking {
        lanes: ("client", "server"),
        control: false,
        ends: &[],
        shapes: None,
        withdraws: false,
        progress: None,
    };
}

impl Default for Checking {
    fn default() -> Self {
        Checking::PLAIN
    }
}
