//! Implementation limits: RFC 8259 §9 lets a parser limit "the maximum
//! depth of nesting", "the range and precision of numbers" and "the size of
//! texts that it accepts", and JSON-RPC 2.0 §5.1 then has the server answer
//! what it could not parse with an error. A message beyond a limit that
//! real parsers have may therefore be refused as a whole with one error
//! reply; the [`Session`](crate::Session) accepts that reading and reports
//! it as `limit.refused` (INFO), never as a broken MUST.

use std::fmt;

/// Nesting deeper than this may be refused: .NET's `System.Text.Json`
/// stops at 64 by default, serde_json at 128, Python's `json` near 1000.
pub const MAX_DEPTH: usize = 64;
/// A message longer than this may be refused: Go's `bufio.Scanner`, the
/// usual line reader there, stops at 64 KiB by default.
pub const MAX_LEN: usize = 64 * 1024;
/// An integer with more digits than this is beyond `i64`/`u64`, the
/// integers most parsers keep exactly.
const MAX_INT_DIGITS: usize = 19;
/// A decimal exponent beyond this puts a number outside `f64`'s range.
const MAX_EXPONENT: i64 = 308;

/// Which limit a message is beyond, as found in its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// Nested `depth` levels deep, beyond [`MAX_DEPTH`].
    Depth(usize),
    /// `len` bytes long, beyond [`MAX_LEN`].
    Length(usize),
    /// A number outside `i64`/`u64` (integers) or `f64`'s range.
    Number,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Depth(d) => write!(
                f,
                "nested {d} levels deep (a parser may stop at {MAX_DEPTH})"
            ),
            Limit::Length(n) => write!(
                f,
                "{n} bytes long (a reader may stop at {} KiB)",
                MAX_LEN / 1024
            ),
            Limit::Number => f.write_str("holding a number beyond 64-bit integers or doubles"),
        }
    }
}

/// The first limit `text` (one JSON text) is beyond, if any. One pass over
/// the bytes; only numbers outside strings count.
/// What a walk over a message's bytes outside its strings saw: how deep
/// its brackets nest, and whether a number is beyond range. The envelope's
/// scan keeps it as it reads the message.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) depth: usize,
    deepest: usize,
    number: bool,
}

impl Tally {
    /// A `{` or `[`.
    pub(crate) fn open(&mut self) {
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
    }

    /// A `}` or `]`.
    pub(crate) fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The text of a number (a run of `-+.eE` and digits).
    pub(crate) fn number(&mut self, n: &str) {
        // Most numbers are short integers: no need to look closer.
        if n.len() > MAX_INT_DIGITS || n.contains(['e', 'E']) {
            self.number |= beyond_number(n);
        }
    }

    /// The limit a message `len` bytes long with this tally is beyond.
    pub(crate) fn limit(&self, len: usize) -> Option<Limit> {
        if len > MAX_LEN {
            Some(Limit::Length(len))
        } else if self.deepest > MAX_DEPTH {
            Some(Limit::Depth(self.deepest))
        } else if self.number {
            Some(Limit::Number)
        } else {
            None
        }
    }
}

fn beyond_number(n: &str) -> bool {
    let digits = n.trim_start_matches('-');
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(at) => (&digits[..at], Some(&digits[at + 1..])),
        None => (digits, None),
    };
    if let Some(e) = exponent {
        let e: i64 = e.parse().unwrap_or(i64::MAX);
        let int_digits = mantissa.split('.').next().unwrap_or("").len() as i64;
        return e.saturating_add(int_digits - 1).unsigned_abs() > MAX_EXPONENT as u64;
    }
    !mantissa.contains('.') && mantissa.len() > MAX_INT_DIGITS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beyond(text: &str) -> Option<Limit> {
        crate::envelope::scan_with(text, "type").limit
    }

    #[test]
    fn what_is_beyond_and_what_is_not() {
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        assert_eq!(beyond(&deep), Some(Limit::Depth(65)));
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert_eq!(beyond(&ok), None);
        // Brackets and digits inside strings do not count.
        let quoted = format!("[\"{}\", \"12345678901234567890123\"]", "[".repeat(100));
        assert_eq!(beyond(&quoted), None);
        assert_eq!(beyond(r#"{"a":"\"[[[","b":1}"#), None);
        assert_eq!(beyond("[18446744073709551616]"), Some(Limit::Number));
        assert_eq!(beyond("[9223372036854775807, 1.5e308, -2.5e-300]"), None);
        assert_eq!(beyond("[1e400]"), Some(Limit::Number));
        assert_eq!(beyond("[123.456e-400]"), Some(Limit::Number));
        assert_eq!(beyond("[1e99999999999999999999999]"), Some(Limit::Number));
        assert_eq!(beyond("[1e-99999999999999999999999]"), Some(Limit::Number));
        let long = format!("[\"{}\"]", "x".repeat(MAX_LEN));
        assert_eq!(beyond(&long), Some(Limit::Length(MAX_LEN + 4)));
    }

    /// The byte loop the scan's tally replaced: every byte outside strings,
    /// brackets counted, numbers read whole.
    fn by_bytes(text: &str) -> Option<Limit> {
        let bytes = text.as_bytes();
        let mut tally = Tally::default();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    i += 1;
                    while i < bytes.len() {
                        match bytes[i] {
                            b'\\' => i += 2,
                            b'"' => break,
                            _ => i += 1,
                        }
                    }
                }
                b'[' | b'{' => tally.open(),
                b']' | b'}' => tally.close(),
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while i < bytes.len()
                        && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        i += 1;
                    }
                    tally.number(&text[start..i]);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        tally.limit(text.len())
    }

    proptest::proptest! {
        /// Any text, JSON or not, is tallied as the byte loop tallies it.
        #[test]
        fn the_scan_tallies_as_the_byte_loop(
            text in proptest::string::string_regex(
                "[\\[\\]{}\",:\\\\ a-z0-9eE.+\\-é]{0,80}|\\[{0,70}1e400\\]{0,3}"
            ).expect("a valid regex")
        ) {
            proptest::prop_assert_eq!(beyond(&text), by_bytes(&text));
        }
    }
}
