//! Request ids, kept as the exact text that was sent.

use std::fmt;

use crate::text::Text;

use serde_json::value::RawValue;

/// The JSON type of an [`Id`].
///
/// Not `#[non_exhaustive]`: JSON-RPC 2.0 §4 allows exactly these three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// A JSON string.
    String,
    /// A JSON number, of any size or precision.
    Number,
    /// `null`.
    Null,
}

/// How a reply's id compares with a request's id; see [`Id::compare`].
///
/// `#[non_exhaustive]`: the grading of near misses may be refined (a
/// [`SameValue`](IdMatch::SameValue) number and string are already graded
/// apart, by `session.id-number-text` and `session.id-string-text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IdMatch {
    /// The same JSON text, byte for byte.
    Same,
    /// The same value written differently: `1` and `1.0` or `1e0`, `-0` and
    /// `0`, `"A"` and `"\u0041"`. The pair is graded, not silently matched.
    SameValue,
    /// A string and a number that spell the same number, as `"1"` and `1`.
    /// These are different ids.
    TypeChanged,
    /// Different ids.
    Different,
}

/// A request id: a JSON string, number or null, kept as the exact text that
/// was sent.
///
/// Nothing is lost: `18446744073709551616` stays those digits and `"\u00e9"`
/// keeps its escape. `==` compares the text; [`Id::compare`] says whether two
/// ids are the same value, and how.
///
/// ```
/// use rpcspec_matcher::{Id, IdMatch};
///
/// let id = |s| Id::parse(s).unwrap();
/// assert_eq!(id("7").compare(&id("7")), IdMatch::Same);
/// assert_eq!(id("1").compare(&id("1.0")), IdMatch::SameValue);
/// assert_eq!(id("\"1\"").compare(&id("1")), IdMatch::TypeChanged);
/// assert_eq!(id("9007199254740993").compare(&id("9007199254740992")), IdMatch::Different);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Id {
    raw: Text,
}

impl Id {
    /// The id written as `text` (one JSON string, number or `null`, with
    /// optional surrounding whitespace), or `None` if `text` is anything else.
    pub fn parse(text: &str) -> Option<Id> {
        let raw: &RawValue = serde_json::from_str(text).ok()?;
        Id::from_raw(raw.get())
    }

    /// `raw` is the text of one valid JSON value, without surrounding space.
    pub(crate) fn from_raw(raw: &str) -> Option<Id> {
        match raw.as_bytes().first()? {
            b'"' | b'-' | b'0'..=b'9' | b'n' => Some(Id { raw: raw.into() }),
            _ => None,
        }
    }

    /// The id exactly as it was written on the wire.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Whether the id is a string, a number or null.
    pub fn kind(&self) -> IdKind {
        match self.raw.as_bytes()[0] {
            b'"' => IdKind::String,
            b'n' => IdKind::Null,
            _ => IdKind::Number,
        }
    }

    /// Compares as the JSON values they are: text first, then value. Numbers
    /// compare by exact decimal value, never through `f64`; strings by their
    /// decoded characters; a string never equals a number.
    pub fn compare(&self, other: &Id) -> IdMatch {
        if self.raw == other.raw {
            return IdMatch::Same;
        }
        let (a, b) = (self.key(), other.key());
        if a == b {
            return IdMatch::SameValue;
        }
        match (&a, &b) {
            (Key::Str(s), n @ (Key::Int(_) | Key::Num(_)))
            | (n @ (Key::Int(_) | Key::Num(_)), Key::Str(s))
                if number_key(s).as_ref() == Some(n) =>
            {
                IdMatch::TypeChanged
            }
            _ => IdMatch::Different,
        }
    }

    /// Whether this number id is `request`'s, an integer beyond 64 bits
    /// (outside -2^63 to 2^64 - 1), rounded to the nearest double, as a
    /// reader that parses numbers as doubles echoes it
    /// (`18446744073709551616` as `18446744073709552000`).
    pub fn is_rounded(&self, request: &Id) -> bool {
        if self.kind() != IdKind::Number || !request.is_integer_literal() {
            return false;
        }
        let beyond = request.raw.parse::<i128>().map_or(true, |n| {
            n < i128::from(i64::MIN) || n > i128::from(u64::MAX)
        });
        let double = |raw: &str| raw.parse::<f64>().ok().filter(|d| d.is_finite());
        // Written as a double prints, the shortest digits that read back
        // as it (`18446744073709552000`, `1.8446744073709552e+19`).
        beyond
            && double(&self.raw).is_some_and(|d| {
                Some(d) == double(&request.raw)
                    && canonical_number(&self.raw) == canonical_number(&format!("{d:e}"))
            })
    }

