//! The other framing JSON-RPC travels in: a block of `Name: value` header
//! lines, each ended by `\r\n`, an empty line, then a body of exactly
//! `Content-Length` bytes (the LSP 3.17 "Base Protocol", which language
//! servers and their clients speak on stdio).
//!
//! [`HeaderFramer`] is sans-IO and push-based like [`Framer`](crate::Framer),
//! and reports in the same [`Event`]s: a body is a [`Line`] (its `number` is
//! the message's, its `ending` [`Ending::Length`]); every departure from the
//! base protocol is a [`Problem`](crate::Problem) located at its byte offset. Any chunking of
//! a stream gives the same events.
//!
//! What the base protocol says, and what the framer does where it is silent:
//!
//! * "The length of the content part in bytes. This header is required."
//!   A block without one is [`ProblemKind::MissingLength`]; one whose value
//!   is not a decimal number of bytes (negative, a sign, over `u64`) is
//!   [`ProblemKind::BadLength`]. Neither says where the body ends: the
//!   bytes after the block are read as what comes between messages.
//! * Header names are matched in any case, as HTTP's are; headers the
//!   protocol does not name are allowed and ignored.
//! * `Content-Type` defaults to `application/vscode-jsonrpc; charset=utf-8`;
//!   `utf8` is read as `utf-8`, as the specification asks. Another charset
//!   is [`ProblemKind::Charset`], a notice: the body is still delivered.
//! * Bytes outside any message (a log line on stdout, an extra `\r\n`) are
//!   [`ProblemKind::Between`]; a header that follows them on the same line
//!   is still found, so one stray write does not lose the messages after it.
//! * A body that is not one JSON value is the reader's to find, as in NDJSON;
//!   a body that is not UTF-8 is [`ProblemKind::InvalidUtf8`].
//!
//! Bounds: a header block keeps at most [`HeaderConfig::max_header`] bytes
//! (over it: [`ProblemKind::HeaderOverlong`]); a body over
//! [`HeaderConfig::max_body`] is counted, not kept ([`ProblemKind::Overlong`]);
//! bytes between messages are kept up to `max_header` and counted beyond.

use std::borrow::Cow;

pub use crate::config::{DEFAULT_MAX_HEADER_LEN, HeaderConfig};
use crate::{Ending, Event, Line, ProblemKind, problem, utf8};

/// Bytes kept up to a cap, counted beyond it.
#[derive(Debug, Clone, Default)]
struct Kept {
    start: u64,
    bytes: Vec<u8>,
    len: u64,
}

