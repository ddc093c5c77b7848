//! `rpcspec-mutant-decoder NAME`: an NDJSON decoder with one realistic bug,
//! speaking the decoder adapter contract (`spec-cases/decoder/README.md`).
//!
//! Each bug has been seen in real stream readers (the research notes name
//! the issues). `tests/decoder_self_test.rs` runs the decoder cases against
//! every mutant and asserts which cases catch it. `reference` is the
//! reference decoder, `rpcspec serve --role decoder`.

use std::{
    io::{self, Read, Write},
    process::ExitCode,
};

use serde_json::{Value, json};

/// Every mutant: name and the bug it has.
const MUTANTS: &[(&str, &str)] = &[
    ("reference", "none: the reference decoder"),
    (
        "chunk-as-record",
        "takes the lines of each read() as whole records, with no carry across reads",
    ),
    (
        "utf8-per-chunk",
        "decodes each read() as UTF-8 on its own (lossy): a split character becomes U+FFFD",
    ),
    (
        "leaks-cr",
        "splits on \\n and keeps the \\r of \\r\\n in the record",
    ),
    (
        "splits-u2028",
        "splits lines on U+2028, U+2029 and NEL too (str.splitlines)",
    ),
    (
        "splits-on-cr",
        "takes a lone \\r for a line break too (Node readline, universal newlines)",
    ),
    ("drops-tail", "drops bytes after the last \\n silently"),
    (
        "complete-without-done",
        "reports every stream complete, done record or not",
    ),
    (
        "done-only-ends",
        "takes only a done record for the end of the stream, not an error record",
    ),
    (
        "skips-bad-lines",
        "drops a line it cannot decode without a word (`except ValueError: continue`)",
    ),
    (
        "skips-non-json-lines",
        "ignores lines that do not start with { or [ (a log-noise filter): the BOM's line and top-level scalars vanish",
    ),
    (
        "counts-braces",
        "frames records by counting braces and brackets, not by \\n, tracking strings but not \\\" escapes",
    ),
    (
        "rejects-cr",
        "rejects a line holding \\r, the writer rule \"MUST NOT contain … carriage returns\" applied to reading",
    ),
    (
        "stops-at-blank-line",
        "takes the first blank line for the end of the stream (`if not line.strip(): break`)",
    ),
    (
        "truncates-at-64k",
        "reads lines into a 64 KiB buffer (fgets): a longer line comes out in 64 KiB pieces, each read as a record",
    ),
    (
        "keeps-lone-surrogates",
        "decodes invalid UTF-8 with surrogateescape (Python's stdin) and writes the lone surrogates into the value",
    ),
    (
        "eof-mid-line-aborts",
        "fails when the stream ends without \\n (an UnexpectedEof returned with `?`), losing its end record",
    ),
];

