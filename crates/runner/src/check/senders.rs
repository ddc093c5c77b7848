//! Who sent each message of an unmarked stream of both sides: read from
//! the dialect's method directions (its schema or meta-model says who
//! sends a method) and from pairing (a reply comes from the side its
//! request did not), not guessed from a message's shape. Sans-IO: a
//! function of the messages before it and the session's open requests.

use std::collections::{HashMap, VecDeque};

use rpcspec_matcher::{Direction, Id, Kind, Session};
use serde_json::Value;

use crate::dialects::{Directions, Sender};

/// How a message's sender was known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Known {
    /// From the dialect's table of who sends the method.
    Schema,
    /// From pairing: a reply, cancel or progress names a request of one
    /// side.
    Paired,
    /// From its shape alone (a method the table does not name, a reply
    /// to no open request): the old guess, a method the client's.
    Guessed,
    /// Either side could have sent it, and nothing said which: guessed,
    /// and the findings that depend on the guess are withheld.
    Ambiguous,
}

/// What [`Senders`] keeps between messages.
pub(super) struct Senders {
    directions: Option<&'static Directions>,
    /// Progress token (its JSON text) → the side that reports on it.
    tokens: HashMap<String, Direction>,
    order: VecDeque<String>,
    /// The method of each request lately fed, by the number of its message
    /// (in order, at most a window's worth), to tell which of two open
    /// requests with one id a reply answers. Methods are interned: no
    /// allocation a request.
    methods: VecDeque<(usize, u16)>,
    /// The interned methods' names, and their numbers (at most
    /// [`MAX_METHODS`] of at most [`MAX_METHOD_LEN`] bytes; beyond, a
    /// request's method is not kept, and a reply to it that both sides
    /// await stays ambiguous).
    names: Vec<Box<str>>,
    numbers: HashMap<Box<str>, u16>,
    window: usize,
}

/// The most method names [`Senders`] interns, and the longest method name
/// or progress token it keeps (a longer one is not kept): at most 1 MiB of
/// names, and a window's worth of short tokens, whatever the stream.
const MAX_METHODS: usize = 4096;
const MAX_METHOD_LEN: usize = 256;

impl Senders {
    /// Inference with `directions` (none: pairing and shape only),
    /// remembering at most `window` progress tokens.
    pub(super) fn new(directions: Option<&'static Directions>, window: usize) -> Senders {
        Senders {
            directions,
            tokens: HashMap::new(),
            order: VecDeque::new(),
            methods: VecDeque::new(),
            names: Vec::new(),
            numbers: HashMap::new(),
            window: window.max(1),
        }
    }

    /// The sender of message number `n` (the first fed is 1), of `kind`
    /// (`text`; `reply`: whether it is a reply, or a batch of replies),
    /// given the requests `session` still awaits replies to.
    pub(super) fn infer(
        &mut self,
        session: &Session,
        (n, kind, text): (usize, &Kind, &str),
        reply: bool,
    ) -> (Direction, Known) {
        let first = match kind {
            Kind::Batch(members) => members.first(),
            kind => Some(kind),
        };
        let (from, known) = match first {
            _ if reply => match first.and_then(Kind::id) {
                // A reply comes from the side its request was not sent from.
                Some(id) => match answered(session, id) {
                    Some((_, Known::Ambiguous)) => self.by_shape(session, id, text),
                    Some((to, known)) => (to.reverse(), known),
                    None => (Direction::ServerToClient, Known::Guessed),
                },
                None => (Direction::ServerToClient, Known::Guessed),
            },
            Some(Kind::Request { method, .. } | Kind::Notification { method }) => {
                self.by_method(session, method, text)
            }
            // A cancel withdraws a request of its own sender.
            Some(Kind::Cancel { id }) => {
                answered(session, id).unwrap_or((Direction::ClientToServer, Known::Guessed))
            }
            // Records are what a producer writes: an event stream's are
            // all its own, Claude's all but the user's turns.
            Some(Kind::Event { name }) if &**name != "user" => {
                (Direction::ServerToClient, Known::Guessed)
            }
            _ => (Direction::ClientToServer, Known::Guessed),
        };
        if let Some(Kind::Request { method, .. }) = first {
            self.take_tokens(from, method, text);
            self.remember_method(n, method);
        }
        (from, known)
    }

