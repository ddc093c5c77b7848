//! [`Members`]: a message read by the caller's own JSON validator, so that
//! one pass over its bytes both validates and reads it.

use crate::classify::{Classified, classify_scanned};
use crate::dialect::Dialect;
use crate::envelope::{Envelope, JsonType, Scanned};
use crate::limits::Tally;

/// A message as a caller's JSON validator reads it, to be classified as
/// [`classify_checked`](crate::classify_checked) classifies its text,
/// without reading the text again: `rpcspec check` has the framer's
/// `syntax::whole::walk` tell the members as it validates each line.
///
/// The caller tells, in order, every member of the message's top-level
/// object (its name as written, quotes included, and its value without
/// the whitespace around it) or every element of its top-level array, and
/// every number anywhere in it. The text must be exactly one JSON value
/// nested at most [`limits::MAX_DEPTH`](crate::limits::MAX_DEPTH) levels
/// deep (a deeper one is [`classify`](crate::classify)'s: this reading
/// counts no depth). Told anything else, it gives whatever it gives, and
/// never panics.
///
/// ```
/// use rpcspec_matcher::{Dialect, Members, classify_checked};
///
/// let text = r#"{"jsonrpc": "2.0", "method": "sum", "params": [1, 2], "id": 7}"#;
/// let dialect = Dialect::Jsonrpc2;
/// let mut m = Members::new(text, &dialect);
/// m.member(r#""jsonrpc""#, r#""2.0""#);
/// m.member(r#""method""#, r#""sum""#);
/// m.member(r#""params""#, "[1, 2]");
/// m.member(r#""id""#, "7");
/// for n in ["1", "2", "7"] {
///     m.number(n);
/// }
/// assert_eq!(m.classify(), classify_checked(text, &dialect));
/// ```
#[derive(Debug)]
pub struct Members<'a> {
    text: &'a str,
    dialect: &'a Dialect,
    scanned: Scanned<'a>,
    tally: Tally,
}

impl<'a> Members<'a> {
    /// The message `text`, to be classified in `dialect`; nothing told yet.
    pub fn new(text: &'a str, dialect: &'a Dialect) -> Members<'a> {
        let value = text.trim_start_matches([' ', '\t', '\n', '\r']);
        Members {
            text,
            dialect,
            scanned: Scanned {
                what: JsonType::of(value),
                env: Envelope::default(),
                members: Vec::new(),
                limit: None,
            },
            tally: Tally::default(),
        }
    }

    /// A member of the top-level object: `name` as written (`"id"`, or
    /// `"\u0069d"`), and its `value`.
    pub fn member(&mut self, name: &str, value: &'a str) {
        let escaped = name.as_bytes().contains(&b'\\');
        let type_field = self.dialect.type_field();
        self.scanned.env.put(name, escaped, value, type_field);
    }

    /// An element of the top-level array.
    pub fn element(&mut self, value: &'a str) {
        self.scanned.members.push(value);
    }

    /// A number, at any depth: its text.
    pub fn number(&mut self, number: &str) {
        self.tally.number(number);
    }

    /// The message classified, with every rule of the dialect that needs no
    /// history checked.
    pub fn classify(mut self) -> Classified {
        self.scanned.limit = self.tally.limit(self.text.len());
        classify_scanned(&self.scanned, self.dialect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify_checked;

    /// Names and values that are no strings, told by mistake or cut short
    /// in a text that is not JSON, give something and never panic.
    #[test]
    fn what_is_not_a_string_never_panics() {
        let dialect = Dialect::Jsonrpc2;
        let mut m = Members::new("{}", &dialect);
        m.member("\"", "1");
        m.member("", "\"");
        m.member("\"method\"", "\"");
        m.member("\"id\"", "");
        let _ = m.classify();
        for text in [r#"{"method":""#, r#"{"method":"x"#, "\"", r#"{"jsonrpc":"#] {
            let _ = classify_checked(text, &dialect);
        }
    }
}
