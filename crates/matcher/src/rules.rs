//! The rule table: every check the matcher makes, with a stable id.

use std::{fmt, str::FromStr};

use crate::UnknownName;

/// How binding a rule is, after the specification's own keywords.
///
/// Breaking a [`Must`](Level::Must) rule fails a conformance case; breaking a
/// [`Should`](Level::Should) rule makes it non-strict; an [`Info`](Level::Info)
/// finding records behaviour the specification leaves open.
///
/// Not `#[non_exhaustive]`: the three are the specification's own
/// keywords, ordered from most to least binding, and every reader of a
/// finding maps each to a verdict; a fourth would change what a verdict
/// means, not just add a name. Written as `Display` gives it (`MUST`),
/// parsed back with `FromStr` in any case:
///
/// ```
/// use rpcspec_matcher::Level;
/// assert_eq!("should".parse::<Level>(), Ok(Level::Should));
/// assert_eq!(Level::Should.to_string(), "SHOULD");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// MUST, MUST NOT, REQUIRED.
    Must,
    /// SHOULD, SHOULD NOT, or a lower-case "should".
    Should,
    /// Not a requirement: behaviour worth reporting that the text leaves open.
    Info,
}

impl Level {
    /// Every level as written, most binding first.
    pub const NAMES: &'static [&'static str] = &["MUST", "SHOULD", "INFO"];

    /// The level as written in the rule table: `MUST`, `SHOULD` or `INFO`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Info => "INFO",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `MUST`, `SHOULD` or `INFO`, in any case (`must`, `Should`).
impl FromStr for Level {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Level, UnknownName> {
        [Level::Must, Level::Should, Level::Info]
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownName::new("level", name, Level::NAMES))
    }
}

/// One rule an implementation can break.
///
/// Rules are `static` items in this module; a [`Finding`](crate::Finding)
/// points at one. Two rules are equal when their ids are.
#[derive(Debug)]
pub struct Rule {
    /// Stable, hierarchical id such as `request.id-type`. Renaming one is a
    /// breaking change.
    pub id: &'static str,
    /// How binding the rule is.
    pub level: Level,
    /// Where the rule comes from, such as `JSON-RPC 2.0 §5.1`.
    pub section: &'static str,
    /// The rule in one line.
    pub statement: &'static str,
}

impl Rule {
    /// The rule with this id, if there is one.
    pub fn by_id(id: &str) -> Option<&'static Rule> {
        RULES.iter().copied().find(|r| r.id == id)
    }
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}] {}", self.id, self.level, self.statement)
    }
}

/// Defines a table of rules: a `pub static` [`Rule`] per entry (`NAME =
/// "id", Level, "section", "statement";`), documented from its fields,
/// and `pub static TABLE: &[&Rule]` holding them in order. The matcher's
/// table is [`RULES`]; a crate that checks more (rpcspec's runner) makes
/// its own with the same macro.
#[macro_export]
macro_rules! rule_table {
    ($table:ident; $( $name:ident = $id:literal, $level:ident, $section:literal, $statement:literal; )*) => {
        $(
            #[doc = concat!("`", $id, "` (", stringify!($level), ", ", $section, "): ", $statement, ".")]
            pub static $name: $crate::Rule = $crate::Rule {
                id: $id,
                level: $crate::Level::$level,
                section: $section,
                statement: $statement,
            };
        )*

        /// Every rule of this table, in order.
        pub static $table: &[&$crate::Rule] = &[$(&$name),*];
    };
}

