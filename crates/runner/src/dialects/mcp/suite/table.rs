//! The MCP checks as data: each one's id, title, rules and gate, in the
//! order a run reports them (`rpcspec list --dialect mcp`, docs/mcp.md).

use crate::{
    dialects::mcp::rules::{
        MCP_BEFORE_INITIALIZED, MCP_CANCEL_IN_FLIGHT, MCP_CANCEL_UNKNOWN, MCP_CLIENT_CAPABILITY,
        MCP_DECLARED_METHOD, MCP_DISCOVER, MCP_FIXTURE_CONTRACT, MCP_FIXTURE_RECOMMENDED,
        MCP_INITIALIZE_RESULT, MCP_LOGGING_SET_LEVEL, MCP_PAGINATION_ENDS, MCP_PAGINATION_INVALID,
        MCP_PING, MCP_PROGRESS_AFTER_COMPLETION, MCP_PROGRESS_INCREASING,
        MCP_PROMPTS_MISSING_ARGUMENT, MCP_PROMPTS_UNKNOWN, MCP_RESOURCES_EMPTY_CONTENTS,
        MCP_RESOURCES_NOT_FOUND_URI, MCP_RESOURCES_UNKNOWN, MCP_SCHEMA, MCP_SECOND_INITIALIZE,
        MCP_SERVER_CAPABILITY, MCP_SHUTDOWN, MCP_STDIO_MESSAGES_ONLY, MCP_STDIO_NO_REQUESTS,
        MCP_TOOLS_EXECUTION_ERROR, MCP_TOOLS_INPUT_SCHEMA, MCP_TOOLS_NAME, MCP_TOOLS_UNKNOWN,
        MCP_UNDECLARED_METHOD, MCP_VERSION_ERROR, MCP_VERSION_UNSUPPORTED,
    },
    rules::{MCP_ID_REUSED, Rule},
};

/// One MCP check, as `rpcspec list --dialect mcp` shows it.
#[derive(Debug)]
pub struct Check {
    /// The case id (`mcp/tools/list`).
    pub id: &'static str,
    /// What it checks, in one line.
    pub title: &'static str,
    /// The rules it grades.
    pub rules: &'static [&'static Rule],
    /// What it needs of the server, in words ("" for every server).
    pub gate: &'static str,
}

macro_rules! checks {
    ($( $name:ident = $id:literal, $title:literal, [$($rule:ident),*], $gate:literal; )*) => {
        $( pub(super) const $name: &Check = &Check { id: $id, title: $title, rules: &[$(&$rule),*], gate: $gate }; )*
        /// Every MCP check, in the order a run reports them.
        pub static CHECKS: &[&Check] = &[$($name),*];
    };
}

