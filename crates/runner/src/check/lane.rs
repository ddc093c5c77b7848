//! The fast lane of a check: the whole lines of each chunk are sorted in
//! bulk ([`sort_lines`]), on both cores where there are two, and only the
//! lines that are not plain (not one JSON value, blank, `\r`-ended, too
//! long, not UTF-8) go through the framer and the checker one by one.
//! Without a dialect the plain ones are counted; with one, each is
//! validated and read in one pass where it is sorted (the framer's `walk`
//! telling the matcher's `Members` its members; in a piece that is not all
//! text, as it is taken on; past a piece's quota, the slow way), classified
//! there (the
//! common message allocates nothing, so it is dropped on this thread at no
//! cost), then handed to the checker with its number and offset on this
//! thread, to be paired in order. Every finding is the one the slow path
//! gives, at the same line (the tests below hold the two paths to it, and
//! `one_pass` the one pass to the matcher's own scan).

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::Duration;

use rpcspec_framer::sort::{Sorted, Unplain, sort_lines};
use rpcspec_framer::syntax::whole::{Visit, walk};
use rpcspec_framer::{Config, Event};
use rpcspec_matcher::{Classified, Dialect, Members, classify_checked};

use crate::capture::Capture;

/// Lines set apart per piece of a chunk before the rest of it takes the
/// slow path: bounds the lists whatever the input.
const CAP: usize = 4096;
/// Lines classified per piece at most, and findings among them (each
/// allocated): a piece of tiny lines (`1`, each a finding or two) or of
/// batches of them sends the rest the slow way rather than hold them all.
/// A chunk's classified lines take about 9 MiB at most (`PIECES` pieces of
/// 2048 lines of 116 bytes and 256 findings of about 200), and a batch's
/// members as much again at most as its text (each member of 30 bytes or
/// more, or with a finding).
const HELD: usize = 2048;
const FLAWED: usize = 256;
/// A chunk's whole lines are cut into pieces of about this many bytes,
/// at most [`PIECES`]: one core sorts the next while the other takes this
/// one's lines to the checker.
const PIECE: usize = 64 << 10;
const PIECES: usize = 32;

pub(super) struct Lane {
    config: Config,
    /// The same, for a piece already known to be UTF-8.
    text_config: Config,
    json: bool,
    /// The dialect plain lines are classified in, if they are.
    dialect: Option<Dialect>,
    two: bool,
}

/// A piece of a chunk, sorted: how far, the lines set apart, and with a
/// dialect its plain lines (without their `\n`s), each classified.
struct Sorting<'b> {
    sorted: Sorted,
    list: Vec<Unplain>,
    classified: Vec<(&'b str, Classified)>,
}