    /// Whether a number id is written with a fraction part (`1.0`) or has a
    /// value that is not an integer (`1e-1`). `false` for strings and null.
    pub fn is_fractional(&self) -> bool {
        self.kind() == IdKind::Number
            && (self.raw.contains('.')
                || (self.raw.contains(['e', 'E']) && !number_is_integer(&self.raw)))
    }

    /// Whether a number id is written as a plain integer: digits, optional
    /// minus sign, no fraction, no exponent. `false` for strings and null.
    pub fn is_integer_literal(&self) -> bool {
        self.kind() == IdKind::Number && is_integer_literal(&self.raw)
    }

    /// The value this id is indexed under: equal keys mean equal values.
    pub(crate) fn key(&self) -> Key {
        match self.kind() {
            IdKind::Null => Key::Null,
            IdKind::Number => number_value(&self.raw),
            // A string with a lone surrogate escape does not decode; its raw
            // text is then the only thing to compare by.
            IdKind::String if !self.raw.contains('\\') => {
                Key::Str(self.raw[1..self.raw.len() - 1].into())
            }
            IdKind::String => Key::Str(
                serde_json::from_str::<String>(&self.raw)
                    .map(Text::from)
                    .unwrap_or_else(|_| self.raw.clone()),
            ),
        }
    }

    /// The key a reply with the other JSON type would have if it spelled the
    /// same number: `"1"` for `1`, `1` for `"1"`. Used to tell a changed id
    /// type apart from an unknown id.
    pub(crate) fn swapped_key(&self) -> Option<Key> {
        match self.key() {
            Key::Null => None,
            Key::Int(_) | Key::Num(_) => Some(Key::Str(self.raw.clone())),
            Key::Str(s) => number_key(&s),
        }
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.raw)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// An id's value, for hashing: equal keys, equal values. Integers below
/// 10^18 in magnitude (every id seen in practice) are kept as `i64`, without
/// allocating; other numbers in canonical decimal form; strings decoded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Null,
    Int(i64),
    Num(Box<str>),
    Str(Text),
}

/// The key of `s` read as a JSON number, if it is one.
fn number_key(s: &str) -> Option<Key> {
    is_json_number(s).then(|| number_value(s))
}

/// The key of the JSON number `raw`.
fn number_value(raw: &str) -> Key {
    let int = |neg: bool, digits: &str, exp: u32| {
        let magnitude = digits
            .bytes()
            .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0'))
            * 10i64.pow(exp);
        Key::Int(if neg { -magnitude } else { magnitude })
    };
    // Fast path: a plain integer literal of at most 18 digits.
    let (neg, digits) = raw.strip_prefix('-').map_or((false, raw), |d| (true, d));
    if digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()) {
        return int(neg, digits, 0);
    }
    let (neg, digits, exp) = decompose(raw);
    if let Ok(exp) = u32::try_from(exp)
        && digits.len() + exp as usize <= 18
    {
        return int(neg, &digits, exp);
    }
    Key::Num(canonical_number(raw))
}

fn is_json_number(s: &str) -> bool {
    let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
    let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if int_len == 0 || (b[0] == b'0' && int_len > 1) {
        return false;
    }
    let mut rest = &b[int_len..];
    if let Some(r) = rest.strip_prefix(b".") {
        let n = r.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &r[n..];
    }
    if let Some(r) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let r = r
            .strip_prefix(b"+")
            .or_else(|| r.strip_prefix(b"-"))
            .unwrap_or(r);
        let n = r.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &r[n..];
    }
    rest.is_empty()
}

/// `true` if `raw` (a JSON number) has no fraction and no exponent.
pub(crate) fn is_integer_literal(raw: &str) -> bool {
    !raw.contains(['.', 'e', 'E'])
}

/// Splits a JSON number into sign, significant digits and exponent, so that
/// the value is `sign digits × 10^exponent` with no leading or trailing zeros
/// in `digits`. Zero is `(false, "0", 0)` whatever its sign or spelling.
///
/// An exponent beyond the range of `i64` saturates: ids that large are not
/// told apart (they are still compared by text first).
fn decompose(raw: &str) -> (bool, String, i64) {
    let (neg, s) = match raw.strip_prefix('-') {
        Some(s) => (true, s),
        None => (false, raw),
    };
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, "0"),
    };
    let mut exp = parse_saturating(exp);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    exp = exp.saturating_sub(frac.len() as i64);
    let mut digits: String = int
        .chars()
        .chain(frac.chars())
        .skip_while(|&c| c == '0')
        .collect();
    let trailing = digits.len() - digits.trim_end_matches('0').len();
    digits.truncate(digits.len() - trailing);
    exp = exp.saturating_add(trailing as i64);
    if digits.is_empty() {
        return (false, "0".into(), 0);
    }
    (neg, digits, exp)
}

