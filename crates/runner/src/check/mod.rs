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
//! unanswered); in an unmarked stream of both sides each sender is read
//! from the dialect's method directions (who sends a method, as its schema
//! says) and from pairing (a reply comes from the side its request did
//! not), and guessed only where neither tells (`senders.rs`): a finding
//! that depends on a sender either side could be is withheld, and counted.
//!
//! The check streams: findings go to a sink as they are found, at most
//! [`Options::per_rule`] of each rule (the rest are counted), and the
//! session has a [window](rpcspec_matcher::Session::window), so memory does
//! not grow with the stream. A value pretty-printed over several lines is
//! one `framing.multi-line` finding, not one per line.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read};
use std::time::Duration;

use rpcspec_framer::syntax::{self, SyntaxError};
use rpcspec_framer::{BlankLines, Config, Event, Mode, ProblemKind};
use rpcspec_matcher::{
    Classified, Direction, Kind, Rule, Session, Shape, classify, classify_checked, rules,
};

mod ahead;
pub mod diagram;
mod follow;
mod lane;
mod notes;
mod senders;
mod two;
mod types;

use ahead::Ahead;
pub use diagram::Diagram;
use follow::{Progress, Shaped, mark};
use lane::{Lane, Slow};
use notes::Notes;
use senders::{Known, Senders};
pub use two::{PATIENCE, check_two};
pub use types::{
    Finding, HELD, Note, Options, Out, PER_RULE, Pairing, Sides, Summary, Text, WINDOW,
};

use crate::{
    capture::{Capture, Framing},
    gather::{Gather, This},
    report::RuleRef,
};