/// The bug switched on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bug {
    ChunkAsRecord,
    Utf8PerChunk,
    LeaksCr,
    SplitsU2028,
    SplitsOnCr,
    DropsTail,
    CompleteWithoutDone,
    DoneOnlyEnds,
    SkipsBadLines,
    SkipsNonJsonLines,
    CountsBraces,
    RejectsCr,
    StopsAtBlankLine,
    TruncatesAt64k,
    KeepsLoneSurrogates,
    EofMidLineAborts,
}

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    let bug = match name.as_str() {
        "reference" => None,
        "chunk-as-record" => Some(Bug::ChunkAsRecord),
        "utf8-per-chunk" => Some(Bug::Utf8PerChunk),
        "leaks-cr" => Some(Bug::LeaksCr),
        "splits-u2028" => Some(Bug::SplitsU2028),
        "splits-on-cr" => Some(Bug::SplitsOnCr),
        "drops-tail" => Some(Bug::DropsTail),
        "complete-without-done" => Some(Bug::CompleteWithoutDone),
        "done-only-ends" => Some(Bug::DoneOnlyEnds),
        "skips-bad-lines" => Some(Bug::SkipsBadLines),
        "skips-non-json-lines" => Some(Bug::SkipsNonJsonLines),
        "counts-braces" => Some(Bug::CountsBraces),
        "rejects-cr" => Some(Bug::RejectsCr),
        "stops-at-blank-line" => Some(Bug::StopsAtBlankLine),
        "truncates-at-64k" => Some(Bug::TruncatesAt64k),
        "keeps-lone-surrogates" => Some(Bug::KeepsLoneSurrogates),
        "eof-mid-line-aborts" => Some(Bug::EofMidLineAborts),
        _ => {
            eprintln!("usage: rpcspec-mutant-decoder NAME\n\nmutants:");
            for (n, bug) in MUTANTS {
                eprintln!("  {n:<24} {bug}");
            }
            return ExitCode::from(2);
        }
    };
    // Offered many streams over named pipes, the mutant takes them: its
    // bug must show the same in one process as in one per stream.
    let one = |input: &mut dyn Read, out: &mut dyn Write| match bug {
        None => rpcspec::decoder::serve(input, out),
        Some(bug) => decode(bug, input, out),
    };
    let (input, mut output) = (io::stdin().lock(), io::stdout().lock());
    let served = if rpcspec::decoder::offered_pipes() {
        rpcspec::decoder::serve_pipes(input, output, |mut pipe, out| one(&mut pipe, out))
    } else {
        one(&mut { input }, &mut output)
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// A line longer than this comes out in pieces under `truncates-at-64k`.
const LINE_BUFFER: usize = 64 * 1024;

/// `keeps-lone-surrogates`: the invalid byte B is held as this private-use
/// character + B while the line is parsed (a Rust string cannot hold a
/// lone surrogate), then written as `\uDCB` (B 0x80-0xFF), as
/// `json.dumps` writes what `surrogateescape` made of it.
const ESCAPED_BYTE: u32 = 0x10_FF00;

/// A hand-written line decoder: correct except for `bug`.
struct Decoder<W: Write> {
    bug: Bug,
    out: W,
    terminal: bool,
    first: bool,
    /// `stops-at-blank-line` saw its blank line.
    stopped: bool,
}

impl<W: Write> Decoder<W> {
    fn record(&mut self, mut line: &[u8]) -> io::Result<()> {
        if self.bug == Bug::SkipsNonJsonLines && !matches!(line.first(), Some(b'{' | b'[')) {
            return Ok(());
        }
        if std::mem::take(&mut self.first) {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if self.bug == Bug::RejectsCr && line.contains(&b'\r') {
            return self.emit(json!({ "error": "carriage return in a record" }));
        }
        if self.bug == Bug::LeaksCr {
            if line.is_empty() {
                return Ok(());
            }
        } else {
            line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(|b| matches!(b, b' ' | b'\t')) {
                self.stopped = self.bug == Bug::StopsAtBlankLine;
                return Ok(());
            }
        }
        let text = match std::str::from_utf8(line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) if self.bug == Bug::KeepsLoneSurrogates => surrogateescape(line).into(),
            Err(_) if self.bug == Bug::SkipsBadLines => return Ok(()),
            Err(_) => return self.emit(json!({ "error": "invalid utf-8" })),
        };
        let breaks: &[char] = match self.bug {
            Bug::SplitsU2028 => &['\u{2028}', '\u{2029}', '\u{85}'],
            Bug::SplitsOnCr => &['\r'],
            _ => &[],
        };
        if !breaks.is_empty() {
            let pieces: Vec<&str> = text.split(breaks).filter(|p| !p.is_empty()).collect();
            for piece in pieces {
                self.parse(piece)?;
            }
            return Ok(());
        }
        self.parse(&text)
    }

    fn parse(&mut self, text: &str) -> io::Result<()> {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => {
                let ends: &[&str] = if self.bug == Bug::DoneOnlyEnds {
                    &["done"]
                } else {
                    &["done", "error"]
                };
                self.terminal = v
                    .get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| ends.contains(&t));
                self.emit(json!({ "value": v }))
            }
            Err(_) if self.bug == Bug::SkipsBadLines => Ok(()),
            Err(e) => self.emit(json!({ "error": e.to_string() })),
        }
    }

    fn emit(&mut self, record: Value) -> io::Result<()> {
        let mut text = record.to_string();
        if self.bug == Bug::KeepsLoneSurrogates {
            text = text
                .chars()
                .map(|c| match u32::from(c).checked_sub(ESCAPED_BYTE) {
                    Some(b @ 0x80..=0xFF) => format!("\\udc{b:02x}"),
                    _ => c.to_string(),
                })
                .collect();
        }
        writeln!(self.out, "{text}")?;
        self.out.flush()
    }
}

