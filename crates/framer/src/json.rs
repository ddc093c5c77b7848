//! The optional JSON layer (feature `json`): a line is exactly one JSON
//! value, and a value is written as exactly one line.

use std::{error::Error, fmt};

use serde::{Deserialize, Serialize};

use crate::Line;

/// A line that is not exactly one JSON value of the requested shape.
#[derive(Debug)]
pub struct JsonError {
    number: u64,
    offset: u64,
    message: String,
    source: serde_json::Error,
}

impl JsonError {
    fn new(line: &Line<'_>, source: serde_json::Error) -> JsonError {
        let at = index_of(&line.bytes, source.line(), source.column());
        let full = source.to_string();
        let suffix = format!(" at line {} column {}", source.line(), source.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        JsonError {
            number: line.number,
            offset: line.offset + at as u64,
            message,
            source,
        }
    }

    /// The line number, as in [`Line::number`].
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Stream offset at which the parser gave up.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// What the parser said, without its position (this error has the
    /// stream position instead).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the line is not JSON at all (bad syntax, or the text ended
    /// early), as opposed to JSON of the wrong shape for the target type.
    pub fn is_syntax(&self) -> bool {
        use serde_json::error::Category;
        matches!(self.source.classify(), Category::Syntax | Category::Eof)
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} (byte {}): not one json value: {}",
            self.number, self.offset, self.message
        )
    }
}

impl Error for JsonError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.source)
    }
}

/// serde_json counts 1-based lines and, within a line, bytes consumed; turn
/// that back into a byte index (a json-seq record may span lines).
fn index_of(text: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', text)
            .nth(line - 2)
            .map_or(text.len(), |nl| nl + 1)
    };
    (line_start + column.saturating_sub(1)).min(text.len())
}

impl<'a> Line<'a> {
    /// Parses the line as exactly one JSON value of type `T`, borrowing from
    /// the line where `T` allows. JSON whitespace around the value is fine;
    /// anything else after it (`{}{}`, `1 2`, `[][]`) is an error.
    ///
    /// ```
    /// use rpcspec_framer::{Config, Event, frame};
    /// let events = frame(&Config::default(), b"{\"n\": 1}\n{}{}\n");
    /// let Event::Line(good) = &events[0] else { unreachable!() };
    /// let Event::Line(bad) = &events[1] else { unreachable!() };
    /// assert_eq!(good.parse_value().unwrap()["n"], 1);
    /// let err = bad.parse_value().unwrap_err();
    /// assert_eq!(err.to_string(), "line 2 (byte 11): not one json value: trailing characters");
    /// ```
    pub fn parse<'de, T: Deserialize<'de>>(&'de self) -> Result<T, JsonError> {
        serde_json::from_slice(&self.bytes).map_err(|e| JsonError::new(self, e))
    }

    /// Parses the line as exactly one [`serde_json::Value`].
    pub fn parse_value(&self) -> Result<serde_json::Value, JsonError> {
        self.parse()
    }
}

/// Appends `value` to `out` as one NDJSON record: compact JSON and `\n`.
///
/// By construction the record holds no raw `\n` or `\r`: compact JSON
/// escapes them inside strings, and any that a pre-serialised
/// [`serde_json::value::RawValue`] carries as whitespace are removed.
///
/// ```
/// let mut out = Vec::new();
/// rpcspec_framer::encode(&serde_json::json!({"text": "a\nb"}), &mut out).unwrap();
/// assert_eq!(out, b"{\"text\":\"a\\nb\"}\n");
/// ```
pub fn encode<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> serde_json::Result<()> {
    let start = out.len();
    serde_json::to_writer(&mut *out, value)?;
    // Raw newlines can only be insignificant whitespace here: valid JSON
    // strings cannot hold them unescaped.
    if memchr::memchr2(b'\n', b'\r', &out[start..]).is_some() {
        let mut i = start;
        out.retain(|b| {
            i += 1;
            i <= start || !matches!(b, b'\n' | b'\r')
        });
    }
    out.push(b'\n');
    Ok(())
}

/// [`encode`] into a new buffer.
pub fn encode_to_vec<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::new();
    encode(value, &mut out)?;
    Ok(out)
}
