//! The fast lane of a check without a dialect: the whole lines of each
//! chunk are sorted in bulk ([`sort_lines`]), on both cores where there are
//! two, and only the lines that are not plain (not one JSON value, blank,
//! `\r`-ended, too long, not UTF-8) go through the framer and the checker
//! one by one; the plain ones are counted. Every finding is the one the
//! slow path gives, at the same line: a plain line gives none there either
//! (`tests/check.rs` checks the two paths against each other).

use std::thread;
use std::time::Duration;

use rpcspec_framer::sort::{Sorted, Unplain, sort_lines};
use rpcspec_framer::{Config, Event};

use crate::capture::Capture;

/// Lines set apart per half of a chunk before the rest of it takes the
/// slow path: bounds the lists whatever the input.
const CAP: usize = 4096;
/// Below this, one thread sorts a chunk.
const SPLIT: usize = 256 << 10;

pub(super) struct Lane {
    config: Config,
    json: bool,
    two: bool,
    halves: [Vec<Unplain>; 2],
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
}

/// Bytes the slow way.
fn push(capture: &mut Capture, slow: &mut impl Slow, bytes: &[u8]) {
    if !bytes.is_empty() {
        capture.push(bytes, Duration::ZERO, |a| slow.event(a.event));
    }
}

/// A half of a chunk, sorted into `list` up to `sorted.upto`.
fn consume<S: Slow>(
    capture: &mut Capture,
    slow: &mut S,
    bytes: &[u8],
    sorted: Sorted,
    list: &[Unplain],
) {
    let plain = |capture: &mut Capture, slow: &mut S, run: &[u8], lines| {
        if !slow.may_pass() {
            push(capture, slow, run);
        } else if !run.is_empty() {
            capture.pass_over(lines, run.len() as u64);
            slow.passed(lines);
        }
    };
    let mut from = 0;
    for u in list {
        plain(capture, slow, &bytes[from..u.start], u.plain_before);
        push(capture, slow, &bytes[u.start..=u.end]);
        from = u.end + 1;
    }
    plain(capture, slow, &bytes[from..sorted.upto], sorted.plain_after);
    push(capture, slow, &bytes[sorted.upto..]);
}

impl Lane {
    /// `json`: a plain line must also be one JSON value.
    pub(super) fn new(config: Config, json: bool) -> Lane {
        Lane {
            config,
            json,
            two: thread::available_parallelism().is_ok_and(|n| n.get() >= 2),
            halves: [Vec::new(), Vec::new()],
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
        let mid = match whole.len() {
            n if self.two && n >= SPLIT => newline(&whole[n / 2..]).map_or(n, |i| n / 2 + i + 1),
            n => n,
        };
        let (a, b) = whole.split_at(mid);
        let (config, json) = (&self.config, self.json);
        let judge = |line: &[u8]| !json || rpcspec_framer::syntax::is_one_value(line);
        let [list_a, list_b] = &mut self.halves;
        let (sorted_a, sorted_b) = if b.is_empty() {
            let sorted = sort_lines(config, a, at_start, judge, list_a, CAP);
            (sorted, None)
        } else {
            thread::scope(|s| {
                let other = s.spawn(|| sort_lines(config, b, false, judge, list_b, CAP));
                let sorted = sort_lines(config, a, at_start, judge, list_a, CAP);
                (sorted, Some(other.join().expect("sorting does not panic")))
            })
        };
        consume(capture, slow, a, sorted_a, list_a);
        if let Some(sorted_b) = sorted_b {
            consume(capture, slow, b, sorted_b, list_b);
        }
        push(capture, slow, tail);
    }
}

fn newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use std::io::{self, Read};

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
            if let Out::Finding(f) = o {
                found.push(format!(
                    "{}:{}: {}: {}",
                    f.line, f.offset, f.rule.id, f.message
                ));
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
        let kinds: [&[u8]; 12] = [
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"},"id":1}"#,
            br#"{"jsonrpc":"2.0","result":{"text":"caf\u00e9 \"quoted\" long enough"},"id":1}"#,
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
            let kind = kinds[(x % 12) as usize];
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
            let fast = run(&data, &opts, true, seed);
            let slow = run(&data, &opts, false, seed + 1);
            assert!(fast.0.len() > 10_000, "{} findings", fast.0.len());
            assert_eq!(fast.1, slow.1);
            assert!(
                fast.0 == slow.0,
                "the first difference: {:?}",
                fast.0.iter().zip(&slow.0).find(|(a, b)| a != b)
            );
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
}
