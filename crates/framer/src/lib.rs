#![doc = include_str!("../README.md")]
//!
//! # Where to start
//!
//! * [`Framer`]: [`Framer::push`] and [`Framer::finish`]; [`frame`] for a
//!   stream held in memory.
//! * [`Config`]: the policies, each a `with_*` method with its default.
//! * [`Event`]: a [`Line`] or a [`Problem`] (its [`ProblemKind`]).
//! * [`read::Events`]: the same over a [`std::io::Read`].
//! * [`HeaderFramer`] ([`headers`]): the `Content-Length` framing of the
//!   LSP base protocol, in the same events.
//! * [`syntax`]: a JSON syntax checker fed in pieces, to tell a
//!   pretty-printed value spread over lines from lines that are not JSON.
//! * [`sort::sort_lines`] and [`Framer::pass_over`]: a fast lane for a
//!   caller that judges lines itself, in bulk and in any thread.
//! * `FramerCodec` (feature `tokio-util`): the same for `FramedRead`.

#![warn(missing_docs)]

#[cfg(feature = "tokio-util")]
mod codec;
mod config;
mod event;
pub mod headers;
#[cfg(feature = "json")]
mod json;
pub mod read;
pub mod sort;
pub mod syntax;
mod utf8;

use std::borrow::Cow;

#[cfg(feature = "tokio-util")]
pub use codec::FramerCodec;
pub use config::{
    BlankLines, Bom, Config, DEFAULT_MAX_HEADER_LEN, DEFAULT_MAX_LINE_LEN, HeaderConfig, Mode,
};
pub use event::{Ending, Event, Line, Problem, ProblemKind};
pub use headers::HeaderFramer;
#[cfg(feature = "json")]
pub use json::{JsonError, encode, encode_to_vec};

const BOM: &[u8] = b"\xEF\xBB\xBF";
const RS: u8 = 0x1E;

/// The incremental framer. See the [crate docs](crate) for an example.
#[derive(Debug, Clone)]
pub struct Framer {
    config: Config,
    /// Bytes of the current record that arrived in earlier chunks. Never
    /// holds a delimiter and never grows past `config.max_line_len`.
    carry: Vec<u8>,
    /// While the current record is over the limit: its length so far. Its
    /// bytes are dropped, not carried.
    skipping: Option<u64>,
    /// Total bytes pushed so far.
    pos: u64,
    /// Stream offset where the current record starts.
    record_start: u64,
    /// Number of records numbered so far (the next one is `numbered + 1`).
    numbered: u64,
    /// [`Mode::JsonSeq`] only: whether a record separator has been seen.
    seen_rs: bool,
}

impl Framer {
    /// A framer for a new stream.
    pub fn new(config: Config) -> Framer {
        Framer {
            config,
            carry: Vec::new(),
            skipping: None,
            pos: 0,
            record_start: 0,
            numbered: 0,
            seen_rs: false,
        }
    }

    /// The configuration this framer was built with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Bytes pushed since the stream started.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Records numbered so far: the next one is `numbered() + 1`.
    pub fn numbered(&self) -> u64 {
        self.numbered
    }

    /// Whether the stream so far ends where a record ends: no bytes of an
    /// unfinished record are carried or being skipped.
    pub fn at_boundary(&self) -> bool {
        self.pos == self.record_start
    }

    /// Counts `lines` whole lines, `bytes` long with their `\n`s, as framed
    /// without framing them: for a caller that sorted them with
    /// [`sort::sort_lines`], which found each of them *plain*, so that the
    /// framer would have passed it on as a [`Line`] with no problem. Only at
    /// a record boundary, in [`Mode::Lines`].
    ///
    /// # Panics
    ///
    /// If the framer is not at a boundary or not in [`Mode::Lines`].
    pub fn pass_over(&mut self, lines: u64, bytes: u64) {
        assert!(self.at_boundary() && self.skipping.is_none() && self.carry.is_empty());
        assert_eq!(self.config.mode, Mode::Lines);
        self.pos += bytes;
        self.record_start = self.pos;
        self.numbered += lines;
    }

    /// Capacity of the carry buffer, the only memory the framer holds. It
    /// never exceeds [`Config::max_line_len`].
    pub fn buffer_capacity(&self) -> usize {
        self.carry.capacity()
    }

