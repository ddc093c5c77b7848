//! A JSON syntax checker (RFC 8259 §2–§7): does a text hold exactly one JSON
//! value and nothing else?
//!
//! It builds nothing and never recurses, so any depth is checked in memory
//! of one byte per open container, and it is incremental: [`Syntax::feed`]
//! takes the text in pieces of any size, which is how `rpcspec check` tells
//! a pretty-printed value spread over many lines from lines that are not
//! JSON at all. It checks grammar only: UTF-8 is the framer's business (a
//! line that reaches it is valid UTF-8), and limits (depth, number size)
//! are the reader's, so a 10 000-deep array is valid here.
//!
//! ```
//! use rpcspec_framer::syntax::{self, Syntax};
//!
//! assert!(syntax::check(br#"{"a": [1, 2.5e3, "\u00e9", null]}"#).is_ok());
//! let e = syntax::check(b"[1 true]").unwrap_err();
//! assert_eq!(e.offset(), 3);
//! assert_eq!(e.to_string(), "expected `,` or `]` after an array element, found `t`");
//!
//! // The same value, in pieces.
//! let mut s = Syntax::new();
//! s.feed(b"{\n  \"a\":").unwrap();
//! assert!(!s.is_complete());
//! s.feed(b" 1\n}").unwrap();
//! assert!(s.is_complete());
//! ```

use std::{error::Error, fmt};

pub mod whole;

pub use whole::is_one_value;

/// What went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    offset: u64,
    kind: ErrorKind,
}

/// The kinds of [`SyntaxError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Nothing but whitespace: no value at all.
    Empty,
    /// The text ended before the value did (inside what is named).
    Incomplete(&'static str),
    /// A byte that cannot stand here; `expected` says what could.
    Unexpected {
        /// What the grammar allows at this point.
        expected: &'static str,
        /// The character found (U+FFFD where it was not whole in the piece).
        found: char,
    },
    /// More than whitespace after the value (`{}{}`, `1 2`, `[]]`).
    Trailing {
        /// The first character after the value.
        found: char,
    },
    /// A control character (below U+0020) unescaped inside a string.
    Control(u8),
    /// A backslash followed by something that is not an escape.
    Escape(char),
    /// `\u` not followed by four hex digits.
    Unicode(char),
    /// A number with a leading zero, such as `012` or `-01`.
    LeadingZero,
    /// A number that stops where a digit is due (`-`, `1.`, `1e+`).
    Number {
        /// What the number lacks.
        missing: &'static str,
        /// What stood there instead.
        found: char,
    },
    /// A word that is not `true`, `false` or `null`.
    Literal(&'static str),
}

impl SyntaxError {
    /// The byte offset of the offending byte from the start of the text
    /// (of everything fed), or its length when the text ended early.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Whether the text was fine so far but ended too early: more text
    /// could still complete it (a pretty-printed value's first line, say).
    pub fn is_incomplete(&self) -> bool {
        matches!(self.kind, ErrorKind::Incomplete(_))
    }
}

struct Shown(char);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            c if c.is_ascii_graphic() => write!(f, "`{c}`"),
            ' ' => f.write_str("a space"),
            c => write!(f, "U+{:04X}", c as u32),
        }
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Empty => f.write_str("no value: the text is empty or only whitespace"),
            ErrorKind::Incomplete(inside) => write!(f, "the text ends inside {inside}"),
            ErrorKind::Unexpected { expected, found } => {
                write!(f, "expected {expected}, found {}", Shown(found))
            }
            ErrorKind::Trailing { found } => {
                write!(f, "text after the value, found {}", Shown(found))
            }
            ErrorKind::Control(b) => write!(
                f,
                "control character U+{b:04X} inside a string (it must be escaped)"
            ),
            ErrorKind::Escape(c) => write!(f, "invalid escape `\\{c}` inside a string"),
            ErrorKind::Unicode(c) => write!(
                f,
                "`\\u` must be followed by four hex digits, found {}",
                Shown(c)
            ),
            ErrorKind::LeadingZero => f.write_str("a number has a leading zero"),
            ErrorKind::Number { missing, found } => {
                write!(f, "a number lacks {missing}, found {}", Shown(found))
            }
            ErrorKind::Literal(word) => write!(f, "invalid literal (expected `{word}`)"),
        }
    }
}

