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
}

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    let bug = match name.as_str() {
        "reference" => {
            let served = rpcspec::decoder::serve(io::stdin().lock(), io::stdout().lock());
            return if served.is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        "chunk-as-record" => Bug::ChunkAsRecord,
        "utf8-per-chunk" => Bug::Utf8PerChunk,
        "leaks-cr" => Bug::LeaksCr,
        "splits-u2028" => Bug::SplitsU2028,
        "splits-on-cr" => Bug::SplitsOnCr,
        "drops-tail" => Bug::DropsTail,
        "complete-without-done" => Bug::CompleteWithoutDone,
        _ => {
            eprintln!("usage: rpcspec-mutant-decoder NAME\n\nmutants:");
            for (n, bug) in MUTANTS {
                eprintln!("  {n:<24} {bug}");
            }
            return ExitCode::from(2);
        }
    };
    match decode(bug, io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// A hand-written line decoder: correct except for `bug`.
struct Decoder<W: Write> {
    bug: Bug,
    out: W,
    terminal: bool,
    first: bool,
}

impl<W: Write> Decoder<W> {
    fn record(&mut self, mut line: &[u8]) -> io::Result<()> {
        if std::mem::take(&mut self.first) {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if self.bug == Bug::LeaksCr {
            if line.is_empty() {
                return Ok(());
            }
        } else {
            line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(|b| matches!(b, b' ' | b'\t')) {
                return Ok(());
            }
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return self.emit(json!({ "error": "invalid utf-8" }));
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
        self.parse(text)
    }

    fn parse(&mut self, text: &str) -> io::Result<()> {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => {
                self.terminal = matches!(
                    v.get("type").and_then(Value::as_str),
                    Some("done" | "error")
                );
                self.emit(json!({ "value": v }))
            }
            Err(e) => self.emit(json!({ "error": e.to_string() })),
        }
    }

    fn emit(&mut self, record: Value) -> io::Result<()> {
        writeln!(self.out, "{record}")?;
        self.out.flush()
    }
}

fn decode(bug: Bug, mut input: impl Read, out: impl Write) -> io::Result<()> {
    let mut d = Decoder {
        bug,
        out,
        terminal: false,
        first: true,
    };
    let mut carry: Vec<u8> = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    loop {
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
        while let Some(i) = carry.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = carry.drain(..=i).take(i).collect();
            d.record(&line)?;
        }
    }
    if !carry.is_empty() && bug != Bug::DropsTail {
        d.record(&carry)?;
    }
    let complete = d.terminal || bug == Bug::CompleteWithoutDone;
    let end = if complete { "complete" } else { "interrupted" };
    d.emit(json!({ "end": end }))
}
