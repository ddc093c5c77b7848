//! `rpcspec check`: validate a captured NDJSON stream (a log, a transcript),
//! or one framed by `Content-Length` headers (the LSP base protocol).
//!
//! Every framing problem is a finding, and so is every line that is not
//! exactly one JSON text (`json.parse`); with a dialect, so is every message
//! rule and pairing problem. Who sent each message ([`Sides`]): a transcript
//! marks each line `-->` (client to server) or `<--` (server to client), as
//! go-ethereum's `rpc/testdata` does; a stream of one side says so
//! (`--from client|server`), and its replies answer requests it does not
//! hold, so only its own requests are paired (and none is reported
//! unanswered); an unmarked stream of both sides is guessed at: a message
//! with a `method` is the client's, a reply the server's (wrong for servers
//! that make requests: mark the stream).
//!
//! The check streams: findings go to a sink as they are found, at most
//! [`Options::per_rule`] of each rule (the rest are counted), and the
//! session has a [window](rpcspec_matcher::Session::window), so memory does
//! not grow with the stream. A value pretty-printed over several lines is
//! one `framing.multi-line` finding, not one per line.

use std::collections::HashMap;
use std::io::{self, Read};
use std::time::Duration;

use rpcspec_framer::syntax::{self, SyntaxError};
use rpcspec_framer::{BlankLines, Config, Event, Mode, ProblemKind};
use rpcspec_matcher::{
    Classified, Dialect, Direction, Kind, Rule, Session, Shape, classify, rules,
};
use serde::Serialize;

mod ahead;
mod follow;
mod lane;
mod two;

use ahead::Ahead;
use follow::{Progress, cancel, mark};
use lane::{Lane, Slow};
pub use two::{PATIENCE, check_two};

use crate::{
    capture::{Capture, Framing},
    gather::{Gather, This},
    report::RuleRef,
};

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
    /// Of two streams checked together ([`check_two`]), the one the line
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
    /// The dialect is LSP's: every message is also checked against LSP's
    /// meta-model (rule `lsp.shape`), a reply by its request's method.
    pub lsp: bool,
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
            lsp: false,
            framing_only: false,
            seq: false,
            content_length: false,
            per_rule: Some(PER_RULE),
            window: WINDOW,
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
    /// How each message's sender was known: `marked`, `guessed`, `client`
    /// or `server` (the stream's one side).
    pub senders: &'static str,
}

/// Checks everything `input` yields, passing findings to `sink` as they are
/// found. A read error, or an error from the sink (a closed stdout, say),
/// ends the check.
pub fn check(
    input: impl Read + Send + 'static,
    opts: &Options,
    sink: impl FnMut(&Finding) -> io::Result<()>,
) -> io::Result<Summary> {
    check_by(input, opts, sink, true)
}

/// [`check`], with the fast lane where it applies (`lane`) or without.
fn check_by(
    input: impl Read + Send + 'static,
    opts: &Options,
    sink: impl FnMut(&Finding) -> io::Result<()>,
    lane: bool,
) -> io::Result<Summary> {
    let mut checker = Checker::new(opts, sink);
    let mut capture = Capture::new(checker.framing.clone());
    // Without a dialect, what the lines say needs only each line's
    // verdict: the fast lane.
    let mut lane = match capture.framing() {
        Framing::Ndjson(config) if lane && checker.session.is_none() && !opts.seq => {
            Some(Lane::new(config.clone(), !opts.framing_only))
        }
        _ => None,
    };
    let mut input = Ahead::new(input);
    let mut bytes = 0;
    loop {
        let chunk = input.next()?;
        if chunk.is_empty() {
            break;
        }
        match lane.as_mut() {
            Some(lane) => lane.push(&mut capture, &mut checker, chunk, bytes),
            None => capture.push(chunk, Duration::ZERO, |a| checker.event(a.event)),
        }
        bytes += chunk.len() as u64;
        if let Some(e) = checker.failed.take() {
            return Err(e);
        }
    }
    capture.finish(Duration::ZERO, |a| checker.event(a.event));
    checker.finish(bytes)
}

/// A line held while it may be part of a pretty-printed value
/// (`gather.rs`), with its verdict as a line of its own.
struct Held {
    number: u64,
    offset: u64,
    alone: Result<(), SyntaxError>,
    /// Its sender, if its mark said.
    from: Option<Direction>,
}

