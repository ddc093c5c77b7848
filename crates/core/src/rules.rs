//! The rules every role checks alike: the framing of whatever a target
//! writes, and how a process behaves. They are part of the one registry,
//! which `rpcspec`'s `rules` module assembles with the matcher's and the
//! roles' tables; each is a `static` with a stable id, a level, the
//! specification and section it comes from, and the sentence it checks.

use rpcspec_framer::ProblemKind;
use rpcspec_matcher::Rule;

rpcspec_matcher::rule_table! { CORE;
    FRAMING_UTF8 = "framing.utf8", Must, "RFC 8259 §8.1 (JSON text exchanged between systems \"MUST be encoded using UTF-8\"); NDJSON 1.0 §3.1 (\"MUST use the UTF8 encoding\")",
        "every line is UTF-8";
    FRAMING_UNTERMINATED = "framing.unterminated", Must, "NDJSON 1.0 §3 (each JSON text \"MUST be written to the stream followed by the newline character\"); JSON Lines",
        "every line ends with \\n, the last one included";
    FRAMING_MULTI_LINE = "framing.multi-line", Must, "NDJSON 1.0 §3 (\"The JSON texts MUST NOT contain newlines\"); MCP stdio transport (messages \"MUST NOT contain embedded newlines\")",
        "a message is one line: JSON texts MUST NOT contain newlines";
    FRAMING_OVERLONG = "framing.overlong", Must, "NDJSON 1.0 §3; rpcspec --budget",
        "a line fits the reader's length limit";
    FRAMING_RECORD = "framing.record", Must, "RFC 7464 §2",
        "records are delimited as RFC 7464 requires: RS before each, LF after";
    FRAMING_BLANK_LINE = "framing.blank-line", Should, "NDJSON 1.0 §3.2; JSON Lines",
        "every line holds a JSON value; a blank line holds none";
    FRAMING_BOM = "framing.bom", Should, "RFC 8259 §8.1; NDJSON 1.0 §3.2",
        "a stream does not start with a byte order mark";

    PROCESS_OUTPUT_FLOOD = "process.output-flood", Must, "rpcspec --budget",
        "a target writes what its input calls for: within a case, at most a quarter of the budget in bytes and a line per 8 KiB of it";
    PROCESS_EXIT_STATUS = "process.exit-status", Should, "rpcspec stdio convention",
        "a process exits with status 0 when its input ends and its work went well, and is not killed by a signal";
    PROCESS_EXIT_ON_EOF = "process.exit-on-eof", Should, "rpcspec stdio convention",
        "a stdio process exits once its input ends";
}

/// The framing rule a problem in a stream breaks. A byte order mark and a
/// blank line are SHOULD-level (NDJSON readers may skip them); every other
/// problem loses or corrupts a message and is MUST-level.
pub fn framing(kind: ProblemKind) -> &'static Rule {
    match kind {
        ProblemKind::Bom => &FRAMING_BOM,
        ProblemKind::Blank => &FRAMING_BLANK_LINE,
        ProblemKind::InvalidUtf8 { .. } => &FRAMING_UTF8,
        ProblemKind::Overlong { .. } => &FRAMING_OVERLONG,
        ProblemKind::Truncated => &FRAMING_UNTERMINATED,
        _ => &FRAMING_RECORD,
    }
}
