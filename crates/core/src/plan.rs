//! Write plans: how the runner turns a step's bytes into writes. A
//! conforming peer answers the same under every plan.

use std::{fmt, str::FromStr, time::Duration};

use rpcspec_matcher::UnknownName;

use crate::capture::Framing;

/// The bytes of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Send {
    /// Whole lines, without terminators: the write plan chooses the line
    /// ending (`\n` or `\r\n`) and where writes are split.
    Lines(Vec<Vec<u8>>),
    /// Exact bytes, one write per element: no terminator is added and no
    /// plan changes them.
    Raw(Vec<Vec<u8>>),
}

/// One way of writing a step's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Plan {
    /// One write per line, `\n` terminated.
    Whole,
    /// Each line in three writes, split at a third and two thirds of its
    /// length, with a short pause between them.
    Split,
    /// One byte per write.
    Bytewise,
    /// All lines of a step in a single write.
    Coalesced,
    /// One write per line, `\r\n` terminated.
    Crlf,
}

/// Every plan, in report order.
pub const ALL_PLANS: [Plan; 5] = [
    Plan::Whole,
    Plan::Split,
    Plan::Bytewise,
    Plan::Coalesced,
    Plan::Crlf,
];

/// Pause between the pieces of a split write: long enough that a reader
/// usually sees them in separate `read` calls.
pub const SPLIT_PAUSE: Duration = Duration::from_millis(2);

/// The pause of a write that waits only until the target has read every
/// byte written before it, and no longer: the boundary a plan's pause
/// marks (those bytes reach the target in reads of their own), without
/// the sleep. Any other pause that is not zero waits for that and then
/// sleeps its length.
pub const DRAIN: Duration = Duration::from_nanos(1);

/// The bytes of each message [`Plan::writes_quick`] writes one at a time
/// under `bytewise`: enough for every split point of a typical message.
pub const QUICK_BYTEWISE: usize = 256;

/// One write, after an optional pause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// Wait this long before writing.
    pub pause: Duration,
    /// The bytes of the write.
    pub bytes: Vec<u8>,
}

impl Plan {
    /// Every plan's [name](Plan::name), in the order of [`ALL_PLANS`].
    pub const NAMES: &'static [&'static str] = &["whole", "split", "bytewise", "coalesced", "crlf"];

    /// The plan's name, as in `--plans` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Plan::Whole => "whole",
            Plan::Split => "split",
            Plan::Bytewise => "bytewise",
            Plan::Coalesced => "coalesced",
            Plan::Crlf => "crlf",
        }
    }

    /// The writes for one step in NDJSON ([`Plan::writes_in`]).
    pub fn writes(self, send: &Send) -> Vec<Write> {
        self.writes_in(send, &Framing::ndjson())
    }

    /// Whether the plan means something in `framing`: `crlf` is a line
    /// ending, NDJSON's alone (a Content-Length header always ends in
    /// `\r\n`).
    pub fn applies_to(self, framing: &Framing) -> bool {
        self != Plan::Crlf || matches!(framing, Framing::Ndjson(_))
    }

    /// The writes for one step, its messages framed by `framing`. Raw
    /// bytes keep their own chunking under `whole` and `crlf` (with
    /// [`SPLIT_PAUSE`] between chunks), and their own framing under every
    /// plan. In Content-Length framing, `split` cuts each message inside
    /// its header, between header and body, and inside the body (in a
    /// multi-byte character when it holds one); `crlf`, which does not
    /// apply there ([`Plan::applies_to`]), writes as `whole` does.
    pub fn writes_in(self, send: &Send, framing: &Framing) -> Vec<Write> {
        self.writes_with(send, framing, usize::MAX)
    }

    /// [`Plan::writes_in`] made quick, for persistent fuzzing: a pause only
    /// waits until the target has read what came before ([`DRAIN`]), the
    /// same boundary between its reads without the sleep, and `bytewise`
    /// writes the first [`QUICK_BYTEWISE`] bytes of each message one at a
    /// time and the rest at once.
    pub fn writes_quick(self, send: &Send, framing: &Framing) -> Vec<Write> {
        let mut writes = self.writes_with(send, framing, QUICK_BYTEWISE);
        for w in &mut writes {
            w.pause = w.pause.min(DRAIN);
        }
        writes
    }

    /// Every byte the plan writes for the step, in order: what
    /// [`Plan::writes_in`] writes, not cut.
    pub fn bytes_in(self, send: &Send, framing: &Framing) -> Vec<u8> {
        let mut bytes = Vec::new();
        for w in self.writes_with(send, framing, 0) {
            bytes.extend_from_slice(&w.bytes);
        }
        bytes
    }

    fn writes_with(self, send: &Send, framing: &Framing, bytewise: usize) -> Vec<Write> {
        let (pieces, raw): (Vec<Vec<u8>>, bool) = match (send, framing) {
            (Send::Lines(lines), Framing::Ndjson(_)) => {
                let ending: &[u8] = if self == Plan::Crlf { b"\r\n" } else { b"\n" };
                let lines = lines.iter().map(|l| [l.as_slice(), ending].concat());
                (lines.collect(), false)
            }
            (Send::Lines(lines), Framing::ContentLength(_)) => {
                let messages: Vec<Vec<u8>> = lines.iter().map(|l| framing.encode(l)).collect();
                if self == Plan::Split {
                    return cut_at(&messages, header_cuts, SPLIT_PAUSE);
                }
                (messages, false)
            }
            (Send::Raw(chunks), _) => (chunks.clone(), true),
        };
        let (how, pause) = match self {
            // A raw step's own chunks are meant as separate reads: the
            // split plan's pause goes between them.
            Plan::Whole | Plan::Crlf if raw => (Cut::Whole, SPLIT_PAUSE),
            Plan::Whole | Plan::Crlf => (Cut::Whole, Duration::ZERO),
            Plan::Coalesced if raw || pieces.len() > 1 => (Cut::Together, Duration::ZERO),
            Plan::Coalesced => (Cut::Whole, Duration::ZERO),
            Plan::Bytewise => (Cut::Bytewise { max: bytewise }, Duration::ZERO),
            Plan::Split => (Cut::Pieces(3), SPLIT_PAUSE),
        };
        cut(&pieces, how, pause)
    }
}

