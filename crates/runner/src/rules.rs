//! The one rule registry: every rule of every role, each a `static` with a
//! stable id, a level, the specification and section it comes from, and
//! the sentence it checks. The matcher's rules (JSON-RPC messages and
//! sessions, the dialects) are its `RULES`; this module adds the rules of
//! the runner's roles: framing of what any target writes, how a process
//! behaves, event streams and their HTTP form, and NDJSON decoders.
//!
//! One id per defect, whatever the role: a line that is not UTF-8 is
//! `framing.utf8` from a server, a producer or `rpcspec check`; a record
//! after the end record is `events.after-end` from the matcher's `events`
//! dialect and from the producer role alike. Renaming an id is a breaking
//! change (README.md, "Changelog"). `docs/rules.md` is generated from
//! [`all`] (`cargo xtask rules`; `tests/rules.rs` fails when it is stale).

// The matcher's rules are named here too, so that `rules::X` is any rule.
pub use rpcspec_matcher::rules::*;
pub use rpcspec_matcher::{Level, RULES as MATCHER, Rule};
// The rules of what every target writes and how every process behaves.
pub use rpcspec_core::rules::*;

rpcspec_matcher::rule_table! { RUNNER;
    EVENTS_SHAPE = "events.shape", Must, "events protocol: records; the profile's [records]",
        "a record of a declared type has that type's shape (events: what the type carries, under `data`; `metadata`, if there, an object)";
    EVENTS_ERROR_RECORD = "events.error-record", Must, "events protocol: errors during the stream",
        "an error record says what failed: a code and a message (events: `data.code`, `data.message`)";
    EVENTS_EXPECTED_END = "events.expected-end", Must, "the profile's scenario `end` (opt-in)",
        "a scenario that names its end type finishes with it";
    EVENTS_HELD_BACK = "events.held-back", Should, "events protocol: streaming",
        "records are written as they are produced, not held back until the end";
    EVENTS_CONTROL_ANSWERED = "events.control-answered", Must, "Claude Code stream-json control protocol",
        "a control request is made when the turn needs one (and the command enables them), and once answered the stream goes on to its end";
    CONTROL_ANSWERED_ONCE = "control.answered-once", Must, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/query.py 611-643 (a request waits on its request_id, 60 s, then the call fails); claude-agent-sdk sdk.d.ts 5725-5733",
        "each control request sent to the agent is answered by one `control_response` carrying its `request_id`, with no turn needed first: the SDK waits on that id (its `initialize` before any message)";
    CONTROL_UNSUPPORTED = "control.unsupported", Should, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/query.py 568-596 (\"Unsupported control request subtype\" answered as an error); claude-agent-sdk sdk.d.ts 5779-5783",
        "a request whose subtype the receiver does not serve is answered with an `error` response, not a success and not silence";
    CONTROL_UNSOLICITED = "control.unsolicited", Should, "Claude Code control protocol (docs/agents.md): claude-agent-sdk sdk.d.ts 5725 (\"a requester ignores responses for request_ids it is not waiting on\"), 4339-4347 (\"There is no reply to the cancel itself\"), 6064 (`keep_alive`: \"receivers must ignore it\")",
        "a `control_response` answers a request that was sent: none for a `keep_alive`, a `control_cancel_request`, a record of an unknown type or an id never sent";
    CONTROL_MALFORMED = "control.malformed", Should, "Claude Code control protocol (docs/agents.md): no written rule; the SDKs' readers skip a line they cannot use (claude-agent-sdk-python message_parser.py 91-93, sdk.mjs's \"Non-JSON stdout\")",
        "a malformed control request (no `request`, no `subtype`) costs that request alone: it is answered with an error or ignored, and the session goes on";

    HTTP_STATUS = "http.status", Must, "RFC 9110 §15; events protocol: errors before the stream",
        "a valid request streams with status 200; a refusal, where one is expected, has a JSON error body";
    HTTP_CONTENT_TYPE = "http.content-type", Must, "NDJSON 1.0 §4; RFC 7464 §6; events protocol",
        "a stream is served as the profile's streaming media type (events: application/x-ndjson)";
    HTTP_BAD_REQUEST = "http.bad-request", Must, "RFC 9110 §15.5; events protocol: errors before the stream",
        "a request the endpoint cannot serve is refused before the stream: a 4xx with a JSON error body";

    TRANSCRIPT_MARK = "transcript.mark", Must, "rpcspec check's transcript format (README.md, \"Check a captured stream or transcript\"), after go-ethereum's rpc/testdata: `-->` client to server, `<--` server to client",
        "in a transcript (a stream whose first line is marked or a `//` comment), every message line is marked `-->` or `<--`";
    DECODER_RECORD = "decoder.record", Must, "NDJSON 1.0 §3 (\"each JSON text … followed by the newline character\")",
        "every line that holds one JSON text is delivered as that value, once, in order";
    DECODER_INVALID_RECORD = "decoder.invalid-record", Must, "NDJSON 1.0 §3.3 (\"SHOULD raise an error\"); rpcspec decoder contract",
        "a line that is not exactly one JSON text is reported as an error, not dropped, merged or split";
    DECODER_EXTRA_RECORD = "decoder.extra-record", Must, "NDJSON 1.0 §3 (one JSON text per line)",
        "every record reported is a line of the stream: none split off, merged or invented";
    DECODER_CRLF = "decoder.crlf", Must, "NDJSON 1.0 §3.2 (\"MUST accept … \\n … as well as … \\r\\n\")",
        "the \\r of \\r\\n is part of the line terminator, never of the record";
    DECODER_BLANK_LINE = "decoder.blank-line", Info, "NDJSON 1.0 §3.3 (\"MAY silently ignore empty lines\"); JSON Lines (\"a blank line is not\" a value)",
        "a blank line is skipped or rejected: both are documented choices";
    DECODER_BOM = "decoder.bom", Should, "RFC 8259 §8.1 (parsers \"MAY ignore the presence of a byte order mark\")",
        "a byte order mark opening the stream is ignored";
    DECODER_UTF8 = "decoder.utf8", Should, "NDJSON 1.0 §3.1 (\"MUST use the UTF8 encoding\"); RFC 8259 §8.1",
        "a line that is not UTF-8 is rejected, not repaired with U+FFFD";
    DECODER_LINE_LENGTH = "decoder.line-length", Should, "NDJSON 1.0 (no length limit); tokio-util LinesCodec docs on unbounded lines",
        "a long line is delivered; a documented limit that rejects it is tolerated";
    DECODER_UNTERMINATED = "decoder.unterminated", Must, "JSON Lines (the last terminator is \"strongly recommended but not required\"); ndjson-spec #24",
        "bytes after the last \\n are delivered or reported, never dropped silently";
    DECODER_END = "decoder.end", Must, "ndjson-spec #43 (no in-band end); rpcspec decoder contract",
        "a stream is complete iff its last value is an object whose type is done or error";
    DECODER_CONTRACT = "decoder.contract", Must, "spec-cases/decoder/README.md (the adapter contract)",
        "the adapter writes one JSON object per line: value, error, then one end";

    CLIENT_RESULT = "client.result", Must, "JSON-RPC 2.0 §5 (a Response carries the result or the error of the Request whose id it has); NDJSON 1.0 §3 (a reply is the line it arrived on)",
        "each call returns what the server replied to it, paired by id and read whole: the result, or the error's code and message (and its data, where the scenario is about data)";
    CLIENT_NO_REPLY = "client.no-reply", Must, "JSON-RPC 2.0 §5; rpcspec client contract",
        "a call the server never validly answered fails; the library returns no result for it";
    CLIENT_ENDS = "client.ends", Must, "rpcspec client contract (every call has a timeout); MCP stdio transport (a closed stream ends the session)",
        "the client finishes its calls whatever the server does: a server that exits, closes its stdout or never answers fails the calls, never hangs them";
    CLIENT_NOTIFICATION = "client.notification", Must, "JSON-RPC 2.0 §4.1 (\"A Notification is a Request object without an id member\")",
        "a notification is sent without an `id`";
    CLIENT_SERVER_REQUEST = "client.server-request", Should, "JSON-RPC 2.0 §1 (\"one implementation may play both roles\"), §5 (a request is answered with its id)",
        "a request from the server is answered with its id: a result, or an error (-32601 for a method the client does not have)";
    CLIENT_CONTRACT = "client.contract", Must, "spec-cases/client/README.md (the adapter contract)",
        "the adapter reports each step once, as one JSON object per line of its stdout, and exits with status 0";
    CLIENT_MCP_INITIALIZE_FIRST = "client.mcp-initialize-first", Must, "MCP 2025-11-25 basic/lifecycle (\"The initialization phase MUST be the first interaction between client and server\"); 2026-07-28 basic/versioning (`server/discover`, or every request carries its version)",
        "an MCP client's first request opens the session: `initialize`, or in 2026-07-28 `server/discover` or a request carrying its protocol version";
    CLIENT_MCP_INITIALIZED = "client.mcp-initialized", Must, "MCP 2025-11-25 basic/lifecycle (\"After successful initialization, the client MUST send an initialized notification\")",
        "after the `initialize` result, the client sends `notifications/initialized` before its other requests";
    CLIENT_MCP_OPERATION_ORDER = "client.mcp-operation-order", Should, "MCP 2025-11-25 basic/lifecycle (\"SHOULD NOT send requests other than pings before the server has responded to the initialize request\"; `initialized` tells the server the client \"is ready to begin normal operations\")",
        "no request but `ping` before the `initialize` result, nor before `notifications/initialized`";
    CLIENT_MCP_VERSION = "client.mcp-version", Should, "MCP 2025-11-25 basic/lifecycle (\"If the client does not support the version in the server's response, it SHOULD disconnect\")",
        "a client answered with a protocol version it does not speak disconnects: no `initialized`, no further request";
    CLIENT_MCP_SERVER_REQUEST = "client.mcp-server-request", Must, "MCP 2025-11-25 basic/utilities/ping (\"The receiver MUST respond promptly with an empty response\"); client/roots (a client that declares `roots` answers `roots/list`); client/elicitation (a client that declares `elicitation` answers `elicitation/create` with an action)",
        "the server's `ping`, `roots/list` to a client that declared `roots` and `elicitation/create` to one that declared `elicitation`, are answered with their id and a result";
    CLIENT_MCP_CANCEL = "client.mcp-cancel", Should, "MCP 2025-11-25 basic/lifecycle, timeouts (\"the sender SHOULD issue a cancellation notification for that request and stop waiting\")",
        "a call the client gives up on is cancelled: `notifications/cancelled` with its `requestId`";
    CLIENT_MCP_REQUEST_STATE = "client.mcp-request-state", Must, "MCP 2026-07-28 basic/patterns/mrtr, client requirements (\"the client MUST echo back the exact value of that field when retrying the original request\"; \"If the InputRequiredResult does not contain a requestState field, the client MUST NOT include one in the retry\")",
        "the retry after an `InputRequiredResult` carries its `requestState` exactly as given, and none when it gave none";
    CLIENT_MCP_INPUT_RESPONSES = "client.mcp-input-responses", Must, "MCP 2026-07-28 basic/patterns/mrtr (\"the client MUST construct the requested inputs before retrying the original request\"; InputResponses: \"Keys correspond to the keys in the InputRequests map\")",
        "the retry after an `InputRequiredResult` answers each input request in `inputResponses`, under its key";
    CLIENT_MCP_RETRY_ID = "client.mcp-retry-id", Must, "MCP 2026-07-28 basic/patterns/mrtr (\"The JSON-RPC id MUST be different between the initial request and the retry\")",
        "the retry after an `InputRequiredResult` has an id of its own";
    CLIENT_MCP_INPUT_ISOLATION = "client.mcp-input-isolation", Must, "MCP 2026-07-28 basic/patterns/mrtr (\"Both the inputRequests and requestState fields affect only the client's retry of the original request. They MUST NOT be used for any other request\")",
        "no request but the retry carries `inputResponses` or `requestState`";
    CLIENT_MCP_RESULT_TYPE = "client.mcp-result-type", Must, "MCP 2026-07-28 basic/index, ResultType (\"For backward compatibility with servers implementing earlier protocol versions, which do not include resultType, clients MUST treat an absent resultType as `complete`\")",
        "a result without `resultType` is returned as a complete one";
    CLIENT_MCP_VERSION_RETRY = "client.mcp-version-retry", Should, "MCP 2026-07-28 basic/versioning (\"The client SHOULD select a mutually supported version from the supported list and retry the request\")",
        "after -32022 `UnsupportedProtocolVersion` the client goes on in a version of the error's `data.supported`";
    CLIENT_MCP_CLIENT_INFO = "client.mcp-client-info", Should, "MCP 2026-07-28 basic/index, `_meta` (\"Clients SHOULD include io.modelcontextprotocol/clientInfo on every request unless specifically configured not to do so\")",
        "every 2026-07-28 request carries `io.modelcontextprotocol/clientInfo` in its `_meta`";
    CLIENT_MCP_REF_FETCH = "client.mcp-ref-fetch", Must, "MCP 2026-07-28 basic/index, `$ref` Resolution (\"Implementations MUST NOT automatically dereference $ref values that resolve to a network URI\")",
        "the client fetches no network `$ref` of a tool's input schema";
    CLIENT_MCP_ELICITATION_DEFAULTS = "client.mcp-elicitation-defaults", Should, "MCP 2025-11-25 client/elicitation (\"Clients that support defaults SHOULD pre-populate form fields with these values\")",
        "a client that fills in defaults answers a form accepted as presented with each field's default: present, of its type (a client that fills in none is noted)";
    REPLY_ERROR = "reply.error", Must, "JSON-RPC 2.0 §5 (\"When a rpc call encounters an error, the Response Object MUST contain the error member\"), §5.1 (the code for each cause: -32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params)",
        "a request the server cannot carry out gets an error reply, with the code §5.1 gives for the cause, and the id it can read (null when it cannot)";
    REPLY_RESULT = "reply.result", Must, "JSON-RPC 2.0 §5 (\"result: This member is REQUIRED on success\"), §7 (the examples' replies)",
        "a request the server can carry out gets a reply with its result and its id, as the specification's examples are answered";
    REPLY_BATCH = "reply.batch", Must, "JSON-RPC 2.0 §6 (each member is answered as a call alone: \"When a rpc call is made, the Server MUST reply with a Response\", §5; the replies in one Array, never an empty one)",
        "a batch's calls are each answered as they would be alone, in one Array, and a batch of notifications gets nothing back";

    CODEX_INITIALIZE = "codex.initialize", Must, "Codex app-server README, Initialization (\"Clients must send a single `initialize` request before invoking any other method [...] The server returns the user agent string it will present to upstream services\"; example: `{ \"id\": 0, \"result\": { \"userAgent\": ... } }`)",
        "the Codex app-server answers `initialize` with a result carrying its `userAgent`";
    CODEX_NOT_INITIALIZED = "codex.not-initialized", Must, "Codex app-server README, Initialization (\"subsequent requests issued before initialization receive a \\\"Not initialized\\\" error\")",
        "the Codex app-server answers a request before `initialize` with an error, \"Not initialized\" (the README names the message, not the code: another message is NON-STRICT)";
    CODEX_INITIALIZE_ONCE = "codex.initialize-once", Must, "Codex app-server README, Initialization (\"repeated `initialize` calls receive an \\\"Already initialized\\\" error\")",
        "the Codex app-server answers a second `initialize` with an error, \"Already initialized\" (another message is NON-STRICT)";
    CODEX_HOST_LIFECYCLE = "codex.host-lifecycle", Must, "Codex app-server README, Initialization (\"Clients must send a single `initialize` request per transport connection before invoking any other method on that connection, then acknowledge with an `initialized` notification\"); Lifecycle Overview (\"Any other request on that connection before this handshake gets rejected\")",
        "a host sends `initialize` first and once, then the `initialized` notification, before any other request";
    CODEX_HOST_REQUEST = "codex.host-request", Must, "JSON-RPC 2.0 §4 (\"the Server MUST reply with a Response\"), §5 (the Response's id is the Request's); Codex app-server README, Approvals (\"The client must respond\", \"Respond with a single `{ \"decision\": ... }` payload\")",
        "every request the app-server sends its host gets one response, with the request's id";
    CODEX_HOST_APPROVAL = "codex.host-approval", Must, "Codex app-server README, Approvals (\"Respond with a single `{ \"decision\": ... }` payload\"; command approvals `accept`, `decline`, …; file change approvals `accept`, `decline`, …)",
        "an approval request is answered with a result carrying the decision the host's handler made";
    CODEX_HOST_UNKNOWN_METHOD = "codex.host-unknown-method", Should, "JSON-RPC 2.0 §5.1 (-32601 \"Method not found\": the method does not exist / is not available); the app-server README names no method a host may refuse",
        "a request of a method the host does not serve is answered with an error, not a result";
    CODEX_HOST_RESULT = "codex.host-result", Must, "Codex app-server README, Initialization and API Overview (`initialize` returns the `userAgent`; `thread/start` the thread; `turn/start` streams to `turn/completed` with the final status); rpcspec client contract",
        "each step returns what the app-server answered: `initialize`'s user agent, the thread's id, the turn's agent message and final status, an error's message; a turn the server never completed returns no result";
    CODEX_EXEC_INVOKE = "codex.exec-invoke", Must, "Codex exec stream (docs/agents.md): @openai/codex-sdk src/exec.ts (`[\"exec\", \"--experimental-json\"]`, the input written to stdin, then `stdin.end()`); codex-rs exec cli.rs (`--json`, alias `experimental-json`; the prompt read from stdin when none is given)",
        "a decoder starts the CLI as `codex exec --experimental-json` (or `--json`) and hands it the prompt: on stdin, which it then ends, or as an argument";
    CODEX_EXEC_EVENTS = "codex.exec-events", Must, "Codex exec stream (docs/agents.md): codex-rs exec/src/exec_events.rs (`ThreadEvent`, one JSON object a line on stdout); @openai/codex-sdk src/thread.ts runStreamedInternal (each line parsed and yielded, in order)",
        "every event the CLI writes reaches the decoder's caller, in order, with the values written (a typed decoder may leave out members it has no field for); none is made up or repeated (an event of a type it does not know may be dropped; after a line that is no event it may raise and stop)";
    CODEX_EXEC_OUTCOME = "codex.exec-outcome", Must, "Codex exec stream (docs/agents.md): @openai/codex-sdk src/exec.ts (`code !== 0 || signal`: `Codex Exec exited with …`, the stderr in the error), thread.ts (a stream read to its end is the turn)",
        "a turn whose CLI exits non-zero ends in an error; a whole turn ending in `turn.completed` with exit status 0 ends without one";
    CODEX_EXEC_END = "codex.exec-end", Should, "Codex exec stream (docs/agents.md): codex-rs exec/src/exec_events.rs (a turn ends in `turn.completed` or `turn.failed`); neither the SDK nor the CLI says what a decoder makes of a stream without either",
        "a stream that ends without `turn.completed` or `turn.failed` is not taken for a whole turn: the decoder raises (SHOULD: the TypeScript SDK returns it as done)";

    CLAUDE_SDK_INITIALIZE = "claude.sdk-initialize", Should, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/query.py initialize() and client.py connect() (the SDK's `initialize` goes first and is awaited); claude-agent-sdk sdk.d.ts (`initializationResult`)",
        "an SDK opens its session with the `initialize` control request, before its first `user` message";
    CLAUDE_SDK_RESULT = "claude.sdk-result", Must, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/query.py (an `error` response raises with its text, a `success` returns its response), client.py (a turn ends at its `result`); claude-agent-sdk sdk.mjs (`Error(response.error)`); rpcspec client contract",
        "each step returns what the CLI answered: `initialize`'s commands, a turn's assistant texts and `result`, the text of an `error` response; a step the CLI never answered (no `result`, no response) returns no result";
    CLAUDE_PERMISSION = "claude.permission", Must, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/query.py (`can_use_tool`: `allow` with `updatedInput`, `deny` with `message`); claude-agent-sdk sdk.d.ts `PermissionResult`",
        "a `can_use_tool` request is answered `success` with the callback's decision: `behavior` `allow` and the `updatedInput` it gave, or `deny` and its `message`";
    CLAUDE_HOOK_CALLBACK = "claude.hook-callback", Must, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/query.py (`hook_callback`: the hook's output is the response); claude-agent-sdk sdk.d.ts `SDKHookCallbackRequest`",
        "a `hook_callback` request for a registered callback is answered `success` with the hook's output, an object";
    CLAUDE_MCP_MESSAGE = "claude.mcp-message", Must, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/query.py (`mcp_message`: `{\"mcp_response\": …}`); JSON-RPC 2.0 §5 (the reply carries the request's id)",
        "an `mcp_message` request is answered `success` with `mcp_response`: the SDK-hosted server's JSON-RPC reply, with the message's id";
    CLAUDE_SDK_CLOSE = "claude.sdk-close", Should, "Claude Code control protocol (docs/agents.md): claude-agent-sdk-python _internal/transport/subprocess_cli.py close() (stdin closed, the process waited for, then terminated)",
        "an SDK ends its session by closing the CLI's stdin (Claude Code exits then): the CLI is not left running with its stdin open (one killed first is noted)";

    CLIENT_MCP_SHUTDOWN = "client.mcp-shutdown", Should, "MCP 2025-11-25 basic/lifecycle, shutdown over stdio (\"First, closing the input stream to the child process\")",
        "the client ends the session by closing the server's stdin (then waits, then SIGTERM, then SIGKILL), not by killing it first";
}

/// Every rule: the matcher's, then the core's (framing, processes), then
/// the roles', then each dialect's own (`Descriptor::rules`: MCP's checks,
/// LSP's), in table order.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    let dialects = crate::dialects::DIALECTS
        .iter()
        .filter_map(|d| d.rules)
        .flat_map(|own| (own.table)());
    MATCHER
        .iter()
        .chain(CORE)
        .chain(RUNNER)
        .chain(dialects)
        .copied()
}

/// The rule with this id, if there is one.
pub fn by_id(id: &str) -> Option<&'static Rule> {
    all().find(|r| r.id == id)
}

/// Where a rule is checked, besides the cases that name it: in words, by
/// the area of its id.
pub fn checked_on(rule: &Rule) -> &'static str {
    let own = crate::dialects::DIALECTS
        .iter()
        .filter_map(|d| d.rules)
        .find(|own| (own.table)().iter().any(|r| r.id == rule.id));
    if let Some(own) = own {
        return (own.checked_on)(rule);
    }
    let area = rule.id.split_once('.').map_or(rule.id, |(a, _)| a);
    match area {
        "json" | "message" | "request" | "response" | "error" | "batch" | "session" | "limit" => {
            "every message a server writes, in every server case (`--role server`), and `rpcspec check --rpc`"
        }
        "mcp" => {
            "every message, in every server case with `--dialect mcp`, and `rpcspec check --rpc mcp`"
        }
        "claude"
            if [
                "claude.sdk-initialize",
                "claude.sdk-result",
                "claude.permission",
                "claude.hook-callback",
                "claude.mcp-message",
                "claude.sdk-close",
            ]
            .contains(&rule.id) =>
        {
            "the Claude client scenarios (`--role client --dialect claude`, `client/claude/…`), on what the SDK writes to the CLI rpcspec plays"
        }
        "claude" if rule.id == "claude.control-response" => {
            "every message, in every server case with `--dialect claude`, `rpcspec check --rpc claude`, and the producer check `producer/control/response-shape` (`--role producer --profile claude`)"
        }
        "claude" => {
            "every message, in every server case with `--dialect claude`, and `rpcspec check --rpc claude`"
        }
        "control" => {
            "the producer's control checks (`--role producer --profile claude`, `producer/control/…`), on what the agent answers to the control requests rpcspec sends as its SDK would; and the Claude client scenarios (`--role client --dialect claude`), on what the SDK answers to the CLI's"
        }
        "events" if MATCHER.iter().any(|r| r.id == rule.id) => {
            "every record, in every server case with `--dialect events`, `rpcspec check --rpc events`, and the producer cases that name it"
        }
        "events" | "http" => "the producer cases that name it (`--role producer`)",
        "framing" if CONTENT_LENGTH_RULES.iter().any(|r| r.id == rule.id) => {
            "every message read in Content-Length framing (the LSP base protocol): `rpcspec check --framing content-length`"
        }
        "framing" => {
            "every line a target writes, in every server and producer case, and `rpcspec check`"
        }
        "process" => "every process rpcspec starts, in every role",
        "codex" if rule.id.starts_with("codex.host-") => {
            "the Codex host scenarios (`--role client --dialect codex`, `client/codex/…`), on what the host writes to the app-server rpcspec plays"
        }
        "codex" if rule.id.starts_with("codex.exec-") => {
            "the codex-exec client scenarios (`--role client --dialect codex-exec`, `client/codex-exec/…`), on how the decoder started the CLI rpcspec plays and what it handed on"
        }
        "codex" => "the `codex/…` server cases that name it (`rpcspec run --dialect codex`)",
        "transcript" => {
            "`rpcspec check` on a transcript (a stream whose lines are marked `-->` and `<--`)"
        }
        "reply" => "the server cases' own answers (`--role server`): a FAIL of what a case expects",
        "decoder" => "every decoder case (`--role decoder`), on what the adapter reports",
        "client" => {
            "every client scenario (`--role client`), on what the client writes to its server and what its adapter reports"
        }
        _ => "",
    }
}

/// The rules whose id matches `pattern`: an id, or a glob where `*`
/// matches any run of characters (`framing.*`, `*utf8*`).
pub fn matching(pattern: &str) -> Vec<&'static Rule> {
    all().filter(|r| glob(pattern, r.id)).collect()
}

