//! A message's members that the rules read, each kept as raw JSON text,
//! and nothing else: one scan over its bytes that also tallies its
//! [limits](crate::limits), after serde_json has said it is valid (or a
//! caller's validator has: [`crate::classify_checked`]).
//!
//! A scan rather than `#[derive(Deserialize)]` or a visitor: derive fails
//! the whole parse on a duplicate member and cannot match a type field whose
//! name is configuration, and a visitor that validates as it goes costs
//! twice a validator that is already run (`check`'s lane runs one on both
//! cores).

use serde::de::IgnoredAny;

use crate::limits::{Limit, Tally};

/// A member the matcher reads. `Type` is named by configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Code,
    Message,
    Type,
    RequestId,
    Request,
    Response,
    Subtype,
}

const FIELDS: usize = 13;

const NAMES: [(&str, Field); FIELDS - 1] = [
    ("jsonrpc", Field::Jsonrpc),
    ("id", Field::Id),
    ("method", Field::Method),
    ("params", Field::Params),
    ("result", Field::Result),
    ("error", Field::Error),
    ("code", Field::Code),
    ("message", Field::Message),
    ("request_id", Field::RequestId),
    ("request", Field::Request),
    ("response", Field::Response),
    ("subtype", Field::Subtype),
];

/// The members of one JSON object that the rules read. `"id": null` is
/// `Some("null")`; an absent member is `None`.
#[derive(Debug, Default)]
pub(crate) struct Envelope<'a> {
    fields: [Option<&'a str>; FIELDS],
    /// Bit `f as usize` is set when member `f` appeared more than once.
    duplicates: u16,
    /// A member not among a Request object's four (`jsonrpc`, `method`,
    /// `params`, `id`: JSON-RPC 2.0 §4) appeared.
    pub(crate) others: bool,
}

impl<'a> Envelope<'a> {
    pub(crate) fn get(&self, f: Field) -> Option<&'a str> {
        self.fields[f as usize]
    }

    pub(crate) fn has(&self, f: Field) -> bool {
        self.fields[f as usize].is_some()
    }

    /// Member `quoted` (its name as written, quotes included; `escaped`:
    /// with a backslash) is `value`: kept if the rules read it.
    pub(crate) fn put(&mut self, quoted: &str, escaped: bool, value: &'a str, type_field: &str) {
        // Not a string (a caller's mistake, or text that is not JSON).
        if quoted.len() < 2 {
            return;
        }
        let decoded;
        let name = if escaped {
            // A name that does not decode (a lone surrogate escape) is
            // none the rules read.
            match serde_json::from_str::<String>(quoted) {
                Ok(n) => {
                    decoded = n;
                    decoded.as_str()
                }
                Err(_) => {
                    self.others = true;
                    return;
                }
            }
        } else {
            &quoted[1..quoted.len() - 1]
        };
        self.others |= !matches!(name, "jsonrpc" | "method" | "params" | "id");
        let name = field(name, type_field);
        if let Some(f) = name {
            let slot = &mut self.fields[f as usize];
            if slot.is_some() {
                self.duplicates |= 1 << f as u16;
            }
            // The last one wins, as in most parsers (JavaScript, Python, serde_json's Value).
            *slot = Some(value);
        }
    }

    /// The members that appeared more than once, by name.
    pub(crate) fn duplicates<'t>(&self, type_field: &'t str) -> impl Iterator<Item = &'t str> {
        let bits = self.duplicates;
        NAMES
            .iter()
            .map(|&(n, f)| (n, f))
            .chain([(type_field, Field::Type)])
            .filter(move |&(_, f)| bits & (1 << f as u16) != 0)
            .map(|(n, _)| n)
    }
}

/// A message read but not yet classified: what the rules read of its text
/// (its type, an object's members or an array's, the limit it is beyond),
/// in one pass over its bytes (nothing is allocated but a batch's list of
/// members), to be classified without reading the text again.
#[derive(Debug)]
pub(crate) struct Scanned<'a> {
    /// Its type, from its first byte.
    pub(crate) what: JsonType,
    /// An object's members the rules read (none for anything else).
    pub(crate) env: Envelope<'a>,
    /// An array's members (none for anything else).
    pub(crate) members: Vec<&'a str>,
    pub(crate) limit: Option<Limit>,
}

