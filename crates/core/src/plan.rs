//! Write plans: how the runner turns a step's bytes into writes. A
//! conforming peer answers the same under every plan.

use std::{fmt, str::FromStr, time::Duration};

use rpcspec_matcher::UnknownName;

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

    /// The writes for one step. Raw bytes keep their own chunking under
    /// `whole` and `crlf` (with [`SPLIT_PAUSE`] between chunks), and their
    /// own line endings under every plan.
    pub fn writes(self, send: &Send) -> Vec<Write> {
        let (pieces, raw): (Vec<Vec<u8>>, bool) = match send {
            Send::Lines(lines) => {
                let ending: &[u8] = if self == Plan::Crlf { b"\r\n" } else { b"\n" };
                let lines = lines.iter().map(|l| [l.as_slice(), ending].concat());
                (lines.collect(), false)
            }
            Send::Raw(chunks) => (chunks.clone(), true),
        };
        let now = |bytes: Vec<u8>| Write {
            pause: Duration::ZERO,
            bytes,
        };
        match self {
            // A raw step's own chunks are meant as separate reads: the
            // split plan's pause goes between them.
            Plan::Whole | Plan::Crlf if raw => pieces
                .into_iter()
                .enumerate()
                .map(|(i, bytes)| Write {
                    pause: if i == 0 { Duration::ZERO } else { SPLIT_PAUSE },
                    bytes,
                })
                .collect(),
            Plan::Whole | Plan::Crlf => pieces.into_iter().map(now).collect(),
            Plan::Coalesced if raw || pieces.len() > 1 => vec![now(pieces.concat())],
            Plan::Coalesced => pieces.into_iter().map(now).collect(),
            Plan::Bytewise => pieces.concat().into_iter().map(|b| now(vec![b])).collect(),
            Plan::Split => pieces
                .iter()
                .flat_map(|p| {
                    let (a, b) = (p.len() / 3, p.len() * 2 / 3);
                    [&p[..a], &p[a..b], &p[b..]]
                        .into_iter()
                        .filter(|piece| !piece.is_empty())
                        .enumerate()
                        .map(|(i, piece)| Write {
                            pause: if i == 0 { Duration::ZERO } else { SPLIT_PAUSE },
                            bytes: piece.to_vec(),
                        })
                        .collect::<Vec<_>>()
                })
                .collect(),
        }
    }
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
    fn raw_bytes_keep_their_endings() {
        let send = Send::Raw(vec![b"{\"a\":\xC3".to_vec(), b"\xA9}".to_vec()]);
        assert_eq!(Plan::Crlf.writes(&send), Plan::Whole.writes(&send));
        assert_eq!(bytes(&Plan::Whole.writes(&send)).len(), 2);
        assert_eq!(
            bytes(&Plan::Coalesced.writes(&send)),
            [&b"{\"a\":\xC3\xA9}"[..]]
        );
    }
}
