//! [`is_one_value`]: the checker's verdict on a whole text, without its
//! reason, in one tight pass. `rpcspec check` asks it first about every
//! line and asks [`check`](super::check) only about the lines it turns
//! down, for the exact error: on a stream of valid lines it is what sets the
//! speed (`cargo xtask bench`). [`walk`] is the same pass, telling a
//! reader what the text holds as it goes.

use std::ops::Range;

/// How deep [`is_one_value`] and [`walk`] follow containers: one bit a
/// level.
pub const MAX_DEPTH: u32 = 64;

/// What [`walk`] tells of a text as it checks it, each part as a byte
/// range of the text: the members of its top-level object or array (a
/// value without its surrounding whitespace, a name with its quotes), and
/// its numbers, at any depth. Every method does nothing by default.
pub trait Visit {
    /// A member of the top-level object: its name and its value.
    #[inline]
    fn member(&mut self, name: Range<usize>, value: Range<usize>) {
        let _ = (name, value);
    }

    /// An element of the top-level array.
    #[inline]
    fn element(&mut self, value: Range<usize>) {
        let _ = value;
    }

    /// A number, at any depth.
    #[inline]
    fn number(&mut self, number: Range<usize>) {
        let _ = number;
    }
}

/// Sees nothing: [`is_one_value`].
impl Visit for () {}

/// Whether `text` is exactly one JSON value with optional whitespace around
/// it. `true` exactly where [`check`](super::check) says `Ok`, except that
/// a text nesting deeper than [`MAX_DEPTH`] is `false` here whatever it
/// holds: ask `check` then.
pub fn is_one_value(text: &[u8]) -> bool {
    walk(text, &mut ())
}

/// [`is_one_value`], telling `visit` what the text holds as it goes: a
/// reader of a few members needs no second pass. What was told of a text
/// that turns out not to be one value means nothing.
///
/// ```
/// use rpcspec_framer::syntax::whole::{Visit, walk};
/// use std::ops::Range;
///
/// #[derive(Default)]
/// struct Names(Vec<Range<usize>>);
/// impl Visit for Names {
///     fn member(&mut self, name: Range<usize>, _: Range<usize>) {
///         self.0.push(name);
///     }
/// }
/// let text = br#"{"id": 1, "params": {"deep": 2}}"#;
/// let mut names = Names::default();
/// assert!(walk(text, &mut names));
/// let names: Vec<&[u8]> = names.0.into_iter().map(|r| &text[r]).collect();
/// assert_eq!(names, [&br#""id""#[..], br#""params""#]);
/// ```
#[inline]
pub fn walk(text: &[u8], visit: &mut impl Visit) -> bool {
    let t = text;
    let mut i = ws(t, 0);
    // One bit per open container, the innermost lowest: 1 for an object.
    let mut stack = 0u64;
    let mut depth = 0u32;
    // Where the top-level member being read has its name and its value.
    let mut name = 0..0;
    let mut start = 0;
    loop {
        // A value is due at `i`.
        if depth == 1 {
            start = i;
        }
        match t.get(i) {
            Some(b'{') | Some(b'[') if depth == MAX_DEPTH => return false,
            Some(b'{') => {
                i = ws(t, i + 1);
                if t.get(i) == Some(&b'}') {
                    i += 1;
                } else {
                    stack = stack << 1 | 1;
                    depth += 1;
                    match member_name(t, i) {
                        Some((end, next)) => {
                            if depth == 1 {
                                name = i..end;
                            }
                            i = next;
                        }
                        None => return false,
                    }
                    continue;
                }
            }
            Some(b'[') => {
                i = ws(t, i + 1);
                if t.get(i) == Some(&b']') {
                    i += 1;
                } else {
                    stack <<= 1;
                    depth += 1;
                    continue;
                }
            }
            Some(b'"') => match string(t, i + 1) {
                Some(next) => i = next,
                None => return false,
            },
            Some(b'-' | b'0'..=b'9') => match number(t, i) {
                Some(next) => {
                    visit.number(i..next);
                    i = next;
                }
                None => return false,
            },
            Some(b't') if t[i..].starts_with(b"true") => i += 4,
            Some(b'f') if t[i..].starts_with(b"false") => i += 5,
            Some(b'n') if t[i..].starts_with(b"null") => i += 4,
            _ => return false,
        }
        // A value has ended at `i`: close what it closes, then the next
        // value is due, or the text is done.
        loop {
            if depth == 1 {
                // A member of the top-level container has ended.
                if stack & 1 == 1 {
                    visit.member(name.clone(), start..i);
                } else {
                    visit.element(start..i);
                }
            }
            i = ws(t, i);
            if depth == 0 {
                return i == t.len();
            }
            let object = stack & 1 == 1;
            match t.get(i) {
                Some(b',') if object => {
                    let at = ws(t, i + 1);
                    match member_name(t, at) {
                        Some((end, next)) => {
                            if depth == 1 {
                                name = at..end;
                            }
                            i = next;
                            break;
                        }
                        None => return false,
                    }
                }
                Some(b',') => {
                    i = ws(t, i + 1);
                    break;
                }
                Some(b'}') if object => {}
                Some(b']') if !object => {}
                _ => return false,
            }
            i += 1;
            stack >>= 1;
            depth -= 1;
        }
    }
}