/// Where writes cut a run of messages (each already framed: its
/// terminator or header included): the one cutter under every role's write
/// plans. A role chooses the cuts that apply to it and their pause; the
/// cutting is done here only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// One write per message, the pause before each but the first.
    Whole,
    /// The whole run in one write (one, even when the run is empty).
    Together,
    /// Each message in N pieces, cut at `len * i / N`; pieces that come
    /// out empty are not written; the pause goes between the pieces of one
    /// message.
    Pieces(usize),
    /// A byte per write: each message's first `max` bytes one at a time,
    /// the rest of it in one write.
    Bytewise {
        /// Bytes of each message written one at a time.
        max: usize,
    },
    /// The run in two writes, cut before its byte K (the second may be
    /// empty), the pause between them.
    Before(usize),
    /// The run in writes of N bytes, the pause between them.
    Chunks(usize),
}

/// The writes of `messages` cut as `how` says, with `pause` where it says.
pub fn cut(messages: &[Vec<u8>], how: Cut, pause: Duration) -> Vec<Write> {
    let write = |pause: Duration, bytes: &[u8]| Write {
        pause,
        bytes: bytes.to_vec(),
    };
    let after_first = |i: usize| if i == 0 { Duration::ZERO } else { pause };
    match how {
        Cut::Whole => messages
            .iter()
            .enumerate()
            .map(|(i, m)| write(after_first(i), m))
            .collect(),
        Cut::Together => vec![write(Duration::ZERO, &messages.concat())],
        Cut::Pieces(n) => messages
            .iter()
            .flat_map(|m| {
                let n = n.max(1);
                let bounds: Vec<usize> = (0..=n).map(|i| m.len() * i / n).collect();
                bounds
                    .windows(2)
                    .map(|w| &m[w[0]..w[1]])
                    .filter(|piece| !piece.is_empty())
                    .enumerate()
                    .map(|(i, piece)| write(after_first(i), piece))
                    .collect::<Vec<_>>()
            })
            .collect(),
        Cut::Bytewise { max } => messages
            .iter()
            .flat_map(|m| {
                let n = m.len().min(max);
                let bytes = m[..n].chunks(1);
                let rest = (n < m.len()).then(|| &m[n..]);
                bytes
                    .chain(rest)
                    .map(|b| write(Duration::ZERO, b))
                    .collect::<Vec<_>>()
            })
            .collect(),
        Cut::Before(k) => {
            let run = messages.concat();
            let k = k.min(run.len());
            vec![write(Duration::ZERO, &run[..k]), write(pause, &run[k..])]
        }
        Cut::Chunks(n) => messages
            .concat()
            .chunks(n.max(1))
            .enumerate()
            .map(|(i, c)| write(after_first(i), c))
            .collect(),
    }
}

/// Each message cut before each of the offsets `points` gives for it
/// (in order, inside it), the pause between the pieces of one message.
fn cut_at(
    messages: &[Vec<u8>],
    points: impl Fn(&[u8]) -> Vec<usize>,
    pause: Duration,
) -> Vec<Write> {
    let mut out = Vec::new();
    for m in messages {
        let mut start = 0;
        for end in points(m).into_iter().chain([m.len()]) {
            if end > start && end <= m.len() {
                let pause = if start == 0 { Duration::ZERO } else { pause };
                out.push(Write {
                    pause,
                    bytes: m[start..end].to_vec(),
                });
                start = end;
            }
        }
    }
    out
}

