//! The decoder role's rules, and how a choice the specs leave open is
//! graded.

use super::*;

/// A rule of the decoder role, as shown in reports.
pub(super) struct Rule {
    pub(super) id: &'static str,
    pub(super) level: &'static str,
    pub(super) section: &'static str,
    pub(super) statement: &'static str,
}

impl Rule {
    pub(super) fn to_ref(&self) -> RuleRef {
        RuleRef {
            id: self.id.to_owned(),
            level: self.level.to_owned(),
            section: self.section.to_owned(),
            statement: self.statement.to_owned(),
        }
    }
}

pub(super) const RECORD: Rule = Rule {
    id: "decoder.record",
    level: "MUST",
    section: "NDJSON 1.0 §3 (\"each JSON text … followed by the newline character\")",
    statement: "every line that holds one JSON text is delivered as that value, once, in order",
};
pub(super) const INVALID: Rule = Rule {
    id: "decoder.invalid-record",
    level: "MUST",
    section: "NDJSON 1.0 §3.3 (\"SHOULD raise an error\"); rpcspec decoder contract",
    statement: "a line that is not exactly one JSON text is reported as an error, not dropped, merged or split",
};
pub(super) const EXTRA: Rule = Rule {
    id: "decoder.extra-record",
    level: "MUST",
    section: "NDJSON 1.0 §3 (one JSON text per line)",
    statement: "every record reported is a line of the stream: none split off, merged or invented",
};
pub(super) const CRLF: Rule = Rule {
    id: "decoder.crlf",
    level: "MUST",
    section: "NDJSON 1.0 §3.2 (\"MUST accept … \\n … as well as … \\r\\n\")",
    statement: "the \\r of \\r\\n is part of the line terminator, never of the record",
};
pub(super) const BLANK: Rule = Rule {
    id: "decoder.blank-line",
    level: "INFO",
    section: "NDJSON 1.0 §3.3 (\"MAY silently ignore empty lines\"); JSON Lines (\"a blank line is not\" a value)",
    statement: "a blank line is skipped or rejected: both are documented choices",
};
pub(super) const BOM: Rule = Rule {
    id: "decoder.bom",
    level: "SHOULD",
    section: "RFC 8259 §8.1 (parsers \"MAY ignore the presence of a byte order mark\")",
    statement: "a byte order mark opening the stream is ignored",
};
pub(super) const UTF8: Rule = Rule {
    id: "decoder.utf8",
    level: "SHOULD",
    section: "NDJSON 1.0 §3.1 (\"MUST use the UTF8 encoding\"); RFC 8259 §8.1",
    statement: "a line that is not UTF-8 is rejected, not repaired with U+FFFD",
};
pub(super) const LENGTH: Rule = Rule {
    id: "decoder.line-length",
    level: "SHOULD",
    section: "NDJSON 1.0 (no length limit); tokio-util LinesCodec docs on unbounded lines",
    statement: "a long line is delivered; a documented limit that rejects it is tolerated",
};
pub(super) const TAIL: Rule = Rule {
    id: "decoder.unterminated",
    level: "MUST",
    section: "JSON Lines (the last terminator is \"strongly recommended but not required\"); ndjson-spec #24",
    statement: "bytes after the last \\n are delivered or reported, never dropped silently",
};
pub(super) const END: Rule = Rule {
    id: "decoder.end",
    level: "MUST",
    section: "ndjson-spec #43 (no in-band end); rpcspec decoder contract",
    statement: "a stream is complete iff its last value is an object whose type is done or error",
};
pub(super) const CONTRACT: Rule = Rule {
    id: "decoder.contract",
    level: "MUST",
    section: "spec-cases/decoder/README.md (the adapter contract)",
    statement: "the adapter writes one JSON object per line: value, error, then one end",
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
