//! `check --annotate`: each message of the stream as a [`Note`], with what
//! it is in the dialect and what answers it ("answered by line 14",
//! "answers line 3", "cancelled at line 20", "never answered", "needs no
//! answer"), and the findings about it beneath. A note is given out once
//! its pairing is known: a request waits for its reply, and the notes
//! after it wait with it, at most [`HELD`] of them, so memory stays bounded
//! and the notes come in stream order.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use rpcspec_matcher::{Classified, Direction, Kind, Shape, rules};

use crate::dialects::Checking;
use serde::Serialize;

use super::Finding;

/// Notes held behind one awaiting a reply, at most: past it the first is
/// given out as [`Pairing::NotYet`].
pub const HELD: usize = 10_000;

/// Bytes of a message's text a note keeps, at most.
pub const TEXT: usize = 4096;

/// A message's text, perhaps cut: its first bytes, and how many more
/// there were.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    /// The first bytes, whole characters.
    pub head: String,
    /// The bytes left out after them.
    pub left_out: usize,
}

impl Text {
    /// At most `max` bytes of `text` (whole characters).
    pub fn new(text: &str, max: usize) -> Text {
        Text::default().joined(text, max)
    }

    /// At most `max` bytes of it.
    pub fn cut(&self, max: usize) -> Text {
        let mut cut = Text::new(&self.head, max);
        cut.left_out += self.left_out;
        cut
    }

    fn joined(mut self, text: &str, max: usize) -> Text {
        let mut end = max.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.head.push_str(&text[..end]);
        self.left_out += text.len() - end;
        self
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.head)?;
        if self.left_out > 0 {
            write!(f, "… ({} more bytes)", self.left_out)?;
        }
        Ok(())
    }
}

/// How a message pairs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "pairing", rename_all = "kebab-case")]
pub enum Pairing {
    /// A notification or an event: nothing answers it.
    NeedsNoAnswer,
    /// A request (or a batch of them) still awaiting its reply.
    Awaiting,
    /// A request answered by the replies at these lines.
    AnsweredBy {
        /// The replies' lines.
        lines: Vec<u64>,
    },
    /// A reply to the requests at these lines (an id-null error: to the
    /// message whose id could not be read).
    Answers {
        /// The requests' lines.
        lines: Vec<u64>,
    },
    /// A reply no request awaited.
    AnswersNothing,
    /// A request withdrawn by the cancel at this line.
    CancelledAt {
        /// The cancel's line.
        line: u64,
    },
    /// A cancel of the request at this line.
    Cancels {
        /// The request's line.
        line: u64,
    },
    /// A cancel of no request awaiting.
    CancelsNothing,
    /// A request still awaiting its reply when the stream ended.
    NeverAnswered,
    /// A request still awaiting its reply [`HELD`] notes later.
    NotYet,
    /// A request of a one-sided stream: its reply is in the other side's.
    ReplyNotInStream,
    /// A reply of a one-sided stream: its request is in the other side's.
    RequestNotInStream,
    /// Not a message: a line the framing or JSON turned down.
    NotAMessage,
}

impl fmt::Display for Pairing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = |f: &mut fmt::Formatter<'_>, what: &str, lines: &[u64]| {
            let s = if lines.len() == 1 { "" } else { "s" };
            let list: Vec<String> = lines.iter().map(u64::to_string).collect();
            write!(f, "{what} line{s} {}", list.join(", "))
        };
        match self {
            Pairing::NeedsNoAnswer => f.write_str("needs no answer"),
            Pairing::Awaiting => f.write_str("awaiting its reply"),
            Pairing::AnsweredBy { lines: l } => lines(f, "answered by", l),
            Pairing::Answers { lines: l } => lines(f, "answers", l),
            Pairing::AnswersNothing => f.write_str("answers no request awaiting one"),
            Pairing::CancelledAt { line } => write!(f, "cancelled at line {line}"),
            Pairing::Cancels { line } => write!(f, "cancels line {line}"),
            Pairing::CancelsNothing => f.write_str("cancels no request awaiting a reply"),
            Pairing::NeverAnswered => f.write_str("never answered"),
            Pairing::NotYet => write!(f, "not answered in the next {HELD} messages"),
            Pairing::ReplyNotInStream => f.write_str("its reply is in the other side's stream"),
            Pairing::RequestNotInStream => f.write_str("its request is in the other side's stream"),
            Pairing::NotAMessage => Ok(()),
        }
    }
}