struct Checker<'o, F> {
    opts: &'o Options,
    framing: Framing,
    session: Option<Session>,
    gather: Gather<Held>,
    counts: HashMap<&'static str, u64>,
    order: Vec<&'static str>,
    summary: Summary,
    sink: F,
    failed: Option<io::Error>,
    /// Whether lines carry `-->`/`<--` marks: `None` until the first line
    /// says.
    marked: Option<bool>,
    /// Of two streams checked together: the one the event at hand is from.
    stream: Option<Direction>,
    /// Two streams are checked together.
    two: bool,
    /// Messages fed to the session.
    fed: usize,
    /// Where each message that may await a reply lately was, per side
    /// (the session's window is per side): (message, line, offset), at
    /// most twice the window's worth each, in message order, for placing
    /// what the session finds unanswered.
    requests_at: [std::collections::VecDeque<(usize, u64, u64)>; 2],
    /// MCP: each progress token's latest `progress`, and the tokens whose
    /// request was answered (at most a window's worth of each).
    progress: Progress,
    /// LSP: the method of each request lately sent, by (side, id), to check
    /// its reply by (at most a window's worth).
    methods: HashMap<(Direction, String), String>,
    methods_order: std::collections::VecDeque<(Direction, String)>,
}

impl<F: FnMut(&Finding) -> io::Result<()>> Slow for Checker<'_, F> {
    fn event(&mut self, event: Event<'_>) {
        Checker::event(self, event);
    }

    fn may_pass(&self) -> bool {
        self.marked == Some(false) && !self.gather.holding()
    }

    fn marked(&self) -> bool {
        self.marked == Some(true)
    }

    fn passed(&mut self, lines: u64) {
        self.summary.lines += lines;
    }
}

impl<'o, F: FnMut(&Finding) -> io::Result<()>> Checker<'o, F> {
    fn new(opts: &'o Options, sink: F) -> Self {
        let framing = if opts.content_length {
            Framing::content_length()
        } else {
            let config = Config::default().with_blank_lines(BlankLines::Report);
            Framing::Ndjson(if opts.seq {
                config.with_mode(Mode::JsonSeq)
            } else {
                config
            })
        };
        Checker {
            opts,
            framing,
            session: opts
                .dialect
                .clone()
                .map(|d| Session::new(d).window(opts.window)),
            gather: Gather::new(),
            counts: HashMap::new(),
            order: Vec::new(),
            summary: Summary::default(),
            sink,
            failed: None,
            marked: match opts.sides {
                Sides::Both if !opts.content_length && !opts.seq => None,
                _ => Some(false),
            },
            stream: None,
            two: false,
            fed: 0,
            requests_at: Default::default(),
            progress: Progress::default(),
            methods: HashMap::new(),
            methods_order: std::collections::VecDeque::new(),
        }
    }

    /// The stream has ended, `bytes` long: what is left, then the summary.
    fn finish(mut self, bytes: u64) -> io::Result<Summary> {
        self.end();
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let mut summary = self.summary;
        summary.bytes = bytes;
        summary.senders = match (self.opts.sides, self.marked) {
            _ if self.two => "streams",
            (Sides::Client, _) => "client",
            (Sides::Server, _) => "server",
            (Sides::Both, Some(true)) => "marked",
            (Sides::Both, _) => "guessed",
        };
        summary.by_rule = self
            .order
            .iter()
            .map(|id| (id.to_string(), self.counts[id]))
            .collect();
        Ok(summary)
    }