/// Where `split` cuts a Content-Length message: inside the header's
/// name (after `Content-`), where the body starts, and inside the body:
/// within its first multi-byte UTF-8 character, else at its middle.
fn header_cuts(message: &[u8]) -> Vec<usize> {
    let body = message
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(message.len(), |p| p + 4);
    let inside = message[body..]
        .iter()
        .position(|b| *b >= 0xC0)
        .map_or((message.len() - body) / 2, |p| p + 1);
    vec![8.min(body), body, body + inside]
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The plan with this [name](Plan::name), exactly as written.
impl FromStr for Plan {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Plan, UnknownName> {
        ALL_PLANS
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| UnknownName::new("write plan", name, Plan::NAMES))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        let names: Vec<_> = ALL_PLANS.iter().map(|p| p.name()).collect();
        assert_eq!(names, Plan::NAMES);
        for plan in ALL_PLANS {
            assert_eq!(plan.to_string().parse::<Plan>(), Ok(plan));
        }
    }

    #[test]
    fn an_unknown_plan_lists_the_known_ones() {
        let e = "Whole".parse::<Plan>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown write plan `Whole` (known: whole, split, bytewise, coalesced, crlf)"
        );
    }

    fn bytes(writes: &[Write]) -> Vec<&[u8]> {
        writes.iter().map(|w| w.bytes.as_slice()).collect()
    }

    #[test]
    fn every_plan_sends_the_same_lines() {
        let send = Send::Lines(vec![b"[1]".to_vec(), b"{}".to_vec()]);
        assert_eq!(bytes(&Plan::Whole.writes(&send)), [&b"[1]\n"[..], b"{}\n"]);
        assert_eq!(
            bytes(&Plan::Crlf.writes(&send)),
            [&b"[1]\r\n"[..], b"{}\r\n"]
        );
        assert_eq!(bytes(&Plan::Coalesced.writes(&send)), [&b"[1]\n{}\n"[..]]);
        assert_eq!(Plan::Bytewise.writes(&send).len(), 7);
        let split = Plan::Split.writes(&send);
        assert_eq!(bytes(&split), [&b"["[..], b"1", b"]\n", b"{", b"}", b"\n"]);
        assert_eq!(split[1].pause, SPLIT_PAUSE);
        assert_eq!(split[3].pause, Duration::ZERO);
    }

    #[test]
    fn content_length_plans_frame_each_message_and_cut_it_where_readers_break() {
        let framing = Framing::content_length();
        let send = Send::Lines(vec!["[\"é\"]".as_bytes().to_vec(), b"{}".to_vec()]);
        let framed = [
            &b"Content-Length: 6\r\n\r\n[\"\xC3\xA9\"]"[..],
            b"Content-Length: 2\r\n\r\n{}",
        ];
        let whole = Plan::Whole.writes_in(&send, &framing);
        assert_eq!(bytes(&whole), framed);
        assert_eq!(
            bytes(&Plan::Coalesced.writes_in(&send, &framing)),
            [framed.concat()]
        );
        for plan in ALL_PLANS {
            let all: Vec<u8> = plan
                .writes_in(&send, &framing)
                .into_iter()
                .flat_map(|w| w.bytes)
                .collect();
            assert_eq!(all, framed.concat(), "{plan}");
        }
        assert_eq!(
            Plan::Bytewise.writes_in(&send, &framing).len(),
            framed.concat().len()
        );
        let split = Plan::Split.writes_in(&send, &framing);
        assert_eq!(
            bytes(&split),
            [
                &b"Content-"[..],
                b"Length: 6\r\n\r\n",
                b"[\"\xC3",
                b"\xA9\"]",
                b"Content-",
                b"Length: 2\r\n\r\n",
                b"{",
                b"}",
            ]
        );
        assert_eq!(split[1].pause, SPLIT_PAUSE);
        assert_eq!(split[4].pause, Duration::ZERO);
        assert!(!Plan::Crlf.applies_to(&framing));
        assert!(ALL_PLANS.iter().all(|p| p.applies_to(&Framing::ndjson())));
    }

    #[test]
    fn a_stream_ends_a_message_only_where_its_framing_says() {
        let lines = Framing::ndjson();
        assert!(lines.ends_message(b"") && lines.ends_message(b"{}\n"));
        assert!(!lines.ends_message(b"{}"));
        let headers = Framing::content_length();
        assert!(headers.ends_message(b"Content-Length: 2\r\n\r\n{}"));
        assert!(!headers.ends_message(b"Content-Length: 2\r\n\r\n{"));
        assert!(!headers.ends_message(b"Content-Length: 2\r\n"));
    }

    #[test]
    fn raw_bytes_keep_their_endings() {
        let send = Send::Raw(vec![b"{\"a\":\xC3".to_vec(), b"\xA9}".to_vec()]);
        assert_eq!(Plan::Crlf.writes(&send), Plan::Whole.writes(&send));
        assert_eq!(bytes(&Plan::Whole.writes(&send)).len(), 2);
        assert_eq!(
            bytes(&Plan::Coalesced.writes(&send)),
            [&b"{\"a\":\xC3\xA9}"[..]]
        );
    }

    /// The plans as written before the cutter was shared: the oracle the
    /// cutter must match, write for write.
    fn naive_writes(plan: Plan, send: &Send) -> Vec<Write> {
        let (pieces, raw): (Vec<Vec<u8>>, bool) = match send {
            Send::Lines(lines) => {
                let ending: &[u8] = if plan == Plan::Crlf { b"\r\n" } else { b"\n" };
                (
                    lines
                        .iter()
                        .map(|l| [l.as_slice(), ending].concat())
                        .collect(),
                    false,
                )
            }
            Send::Raw(chunks) => (chunks.clone(), true),
        };
        let now = |bytes: Vec<u8>| Write {
            pause: Duration::ZERO,
            bytes,
        };
        let mut out = Vec::new();
        match plan {
            Plan::Whole | Plan::Crlf if raw => {
                for (i, bytes) in pieces.into_iter().enumerate() {
                    let pause = if i == 0 { Duration::ZERO } else { SPLIT_PAUSE };
                    out.push(Write { pause, bytes });
                }
            }
            Plan::Whole | Plan::Crlf => out.extend(pieces.into_iter().map(now)),
            Plan::Coalesced if raw || pieces.len() > 1 => out.push(now(pieces.concat())),
            Plan::Coalesced => out.extend(pieces.into_iter().map(now)),
            Plan::Bytewise => out.extend(pieces.concat().into_iter().map(|b| now(vec![b]))),
            Plan::Split => {
                for p in &pieces {
                    let (a, b) = (p.len() / 3, p.len() * 2 / 3);
                    let thirds = [&p[..a], &p[a..b], &p[b..]];
                    for (i, t) in thirds.into_iter().filter(|t| !t.is_empty()).enumerate() {
                        let pause = if i == 0 { Duration::ZERO } else { SPLIT_PAUSE };
                        out.push(Write {
                            pause,
                            bytes: t.to_vec(),
                        });
                    }
                }
            }
        }
        out
    }

    #[test]
    fn the_shared_cutter_writes_what_each_plan_wrote() {
        let mut sends = Vec::new();
        for n in 0..4 {
            for len in [0, 1, 2, 3, 5, 17] {
                let lines: Vec<Vec<u8>> = (0..n).map(|i| vec![b'a' + i as u8; len + i]).collect();
                sends.push(Send::Raw(lines.clone()));
                sends.push(Send::Lines(lines));
            }
        }
        for send in &sends {
            for plan in ALL_PLANS {
                assert_eq!(
                    plan.writes(send),
                    naive_writes(plan, send),
                    "{plan} {send:?}"
                );
            }
        }
    }

    #[test]
    fn every_cut_keeps_the_bytes_in_order() {
        let run = vec![b"{\"a\":1}\n".to_vec(), b"[]\n".to_vec(), b"7\n".to_vec()];
        let cuts = [
            Cut::Whole,
            Cut::Together,
            Cut::Pieces(2),
            Cut::Pieces(3),
            Cut::Bytewise { max: 3 },
            Cut::Bytewise { max: usize::MAX },
            Cut::Before(0),
            Cut::Before(5),
            Cut::Before(99),
            Cut::Chunks(4),
        ];
        for how in cuts {
            let writes = cut(&run, how, SPLIT_PAUSE);
            let joined: Vec<u8> = writes.iter().flat_map(|w| w.bytes.clone()).collect();
            assert_eq!(joined, run.concat(), "{how:?}");
            assert_eq!(writes[0].pause, Duration::ZERO, "{how:?}");
        }
        let halves = cut(&run[..1], Cut::Pieces(2), SPLIT_PAUSE);
        assert_eq!(bytes(&halves), [&b"{\"a\""[..], b":1}\n"]);
        assert_eq!(halves[1].pause, SPLIT_PAUSE);
        let capped = cut(&run[..1], Cut::Bytewise { max: 2 }, SPLIT_PAUSE);
        assert_eq!(bytes(&capped), [&b"{"[..], b"\"", b"a\":1}\n"]);
        assert_eq!(cut(&run, Cut::Chunks(4), SPLIT_PAUSE)[1].pause, SPLIT_PAUSE);
        assert_eq!(cut(&[], Cut::Together, SPLIT_PAUSE).len(), 1);
    }
}