/// One message (or line that is not one) of the stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// Its line, or first line (a message is a record of the framing).
    pub line: u64,
    /// Its byte offset.
    pub offset: u64,
    /// Of two streams, the one it is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<&'static str>,
    /// Its sender, `client` or `server`, if it is a message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'static str>,
    /// What it is: `request`, `notification`, `reply`, `error reply`,
    /// `cancel`, `event`, `end record`, `batch`, `invalid request`,
    /// `invalid reply`, `not JSON`, `not a message`; in Claude Code's
    /// stream-json `control request`, `control response`, `control error`
    /// and `control cancel`.
    pub kind: &'static str,
    /// Its id, method, error code or event name, as they apply.
    pub detail: String,
    /// How it pairs.
    #[serde(flatten)]
    pub pairing: Pairing,
    /// The findings about it.
    pub findings: Vec<Finding>,
    /// With [`Options::texts`](super::Options::texts): its text, at most
    /// [`TEXT`] bytes of it (none if it is not a message), what the
    /// sequence diagram opens to.
    #[serde(skip)]
    pub text: Option<Text>,
    /// Replies still due (a batch may await several).
    #[serde(skip)]
    due: u32,
    /// The session's number for it.
    #[serde(skip)]
    message: usize,
}

/// The notes held, oldest first.
#[derive(Default)]
pub(super) struct Notes {
    /// What the dialect calls its messages.
    words: Words,
    /// Each note keeps its message's text.
    texts: bool,
    held: VecDeque<Note>,
    /// The sequence number of the oldest note held.
    first: u64,
    /// The note of each message awaiting a reply, by message number.
    by_message: HashMap<usize, u64>,
    /// The last line given out, per stream.
    given: HashMap<Option<&'static str>, u64>,
}

/// What a dialect calls its messages, where it has words of its own.
#[derive(Default)]
struct Words {
    /// Claude Code's stream-json: control requests and responses.
    control: bool,
    /// The records that end the stream (or, in Claude's, a turn).
    ends: Vec<String>,
}

impl Notes {
    /// No notes yet, of a stream whose dialect's check is `checking`;
    /// `texts`: each keeps its message's text.
    pub(super) fn new(checking: &Checking, texts: bool) -> Self {
        let words = Words {
            control: checking.control,
            ends: checking.ends.iter().map(|e| (*e).to_owned()).collect(),
        };
        Notes {
            words,
            texts,
            ..Notes::default()
        }
    }

    /// Where the note of `line` in `stream` is held, made if it is new (as
    /// not a message, yet); `None` if it was given out already.
    fn index(&mut self, stream: Option<&'static str>, line: u64, offset: u64) -> Option<usize> {
        if self.given.get(&stream).is_some_and(|&l| line <= l) {
            return None;
        }
        // A stream's lines come in order: the search stops at the stream's
        // first earlier line.
        for (i, n) in self.held.iter().enumerate().rev() {
            if n.stream == stream {
                if n.line == line {
                    return Some(i);
                }
                if n.line < line {
                    break;
                }
            }
        }
        self.held.push_back(Note {
            line,
            offset,
            stream,
            from: None,
            kind: "not a message",
            detail: String::new(),
            pairing: Pairing::NotAMessage,
            findings: Vec::new(),
            text: None,
            due: 0,
            message: 0,
        });
        Some(self.held.len() - 1)
    }

    /// The note of `line` in `stream`, for a finding about it; `None` if it
    /// was given out already.
    pub(super) fn at(
        &mut self,
        stream: Option<&'static str>,
        line: u64,
        offset: u64,
    ) -> Option<&mut Note> {
        let i = self.index(stream, line, offset)?;
        self.held.get_mut(i)
    }

