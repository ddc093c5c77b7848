//! The memory budget of one (case, plan), in every role: how much of a
//! target's output a case reads and grades before it stops the target, and
//! how much of it a result keeps for the report. One size, `--budget`, and
//! every cap derived from it, so that rpcspec's peak memory stays below
//! jobs × budget plus what the results of the suite keep, whatever the
//! target writes (ARCHITECTURE.md, "Never hang, never leak").

use std::fmt;

/// The budget of one (case, plan), in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    bytes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

impl Budget {
    /// 64 MiB: a case reads up to 16 MiB of output or 8192 lines, and its
    /// result keeps up to 64 KiB.
    pub const DEFAULT: Budget = Budget { bytes: 64 << 20 };
    /// The smallest budget: 512 lines, more than the largest shipped case
    /// is answered with.
    pub const MIN: usize = 4 << 20;
    /// The largest budget.
    pub const MAX: usize = 4 << 30;

    /// A budget of `bytes`, within [`Budget::MIN`]..=[`Budget::MAX`].
    pub fn new(bytes: usize) -> Result<Budget, String> {
        if (Budget::MIN..=Budget::MAX).contains(&bytes) {
            Ok(Budget { bytes })
        } else {
            Err(format!(
                "a budget is from {} to {}",
                Size(Budget::MIN),
                Size(Budget::MAX)
            ))
        }
    }

    /// Parses `64MiB`, `512 KiB`, `1GiB` or a count of bytes.
    pub fn parse(text: &str) -> Result<Budget, String> {
        let t = text.trim();
        let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (number, unit) = t.split_at(digits);
        let shift = match unit.trim() {
            "" | "B" => 0,
            "KiB" | "K" => 10,
            "MiB" | "M" => 20,
            "GiB" | "G" => 30,
            _ => return Err(format!("`{text}` is not a size (such as 64MiB)")),
        };
        let n: usize = number
            .parse()
            .map_err(|_| format!("`{text}` is not a size (such as 64MiB)"))?;
        n.checked_mul(1 << shift)
            .ok_or_else(|| format!("`{text}` is too large"))
            .and_then(Budget::new)
    }

    /// The budget in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Bytes of a target's output a case reads before it stops the target:
    /// a quarter of the budget, since grading a line costs up to about
    /// four times its length (the line, its text, the matcher's parse).
    pub fn output(&self) -> usize {
        self.bytes / 4
    }

    /// Lines a case reads before it stops the target: one per 8 KiB of the
    /// budget. Each line costs about 1 KiB of bookkeeping beside its bytes.
    pub fn lines(&self) -> usize {
        self.bytes >> 13
    }

    /// Bytes a result keeps in all (received and sent bytes, evidence):
    /// 1/1024 of the budget, 64 KiB by default. A suite of N results keeps
    /// at most about N times this for its report.
    pub fn report(&self) -> usize {
        self.bytes >> 10
    }

    /// Bytes of any one line, write or evidence string a result keeps (a
    /// head and a tail, with the length and a hash): a quarter of what a
    /// result keeps, 16 KiB by default.
    pub fn kept_bytes(&self) -> usize {
        self.report() / 4
    }

    /// Received lines (and, apart, writes and pieces of evidence) a result
    /// keeps: the first half and the last half of this many, the rest
    /// counted. 256 by default: a suite of a thousand results against a
    /// flood keeps a few MiB, not a line per line.
    pub fn kept_lines(&self) -> usize {
        self.report() >> 8
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Size(self.bytes).fmt(f)
    }
}

/// A size in the largest binary unit that divides it.
struct Size(usize);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
            if self.0 >= 1 << shift && self.0.is_multiple_of(1 << shift) {
                return write!(f, "{} {unit}", self.0 >> shift);
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

/// FNV-1a, 64 bits: the hash a clipped line keeps, so that two huge lines
/// can be told apart or matched without keeping them.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units_and_stay_in_range() {
        assert_eq!(Budget::parse("64MiB").unwrap(), Budget::DEFAULT);
        assert_eq!(Budget::parse("65536 K").unwrap(), Budget::DEFAULT);
        assert_eq!(Budget::parse("4194304").unwrap().bytes(), 4 << 20);
        assert_eq!(Budget::parse("1GiB").unwrap().to_string(), "1 GiB");
        for bad in ["", "MiB", "64 mb", "-1", "1.5MiB"] {
            assert!(
                Budget::parse(bad).unwrap_err().contains("not a size"),
                "{bad}"
            );
        }
        for out in ["1MiB", "5GiB", "0"] {
            let e = Budget::parse(out).unwrap_err();
            assert_eq!(e, "a budget is from 4 MiB to 4 GiB", "{out}");
        }
        assert!(Budget::parse("99999999999999999999G").is_err());
        assert!(
            Budget::parse(&format!("{}G", usize::MAX >> 2))
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn the_default_caps_are_the_documented_ones() {
        let b = Budget::DEFAULT;
        assert_eq!(
            (
                b.output(),
                b.lines(),
                b.report(),
                b.kept_bytes(),
                b.kept_lines()
            ),
            (16 << 20, 8192, 64 << 10, 16 << 10, 256)
        );
        let small = Budget::new(Budget::MIN).unwrap();
        assert_eq!((small.lines(), small.kept_lines()), (512, 16));
    }

    #[test]
    fn the_hash_is_fnv1a() {
        // The published test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
