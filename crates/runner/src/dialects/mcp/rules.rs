//! The MCP rules the `mcp/…` checks grade, each with the revisions and
//! the section its sentence is in. Part of the one registry
//! ([`crate::rules::all`]); the matcher's `mcp.id-type`, `mcp.id-reused`
//! and `mcp.batch` are checked on every message besides these.
//!
//! A rule's level is the sentence's: MUST is FAIL, SHOULD is NON-STRICT,
//! and where the specification only describes (an example, a list of
//! "issues like"), the rule is SHOULD and says so.

use crate::dialects::OwnRules;

/// MCP's own rules, and where each is checked.
pub const OWN: OwnRules = OwnRules {
    table: || MCP,
    checked_on: |rule| {
        if rule.id.starts_with("mcp.progress.") {
            "the MCP checks (`rpcspec run --dialect mcp`, cases `mcp/…`), and `rpcspec check --rpc mcp` on a transcript"
        } else {
            "the MCP checks (`rpcspec run --dialect mcp`, cases `mcp/…`), gated on what the server declares"
        }
    },
};

rpcspec_matcher::rule_table! { MCP;
    MCP_SCHEMA = "mcp.schema", Must,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 schema.json (the schema of the revision)",
        "every message matches its definition in the revision's official JSON Schema";
    MCP_STDIO_MESSAGES_ONLY = "mcp.stdio.messages-only", Must,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 basic/transports (stdio: \"The server MUST NOT write anything to its stdout that is not a valid MCP message\")",
        "every line the server writes to stdout is an MCP message: logs go to stderr";
    MCP_STDIO_NO_REQUESTS = "mcp.stdio.no-server-requests", Must,
        "MCP 2026-07-28 basic/transports/stdio (Receiving Messages: \"The server MUST NOT write JSON-RPC requests to stdout\")",
        "a 2026-07-28 server writes no requests: it asks the client through InputRequiredResult";

    MCP_INITIALIZE_RESULT = "mcp.initialize.result", Must,
        "MCP 2025-06-18, 2025-11-25 basic/lifecycle (Initialization: \"The server MUST respond with its own capabilities and information\")",
        "`initialize` is answered with the server's protocol version, capabilities and information";
    MCP_VERSION_UNSUPPORTED = "mcp.version.unsupported", Must,
        "MCP 2025-06-18, 2025-11-25 basic/lifecycle (Version Negotiation: \"Otherwise, the server MUST respond with another protocol version it supports\")",
        "an `initialize` of a version the server does not support is answered with a version it supports (or an error listing them), never with the version asked";
    MCP_VERSION_ERROR = "mcp.version.unsupported-error", Must,
        "MCP 2026-07-28 basic/versioning (Protocol Version Negotiation: \"it MUST respond with an UnsupportedProtocolVersionError listing the versions it does support\")",
        "a request of a protocol version the server does not implement gets error -32022 with `data.supported`";
    MCP_DISCOVER = "mcp.discover", Must,
        "MCP 2026-07-28 server/discover (\"Servers MUST implement it\")",
        "`server/discover` is answered with the server's supported versions, capabilities and identity";
    MCP_BEFORE_INITIALIZED = "mcp.lifecycle.before-initialized", Should,
        "MCP 2025-06-18, 2025-11-25 basic/lifecycle (Initialization: \"The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification\")",
        "before `notifications/initialized` the server sends no request but `ping`";
    MCP_PING = "mcp.ping", Must,
        "MCP 2025-06-18, 2025-11-25 basic/utilities/ping (\"The receiver MUST respond promptly with an empty response\")",
        "`ping` is answered promptly with an empty result, before `initialized` too";
    MCP_SHUTDOWN = "mcp.shutdown.stdin-eof", Should,
        "MCP 2025-06-18, 2025-11-25 basic/lifecycle (Shutdown, stdio); 2026-07-28 basic/transports/stdio (Shutdown: \"Servers SHOULD exit promptly when their standard input is closed\")",
        "the server exits once its stdin is closed, without SIGTERM or SIGKILL";
    MCP_CANCEL_UNKNOWN = "mcp.cancel.unknown-id", Should,
        "MCP 2025-06-18, 2025-11-25 basic/utilities/cancellation; 2026-07-28 basic/patterns/cancellation (\"Invalid cancellation notifications SHOULD be ignored\")",
        "a cancellation of a request the server does not know is ignored: it goes on answering";

    MCP_SERVER_CAPABILITY = "mcp.capability.server-declared", Must,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/utilities/logging (\"Servers that emit log message notifications MUST declare the logging capability\")",
        "the server sends log messages only if it declared `logging`";
    MCP_CLIENT_CAPABILITY = "mcp.capability.client-declared", Must,
        "MCP 2025-06-18, 2025-11-25 basic/lifecycle (Operation: both parties MUST \"Only use capabilities that were successfully negotiated\")",
        "the server asks the client only for what it declared: no `sampling/createMessage`, `elicitation/create` or `roots/list` to a client without that capability";
    MCP_UNDECLARED_METHOD = "mcp.capability.undeclared-method", Should,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/utilities/completion (Error Handling: \"Method not found: -32601 (Capability not supported)\")",
        "a method of a capability the server did not declare gets -32601";

    MCP_DECLARED_METHOD = "mcp.capability.declared-method", Should,
        "MCP 2025-06-18, 2025-11-25 basic/lifecycle (Capability Negotiation: a server capability \"Offers\", \"Provides\", \"Exposes\", \"Supports\" its feature); 2026-07-28 server/discover",
        "the methods of a capability the server declared are answered with results";
    MCP_TOOLS_INPUT_SCHEMA = "mcp.tools.input-schema", Must,
        "MCP 2025-11-25, 2026-07-28 server/tools (Tool: inputSchema \"MUST be a valid JSON Schema object (not null)\"); 2025-06-18 schema (Tool.inputSchema)",
        "every tool's `inputSchema` is a valid JSON Schema object";
    MCP_TOOLS_NAME = "mcp.tools.name", Should,
        "MCP 2025-11-25, 2026-07-28 server/tools (Tool Names: 1 to 128 characters, A-Z a-z 0-9 _ - ., unique within a server)",
        "tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`, unique within the server";
    MCP_TOOLS_UNKNOWN = "mcp.tools.unknown-tool", Should,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/tools (Error Handling: protocol errors for issues like \"Unknown tools\"; the example is -32602)",
        "a call of a tool the server does not have is answered with a JSON-RPC error, not a result";
    MCP_RESOURCES_UNKNOWN = "mcp.resources.unknown-uri", Should,
        "MCP 2025-06-18, 2025-11-25 server/resources (Error Handling: \"Resource not found: -32002\"); 2026-07-28 (changelog: -32602)",
        "reading a resource the server does not have gets the revision's not-found error";
    MCP_RESOURCES_EMPTY_CONTENTS = "mcp.resources.empty-contents", Must,
        "MCP 2026-07-28 server/resources (Error Handling: \"Servers MUST NOT return an empty contents array for a non-existent resource\")",
        "reading a resource that does not exist is an error, not a result with empty `contents`";
    MCP_RESOURCES_NOT_FOUND_URI = "mcp.resources.not-found-uri", Info,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/resources (Error Handling: the example error carries `\"data\": {\"uri\": …}`; no sentence requires it, and the conformance suite's sep-2164 traceability lists none, while its scenario warns)",
        "the not-found error of `resources/read` names the URI asked in `data.uri`";
    MCP_PROMPTS_UNKNOWN = "mcp.prompts.unknown-name", Should,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/prompts (Error Handling: \"Invalid prompt name: -32602\")",
        "getting a prompt the server does not have gets -32602";
    MCP_PROMPTS_MISSING_ARGUMENT = "mcp.prompts.missing-argument", Should,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/prompts (Error Handling: \"Missing required arguments: -32602\"); 2026-07-28 schema (InvalidParamsError: \"Prompts: Unknown prompt name or missing required arguments\")",
        "getting a prompt without an argument it declares required gets -32602";
    MCP_FIXTURE_CONTRACT = "mcp.fixture.contract", Must,
        "MCP 2025-11-25, 2026-07-28 official conformance requirements (modelcontextprotocol/conformance 0.2.0-alpha.11 requirements/*.yaml, \"which scenarios must my implementation pass to conform\"; the scenario's fixture, `--fixtures conformance`)",
        "a fixture of the official conformance suite that the server lists returns what the suite's scenario asserts";
    MCP_FIXTURE_RECOMMENDED = "mcp.fixture.recommended", Should,
        "MCP 2026-07-28 official conformance requirements (modelcontextprotocol/conformance 0.2.0-alpha.11: the scenario grades it WARNING, after SEP-2322's \"SHOULD\": re-request missing information, ignore what is not recognized, validate InputResponses)",
        "a fixture of the official conformance suite does what the suite's scenario recommends";
    MCP_PAGINATION_ENDS = "mcp.pagination.terminates", Should,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/utilities/pagination (Implementation Guidelines: \"Servers SHOULD provide stable cursors\")",
        "following `nextCursor` comes to an end: no cursor comes back twice";
    MCP_PAGINATION_INVALID = "mcp.pagination.invalid-cursor", Should,
        "MCP 2025-06-18, 2025-11-25, 2026-07-28 server/utilities/pagination (Error Handling: \"Invalid cursors SHOULD result in an error with code -32602\")",
        "a list request with a cursor the server never gave gets -32602";
    MCP_SECOND_INITIALIZE = "mcp.lifecycle.second-initialize", Info,
        "MCP 2025-06-18, 2025-11-25 basic/lifecycle (\"The initialization phase MUST be the first interaction between client and server\"; the page says nothing of a second one)",
        "a second `initialize` in a session is refused with an error";
    MCP_TOOLS_EXECUTION_ERROR = "mcp.tools.execution-error", Should,
        "MCP 2025-11-25, 2026-07-28 server/tools (Error Handling: \"Tool Execution Errors: Reported in tool results with isError: true\", input validation errors among them)",
        "a tool that fails on its input says so in a result with `isError: true`, not a JSON-RPC error";
    MCP_PROGRESS_INCREASING = "mcp.progress.increasing", Must,
        "MCP 2025-06-18, 2025-11-25 basic/utilities/progress; 2026-07-28 basic/patterns/progress (\"The progress value MUST increase with each notification\")",
        "the `progress` of a token's notifications increases with each one";
    MCP_PROGRESS_AFTER_COMPLETION = "mcp.progress.after-completion", Must,
        "MCP 2025-06-18, 2025-11-25 basic/utilities/progress; 2026-07-28 basic/patterns/progress (\"Progress notifications MUST stop after completion\"; they \"MUST only reference tokens that\" were given in an active request)",
        "progress notifications name the request's token and stop once the request is answered";
    MCP_CANCEL_IN_FLIGHT = "mcp.cancel.in-flight", Should,
        "MCP 2025-06-18, 2025-11-25 basic/utilities/cancellation (receivers SHOULD \"Not send a response for the cancelled request\"); 2026-07-28 basic/transports/stdio (\"MUST NOT send any further messages for it\", while patterns/cancellation lets a server ignore a request that \"cannot be cancelled\")",
        "after `notifications/cancelled`, the server sends nothing more for that request";
    MCP_LOGGING_SET_LEVEL = "mcp.logging.set-level", Should,
        "MCP 2025-06-18, 2025-11-25 server/utilities/logging (Setting Log Level)",
        "a server that declares `logging` accepts `logging/setLevel` with an empty result";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_an_mcp_rule_citing_a_revision() {
        for rule in MCP {
            assert!(rule.id.starts_with("mcp."), "{}", rule.id);
            assert!(rule.section.starts_with("MCP 20"), "{}", rule.id);
        }
    }
}
