//! What the framer reports: complete lines and framing problems.

use std::{borrow::Cow, fmt};

/// One thing the framer found in the stream, in stream order.
///
/// Every record is either delivered or replaced by a problem, so this enum
/// is closed (not `#[non_exhaustive]`): new anomalies are new
/// [`ProblemKind`]s, which is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<'a> {
    /// A complete record.
    Line(Line<'a>),
    /// A framing problem. Unless its kind says otherwise, the problem takes
    /// the place of its line: that line is not delivered, the next one is.
    Problem(Problem<'a>),
}

/// A complete record: in NDJSON, the bytes of one `\n`-terminated line.
///
/// Not `#[non_exhaustive]`, nor is [`Problem`]: test oracles (this crate's
/// naive framer among them) build the events they expect to compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// The record's bytes, without its terminator (`\n`, or `\r\n` when
    /// [`Config::with_strip_cr`](crate::Config::with_strip_cr) is on) and without a
    /// leading byte order mark. Borrowed from the pushed chunk when the line
    /// lay inside one chunk, otherwise from the framer's carry buffer.
    pub bytes: Cow<'a, [u8]>,
    /// 1-based line number (in [`Mode::JsonSeq`](crate::Mode::JsonSeq), the
    /// 1-based record number; in Content-Length framing, the message number,
    /// every header block counted). Skipped blank lines are counted.
    pub number: u64,
    /// Stream offset of `bytes[0]`.
    pub offset: u64,
    /// How the record was terminated.
    pub ending: Ending,
}

/// How a [`Line`] was terminated. More endings may come with new policies
/// (a last line delivered without its `\n`, say).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ending {
    /// A bare `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// No terminator: the body of a message ended where its
    /// `Content-Length` said ([`HeaderFramer`](crate::HeaderFramer)).
    Length,
}

/// A framing problem, located in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem<'a> {
    /// What is wrong.
    pub kind: ProblemKind,
    /// The line (record) number the problem belongs to, as for [`Line::number`].
    pub number: u64,
    /// Stream offset where the problem's line starts (after a byte order mark).
    pub offset: u64,
    /// The line's bytes where the framer kept them (invalid UTF-8, blank and
    /// truncated lines, cut records), so nothing received is lost; empty for
    /// [`ProblemKind::Bom`] and [`ProblemKind::Overlong`].
    pub bytes: Cow<'a, [u8]>,
}

/// The kinds of framing problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// A UTF-8 byte order mark opens the stream. A notice: the rest of the
    /// first line is still delivered.
    Bom,
    /// An empty or whitespace-only line, reported under
    /// [`BlankLines::Report`](crate::BlankLines::Report).
    Blank,
    /// The line is not valid UTF-8.
    InvalidUtf8 {
        /// How many bytes of the line are valid UTF-8 before the first bad one.
        valid_up_to: usize,
    },
    /// The line is longer than [`Config::with_max_line_len`](crate::Config::with_max_line_len).
    /// Its bytes were dropped, not buffered.
    Overlong {
        /// The line's full length (up to the end of the stream when
        /// `terminated` is false).
        len: u64,
        /// The configured limit.
        limit: usize,
        /// Whether the line's terminator arrived before the end of the stream.
        terminated: bool,
    },
    /// The stream ended inside a line: bytes after the last `\n` (in
    /// [`Mode::JsonSeq`](crate::Mode::JsonSeq), a last record not ending in
    /// `\n`). It is how a reader notices a stream cut off mid-write.
    Truncated,
    /// [`Mode::JsonSeq`](crate::Mode::JsonSeq): a record that does not end in
    /// `\n` was cut by the next record separator (RFC 7464 §2.1).
    RecordCut,
    /// [`Mode::JsonSeq`](crate::Mode::JsonSeq): bytes before the first record
    /// separator.
    OutsideRecord,
    /// Content-Length framing ([`HeaderFramer`](crate::HeaderFramer)): a
    /// header block without `Content-Length`. No body is framed.
    MissingLength,
    /// Content-Length framing: a `Content-Length` that is not a decimal
    /// number of bytes within `u64` (a sign, a negative, letters, an
    /// overflow). No body is framed.
    BadLength,
    /// Content-Length framing: more than one `Content-Length`. When they
    /// `agree`, a notice and the body is framed; when not, no body is.
    DuplicateLength {
        /// Whether every value is the same number.
        agree: bool,
    },
    /// Content-Length framing: a header line that is not `Name: value` (no
    /// colon, or a name that is not an HTTP token). A notice.
    HeaderLine,
    /// Content-Length framing: a header line ended by `\n` alone, not
    /// `\r\n`. A notice.
    HeaderLf,
    /// Content-Length framing: a header line, or the block it is in, over
    /// [`HeaderConfig::with_max_header`](crate::HeaderConfig::with_max_header)
    /// bytes. No body is framed.
    HeaderOverlong {
        /// The configured limit.
        limit: usize,
    },
    /// Content-Length framing: a `Content-Type` whose charset is not UTF-8
    /// (`utf-8` or `utf8`, in any case). A notice.
    Charset,
    /// Content-Length framing: bytes outside any message (before a header
    /// block, or after a body). Kept up to the header bound, counted beyond.
    Between {
        /// How many bytes.
        len: u64,
    },
}

