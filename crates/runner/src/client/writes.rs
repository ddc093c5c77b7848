//! How the scripted server's messages become the peer's writes: each
//! framed (a line ending after it, or a Content-Length header before it,
//! the scenario's own if it has one), then cut as the scenario writes
//! (whole, together, split, a byte at a time, the header apart from its
//! body), with pauses and drains between.

use std::time::Duration;

use super::{BYTEWISE_MAX, CHUNK, Scenario, Writes, peer::ToPeer};
use crate::plan::{Cut, cut};

/// The pause between the two writes of [`Writes::Split`] and
/// [`Writes::HeaderApart`].
pub const SPLIT_PAUSE: Duration = Duration::from_millis(20);

/// The header a Content-Length scenario writes when it has none of its
/// own; `$len` is the body's length in bytes.
const HEADER: &[u8] = b"Content-Length: $len\r\n\r\n";

/// `messages` framed for `sc`: behind a header when `content_length`,
/// else each ended by `\n` (`\r\n` with `crlf`).
pub(super) fn frame(sc: &Scenario, content_length: bool, messages: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let end: &[u8] = if sc.crlf { b"\r\n" } else { b"\n" };
    let header = sc.header.as_deref().unwrap_or(HEADER);
    messages
        .into_iter()
        .map(|mut m| {
            if content_length {
                let mut out = replace_var(header, b"$len", m.len().to_string().as_bytes());
                out.append(&mut m);
                out
            } else {
                m.extend(end);
                m
            }
        })
        .collect()
}

/// The orders that write `lines` (each with its line ending) as `writes`
/// says: cut by core's one cutter, with this role's pause and byte-wise
/// cap.
pub(super) fn orders(writes: Writes, lines: &[Vec<u8>]) -> Vec<ToPeer> {
    let (how, pause) = match writes {
        Writes::Line => (Cut::Whole, Duration::ZERO),
        Writes::Coalesced => (Cut::Together, Duration::ZERO),
        Writes::Split => (Cut::Pieces(2), SPLIT_PAUSE),
        Writes::Bytewise => (Cut::Bytewise { max: BYTEWISE_MAX }, Duration::ZERO),
        Writes::Chunks => (Cut::Chunks(CHUNK), Duration::ZERO),
        Writes::HeaderApart => return header_apart(lines),
    };
    // Lines and bytes are drained, not paused: each is read alone, never
    // with the one before it by chance.
    let drained = matches!(writes, Writes::Line | Writes::Bytewise | Writes::Chunks);
    let mut out = Vec::new();
    for w in cut(lines, how, pause) {
        if drained || !w.pause.is_zero() {
            out.push(ToPeer::Pause(w.pause));
        }
        out.push(ToPeer::Write(w.bytes));
    }
    out
}

/// The orders that write each of `messages` (Content-Length framed) as its
/// header, drained, then its body after [`SPLIT_PAUSE`].
fn header_apart(messages: &[Vec<u8>]) -> Vec<ToPeer> {
    let mut out = Vec::new();
    for m in messages {
        let body = m
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(m.len(), |i| i + 4);
        out.push(ToPeer::Pause(Duration::ZERO));
        out.push(ToPeer::Write(m[..body].to_vec()));
        if body < m.len() {
            out.push(ToPeer::Pause(SPLIT_PAUSE));
            out.push(ToPeer::Write(m[body..].to_vec()));
        }
    }
    out
}

/// `template` with every `name` (`$id`, `$len`) replaced by `value`.
pub(super) fn replace_var(template: &[u8], name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(template.len());
    let mut i = 0;
    while i < template.len() {
        if template[i..].starts_with(name) {
            out.extend(value);
            i += name.len();
        } else {
            out.push(template[i]);
            i += 1;
        }
    }
    out
}

/// An agent CLI's records (`--dialect claude`, `codex-exec`): each after
/// the scenario's `before` lines, with its `whitespace` after every `,`,
/// framed as NDJSON lines and cut as the scenario writes.
pub(super) fn records(sc: &Scenario, lines: Vec<Vec<u8>>) -> Vec<ToPeer> {
    if lines.is_empty() {
        return Vec::new();
    }
    let mut all = Vec::new();
    for l in lines {
        all.extend(sc.before.iter().cloned());
        all.push(match &sc.whitespace {
            Some(ws) => spaced(&l, ws),
            None => l,
        });
    }
    orders(sc.writes, &frame(sc, false, all))
}

/// `line` with `ws` after every `,` that ends a member or an element
/// outside strings.
pub(super) fn spaced(line: &[u8], ws: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len() + ws.len() * 16);
    let (mut in_string, mut escaped) = (false, false);
    for &b in line {
        out.push(b);
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            out.extend_from_slice(ws);
        }
    }
    out
}

/// `n` bytes of log lines, as a busy CLI's debug output on stderr.
pub(super) fn stderr_text(n: usize) -> Vec<u8> {
    const LINE: &[u8] = b"[rpcspec] a log line on stderr, as a busy CLI writes them\n";
    LINE.iter().copied().cycle().take(n).collect()
}
