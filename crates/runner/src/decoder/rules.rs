//! The decoder role's rules, and how a choice the specs leave open is
//! graded.

use super::Verdict;

// The decoder role's rules live in the one registry (`crate::rules`).
pub(super) use crate::rules::{
    DECODER_BLANK_LINE as BLANK, DECODER_BOM as BOM, DECODER_CONTRACT as CONTRACT,
    DECODER_CRLF as CRLF, DECODER_END as END, DECODER_EXTRA_RECORD as EXTRA,
    DECODER_INVALID_RECORD as INVALID, DECODER_LINE_LENGTH as LENGTH, DECODER_RECORD as RECORD,
    DECODER_UNTERMINATED as TAIL, DECODER_UTF8 as UTF8, Rule,
};

/// How one choice the specs leave open is graded.
#[derive(Clone, Copy)]
pub(super) struct Choice {
    pub(super) verdict: Verdict,
    /// The rule that names the choice, when it is not a plain pass.
    pub(super) rule: Option<&'static Rule>,
}

pub(super) const PLAIN: Choice = Choice {
    verdict: Verdict::Pass,
    rule: None,
};