impl Error for SyntaxError {}

/// Checks that `text` is exactly one JSON value, with optional whitespace
/// around it.
pub fn check(text: &[u8]) -> Result<(), SyntaxError> {
    let mut s = Syntax::new();
    s.feed(text)?;
    s.finish()
}

/// Where the checker is in the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing yet but whitespace.
    Start,
    /// A value is due: after `:`, or after `,` in an array.
    Value,
    /// Just after `[`: a value or `]`.
    ValueOrClose,
    /// Just after `{`: a member name or `}`.
    KeyOrClose,
    /// After `,` in an object: a member name.
    Key,
    /// After a member name: `:`.
    Colon,
    /// After a value inside a container: `,` or its close.
    After,
    /// The top-level value is complete: only whitespace may follow.
    Done,
    /// Inside a string (a member name when `key`).
    Str {
        key: bool,
    },
    /// Just after a backslash inside a string.
    Escape {
        key: bool,
    },
    /// Inside `\uXXXX`, with `left` hex digits to go.
    Hex {
        key: bool,
        left: u8,
    },
    Num(Num),
    /// Inside `true`, `false` or `null`: `at` bytes of `WORDS[word]` read.
    Lit {
        word: u8,
        at: u8,
    },
}

/// Where a number is in `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl Num {
    /// Whether the number may end here.
    fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::Exp)
    }

    fn missing(self) -> &'static str {
        match self {
            Num::Minus => "a digit after `-`",
            Num::Dot => "a digit after `.`",
            _ => "a digit in its exponent",
        }
    }
}

const WORDS: [&[u8]; 3] = [b"true", b"false", b"null"];
const WORD_NAMES: [&str; 3] = ["true", "false", "null"];

/// Bytes that end the plain run of a string: `"`, `\` and controls.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The incremental checker. Feed it the text in pieces, then
/// [`finish`](Syntax::finish). After an error it stays failed: every
/// further call returns the same error.
#[derive(Debug, Clone)]
pub struct Syntax {
    state: State,
    /// The open containers, innermost last: `b'['` or `b'{'`.
    stack: Vec<u8>,
    /// Bytes fed before the current piece.
    fed: u64,
    failed: Option<SyntaxError>,
}

impl Default for Syntax {
    fn default() -> Self {
        Syntax::new()
    }
}

impl Syntax {
    /// A checker that has seen nothing.
    pub fn new() -> Syntax {
        Syntax {
            state: State::Start,
            stack: Vec::new(),
            fed: 0,
            failed: None,
        }
    }

    /// Back to the start, keeping the stack's allocation.
    pub fn reset(&mut self) {
        self.state = State::Start;
        self.stack.clear();
        self.fed = 0;
        self.failed = None;
    }

    /// Whether one whole value has been seen, followed by nothing but
    /// whitespace so far. A number at the very end counts as complete.
    pub fn is_complete(&self) -> bool {
        self.failed.is_none()
            && match self.state {
                State::Done => true,
                State::Num(n) => n.complete() && self.stack.is_empty(),
                _ => false,
            }
    }