    /// A message of the stream, fed to the session as its message
    /// `message`; `settled`: the requests it answered or withdrew, by
    /// message number ([`Session::settled`](rpcspec_matcher::Session::settled)),
    /// `line_of` the line of such a request whose note is no longer held.
    /// `pairs`: the dialect pairs (an invalid request awaits its reply);
    /// `one_sided`: the stream is one side's.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn message(
        &mut self,
        stream: Option<&'static str>,
        (line, offset, text): (u64, u64, &str),
        from: Direction,
        classified: &Classified,
        message: usize,
        settled: &[usize],
        line_of: &dyn Fn(usize) -> Option<u64>,
        (pairs, one_sided): (bool, bool),
    ) {
        let kinds: &[Kind] = match &classified.kind {
            Kind::Batch(members) => members,
            kind => std::slice::from_ref(kind),
        };
        let mut due = 0;
        let mut replies = false;
        for kind in kinds {
            match kind {
                Kind::Request { .. } => due += 1,
                Kind::Invalid {
                    shape: Shape::Request,
                    ..
                } if pairs => due += 1,
                Kind::Success { .. }
                | Kind::Error { .. }
                | Kind::Invalid {
                    shape: Shape::Response,
                    ..
                } => replies = true,
                _ => {}
            }
        }
        let cancel = matches!(classified.kind, Kind::Cancel { .. });
        let mut lines: Vec<u64> = Vec::new();
        for &m in settled {
            let at = if cancel {
                self.cancel(m, line)
            } else {
                self.answer(m, line)
            };
            if let Some(at) = at.or_else(|| line_of(m))
                && !lines.contains(&at)
            {
                lines.push(at);
            }
        }
        let (kind, detail) = describe(classified, &self.words);
        let pairing = if one_sided && due > 0 {
            due = 0;
            Pairing::ReplyNotInStream
        } else if one_sided && replies {
            Pairing::RequestNotInStream
        } else if cancel {
            lines
                .first()
                .map_or(Pairing::CancelsNothing, |&line| Pairing::Cancels { line })
        } else if !lines.is_empty() {
            Pairing::Answers { lines }
        } else if replies {
            Pairing::AnswersNothing
        } else if due > 0 {
            Pairing::Awaiting
        } else if kind == "not JSON" {
            Pairing::NotAMessage
        } else {
            Pairing::NeedsNoAnswer
        };
        let Some(i) = self.index(stream, line, offset) else {
            return;
        };
        let note = &mut self.held[i];
        note.from = Some(super::side_name(from));
        (note.kind, note.detail, note.pairing) = (kind, detail, pairing);
        (note.due, note.message) = (due, message);
        if self.texts {
            note.text = Some(Text::new(text, TEXT));
        }
        if due > 0 {
            self.by_message.insert(message, self.first + i as u64);
        }
    }

    /// The held note of request `message`, if any.
    fn request(&mut self, message: usize) -> Option<&mut Note> {
        let seq = *self.by_message.get(&message)?;
        let i = usize::try_from(seq.checked_sub(self.first)?).ok()?;
        self.held.get_mut(i)
    }

    /// Request `message` is answered at `line`: its line, if its note is
    /// still held.
    fn answer(&mut self, message: usize, line: u64) -> Option<u64> {
        let note = self.request(message)?;
        note.due = note.due.saturating_sub(1);
        match &mut note.pairing {
            Pairing::AnsweredBy { lines } if lines.contains(&line) => {}
            Pairing::AnsweredBy { lines } => lines.push(line),
            p => *p = Pairing::AnsweredBy { lines: vec![line] },
        }
        let at = note.line;
        if note.due == 0 {
            self.by_message.remove(&message);
        }
        Some(at)
    }

    /// Request `message` is withdrawn at `line`: its line, if its note is
    /// still held.
    fn cancel(&mut self, message: usize, line: u64) -> Option<u64> {
        let note = self.request(message)?;
        note.due = 0;
        note.pairing = Pairing::CancelledAt { line };
        let at = note.line;
        self.by_message.remove(&message);
        Some(at)
    }

    /// The notes whose pairing is known, oldest first; with `all`, every
    /// note (the stream has ended).
    pub(super) fn ready(&mut self, all: bool) -> Option<Note> {
        let front = self.held.front()?;
        if front.due > 0 && !all && self.held.len() <= HELD {
            return None;
        }
        let mut note = self.held.pop_front()?;
        self.first += 1;
        self.given.insert(note.stream, note.line);
        if note.due > 0 {
            note.pairing = if all {
                Pairing::NeverAnswered
            } else {
                Pairing::NotYet
            };
            self.by_message.remove(&note.message);
        }
        Some(note)
    }
}