/// Whether `text` matches `pattern`, `*` matching any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let Some(mut text) = text.strip_prefix(head) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('*').collect();
    let (last, middle) = parts.split_last().expect("split yields one part at least");
    for part in middle {
        match text.find(part) {
            Some(at) => text = &text[at + part.len()..],
            None => return false,
        }
    }
    text.len() >= last.len() && text.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in all() {
            assert!(seen.insert(rule.id), "two rules are called {}", rule.id);
            let (area, name) = rule.id.split_once('.').expect("area.name");
            assert!(
                !area.is_empty()
                    && !name.is_empty()
                    && rule
                        .id
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-.".contains(c)),
                "{}",
                rule.id
            );
            assert!(!rule.section.is_empty() && !rule.statement.is_empty());
        }
    }

    #[test]
    fn every_rule_says_where_it_is_checked() {
        for rule in all() {
            assert!(!checked_on(rule).is_empty(), "{}", rule.id);
        }
    }

    #[test]
    fn globs_select_rules() {
        let ids = |p: &str| -> Vec<&str> { matching(p).iter().map(|r| r.id).collect() };
        assert_eq!(ids("framing.utf8"), ["framing.utf8"]);
        assert_eq!(ids("*utf8"), ["framing.utf8", "decoder.utf8"]);
        assert_eq!(ids("framing.*").len(), 12);
        assert!(ids("http.*status*").contains(&"http.status"));
        assert!(ids("nope").is_empty());
        assert!(glob("a*b*c", "axxbyyc") && !glob("a*b*c", "axxcyyb") && glob("*", ""));
        assert!(!glob("ab*ba", "aba"));
    }
}