/// What the lane needs of the checker.
pub(super) trait Slow {
    /// A framing event, as the slow path handles it.
    fn event(&mut self, event: Event<'_>);
    /// Whether plain lines may be counted instead of checked: nothing is
    /// held that they could belong to, and they carry no transcript marks.
    fn may_pass(&self) -> bool;
    /// Whether the lines are known to carry transcript marks: none of
    /// them is plain then, and the lane only costs.
    fn marked(&self) -> bool;
    /// Plain lines passed over.
    fn passed(&mut self, lines: u64);
    /// A plain line, classified (with a dialect): line `number`, `offset`
    /// bytes into the stream, `text` without its `\n`.
    fn plain(&mut self, number: u64, offset: u64, text: &str, classified: Classified);
}

/// Bytes the slow way.
fn push(capture: &mut Capture, slow: &mut impl Slow, bytes: &[u8]) {
    if !bytes.is_empty() {
        capture.push(bytes, Duration::ZERO, |a| slow.event(a.event));
    }
}

/// A piece of a chunk, sorted.
fn consume<S: Slow>(
    capture: &mut Capture,
    slow: &mut S,
    bytes: &[u8],
    sorting: Sorting<'_>,
    dialect: Option<&Dialect>,
) {
    let Sorting {
        sorted,
        list,
        classified,
    } = sorting;
    let mut classified = classified.into_iter();
    let mut plain = |capture: &mut Capture, slow: &mut S, run: &[u8], lines: u64| {
        if run.is_empty() {
            return;
        }
        match (slow.may_pass(), dialect, capture.next_line()) {
            (true, None, _) => {
                capture.pass_over(lines, run.len() as u64);
                slow.passed(lines);
            }
            (true, Some(dialect), Some((mut number, mut offset))) => {
                let mut give = |line: &str, classified| {
                    slow.plain(number, offset, line, classified);
                    number += 1;
                    offset += line.len() as u64 + 1;
                };
                // The sort classified every plain line of a piece that is
                // text, and none of one that is not.
                if classified.len() >= lines as usize {
                    for (line, c) in classified.by_ref().take(lines as usize) {
                        give(line, c);
                    }
                } else if let Ok(text) = std::str::from_utf8(run) {
                    for line in split_lines(text) {
                        give(line, classify_checked(line, dialect));
                    }
                } else {
                    return push(capture, slow, run);
                }
                capture.pass_over(lines, run.len() as u64);
            }
            _ => {
                // What was classified of the run is read again the slow way.
                classified.by_ref().take(lines as usize).for_each(drop);
                push(capture, slow, run);
            }
        }
    };
    let mut from = 0;
    for u in &list {
        plain(capture, slow, &bytes[from..u.start], u.plain_before);
        push(capture, slow, &bytes[u.start..=u.end]);
        from = u.end + 1;
    }
    plain(capture, slow, &bytes[from..sorted.upto], sorted.plain_after);
    push(capture, slow, &bytes[sorted.upto..]);
}

/// Sorts a piece of a chunk and, with a dialect, classifies its plain lines.
fn sort_piece<'b>(
    (config, text_config): (&Config, &Config),
    block: &'b [u8],
    at_stream_start: bool,
    json: bool,
    dialect: Option<&Dialect>,
) -> Sorting<'b> {
    let mut list = Vec::new();
    let mut classified = Vec::new();
    // A piece that is text has each line validated and read in one pass:
    // the framer's walk tells the matcher its members as it goes.
    if let (Some(dialect), Ok(text)) = (dialect, simdutf8::basic::from_utf8(block)) {
        let mut flawed = 0;
        let judge = |line: &[u8]| {
            let at = line.as_ptr() as usize - block.as_ptr() as usize;
            let line = &text[at..at + line.len()];
            let mut reader = Reader {
                text: line,
                members: Members::new(line, dialect),
            };
            // Past HELD lines, or FLAWED findings, the rest take the slow
            // path: a piece of tiny lines holds no more than that.
            if classified.len() == HELD || !walk(line.as_bytes(), &mut reader) {
                return false;
            }
            let c = reader.members.classify();
            if flawed + c.findings.len() > FLAWED {
                return false;
            }
            flawed += c.findings.len();
            classified.push((line, c));
            true
        };
        let sorted = sort_lines(text_config, block, at_stream_start, judge, &mut list, CAP);
        return Sorting {
            sorted,
            list,
            classified,
        };
    }
    // Not text, or no dialect: the plain lines of a piece with a dialect
    // are classified as they are taken on, none held.
    let judge = |line: &[u8]| !json || rpcspec_framer::syntax::is_one_value(line);
    let sorted = sort_lines(config, block, at_stream_start, judge, &mut list, CAP);
    Sorting {
        sorted,
        list,
        classified,
    }
}

// The walk follows no deeper than the matcher's depth limit, so a line it
// accepts is within it: `Members` counts no depth.
const _: () = assert!(
    rpcspec_framer::syntax::whole::MAX_DEPTH as usize <= rpcspec_matcher::limits::MAX_DEPTH
);

/// The framer's walk telling the matcher what a line holds.
struct Reader<'a> {
    text: &'a str,
    members: Members<'a>,
}

impl Visit for Reader<'_> {
    fn member(&mut self, name: Range<usize>, value: Range<usize>) {
        self.members.member(&self.text[name], &self.text[value]);
    }

    fn element(&mut self, value: Range<usize>) {
        self.members.element(&self.text[value]);
    }

    fn number(&mut self, number: Range<usize>) {
        self.members.number(&self.text[number]);
    }
}

