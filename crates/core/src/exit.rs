//! Exit codes, in one place.

/// Nothing failed (NON-STRICT results allowed unless `--strict`).
pub const OK: u8 = 0;
/// Something failed: a case, a stale baseline entry, a finding of `check`.
pub const FAILED: u8 = 1;
/// Bad usage, a bad case file or baseline, a target that cannot be named.
pub const USAGE: u8 = 2;
/// The target cannot be started (a missing or non-executable program, or
/// a `#!` interpreter that is not there), or `check`'s input cannot be
/// opened: nothing was tested, which is neither a pass nor a finding.
pub const CANNOT_START: u8 = 3;
/// No case matched the filters: a typo in CI must not look green.
pub const NO_CASES: u8 = 4;