/// The JSON type of a value, told from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl JsonType {
    /// `raw` is the text of one valid JSON value, without surrounding space.
    pub(crate) fn of(raw: &str) -> JsonType {
        match raw.as_bytes().first() {
            Some(b'{') => JsonType::Object,
            Some(b'[') => JsonType::Array,
            Some(b'"') => JsonType::String,
            Some(b't' | b'f') => JsonType::Bool,
            Some(b'n') => JsonType::Null,
            _ => JsonType::Number,
        }
    }

    /// "an object", "a string", ... for finding details.
    pub(crate) fn article(self) -> &'static str {
        match self {
            JsonType::Object => "an object",
            JsonType::Array => "an array",
            JsonType::String => "a string",
            JsonType::Number => "a number",
            JsonType::Bool => "a boolean",
            JsonType::Null => "null",
        }
    }
}

/// Whether `text` is exactly one JSON value (surrounding whitespace
/// allowed), and if not, serde_json's reason. Numbers are not converted:
/// `1e400` is valid JSON, though no f64 holds it.
pub(crate) fn validate(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<IgnoredAny>(text).map(|_| ())
}

/// What a JSON text is, its members the rules read, and the limit it is
/// beyond, in one pass over its bytes.
///
/// The scan trusts the text to be valid JSON ([`validate`], or a caller's
/// validator): it reads the structure without checking it. On text that is
/// not valid JSON it returns whatever it read, never panics, and the limit
/// is still that of every byte outside strings (as a reader that counts
/// brackets and numbers would see it).
pub(crate) fn scan_with<'a>(text: &'a str, type_field: &str) -> Scanned<'a> {
    // Filled in place: an envelope is a few hundred bytes, not to be moved
    // for every message.
    let mut out = Scanned {
        what: JsonType::Null,
        env: Envelope::default(),
        members: Vec::new(),
        limit: None,
    };
    let mut w = Walk::new(text);
    w.space();
    out.what = JsonType::of(&text[w.i..]);
    match w.peek() {
        Some(b'{') => w.object(type_field, &mut out.env),
        Some(b'[') => w.array(&mut out.members),
        _ => {}
    }
    w.rest();
    out.limit = w.tally.limit(text.len());
    out
}

/// The members of an object known to be valid JSON (a batch member, a
/// nested `error`), or `None` if it is not an object.
pub(crate) fn parse_nested<'a>(raw: &'a str, type_field: &str) -> Option<Envelope<'a>> {
    if JsonType::of(raw) != JsonType::Object {
        return None;
    }
    Some(scan_with(raw, type_field).env)
}

/// The member a name is, if the rules read it.
fn field(name: &str, type_field: &str) -> Option<Field> {
    if name == type_field {
        return Some(Field::Type);
    }
    NAMES.iter().find(|&&(n, _)| n == name).map(|&(_, f)| f)
}

/// Bytes with a `c` among the eight of `w`: the lowest set bit is exact
/// (the borrow reaches only bytes above a match).
fn has(w: u64, c: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = w ^ (ONES * u64::from(c));
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// A cursor over a JSON text that sees every byte outside strings once.
struct Walk<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    tally: Tally,
}