/// `whole` (whole lines) cut at line ends into at most `most` pieces.
fn pieces(whole: &[u8], most: usize) -> Vec<&[u8]> {
    let n = whole.len().div_ceil(PIECE).clamp(1, most);
    let mut pieces = Vec::with_capacity(n);
    let mut rest = whole;
    for left in (1..n).rev() {
        let at = rest.len() / (left + 1);
        let Some(end) = newline(&rest[at..]) else {
            break;
        };
        let (piece, after) = rest.split_at(at + end + 1);
        pieces.push(piece);
        rest = after;
    }
    pieces.push(rest);
    pieces
}

impl Lane {
    /// `json`: a plain line must also be one JSON value. `dialect`: plain
    /// lines are classified in it and handed to the checker.
    pub(super) fn new(config: Config, json: bool, dialect: Option<Dialect>) -> Lane {
        Lane {
            text_config: config.clone().with_check_utf8(false),
            config,
            json: json || dialect.is_some(),
            dialect,
            two: thread::available_parallelism().is_ok_and(|n| n.get() >= 2),
        }
    }

    /// Everything in `chunk`, which starts `at` bytes into the stream.
    pub(super) fn push(
        &mut self,
        capture: &mut Capture,
        slow: &mut impl Slow,
        chunk: &[u8],
        at: u64,
    ) {
        if slow.marked() {
            return push(capture, slow, chunk);
        }
        let mut rest = chunk;
        if !capture.at_boundary() {
            // The line carried from the last chunk ends first.
            let Some(end) = newline(rest) else {
                return push(capture, slow, rest);
            };
            push(capture, slow, &rest[..=end]);
            rest = &rest[end + 1..];
        }
        let at_start = at + (chunk.len() - rest.len()) as u64 == 0;
        let cut = rest.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let (whole, tail) = rest.split_at(cut);
        let pieces = pieces(whole, PIECES);
        let configs = (&self.config, &self.text_config);
        let (json, dialect) = (self.json, self.dialect.as_ref());
        let sort = |i: usize| sort_piece(configs, pieces[i], at_start && i == 0, json, dialect);
        if pieces.len() == 1 || !self.two {
            // One core: each piece sorted, then taken on, in turn.
            for (i, piece) in pieces.iter().enumerate() {
                consume(capture, slow, piece, sort(i), dialect);
            }
            return push(capture, slow, tail);
        }
        // The pieces are taken to the checker in order, here; each is
        // sorted by whichever core comes to it first: the other thread
        // takes them in order; this one, while the piece it needs next is
        // still being sorted there, takes the next not yet begun (it waited
        // for it before, idle a third of the time).
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<Option<Sorting<'_>>>> =
            Mutex::new(pieces.iter().map(|_| None).collect());
        let ready = Condvar::new();
        thread::scope(|s| {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pieces.len() {
                        return;
                    }
                    let sorting = sort(i);
                    done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(sorting);
                    ready.notify_one();
                }
            });
            for (i, piece) in pieces.iter().enumerate() {
                let sorting = loop {
                    let mut held = done.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some(sorting) = held[i].take() {
                        break sorting;
                    }
                    let j = next.load(Ordering::Relaxed);
                    if j >= pieces.len() {
                        drop(ready.wait(held).unwrap_or_else(|e| e.into_inner()));
                        continue;
                    }
                    drop(held);
                    if next
                        .compare_exchange(j, j + 1, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                    {
                        let sorting = sort(j);
                        if j == i {
                            break sorting;
                        }
                        done.lock().unwrap_or_else(|e| e.into_inner())[j] = Some(sorting);
                    }
                };
                consume(capture, slow, piece, sorting, dialect);
            }
        });
        push(capture, slow, tail);
    }
}

/// The lines of `text`, each without its `\n` (as `split_terminator`,
/// by `memchr`).
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    let mut from = 0;
    std::iter::from_fn(move || {
        let end = ends.next().or((from < text.len()).then_some(text.len()))?;
        let line = &text[from..end];
        from = end + 1;
        Some(line)
    })
}

