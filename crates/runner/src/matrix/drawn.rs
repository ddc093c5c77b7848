//! A case's transcript drawn as a sequence diagram, for the single-run page
//! (`rpcspec run --format html`): what rpcspec sent and what the target
//! wrote, merged in time order into a marked transcript (`-->` client to
//! server, `<--` server to client), annotated by `rpcspec check` in the
//! target's dialect and drawn by [`Diagram`]. A FAIL reads as a picture of
//! who said what.

use std::{io::Cursor, time::Duration};

use rpcspec_matcher::Dialect;

use super::{Column, PlanEvidence};
use crate::capture::{Arrival, Capture, Framing};
use crate::check::{self, Diagram, Out, diagram::Bound};
use crate::report::Bytes;

/// Bytes one case's diagram may have, at most.
pub const BUDGET: usize = 128 * 1024;
/// Messages drawn from one transcript, at most.
const MESSAGES: usize = 400;

/// The diagram of `p`'s transcript with element ids starting `ids`, and
/// how many messages the transcript has; `None` for a role whose exchanges
/// are not messages (a decoder's).
pub fn transcript(t: &Column, p: &PlanEvidence, ids: &str) -> Option<(String, u64)> {
    // Which side rpcspec played.
    let (sent, received, lanes) = match t.role.as_str() {
        "server" => ("-->", "<--", ("rpcspec", "the server")),
        "producer" => ("-->", "<--", ("rpcspec", "the producer")),
        "client" => ("<--", "-->", ("the client", "rpcspec")),
        _ => return None,
    };
    let (dialect, handshake) = crate::dialects::dialect_named(&t.dialect)
        .unwrap_or_else(|| (Dialect::Events(Default::default()), String::new()));
    // (when, order at the same time, mark, text, the target's number).
    let mut lines: Vec<(u64, u8, &str, String, Option<u64>)> = Vec::new();
    let order = |mark: &str| u8::from(mark == "<--");
    for (at_ms, text) in sent_messages(p, crate::dialects::framing_of(&handshake)) {
        lines.push((at_ms, order(sent), sent, text, None));
    }
    for r in &p.received {
        let text = shown(&r.bytes);
        lines.push((r.at_ms, order(received), received, text, Some(r.line)));
    }
    if lines.is_empty() {
        return None;
    }
    // In time order; at the same millisecond, the client's first.
    lines.sort_by_key(|l| (l.0, l.1));
    let all = lines.len();
    lines.truncate(MESSAGES);
    let mut text = String::new();
    for (_, _, mark, line, _) in &lines {
        text.push_str(mark);
        text.push(' ');
        // JSON has no raw line break outside strings' escapes: a body
        // pretty-printed over lines stays one JSON text on one line.
        text.push_str(&line.replace(['\n', '\r'], " "));
        text.push('\n');
    }
    let opts = check::Options {
        dialect: Some(dialect),
        annotate: true,
        texts: true,
        per_rule: None,
        ..check::Options::default()
    };
    let mut notes = Vec::new();
    let checked = check::check(Cursor::new(text.into_bytes()), &opts, |o| {
        if let Out::Note(n) = o {
            notes.push(n.clone());
        }
        Ok(())
    });
    checked.ok()?;
    // What rpcspec sent is broken on purpose where the case says so: only
    // the target's lines keep their findings, and not that rpcspec left a
    // request of theirs unanswered (the drawing says "never answered").
    let ours = if sent == "-->" { "client" } else { "server" };
    let mut diagram = Diagram::new(lanes.0, lanes.1).with_ids(ids);
    for mut n in notes {
        if n.from == Some(ours) {
            n.findings.clear();
        }
        n.findings
            .retain(|f| f.rule.id != rpcspec_matcher::rules::SESSION_UNANSWERED.id);
        let line = usize::try_from(n.line)
            .ok()
            .and_then(|l| lines.get(l.checked_sub(1)?));
        // The target's records numbered as its evidence numbers them;
        // rpcspec's own, not.
        let label = line.map(|l| l.4.map_or(String::new(), |k| k.to_string()));
        diagram.push_as(n, line.map(|l| l.0), label);
    }
    let mut out = String::new();
    if all > MESSAGES {
        let _ = std::fmt::Write::write_fmt(
            &mut out,
            format_args!(
                "<p class=\"meta\">The first {MESSAGES} of {all} messages (the lines received, below, have them all).</p>"
            ),
        );
    }
    let bound = Bound {
        bytes: BUDGET,
        limit: "a case's drawing is kept under 128 KiB",
        rest: "the lines received, below, have them",
    };
    diagram.render(&mut out, bound);
    Some((out, all as u64))
}

