//! A target's output as it arrives: cut into messages by its [`Framing`],
//! each stamped with when it arrived, and kept for the report under caps
//! the role passes ([`Kept`]). Every role reads its targets through this
//! one module; the roles differ only in what they make of each
//! [`Arrival`], never in how bytes become messages. A role names a
//! framing, never a framer: the next framing (Content-Length headers, for
//! language servers) is a variant here, not a change in five readers.
//!
//! Sans-IO: the caller hands in the bytes and the time they arrived.

use std::time::Duration;

use rpcspec_framer::{Config, Event, Framer, HeaderConfig, HeaderFramer, ProblemKind};
use rpcspec_matcher::Rule;

use crate::{
    report::{Bytes, Received, Unit},
    rules,
};

/// How a byte stream is cut into messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Framing {
    /// One JSON value per `\n`-terminated UTF-8 line, under the framer's
    /// policies (blank lines, byte order marks, the line cap, JSON text
    /// sequences).
    Ndjson(Config),
    /// `Content-Length: N\r\n\r\n` headers, each followed by a body of N
    /// bytes: the LSP base protocol, which language servers speak.
    ContentLength(HeaderConfig),
}

impl Framing {
    /// The framings' names, as `--framing` takes them.
    pub const NAMES: [&str; 2] = ["ndjson", "content-length"];

    /// NDJSON under the framer's default policies.
    pub fn ndjson() -> Framing {
        Framing::Ndjson(Config::default())
    }

    /// Content-Length framing under the framer's default bounds.
    pub fn content_length() -> Framing {
        Framing::ContentLength(HeaderConfig::default())
    }

    /// The framing named `name` (one of [`Framing::NAMES`]), with its
    /// defaults.
    pub fn named(name: &str) -> Option<Framing> {
        match name {
            "ndjson" => Some(Framing::ndjson()),
            "content-length" => Some(Framing::content_length()),
            _ => None,
        }
    }

    /// The framing's name, as reports and `--help` say it.
    pub fn name(&self) -> &'static str {
        match self {
            Framing::Ndjson(_) => "ndjson",
            Framing::ContentLength(_) => "content-length",
        }
    }

    /// What one of its records is called: a `line` in NDJSON, a `message`
    /// in Content-Length framing.
    pub fn noun(&self) -> &'static str {
        match self {
            Framing::Ndjson(_) => "line",
            Framing::ContentLength(_) => "message",
        }
    }

    /// The rule of the registry a problem in this framing breaks.
    pub fn rule(&self, kind: ProblemKind) -> &'static Rule {
        match self {
            Framing::Ndjson(_) => rules::framing(kind),
            Framing::ContentLength(_) => rules::content_length(kind),
        }
    }

    /// The bytes that carry one message (a JSON text without its framing)
    /// in this framing: the text and `\n`, or the header and the text.
    pub fn encode(&self, message: &[u8]) -> Vec<u8> {
        match self {
            Framing::Ndjson(_) => {
                let mut out = Vec::with_capacity(message.len() + 1);
                out.extend_from_slice(message);
                out.push(b'\n');
                out
            }
            Framing::ContentLength(_) => rpcspec_framer::headers::encode_message(message),
        }
    }
}

impl Framing {
    /// Whether `bytes`, read from the start of a stream, end where a
    /// message ends (nothing of one is left unfinished).
    pub fn ends_message(&self, bytes: &[u8]) -> bool {
        let mut capture = Capture::new(self.clone());
        capture.push(bytes, Duration::ZERO, |_| {});
        capture.at_boundary()
    }
}

/// What arrived: a message or a framing problem, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival<'a> {
    /// The framer's event: a [`rpcspec_framer::Line`] (a message) or a
    /// [`rpcspec_framer::Problem`].
    pub event: Event<'a>,
    /// When its last byte arrived, from the start of the run.
    pub at: Duration,
    /// What the stream's records are.
    pub unit: Unit,
}

