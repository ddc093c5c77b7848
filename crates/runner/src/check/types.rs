//! What a check is asked ([`Options`], [`Sides`]) and what it gives
//! ([`Finding`], [`Summary`]).

use rpcspec_matcher::Dialect;
use serde::Serialize;

use crate::{
    dialects::{Checking, Descriptor, Directions},
    report::RuleRef,
};

pub use super::notes::{HELD, Note, Pairing, Text};

/// What a check gives out as it goes.
#[derive(Debug, Clone, Copy)]
pub enum Out<'a> {
    /// A finding.
    Finding(&'a Finding),
    /// With [`Options::annotate`]: a message and its pairing, its findings
    /// in it.
    Note(&'a Note),
}

/// One thing wrong in the stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// 1-based line (0 for findings about the whole stream).
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The rule broken.
    pub rule: RuleRef,
    /// What exactly.
    pub message: String,
    /// Of two streams checked together ([`check_two`](super::check_two)), the one the line
    /// is in: `client` or `server`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<&'static str>,
}

/// Whose messages a stream holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sides {
    /// Both sides': each line marked `-->` (client to server) or `<--`
    /// (server to client), `//` lines being comments; or, if the stream's
    /// first line is not so marked, each message's sender guessed from its
    /// shape.
    #[default]
    Both,
    /// The client's only: its requests and notifications, and its replies
    /// to the server's requests.
    Client,
    /// The server's only (its stdout).
    Server,
}

/// What to check, and how much to show.
#[derive(Debug, Clone)]
pub struct Options {
    /// Whose messages the stream holds.
    pub sides: Sides,
    /// Also check every message and the pairing, in this dialect.
    pub dialect: Option<Dialect>,
    /// Who sends each method of the dialect (its descriptor's): the
    /// senders of an unmarked stream of both sides are read from it.
    pub directions: Option<&'static Directions>,
    /// What the dialect's check does beyond pairing (its descriptor's):
    /// its schema, its cancels and progress, its words and lanes.
    pub checking: Checking,
    /// Check framing only: not whether each line is JSON.
    pub framing_only: bool,
    /// Records are RFC 7464 `application/json-seq` (RS-delimited).
    pub seq: bool,
    /// Messages are framed by `Content-Length` headers (the LSP base
    /// protocol), not lines: each body is judged as one JSON text.
    pub content_length: bool,
    /// At most this many findings of one rule go to the sink; the rest are
    /// counted. `None`: all of them.
    pub per_rule: Option<u64>,
    /// The pairing window: how many requests of each side are remembered.
    pub window: usize,
    /// Give out a [`Note`] for every message (needs a dialect), each
    /// finding in the note of its line.
    pub annotate: bool,
    /// Each note keeps its message's text (the sequence diagram's).
    pub texts: bool,
}

impl Options {
    /// A check in the dialect `d`: its matcher dialect, who sends each of
    /// its methods, and what its check does beyond pairing; the rest as
    /// [`Options::default`].
    pub fn in_dialect(d: &'static Descriptor) -> Options {
        Options {
            dialect: d.matcher.map(|m| m()),
            directions: d.directions.map(|table| table()),
            checking: d.check,
            ..Options::default()
        }
    }
}

/// Default of [`Options::per_rule`].
pub const PER_RULE: u64 = 100;
/// Default of [`Options::window`].
pub const WINDOW: usize = 50_000;

impl Default for Options {
    fn default() -> Self {
        Options {
            sides: Sides::Both,
            dialect: None,
            directions: None,
            checking: Checking::PLAIN,
            framing_only: false,
            seq: false,
            content_length: false,
            per_rule: Some(PER_RULE),
            window: WINDOW,
            annotate: false,
            texts: false,
        }
    }
}

/// What the whole stream held.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Bytes read.
    pub bytes: u64,
    /// Lines (records) framed, problems included.
    pub lines: u64,
    /// Every finding, shown or not.
    pub findings: u64,
    /// Findings not passed to the sink because of [`Options::per_rule`].
    pub not_shown: u64,
    /// Findings per rule id, in the order each rule was first broken.
    pub by_rule: Vec<(String, u64)>,
    /// Values that were spread over several lines (pretty-printed JSON).
    pub multi_line_values: u64,
    /// With a dialect: the messages read.
    pub messages: u64,
    /// Of them, requests.
    pub requests: u64,
    /// Of them, replies.
    pub replies: u64,
    /// Replies that answered a request of the stream.
    pub paired: u64,
    /// How each message's sender was known: `marked`, `inferred` (from
    /// the dialect's method directions and pairing, every one),
    /// `ambiguous` (so, but for messages either side may send), `guessed`
    /// (some from their shape), `client` or `server` (the stream's one
    /// side, or an event stream's producer).
    pub senders: &'static str,
    /// Of an unmarked stream: messages whose sender was guessed from their
    /// shape alone.
    #[serde(skip_serializing_if = "is_zero")]
    pub guessed: u64,
    /// Of an unmarked stream: messages either side could have sent, with
    /// nothing to tell which.
    #[serde(skip_serializing_if = "is_zero")]
    pub ambiguous: u64,
    /// Findings of pairing about those messages, not reported: they hang
    /// on a guess.
    #[serde(skip_serializing_if = "is_zero")]
    pub withheld: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