/// What rpcspec wrote, cut into its messages by the target's framing (the
/// framer the received lines went through), each with the time of the
/// write that completed it.
fn sent_messages(p: &PlanEvidence, framing: Framing) -> Vec<(u64, String)> {
    let mut capture = Capture::new(framing);
    let mut out = Vec::new();
    let mut take = |a: Arrival<'_>| {
        let text = String::from_utf8_lossy(a.bytes());
        let text = text.strip_suffix('\r').unwrap_or(&text);
        if !text.is_empty() {
            out.push((a.at.as_millis() as u64, text.to_owned()));
        }
    };
    let mut last = Duration::ZERO;
    for s in &p.sent {
        last = Duration::from_millis(s.at_ms);
        capture.push(shown(&s.bytes).as_bytes(), last, &mut take);
    }
    capture.finish(last, &mut take);
    out
}

/// A record as text: as it was, or escaped where it was not UTF-8.
fn shown(bytes: &Bytes) -> String {
    match bytes {
        Bytes::Text(t) => t.clone(),
        other => other.show(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Received, Sent, Verdict};

    fn column(role: &str, dialect: &str) -> Column {
        Column {
            name: "t".into(),
            version: String::new(),
            role: role.into(),
            dialect: dialect.into(),
            command: "t".into(),
            notes: String::new(),
            error: None,
            results: Default::default(),
            cells: Default::default(),
        }
    }

    fn plan(sent: &[(u64, &str)], received: &[(u64, &str)]) -> PlanEvidence {
        PlanEvidence {
            plan: "whole".into(),
            verdict: Verdict::Fail,
            evidence: Vec::new(),
            sent: sent
                .iter()
                .map(|&(at_ms, t)| Sent {
                    at_ms,
                    bytes: Bytes::new(t.as_bytes()),
                })
                .collect(),
            received: received
                .iter()
                .enumerate()
                .map(|(i, &(at_ms, t))| Received {
                    at_ms,
                    line: i as u64 + 1,
                    offset: 0,
                    bytes: Bytes::new(t.as_bytes()),
                    unit: Default::default(),
                })
                .collect(),
            stderr: String::new(),
            exit: None,
        }
    }

    #[test]
    fn writes_cut_anywhere_are_drawn_as_their_messages_in_time_order() {
        let p = plan(
            &[
                (0, "{\"jsonrpc\":\"2.0\",\"id\":1,\"me"),
                (
                    5,
                    "thod\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}\n",
                ),
            ],
            &[(8, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":true}")],
        );
        let (html, notes) = transcript(&column("server", "jsonrpc2"), &p, "x-").unwrap();
        assert_eq!(notes, 3);
        // The request at 5 ms, answered at 8 ms; the second never.
        // The target's line 1 answers the first.
        assert!(
            html.contains("answered by <a href=#x-m2>1</a> after 3 ms"),
            "{html}"
        );
        assert!(html.contains("data-n=\"1\" title=\"at 8 ms\""), "{html}");
        assert!(html.contains("answers <a href=#x-m0>↑</a>"), "{html}");
        assert!(html.contains("never answered"), "{html}");
        assert!(
            html.contains("<b class=p style=grid-area:2/2/4></b>"),
            "{html}"
        );
    }

    #[test]
    fn content_length_bodies_are_the_messages_and_a_client_s_lines_are_its_own() {
        let body = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}";
        let sent = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let p = plan(
            &[(1, &sent)],
            &[(2, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}")],
        );
        let (html, _) = transcript(&column("server", "lsp"), &p, "").unwrap();
        assert!(html.contains("request <b>id 0 initialize</b>"), "{html}");
        assert!(html.contains("answers <a href=#m0>↑</a>"), "{html}");
        // rpcspec as the server: its lines go right to left, the client's
        // findings stay, its own go.
        let p = plan(
            &[(3, "not json\n")],
            &[
                (1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}"),
                (2, "{oops"),
            ],
        );
        let (html, _) = transcript(&column("client", "jsonrpc2"), &p, "").unwrap();
        assert!(html.contains("class=\"q c rq"), "{html}");
        assert_eq!(html.matches("json.parse").count(), 1, "{html}");
        assert!(transcript(&column("decoder", "jsonrpc2"), &p, "").is_none());
    }
}