impl Kept {
    fn add(&mut self, at: u64, piece: &[u8], cap: usize) {
        if self.len == 0 {
            self.start = at;
        }
        let room = cap.saturating_sub(self.bytes.len());
        self.bytes
            .extend_from_slice(&piece[..piece.len().min(room)]);
        self.len += piece.len() as u64;
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The header block being read.
#[derive(Debug, Clone, Default)]
struct Block {
    /// Its bytes (and offset, length).
    kept: Kept,
    /// Each `Content-Length` value: `None` where it is not a number.
    lengths: Vec<Option<u64>>,
    /// Notices for the block, each once, in the order found.
    notices: Vec<ProblemKind>,
}

impl Block {
    /// Empty, its buffers kept for the next block.
    fn clear(&mut self) {
        self.kept.bytes.clear();
        self.kept.len = 0;
        self.lengths.clear();
        self.notices.clear();
    }

    fn notice(&mut self, kind: ProblemKind) {
        if !self.notices.contains(&kind) {
            self.notices.push(kind);
        }
    }
}

/// The body being read.
#[derive(Debug, Clone)]
struct Body {
    number: u64,
    start: u64,
    len: u64,
    got: u64,
    /// Over `max_body`: counted, not kept.
    skip: bool,
    bytes: Vec<u8>,
}

/// The incremental `Content-Length` framer.
#[derive(Debug, Clone)]
pub struct HeaderFramer {
    config: HeaderConfig,
    /// Total bytes pushed so far.
    pos: u64,
    /// Messages numbered so far: every header block that ended.
    numbered: u64,
    /// The current header line: its first `max_header + 2` bytes.
    line: Kept,
    /// The open header block, from its first header line.
    block: Option<Block>,
    /// Bytes between messages not yet reported.
    between: Kept,
    body: Option<Body>,
    /// The buffers of the last block and body, cleared, for the next ones:
    /// a stream fed in small pieces allocates once, not per message.
    spare_block: Block,
    spare_body: Vec<u8>,
    /// A header block that may be one [`HeaderFramer::quick`] reads, held
    /// from the message's start until its empty line arrives (at most
    /// `max_header + 1` bytes).
    head: Vec<u8>,
}

/// The most header lines [`HeaderFramer::quick`] reads (peers write one to
/// three); a longer block goes line by line. It bounds the work of reading
/// a held block again as its lines arrive.
const QUICK_LINES: usize = 16;

/// What [`HeaderFramer::quick`] makes of the bytes at a message's start.
enum Quick {
    /// A whole header block of this many bytes, and the body's length.
    Block(usize, u64),
    /// Well-formed so far, within the bound, but not whole.
    Unfinished,
    /// Not a block it reads: the line-by-line path reads it.
    No,
}

impl HeaderFramer {
    /// A framer for a new stream.
    pub fn new(config: HeaderConfig) -> HeaderFramer {
        HeaderFramer {
            config,
            pos: 0,
            numbered: 0,
            line: Kept::default(),
            block: None,
            between: Kept::default(),
            body: None,
            spare_block: Block::default(),
            spare_body: Vec::new(),
            head: Vec::new(),
        }
    }

    /// The configuration this framer was built with.
    pub fn config(&self) -> &HeaderConfig {
        &self.config
    }

    /// Bytes pushed since the stream started.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Whether the stream so far ends where a message ends: nothing of a
    /// header, a body or stray bytes is held.
    pub fn at_boundary(&self) -> bool {
        self.body.is_none()
            && self.head.is_empty()
            && self.block.is_none()
            && self.line.is_empty()
            && self.between.is_empty()
    }

    /// Feeds the next chunk, calling `sink` for every event it completes, in
    /// stream order. A body that lies inside `chunk` is passed borrowed from
    /// it.
    pub fn push<F>(&mut self, chunk: &[u8], mut sink: F)
    where
        F: FnMut(Event<'_>),
    {
        // Inside a body that goes on past the chunk (a large message, or
        // small pieces of any): carried, and nothing else to do.
        if let Some(body) = self.body.as_mut()
            && !body.skip
            && !body.bytes.is_empty()
            && body.len - body.got > chunk.len() as u64
        {
            body.bytes.extend_from_slice(chunk);
            body.got += chunk.len() as u64;
            self.pos += chunk.len() as u64;
            return;
        }
        self.run(chunk, true, &mut sink);
    }

    /// Reads `chunk`, which starts at `self.pos`. `gather`: a header block
    /// that may be one [`HeaderFramer::quick`] reads, but is not whole yet,
    /// is held in `head` until it is (off when `head` itself is read again).
    fn run<F>(&mut self, chunk: &[u8], gather: bool, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let mut at = 0;
        while at < chunk.len() {
            let rest = &chunk[at..];
            let used = if self.body.is_some() {
                self.body_bytes(rest, sink)
            } else if !self.head.is_empty() {
                self.more_head(rest, sink)
            } else if self.at_boundary() {
                match self.quick(rest) {
                    Quick::Block(head, len) => self.quick_message(rest, head, len, sink),
                    Quick::Unfinished if gather => {
                        self.head.extend_from_slice(rest);
                        rest.len()
                    }
                    _ => self.line_bytes(rest, sink),
                }
            } else {
                self.line_bytes(rest, sink)
            };
            at += used;
            self.pos += used as u64;
        }
    }

    /// The usual case, taken without a copy: a whole, well-formed header
    /// block of `head` bytes at the start of `rest`, and as often its whole
    /// body. Returns the bytes used.
    fn quick_message<F>(&mut self, rest: &[u8], head: usize, len: u64, sink: &mut F) -> usize
    where
        F: FnMut(Event<'_>),
    {
        self.numbered += 1;
        let (number, start) = (self.numbered, self.pos + head as u64);
        let whole = usize::try_from(len)
            .ok()
            .filter(|&l| l <= self.config.max_body && l <= rest.len() - head);
        match whole {
            Some(l) => {
                self.deliver(&rest[head..head + l], number, start, sink);
                head + l
            }
            None => {
                self.open_body(number, start, len, sink);
                head
            }
        }
    }

    /// Adds the front of `rest` to the held header block: a whole block is
    /// read as one; a block that turns out not to be one
    /// [`HeaderFramer::quick`] reads is read again, line by line, from where
    /// it began. Returns the bytes of `rest` used.
    fn more_head<F>(&mut self, rest: &[u8], sink: &mut F) -> usize
    where
        F: FnMut(Event<'_>),
    {
        let had = self.head.len();
        let room = self
            .config
            .max_header
            .saturating_add(1)
            .saturating_sub(had)
            .max(1);
        let take = rest.len().min(room);
        self.head.extend_from_slice(&rest[..take]);
        // Its lines are read again only when one more has ended.
        if !rest[..take].contains(&b'\n') && self.head.len() <= self.config.max_header {
            return take;
        }
        match self.quick(&self.head) {
            Quick::Block(head, len) => {
                // Unfinished before `rest`: it ends in `rest`.
                let used = head - had;
                self.head.clear();
                self.numbered += 1;
                self.open_body(self.numbered, self.pos + used as u64, len, sink);
                used
            }
            Quick::Unfinished => take,
            Quick::No => {
                let mut head = std::mem::take(&mut self.head);
                self.pos -= had as u64;
                self.run(&head, false, sink);
                // `run` counted `take` bytes of `rest`; the caller counts them.
                self.pos -= take as u64;
                head.clear();
                self.head = head;
                take
            }
        }
    }

    /// The line-by-line path: the front of `rest` as header lines (and
    /// what is between messages). Returns the bytes used.
    fn line_bytes<F>(&mut self, rest: &[u8], sink: &mut F) -> usize
    where
        F: FnMut(Event<'_>),
    {
        let here = self.pos;
        let cap = self.config.max_header.saturating_add(2);
        let Some(end) = memchr::memchr(b'\n', rest) else {
            self.line.add(here, rest, cap);
            return rest.len();
        };
        self.line.add(here, &rest[..=end], cap);
        let line = std::mem::take(&mut self.line);
        self.header_line(&line, sink);
        self.line = line;
        self.line.bytes.clear();
        self.line.len = 0;
        end + 1
    }

    /// Ends the stream: reports what was left unfinished (a body or a header
    /// cut short, stray bytes), then resets for a new stream.
    pub fn finish<F>(&mut self, mut sink: F)
    where
        F: FnMut(Event<'_>),
    {
        if !self.head.is_empty() {
            let head = std::mem::take(&mut self.head);
            self.pos -= head.len() as u64;
            self.run(&head, false, &mut sink);
        }
        if let Some(body) = self.body.take() {
            let kind = if body.skip {
                ProblemKind::Overlong {
                    len: body.len,
                    limit: self.config.max_body,
                    terminated: false,
                }
            } else {
                ProblemKind::Truncated
            };
            sink(problem(kind, body.number, body.start, &body.bytes));
        } else if let Some(mut block) = self.block.take() {
            let line = std::mem::take(&mut self.line);
            block
                .kept
                .add(line.start, &line.bytes, self.config.max_header);
            let number = self.numbered + 1;
            sink(problem(
                ProblemKind::Truncated,
                number,
                block.kept.start,
                &block.kept.bytes,
            ));
        } else if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.between
                .add(line.start, &line.bytes, self.config.max_header);
            self.between.len += line.len - line.bytes.len() as u64;
        }
        self.flush_between(&mut sink);
        *self = HeaderFramer::new(self.config.clone());
    }

    /// Reads body bytes from the front of `rest`; returns how many.
    fn body_bytes<F>(&mut self, rest: &[u8], sink: &mut F) -> usize
    where
        F: FnMut(Event<'_>),
    {
        let Some(body) = self.body.as_mut() else {
            return 0;
        };
        let need = body.len - body.got;
        let take = (need.min(rest.len() as u64)) as usize;
        let piece = &rest[..take];
        body.got += take as u64;
        if body.got < body.len {
            if !body.skip {
                if body.bytes.is_empty() {
                    // Room for the whole body up to 1 MiB: no copy on growth
                    // for most, no more than that held for a length that lies.
                    body.bytes.reserve_exact(body.len.min(1 << 20) as usize);
                }
                body.bytes.extend_from_slice(piece);
            }
            return take;
        }
        let body = self.body.take().expect("a body is being read");
        if body.skip {
            let kind = ProblemKind::Overlong {
                len: body.len,
                limit: self.config.max_body,
                terminated: true,
            };
            sink(problem(kind, body.number, body.start, &[]));
        } else if body.bytes.is_empty() {
            self.deliver(piece, body.number, body.start, sink);
        } else {
            let mut bytes = body.bytes;
            bytes.extend_from_slice(piece);
            self.deliver(&bytes, body.number, body.start, sink);
            bytes.clear();
            self.spare_body = bytes;
        }
        take
    }

    fn deliver<F>(&self, bytes: &[u8], number: u64, offset: u64, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        if self.config.check_utf8 && !utf8::is_utf8(bytes) {
            let valid_up_to = match std::str::from_utf8(bytes) {
                Ok(_) => bytes.len(),
                Err(e) => e.valid_up_to(),
            };
            sink(problem(
                ProblemKind::InvalidUtf8 { valid_up_to },
                number,
                offset,
                bytes,
            ));
            return;
        }
        sink(Event::Line(Line {
            bytes: Cow::Borrowed(bytes),
            number,
            offset,
            ending: Ending::Length,
        }));
    }

    /// One complete header line, `\n` included, from `line`'s kept bytes.
    fn header_line<F>(&mut self, line: &Kept, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let max = self.config.max_header;
        let whole = line.len == line.bytes.len() as u64;
        let ended = &line.bytes[..line.bytes.len() - usize::from(whole)];
        let (text, crlf) = match ended.strip_suffix(b"\r") {
            Some(text) => (text, true),
            None => (ended, false),
        };
        if !whole || (self.block.is_some() && self.block_len() + line.len > max as u64) {
            self.header_overlong(line, sink);
            return;
        }
        if text.is_empty() {
            if let Some(block) = self.block.as_mut() {
                if !crlf {
                    block.notice(ProblemKind::HeaderLf);
                }
                self.end_block(line.start + line.len, sink);
            } else {
                self.between.add(line.start, &line.bytes, max);
            }
            return;
        }
        if let Some(block) = self.block.as_mut() {
            block.kept.add(line.start, &line.bytes, max);
            match field(text) {
                Some((name, value)) => read_field(block, name, value),
                None => block.notice(ProblemKind::HeaderLine),
            }
            if !crlf {
                block.notice(ProblemKind::HeaderLf);
            }
            return;
        }
        // Outside a block: a header opens one, possibly after stray bytes on
        // the same line (a log line written without its own line end).
        let Some(at) = field_start(text, crlf) else {
            self.between.add(line.start, &line.bytes, max);
            return;
        };
        self.between.add(line.start, &line.bytes[..at], max);
        self.flush_between(sink);
        let mut block = std::mem::take(&mut self.spare_block);
        block
            .kept
            .add(line.start + at as u64, &line.bytes[at..], max);
        if let Some((name, value)) = field(&text[at..]) {
            read_field(&mut block, name, value);
        }
        if !crlf {
            block.notice(ProblemKind::HeaderLf);
        }
        self.block = Some(block);
    }

    fn block_len(&self) -> u64 {
        self.block.as_ref().map_or(0, |b| b.kept.len)
    }

    /// A header line, or the block it would join, is over `max_header`.
    fn header_overlong<F>(&mut self, line: &Kept, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let max = self.config.max_header;
        match self.block.take() {
            Some(mut block) => {
                block.kept.add(line.start, &line.bytes, max);
                self.numbered += 1;
                let kind = ProblemKind::HeaderOverlong { limit: max };
                sink(problem(
                    kind,
                    self.numbered,
                    block.kept.start,
                    &block.kept.bytes,
                ));
                block.clear();
                self.spare_block = block;
            }
            // A first header line already over the bound: the header is.
            None if field(&line.bytes).is_some() => {
                self.flush_between(sink);
                self.numbered += 1;
                let kind = ProblemKind::HeaderOverlong { limit: max };
                let kept = &line.bytes[..line.bytes.len().min(max)];
                sink(problem(kind, self.numbered, line.start, kept));
            }
            None => {
                self.between.add(line.start, &line.bytes, max);
                self.between.len += line.len - line.bytes.len() as u64;
            }
        }
    }

    /// The empty line that ends a header block: its notices, then the body
    /// (from `body_start`) if the block says how long it is.
    fn end_block<F>(&mut self, body_start: u64, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        let Some(mut block) = self.block.take() else {
            return;
        };
        self.numbered += 1;
        let number = self.numbered;
        let len = match *block.lengths.as_slice() {
            [] => Err(ProblemKind::MissingLength),
            ref all if all.iter().any(Option::is_none) => Err(ProblemKind::BadLength),
            [first, ref rest @ ..] if rest.iter().any(|l| *l != first) => {
                Err(ProblemKind::DuplicateLength { agree: false })
            }
            [first, ref rest @ ..] => {
                if !rest.is_empty() {
                    block.notice(ProblemKind::DuplicateLength { agree: true });
                }
                Ok(first.unwrap_or_default())
            }
        };
        let (start, bytes) = (block.kept.start, &block.kept.bytes);
        for kind in &block.notices {
            sink(problem(*kind, number, start, bytes));
        }
        match len {
            Err(kind) => sink(problem(kind, number, start, bytes)),
            Ok(len) => self.open_body(number, body_start, len, sink),
        }
        block.clear();
        self.spare_block = block;
    }

    /// The body of message `number` starts at `start`: `len` bytes.
    fn open_body<F>(&mut self, number: u64, start: u64, len: u64, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        self.body = Some(Body {
            number,
            start,
            len,
            got: 0,
            skip: len > self.config.max_body as u64,
            bytes: std::mem::take(&mut self.spare_body),
        });
        if len == 0 {
            self.body_bytes(&[], sink);
        }
    }

    /// Whether `bytes` opens with a header block that the line-by-line path
    /// would read without a notice or a problem: every line a field ended
    /// by `\r\n`, one `Content-Length` that is a number, a UTF-8 charset if
    /// any, the whole block within `max_header`.
    fn quick(&self, bytes: &[u8]) -> Quick {
        let max = self.config.max_header;
        // What nearly every peer writes: `Content-Length: N\r\n\r\n`.
        const USUAL: &[u8] = b"Content-Length: ";
        const END: &[u8] = b"\r\n\r\n";
        if let Some(tail) = bytes.strip_prefix(USUAL) {
            let digits = tail.iter().take_while(|b| b.is_ascii_digit()).count();
            let at = USUAL.len() + digits + END.len();
            let ending = &tail[digits..];
            if digits > 0 && at <= max {
                if ending.starts_with(END)
                    && let Some(len) = decimal(&tail[..digits])
                {
                    return Quick::Block(at, len);
                }
                // Cut inside the usual block (small pushes): more to come.
                if ending.len() < END.len() && END.starts_with(ending) {
                    return Quick::Unfinished;
                }
            }
        } else if bytes.len() < USUAL.len() && bytes.len() <= max && USUAL.starts_with(bytes) {
            return Quick::Unfinished;
        }
        let (mut at, mut len) = (0, None);
        for _ in 0..QUICK_LINES {
            let Some(end) = memchr::memchr(b'\n', &bytes[at..]).map(|i| at + i) else {
                return if bytes.len() <= max {
                    Quick::Unfinished
                } else {
                    Quick::No
                };
            };
            if end >= max {
                return Quick::No;
            }
            let Some(line) = bytes[at..end].strip_suffix(b"\r") else {
                return Quick::No;
            };
            at = end + 1;
            if line.is_empty() {
                return len.map_or(Quick::No, |len| Quick::Block(at, len));
            }
            let Some((name, value)) = field(line) else {
                return Quick::No;
            };
            if name.eq_ignore_ascii_case(b"content-length") {
                match (len, decimal(value)) {
                    (None, Some(n)) => len = Some(n),
                    _ => return Quick::No,
                }
            } else if name.eq_ignore_ascii_case(b"content-type") && !utf8_charset(value) {
                return Quick::No;
            }
        }
        Quick::No
    }

    fn flush_between<F>(&mut self, sink: &mut F)
    where
        F: FnMut(Event<'_>),
    {
        if self.between.is_empty() {
            return;
        }
        let between = std::mem::take(&mut self.between);
        let kind = ProblemKind::Between { len: between.len };
        sink(problem(
            kind,
            self.numbered + 1,
            between.start,
            &between.bytes,
        ));
    }
}

/// `Name: value` as a header field: a name of HTTP token characters, a
/// colon, a value trimmed of spaces and tabs (HTTP's optional whitespace;
/// a stray `\r` stays, and makes a length no number).
fn field(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = memchr::memchr(b':', text)?;
    let (name, value) = (&text[..colon], &text[colon + 1..]);
    if name.is_empty() || !name.iter().all(|&b| is_token(b)) {
        return None;
    }
    let ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = value.iter().position(|b| !ows(b)).unwrap_or(value.len());
    let end = value.iter().rposition(|b| !ows(b)).map_or(start, |e| e + 1);
    Some((name, &value[start..end]))
}

/// Where a header block starts in a line read outside one: at the first
/// `Content-Length: N` in it (any case, N a number) that does not end a
/// longer header name (`X-Content-Length`), if there is one; else at its
/// start if the line is a field ended by `\r\n`. So a log line written to
/// stdout (`WARN: …\n`, `error: bad content-length: x\n`) is not taken for
/// a header, and a header written right after stray bytes (`ready`, a body
/// longer than its length said) is still found.
fn field_start(text: &[u8], crlf: bool) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    let found = text
        .windows(NAME.len())
        .position(|w| w.eq_ignore_ascii_case(NAME))
        .filter(|&at| at == 0 || text[at - 1] != b'-')
        .filter(|&at| field(&text[at..]).is_some_and(|(_, value)| decimal(value).is_some()));
    match found {
        Some(at) => Some(at),
        None if crlf && field(text).is_some() => Some(0),
        None => None,
    }
}

/// RFC 9110's `tchar`.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn read_field(block: &mut Block, name: &[u8], value: &[u8]) {
    if name.eq_ignore_ascii_case(b"content-length") {
        block.lengths.push(decimal(value));
    } else if name.eq_ignore_ascii_case(b"content-type") && !utf8_charset(value) {
        block.notice(ProblemKind::Charset);
    }
}

/// A decimal number of bytes: ASCII digits only, no sign, within `u64`.
fn decimal(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    value.iter().try_fold(0u64, |n, d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// Whether a `Content-Type` value says UTF-8: no `charset` parameter (the
/// default is `utf-8`), or `utf-8` / `utf8` in any case, quoted or not.
fn utf8_charset(value: &[u8]) -> bool {
    for param in value.split(|&b| b == b';').skip(1) {
        let Some(eq) = memchr::memchr(b'=', param) else {
            continue;
        };
        if !param[..eq].trim_ascii().eq_ignore_ascii_case(b"charset") {
            continue;
        }
        let charset = param[eq + 1..].trim_ascii();
        let charset = charset
            .strip_prefix(b"\"")
            .and_then(|c| c.strip_suffix(b"\""))
            .unwrap_or(charset);
        return charset.eq_ignore_ascii_case(b"utf-8") || charset.eq_ignore_ascii_case(b"utf8");
    }
    true
}

/// Frames a whole stream held in memory: every event, owned.
pub fn frame_headers(config: HeaderConfig, stream: &[u8]) -> Vec<Event<'static>> {
    let mut events = Vec::new();
    let mut framer = HeaderFramer::new(config);
    framer.push(stream, |e| events.push(e.into_owned()));
    framer.finish(|e| events.push(e.into_owned()));
    events
}

/// The bytes of one message in this framing: `Content-Length: N\r\n\r\n`
/// and the body.
pub fn encode_message(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}