fn newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use std::io::{self, Read};

    use rpcspec_matcher::Dialect;

    use super::super::{Options, Out, Sides, check_by};

    /// A reader giving reads of varied sizes, some short (a chunk ends),
    /// some long (chunks are filled).
    struct Dribble {
        data: Vec<u8>,
        at: usize,
        x: u64,
    }

    impl Read for Dribble {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.x ^= self.x << 13;
            self.x ^= self.x >> 7;
            self.x ^= self.x << 17;
            let most = [7, 4096, 40_000, 300_000][(self.x % 4) as usize];
            let n = most.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn run(data: &[u8], opts: &Options, lane: bool, seed: u64) -> (Vec<String>, String) {
        let mut found = Vec::new();
        let sink = |o: Out<'_>| {
            match o {
                Out::Finding(f) => found.push(format!(
                    "{}:{}: {}: {}",
                    f.line, f.offset, f.rule.id, f.message
                )),
                Out::Note(n) => found.push(serde_json::to_string(n).expect("a note serialises")),
            }
            Ok(())
        };
        let input = Dribble {
            data: data.to_vec(),
            at: 0,
            x: seed,
        };
        let summary = check_by(input, opts, sink, lane).expect("reads from memory");
        (
            found,
            serde_json::to_string(&summary).expect("a summary serialises"),
        )
    }

    /// Lines of every kind the lane sorts, in runs long enough to fill its
    /// lists and to cross chunks and halves.
    fn stream(seed: u64, marks: bool) -> Vec<u8> {
        let kinds: [&[u8]; 16] = [
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"},"id":1}"#,
            br#"{"jsonrpc":"2.0","result":{"text":"caf\u00e9 \"quoted\" long enough"},"id":1}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}"#,
            br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"no"},"id":"1"}"#,
            br#"[{"jsonrpc":"2.0","method":"a","id":2.0},{"jsonrpc":"1.0","method":7}]"#,
            br#"{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}"#,
            b"[1, 2.5e-3, true, null, \"\xc3\xa9\"]",
            b"{\"a\":",
            b"  \"b\": [1,",
            b"2]}",
            b"not json",
            b"",
            b"{\"x\":1}\r",
            b"\xff\xfe",
            b"[1 2]",
            b"\xef\xbb\xbf{}",
        ];
        let mut x = seed;
        let mut out = Vec::new();
        while out.len() < 3 << 20 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Long runs of one kind, then single lines.
            let kind = kinds[(x % 16) as usize];
            let run = if x.is_multiple_of(5) {
                5000
            } else {
                1 + (x >> 8) % 3
            } as usize;
            for _ in 0..run {
                if marks {
                    out.extend_from_slice(if x.is_multiple_of(2) {
                        b"--> "
                    } else {
                        b"<-- "
                    });
                }
                out.extend_from_slice(kind);
                out.push(b'\n');
            }
        }
        out
    }

    /// The lane and the slow path, each with its own chunking, give the same
    /// findings (and notes) in the same order, and the same summary; the
    /// stream gives plenty of them.
    fn same_both_ways(data: &[u8], opts: &Options, seed: u64) {
        let fast = run(data, opts, true, seed);
        let slow = run(data, opts, false, seed + 1);
        assert!(fast.0.len() > 10_000, "{} findings", fast.0.len());
        assert_eq!(fast.1, slow.1);
        assert!(
            fast.0 == slow.0,
            "the first difference: {:?}",
            fast.0.iter().zip(&slow.0).find(|(a, b)| a != b)
        );
    }

    #[test]
    fn the_lane_finds_what_the_slow_path_finds() {
        for (seed, marks, framing_only) in [(7, false, false), (11, false, true), (13, true, false)]
        {
            let data = stream(seed, marks);
            let opts = Options {
                framing_only,
                per_rule: None,
                ..Options::default()
            };
            same_both_ways(&data, &opts, seed);
        }
        // One side, and a stream that opens with a BOM.
        let mut data = b"\xef\xbb\xbf{}\n".to_vec();
        data.extend(stream(17, false));
        let opts = Options {
            sides: Sides::Client,
            ..Options::default()
        };
        assert_eq!(run(&data, &opts, true, 1), run(&data, &opts, false, 2));
    }

    /// Tiny lines fill a piece's quota of classified lines (clean ones past
    /// `HELD`, ones with findings past `FLAWED`): the rest of the piece
    /// takes the slow path, with the same findings.
    #[test]
    fn past_its_quota_a_piece_sends_lines_the_slow_way() {
        let mut data = Vec::new();
        for i in 0..60_000 {
            data.extend_from_slice(if i % 7 == 0 {
                b"1\n"
            } else {
                b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n"
            });
        }
        data.extend_from_slice(&b"1\n".repeat(20_000));
        let opts = Options {
            dialect: Some(Dialect::Jsonrpc2),
            per_rule: None,
            ..Options::default()
        };
        same_both_ways(&data, &opts, 29);
    }

    /// With a dialect the lane classifies plain lines where it sorts them:
    /// every finding and note is the slow path's, in the same order, on
    /// either side or both, marked or not, with a window small enough to
    /// forget.
    #[test]
    fn the_lane_pairs_as_the_slow_path_pairs() {
        let dialects = [
            Dialect::Jsonrpc2,
            Dialect::Mcp,
            Dialect::Claude,
            Dialect::Lenient,
        ];
        for (i, dialect) in dialects.into_iter().enumerate() {
            let seed = 19 + i as u64;
            let sides = [Sides::Both, Sides::Server, Sides::Both, Sides::Client][i];
            let data = stream(seed, i == 2);
            let opts = Options {
                dialect: Some(dialect),
                sides,
                annotate: i % 2 == 1,
                per_rule: None,
                window: 700,
                ..Options::default()
            };
            same_both_ways(&data, &opts, seed);
        }
    }
}