checks! {
    DISCOVER = "mcp/lifecycle/discover", "`server/discover` answers with versions, capabilities and identity",
        [MCP_DISCOVER], "2026-07-28";
    INITIALIZE = "mcp/lifecycle/initialize", "`initialize` answers with the server's version, capabilities and information",
        [MCP_INITIALIZE_RESULT], "2025-06-18, 2025-11-25";
    UNKNOWN_VERSION = "mcp/lifecycle/unknown-version", "a protocol version no server supports is answered with the versions it does",
        [MCP_VERSION_UNSUPPORTED, MCP_VERSION_ERROR], "";
    BEFORE_INITIALIZED = "mcp/lifecycle/before-initialized", "before `initialized`, `ping` is answered and the server asks nothing",
        [MCP_PING, MCP_BEFORE_INITIALIZED], "2025-06-18, 2025-11-25";
    SECOND_INITIALIZE = "mcp/lifecycle/second-initialize", "a second `initialize` in the session is refused",
        [MCP_SECOND_INITIALIZE], "2025-06-18, 2025-11-25";
    PING = "mcp/utilities/ping", "`ping` is answered promptly with an empty result",
        [MCP_PING], "2025-06-18, 2025-11-25";
    CANCEL_UNKNOWN = "mcp/utilities/cancel-unknown", "a cancellation of an unknown request is ignored",
        [MCP_CANCEL_UNKNOWN], "";
    CANCEL_IN_FLIGHT = "mcp/utilities/cancel-in-flight", "a cancelled request in flight gets nothing more",
        [MCP_CANCEL_IN_FLIGHT], "capability `tools`, `[mcp] slow` in the target file";
    PROGRESS = "mcp/utilities/progress", "progress increases, names the token and stops at the result",
        [MCP_PROGRESS_INCREASING, MCP_PROGRESS_AFTER_COMPLETION], "capability `tools`, `[mcp] slow` in the target file";
    TOOLS_LIST = "mcp/tools/list", "every tool has a valid input schema and a well-formed, unique name; the list ends",
        [MCP_TOOLS_INPUT_SCHEMA, MCP_TOOLS_NAME, MCP_PAGINATION_ENDS, MCP_DECLARED_METHOD], "capability `tools`";
    TOOLS_UNKNOWN = "mcp/tools/unknown-tool", "a call of an unknown tool is a protocol error",
        [MCP_TOOLS_UNKNOWN], "capability `tools`";
    TOOLS_CALL = "mcp/tools/call", "the target file's safe tool call gets a result",
        [MCP_SCHEMA], "capability `tools`, `[mcp] call` in the target file";
    TOOLS_ERROR = "mcp/tools/execution-error", "a tool that fails on its input answers with `isError: true`",
        [MCP_TOOLS_EXECUTION_ERROR], "capability `tools`, `[mcp] failing` in the target file";
    SERVER_REQUESTS = "mcp/tools/asks-client", "the server's requests to the client have ids it never used before",
        [MCP_ID_REUSED], "capability `tools`, `[mcp] asks_client` in the target file, 2025-06-18, 2025-11-25";
    RESOURCES_LIST = "mcp/resources/list", "the resource and template lists end",
        [MCP_PAGINATION_ENDS, MCP_DECLARED_METHOD], "capability `resources`";
    RESOURCES_UNKNOWN = "mcp/resources/unknown-uri", "reading an unknown resource gets the not-found error",
        [MCP_RESOURCES_UNKNOWN, MCP_RESOURCES_EMPTY_CONTENTS, MCP_RESOURCES_NOT_FOUND_URI], "capability `resources`";
    RESOURCES_READ = "mcp/resources/read", "a listed resource of each MIME type reads as contents of its shape",
        [MCP_SCHEMA, MCP_DECLARED_METHOD], "capability `resources`";
    TEMPLATES_READ = "mcp/resources/templates-read", "the first resource template, expanded, reads as contents of its shape",
        [MCP_SCHEMA, MCP_DECLARED_METHOD], "capability `resources` and a template of `{name}` variables";
    RESOURCES_SUBSCRIBE = "mcp/resources/subscribe", "`resources/subscribe` and `resources/unsubscribe` of a listed resource are answered",
        [MCP_DECLARED_METHOD, MCP_SCHEMA], "capability `resources` with `subscribe`, 2025-06-18, 2025-11-25";
    PROMPTS_LIST = "mcp/prompts/list", "the prompt list ends",
        [MCP_PAGINATION_ENDS, MCP_DECLARED_METHOD], "capability `prompts`";
    PROMPTS_UNKNOWN = "mcp/prompts/unknown-name", "getting an unknown prompt gets -32602",
        [MCP_PROMPTS_UNKNOWN], "capability `prompts`";
    PROMPTS_GET = "mcp/prompts/get", "every listed prompt, with its required arguments, gets messages of their shape",
        [MCP_SCHEMA, MCP_DECLARED_METHOD], "capability `prompts`";
    PROMPTS_MISSING_ARGUMENT = "mcp/prompts/missing-argument", "getting a prompt without an argument it requires gets -32602",
        [MCP_PROMPTS_MISSING_ARGUMENT], "capability `prompts` and a prompt with a required argument";
    COMPLETION = "mcp/completion/complete", "`completion/complete` of a prompt's argument gets completion values",
        [MCP_DECLARED_METHOD], "capability `completions` and a prompt with an argument";
    INVALID_CURSOR = "mcp/pagination/invalid-cursor", "a cursor the server never gave gets -32602",
        [MCP_PAGINATION_INVALID], "capability `tools`, `resources` or `prompts`";
    UNDECLARED = "mcp/capabilities/undeclared-method", "the methods of capabilities the server did not declare get -32601",
        [MCP_UNDECLARED_METHOD], "a capability not declared";
    SET_LEVEL = "mcp/logging/set-level", "`logging/setLevel` is accepted",
        [MCP_LOGGING_SET_LEVEL], "capability `logging`, 2025-06-18, 2025-11-25";
    FX_SIMPLE_TEXT = "mcp/fixtures/tools-call-simple-text", "`test_simple_text` returns text content",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`";
    FX_IMAGE = "mcp/fixtures/tools-call-image", "`test_image_content` returns an image with `data` and `mimeType`",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`";
    FX_AUDIO = "mcp/fixtures/tools-call-audio", "`test_audio_content` returns audio/wav with `data`",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`";
    FX_EMBEDDED = "mcp/fixtures/tools-call-embedded-resource", "`test_embedded_resource` returns a resource with `uri`, `mimeType` and contents",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`";
    FX_MIXED = "mcp/fixtures/tools-call-mixed-content", "`test_multiple_content_types` returns text, image and resource",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`";
    FX_ERROR = "mcp/fixtures/tools-call-error", "`test_error_handling` returns `isError: true` with a message",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`";
    FX_PROGRESS = "mcp/fixtures/tools-call-with-progress", "`test_tool_with_progress` sends 3 progress notifications, not decreasing",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`";
    FX_LOGGING = "mcp/fixtures/tools-call-with-logging", "`test_tool_with_logging` sends 3 log notifications",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `tools`, 2025-06-18, 2025-11-25";
    FX_READ_TEXT = "mcp/fixtures/resources-read-text", "`test://static-text` reads as text with `uri` and `mimeType`",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `resources`";
    FX_READ_BINARY = "mcp/fixtures/resources-read-binary", "`test://static-binary` reads as a blob with `uri` and `mimeType`",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `resources`";
    FX_TEMPLATE = "mcp/fixtures/resources-templates-read", "`test://template/123/data` reads as text holding 123",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `resources`";
    FX_PROMPT_SIMPLE = "mcp/fixtures/prompts-get-simple", "`test_simple_prompt` gets messages with role and content",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `prompts`";
    FX_PROMPT_ARGS = "mcp/fixtures/prompts-get-with-args", "`test_prompt_with_arguments` puts its arguments in its messages",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `prompts`";
    FX_PROMPT_EMBEDDED = "mcp/fixtures/prompts-get-embedded-resource", "`test_prompt_with_embedded_resource` embeds a resource",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `prompts`";
    FX_PROMPT_IMAGE = "mcp/fixtures/prompts-get-with-image", "`test_prompt_with_image` holds an image",
        [MCP_FIXTURE_CONTRACT, MCP_SCHEMA], "`--fixtures conformance`, capability `prompts`";
    FX_SAMPLING = "mcp/fixtures/tools-call-sampling", "`test_sampling` asks the client `sampling/createMessage`, then answers",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, capability `tools`, 2025-11-25";
    FX_ELICITATION = "mcp/fixtures/tools-call-elicitation", "`test_elicitation` asks the client `elicitation/create`, then answers",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, capability `tools`, 2025-11-25";
    FX_SEP1034 = "mcp/fixtures/elicitation-sep1034-defaults", "`test_elicitation_sep1034_defaults` requests a default for each primitive type",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, capability `tools`, 2025-11-25";
    FX_SEP1330 = "mcp/fixtures/elicitation-sep1330-enums", "`test_elicitation_sep1330_enums` requests the five enum shapes of SEP-1330",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, capability `tools`, 2025-11-25";
    MR_ELICITATION = "mcp/fixtures/input-required-result-basic-elicitation", "`test_input_required_result_elicitation` asks `user_name` by elicitation, then completes",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_SAMPLING = "mcp/fixtures/input-required-result-basic-sampling", "`test_input_required_result_sampling` asks a sampling, then completes",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_ROOTS = "mcp/fixtures/input-required-result-basic-list-roots", "`test_input_required_result_list_roots` asks the roots, then completes",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_STATE = "mcp/fixtures/input-required-result-request-state", "`test_input_required_result_request_state` gives a `requestState`, then completes with it echoed",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_MULTIPLE = "mcp/fixtures/input-required-result-multiple-input-requests", "`test_input_required_result_multiple_inputs` asks elicitation, sampling and roots at once",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_MULTI_ROUND = "mcp/fixtures/input-required-result-multi-round", "`test_input_required_result_multi_round` asks twice, with a new `requestState`, then completes",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_MISSING = "mcp/fixtures/input-required-result-missing-input-response", "an answer under an unknown key gets the input asked again",
        [MCP_FIXTURE_RECOMMENDED], "`--fixtures conformance`, 2026-07-28";
    MR_NON_TOOL = "mcp/fixtures/input-required-result-non-tool-request", "`prompts/get` of `test_input_required_result_prompt` asks for input, then completes",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_RESULT_TYPE = "mcp/fixtures/input-required-result-result-type", "an InputRequiredResult says `resultType: \"input_required\"`",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_UNSUPPORTED = "mcp/fixtures/input-required-result-unsupported-methods", "`tools/list` and `prompts/list` never answer with an InputRequiredResult",
        [MCP_FIXTURE_CONTRACT], "2026-07-28";
    MR_TAMPERED = "mcp/fixtures/input-required-result-tampered-state", "a tampered `requestState` is refused with an error",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_CAPABILITIES = "mcp/fixtures/input-required-result-capability-check", "a client that declared only sampling is asked no elicitation",
        [MCP_FIXTURE_CONTRACT], "`--fixtures conformance`, 2026-07-28";
    MR_EXTRA = "mcp/fixtures/input-required-result-ignore-extra-params", "unknown keys in `inputResponses` are ignored",
        [MCP_FIXTURE_RECOMMENDED], "`--fixtures conformance`, 2026-07-28";
    MR_VALIDATE = "mcp/fixtures/input-required-result-validate-input", "an `inputResponses` of the wrong shape is not taken for an answer",
        [MCP_FIXTURE_RECOMMENDED], "`--fixtures conformance`, 2026-07-28";
    SERVER_DECLARED = "mcp/capabilities/server-declared", "the server sends log messages only if it declared `logging`",
        [MCP_SERVER_CAPABILITY], "";
    CLIENT_DECLARED = "mcp/capabilities/client-declared", "the server asks the client only for capabilities the client declared",
        [MCP_CLIENT_CAPABILITY, MCP_STDIO_NO_REQUESTS], "";
    STDIO = "mcp/stdio/messages-only", "every line on stdout is one MCP message, UTF-8, on one line",
        [MCP_STDIO_MESSAGES_ONLY], "";
    SCHEMA = "mcp/schema/messages", "every message matches the revision's JSON Schema",
        [MCP_SCHEMA], "";
    SHUTDOWN = "mcp/shutdown/stdin-eof", "the server exits once stdin is closed",
        [MCP_SHUTDOWN], "";
}

