//! [`Text`]: a string that is kept inline when it is short, as the ids
//! and method names of nearly every message are.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::{fmt, ops::Deref};

use smol_str::SmolStr;

/// The longest text `SmolStr` keeps inline.
const INLINE: usize = 23;

/// An immutable string: up to 23 bytes without allocating (a
/// [`SmolStr`], rust-analyzer's), longer ones on the heap. Classifying a
/// message takes its id and method name as `Text`s, so the common message
/// allocates nothing: it can be classified on one thread and dropped on
/// another at no cost. It reads as a `str` (`Deref`), and compares,
/// orders and hashes as one.
///
/// ```
/// use rpcspec_matcher::Text;
///
/// let short = Text::from("tools/call");
/// assert_eq!(&*short, "tools/call");
/// assert_eq!(short, "tools/call");
/// let long = Text::from("notifications/resources/list_changed");
/// assert_eq!(long.len(), 36);
/// assert_eq!(long, Text::from(String::from("notifications/resources/list_changed")));
/// ```
#[derive(Clone)]
pub struct Text(SmolStr);

impl Text {
    /// The text as a `str`.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        // `SmolStr::new` first looks for a run of spaces it keeps apart.
        if s.len() <= INLINE {
            Text(SmolStr::new_inline(s))
        } else {
            Text(SmolStr::new(s))
        }
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(SmolStr::from(s))
    }
}

impl From<Box<str>> for Text {
    fn from(s: Box<str>) -> Text {
        Text(SmolStr::from(s))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_reads_back_as_written() {
        let long = "é".repeat(40);
        for end in (0..=long.len()).filter(|&i| long.is_char_boundary(i)) {
            let s = &long[..end];
            for t in [
                Text::from(s),
                Text::from(s.to_owned()),
                Text::from(Box::<str>::from(s)),
            ] {
                assert_eq!(t.as_str(), s);
                assert_eq!(t, Text::from(s));
                assert_eq!(format!("{t:?}"), format!("{s:?}"));
            }
        }
    }

    #[test]
    fn is_the_size_of_a_string() {
        assert_eq!(size_of::<Text>(), size_of::<String>());
        assert_eq!(size_of::<Option<Text>>(), size_of::<String>());
    }
}