/// A message's kind in the dialect's `words`, and its id, method, code or
/// name.
fn describe(classified: &Classified, words: &Words) -> (&'static str, String) {
    let (kind, detail) = describe_rpc(classified);
    let kind = match (kind, &classified.kind) {
        (_, Kind::Event { name }) if words.ends.iter().any(|e| **e == **name) => "end record",
        ("request", _) if words.control => "control request",
        ("reply", _) if words.control => "control response",
        ("error reply", _) if words.control => "control error",
        ("cancel", _) if words.control => "control cancel",
        (kind, _) => kind,
    };
    // Claude Code pairs by `request_id`.
    let detail = match detail.strip_prefix("id ") {
        Some(rest) if words.control => format!("request_id {rest}"),
        _ => detail,
    };
    (kind, detail)
}

/// A message's kind in JSON-RPC's words, and its id, method, code or name.
fn describe_rpc(classified: &Classified) -> (&'static str, String) {
    match &classified.kind {
        Kind::Request { id, method } => ("request", format!("id {id} {method}")),
        Kind::Notification { method } => ("notification", method.to_string()),
        Kind::Success { id } => ("reply", format!("id {id}")),
        Kind::Error { id, code } => {
            let id = id
                .as_ref()
                .map_or("unreadable".to_string(), |id| id.to_string());
            let code = code.map(|c| format!(" code {c}")).unwrap_or_default();
            ("error reply", format!("id {id}{code}"))
        }
        Kind::Cancel { id } => ("cancel", format!("id {id}")),
        Kind::Event { name } => ("event", name.to_string()),
        Kind::Batch(members) => ("batch", format!("{} members", members.len())),
        Kind::Invalid { .. } if classified.breaks(rules::JSON_PARSE.id) => {
            ("not JSON", String::new())
        }
        Kind::Invalid { shape, id } => {
            let kind = match shape {
                Shape::Response => "invalid reply",
                _ => "invalid request",
            };
            (
                kind,
                id.as_ref().map(|id| format!("id {id}")).unwrap_or_default(),
            )
        }
        _ => ("message", String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Options, Out, Sides, check_by};
    use super::*;

    /// The notes of `stream`, and the findings given out on their own.
    fn notes(stream: &str, dialect: &str, sides: Sides) -> (Vec<Note>, Vec<String>) {
        notes_in(stream, dialect, sides, super::super::WINDOW)
    }

    fn notes_in(
        stream: &str,
        dialect: &str,
        sides: Sides,
        window: usize,
    ) -> (Vec<Note>, Vec<String>) {
        let (descriptor, _) = crate::dialects::find(dialect).expect("a dialect");
        let opts = Options {
            annotate: true,
            sides,
            window,
            ..Options::in_dialect(descriptor)
        };
        let (mut notes, mut alone) = (Vec::new(), Vec::new());
        let sink = |o: Out<'_>| {
            match o {
                Out::Note(n) => notes.push(n.clone()),
                Out::Finding(f) => alone.push(f.rule.id.to_string()),
            }
            Ok(())
        };
        let input = std::io::Cursor::new(stream.as_bytes().to_vec());
        check_by(input, &opts, sink, true).expect("reads from memory");
        (notes, alone)
    }

    fn pairing(notes: &[Note], line: u64) -> (&'static str, String, String) {
        let n = notes
            .iter()
            .find(|n| n.line == line)
            .expect("a note for the line");
        (n.kind, n.detail.clone(), n.pairing.to_string())
    }

    #[test]
    fn a_real_mcp_session_pairs_line_by_line() {
        let transcript = include_str!("../../tests/fixtures/check/mcp-everything.transcript");
        let (notes, alone) = notes(transcript, "mcp", Sides::Both);
        assert!(alone.is_empty(), "{alone:?}");
        // Every message once, in stream order (the two comment lines have
        // none).
        let lines: Vec<u64> = notes.iter().map(|n| n.line).collect();
        assert_eq!(lines, (3..=22).collect::<Vec<_>>());
        let p = |line| pairing(&notes, line);
        assert_eq!(
            p(3),
            (
                "request",
                "id 0 initialize".into(),
                "answered by line 4".into()
            )
        );
        assert_eq!(p(4), ("reply", "id 0".into(), "answers line 3".into()));
        // The server's request, with the same id as the client's first.
        assert_eq!(
            p(8),
            (
                "request",
                "id 0 roots/list".into(),
                "answered by line 9".into()
            )
        );
        assert_eq!(notes[5].from, Some("server"));
        assert_eq!(p(9).2, "answers line 8");
        assert_eq!(p(15).2, "cancelled at line 17");
        assert_eq!(p(17), ("cancel", "id 9".into(), "cancels line 15".into()));
        assert_eq!(p(16).2, "needs no answer");
    }

    #[test]
    fn a_real_claude_code_session_pairs_by_request_id_in_its_own_words() {
        let transcript = include_str!("../../tests/fixtures/check/claude-code.transcript");
        let (notes, alone) = notes(transcript, "claude", Sides::Both);
        assert!(alone.is_empty(), "{alone:?}");
        assert!(notes.iter().all(|n| n.findings.is_empty()), "{notes:?}");
        let p = |line| pairing(&notes, line);
        assert_eq!(
            p(2),
            (
                "control request",
                "request_id \"req_1_init\" initialize".into(),
                "answered by line 3".into()
            )
        );
        assert_eq!(p(3).0, "control response");
        // Claude Code's own `user` record between a request and its answer.
        assert_eq!(p(6).2, "answered by line 8");
        assert_eq!((p(7).0, p(7).2.as_str()), ("event", "needs no answer"));
        assert_eq!(notes[5].from, Some("server"));
        assert_eq!(p(10).0, "control error");
        assert_eq!(p(10).2, "answers line 9");
        assert_eq!((p(14).0, p(14).1.as_str()), ("end record", "result"));
        assert_eq!(p(16).2, "answers line 15");
    }

    #[test]
    fn what_does_not_pair_says_so_with_its_findings_beneath() {
        let stream = concat!(
            r#"{"jsonrpc":"2.0","method":"a","id":1}"#,
            "\n",
            "not json\n",
            "\n",
            r#"{"jsonrpc":"2.0","result":1,"id":2}"#,
            "\n",
            r#"[{"jsonrpc":"2.0","method":"b","id":3},{"jsonrpc":"2.0","method":"c","id":4}]"#,
            "\n",
            r#"{"jsonrpc":"2.0","result":[1],"id":4}"#,
            "\n",
            r#"{"jsonrpc":"2.0","result":[3],"id":3}"#,
            "\n",
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"},"id":null}"#,
            "\n",
        );
        let (notes, alone) = notes(stream, "jsonrpc2", Sides::Both);
        assert!(alone.is_empty(), "{alone:?}");
        let p = |line| pairing(&notes, line);
        assert_eq!(p(1), ("request", "id 1 a".into(), "never answered".into()));
        assert_eq!(notes[0].findings[0].rule.id, "session.unanswered");
        assert_eq!(p(2), ("not JSON", String::new(), String::new()));
        assert_eq!(notes[1].findings[0].rule.id, "json.parse");
        assert_eq!(p(3), ("not a message", String::new(), String::new()));
        assert_eq!(notes[2].findings[0].rule.id, "framing.blank-line");
        assert_eq!(p(4).2, "answers no request awaiting one");
        assert_eq!(notes[3].findings[0].rule.id, "session.unknown-id");
        assert_eq!(
            p(5),
            ("batch", "2 members".into(), "answered by lines 6, 7".into())
        );
        assert_eq!(p(6).2, "answers line 5");
        // The id-null error answers the line that was not JSON.
        assert_eq!(p(8).2, "answers line 2");
    }

    #[test]
    fn a_request_unanswered_for_long_is_given_out_and_its_reply_still_pairs() {
        let mut stream = String::from("{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"id\":1}\n");
        for _ in 0..HELD + 5 {
            stream.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
        }
        stream.push_str("{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}\n");
        let (notes, _) = notes(&stream, "jsonrpc2", Sides::Both);
        assert_eq!(notes.len(), HELD + 7);
        assert_eq!(notes[0].pairing, Pairing::NotYet);
        assert_eq!(notes[HELD + 6].pairing, Pairing::Answers { lines: vec![1] });
    }

    #[test]
    fn one_side_pairs_nothing_and_says_where_the_rest_is() {
        let stream = concat!(
            r#"{"jsonrpc":"2.0","result":1,"id":1}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"roots/list","id":0}"#,
            "\n",
        );
        let (notes, _) = notes(stream, "mcp", Sides::Server);
        assert_eq!(notes[0].pairing, Pairing::RequestNotInStream);
        assert_eq!(notes[1].pairing, Pairing::ReplyNotInStream);
        assert_eq!(notes[1].from, Some("server"));
    }

    #[test]
    fn pairs_as_the_session_pairs() {
        let request = r#"{"jsonrpc":"2.0","method":"a","id":1}"#;
        let note = r#"{"jsonrpc":"2.0","method":"n"}"#;
        // A reply whose id changed type still answers (and is a finding).
        let stream = format!(
            "{request}\n{}\n",
            r#"{"jsonrpc":"2.0","result":1,"id":"1"}"#
        );
        let (got, _) = notes(&stream, "jsonrpc2", Sides::Both);
        assert_eq!(got[0].pairing.to_string(), "answered by line 2");
        assert_eq!(got[1].pairing.to_string(), "answers line 1");
        assert_eq!(got[1].findings[0].rule.id, "session.id-type-changed");
        // A reply far behind its request, past twice a small window of
        // messages but within the window of requests.
        let mut stream = format!("{request}\n");
        for _ in 0..201 {
            stream.push_str(note);
            stream.push('\n');
        }
        stream.push_str(r#"{"jsonrpc":"2.0","result":1,"id":1}"#);
        stream.push('\n');
        let (got, _) = notes_in(&stream, "jsonrpc2", Sides::Both, 100);
        assert_eq!(got[0].pairing.to_string(), "answered by line 203");
        assert_eq!(got[202].pairing.to_string(), "answers line 1");
        // A batch answered by a batch: each line once.
        let stream = concat!(
            r#"[{"jsonrpc":"2.0","method":"a","id":1},{"jsonrpc":"2.0","method":"b","id":2}]"#,
            "\n",
            r#"[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":2}]"#,
            "\n",
        );
        let (got, _) = notes(stream, "jsonrpc2", Sides::Both);
        assert_eq!(got[0].pairing.to_string(), "answered by line 2");
        assert_eq!(got[1].pairing.to_string(), "answers line 1");
        // An unparseable message answered by an id-null error.
        let stream = "{bad\n{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"x\"},\"id\":null}\n";
        let (got, _) = notes(stream, "jsonrpc2", Sides::Both);
        assert_eq!(got[1].pairing.to_string(), "answers line 1");
    }

    #[test]
    fn a_value_over_lines_keeps_its_place() {
        // A blank line inside a pretty-printed request: one note, first.
        let stream = "{\"jsonrpc\":\"2.0\",\"method\":\"a\",\n\n\"id\":1}\n{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}\n";
        let (notes, alone) = notes(stream, "jsonrpc2", Sides::Both);
        assert!(alone.is_empty(), "{alone:?}");
        let lines: Vec<u64> = notes.iter().map(|n| n.line).collect();
        assert_eq!(lines, [1, 4]);
        let rules: Vec<&str> = notes[0].findings.iter().map(|f| &*f.rule.id).collect();
        assert_eq!(rules, ["framing.blank-line", "framing.multi-line"]);
        assert_eq!(notes[0].pairing.to_string(), "answered by line 4");
    }
}
