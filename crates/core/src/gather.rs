//! Pretty-printed JSON, recognised as the lines arrive: the one policy of
//! the server and producer roles and of `check` for lines that are
//! one value only together. NDJSON forbids it (one value per line), and
//! recognising it gives one precise finding, "lines 3–7 are one value",
//! instead of a parse error per line, and lets the value be graded.
//!
//! The policy:
//! * a line that is not one JSON value alone, but opens an object or array
//!   and is a valid beginning of one, is **held**;
//! * each line after it is held while the held lines and it remain a valid
//!   beginning of one value (checked incrementally: each byte once), and
//!   when they complete one they are **joined** (with `\n`) into it;
//! * a line that is an object or array on its own while lines are held is
//!   a message of its own: the held lines are **released**, to be judged
//!   one by one (so a truncated line cannot swallow the replies after it;
//!   the price is that a pretty-printed array whose last element is a
//!   one-line object is read as lines);
//! * so is any line that would make the held ones invalid, and the held
//!   lines past [`MAX_LINES`] or [`MAX_BYTES`] of text; the line that broke
//!   the gathering is then offered again, as the first of a new one.
//!
//! Nothing held is lost: released lines are handed back in order, and
//! [`Gather::finish`] releases what is still held at the end.

use rpcspec_framer::syntax::{self, Syntax};

/// Most lines held for one value.
pub const MAX_LINES: usize = 100_000;
/// Most bytes of text held for one value.
pub const MAX_BYTES: usize = 16 << 20;

/// Lines held while they may be one pretty-printed value; `T` is what the
/// caller keeps of each line (its number, offset, arrival time).
pub struct Gather<T> {
    open: Option<Open<T>>,
}

struct Open<T> {
    syntax: Syntax,
    held: HeldLines<T>,
    bytes: usize,
}

/// Lines held, with what the caller keeps of each, and their text.
pub type HeldLines<T> = Vec<(T, String)>;

/// What became of an offered line.
#[derive(Debug, PartialEq, Eq)]
pub struct Offered<T> {
    /// Lines held before it that are not one value after all, in order:
    /// each is judged on its own, before [`Offered::this`].
    pub released: HeldLines<T>,
    /// The line itself.
    pub this: This<T>,
}

/// What an offered line is.
#[derive(Debug, PartialEq, Eq)]
pub enum This<T> {
    /// A line on its own: judge it alone (its text is the caller's).
    Alone(T),
    /// Held: it may begin or continue a value over several lines.
    Held,
    /// With the lines held before it, one value: every line's item (this
    /// one last), and their text joined with `\n`.
    Joined(Vec<T>, String),
}

impl<T> Default for Gather<T> {
    fn default() -> Self {
        Gather { open: None }
    }
}

impl<T> Gather<T> {
    /// Nothing held.
    pub fn new() -> Gather<T> {
        Gather::default()
    }

    /// Whether lines are held.
    pub fn holding(&self) -> bool {
        self.open.is_some()
    }

    /// What the caller keeps of the first line held, if any.
    pub fn first(&self) -> Option<&T> {
        self.open.as_ref()?.held.first().map(|(item, _)| item)
    }

    /// Offers the next line, `text` (without its line break), which is one
    /// JSON value on its own if `alone`.
    pub fn offer(&mut self, item: T, text: &str, alone: bool) -> Offered<T> {
        let mut released = Vec::new();
        if let Some(open) = &mut self.open {
            let own_message = alone && opens_container(text);
            if !own_message
                && open.held.len() < MAX_LINES
                && open.bytes + text.len() <= MAX_BYTES
                && open.syntax.feed(b"\n").is_ok()
                && open.syntax.feed(text.as_bytes()).is_ok()
            {
                if open.syntax.is_complete() {
                    let (items, joined) = self.open.take().expect("open").join(item, text);
                    return Offered {
                        released,
                        this: This::Joined(items, joined),
                    };
                }
                open.bytes += text.len();
                open.held.push((item, text.to_owned()));
                return Offered {
                    released,
                    this: This::Held,
                };
            }
            released = self.open.take().expect("open").held;
        }
        if !alone && opens_container(text) && begins_value(text) {
            let mut syntax = Syntax::new();
            let _ = syntax.feed(text.as_bytes());
            self.open = Some(Open {
                syntax,
                bytes: text.len(),
                held: vec![(item, text.to_owned())],
            });
            return Offered {
                released,
                this: This::Held,
            };
        }
        Offered {
            released,
            this: This::Alone(item),
        }
    }

    /// The stream's unterminated last line, `tail`: if it completes the
    /// held lines' value, the value (as [`This::Joined`]); else the held
    /// lines, released. The tail itself is never held.
    pub fn close(&mut self, item: T, tail: &str) -> Result<(Vec<T>, String), HeldLines<T>> {
        let Some(open) = &mut self.open else {
            return Err(Vec::new());
        };
        let closes = open.bytes + tail.len() <= MAX_BYTES
            && open.syntax.feed(b"\n").is_ok()
            && open.syntax.feed(tail.as_bytes()).is_ok()
            && open.syntax.is_complete();
        let open = self.open.take().expect("open");
        if closes {
            Ok(open.join(item, tail))
        } else {
            Err(open.held)
        }
    }