    /// The sender of a reply with `id` when both sides have a request with
    /// that id open: the side whose request's result it fits, if it fits
    /// only one.
    fn by_shape(&self, session: &Session, id: &Id, text: &str) -> (Direction, Known) {
        let ambiguous = (Direction::ServerToClient, Known::Ambiguous);
        let Some(fits) = self.directions.and_then(|t| t.reply_fits) else {
            return ambiguous;
        };
        let method = |to: Direction| {
            let n = session.awaiting(to, id)?;
            let at = self.methods.binary_search_by_key(&n, |&(m, _)| m).ok()?;
            self.names.get(usize::from(self.methods[at].1))
        };
        let (Some(client), Some(server)) = (
            method(Direction::ClientToServer),
            method(Direction::ServerToClient),
        ) else {
            return ambiguous;
        };
        let Ok(reply) = serde_json::from_str::<Value>(text) else {
            return ambiguous;
        };
        match (fits(client, &reply), fits(server, &reply)) {
            (true, false) => (Direction::ServerToClient, Known::Paired),
            (false, true) => (Direction::ClientToServer, Known::Paired),
            _ => ambiguous,
        }
    }

    /// The method of request message `n`; beyond the window, the oldest is
    /// let go.
    fn remember_method(&mut self, n: usize, method: &str) {
        if self.directions.is_none_or(|t| t.reply_fits.is_none()) {
            return;
        }
        let number = match self.numbers.get(method) {
            Some(&k) => k,
            None if self.names.len() < MAX_METHODS && method.len() <= MAX_METHOD_LEN => {
                let k = u16::try_from(self.names.len()).expect("at most MAX_METHODS");
                self.names.push(method.into());
                self.numbers.insert(method.into(), k);
                k
            }
            None => return,
        };
        self.methods.push_back((n, number));
        while self.methods.len() > self.window {
            self.methods.pop_front();
        }
    }

    /// The sender of a request or notification of `method`.
    fn by_method(&self, session: &Session, method: &str, text: &str) -> (Direction, Known) {
        let Some(table) = self.directions else {
            return (Direction::ClientToServer, Known::Guessed);
        };
        match table.sender(method) {
            Some(Sender::Client) => (Direction::ClientToServer, Known::Schema),
            Some(Sender::Server) => (Direction::ServerToClient, Known::Schema),
            Some(Sender::Either) => {
                let named = if table.cancelled_id(method).is_some() {
                    table
                        .cancelled(method, text)
                        .and_then(|id| answered(session, &id))
                        .filter(|(_, k)| *k == Known::Paired)
                } else if let Some(at) = table.progress_token(method) {
                    pointer(text, at)
                        .and_then(|token| self.tokens.get(&token))
                        .map(|&from| (from, Known::Paired))
                } else {
                    None
                };
                named.unwrap_or((Direction::ClientToServer, Known::Ambiguous))
            }
            None => (Direction::ClientToServer, Known::Guessed),
        }
    }

    /// A request sent `from` a side: the progress tokens it gives the
    /// other side, or makes for itself.
    fn take_tokens(&mut self, from: Direction, method: &str, text: &str) {
        let Some(table) = self.directions else {
            return;
        };
        // Most requests carry no token: no second parse for them.
        if !text.contains("oken") {
            return;
        }
        let given = table.tokens_given.iter().map(|&at| (at, from.reverse()));
        let made = table.token_made(method).map(|at| (at, from));
        for (at, reporter) in given.chain(made) {
            // A longer token is not kept: progress on it stays ambiguous.
            if let Some(token) = pointer(text, at).filter(|t| t.len() <= MAX_METHOD_LEN) {
                self.remember(token, reporter);
            }
        }
    }