crate::rule_table! { RULES;
    JSON_PARSE = "json.parse", Must, "RFC 8259 §2; JSON-RPC 2.0 §5.1",
        "a message is one valid JSON text";
    MESSAGE_OBJECT = "message.object", Must, "JSON-RPC 2.0 §4, §6",
        "a message is an object, or a batch: an array of objects";
    MESSAGE_KIND = "message.kind", Must, "JSON-RPC 2.0 §4, §5",
        "an object is a request (it has `method`) or a response (it has `id` and `result` or `error`)";
    MESSAGE_DUPLICATE_MEMBER = "message.duplicate-member", Should, "RFC 8259 §4",
        "the names within an object are unique";
    MESSAGE_JSONRPC_VERSION = "message.jsonrpc-version", Must, "JSON-RPC 2.0 §4, §5 (jsonrpc: \"MUST be exactly \\\"2.0\\\"\")",
        "`jsonrpc` is exactly the string \"2.0\"";

    REQUEST_METHOD_TYPE = "request.method-type", Must, "JSON-RPC 2.0 §4 (method: \"A String containing the name of the method to be invoked\")",
        "`method` is a string";
    REQUEST_METHOD_RESERVED = "request.method-reserved", Info, "JSON-RPC 2.0 §4",
        "method names that begin with `rpc.` are reserved for rpc-internal methods and extensions";
    REQUEST_PARAMS_TYPE = "request.params-type", Must, "JSON-RPC 2.0 §4.2 (\"If present, parameters for the rpc call MUST be provided as a Structured value\")",
        "`params`, if present, is an array or an object";
    REQUEST_OTHER_MEMBERS = "request.other-members", Info, "JSON-RPC 2.0 §4",
        "a notification with members §4 does not list (`ID` beside no `id`, say) is still a notification, or, read strictly, an invalid request: it gets no reply, or one -32600 with id null (§4 lists a Request object's members and says nothing of others)";
    REQUEST_ID_TYPE = "request.id-type", Must, "JSON-RPC 2.0 §4 (id: \"MUST contain a String, Number, or NULL value if included\")",
        "`id`, if present, is a string, a number or null";
    REQUEST_ID_NULL = "request.id-null", Should, "JSON-RPC 2.0 §4",
        "a request `id` is not null";
    REQUEST_ID_FRACTIONAL = "request.id-fractional", Should, "JSON-RPC 2.0 §4",
        "a number `id` has no fractional part";

    RESPONSE_RESULT_XOR_ERROR = "response.result-xor-error", Must, "JSON-RPC 2.0 §5 (\"Either the result member or error member MUST be included, but both members MUST NOT be included\")",
        "a response has exactly one of `result` and `error`";
    RESPONSE_ID_MISSING = "response.id-missing", Must, "JSON-RPC 2.0 §5 (id: \"This member is REQUIRED\")",
        "a response has an `id` member";
    RESPONSE_ID_TYPE = "response.id-type", Must, "JSON-RPC 2.0 §5 (id: \"It MUST be the same as the value of the id member in the Request Object\", or Null when it could not be detected)",
        "a response `id` is a string, a number or null";

    ERROR_OBJECT = "error.object", Must, "JSON-RPC 2.0 §5 (error: \"The value for this member MUST be an Object as defined in section 5.1\"), §5.1",
        "`error` is an object";
    ERROR_CODE_INTEGER = "error.code-integer", Must, "JSON-RPC 2.0 §5.1 (code: \"This MUST be an integer\")",
        "`error.code` is present and is an integer, written without fraction or exponent";
    ERROR_MESSAGE_STRING = "error.message-string", Must, "JSON-RPC 2.0 §5.1 (message: \"A String providing a short description of the error\")",
        "`error.message` is present and is a string";
    ERROR_CODE_RESERVED = "error.code-reserved", Should, "JSON-RPC 2.0 §5.1",
        "codes from -32768 to -32000 are used only as defined: -32700, -32600 to -32603, and -32099 to -32000 for server errors";

    BATCH_EMPTY = "batch.empty", Must, "JSON-RPC 2.0 §6 (an empty array is not \"an Array with at least one value\"; \"the server MUST NOT return an empty Array\")",
        "a batch holds at least one value, and an empty array is never a reply";

    SESSION_UNKNOWN_ID = "session.unknown-id", Must, "JSON-RPC 2.0 §5 (id: \"It MUST be the same as the value of the id member in the Request Object\")",
        "a reply's `id` is the `id` of a request that awaits a reply";
    SESSION_DUPLICATE_REPLY = "session.duplicate-reply", Must, "JSON-RPC 2.0 §5 (\"When a rpc call is made, the Server MUST reply with a Response\": one)",
        "a request gets one reply, not two";
    SESSION_ID_TYPE_CHANGED = "session.id-type-changed", Must, "JSON-RPC 2.0 §5 (id: \"It MUST be the same as the value of the id member in the Request Object\")",
        "a reply's `id` keeps the type of the request's `id`: a string stays a string, a number a number";
    SESSION_ID_NUMBER_TEXT = "session.id-number-text", Should, "JSON-RPC 2.0 §4, §5",
        "a reply echoes a number `id` with the same text, not just the same value (`1`, not `1.0`)";
    SESSION_ID_STRING_TEXT = "session.id-string-text", Info, "JSON-RPC 2.0 §5",
        "a reply echoes a string `id` with the same escapes (`\"\\u0041\"` and `\"A\"` are the same id)";
    SESSION_REPLY_TO_NOTIFICATION = "session.reply-to-notification", Must, "JSON-RPC 2.0 §4.1 (\"The Server MUST NOT reply to a Notification, including those that are within a batch request\"), §6",
        "a notification gets no reply, alone or in a batch, and an all-notification batch gets nothing back";
    SESSION_UNANSWERED = "session.unanswered", Must, "JSON-RPC 2.0 §5 (\"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications\")",
        "every request, valid or not, gets a reply before the session closes";
    SESSION_ID_REUSED = "session.id-reused", Should, "JSON-RPC 2.0 §4",
        "a sender does not reuse the `id` of a request that still awaits its reply";
    SESSION_BATCH_REPLY_ARRAY = "session.batch-reply-array", Should, "JSON-RPC 2.0 §6",
        "a batch is answered with one array holding the replies to its members";
    SESSION_BATCH_REPLY_MISSING = "session.batch-reply-missing", Must, "JSON-RPC 2.0 §5 (\"When a rpc call is made, the Server MUST reply with a Response\"), §6",
        "a batch reply holds a reply for every member that expects one";
    SESSION_SINGLE_REPLY_OBJECT = "session.single-reply-object", Must, "JSON-RPC 2.0 §5 (\"The Response is expressed as a single JSON Object\"), §6",
        "a request sent alone is answered with a response object, not an array";
    SESSION_REPLY_IN_KIND = "session.reply-in-kind", Should, "JSON-RPC 2.0 §2 (\"2.0 implementations should consider trying to handle 1.0 objects\"), §4, §5",
        "a request without `jsonrpc` (a JSON-RPC 1.0 object, or an invalid 2.0 one) may be answered in kind, without `jsonrpc`; a reply to a 2.0 request always has it";
    SESSION_ERROR_CODE_MEANING = "session.error-code-meaning", Should, "JSON-RPC 2.0 §5.1",
        "predefined codes keep their meaning: unparseable JSON gets -32700, an invalid request -32600, and parseable JSON never -32700";

    LIMIT_REFUSED = "limit.refused", Info, "RFC 8259 §9; JSON-RPC 2.0 §5.1",
        "a message beyond a common parser limit (nesting deeper than 64, a line over 64 KiB, a number beyond 64 bits) may be refused as a whole with one error reply (-32700, -32600 or -32603)";

    MCP_ID_TYPE = "mcp.id-type", Must, "MCP 2025-06-18 basic",
        "an id is a string or an integer, never null; an error response omits `id` when the request's id could not be read";
    MCP_ID_REUSED = "mcp.id-reused", Must, "MCP 2025-06-18 basic",
        "a sender never reuses a request id within the session";
    MCP_BATCH = "mcp.batch", Must, "MCP 2025-06-18 changelog",
        "a message is a single object, never a batch";

    CLAUDE_TYPE = "claude.type", Must, "Claude Code stream-json",
        "every message is an object with a string `type`";
    CLAUDE_CONTROL_REQUEST = "claude.control-request", Must, "Claude Code stream-json",
        "a `control_request` has a string `request_id` and a `request` object with a string `subtype`";
    CLAUDE_CONTROL_RESPONSE = "claude.control-response", Must, "Claude Code stream-json",
        "a `control_response` has a `response` object with `subtype` \"success\" or \"error\" and a string `request_id`";
    CLAUDE_CONTROL_CANCEL = "claude.control-cancel", Must, "Claude Code stream-json",
        "a `control_cancel_request` has a string `request_id`";
    CLAUDE_REPLY_AFTER_CANCEL = "claude.reply-after-cancel", Info, "Claude Code stream-json",
        "a cancelled control request gets no reply, though one may cross the cancel in flight";

    EVENTS_TYPE = "events.type", Must, "events profile",
        "every record is an object whose type field is a string";
    EVENTS_START = "events.start", Must, "events profile",
        "the stream begins with the start record, when the profile names one, carrying what its shape names, and has only one";
    EVENTS_AFTER_END = "events.after-end", Must, "events profile",
        "nothing follows the end record";
    EVENTS_INTERRUPTED = "events.interrupted", Must, "events profile",
        "the stream ends with an end record (`done` or `error` by default)";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_parses_back_in_any_case() {
        let all = [Level::Must, Level::Should, Level::Info];
        let names: Vec<_> = all.iter().map(|l| l.as_str()).collect();
        assert_eq!(names, Level::NAMES);
        for level in all {
            let text = level.to_string();
            assert_eq!(text.parse::<Level>(), Ok(level));
            assert_eq!(text.to_lowercase().parse::<Level>(), Ok(level));
        }
    }

    #[test]
    fn an_unknown_level_lists_the_known_ones() {
        let e = "MAY".parse::<Level>().unwrap_err();
        assert_eq!(e.name(), "MAY");
        assert_eq!(
            e.to_string(),
            "unknown level `MAY` (known: MUST, SHOULD, INFO)"
        );
    }
}