impl Arrival<'_> {
    /// The message's number in the stream (in NDJSON, its line number).
    pub fn number(&self) -> u64 {
        match &self.event {
            Event::Line(l) => l.number,
            Event::Problem(p) => p.number,
        }
    }

    /// The stream offset of its first byte.
    pub fn offset(&self) -> u64 {
        match &self.event {
            Event::Line(l) => l.offset,
            Event::Problem(p) => p.offset,
        }
    }

    /// Its bytes (those a problem kept; none for some kinds).
    pub fn bytes(&self) -> &[u8] {
        match &self.event {
            Event::Line(l) => &l.bytes,
            Event::Problem(p) => &p.bytes,
        }
    }

    /// What a report keeps of it: its place, its time, and its bytes, or
    /// a head and a tail of about `head` bytes ([`Bytes::head`]).
    pub fn received(&self, head: usize) -> Received {
        Received {
            at_ms: self.at.as_millis() as u64,
            line: self.number(),
            offset: self.offset(),
            bytes: Bytes::head(self.bytes(), head),
            unit: self.unit,
        }
    }

    /// Copies borrowed bytes, so the arrival outlives the pushed chunk.
    pub fn into_owned(self) -> Arrival<'static> {
        Arrival {
            event: self.event.into_owned(),
            at: self.at,
            unit: self.unit,
        }
    }
}

/// A target's output, read through one framing.
#[derive(Debug, Clone)]
pub struct Capture {
    framing: Framing,
    reader: Reader,
}

/// A framing's reader.
#[derive(Debug, Clone)]
enum Reader {
    Ndjson(Framer),
    ContentLength(Box<HeaderFramer>),
}

impl Capture {
    /// Reads a new stream cut by `framing`.
    pub fn new(framing: Framing) -> Capture {
        let reader = match &framing {
            Framing::Ndjson(config) => Reader::Ndjson(Framer::new(config.clone())),
            Framing::ContentLength(config) => {
                Reader::ContentLength(Box::new(HeaderFramer::new(config.clone())))
            }
        };
        Capture { framing, reader }
    }

    /// The framing it reads.
    pub fn framing(&self) -> &Framing {
        &self.framing
    }

    /// Whether the stream so far ends where a message ends: nothing of an
    /// unfinished one is held.
    pub fn at_boundary(&self) -> bool {
        match &self.reader {
            Reader::Ndjson(framer) => framer.at_boundary(),
            Reader::ContentLength(framer) => framer.at_boundary(),
        }
    }

    /// NDJSON at a boundary: the number and offset the next line will
    /// have, as a caller that reads lines passed over
    /// ([`Capture::pass_over`]) numbers them; `None` elsewhere.
    pub fn next_line(&self) -> Option<(u64, u64)> {
        match &self.reader {
            Reader::Ndjson(framer) if framer.at_boundary() => {
                Some((framer.numbered() + 1, framer.position()))
            }
            _ => None,
        }
    }

    /// NDJSON: counts `lines` whole lines, `bytes` long, that
    /// [`rpcspec_framer::sort::sort_lines`] found plain, as read
    /// ([`Framer::pass_over`]).
    ///
    /// # Panics
    ///
    /// Under Content-Length framing, or where the framer would.
    pub fn pass_over(&mut self, lines: u64, bytes: u64) {
        match &mut self.reader {
            Reader::Ndjson(framer) => framer.pass_over(lines, bytes),
            Reader::ContentLength(_) => panic!("Content-Length messages are not lines"),
        }
    }