    fn event(&mut self, event: Event<'_>) {
        if self.failed.is_some() {
            return;
        }
        match event {
            Event::Line(line) => {
                self.summary.lines += 1;
                let text = line.as_str().expect("the framer checks UTF-8");
                if self.opts.framing_only {
                    self.feed(line.number, line.offset, text, None, None);
                } else if self.opts.content_length {
                    // A body is one message whatever its lines: judged alone.
                    let (classified, alone) = self.verdict(text);
                    let from = self.stream;
                    self.judged(line.number, line.offset, text, alone, classified, from);
                } else {
                    self.marked_line(line.number, line.offset, text);
                }
            }
            // A transcript's blank lines are its own layout.
            Event::Problem(p) if p.kind == ProblemKind::Blank && self.marked == Some(true) => {
                self.summary.lines += 1;
            }
            Event::Problem(p) => {
                if p.kind.replaces_record() {
                    self.summary.lines += 1;
                }
                if self.gather.holding() {
                    match p.kind {
                        // Whitespace inside the value: keep gathering.
                        ProblemKind::Blank => {}
                        // The last line of a pretty-printed file often lacks
                        // its newline: it may still close the value.
                        ProblemKind::Truncated => {
                            let held = Held {
                                number: p.number,
                                offset: p.offset,
                                alone: Ok(()),
                                from: self.stream,
                            };
                            let closed = match std::str::from_utf8(&p.bytes) {
                                Ok(tail) => self.gather.close(held, tail),
                                Err(_) => Err(self.gather.finish()),
                            };
                            match closed {
                                Ok((lines, text)) => self.joined(lines, text),
                                Err(held) => self.judge_held(held),
                            }
                        }
                        _ => {
                            let held = self.gather.finish();
                            self.judge_held(held);
                        }
                    }
                }
                let rule = self.framing.rule(p.kind);
                let content_length = self.opts.content_length;
                self.report(p.number, p.offset, rule, || {
                    if content_length {
                        p.display_as("message").to_string()
                    } else {
                        p.to_string()
                    }
                });
            }
        }
    }

    /// One line of a stream that may be a marked transcript: its mark (or
    /// comment) read, the rest judged.
    fn marked_line(&mut self, number: u64, offset: u64, text: &str) {
        if let Some(from) = self.stream {
            return self.line(number, offset, text, Some(from));
        }
        if self.marked.is_none() {
            let first = text.trim_start();
            self.marked = Some(mark(first).is_some() || first.starts_with("//"));
        }
        if self.marked != Some(true) {
            return self.line(number, offset, text, None);
        }
        let lead = text.len() - text.trim_start().len();
        let rest = &text[lead..];
        if rest.is_empty() || rest.starts_with("//") {
            return;
        }
        match mark(rest) {
            Some((from, len)) => {
                let at = lead + len;
                self.line(number, offset + at as u64, &text[at..], Some(from));
            }
            None => {
                self.report(number, offset, &crate::rules::TRANSCRIPT_MARK, || {
                    "the line has no `-->` (client to server) or `<--` (server to client) mark, \
                     as every message line of this transcript must; its sender is guessed"
                        .into()
                });
                self.line(number, offset, text, None);
            }
        }
    }

    /// One line, judged as JSON (and held back if it may be part of a
    /// pretty-printed value).
    fn line(&mut self, number: u64, offset: u64, text: &str, from: Option<Direction>) {
        let (classified, alone) = self.verdict(text);
        let held = Held {
            number,
            offset,
            alone: alone.clone(),
            from,
        };
        let offered = self.gather.offer(held, text, alone.is_ok());
        self.judge_held(offered.released);
        match offered.this {
            This::Alone(_) => self.judged(number, offset, text, alone, classified, from),
            This::Held => {}
            This::Joined(lines, text) => self.joined(lines, text),
        }
    }

    /// A text as a message, and whether it is one JSON text. With a
    /// dialect the matcher parses it anyway; the syntax checker runs only on
    /// what it rejects, for the exact reason (and because it has no depth
    /// limit).
    fn verdict(&self, text: &str) -> (Option<Classified>, Result<(), SyntaxError>) {
        let classified = self.session.as_ref().map(|s| classify(text, s.dialect()));
        let alone = match &classified {
            Some(c) if !c.breaks(rules::JSON_PARSE.id) => Ok(()),
            _ => syntax::check(text.as_bytes()),
        };
        (classified, alone)
    }

    /// A line whose JSON verdict is known.
    fn judged(
        &mut self,
        number: u64,
        offset: u64,
        text: &str,
        alone: Result<(), SyntaxError>,
        classified: Option<Classified>,
        from: Option<Direction>,
    ) {
        if let Err(e) = &alone {
            // A transcript line's message starts after its mark (a line of
            // one of two streams has none).
            let unit = if self.opts.content_length || (from.is_some() && self.stream.is_none()) {
                "message"
            } else {
                "line"
            };
            self.report(number, offset, &rules::JSON_PARSE, || {
                format!("{e} (byte {} of the {unit})", e.offset())
            });
        }
        self.feed(number, offset, text, classified, from);
    }