/// The checks of `--fixtures conformance`, in the order of
/// `fixtures::FIXTURES`.
pub(super) static FIXTURE_CHECKS: &[&Check] = &[
    FX_SIMPLE_TEXT,
    FX_IMAGE,
    FX_AUDIO,
    FX_EMBEDDED,
    FX_MIXED,
    FX_ERROR,
    FX_PROGRESS,
    FX_LOGGING,
    FX_READ_TEXT,
    FX_READ_BINARY,
    FX_TEMPLATE,
    FX_PROMPT_SIMPLE,
    FX_PROMPT_ARGS,
    FX_PROMPT_EMBEDDED,
    FX_PROMPT_IMAGE,
];

/// The checks of SEP-2322's round trips, in the order of `mrtr::MRTR`.
pub(super) static MRTR_CHECKS: &[&Check] = &[
    MR_ELICITATION,
    MR_SAMPLING,
    MR_ROOTS,
    MR_STATE,
    MR_MULTIPLE,
    MR_MULTI_ROUND,
    MR_MISSING,
    MR_NON_TOOL,
    MR_RESULT_TYPE,
    MR_UNSUPPORTED,
    MR_TAMPERED,
    MR_CAPABILITIES,
    MR_EXTRA,
    MR_VALIDATE,
];

/// The checks in which the server asks the client, in the order of
/// `asks::ASKS`.
pub(super) static ASK_CHECKS: &[&Check] = &[FX_SAMPLING, FX_ELICITATION, FX_SEP1034, FX_SEP1330];