/// Past the whitespace at `i`.
#[inline]
fn ws(t: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = t.get(i) {
        i += 1;
    }
    i
}

/// A member name at `i`, then `:`: where the name ends, and where its
/// value is due.
#[inline]
fn member_name(t: &[u8], i: usize) -> Option<(usize, usize)> {
    if t.get(i) != Some(&b'"') {
        return None;
    }
    let end = string(t, i + 1)?;
    let i = ws(t, end);
    (t.get(i) == Some(&b':')).then(|| (end, ws(t, i + 1)))
}

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// The high bit of every byte of `x` below `n` (`n` ≤ 128), and maybe of
/// bytes above such a byte (a borrow): the lowest is exact.
#[inline]
fn below(x: u64, n: u8) -> u64 {
    x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS
}

/// The rest of a string whose `"` is just before `i`: past its closing `"`.
#[inline]
fn string(t: &[u8], mut i: usize) -> Option<usize> {
    loop {
        // Eight bytes at a time, to the first `"`, `\` or control
        // character among them.
        if let Some(word) = t.get(i..i + 8) {
            let x = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let stops = below(x ^ (ONES * u64::from(b'"')), 1)
                | below(x ^ (ONES * u64::from(b'\\')), 1)
                | below(x, 0x20);
            if stops == 0 {
                i += 8;
                continue;
            }
            i += stops.trailing_zeros() as usize / 8;
        }
        match *t.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match *t.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = t.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            c if c < 0x20 => return None,
            _ => i += 1,
        }
    }
}

/// A number at `i` (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`):
/// past its last digit.
#[inline]
fn number(t: &[u8], mut i: usize) -> Option<usize> {
    let digits = |i: usize| {
        let n = t[i.min(t.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (n > 0).then_some(i + n)
    };
    if t[i] == b'-' {
        i += 1;
    }
    match t.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i)?,
        _ => return None,
    }
    if t.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    if let Some(b'e' | b'E') = t.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = t.get(i) {
            i += 1;
        }
        i = digits(i)?;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_checker_on_edges() {
        let cases: &[&[u8]] = &[
            b"0",
            b" -0.5e+10 ",
            b"01",
            b"1.",
            b"-",
            b"1e",
            b"[1,]",
            b"[,1]",
            b"{\"a\":1,}",
            b"{\"a\" : [ {} , [] , \"x\\u00e9\\n\" ] }",
            b"{\"a\"}",
            b"{1:2}",
            b"\"abcdefgh\\\"ijklmnop\"",
            b"\"abcdefghi\x01jklmnop\"",
            b"\"\\x\"",
            b"\"\\u12\"",
            b"\"\\u12g4\"",
            b"tru",
            b"true false",
            b"nul",
            b"[1 2]",
            b"{\"a\":1 \"b\":2}",
            b"",
            b"   ",
            b"]",
            b"[]]",
            b"{}}",
            b"[}",
            b"{]",
            b"\"\xc3\xa9\"",
        ];
        for text in cases {
            assert_eq!(
                is_one_value(text),
                super::super::check(text).is_ok(),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn depth_past_the_bound_is_left_to_the_checker() {
        let deep = |n: usize| [vec![b'['; n], vec![b']'; n]].concat();
        assert!(is_one_value(&deep(MAX_DEPTH as usize)));
        assert!(!is_one_value(&deep(MAX_DEPTH as usize + 1)));
        assert!(super::super::check(&deep(MAX_DEPTH as usize + 1)).is_ok());
    }
}