    /// Reads `chunk`, which arrived `at`, and hands `sink` every message
    /// and problem it completes, in stream order; each borrows from the
    /// chunk or the reader's buffer, so a huge message is not copied.
    pub fn push(&mut self, chunk: &[u8], at: Duration, mut sink: impl FnMut(Arrival<'_>)) {
        match &mut self.reader {
            Reader::Ndjson(framer) => framer.push(chunk, |event| {
                sink(Arrival {
                    event,
                    at,
                    unit: Unit::Line,
                })
            }),
            Reader::ContentLength(framer) => framer.push(chunk, |event| {
                sink(Arrival {
                    event,
                    at,
                    unit: Unit::Message,
                })
            }),
        }
    }

    /// The stream ended (at `at`): hands `sink` what it leaves unfinished.
    pub fn finish(&mut self, at: Duration, mut sink: impl FnMut(Arrival<'_>)) {
        match &mut self.reader {
            Reader::Ndjson(framer) => framer.finish(|event| {
                sink(Arrival {
                    event,
                    at,
                    unit: Unit::Line,
                })
            }),
            Reader::ContentLength(framer) => framer.finish(|event| {
                sink(Arrival {
                    event,
                    at,
                    unit: Unit::Message,
                })
            }),
        }
    }

    /// [`Capture::push`], collected: for a caller whose sink needs what
    /// owns the capture.
    pub fn push_owned(&mut self, chunk: &[u8], at: Duration) -> Vec<Arrival<'static>> {
        let mut all = Vec::new();
        self.push(chunk, at, |a| all.push(a.into_owned()));
        all
    }

    /// [`Capture::finish`], collected.
    pub fn finish_owned(&mut self, at: Duration) -> Vec<Arrival<'static>> {
        let mut all = Vec::new();
        self.finish(at, |a| all.push(a.into_owned()));
        all
    }
}

/// What a result keeps of the messages received: at most `lines` of them
/// and `bytes` of their bytes (each a head of at most `head` bytes), the
/// rest counted. Which arrivals it lists is the role's choice; the caps
/// are the role's parameters, not its own copy of this. The default keeps
/// nothing and counts everything.
#[derive(Debug, Clone, Default)]
pub struct Kept {
    list: Vec<Received>,
    max_lines: usize,
    max_bytes: usize,
    head: usize,
    used: usize,
    omitted: usize,
}

impl Kept {
    /// Keeps at most `lines` arrivals and `bytes` of their bytes, each cut
    /// to a head and a tail of about `head` bytes.
    pub fn new(lines: usize, bytes: usize, head: usize) -> Kept {
        Kept {
            list: Vec::new(),
            max_lines: lines,
            max_bytes: bytes,
            head,
            used: 0,
            omitted: 0,
        }
    }

    /// Keeps `arrival` if the caps leave room, else counts it; says which.
    pub fn keep(&mut self, arrival: &Arrival<'_>) -> bool {
        let len = arrival.bytes().len();
        if self.list.len() >= self.max_lines || self.used.saturating_add(len) > self.max_bytes {
            self.omitted += 1;
            return false;
        }
        self.used += len;
        self.list.push(arrival.received(self.head));
        true
    }

    /// The arrivals kept, in order.
    pub fn list(&self) -> &[Received] {
        &self.list
    }

    /// How many bytes of arrivals were kept (before each was cut to its
    /// head).
    pub fn bytes(&self) -> usize {
        self.used
    }

    /// How many arrivals were left out.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// The arrivals kept, in order.
    pub fn into_vec(self) -> Vec<Received> {
        self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(chunks: &[&[u8]]) -> Vec<(u64, u64, Vec<u8>, u64)> {
        read_as(Framing::ndjson(), chunks)
    }

    fn read_as(framing: Framing, chunks: &[&[u8]]) -> Vec<(u64, u64, Vec<u8>, u64)> {
        let mut capture = Capture::new(framing);
        let mut seen = Vec::new();
        let mut take = |a: Arrival<'_>| {
            seen.push((
                a.number(),
                a.offset(),
                a.bytes().to_vec(),
                a.at.as_millis() as u64,
            ));
        };
        for (i, c) in chunks.iter().enumerate() {
            capture.push(c, Duration::from_millis(i as u64), &mut take);
        }
        capture.finish(Duration::from_millis(99), &mut take);
        seen
    }