/// Checks everything `input` yields, passing findings to `sink` as they are
/// found. A read error, or an error from the sink (a closed stdout, say),
/// ends the check.
pub fn check(
    input: impl Read + Send + 'static,
    opts: &Options,
    sink: impl FnMut(Out<'_>) -> io::Result<()>,
) -> io::Result<Summary> {
    check_by(input, opts, sink, true)
}

/// [`check`], with the fast lane where it applies (`lane`) or without.
fn check_by(
    input: impl Read + Send + 'static,
    opts: &Options,
    sink: impl FnMut(Out<'_>) -> io::Result<()>,
    lane: bool,
) -> io::Result<Summary> {
    let mut checker = Checker::new(opts, sink);
    let mut capture = Capture::new(checker.framing.clone());
    // The fast lane: without a dialect what the lines say needs only each
    // line's verdict; with one, each plain line is classified as it is
    // sorted. Framing alone with a dialect still feeds every line as text.
    let dialect = checker.session.as_ref().map(|s| s.dialect().clone());
    let mut lane = match capture.framing() {
        Framing::Ndjson(config)
            if lane && !opts.seq && !(opts.framing_only && dialect.is_some()) =>
        {
            Some(Lane::new(config.clone(), !opts.framing_only, dialect))
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
    /// With [`Options::annotate`]: the notes held until their pairing is
    /// known.
    notes: Option<Notes>,
    /// Messages fed to the session.
    fed: usize,
    /// Where each message that may await a reply lately was, per side
    /// (the session's window is per side): (message, line, offset), at
    /// most twice the window's worth each, in message order, for placing
    /// what the session finds unanswered.
    requests_at: [VecDeque<(usize, u64, u64)>; 2],
    /// Where the dialect has progress rules: each token's latest progress,
    /// and the tokens whose request was answered (at most a window's worth
    /// of each).
    progress: Progress,
    /// With a schema: the method of each request lately sent, to check its
    /// reply by.
    shaped: Shaped,
    /// Who sent each message of an unmarked stream.
    senders: Senders,
}

impl<F: FnMut(Out<'_>) -> io::Result<()>> Slow for Checker<'_, F> {
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

    fn plain(&mut self, number: u64, offset: u64, text: &str, classified: Classified) {
        if self.failed.is_some() {
            return;
        }
        // As `event` takes a line of an unmarked stream that is one JSON
        // value, with nothing held: judged alone.
        self.summary.lines += 1;
        self.judged(number, offset, text, Ok(()), Some(classified), None);
        self.give_notes(false);
    }
}

impl<'o, F: FnMut(Out<'_>) -> io::Result<()>> Checker<'o, F> {
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
            // Framing alone reads no marks.
            marked: match opts.sides {
                Sides::Both if !opts.content_length && !opts.seq && !opts.framing_only => None,
                _ => Some(false),
            },
            stream: None,
            two: false,
            notes: opts
                .dialect
                .as_ref()
                .filter(|_| opts.annotate)
                .map(|_| Notes::new(&opts.checking, opts.texts)),
            fed: 0,
            requests_at: Default::default(),
            progress: Progress::default(),
            shaped: Shaped::default(),
            senders: Senders::new(opts.directions, opts.window),
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
            // An event stream is its producer's, every record.
            _ if self.opts.dialect.as_ref().is_some_and(|d| !d.pairs()) => "server",
            (Sides::Both, _) if summary.guessed > 0 || summary.messages == 0 => "guessed",
            (Sides::Both, _) if summary.ambiguous > 0 => "ambiguous",
            (Sides::Both, _) => "inferred",
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
        self.give_notes(false);
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

    /// A text as a message, and whether it is one JSON text. The framer's
    /// validator says (it has no depth limit); with a dialect the matcher
    /// then reads what it accepted without validating it again, and parses
    /// what it rejected with serde_json (whose reading may differ).
    fn verdict(&self, text: &str) -> (Option<Classified>, Result<(), SyntaxError>) {
        let alone = if syntax::is_one_value(text.as_bytes()) {
            Ok(())
        } else {
            syntax::check(text.as_bytes())
        };
        let classified = self.session.as_ref().map(|s| match alone {
            Ok(()) => classify_checked(text, s.dialect()),
            Err(_) => classify(text, s.dialect()),
        });
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
        self.give_notes(true);
    }

    /// The sender, line and offset of message `n` fed to the session, if
    /// it is one still remembered.
    fn place(&self, n: Option<usize>) -> Option<(Option<Direction>, u64, u64)> {
        place(&self.requests_at, n?)
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
        let checking = self.opts.checking;
        let (from, known) = self.sender(from, &classified.kind, text, reply);
        self.summary.messages += 1;
        if reply {
            self.summary.replies += 1;
        } else if matches!(classified.kind, Kind::Request { .. }) {
            self.summary.requests += 1;
        }
        self.dialects_own((number, offset, text), from, &mut classified.kind);
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let (classified, fed) = if reply && self.opts.sides != Sides::Both {
            // The request it answers is the other side's, not in the
            // stream: the reply is checked as a message, not paired.
            (classified, false)
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
            let own = classified.findings.len();
            let mut classified = session.feed_classified(from, classified);
            // What pairing found hangs on a sender either side could be.
            if known == Some(Known::Ambiguous) && classified.findings.len() > own {
                let withheld = classified.findings.split_off(own);
                self.summary.withheld += withheld.len() as u64;
            }
            let unpaired = [
                rules::SESSION_UNKNOWN_ID.id,
                rules::SESSION_DUPLICATE_REPLY.id,
                rules::SESSION_REPLY_TO_NOTIFICATION.id,
            ];
            let findings = &classified.findings;
            if reply && !findings.iter().any(|f| unpaired.contains(&f.rule.id)) {
                self.summary.paired += 1;
            }
            (classified, true)
        };
        self.annotate((number, offset, text), from, &classified, fed);
        let findings = classified.findings;
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
            // Where a cancel withdraws its request (MCP: "Senders of the
            // cancellation notification SHOULD ignore any response to the
            // request that arrives afterward"), the race is allowed.
            if checking.withdraws && f.rule.id == rules::CLAUDE_REPLY_AFTER_CANCEL.id {
                continue;
            }
            self.matcher_finding(number, offset, f);
        }
        self.give_notes(false);
    }

    /// Who sent a message (`from`: as its mark says, if it has one), and,
    /// if it was inferred, how that was known.
    fn sender(
        &mut self,
        from: Option<Direction>,
        kind: &Kind,
        text: &str,
        reply: bool,
    ) -> (Direction, Option<Known>) {
        let (from, known) = match (self.opts.sides, from, self.session.as_ref()) {
            (Sides::Client, ..) => (Direction::ClientToServer, None),
            (Sides::Server, ..) => (Direction::ServerToClient, None),
            (Sides::Both, Some(from), _) => (from, None),
            (Sides::Both, None, Some(session)) => {
                let n = self.fed + 1;
                let (from, known) = self.senders.infer(session, (n, kind, text), reply);
                (from, Some(known))
            }
            (Sides::Both, None, None) => (Direction::ClientToServer, Some(Known::Guessed)),
        };
        match known {
            Some(Known::Guessed) => self.summary.guessed += 1,
            Some(Known::Ambiguous) => self.summary.ambiguous += 1,
            _ => {}
        }
        (from, known)
    }

    /// With notes: the note of a message, `fed` to the session or not.
    fn annotate(
        &mut self,
        at: (u64, u64, &str),
        from: Direction,
        classified: &Classified,
        fed: bool,
    ) {
        let (Some(notes), Some(session)) = (self.notes.as_mut(), self.session.as_ref()) else {
            return;
        };
        let settled = if fed { session.settled() } else { &[] };
        let requests_at = &self.requests_at;
        let line_of = |m| place(requests_at, m).map(|p| p.1);
        let stream = self.stream.map(side_name);
        let pairs = session.dialect().pairs();
        let one_sided = self.opts.sides != Sides::Both;
        let n = self.fed;
        notes.message(
            stream,
            at,
            from,
            classified,
            n,
            settled,
            &line_of,
            (pairs, one_sided),
        );
    }

    /// What the dialect's check does with a message sent `from` a side
    /// (`Checking`): a cancel that withdraws its request becomes one
    /// (`kind`), progress is held to its rules, the message to its schema.
    fn dialects_own(
        &mut self,
        (number, offset, text): (u64, u64, &str),
        from: Direction,
        kind: &mut Kind,
    ) {
        let checking = self.opts.checking;
        let window = self.opts.window;
        let mut found: Vec<(&'static Rule, String)> = Vec::new();
        if let Some(directions) = self.opts.directions {
            if checking.withdraws
                && let Some(id) = directions.withdrawn(kind, text)
            {
                *kind = Kind::Cancel { id };
            }
            if let Some(rules) = checking.progress {
                let progress = (directions, &rules);
                found.extend(self.progress.message(progress, from, kind, text, window));
            }
        }
        if let Some((rule, shapes)) = checking.shapes {
            let problems = self.shaped.message(shapes, from, kind, text, window);
            found.extend(problems.into_iter().map(|p| (rule, p)));
        }
        for (rule, message) in found {
            self.report(number, offset, rule, || message);
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
                stream: self.stream.map(side_name),
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
        if let Some(notes) = self.notes.as_mut()
            && finding.line > 0
        {
            // While lines are held as a possible value over several, what
            // is found among them goes in the note of its first line.
            let (line, offset) = match self.gather.first() {
                Some(h) => (h.number, h.offset),
                None => (finding.line, finding.offset),
            };
            if let Some(note) = notes.at(finding.stream, line, offset) {
                return note.findings.push(finding.clone());
            }
        }
        self.give(Out::Finding(finding));
    }

    fn give(&mut self, out: Out<'_>) {
        if self.failed.is_none()
            && let Err(e) = (self.sink)(out)
        {
            self.failed = Some(e);
        }
    }

    /// The notes whose pairing is known (`all`: every one), given out.
    fn give_notes(&mut self, all: bool) {
        // Held lines may yet be one message: its note is not complete.
        if self.gather.holding() && !all {
            return;
        }
        while let Some(note) = self.notes.as_mut().and_then(|n| n.ready(all)) {
            self.give(Out::Note(&note));
        }
    }
}

/// `client` or `server`: the side a message is from.
fn side_name(from: Direction) -> &'static str {
    match from {
        Direction::ClientToServer => "client",
        Direction::ServerToClient => "server",
    }
}

/// Where message `n` fed to the session was, if it is one still
/// remembered in `requests_at`: its sender, line and offset.
fn place(
    requests_at: &[VecDeque<(usize, u64, u64)>; 2],
    n: usize,
) -> Option<(Option<Direction>, u64, u64)> {
    let from = [Direction::ClientToServer, Direction::ServerToClient];
    requests_at.iter().zip(from).find_map(|(side, from)| {
        let at = side.partition_point(|(m, ..)| *m < n);
        side.get(at)
            .filter(|(m, ..)| *m == n)
            .map(|&(_, line, offset)| (Some(from), line, offset))
    })
}