fn parse_saturating(exp: &str) -> i64 {
    let (neg, digits) = match exp.as_bytes().first() {
        Some(b'-') => (true, &exp[1..]),
        Some(b'+') => (false, &exp[1..]),
        _ => (false, exp),
    };
    let magnitude = digits.bytes().fold(0i64, |acc, d| {
        acc.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    if neg { -magnitude } else { magnitude }
}

fn canonical_number(raw: &str) -> Box<str> {
    let (neg, digits, exp) = decompose(raw);
    format!("{}{digits}e{exp}", if neg { "-" } else { "" }).into_boxed_str()
}

/// `true` if the JSON number `raw` has an integer value (`1.0` and `1e2` do).
pub(crate) fn number_is_integer(raw: &str) -> bool {
    decompose(raw).2 >= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Id {
        Id::parse(s).unwrap()
    }

    #[test]
    fn canonical_numbers() {
        let cases = [
            ("0", "0e0"),
            ("-0", "0e0"),
            ("0.000", "0e0"),
            ("1", "1e0"),
            ("1.0", "1e0"),
            ("1e0", "1e0"),
            ("10", "1e1"),
            ("100E-2", "1e0"),
            ("-12.50e+1", "-125e0"),
            ("0.001", "1e-3"),
            ("18446744073709551616", "18446744073709551616e0"),
        ];
        for (raw, want) in cases {
            assert_eq!(&*canonical_number(raw), want, "{raw}");
        }
    }

    #[test]
    fn compare() {
        use IdMatch::*;
        let cases = [
            ("1", "1", Same),
            ("1", "1.0", SameValue),
            ("1", "1e0", SameValue),
            ("0", "-0", SameValue),
            ("\"A\"", "\"\\u0041\"", SameValue),
            ("\"1\"", "1", TypeChanged),
            ("1", "\"1\"", TypeChanged),
            ("\"1.0\"", "1", TypeChanged),
            ("\"x\"", "1", Different),
            ("null", "\"null\"", Different),
            ("null", "0", Different),
            ("9007199254740993", "9007199254740992", Different),
            ("18446744073709551616", "18446744073709551615", Different),
            ("1", "10", Different),
            ("\"\\ud800\"", "\"\\ud800\"", Same),
            ("\"\\ud800\"", "\"\\uD800\"", Different),
        ];
        for (a, b, want) in cases {
            assert_eq!(id(a).compare(&id(b)), want, "{a} vs {b}");
        }
    }

    #[test]
    fn keys() {
        for (a, b) in [
            ("1", "1.0"),
            ("100", "1e2"),
            ("-0", "0"),
            ("0.0e5", "0"),
            ("12.5e1", "125"),
        ] {
            assert_eq!(id(a).key(), id(b).key(), "{a} vs {b}");
        }
        assert_eq!(id("1e2").key(), Key::Int(100));
        assert_eq!(id("1e18").key(), Key::Num("1e18".into()));
        assert_eq!(id("1000000000000000000").key(), Key::Num("1e18".into()));
        assert_eq!(id("1.5").key(), Key::Num("15e-1".into()));
        assert_eq!(id("999999999999999999").key(), Key::Int(10i64.pow(18) - 1));
        assert_eq!(
            id("-99999999999999999.9e1").key(),
            Key::Int(1 - 10i64.pow(18))
        );
        assert_ne!(id("9007199254740993").key(), id("9007199254740992").key());
    }

    #[test]
    fn numbers() {
        assert!(id("1.0").is_fractional());
        assert!(id("1e-1").is_fractional());
        assert!(!id("1e2").is_fractional());
        assert!(!id("1e2").is_integer_literal());
        assert!(id("-12").is_integer_literal());
        assert!(!id("\"1.5\"").is_fractional());
        assert!(Id::parse("[1]").is_none());
        assert!(Id::parse("true").is_none());
        assert_eq!(id(" 1 ").raw(), "1");
        assert!(is_json_number("-1.5e+3") && !is_json_number("01") && !is_json_number("1."));
        assert!(!is_json_number("") && !is_json_number("-") && !is_json_number(" 1"));
    }
}