    /// The lines still held (the stream ended, or a problem line broke
    /// the run of lines), to be judged one by one.
    pub fn finish(&mut self) -> HeldLines<T> {
        self.open.take().map(|o| o.held).unwrap_or_default()
    }
}

impl<T> Open<T> {
    /// The held lines and `last`: every item, and the text joined by `\n`.
    fn join(self, item: T, last: &str) -> (Vec<T>, String) {
        let mut joined = String::with_capacity(self.bytes + self.held.len() + last.len());
        let mut items = Vec::with_capacity(self.held.len() + 1);
        for (item, line) in self.held {
            joined.push_str(&line);
            joined.push('\n');
            items.push(item);
        }
        joined.push_str(last);
        items.push(item);
        (items, joined)
    }
}

/// Whether the line's first character opens an object or array.
pub fn opens_container(text: &str) -> bool {
    matches!(
        text.trim_start_matches([' ', '\t', '\r'])
            .as_bytes()
            .first(),
        Some(b'{' | b'[')
    )
}

/// Whether `text` is a valid beginning of a JSON value, not yet complete.
fn begins_value(text: &str) -> bool {
    syntax::check(text.as_bytes()).is_err_and(|e| e.is_incomplete())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offers each line (numbered from 1), judging "alone" by a parse, and
    /// describes what happened: `Ln` alone, `+n` held, `n..m` joined,
    /// `-n` released.
    fn run(lines: &[&str]) -> Vec<String> {
        let mut g = Gather::new();
        let mut seen = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let alone = serde_json::from_str::<serde_json::Value>(l).is_ok();
            let o = g.offer(i + 1, l, alone);
            seen.extend(o.released.iter().map(|(n, _)| format!("-{n}")));
            seen.push(match o.this {
                This::Alone(n) => format!("L{n}"),
                This::Held => format!("+{}", i + 1),
                This::Joined(items, text) => {
                    serde_json::from_str::<serde_json::Value>(&text).expect("joined is one value");
                    format!("{}..{}", items[0], items[items.len() - 1])
                }
            });
        }
        seen.extend(g.finish().iter().map(|(n, _)| format!("-{n}")));
        seen
    }

    #[test]
    fn a_pretty_printed_value_is_joined() {
        assert_eq!(
            run(&[
                "{",
                r#"  "a": [1,"#,
                "    2],",
                r#"  "b": "x""#,
                "}",
                r#"{"c":1}"#
            ]),
            ["+1", "+2", "+3", "+4", "1..5", "L6"]
        );
    }

    #[test]
    fn scalars_inside_are_held_and_lines_alone_are_alone() {
        assert_eq!(run(&["[", "5", "]"]), ["+1", "+2", "1..3"]);
        assert_eq!(run(&["5", r#""x""#, "{}"]), ["L1", "L2", "L3"]);
        // Not a beginning of a value: alone, never held.
        assert_eq!(run(&[r#""a": 1,"#, "}"]), ["L1", "L2"]);
    }

    #[test]
    fn a_cut_line_does_not_swallow_the_messages_after_it() {
        assert_eq!(
            run(&[
                r#"{"jsonrpc":"2.0","id":1,"res"#,
                r#"{"jsonrpc":"2.0","id":2,"result":1}"#
            ]),
            ["+1", "-1", "L2"]
        );
    }

    #[test]
    fn a_line_that_breaks_the_value_releases_and_is_offered_again() {
        // Line 3 makes 1-2 invalid, and itself begins a new value.
        assert_eq!(
            run(&["{", r#"  "a": 1"#, "[", "]"]),
            ["+1", "+2", "-1", "-2", "+3", "3..4"]
        );
        // What is held at the end is released.
        assert_eq!(run(&["{", r#"  "a": 1"#]), ["+1", "+2", "-1", "-2"]);
    }

    #[test]
    fn an_unterminated_tail_may_close_the_value() {
        let mut g = Gather::new();
        assert_eq!(g.offer(1, "[", false).this, This::Held);
        assert_eq!(g.close(2, "1]"), Ok((vec![1, 2], "[\n1]".to_owned())));
        assert_eq!(g.offer(3, "[", false).this, This::Held);
        assert_eq!(g.close(4, "1,"), Err(vec![(3, "[".to_owned())]));
        assert!(!g.holding());
        assert_eq!(g.close(5, "]"), Err(vec![]));
    }

    #[test]
    fn at_most_max_lines_are_held() {
        let mut lines = vec!["["];
        lines.extend(std::iter::repeat_n("1,", MAX_LINES));
        let seen = run(&lines);
        // The line past the cap releases every held one; it is not a
        // beginning of a value, so it is alone.
        assert_eq!(
            seen.iter().filter(|s| s.starts_with('-')).count(),
            MAX_LINES
        );
        assert_eq!(seen.last().unwrap(), &format!("L{}", MAX_LINES + 1));
    }
}