/// The one pass that validates and reads (the framer's walk telling the
/// matcher's `Members`) classifies every message as the matcher's own scan
/// does, in every dialect whose members differ.
#[cfg(test)]
mod one_pass {
    use proptest::prelude::*;
    use rpcspec_framer::syntax::whole::walk;
    use rpcspec_matcher::{Dialect, EventsConfig, Members, classify_checked};

    use super::Reader;

    /// Names the rules read, escaped and not, and names they do not.
    const NAMES: &[&str] = &[
        "jsonrpc",
        "id",
        "method",
        "params",
        "result",
        "error",
        "code",
        "message",
        "type",
        "request_id",
        "request",
        "response",
        "subtype",
        "event",
        "x",
        "\\u0069d",
        "m\\u0065thod",
        "\\ud800",
    ];

    /// Values whose reading could go wrong: big and exponent numbers (the
    /// limits' tally), brackets and escapes inside strings.
    const LEAVES: &[&str] = &[
        "0",
        "-1.5e3",
        "123456789012345678901234",
        "1e400",
        "true",
        "null",
        r#""2.0""#,
        r#""a\"b\\""#,
        r#""]}{[,:""#,
        "\"caf\u{e9} \\u00e9\"",
        r#""tools/call""#,
    ];

    fn value() -> impl Strategy<Value = String> {
        let leaf = proptest::sample::select(LEAVES).prop_map(str::to_owned);
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[ {}]", v.join(" ,\t"))),
                object(inner),
            ]
        })
    }

    fn object(inner: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
        proptest::collection::vec((proptest::sample::select(NAMES), inner), 0..6).prop_map(|v| {
            let members: Vec<String> = v
                .into_iter()
                .map(|(k, v)| format!(" \"{k}\" :{v}"))
                .collect();
            format!("{{{} }}", members.join(","))
        })
    }

    fn message() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => object(value()),
            1 => proptest::collection::vec(object(value()), 0..4)
                .prop_map(|v| format!("[{}]", v.join(","))),
            1 => value(),
        ]
        .prop_map(|m| format!(" {m} "))
    }

    proptest! {
        #[test]
        fn reads_as_the_matchers_scan(text in message()) {
            let events = Dialect::Events(EventsConfig {
                type_field: "event".into(),
                ..EventsConfig::default()
            });
            for dialect in [Dialect::Jsonrpc2, Dialect::Mcp, Dialect::Claude, events] {
                let mut reader = Reader { text: &text, members: Members::new(&text, &dialect) };
                prop_assert!(walk(text.as_bytes(), &mut reader), "{}", text);
                prop_assert_eq!(reader.members.classify(), classify_checked(&text, &dialect));
            }
        }
    }
}
