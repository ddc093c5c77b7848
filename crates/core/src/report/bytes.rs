//! Bytes as a report keeps them: text when UTF-8, else base64, and a
//! head and a tail of what is too long to keep whole.

use serde::{Deserialize, Serialize};

/// Bytes in a report: `{"text": …}` when valid UTF-8, else
/// `{"base64": …}`, so nothing is lost or mangled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bytes {
    /// Valid UTF-8.
    Text(String),
    /// Anything else, base64 (standard alphabet, padded).
    Base64(String),
}

impl Bytes {
    /// Wraps `bytes`.
    pub fn new(bytes: &[u8]) -> Bytes {
        match std::str::from_utf8(bytes) {
            Ok(s) => Bytes::Text(s.to_owned()),
            Err(_) => Bytes::Base64(base64(bytes)),
        }
    }

    /// Wraps `bytes`, or when they are over `max`, a head and a tail of
    /// about `max` bytes in all with the length and hash of the whole
    /// between them ([`kept`]): what a report keeps of a line, so that one
    /// huge line costs a report `max` bytes, not its length. Bytes that are
    /// not UTF-8 are then escaped as text.
    pub fn head(bytes: &[u8], max: usize) -> Bytes {
        if bytes.len() <= max {
            return Bytes::new(bytes);
        }
        let (head, tail) = ends(bytes, max);
        match (std::str::from_utf8(head), std::str::from_utf8(tail)) {
            (Ok(h), Ok(t)) => Bytes::Text(kept(h, t, bytes)),
            _ => Bytes::Text(kept(
                &head.escape_ascii().to_string(),
                &tail.escape_ascii().to_string(),
                bytes,
            )),
        }
    }

    /// For people: the text with only control and invisible characters
    /// escaped (`\n`, `\u{2028}`; quotes and backslashes stay as sent:
    /// JSON text cannot hold a raw newline, so `\n` is unambiguous there),
    /// or `base64:…`.
    pub fn show(&self) -> String {
        match self {
            Bytes::Text(t) => {
                let mut out = String::with_capacity(t.len());
                for c in t.chars() {
                    match c {
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        '\t' => out.push_str("\\t"),
                        c if c.is_control()
                            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') =>
                        {
                            out.push_str(&c.escape_unicode().to_string());
                        }
                        c => out.push(c),
                    }
                }
                out
            }
            Bytes::Base64(b) => format!("base64:{b}"),
        }
    }

    /// For people: the text, or the bytes with non-ASCII escaped.
    pub fn display(&self, raw: &[u8]) -> String {
        match self {
            Bytes::Text(s) => s.clone(),
            Bytes::Base64(_) => raw.escape_ascii().to_string(),
        }
    }
}

/// Fewest characters a cut leaves out: a shorter tail is shown whole,
/// since "… (3 more characters)" costs as much as the characters.
pub const LEAST_CUT: usize = 40;

/// `text` for one line of a report: whole up to `max` characters (and up
/// to [`LEAST_CUT`] more), else its first `max` characters and how many
/// bytes were left out.
pub fn head_of(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) if text[cut..].chars().nth(LEAST_CUT - 1).is_some() => {
            format!("{}… ({} more bytes)", &text[..cut], text.len() - cut)
        }
        _ => text.to_owned(),
    }
}

/// Cuts `text` to a head and a tail of about `max` bytes in all (at
/// character boundaries), with its length and hash between them, as
/// [`Bytes::head`] does.
pub fn clip(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    // Clipped before: keep its note (the length and hash of the whole),
    // and cut its head and tail further.
    if let Some((start, end)) = kept_note(text) {
        let (head, tail) = (&text[..start], &text[end..]);
        let mut h = (max - max / 4).min(head.len());
        while !head.is_char_boundary(h) {
            h -= 1;
        }
        let mut t = tail.len().saturating_sub(max / 4);
        while !tail.is_char_boundary(t) {
            t += 1;
        }
        *text = format!("{}{}{}", &head[..h], &text[start..end], &tail[t..]);
        return;
    }
    let (head, tail) = ends(text.as_bytes(), max);
    let (mut h, mut t) = (head.len(), text.len() - tail.len());
    while !text.is_char_boundary(h) {
        h -= 1;
    }
    while !text.is_char_boundary(t) {
        t += 1;
    }
    *text = kept(&text[..h], &text[t..], text.as_bytes());
}

/// The first three quarters and the last quarter of `max` bytes of `all`,
/// each cut back to whole UTF-8 characters where `all` is text there.
fn ends(all: &[u8], max: usize) -> (&[u8], &[u8]) {
    let (mut h, mut t) = (max - max / 4, all.len() - max / 4);
    // A UTF-8 character is at most 4 bytes: step off a partial one.
    for _ in 0..3 {
        if h > 0 && (all[h] & 0xC0) == 0x80 {
            h -= 1;
        }
        if t < all.len() && (all[t] & 0xC0) == 0x80 {
            t += 1;
        }
    }
    (&all[..h], &all[t..])
}

/// `head`, what is left out of `all` (its length and FNV-1a hash), `tail`.
fn kept(head: &str, tail: &str, all: &[u8]) -> String {
    format!(
        "{head}… ({} bytes in all, fnv1a {:016x}) …{tail}",
        all.len(),
        crate::budget::fnv1a(all)
    )
}

/// Where the note [`kept`] put in `text` starts and ends, if it has one.
fn kept_note(text: &str) -> Option<(usize, usize)> {
    let mid = text.find(" bytes in all, fnv1a ")?;
    let start = text[..mid].rfind("… (")?;
    let end = mid + text[mid..].find(") …")? + ") …".len();
    Some((start, end))
}

/// Keeps the first and the last `n / 2` of `items`; returns how many
/// were dropped between them, if any.
pub(super) fn keep_ends<T>(items: &mut Vec<T>, n: usize) -> Option<usize> {
    if items.len() <= n {
        return None;
    }
    let dropped = items.len() - n;
    let first = n - n / 2;
    items.drain(first..first + dropped);
    items.shrink_to_fit();
    Some(dropped)
}

/// [`Bytes::head`] of bytes already kept: text is clipped, base64 cut to
/// whole groups of its first `max` bytes.
pub(super) fn fit_bytes(b: &mut Bytes, max: usize) {
    match b {
        Bytes::Text(t) => clip(t, max),
        Bytes::Base64(t) if t.len() > max => {
            t.truncate(max / 4 * 4);
            t.shrink_to_fit();
        }
        Bytes::Base64(_) => {}
    }
}

/// Standard base64 with padding; small enough not to need a crate.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