impl<'a> Walk<'a> {
    fn new(text: &'a str) -> Walk<'a> {
        Walk {
            text,
            b: text.as_bytes(),
            i: 0,
            tally: Tally::default(),
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// At a quote: past the closing one. `Some(escaped)`: whether it holds
    /// a backslash; `None`: it is not closed.
    #[inline]
    fn string(&mut self) -> Option<bool> {
        let b = self.b;
        let mut i = self.i + 1;
        let mut escaped = false;
        loop {
            while let Some(eight) = b.get(i..i + 8) {
                let w = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
                let m = has(w, b'"') | has(w, b'\\');
                if m != 0 {
                    i += (m.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            match b.get(i) {
                None => {
                    self.i = b.len();
                    return None;
                }
                Some(b'"') => {
                    self.i = i + 1;
                    return Some(escaped);
                }
                Some(b'\\') => {
                    escaped = true;
                    i += 2;
                }
                Some(_) => i += 1,
            }
        }
    }

    /// At `-` or a digit: past the number, tallied.
    #[inline]
    fn number(&mut self) {
        let start = self.i;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.i += 1;
        }
        self.tally.number(&self.text[start..self.i]);
    }

    /// One byte outside strings, or a whole string or number.
    #[inline]
    fn token(&mut self) {
        match self.b[self.i] {
            b'"' => {
                self.string();
            }
            b'-' | b'0'..=b'9' => self.number(),
            b'{' | b'[' => {
                self.tally.open();
                self.i += 1;
            }
            b'}' | b']' => {
                self.tally.close();
                self.i += 1;
            }
            _ => self.i += 1,
        }
    }

    /// The rest of the text, token by token.
    fn rest(&mut self) {
        while self.i < self.b.len() {
            self.token();
        }
    }

    /// At `{` or `[`: past its match (or to the end).
    fn container(&mut self) {
        let outer = self.tally.depth;
        self.token();
        while self.i < self.b.len() && self.tally.depth > outer {
            self.token();
        }
    }

    /// At a value: past it, its text returned (`None` if it is cut short).
    fn value(&mut self) -> Option<&'a str> {
        let start = self.i;
        match self.peek()? {
            b'{' | b'[' => self.container(),
            b't' | b'f' | b'n' => {
                while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                    self.i += 1;
                }
            }
            _ => self.token(),
        }
        self.text.get(start..self.i)
    }

    /// At `{`: its members, up to its `}` or the first thing that is not
    /// a member.
    fn object(&mut self, type_field: &str, env: &mut Envelope<'a>) {
        self.token();
        loop {
            self.space();
            match self.peek() {
                Some(b'}') => {
                    self.token();
                    break;
                }
                Some(b'"') => {}
                _ => break,
            }
            let start = self.i;
            let Some(escaped) = self.string() else {
                break;
            };
            let quoted = &self.text[start..self.i];
            self.space();
            if self.peek() != Some(b':') {
                break;
            }
            self.i += 1;
            self.space();
            let Some(value) = self.value() else {
                break;
            };
            env.put(quoted, escaped, value, type_field);
            if !self.next_member(b'}') {
                break;
            }
        }
    }

    /// At `[`: the text of each member.
    fn array(&mut self, members: &mut Vec<&'a str>) {
        self.token();
        loop {
            self.space();
            match self.peek() {
                Some(b']') => {
                    self.token();
                    break;
                }
                None => break,
                _ => {}
            }
            let Some(value) = self.value().filter(|v| !v.is_empty()) else {
                break;
            };
            members.push(value);
            if !self.next_member(b']') {
                break;
            }
        }
    }

    /// After a member of an object or array that ends with `close`: past
    /// the `,` if another member follows (true), else past `close`, or at
    /// whatever is not either.
    fn next_member(&mut self, close: u8) -> bool {
        self.space();
        match self.peek() {
            Some(b',') => {
                self.i += 1;
                true
            }
            Some(c) if c == close => {
                self.token();
                false
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object<'a>(text: &'a str, type_field: &str) -> Envelope<'a> {
        assert!(validate(text).is_ok(), "{text}");
        let scanned = scan_with(text, type_field);
        assert_eq!(scanned.what, JsonType::Object);
        scanned.env
    }

    #[test]
    fn null_is_kept_apart_from_absent() {
        let env = object(r#"{"id":null,"x":[1,{"id":2}]}"#, "type");
        assert_eq!(env.get(Field::Id), Some("null"));
        assert_eq!(env.get(Field::Method), None);
    }

    #[test]
    fn duplicates_and_escaped_names() {
        let text = r#"{"\u0069d":1,"id":2,"kind":"a","kind":"b","x":1,"x":2}"#;
        let env = object(text, "kind");
        assert_eq!(env.get(Field::Id), Some("2"));
        assert_eq!(env.get(Field::Type), Some("\"b\""));
        assert_eq!(env.duplicates("kind").collect::<Vec<_>>(), ["id", "kind"]);
    }

    #[test]
    fn values_are_their_text_without_space() {
        let text = " { \"method\" : \"a\\\"b\" , \"params\":[ 1 , {\"x\":\"]}\"} ] ,\"id\" :-1.5e3 ,\"result\": true\t} ";
        let env = object(text, "type");
        assert_eq!(env.get(Field::Method), Some(r#""a\"b""#));
        assert_eq!(env.get(Field::Params), Some(r#"[ 1 , {"x":"]}"} ]"#));
        assert_eq!(env.get(Field::Id), Some("-1.5e3"));
        assert_eq!(env.get(Field::Result), Some("true"));
    }

    #[test]
    fn scalars_arrays_and_errors() {
        assert!(validate(" 1e400 ").is_ok());
        assert_eq!(scan_with(" 1e400 ", "type").what, JsonType::Number);
        assert_eq!(scan_with("[1, {}]", "type").members, ["1", "{}"]);
        assert!(scan_with("[ ]", "type").members.is_empty());
        assert!(validate("{} x").is_err());
        assert!(validate("").is_err());
        assert!(validate("{\"a\":1e400}").is_ok());
    }

    /// Text that is not JSON scans to something, and never panics:
    /// unclosed strings, escapes before multi-byte characters, stray bytes.
    #[test]
    fn any_text_scans() {
        for text in [
            "{\"id",
            "{\"id\":\"\\é",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":]",
            "[",
            "[,",
            "[1,",
            "{é:1}",
            "{\"a\":é}",
            "\"\\",
            "{\"\\é\":1}",
            "[tru",
            "{\"a\":1 2}",
            "}}]]",
            "",
        ] {
            let _ = scan_with(text, "type");
            let _ = parse_nested(text, "type");
        }
    }

    /// A JSON value's text, written with odd spacing and escapes.
    fn value() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("0".to_owned()),
            Just("-1.5e3".to_owned()),
            Just("123456789012345678901234".to_owned()),
            Just("1e400".to_owned()),
            Just("true".to_owned()),
            Just("null".to_owned()),
            Just(r#""a\"b\\""#.to_owned()),
            Just(r#""]}{[,:""#.to_owned()),
            Just("\"caf\u{e9} \\u00e9\"".to_owned()),
            "[a-z]{0,12}".prop_map(|s| format!("\"{s}\"")),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[ {}]", v.join(" ,\t"))),
                proptest::collection::vec(("[a-z]{1,3}", inner), 0..4).prop_map(|v| {
                    let members: Vec<String> = v
                        .into_iter()
                        .map(|(k, v)| format!("\"{k}\" :{v}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest::proptest! {
        /// Each member the rules read is the text of its last value, and
        /// the names given more than once are the duplicates, whatever the
        /// values hold (strings of brackets, escapes, nesting) and however
        /// the names are written.
        #[test]
        fn the_scan_reads_what_was_written(
            members in proptest::collection::vec(
                (proptest::sample::select(vec![
                    "jsonrpc", "id", "method", "params", "result", "error",
                    "kind", "request_id", "subtype", "x", "\\u0069d", "m\\u00e9",
                ]), value()),
                0..8,
            ),
            space in proptest::sample::select(vec!["", " ", "\n\t ", "\r\n"]),
        ) {
            let text = format!(
                "{space}{{{}}}{space}",
                members
                    .iter()
                    .map(|(k, v)| format!("{space}\"{k}\"{space}:{space}{v}{space}"))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            proptest::prop_assert!(validate(&text).is_ok(), "{}", text);
            let env = object(&text, "kind");
            let decoded = |k: &str| serde_json::from_str::<String>(&format!("\"{k}\"")).expect("a name");
            let mut seen = std::collections::HashMap::new();
            for (k, _) in &members {
                *seen.entry(decoded(k)).or_insert(0) += 1;
            }
            for (name, f) in NAMES.iter().copied().chain([("kind", Field::Type)]) {
                let last = members.iter().rev().find(|(k, _)| decoded(k) == name);
                proptest::prop_assert_eq!(env.get(f), last.map(|(_, v)| v.as_str()), "{}", name);
            }
            let mut dup: Vec<&str> = env.duplicates("kind").collect();
            let mut want: Vec<&str> = NAMES
                .iter()
                .map(|&(n, _)| n)
                .chain(["kind"])
                .filter(|n| seen.get(*n).is_some_and(|&c| c > 1))
                .collect();
            dup.sort_unstable();
            want.sort_unstable();
            proptest::prop_assert_eq!(dup, want);
        }
    }
}