    /// How many containers are open.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Ends the text: an error unless exactly one value was seen.
    pub fn finish(&mut self) -> Result<(), SyntaxError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.is_complete() {
            return Ok(());
        }
        let kind = match self.state {
            State::Start => ErrorKind::Empty,
            State::Str { key: true }
            | State::Escape { key: true }
            | State::Hex { key: true, .. } => ErrorKind::Incomplete("a member name"),
            State::Str { .. } | State::Escape { .. } | State::Hex { .. } => {
                ErrorKind::Incomplete("a string")
            }
            State::Num(_) if self.stack.is_empty() => ErrorKind::Incomplete("a number"),
            State::Lit { .. } if self.stack.is_empty() => ErrorKind::Incomplete("a literal"),
            _ => ErrorKind::Incomplete(self.container()),
        };
        Err(self.fail(self.fed, kind))
    }

    fn container(&self) -> &'static str {
        match self.stack.last() {
            Some(b'{') => "an object",
            Some(_) => "an array",
            None => "a value",
        }
    }

    fn fail(&mut self, offset: u64, kind: ErrorKind) -> SyntaxError {
        let e = SyntaxError { offset, kind };
        self.failed = Some(e.clone());
        e
    }

    /// The value just ended: what follows depends on its container.
    #[inline]
    fn ended(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::After
        };
    }

    /// Checks the next piece of the text.
    pub fn feed(&mut self, piece: &[u8]) -> Result<(), SyntaxError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.scan(piece);
        self.fed += piece.len() as u64;
        result.map_err(|(at, kind)| self.fail(self.fed - piece.len() as u64 + at as u64, kind))
    }

    fn scan(&mut self, p: &[u8]) -> Result<(), (usize, ErrorKind)> {
        let found = |i: usize| found_at(p, i);
        let unexpected = |i: usize, expected: &'static str| {
            let found = found_at(p, i);
            (i, ErrorKind::Unexpected { expected, found })
        };
        let mut i = 0;
        while i < p.len() {
            let b = p[i];
            match self.state {
                State::Str { key } => {
                    // The plain run, then what stopped it.
                    while i < p.len() && !STRING_STOP[p[i] as usize] {
                        i += 1;
                    }
                    let Some(&b) = p.get(i) else { break };
                    match b {
                        b'"' if key => self.state = State::Colon,
                        b'"' => self.ended(),
                        b'\\' => self.state = State::Escape { key },
                        c => return Err((i, ErrorKind::Control(c))),
                    }
                }
                State::Escape { key } => match b {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                        self.state = State::Str { key }
                    }
                    b'u' => self.state = State::Hex { key, left: 4 },
                    _ => return Err((i, ErrorKind::Escape(found(i)))),
                },
                State::Hex { key, left } => {
                    if !b.is_ascii_hexdigit() {
                        return Err((i, ErrorKind::Unicode(found(i))));
                    }
                    self.state = if left == 1 {
                        State::Str { key }
                    } else {
                        State::Hex {
                            key,
                            left: left - 1,
                        }
                    };
                }
                State::Num(n) => {
                    let next = match (n, b) {
                        (Num::Minus, b'0') => Num::Zero,
                        (Num::Minus, b'1'..=b'9') => Num::Int,
                        (Num::Zero, b'0'..=b'9') => return Err((i, ErrorKind::LeadingZero)),
                        (Num::Int, b'0'..=b'9') => Num::Int,
                        (Num::Zero | Num::Int, b'.') => Num::Dot,
                        (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
                        (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
                        (Num::E, b'+' | b'-') => Num::ESign,
                        (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Num::Exp,
                        (n, _) if n.complete() => {
                            // The number ended; this byte is the next token.
                            self.ended();
                            continue;
                        }
                        (n, _) => {
                            let kind = ErrorKind::Number {
                                missing: n.missing(),
                                found: found(i),
                            };
                            return Err((i, kind));
                        }
                    };
                    self.state = State::Num(next);
                }
                State::Lit { word, at } => {
                    let w = WORDS[word as usize];
                    if b != w[at as usize] {
                        return Err((i, ErrorKind::Literal(WORD_NAMES[word as usize])));
                    }
                    if at as usize + 1 == w.len() {
                        self.ended();
                    } else {
                        self.state = State::Lit { word, at: at + 1 };
                    }
                }
                _ if matches!(b, b' ' | b'\t' | b'\n' | b'\r') => {}
                State::Start | State::Value | State::ValueOrClose => {
                    let expected = "a value";
                    match b {
                        b'{' => {
                            self.stack.push(b'{');
                            self.state = State::KeyOrClose;
                        }
                        b'[' => {
                            self.stack.push(b'[');
                            self.state = State::ValueOrClose;
                        }
                        b'"' => self.state = State::Str { key: false },
                        b'-' => self.state = State::Num(Num::Minus),
                        b'0' => self.state = State::Num(Num::Zero),
                        b'1'..=b'9' => self.state = State::Num(Num::Int),
                        b't' => self.state = State::Lit { word: 0, at: 1 },
                        b'f' => self.state = State::Lit { word: 1, at: 1 },
                        b'n' => self.state = State::Lit { word: 2, at: 1 },
                        b']' if self.state == State::ValueOrClose => {
                            self.stack.pop();
                            self.ended();
                        }
                        _ => {
                            let expected = match self.state {
                                State::ValueOrClose => "a value or `]`",
                                State::Value if self.stack.last() == Some(&b'[') => {
                                    "a value after `,`"
                                }
                                State::Value => "a value after `:`",
                                _ => expected,
                            };
                            return Err(unexpected(i, expected));
                        }
                    }
                }
                State::KeyOrClose | State::Key => match b {
                    b'"' => self.state = State::Str { key: true },
                    b'}' if self.state == State::KeyOrClose => {
                        self.stack.pop();
                        self.ended();
                    }
                    _ => {
                        let expected = if self.state == State::KeyOrClose {
                            "a member name (a string) or `}`"
                        } else {
                            "a member name (a string) after `,`"
                        };
                        return Err(unexpected(i, expected));
                    }
                },
                State::Colon => {
                    if b != b':' {
                        return Err(unexpected(i, "`:` after a member name"));
                    }
                    self.state = State::Value;
                }
                State::After => {
                    let open = *self.stack.last().expect("After has a container");
                    match (open, b) {
                        (b'[', b',') => self.state = State::Value,
                        (b'{', b',') => self.state = State::Key,
                        (b'[', b']') | (b'{', b'}') => {
                            self.stack.pop();
                            self.ended();
                        }
                        _ => {
                            let expected = if open == b'[' {
                                "`,` or `]` after an array element"
                            } else {
                                "`,` or `}` after a member's value"
                            };
                            return Err(unexpected(i, expected));
                        }
                    }
                }
                State::Done => return Err((i, ErrorKind::Trailing { found: found(i) })),
            }
            i += 1;
        }
        Ok(())
    }
}

