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
    FRAMING_CONTENT_LENGTH = "framing.content-length", Must, "LSP 3.17 Base Protocol (Content-Length: \"The length of the content part in bytes. This header is required.\")",
        "every message has one Content-Length header, a decimal number of bytes";
    FRAMING_HEADER = "framing.header", Must, "LSP 3.17 Base Protocol (\"Each header field is comprised of a name and a value, separated by ': '\"; \"Each header field is terminated by '\\r\\n'\"; header fields conform \"to the HTTP semantic\": RFC 9110 §5.3, no field line twice unless its definition allows a list)",
        "every header line is `Name: value` ended by \\r\\n, and says one thing once";
    FRAMING_CHARSET = "framing.charset", Must, "LSP 3.17 Base Protocol (the content part \"defaults to utf-8, which is the only encoding supported right now\"; `utf8` read as `utf-8`)",
        "a Content-Type names no charset but utf-8";
    FRAMING_BETWEEN = "framing.between-messages", Must, "LSP 3.17 Base Protocol (a message is a header part and a content part; \"two '\\r\\n' sequences always immediately precede the content part\")",
        "every byte belongs to a message: a header, then exactly Content-Length bytes of content";
    FRAMING_CONTENT_CUT = "framing.content-cut", Must, "LSP 3.17 Base Protocol (Content-Length: \"The length of the content part in bytes\")",
        "the stream does not end inside a header or before a message's Content-Length bytes have come";

    PROCESS_OUTPUT_FLOOD = "process.output-flood", Must, "rpcspec --budget",
        "a target writes what its input calls for: within a case, at most a quarter of the budget in bytes and a line per 8 KiB of it";
    PROCESS_EXIT_STATUS = "process.exit-status", Should, "rpcspec stdio convention",
        "a process exits with status 0 when its input ends and its work went well, and is not killed by a signal";
    PROCESS_EXIT_ON_EOF = "process.exit-on-eof", Should, "rpcspec stdio convention",
        "a stdio process exits once its input ends";
}

/// The rules of the Content-Length framing alone (the LSP base protocol).
pub static CONTENT_LENGTH_RULES: [&Rule; 5] = [
    &FRAMING_CONTENT_LENGTH,
    &FRAMING_HEADER,
    &FRAMING_CHARSET,
    &FRAMING_BETWEEN,
    &FRAMING_CONTENT_CUT,
];

/// The framing rule a problem in an NDJSON stream breaks (a Content-Length
/// one's: [`content_length`]). A byte order mark and a blank line are
/// SHOULD-level (NDJSON readers may skip them); every other problem loses
/// or corrupts a message and is MUST-level.
pub fn framing(kind: ProblemKind) -> &'static Rule {
    match kind {
        ProblemKind::Bom => &FRAMING_BOM,
        ProblemKind::Blank => &FRAMING_BLANK_LINE,
        ProblemKind::InvalidUtf8 { .. } => &FRAMING_UTF8,
        ProblemKind::Overlong { .. } => &FRAMING_OVERLONG,
        ProblemKind::Truncated => &FRAMING_UNTERMINATED,
        ProblemKind::RecordCut | ProblemKind::OutsideRecord => &FRAMING_RECORD,
        other => content_length(other),
    }
}

/// The framing rule a problem in a Content-Length stream (the LSP base
/// protocol) breaks.
pub fn content_length(kind: ProblemKind) -> &'static Rule {
    match kind {
        ProblemKind::MissingLength
        | ProblemKind::BadLength
        | ProblemKind::DuplicateLength { agree: false } => &FRAMING_CONTENT_LENGTH,
        ProblemKind::DuplicateLength { agree: true }
        | ProblemKind::HeaderLine
        | ProblemKind::HeaderLf => &FRAMING_HEADER,
        ProblemKind::Charset => &FRAMING_CHARSET,
        ProblemKind::Between { .. } => &FRAMING_BETWEEN,
        ProblemKind::Truncated => &FRAMING_CONTENT_CUT,
        ProblemKind::Overlong { .. } | ProblemKind::HeaderOverlong { .. } => &FRAMING_OVERLONG,
        ProblemKind::InvalidUtf8 { .. } => &FRAMING_UTF8,
        _ => &FRAMING_RECORD,
    }
}
