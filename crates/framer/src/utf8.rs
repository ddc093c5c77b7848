//! UTF-8 validation, the framer's costliest per-byte work when it is on.

use std::str::Utf8Error;

/// simdutf8 validates 64-byte blocks; below that it falls back to std.
const BLOCK: usize = 64;

/// Whether `bytes` is UTF-8, by simdutf8: on text with CJK and emoji it runs
/// 4–9× faster than std (BENCHMARKS.md). A short line is copied into a
/// zero-padded block first, so that it too gets the SIMD path: appending
/// NUL bytes, which are complete ASCII characters, never changes whether a
/// text is UTF-8 (an unfinished sequence at its end stays unfinished).
///
/// Only the verdict "valid" is trusted: the framer asks std again about a
/// line this rejects, for the position of the bad byte.
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    if bytes.len() >= BLOCK {
        return simdutf8::basic::from_utf8(bytes).is_ok();
    }
    if bytes.is_ascii() {
        return true;
    }
    let mut block = [0u8; BLOCK];
    block[..bytes.len()].copy_from_slice(bytes);
    simdutf8::basic::from_utf8(&block).is_ok()
}

/// `bytes` as text, with exactly the result of [`std::str::from_utf8`]
/// (simdutf8 on long lines, std for the rest and for every error).
pub(crate) fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    if bytes.len() >= BLOCK
        && let Ok(text) = simdutf8::basic::from_utf8(bytes)
    {
        return Ok(text);
    }
    std::str::from_utf8(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Agrees with std, valid_up_to included, around the block size and
    /// with a bad byte at every position of short and long lines.
    #[test]
    fn same_as_std() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for len in [0, 1, 2, 3, 31, 63, 64, 65, 200] {
            let text: String = "aé世😀".chars().cycle().take(len).collect();
            inputs.push(text.into_bytes());
        }
        for base in [
            "ab\u{e9}\u{4e16}\u{1f600}".repeat(40),
            "\u{1f600}é世x".repeat(3),
        ] {
            let base = base.into_bytes();
            for i in 0..base.len() {
                for bad in [0xFF, 0x80, 0xC3, 0xED, 0xF0, 0xF4, 0x00] {
                    let mut b = base.clone();
                    b[i] = bad;
                    inputs.push(b.clone());
                    // Cut right after the change: unfinished sequences at the end.
                    inputs.push(b[..=i].to_vec());
                }
            }
        }
        for b in &inputs {
            let ours = from_utf8(b).map_err(|e| (e.valid_up_to(), e.error_len()));
            let std = std::str::from_utf8(b).map_err(|e| (e.valid_up_to(), e.error_len()));
            assert_eq!(ours, std, "{b:?}");
            assert_eq!(is_utf8(b), std.is_ok(), "{b:?}");
        }
    }

    /// Every one- and two-byte text, alone and after a non-ASCII prefix.
    #[test]
    fn every_short_text() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for bytes in [&[a][..], &[a, b], &[0xC3, 0xA9, a, b]] {
                    assert_eq!(
                        is_utf8(bytes),
                        std::str::from_utf8(bytes).is_ok(),
                        "{bytes:?}"
                    );
                }
            }
        }
    }
}