impl ProblemKind {
    /// Whether the problem takes the place of a record (a line, a message).
    /// Not for notices, whose record is still delivered (a byte order mark;
    /// in Content-Length framing [`HeaderLine`](ProblemKind::HeaderLine),
    /// [`HeaderLf`](ProblemKind::HeaderLf), [`Charset`](ProblemKind::Charset)
    /// and an agreeing [`DuplicateLength`](ProblemKind::DuplicateLength)),
    /// nor for [`Between`](ProblemKind::Between), bytes outside any record.
    pub fn replaces_record(&self) -> bool {
        !matches!(
            self,
            ProblemKind::Bom
                | ProblemKind::HeaderLine
                | ProblemKind::HeaderLf
                | ProblemKind::Charset
                | ProblemKind::DuplicateLength { agree: true }
                | ProblemKind::Between { .. }
        )
    }
}

impl Event<'_> {
    /// Copies borrowed bytes so the event outlives the pushed chunk.
    pub fn into_owned(self) -> Event<'static> {
        match self {
            Event::Line(l) => Event::Line(l.into_owned()),
            Event::Problem(p) => Event::Problem(p.into_owned()),
        }
    }
}

impl Line<'_> {
    /// Copies borrowed bytes so the line outlives the pushed chunk.
    pub fn into_owned(self) -> Line<'static> {
        Line {
            bytes: Cow::Owned(self.bytes.into_owned()),
            number: self.number,
            offset: self.offset,
            ending: self.ending,
        }
    }

    /// The line as text. Always `Ok` when [`Config::with_check_utf8`](crate::Config::with_check_utf8)
    /// is on (the default), because the framer then only delivers valid UTF-8.
    pub fn as_str(&self) -> Result<&str, std::str::Utf8Error> {
        crate::utf8::from_utf8(&self.bytes)
    }
}

impl Problem<'_> {
    /// Copies borrowed bytes so the problem outlives the pushed chunk.
    pub fn into_owned(self) -> Problem<'static> {
        Problem {
            kind: self.kind,
            number: self.number,
            offset: self.offset,
            bytes: Cow::Owned(self.bytes.into_owned()),
        }
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ProblemKind::Bom => f.write_str("byte order mark at the start of the stream"),
            ProblemKind::Blank => f.write_str("blank line"),
            ProblemKind::InvalidUtf8 { valid_up_to } => {
                write!(f, "invalid utf-8 after {valid_up_to} valid bytes")
            }
            ProblemKind::Overlong {
                len,
                limit,
                terminated,
            } => overlong(f, "line", len, limit, terminated),
            ProblemKind::Truncated => f.write_str("stream ended inside a line (no final newline)"),
            ProblemKind::RecordCut => {
                f.write_str("record cut by the next record separator before its newline")
            }
            ProblemKind::OutsideRecord => f.write_str("bytes before the first record separator"),
            ProblemKind::MissingLength => {
                f.write_str("header block without Content-Length (the base protocol requires it)")
            }
            ProblemKind::BadLength => {
                f.write_str("Content-Length is not a decimal number of bytes")
            }
            ProblemKind::DuplicateLength { agree: true } => {
                f.write_str("Content-Length given more than once (the same number)")
            }
            ProblemKind::DuplicateLength { agree: false } => {
                f.write_str("Content-Length given more than once, with different numbers")
            }
            ProblemKind::HeaderLine => f.write_str("header line that is not `Name: value`"),
            ProblemKind::HeaderLf => f.write_str("header line ended by \\n alone, not \\r\\n"),
            ProblemKind::HeaderOverlong { limit } => {
                write!(f, "header block exceeds the limit of {limit} bytes")
            }
            ProblemKind::Charset => f.write_str("Content-Type charset is not utf-8"),
            ProblemKind::Between { len } => write!(f, "{len} bytes outside any message"),
        }
    }
}

/// How many kept bytes `Display` shows before eliding the rest.
const SHOWN_BYTES: usize = 64;

/// `line N (byte O): kind`, then up to 64 of the kept bytes, escaped.
impl fmt::Display for Problem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display_as("line").fmt(f)
    }
}

impl Problem<'_> {
    /// As `Display`, for a stream whose records are `noun`s: `"message"` in
    /// Content-Length framing, where a cut or over-long record is a message,
    /// not a line.
    pub fn display_as<'s>(&'s self, noun: &'s str) -> impl fmt::Display + 's {
        DisplayAs {
            problem: self,
            noun,
        }
    }
}

/// [`ProblemKind::Overlong`] said of a record called `noun`.
fn overlong(
    f: &mut fmt::Formatter<'_>,
    noun: &str,
    len: u64,
    limit: usize,
    terminated: bool,
) -> fmt::Result {
    let end = if terminated {
        ""
    } else {
        " before the stream ended"
    };
    write!(
        f,
        "{noun} of {len} bytes{end} exceeds the limit of {limit} bytes"
    )
}

struct DisplayAs<'s, 'a> {
    problem: &'s Problem<'a>,
    noun: &'s str,
}

impl fmt::Display for DisplayAs<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (p, noun) = (self.problem, self.noun);
        write!(f, "{noun} {} (byte {}): ", p.number, p.offset)?;
        match p.kind {
            _ if noun == "line" => write!(f, "{}", p.kind)?,
            ProblemKind::Truncated => write!(f, "stream ended inside a {noun}")?,
            ProblemKind::Overlong {
                len,
                limit,
                terminated,
            } => overlong(f, noun, len, limit, terminated)?,
            kind => write!(f, "{kind}")?,
        }
        let bytes = &p.bytes;
        if !bytes.is_empty() {
            let shown = &bytes[..bytes.len().min(SHOWN_BYTES)];
            write!(f, ": \"{}\"", shown.escape_ascii())?;
            if shown.len() < bytes.len() {
                write!(f, " (and {} more bytes)", bytes.len() - shown.len())?;
            }
        }
        Ok(())
    }
}
