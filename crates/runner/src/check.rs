//! `rpcspec check`: validate a captured NDJSON stream (a log, a transcript),
//! or one framed by `Content-Length` headers (the LSP base protocol).
//!
//! Every framing problem is a finding, and so is every line that is not
//! exactly one JSON text (`json.parse`); with a dialect, so is every message
//! rule and pairing problem. Pairing assumes the usual transcript: messages
//! with a `method` come from the client, responses from the server.
//!
//! The check streams: findings go to a sink as they are found, at most
//! [`Options::per_rule`] of each rule (the rest are counted), and the
//! session has a [window](rpcspec_matcher::Session::window), so memory does
//! not grow with the stream. A value pretty-printed over several lines is
//! one `framing.multi-line` finding, not one per line.

use std::collections::HashMap;
use std::io::{self, Read};
use std::time::Duration;

use rpcspec_framer::read::read_chunk;
use rpcspec_framer::syntax::{self, SyntaxError};
use rpcspec_framer::{BlankLines, Config, Event, Mode, ProblemKind};
use rpcspec_matcher::{Classified, Dialect, Direction, Kind, Rule, Session, classify, rules};
use serde::Serialize;

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
}

/// What to check, and how much to show.
#[derive(Debug, Clone)]
pub struct Options {
    /// Also check every message and the pairing, in this dialect.
    pub dialect: Option<Dialect>,
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
            dialect: None,
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
}

/// Checks everything `input` yields, passing findings to `sink` as they are
/// found. A read error, or an error from the sink (a closed stdout, say),
/// ends the check.
pub fn check(
    mut input: impl Read,
    opts: &Options,
    sink: impl FnMut(&Finding) -> io::Result<()>,
) -> io::Result<Summary> {
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
    let mut capture = Capture::new(framing.clone());
    let mut checker = Checker {
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
    };
    let mut chunk = vec![0u8; 64 * 1024];
    let mut bytes = 0;
    loop {
        let n = read_chunk(&mut input, &mut chunk)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        capture.push(&chunk[..n], Duration::ZERO, |a| checker.event(a.event));
        if let Some(e) = checker.failed.take() {
            return Err(e);
        }
    }
    capture.finish(Duration::ZERO, |a| checker.event(a.event));
    checker.end();
    if let Some(e) = checker.failed.take() {
        return Err(e);
    }
    let mut summary = checker.summary;
    summary.bytes = bytes;
    summary.by_rule = checker
        .order
        .iter()
        .map(|id| (id.to_string(), checker.counts[id]))
        .collect();
    Ok(summary)
}

/// A line held while it may be part of a pretty-printed value
/// (`gather.rs`), with its verdict as a line of its own.
struct Held {
    number: u64,
    offset: u64,
    alone: Result<(), SyntaxError>,
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
}

impl<F: FnMut(&Finding) -> io::Result<()>> Checker<'_, F> {
    fn event(&mut self, event: Event<'_>) {
        if self.failed.is_some() {
            return;
        }
        match event {
            Event::Line(line) => {
                self.summary.lines += 1;
                let text = line.as_str().expect("the framer checks UTF-8");
                if self.opts.framing_only {
                    self.feed(line.number, line.offset, text, None);
                } else if self.opts.content_length {
                    // A body is one message whatever its lines: judged alone.
                    let (classified, alone) = self.verdict(text);
                    self.judged(line.number, line.offset, text, alone, classified);
                } else {
                    self.line(line.number, line.offset, text);
                }
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
                if self.count(rule.id) {
                    let finding = Finding {
                        line: p.number,
                        offset: p.offset,
                        rule: RuleRef::from_rule(rule),
                        message: if self.opts.content_length {
                            p.display_as("message").to_string()
                        } else {
                            p.to_string()
                        },
                    };
                    self.emit(&finding);
                }
            }
        }
    }

    /// One line, judged as JSON (and held back if it may be part of a
    /// pretty-printed value).
    fn line(&mut self, number: u64, offset: u64, text: &str) {
        let (classified, alone) = self.verdict(text);
        let held = Held {
            number,
            offset,
            alone: alone.clone(),
        };
        let offered = self.gather.offer(held, text, alone.is_ok());
        self.judge_held(offered.released);
        match offered.this {
            This::Alone(_) => self.judged(number, offset, text, alone, classified),
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
    ) {
        if let Err(e) = &alone
            && self.count(rules::JSON_PARSE.id)
        {
            let finding = Finding {
                line: number,
                offset,
                rule: RuleRef::from_rule(&rules::JSON_PARSE),
                message: format!(
                    "{e} (byte {} of the {})",
                    e.offset(),
                    if self.opts.content_length {
                        "message"
                    } else {
                        "line"
                    }
                ),
            };
            self.emit(&finding);
        }
        self.feed(number, offset, text, classified);
    }

    /// Lines that are one value: one finding, and the value.
    fn joined(&mut self, lines: Vec<Held>, text: String) {
        self.summary.multi_line_values += 1;
        let (first, offset, last) = (
            lines[0].number,
            lines[0].offset,
            lines[lines.len() - 1].number,
        );
        if self.count("framing.multi-line") {
            let finding = Finding {
                line: first,
                offset,
                rule: RuleRef::from_rule(&crate::rules::FRAMING_MULTI_LINE),
                message: format!(
                    "lines {first}–{last} are one JSON value spread over {} lines (pretty-printed?); \
                     NDJSON needs each value on one line",
                    last - first + 1
                ),
            };
            self.emit(&finding);
        }
        self.feed(first, offset, &text, None);
    }

    /// Held lines that are not one value: each is judged alone.
    fn judge_held(&mut self, held: Vec<(Held, String)>) {
        for (h, text) in held {
            self.judged(h.number, h.offset, &text, h.alone, None);
        }
    }

    fn end(&mut self) {
        let held = self.gather.finish();
        self.judge_held(held);
        if let Some(session) = self.session.as_mut() {
            let findings = session.close();
            for f in findings {
                self.matcher_finding(0, 0, &f);
            }
        }
    }

    /// A line or value to the session, if there is one. Lines that are not
    /// JSON go too: an unparseable request awaits a -32700 reply. Their
    /// `json.parse` finding is already out.
    fn feed(&mut self, number: u64, offset: u64, text: &str, classified: Option<Classified>) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let classified = classified.unwrap_or_else(|| classify(text, session.dialect()));
        let from = match &classified.kind {
            Kind::Success { .. } | Kind::Error { .. } => Direction::ServerToClient,
            Kind::Batch(members)
                if members
                    .iter()
                    .all(|m| matches!(m, Kind::Success { .. } | Kind::Error { .. })) =>
            {
                Direction::ServerToClient
            }
            _ => Direction::ClientToServer,
        };
        let findings = session.feed_classified(from, classified).findings;
        for f in &findings {
            if f.rule.id == rules::JSON_PARSE.id && !self.opts.framing_only {
                continue;
            }
            self.matcher_finding(number, offset, f);
        }
    }

    fn matcher_finding(&mut self, line: u64, offset: u64, f: &rpcspec_matcher::Finding) {
        let rule: &'static Rule = f.rule;
        if !self.count(rule.id) {
            return;
        }
        let message = match f.member {
            Some(i) => format!("batch member {i}: {}", f.detail),
            None => f.detail.clone(),
        };
        let finding = Finding {
            line,
            offset,
            rule: RuleRef::from_rule(rule),
            message,
        };
        self.emit(&finding);
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