/// The character that starts at `p[i]`, for messages.
fn found_at(p: &[u8], i: usize) -> char {
    let end = (i + 4).min(p.len());
    let tail = &p[i..end];
    let valid = match std::str::from_utf8(tail) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&tail[..e.valid_up_to()]).unwrap_or(""),
    };
    valid.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> (u64, String) {
        let e = check(text.as_bytes()).unwrap_err();
        (e.offset(), e.to_string())
    }

    #[test]
    fn messages_name_the_place_and_the_fix() {
        assert_eq!(
            at("[1 true]"),
            (
                3,
                "expected `,` or `]` after an array element, found `t`".into()
            )
        );
        assert_eq!(at("{}{}"), (2, "text after the value, found `{`".into()));
        assert_eq!(at("[01]"), (2, "a number has a leading zero".into()));
        assert_eq!(at("{\"a\":1"), (6, "the text ends inside an object".into()));
        assert_eq!(
            at("  "),
            (2, "no value: the text is empty or only whitespace".into())
        );
        assert_eq!(
            at("[\u{a0}]"),
            (1, "expected a value or `]`, found U+00A0".into())
        );
        assert_eq!(
            at("\"a\tb\""),
            (
                2,
                "control character U+0009 inside a string (it must be escaped)".into()
            )
        );
    }

    #[test]
    fn pieces_of_any_size_give_the_same_answer() {
        let texts: &[&[u8]] = &[
            br#"{"a":[1,-2.5e+3,"\u00e9\n",true,false,null,{}],"b":{"c":[]}}"#,
            b"[1 true]",
            b"{\"a\" 1}",
            b"12",
            b"-0.0e0 ",
            b"[1,]",
            b"\"\\x\"",
            b"tru",
        ];
        for text in texts {
            let whole = check(text);
            for size in 1..text.len().max(1) {
                let mut s = Syntax::new();
                let mut got = Ok(());
                for piece in text.chunks(size) {
                    got = s.feed(piece);
                    if got.is_err() {
                        break;
                    }
                }
                let got = got.and_then(|()| s.finish());
                assert_eq!(
                    got,
                    whole,
                    "{:?} in pieces of {size}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    #[test]
    fn depth_is_unlimited_and_costs_a_byte_a_level() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(check(deep.as_bytes()).is_ok());
        let mut s = Syntax::new();
        s.feed(&deep.as_bytes()[..100_000]).unwrap();
        assert_eq!(s.depth(), 100_000);
        assert!(s.finish().unwrap_err().is_incomplete());
    }
}