    #[test]
    fn messages_are_framed_whatever_the_chunks_and_stamped_when_they_end() {
        assert_eq!(
            read(&[b"{\"a\"", b":1}\n[", b"]\nta"]),
            [
                (1, 0, b"{\"a\":1}".to_vec(), 1),
                (2, 8, b"[]".to_vec(), 2),
                (3, 11, b"ta".to_vec(), 99),
            ]
        );
        let mut c = Capture::new(Framing::ndjson());
        let tail = c.push_owned(b"x", Duration::ZERO);
        assert!(tail.is_empty());
        let end = c.finish_owned(Duration::from_millis(5));
        assert!(matches!(&end[0].event, Event::Problem(p) if p.kind == ProblemKind::Truncated));
    }

    #[test]
    fn the_same_messages_come_out_of_either_framing() {
        let messages: [&[u8]; 3] = [b"{\"a\":1}", b"[]", "\"é\"".as_bytes()];
        for framing in Framing::NAMES.map(|n| Framing::named(n).expect("a framing")) {
            let stream: Vec<u8> = messages.iter().flat_map(|m| framing.encode(m)).collect();
            // Cut everywhere, one byte at a time: still the same messages.
            let bytes: Vec<&[u8]> = stream.chunks(1).collect();
            let got: Vec<Vec<u8>> = read_as(framing.clone(), &bytes)
                .into_iter()
                .map(|(_, _, b, _)| b)
                .collect();
            assert_eq!(got, messages.map(<[u8]>::to_vec), "{}", framing.name());
            let mut capture = Capture::new(framing.clone());
            capture.push(&stream[..stream.len() - 1], Duration::ZERO, |_| {});
            assert!(!capture.at_boundary(), "{}", framing.name());
            capture.push(&stream[stream.len() - 1..], Duration::ZERO, |_| {});
            assert!(capture.at_boundary(), "{}", framing.name());
        }
        assert_eq!(Framing::named("lines"), None);
        // The same cut short is a different rule in each.
        let cut = ProblemKind::Truncated;
        assert_eq!(Framing::ndjson().rule(cut).id, "framing.unterminated");
        assert_eq!(
            Framing::content_length().rule(cut).id,
            "framing.content-cut"
        );
        assert_eq!(
            Framing::content_length().encode(b"{}"),
            b"Content-Length: 2\r\n\r\n{}"
        );
    }

    #[test]
    fn kept_stops_at_either_cap_and_counts_the_rest() {
        let mut c = Capture::new(Framing::ndjson());
        let all = c.push_owned(b"1\n22\n333\n4\n", Duration::from_millis(7));
        let mut by_lines = Kept::new(2, usize::MAX, 100);
        let kept: Vec<bool> = all.iter().map(|a| by_lines.keep(a)).collect();
        assert_eq!(kept, [true, true, false, false]);
        assert_eq!(by_lines.omitted(), 2);
        let mut by_bytes = Kept::new(10, 3, 100);
        let kept: Vec<bool> = all.iter().map(|a| by_bytes.keep(a)).collect();
        assert_eq!(kept, [true, true, false, false]);
        let list = by_bytes.into_vec();
        assert_eq!((list[1].line, list[1].offset, list[1].at_ms), (2, 2, 7));
        assert_eq!(list[1].bytes, Bytes::new(b"22"));
        // Each kept line is cut to its head.
        let mut short = Kept::new(10, usize::MAX, 1);
        let long = c.push_owned(&[b'x'; 4096], Duration::ZERO);
        assert!(long.is_empty());
        for a in c.push_owned(b"\n", Duration::ZERO) {
            short.keep(&a);
        }
        assert_ne!(short.into_vec()[0].bytes, Bytes::new(&[b'x'; 4096]));
    }
}
