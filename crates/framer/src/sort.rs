//! A fast lane beside the framer, for a caller that judges lines itself
//! and needs to see only the ones it turns down (`rpcspec check`): whole
//! lines are sorted in bulk, in any thread, and the plain ones are passed
//! over ([`Framer::pass_over`](crate::Framer::pass_over)) instead of framed
//! one by one. Pure: nothing here touches a framer.

use crate::{BOM, Config, Mode, is_blank, utf8};

/// A line [`sort_lines`] set apart, by its place in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unplain {
    /// Where the line starts.
    pub start: usize,
    /// Where its `\n` is.
    pub end: usize,
    /// How many plain lines came between the previous one set apart (or the
    /// block's start) and this one.
    pub plain_before: u64,
}

/// What [`sort_lines`] got through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sorted {
    /// The block's bytes sorted: its end, or the end (past the `\n`) of the
    /// line that filled the list.
    pub upto: usize,
    /// Plain lines after the last one set apart, up to `upto`.
    pub plain_after: u64,
}

/// Sorts the lines of `block`, which holds whole `\n`-ended lines and
/// starts where a line does, under [`Mode::Lines`]: a line is *plain* when
/// the framer would pass it as a [`Line`](crate::Line) of its own with no
/// problem (not blank, not over the limit, valid UTF-8 where that is
/// checked, not `\r`-ended, no BOM at the stream's start) and `judge`
/// accepts it. Every other line goes into `unplain` (cleared first), at
/// most `cap` of them, which bounds its memory whatever the block holds.
/// `at_stream_start`: the block opens the stream.
///
/// # Panics
///
/// If the config's mode is not [`Mode::Lines`].
pub fn sort_lines(
    config: &Config,
    block: &[u8],
    at_stream_start: bool,
    mut judge: impl FnMut(&[u8]) -> bool,
    unplain: &mut Vec<Unplain>,
    cap: usize,
) -> Sorted {
    assert_eq!(config.mode, Mode::Lines, "json-seq records are not lines");
    unplain.clear();
    // One UTF-8 pass over the whole block: `\n` is a character of its own,
    // so the block is UTF-8 exactly when each of its lines is.
    let utf8_known = !config.check_utf8 || utf8::is_utf8(block);
    let mut start = 0;
    let mut plain = 0u64;
    for end in memchr::memchr_iter(b'\n', block) {
        let line = &block[start..end];
        let is_plain = line.len() <= config.max_line_len
            && line.last() != Some(&b'\r')
            && !(at_stream_start && start == 0 && line.starts_with(BOM))
            && !is_blank(line)
            && (utf8_known || utf8::is_utf8(line))
            && judge(line);
        if is_plain {
            plain += 1;
        } else {
            unplain.push(Unplain {
                start,
                end,
                plain_before: plain,
            });
            plain = 0;
            if unplain.len() == cap {
                return Sorted {
                    upto: end + 1,
                    plain_after: 0,
                };
            }
        }
        start = end + 1;
    }
    debug_assert_eq!(start, block.len(), "the block ends with a whole line");
    Sorted {
        upto: start,
        plain_after: plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Event, Framer};

    /// Per line: whether the framer's only event for it is a `\n`-ended
    /// `Line`.
    fn framed_plain(config: &Config, block: &[u8]) -> Vec<bool> {
        let lines = memchr::memchr_iter(b'\n', block).count();
        let mut events = vec![0u32; lines];
        let mut plain = vec![false; lines];
        Framer::new(config.clone()).push(block, |e| {
            let n = match &e {
                Event::Line(l) => l.number,
                Event::Problem(p) => p.number,
            } as usize
                - 1;
            events[n] += 1;
            plain[n] = matches!(e, Event::Line(l) if l.ending == crate::Ending::Lf);
        });
        plain
            .iter()
            .zip(events)
            .map(|(&p, e)| p && e == 1)
            .collect()
    }

    fn sorted_plain(config: &Config, block: &[u8]) -> Vec<bool> {
        let mut unplain = Vec::new();
        let sorted = sort_lines(config, block, true, |_| true, &mut unplain, usize::MAX);
        assert_eq!(sorted.upto, block.len());
        let mut plain = Vec::new();
        for u in &unplain {
            plain.extend(std::iter::repeat_n(true, u.plain_before as usize));
            plain.push(false);
        }
        plain.extend(std::iter::repeat_n(true, sorted.plain_after as usize));
        plain
    }

    #[test]
    fn plain_is_what_the_framer_passes_without_a_problem() {
        let pieces: [&[u8]; 9] = [
            b"1",
            b"\xef\xbb\xbf",
            b"",
            b" ",
            b"\r",
            b"\xff",
            b"\xc3\xa9",
            b"12345",
            b"\t",
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) % n
        };
        for round in 0..5000 {
            let config = Config::default().with_max_line_len(2 + round % 12);
            let mut block = Vec::new();
            for _ in 0..next(8) {
                for _ in 0..next(4) {
                    block.extend_from_slice(pieces[next(9) as usize]);
                }
                block.push(b'\n');
            }
            assert_eq!(
                sorted_plain(&config, &block),
                framed_plain(&config, &block),
                "{:?}",
                String::from_utf8_lossy(&block)
            );
        }
    }

    #[test]
    fn a_full_list_stops_the_sort_at_a_line_end() {
        let mut unplain = Vec::new();
        let sorted = sort_lines(
            &Config::default(),
            b"1\nx\n2\ny\n3\n",
            false,
            |l| l != b"x" && l != b"y",
            &mut unplain,
            1,
        );
        assert_eq!(
            sorted,
            Sorted {
                upto: 4,
                plain_after: 0
            }
        );
        assert_eq!(
            unplain,
            [Unplain {
                start: 2,
                end: 3,
                plain_before: 1
            }]
        );
    }
}
