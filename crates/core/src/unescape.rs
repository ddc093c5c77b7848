//! Escapes in case files, whatever the role. `unescape = true` in a case
//! file: `\xNN` is the byte 0xNN; in a decoder case's stream or a client
//! scenario's line, `$pad(N)` too ([`stream_text`]).
//!
//! Only `\x` is an escape, because it is the one backslash sequence JSON
//! does not use: `\"`, `\n` or `\u00e9` inside a JSON line stay as written.
//! Write `\x5C` for a backslash that must be followed by `x`.

/// Replaces every `\xNN` (two hex digits) with its byte.
pub fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'x') {
            // Exactly two hex digits: `from_str_radix` alone takes "+F".
            let hex = bytes
                .get(i + 2..i + 4)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok());
            let byte = hex
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    format!("`\\x` at byte {i} of {text:?} is not followed by two hex digits")
                })?;
            out.push(byte);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// Largest `$pad(N)`.
pub const MAX_PAD: usize = 16 << 20;

/// A string of a case's stream (or a client scenario's line): `$pad(N)` becomes N bytes `x` (so lines
/// over 64 KiB and 1 MiB need not be stored), then `\xNN` becomes the byte
/// 0xNN.
pub fn stream_text(text: &str) -> Result<Vec<u8>, String> {
    const PAD: &str = "$pad(";
    let mut expanded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(PAD) {
        expanded.push_str(&rest[..at]);
        let after = &rest[at + PAD.len()..];
        let close = after
            .find(')')
            .ok_or_else(|| "`$pad(` without its `)`".to_owned())?;
        let n: usize = after[..close]
            .parse()
            .map_err(|_| format!("`$pad({})`: not a byte count", &after[..close]))?;
        if n > MAX_PAD {
            return Err(format!("`$pad({n})` is over the limit of {MAX_PAD} bytes"));
        }
        if expanded.len() + n > MAX_PAD {
            return Err(format!("the string is over {MAX_PAD} bytes once padded"));
        }
        expanded.extend(std::iter::repeat_n('x', n));
        rest = &after[close + 1..];
    }
    expanded.push_str(rest);
    unescape(&expanded)
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn hex_bytes_and_nothing_else() {
        assert_eq!(
            unescape(r#"{"a":"\xC3\xA9\n\u00e9"}\x0A"#).unwrap(),
            b"{\"a\":\"\xC3\xA9\\n\\u00e9\"}\n"
        );
        assert_eq!(unescape(r"\x5Cx41").unwrap(), b"\\x41");
        assert!(unescape(r"\xZZ").unwrap_err().contains("two hex digits"));
        assert!(unescape(r"tail\x4").is_err());
        assert!(unescape(r"\x+F").is_err(), "a sign is no hex digit");
    }
}