    /// A token and its reporter; beyond the window, the oldest is let go.
    fn remember(&mut self, token: String, reporter: Direction) {
        if self.tokens.insert(token.clone(), reporter).is_none() {
            self.order.push_back(token);
        }
        while self.order.len() > self.window {
            if let Some(old) = self.order.pop_front() {
                self.tokens.remove(&old);
            }
        }
    }
}

/// The side whose open request has `id`: paired if only one side's has,
/// ambiguous (the client's guessed) if both sides' have.
fn answered(session: &Session, id: &Id) -> Option<(Direction, Known)> {
    let client = session.awaiting(Direction::ClientToServer, id).is_some();
    let server = session.awaiting(Direction::ServerToClient, id).is_some();
    match (client, server) {
        (true, false) => Some((Direction::ClientToServer, Known::Paired)),
        (false, true) => Some((Direction::ServerToClient, Known::Paired)),
        (true, true) => Some((Direction::ClientToServer, Known::Ambiguous)),
        (false, false) => None,
    }
}

/// The JSON text of the value at `at` in the message `text`, if it has one.
fn pointer(text: &str, at: &str) -> Option<String> {
    serde_json::from_str::<Value>(text)
        .ok()?
        .pointer(at)
        .map(Value::to_string)
}

#[cfg(test)]
mod tests {
    use rpcspec_matcher::{Dialect, classify};

    use super::*;

    /// Each message of `lines` fed in turn, with the sender inferred.
    fn senders(dialect: Dialect, table: &'static Directions, lines: &[&str]) -> Vec<(char, Known)> {
        let mut session = Session::new(dialect.clone());
        let mut senders = Senders::new(Some(table), 8);
        let mut out = Vec::new();
        for line in lines {
            let c = classify(line, &dialect);
            let reply = matches!(c.kind, Kind::Success { .. } | Kind::Error { .. });
            let n = out.len() + 1;
            let (from, known) = senders.infer(&session, (n, &c.kind, line), reply);
            let mut c = c;
            if let Some(id) = table
                .withdrawn(&c.kind, line)
                .filter(|_| dialect == Dialect::Mcp)
            {
                c.kind = Kind::Cancel { id };
            }
            session.feed_classified(from, c);
            let side = if from == Direction::ClientToServer {
                'c'
            } else {
                's'
            };
            out.push((side, known));
        }
        out
    }

    #[test]
    fn mcp_senders_come_from_the_schema_and_from_pairing() {
        use Known::*;
        let got = senders(
            Dialect::Mcp,
            crate::dialects::mcp::directions(),
            &[
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
                r#"{"jsonrpc":"2.0","id":0,"result":{}}"#,
                // The server's request reuses id 0: its own numbering.
                r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#,
                r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#,
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":"t"}}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"u","progress":1}}"#,
                r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
                r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
                r#"{"jsonrpc":"2.0","id":1,"method":"x/custom"}"#,
            ],
        );
        assert_eq!(
            got,
            [
                ('c', Schema),
                ('s', Paired),
                ('s', Schema),
                ('c', Paired),
                ('c', Schema),
                ('s', Paired),
                ('c', Paired),
                // A token nobody gave, a ping: either side's.
                ('c', Ambiguous),
                ('c', Ambiguous),
                ('s', Paired),
                ('c', Guessed),
            ]
        );
    }

    #[test]
    fn lsp_progress_on_a_token_the_server_made_is_the_servers() {
        use Known::*;
        let got = senders(
            Dialect::Jsonrpc2,
            crate::dialects::lsp::directions(),
            &[
                r#"{"jsonrpc":"2.0","id":1,"method":"window/workDoneProgress/create","params":{"token":"w"}}"#,
                r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
                r#"{"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{}}}"#,
                r#"{"jsonrpc":"2.0","id":2,"method":"textDocument/references","params":{"partialResultToken":7}}"#,
                r#"{"jsonrpc":"2.0","method":"$/progress","params":{"token":7,"value":[]}}"#,
                r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}"#,
            ],
        );
        assert_eq!(
            got,
            [
                ('s', Schema),
                ('c', Paired),
                ('s', Paired),
                ('c', Schema),
                ('s', Paired),
                ('c', Paired),
            ]
        );
    }
}