    /// Feeds the next chunk of the stream, calling `sink` once for every
    /// event completed by it, in stream order. Lines that lie inside `chunk`
    /// are passed borrowed from it; a line that began in an earlier chunk is
    /// passed from the framer's carry buffer.
    pub fn push<F>(&mut self, chunk: &[u8], sink: F)
    where
        F: FnMut(Event<'_>),
    {
        let delim = self.delimiter();
        // memchr's setup costs more than it saves on a few bytes, which is
        // all a byte-by-byte or small-write peer gives (benches/framing.rs).
        if chunk.len() < 16 {
            self.push_small(chunk, delim, sink);
        } else {
            self.push_large(chunk, delim, sink);
        }
    }

    /// [`Framer::push`] for a chunk of fewer than 16 bytes, as a peer that
    /// writes byte by byte or in small writes gives them: mostly a carry.
    fn push_small<F>(&mut self, chunk: &[u8], delim: u8, mut sink: F)
    where
        F: FnMut(Event<'_>),
    {
        let base = self.pos;
        let mut start = 0;
        let ends = SmallChunk {
            chunk,
            delim,
            at: 0,
        };
        for end in ends {
            self.end_of_segment(&chunk[start..end], true, &mut sink);
            start = end + 1;
            self.record_start = base + start as u64;
        }
        self.pos = base + chunk.len() as u64;
        self.carry_tail(&chunk[start..]);
    }

    /// [`Framer::push`] for a chunk of 16 bytes or more. The delimiter
    /// search never resumes after it has found nothing: memchr's iterator
    /// would scan the rest of the chunk again.
    fn push_large<F>(&mut self, chunk: &[u8], delim: u8, mut sink: F)
    where
        F: FnMut(Event<'_>),
    {
        let mut ends = memchr::memchr_iter(delim, chunk);
        let base = self.pos;
        let mut start = 0;
        // The first record may have begun in an earlier chunk (carried or
        // being skipped) or open the stream (a BOM): the general path.
        if let Some(end) = ends.next() {
            self.end_of_segment(&chunk[..end], true, &mut sink);
            start = end + 1;
            match self.config.mode {
                // Every later line lies inside this chunk and starts past
                // offset 0, with nothing carried or skipped: only the length
                // limit and the line policies apply. This loop is the
                // framer's hot path (`benches/framing.rs`); it does what
                // `end_of_segment` would.
                Mode::Lines => {
                    let limit = self.config.max_line_len;
                    for end in ends {
                        let seg = &chunk[start..end];
                        let offset = base + start as u64;
                        self.numbered += 1;
                        if seg.len() > limit {
                            let kind = ProblemKind::Overlong {
                                len: seg.len() as u64,
                                limit,
                                terminated: true,
                            };
                            sink(problem(kind, self.numbered, offset, &[]));
                        } else {
                            self.line(seg, self.numbered, offset, &mut sink);
                        }
                        start = end + 1;
                    }
                }
                Mode::JsonSeq => {
                    for end in ends {
                        self.record_start = base + start as u64;
                        self.end_of_segment(&chunk[start..end], true, &mut sink);
                        start = end + 1;
                    }
                }
            }
            self.record_start = base + start as u64;
        }
        self.pos = base + chunk.len() as u64;
        self.carry_tail(&chunk[start..]);
    }

    /// Ends the stream: reports what is left after the last delimiter
    /// (normally nothing), then resets the framer for a new stream with the
    /// same configuration.
    pub fn finish<F>(&mut self, mut sink: F)
    where
        F: FnMut(Event<'_>),
    {
        self.end_of_segment(&[], false, &mut sink);
        *self = Framer::new(self.config.clone());
    }

    fn delimiter(&self) -> u8 {
        match self.config.mode {
            Mode::Lines => b'\n',
            Mode::JsonSeq => RS,
        }
    }

    /// Stores the unfinished start of a record, or counts it when the record
    /// is over the limit.
    #[inline]
    fn carry_tail(&mut self, tail: &[u8]) {
        if tail.is_empty() {
            return;
        }
        if let Some(len) = &mut self.skipping {
            *len += tail.len() as u64;
        } else if self.carry.len() + tail.len() > self.config.max_line_len {
            self.skipping = Some((self.carry.len() + tail.len()) as u64);
            self.carry.clear();
        } else {
            self.extend_carry(tail);
        }
    }

    /// Appends to the carry buffer, growing it geometrically but never past
    /// `max_line_len`, so its capacity is itself bounded.
    #[inline]
    fn extend_carry(&mut self, bytes: &[u8]) {
        let needed = self.carry.len() + bytes.len();
        if needed > self.carry.capacity() {
            let doubled = self.carry.capacity().saturating_mul(2).max(64);
            let target = doubled.min(self.config.max_line_len).max(needed);
            self.carry.reserve_exact(target - self.carry.len());
        }
        self.carry.extend_from_slice(bytes);
    }

    /// A segment (the bytes between two delimiters) is complete: `piece` is
    /// its part in the current chunk; `delimited` is false at end of stream.
    fn end_of_segment<F>(&mut self, piece: &[u8], delimited: bool, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let limit = self.config.max_line_len;
        if let Some(len) = self.skipping.take() {
            let len = len + piece.len() as u64;
            self.overlong(len, delimited, sink);
        } else if self.carry.is_empty() {
            if piece.len() > limit {
                self.overlong(piece.len() as u64, delimited, sink);
            } else {
                self.segment(piece, delimited, sink);
            }
        } else if self.carry.len() + piece.len() > limit {
            let len = (self.carry.len() + piece.len()) as u64;
            self.carry.clear();
            self.overlong(len, delimited, sink);
        } else {
            self.extend_carry(piece);
            let carry = std::mem::take(&mut self.carry);
            self.segment(&carry, delimited, sink);
            self.carry = carry;
            self.carry.clear();
        }
    }

    fn overlong<F>(&mut self, len: u64, delimited: bool, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let (number, offset) = (self.next_number(), self.record_start);
        if self.config.mode == Mode::JsonSeq {
            self.seen_rs |= delimited;
        }
        let kind = ProblemKind::Overlong {
            len,
            limit: self.config.max_line_len,
            // In json-seq the end of the stream also ends a record.
            terminated: delimited || self.config.mode == Mode::JsonSeq,
        };
        sink(problem(kind, number, offset, &[]));
    }

    fn next_number(&mut self) -> u64 {
        self.numbered += 1;
        self.numbered
    }

    /// Applies the policies to one complete segment.
    fn segment<F>(&mut self, seg: &[u8], delimited: bool, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let mut offset = self.record_start;
        let mut seg = seg;
        if offset == 0 && seg.starts_with(BOM) {
            if self.config.bom == Bom::Report {
                sink(problem(ProblemKind::Bom, self.numbered + 1, 0, &[]));
            }
            seg = &seg[BOM.len()..];
            offset = BOM.len() as u64;
        }
        match self.config.mode {
            Mode::Lines => {
                if delimited {
                    let number = self.next_number();
                    self.line(seg, number, offset, sink);
                } else if !seg.is_empty() {
                    let number = self.next_number();
                    sink(problem(ProblemKind::Truncated, number, offset, seg));
                }
            }
            Mode::JsonSeq => {
                if !self.seen_rs {
                    // Everything before the first RS is outside any record.
                    self.seen_rs = delimited;
                    if !seg.is_empty() {
                        let number = self.next_number();
                        sink(problem(ProblemKind::OutsideRecord, number, offset, seg));
                    }
                } else if seg.is_empty() {
                    // RS RS: consecutive separators denote no record.
                } else if let Some(text) = seg.strip_suffix(b"\n") {
                    let number = self.next_number();
                    self.line(text, number, offset, sink);
                } else {
                    let number = self.next_number();
                    let kind = if delimited {
                        ProblemKind::RecordCut
                    } else {
                        ProblemKind::Truncated
                    };
                    sink(problem(kind, number, offset, seg));
                }
            }
        }
    }

    /// A record whose terminating `\n` has been removed.
    #[inline]
    fn line<F>(&self, text: &[u8], number: u64, offset: u64, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let (text, ending) = match text {
            [stripped @ .., b'\r'] if self.config.strip_cr => (stripped, Ending::CrLf),
            [.., b'\r'] => (text, Ending::CrLf),
            _ => (text, Ending::Lf),
        };
        if is_blank(text) {
            if self.config.blank_lines == BlankLines::Report {
                sink(problem(ProblemKind::Blank, number, offset, text));
            }
            return;
        }
        if self.config.check_utf8
            && !utf8::is_utf8(text)
            && let Err(e) = std::str::from_utf8(text)
        {
            let kind = ProblemKind::InvalidUtf8 {
                valid_up_to: e.valid_up_to(),
            };
            sink(problem(kind, number, offset, text));
            return;
        }
        sink(Event::Line(Line {
            bytes: Cow::Borrowed(text),
            number,
            offset,
            ending,
        }));
    }
}

/// The delimiters in a chunk of fewer than 16 bytes, found a word at a time.
struct SmallChunk<'c> {
    chunk: &'c [u8],
    delim: u8,
    /// Where the search resumes.
    at: usize,
}

impl Iterator for SmallChunk<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let rest = self.chunk.get(self.at..)?;
        match find_in_short(rest, self.delim) {
            Some(i) => {
                let end = self.at + i;
                self.at = end + 1;
                Some(end)
            }
            None => {
                self.at = self.chunk.len() + 1;
                None
            }
        }
    }
}

/// The first `delim` in `hay`, which is shorter than 16 bytes: two
/// overlapping word loads cover it.
#[inline]
fn find_in_short(hay: &[u8], delim: u8) -> Option<usize> {
    debug_assert!(hay.len() < 16);
    let n = hay.len();
    if n >= 8 {
        let splat = u64::from_ne_bytes([delim; 8]);
        let word = |at: usize| u64::from_le_bytes(hay[at..at + 8].try_into().expect("8 bytes"));
        return first_zero_byte(word(0) ^ splat)
            .or_else(|| first_zero_byte(word(n - 8) ^ splat).map(|i| n - 8 + i));
    }
    if n >= 4 {
        let splat = u32::from_ne_bytes([delim; 4]);
        let word = |at: usize| {
            let w = u32::from_le_bytes(hay[at..at + 4].try_into().expect("4 bytes"));
            u64::from(w ^ splat) | 0xFFFF_FFFF_0000_0000
        };
        return first_zero_byte(word(0))
            .or_else(|| first_zero_byte(word(n - 4)).map(|i| n - 4 + i));
    }
    hay.iter().position(|&b| b == delim)
}

/// The index of the lowest zero byte of `x` (little-endian). The classic
/// test can flag a byte above a real zero byte, never one below, so the
/// lowest flag is exact.
#[inline]
fn first_zero_byte(x: u64) -> Option<usize> {
    const LO: u64 = u64::from_ne_bytes([0x01; 8]);
    const HI: u64 = u64::from_ne_bytes([0x80; 8]);
    let flags = x.wrapping_sub(LO) & !x & HI;
    (flags != 0).then(|| flags.trailing_zeros() as usize / 8)
}

/// Frames a whole stream held in memory, as owned events.
///
/// ```
/// use rpcspec_framer::{Config, Event, frame};
/// let events = frame(&Config::default(), b"1\n\n2\n");
/// assert_eq!(events.len(), 2);
/// assert!(matches!(&events[1], Event::Line(line) if line.number == 3));
/// ```
pub fn frame(config: &Config, stream: &[u8]) -> Vec<Event<'static>> {
    let mut events = Vec::new();
    let mut framer = Framer::new(config.clone());
    framer.push(stream, |e| events.push(e.into_owned()));
    framer.finish(|e| events.push(e.into_owned()));
    events
}

/// Empty, or only JSON whitespace.
#[inline]
fn is_blank(text: &[u8]) -> bool {
    text.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

pub(crate) fn problem(kind: ProblemKind, number: u64, offset: u64, bytes: &[u8]) -> Event<'_> {
    Event::Problem(Problem {
        kind,
        number,
        offset,
        bytes: Cow::Borrowed(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find_in_short` against the obvious loop, for every length it takes,
    /// every placement of up to two delimiters, and bytes that differ from
    /// the delimiter by one bit or by a borrow.
    #[test]
    fn find_in_short_is_position() {
        for delim in [b'\n', RS, 0x00, 0x80, 0xFF] {
            for filler in [b'a', delim ^ 1, delim.wrapping_add(1), 0x80, 0xFF, 0x00] {
                if filler == delim {
                    continue;
                }
                for n in 0..16 {
                    for a in 0..=n {
                        for b in a..=n {
                            let mut hay = vec![filler; n];
                            for i in [a, b] {
                                if i < n {
                                    hay[i] = delim;
                                }
                            }
                            let naive = hay.iter().position(|&x| x == delim);
                            assert_eq!(find_in_short(&hay, delim), naive, "{hay:?} {delim}");
                        }
                    }
                }
            }
        }
    }
}