/// Python's `surrogateescape`: each byte of an invalid sequence becomes
/// its own character (here [`ESCAPED_BYTE`] + the byte).
fn surrogateescape(mut bytes: &[u8]) -> String {
    let mut text = String::new();
    while !bytes.is_empty() {
        match std::str::from_utf8(bytes) {
            Ok(rest) => {
                text.push_str(rest);
                break;
            }
            Err(e) => {
                let (good, bad) = bytes.split_at(e.valid_up_to());
                text.push_str(std::str::from_utf8(good).expect("valid up to here"));
                let n = e.error_len().unwrap_or(bad.len());
                for &b in &bad[..n] {
                    text.extend(char::from_u32(ESCAPED_BYTE + u32::from(b)));
                }
                bytes = &bad[n..];
            }
        }
    }
    text
}

/// Where the next record ends in `carry`, and where the one after starts:
/// at a `\n`, or (`truncates-at-64k`) after [`LINE_BUFFER`] bytes without
/// one.
fn next_line(bug: Bug, carry: &[u8]) -> Option<(usize, usize)> {
    let window = if bug == Bug::TruncatesAt64k {
        &carry[..carry.len().min(LINE_BUFFER)]
    } else {
        carry
    };
    match window.iter().position(|&b| b == b'\n') {
        Some(i) => Some((i, i + 1)),
        None if window.len() == LINE_BUFFER && bug == Bug::TruncatesAt64k => {
            Some((LINE_BUFFER, LINE_BUFFER))
        }
        None => None,
    }
}

/// `counts-braces`: the end of the record that starts at `carry[0]` (an
/// opening brace or bracket), found by counting braces and brackets
/// outside strings, where a string ends at the next `"` whatever comes
/// before it.
fn braced_end(carry: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string) = (0usize, false);
    for (i, &b) in carry.iter().enumerate() {
        match b {
            b'"' => in_string = !in_string,
            b'{' | b'[' if !in_string => depth += 1,
            b'}' | b']' if !in_string => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn decode(bug: Bug, mut input: impl Read, out: impl Write) -> io::Result<()> {
    let mut d = Decoder {
        bug,
        out,
        terminal: false,
        first: true,
        stopped: false,
    };
    let mut carry: Vec<u8> = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    while !d.stopped {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buf[..n];
        match bug {
            Bug::ChunkAsRecord => {
                for piece in chunk.split(|&b| b == b'\n') {
                    if !piece.is_empty() {
                        d.record(piece)?;
                    }
                }
                continue;
            }
            Bug::Utf8PerChunk => carry.extend_from_slice(String::from_utf8_lossy(chunk).as_bytes()),
            _ => carry.extend_from_slice(chunk),
        }
        if bug == Bug::CountsBraces {
            loop {
                // Text between records is not looked at.
                let start = carry.iter().position(|b| matches!(b, b'{' | b'['));
                carry.drain(..start.unwrap_or(carry.len()));
                let Some(end) = braced_end(&carry) else { break };
                let record: Vec<u8> = carry.drain(..end).collect();
                d.record(&record)?;
            }
            continue;
        }
        while !d.stopped
            && let Some((end, next)) = next_line(bug, &carry)
        {
            let line: Vec<u8> = carry.drain(..next).take(end).collect();
            d.record(&line)?;
        }
    }
    if !carry.is_empty() && !d.stopped {
        match bug {
            Bug::DropsTail => {}
            Bug::EofMidLineAborts => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the stream ended inside a line",
                ));
            }
            _ => d.record(&carry)?,
        }
    }
    let complete = d.terminal || bug == Bug::CompleteWithoutDone;
    let end = if complete { "complete" } else { "interrupted" };
    d.emit(json!({ "end": end }))
}