    /// Lines that are one value: one finding, and the value.
    fn joined(&mut self, lines: Vec<Held>, text: String) {
        self.summary.multi_line_values += 1;
        let (first, offset, last, from) = (
            lines[0].number,
            lines[0].offset,
            lines[lines.len() - 1].number,
            lines[0].from,
        );
        self.report(first, offset, &crate::rules::FRAMING_MULTI_LINE, || {
            format!(
                "lines {first}–{last} are one JSON value spread over {} lines (pretty-printed?); \
                 NDJSON needs each value on one line",
                last - first + 1
            )
        });
        self.feed(first, offset, &text, None, from);
    }

    /// Held lines that are not one value: each is judged alone.
    fn judge_held(&mut self, held: Vec<(Held, String)>) {
        for (h, text) in held {
            self.judged(h.number, h.offset, &text, h.alone, None, h.from);
        }
    }

    /// Lines held as a possible pretty-printed value are judged: their
    /// stream has ended.
    fn flush(&mut self) {
        let held = self.gather.finish();
        self.judge_held(held);
    }

    fn end(&mut self) {
        self.flush();
        let one_sided = self.opts.sides != Sides::Both;
        if let Some(session) = self.session.as_mut() {
            let findings = session.close();
            for f in findings {
                // A stream of one side holds none of the replies its
                // requests got.
                if one_sided && f.rule.id == rules::SESSION_UNANSWERED.id {
                    continue;
                }
                let (from, line, offset) = self.place(f.message).unwrap_or((None, 0, 0));
                if self.two {
                    self.stream = from;
                }
                self.matcher_finding(line, offset, &f);
            }
        }
    }

    /// The sender, line and offset of message `n` fed to the session, if
    /// it is one still remembered.
    fn place(&self, n: Option<usize>) -> Option<(Option<Direction>, u64, u64)> {
        let n = n?;
        let from = [Direction::ClientToServer, Direction::ServerToClient];
        self.requests_at.iter().zip(from).find_map(|(side, from)| {
            let at = side.partition_point(|(m, ..)| *m < n);
            side.get(at)
                .filter(|(m, ..)| *m == n)
                .map(|&(_, line, offset)| (Some(from), line, offset))
        })
    }

    /// A line or value to the session, if there is one. Lines that are not
    /// JSON go too: an unparseable request awaits a -32700 reply. Their
    /// `json.parse` finding is already out. `from`: its sender, if a mark
    /// said.
    fn feed(
        &mut self,
        number: u64,
        offset: u64,
        text: &str,
        classified: Option<Classified>,
        from: Option<Direction>,
    ) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let mut classified = classified.unwrap_or_else(|| classify(text, session.dialect()));
        // A reply, even a malformed one (`result` and `error` both, say).
        let is_reply = |k: &Kind| {
            matches!(
                k,
                Kind::Success { .. }
                    | Kind::Error { .. }
                    | Kind::Invalid {
                        shape: Shape::Response,
                        ..
                    }
            )
        };
        let reply = match &classified.kind {
            Kind::Batch(members) => members.iter().all(is_reply),
            kind => is_reply(kind),
        };
        let guessed = if reply {
            Direction::ServerToClient
        } else {
            Direction::ClientToServer
        };
        let from = match self.opts.sides {
            Sides::Client => Direction::ClientToServer,
            Sides::Server => Direction::ServerToClient,
            Sides::Both => from.unwrap_or(guessed),
        };
        self.summary.messages += 1;
        if reply {
            self.summary.replies += 1;
        } else if matches!(classified.kind, Kind::Request { .. }) {
            self.summary.requests += 1;
        }
        let mcp = *session.dialect() == Dialect::Mcp;
        if mcp {
            cancel(text, &mut classified);
            let found = self
                .progress
                .message(from, &classified.kind, text, self.opts.window);
            for (rule, message) in found {
                self.report(number, offset, rule, || message);
            }
        }
        if self.opts.lsp {
            self.shapes(number, offset, text, from, &classified.kind);
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let findings = if reply && self.opts.sides != Sides::Both {
            // The request it answers is the other side's, not in the
            // stream: the reply is checked as a message, not paired.
            classified.findings
        } else {
            self.fed += 1;
            if !reply {
                // Requests, batches, invalid messages: what may await one.
                let side = &mut self.requests_at[usize::from(from == Direction::ServerToClient)];
                side.push_back((self.fed, number, offset));
                if side.len() > self.opts.window.saturating_mul(2) {
                    side.pop_front();
                }
            }
            let findings = session.feed_classified(from, classified).findings;
            let unpaired = [
                rules::SESSION_UNKNOWN_ID.id,
                rules::SESSION_DUPLICATE_REPLY.id,
                rules::SESSION_REPLY_TO_NOTIFICATION.id,
            ];
            if reply && !findings.iter().any(|f| unpaired.contains(&f.rule.id)) {
                self.summary.paired += 1;
            }
            findings
        };
        let one_sided = self.opts.sides != Sides::Both;
        for f in &findings {
            if f.rule.id == rules::JSON_PARSE.id && !self.opts.framing_only {
                continue;
            }
            // A stream of one side holds none of the replies its requests
            // got: nor is one that falls out of the window unanswered.
            if one_sided && f.rule.id == rules::SESSION_UNANSWERED.id {
                continue;
            }
            // MCP: "Senders of the cancellation notification SHOULD ignore
            // any response to the request that arrives afterward": the
            // race is allowed.
            if mcp && f.rule.id == rules::CLAUDE_REPLY_AFTER_CANCEL.id {
                continue;
            }
            self.matcher_finding(number, offset, f);
        }
    }

