//! The reference decoder (`rpcspec serve --role decoder`), on the
//! reference framer.

use std::io;

use rpcspec_framer::{Bom, Config, Event, Framer, ProblemKind};
use serde_json::Value;

use super::{PIPES_ENV, PIPES_HELLO, Read, Write, is_terminal, read_chunk};

/// The reference decoder (`rpcspec serve --role decoder`): the contract's
/// output for the stream on `input`, built on the reference framer.
///
/// Its choices, where NDJSON leaves one: blank and whitespace-only lines
/// are skipped (NDJSON's "MAY silently ignore"); one byte order mark at the
/// start is stripped (RFC 8259 §8.1's "MAY ignore"); the `\r` of `\r\n` is
/// stripped; a line is split on `\n` only; a line that is not UTF-8, not
/// exactly one JSON value, or over 16 MiB is an error record and decoding
/// goes on with the next line; bytes after the last `\n` are delivered as
/// a value when they are one, else reported as an error. Each read's
/// records are written and flushed before the next read.
pub fn serve(mut input: impl Read, output: impl Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(output);
    let mut framer = Framer::new(Config::default().with_bom(Bom::Strip));
    let mut terminal = false;
    let mut buf = vec![0; 64 * 1024];
    let mut pending = Vec::new();
    loop {
        let n = read_chunk(&mut input, &mut buf)?;
        if n == 0 {
            break;
        }
        framer.push(&buf[..n], |e| record(e, &mut terminal, &mut pending));
        out.write_all(&pending)?;
        pending.clear();
        out.flush()?;
    }
    framer.finish(|e| record(e, &mut terminal, &mut pending));
    let end = if terminal { "complete" } else { "interrupted" };
    rpcspec_framer::encode(&serde_json::json!({ "end": end }), &mut pending)
        .map_err(io::Error::other)?;
    out.write_all(&pending)?;
    out.flush()
}

/// Whether this adapter was offered many streams over named pipes
/// ([`PIPES_ENV`]).
pub fn offered_pipes() -> bool {
    std::env::var_os(PIPES_ENV.0).is_some_and(|v| v == PIPES_ENV.1)
}

/// The adapter's side of many streams in one process: writes
/// [`PIPES_HELLO`], then for each line of `paths` (the path of a named
/// pipe) opens it and runs `decode` on it, which writes the stream's
/// records and end record to `out`; returns at the end of `paths`.
pub fn serve_pipes<W: Write>(
    mut paths: impl io::BufRead,
    mut out: W,
    mut decode: impl FnMut(std::fs::File, &mut W) -> io::Result<()>,
) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    writeln!(out, "{PIPES_HELLO}")?;
    out.flush()?;
    let mut line = Vec::new();
    loop {
        line.clear();
        if paths.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let path = std::ffi::OsStr::from_bytes(line.strip_suffix(b"\n").unwrap_or(&line));
        decode(std::fs::File::open(path)?, &mut out)?;
        out.flush()?;
    }
}

/// The contract record for one framing event, appended to `out`.
pub(super) fn record(event: Event<'_>, terminal: &mut bool, out: &mut Vec<u8>) {
    let said = match event {
        Event::Line(line) => match line.parse_value() {
            Ok(v) => Ok(v),
            Err(e) => Err(e.to_string()),
        },
        Event::Problem(p) => match p.kind {
            ProblemKind::Bom | ProblemKind::Blank => return,
            ProblemKind::Truncated => {
                if p.bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                    return;
                }
                serde_json::from_slice::<Value>(&p.bytes).map_err(|e| {
                    format!(
                        "line {} (byte {}): stream ended inside a line that is not one json value: {e}",
                        p.number, p.offset
                    )
                })
            }
            _ => Err(p.to_string()),
        },
    };
    let rec = match said {
        Ok(v) => {
            *terminal = is_terminal(&v);
            serde_json::json!({ "value": v })
        }
        Err(message) => serde_json::json!({ "error": message }),
    };
    rpcspec_framer::encode(&rec, out).expect("a Value always serialises");
}
