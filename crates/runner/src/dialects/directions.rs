//! Who sends each method of a dialect, as its own schema or meta-model
//! says (MCP's `ClientRequest`/`ServerRequest` unions, LSP's
//! `messageDirection`), and how a method either side sends names the side:
//! a cancel names a request of its own sender, a progress notification a
//! token its receiver handed out. Data, read by `check`.

use std::collections::HashMap;

use rpcspec_matcher::{Id, Kind};

/// Who may send a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sender {
    /// The client only.
    Client,
    /// The server only.
    Server,
    /// Either side.
    Either,
}

/// A dialect's methods and their senders.
#[derive(Debug, Default)]
pub struct Directions {
    /// Where the table comes from, for the notes: `MCP schema.json
    /// (2025-06-18, 2025-11-25, 2026-07-28)`.
    pub source: &'static str,
    methods: HashMap<String, Sender>,
    /// Prefixes of the names of methods either side may send that the
    /// table cannot list: ACP's extension methods (`_…`).
    pub open_prefixes: &'static [&'static str],
    /// A notification that withdraws a request of its sender: (method,
    /// JSON Pointer to the request's id).
    pub cancels: &'static [(&'static str, &'static str)],
    /// A notification of progress on a token: (method, JSON Pointer to
    /// the token). It is sent by the side the token was given to.
    pub progress: &'static [(&'static str, &'static str)],
    /// Where a request hands the other side a token to report progress on
    /// (JSON Pointers): `/params/_meta/progressToken`.
    pub tokens_given: &'static [&'static str],
    /// A request that makes a token its own sender reports progress on:
    /// (method, JSON Pointer to the token).
    pub tokens_made: &'static [(&'static str, &'static str)],
    /// Whether a reply (the whole message) has the shape of a reply to a
    /// request of the method: which of two open requests with one id a
    /// reply answers, where each side has one.
    pub reply_fits: Option<fn(method: &str, reply: &serde_json::Value) -> bool>,
}

impl Directions {
    /// A table read from `source`, empty of methods.
    pub fn new(source: &'static str) -> Directions {
        Directions {
            source,
            ..Directions::default()
        }
    }

    /// `method` is sent by `sender`; a method also named with the other
    /// side's sender becomes [`Sender::Either`].
    pub fn add(&mut self, method: &str, sender: Sender) {
        self.methods
            .entry(method.to_owned())
            .and_modify(|s| {
                if *s != sender {
                    *s = Sender::Either;
                }
            })
            .or_insert(sender);
    }

    /// Who sends `method`, if the table names it.
    pub fn sender(&self, method: &str) -> Option<Sender> {
        self.methods.get(method).copied().or_else(|| {
            let open = self.open_prefixes.iter().any(|p| method.starts_with(p));
            open.then_some(Sender::Either)
        })
    }

    /// How many methods the table names.
    pub fn len(&self) -> usize {
        self.methods.len()
    }

    /// Whether the table names no method.
    pub fn is_empty(&self) -> bool {
        self.methods.is_empty()
    }

    /// The id of the request a message of `kind` cancels, if it is a
    /// notification the table names a cancel (MCP's
    /// `notifications/cancelled` and its `params.requestId`).
    pub fn withdrawn(&self, kind: &Kind, text: &str) -> Option<Id> {
        let Kind::Notification { method } = kind else {
            return None;
        };
        self.cancelled(method, text)
    }

    /// The id a message of `method` (`text`) names as the request it
    /// cancels, if `method` is a cancel and the id is there and readable.
    pub fn cancelled(&self, method: &str, text: &str) -> Option<Id> {
        let at = self.cancelled_id(method)?;
        let raw = serde_json::from_str::<serde_json::Value>(text)
            .ok()?
            .pointer(at)?
            .to_string();
        Id::parse(&raw)
    }

    /// The pointer to the id a cancel of `method` withdraws, if it is one.
    pub fn cancelled_id(&self, method: &str) -> Option<&'static str> {
        lookup(self.cancels, method)
    }

    /// The pointer to the token a progress notification of `method`
    /// reports on, if it is one.
    pub fn progress_token(&self, method: &str) -> Option<&'static str> {
        lookup(self.progress, method)
    }

    /// The pointer to the token a request of `method` makes for its own
    /// sender, if it makes one.
    pub fn token_made(&self, method: &str) -> Option<&'static str> {
        lookup(self.tokens_made, method)
    }
}

fn lookup(table: &[(&'static str, &'static str)], method: &str) -> Option<&'static str> {
    table.iter().find(|(m, _)| *m == method).map(|(_, p)| *p)
}