    /// LSP: a message against the meta-model; a request's method kept for
    /// its reply.
    fn shapes(&mut self, number: u64, offset: u64, text: &str, from: Direction, kind: &Kind) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return;
        };
        let model = crate::lsp::model::model();
        let found = match kind {
            Kind::Request { id, method } => {
                let key = (from, id.raw().to_owned());
                if self
                    .methods
                    .insert(key.clone(), method.to_string())
                    .is_none()
                {
                    self.methods_order.push_back(key);
                }
                while self.methods_order.len() > self.opts.window {
                    if let Some(old) = self.methods_order.pop_front() {
                        self.methods.remove(&old);
                    }
                }
                model.call(&value)
            }
            Kind::Notification { .. } => model.call(&value),
            Kind::Success { id } => {
                match self.methods.remove(&(from.reverse(), id.raw().to_owned())) {
                    Some(method) => model.reply(&method, &value),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        for e in found {
            self.report(number, offset, &crate::lsp::LSP_SHAPE, || {
                format!("against LSP's meta-model: {e}")
            });
        }
    }

    fn matcher_finding(&mut self, line: u64, offset: u64, f: &rpcspec_matcher::Finding) {
        self.report(line, offset, f.rule, || match f.member {
            Some(i) => format!("batch member {i}: {}", f.detail),
            None => f.detail.clone(),
        });
    }

    /// One finding of `rule` at `line`: counted, and passed to the sink
    /// (its message made) if the rule's cap allows.
    fn report(
        &mut self,
        line: u64,
        offset: u64,
        rule: &'static Rule,
        message: impl FnOnce() -> String,
    ) {
        if self.count(rule.id) {
            let finding = Finding {
                line,
                offset,
                rule: RuleRef::from_rule(rule),
                message: message(),
                stream: self.stream.map(|from| match from {
                    Direction::ClientToServer => "client",
                    Direction::ServerToClient => "server",
                }),
            };
            self.emit(&finding);
        }
    }

    /// Counts one finding of rule `id`; whether it is to be shown.
    fn count(&mut self, id: &'static str) -> bool {
        self.summary.findings += 1;
        let n = self.counts.entry(id).or_insert(0);
        if *n == 0 {
            self.order.push(id);
        }
        *n += 1;
        let shown = self.opts.per_rule.is_none_or(|max| *n <= max);
        if !shown {
            self.summary.not_shown += 1;
        }
        shown
    }

    fn emit(&mut self, finding: &Finding) {
        if self.failed.is_none()
            && let Err(e) = (self.sink)(finding)
        {
            self.failed = Some(e);
        }
    }
}
