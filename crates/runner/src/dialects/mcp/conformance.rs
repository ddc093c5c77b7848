//! The official MCP conformance suite's required scenarios
//! (modelcontextprotocol/conformance 0.2.0-alpha.11, `requirements/*.yaml`),
//! each mapped to the rpcspec cases that check what it checks, over stdio.
//!
//! Data only: `docs/mcp-conformance.md` is generated from it, and a test
//! (`crates/runner/tests/mcp_conformance.rs`) keeps it in step with the
//! vendored requirement files and with `rpcspec list`: every scenario
//! required there is here once per leg, and every case named here exists.

/// Whose scenario: the suite's `server` subcommand tests a server, its
/// `client` subcommand a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leg {
    /// Scenarios of servers.
    Server,
    /// Scenarios of clients.
    Client,
}

impl Leg {
    /// `server` or `client`, as the requirement files name the leg.
    pub fn as_str(self) -> &'static str {
        match self {
            Leg::Server => "server",
            Leg::Client => "client",
        }
    }
}

/// How much of a scenario rpcspec checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// It needs HTTP (SSE streams, `Host`/`Origin` headers, OAuth): there
    /// is nothing of it over stdio.
    HttpOnly,
    /// Every assertion of the scenario, by these cases.
    Covered,
    /// Some of its assertions; the note says what is missing.
    Partly,
    /// None of it yet; the note says what it needs.
    Not,
}

impl Coverage {
    /// As the generated page writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::HttpOnly => "HTTP-only",
            Coverage::Covered => "covered",
            Coverage::Partly => "partly",
            Coverage::Not => "not",
        }
    }
}

/// One required scenario of the official suite, for one leg.
#[derive(Debug)]
pub struct Scenario {
    /// Its id in the suite (`tools-call-image`).
    pub id: &'static str,
    /// Whose scenario it is.
    pub leg: Leg,
    /// The revisions whose requirement file lists it.
    pub revisions: &'static [&'static str],
    /// How much of it rpcspec checks.
    pub coverage: Coverage,
    /// The rpcspec cases that check it: MCP check ids (`mcp/...`) for the
    /// server leg, client case ids (`client/mcp/...`) for the client leg.
    pub by: &'static [&'static str],
    /// How they check it, or what is missing.
    pub note: &'static str,
}

const BOTH: &[&str] = &["2025-11-25", "2026-07-28"];
const LEGACY: &[&str] = &["2025-11-25"];
const MODERN: &[&str] = &["2026-07-28"];

macro_rules! scenarios {
    ($( $leg:ident $id:literal $revs:ident $cov:ident [$($by:literal),*] $note:literal; )*) => {
        /// Every required scenario of both requirement files, by leg.
        pub static SCENARIOS: &[Scenario] = &[$(Scenario {
            id: $id,
            leg: Leg::$leg,
            revisions: $revs,
            coverage: Coverage::$cov,
            by: &[$($by),*],
            note: $note,
        }),*];
    };
}

scenarios! {
    // Server leg: lifecycle and utilities.
    Server "server-initialize" LEGACY Covered ["mcp/lifecycle/initialize"]
        "the `initialize` result: protocol version, capabilities, server information";
    Server "server-stateless" MODERN Partly ["mcp/lifecycle/discover", "mcp/lifecycle/unknown-version", "mcp/schema/messages"]
        "missing: -32602 for a request without `_meta`, its protocol version or client capabilities; serving a request without `clientInfo`; `serverInfo` in every result's `_meta`; -32021 for a missing client capability; -32601 for the removed methods; `subscriptions/listen`";
    Server "logging-set-level" LEGACY Covered ["mcp/logging/set-level"]
        "`logging/setLevel` answered with an empty result";
    Server "ping" LEGACY Covered ["mcp/utilities/ping"]
        "`ping` answered with an empty result";
    Server "completion-complete" BOTH Covered ["mcp/completion/complete"]
        "fixture-free: completes the first argument of the first prompt that has one";
    // Tools.
    Server "tools-list" BOTH Covered ["mcp/tools/list"]
        "names, input schemas, unique names, pagination";
    Server "tools-call-simple-text" BOTH Covered ["mcp/fixtures/tools-call-simple-text", "mcp/tools/call"]
        "with `--fixtures conformance`: `test_simple_text` returns a text content; fixture-free, the target file's `[mcp] call` is checked against the schema";
    Server "tools-call-image" BOTH Covered ["mcp/fixtures/tools-call-image"]
        "with `--fixtures conformance`: `test_image_content` returns an image with `data` (base64) and `mimeType`";
    Server "tools-call-audio" BOTH Covered ["mcp/fixtures/tools-call-audio"]
        "with `--fixtures conformance`: `test_audio_content` returns audio/wav with `data` (base64)";
    Server "tools-call-embedded-resource" BOTH Covered ["mcp/fixtures/tools-call-embedded-resource"]
        "with `--fixtures conformance`: `test_embedded_resource` returns a resource with `uri`, `mimeType`, `text` or `blob`";
    Server "tools-call-mixed-content" BOTH Covered ["mcp/fixtures/tools-call-mixed-content"]
        "with `--fixtures conformance`: `test_multiple_content_types` returns text, image and resource contents";
    Server "tools-call-with-logging" LEGACY Covered ["mcp/fixtures/tools-call-with-logging", "mcp/capabilities/server-declared"]
        "with `--fixtures conformance`: after `logging/setLevel` debug, `test_tool_with_logging` sends 3 log notifications (within 200 ms of its result)";
    Server "tools-call-error" BOTH Covered ["mcp/fixtures/tools-call-error", "mcp/tools/execution-error"]
        "with `--fixtures conformance`: `test_error_handling` returns `isError: true` with a message; fixture-free, with `[mcp] failing` in the target file";
    Server "tools-call-with-progress" BOTH Covered ["mcp/fixtures/tools-call-with-progress", "mcp/utilities/progress"]
        "with `--fixtures conformance`: `test_tool_with_progress` sends 3 progress notifications for `progress-test-1`, not decreasing; fixture-free, with `[mcp] slow`: progress increases and stops at the result";
    Server "tools-call-sampling" LEGACY Covered ["mcp/fixtures/tools-call-sampling", "mcp/capabilities/client-declared"]
        "with `--fixtures conformance`, on a process whose client declared sampling, elicitation and roots: `test_sampling` sends `sampling/createMessage`, rpcspec answers, the tool's result has content";
    Server "tools-call-elicitation" LEGACY Covered ["mcp/fixtures/tools-call-elicitation", "mcp/capabilities/client-declared"]
        "with `--fixtures conformance`, on a process whose client declared sampling, elicitation and roots: `test_elicitation` sends `elicitation/create`, rpcspec accepts, the tool's result has content";
    Server "elicitation-sep1034-defaults" LEGACY Covered ["mcp/fixtures/elicitation-sep1034-defaults"]
        "with `--fixtures conformance`, on a process whose client declared sampling, elicitation and roots: the requested schema of `test_elicitation_sep1034_defaults` has the suite's default for a string, an integer, a number, an enum (one of its values) and a boolean";
    Server "elicitation-sep1330-enums" LEGACY Covered ["mcp/fixtures/elicitation-sep1330-enums"]
        "with `--fixtures conformance`, on a process whose client declared sampling, elicitation and roots: the requested schema of `test_elicitation_sep1330_enums` has the five SEP-1330 shapes: untitled and titled single, legacy `enumNames`, untitled and titled multi";
    Server "server-sse-multiple-streams" BOTH HttpOnly []
        "SSE streams of the Streamable HTTP transport";
    // Resources.
    Server "resources-list" BOTH Covered ["mcp/resources/list"]
        "the resource and template lists, paginated";
    Server "resources-read-text" BOTH Covered ["mcp/fixtures/resources-read-text", "mcp/resources/read"]
        "with `--fixtures conformance`: `test://static-text` has `uri`, `mimeType`, `text`; fixture-free, a listed resource of each MIME type is read and checked against the schema";
    Server "resources-read-binary" BOTH Covered ["mcp/fixtures/resources-read-binary", "mcp/resources/read"]
        "with `--fixtures conformance`: `test://static-binary` has `uri`, `mimeType`, `blob`; fixture-free, a listed resource of each MIME type is read, a `blob` checked to be base64";
    Server "resources-templates-read" BOTH Covered ["mcp/fixtures/resources-templates-read", "mcp/resources/templates-read"]
        "with `--fixtures conformance`: `test://template/123/data` reads as text holding 123; fixture-free, the first template of `{name}` variables, expanded with completed values, is read and checked against the schema";
    Server "resources-subscribe" LEGACY Covered ["mcp/resources/subscribe"]
        "fixture-free: with `subscribe` declared, `resources/subscribe` of a listed resource gets a result";
    Server "resources-unsubscribe" LEGACY Covered ["mcp/resources/subscribe"]
        "fixture-free: with `subscribe` declared, `resources/unsubscribe` after the subscription gets a result";
    Server "sep-2164-resource-not-found" MODERN Covered ["mcp/resources/unknown-uri"]
        "-32602 for an unknown resource (SHOULD), never an empty `contents` (MUST); `data.uri` is INFO (`mcp.resources.not-found-uri`): no sentence requires it, where the suite warns";
    // Prompts.
    Server "prompts-list" BOTH Covered ["mcp/prompts/list"]
        "the prompt list, paginated";
    Server "prompts-get-simple" BOTH Covered ["mcp/fixtures/prompts-get-simple", "mcp/prompts/get"]
        "with `--fixtures conformance`: `test_simple_prompt` has messages, each with `role` and `content`; fixture-free, every listed prompt is got and checked against the schema";
    Server "prompts-get-with-args" BOTH Covered ["mcp/fixtures/prompts-get-with-args", "mcp/prompts/get", "mcp/prompts/missing-argument"]
        "with `--fixtures conformance`: `test_prompt_with_arguments` puts testValue1 and testValue2 in its messages; fixture-free, prompts are got with their required arguments, and without one (-32602)";
    Server "prompts-get-embedded-resource" BOTH Covered ["mcp/fixtures/prompts-get-embedded-resource", "mcp/prompts/get"]
        "with `--fixtures conformance`: `test_prompt_with_embedded_resource` embeds a resource; fixture-free, embedded resources in any prompt are checked against the schema";
    Server "prompts-get-with-image" BOTH Covered ["mcp/fixtures/prompts-get-with-image", "mcp/prompts/get"]
        "with `--fixtures conformance`: `test_prompt_with_image` holds an image with `data` and `mimeType`; fixture-free, images in any prompt are checked against the schema, `data` to be base64";
    Server "dns-rebinding-protection" BOTH HttpOnly []
        "`Host` and `Origin` headers of the Streamable HTTP transport";
    Server "caching" MODERN Covered ["mcp/schema/messages", "mcp/resources/read"]
        "the 2026-07-28 schema requires `ttlMs` (an integer, 0 or more) and `cacheScope` (`public` or `private`) on every list result and on `resources/read`, all of which the checks ask for";
    // Input required (SEP-2322).
    Server "input-required-result-basic-elicitation" MODERN Covered ["mcp/fixtures/input-required-result-basic-elicitation"]
        "with `--fixtures conformance`: `test_input_required_result_elicitation` answers an InputRequiredResult asking `user_name` by `elicitation/create`, then a complete result with content once answered";
    Server "input-required-result-basic-sampling" MODERN Covered ["mcp/fixtures/input-required-result-basic-sampling"]
        "with `--fixtures conformance`: the first input request of `test_input_required_result_sampling` is `sampling/createMessage`; answered, it completes";
    Server "input-required-result-basic-list-roots" MODERN Covered ["mcp/fixtures/input-required-result-basic-list-roots"]
        "with `--fixtures conformance`: the first input request of `test_input_required_result_list_roots` is `roots/list`; answered, it completes";
    Server "input-required-result-request-state" MODERN Covered ["mcp/fixtures/input-required-result-request-state"]
        "with `--fixtures conformance`: `test_input_required_result_request_state` gives a `requestState` string and completes when it is echoed";
    Server "input-required-result-multiple-input-requests" MODERN Covered ["mcp/fixtures/input-required-result-multiple-input-requests"]
        "with `--fixtures conformance`: `test_input_required_result_multiple_inputs` asks elicitation, sampling and roots at once; all answered, it completes";
    Server "input-required-result-multi-round" MODERN Covered ["mcp/fixtures/input-required-result-multi-round"]
        "with `--fixtures conformance`: `test_input_required_result_multi_round` asks, asks again with a new `requestState`, then completes";
    Server "input-required-result-missing-input-response" MODERN Covered ["mcp/fixtures/input-required-result-missing-input-response"]
        "with `--fixtures conformance`: an answer under an unknown key gets the input asked again (the suite's WARNING: `mcp.fixture.recommended`, SHOULD)";
    Server "input-required-result-non-tool-request" MODERN Covered ["mcp/fixtures/input-required-result-non-tool-request"]
        "with `--fixtures conformance`: `prompts/get` of `test_input_required_result_prompt` asks for input, then gets `messages`";
    Server "input-required-result-result-type" MODERN Covered ["mcp/fixtures/input-required-result-result-type"]
        "with `--fixtures conformance`: the InputRequiredResult says `resultType: \"input_required\"`; every other result's `resultType` by the schema";
    Server "input-required-result-unsupported-methods" MODERN Covered ["mcp/fixtures/input-required-result-unsupported-methods"]
        "fixture-free at 2026-07-28: `tools/list` and `prompts/list` are never answered with an InputRequiredResult";
    Server "input-required-result-tampered-state" MODERN Covered ["mcp/fixtures/input-required-result-tampered-state"]
        "with `--fixtures conformance`: a `requestState` with `-TAMPERED` appended gets a JSON-RPC error";
    Server "input-required-result-capability-check" MODERN Covered ["mcp/fixtures/input-required-result-capability-check"]
        "with `--fixtures conformance`: a client that declared only `sampling` is asked no `elicitation/create` by `test_input_required_result_capabilities`";
    Server "input-required-result-ignore-extra-params" MODERN Covered ["mcp/fixtures/input-required-result-ignore-extra-params"]
        "with `--fixtures conformance`: unknown keys beside `user_name` in `inputResponses` are ignored (WARNING in the suite: SHOULD)";
    Server "input-required-result-validate-input" MODERN Covered ["mcp/fixtures/input-required-result-validate-input"]
        "with `--fixtures conformance`: a number for `user_name`, and `inputResponses: null`, are not taken for answers (WARNING in the suite: SHOULD)";

    // Client leg.
    Client "initialize" LEGACY Covered ["client/mcp/session/baseline", "client/mcp/session/version-counter-offer"]
        "the client's `initialize`, `notifications/initialized`, then its requests";
    Client "tools_call" BOTH Covered ["client/mcp/session/baseline"]
        "the client lists and calls the reference server's tools";
    Client "elicitation-sep1034-client-defaults" LEGACY Covered ["client/mcp/session/elicitation-defaults"]
        "`elicitation/create` with a default for a string, an integer, a number, an enum and a boolean, to a client that declared `elicitation`: accepted as presented, each field present and of its type (SHOULD: the specification's sentence is one, and binds clients that support defaults: one that fills in none is noted, where the suite fails it; the number's default is whole, as 2025-11-25's schema.json takes integer `content` values only)";
    Client "request-metadata" MODERN Covered ["client/mcp/modern/version-unsupported", "client/mcp/session/baseline"]
        "`_meta` with the version and capabilities on every request (the schema), `clientInfo` on every request (`client.mcp-client-info`, SHOULD, in every scenario), and after -32022 a request in a listed version (`client.mcp-version-retry`, SHOULD; a WARNING in the suite)";
    Client "sep-2322-client-request-state" MODERN Covered ["client/mcp/modern/input-required", "client/mcp/modern/input-required-no-state", "client/mcp/modern/result-type-omitted"]
        "an InputRequiredResult for the `echo` call: `requestState` echoed exactly, none when none was given, a new id, the input request answered under its key, neither field on any other request; results without `resultType` taken as complete. The suite's `test_mrtr_unrelated` call between the rounds is every other call of the series here";
    Client "json-schema-ref-no-deref" MODERN Covered ["client/mcp/modern/network-ref"]
        "a listed tool's input schema `$ref`s an HTTP URL on 127.0.0.1 where a canary listens: any connection to it is a FAIL";
    Client "sse-retry" LEGACY HttpOnly [] "SSE reconnection";
    Client "http-standard-headers" MODERN HttpOnly [] "HTTP headers";
    Client "http-custom-headers" MODERN HttpOnly [] "HTTP headers";
    Client "http-invalid-tool-headers" MODERN HttpOnly [] "HTTP headers";
}

/// The client leg's authorization scenarios (`auth/...`): HTTP only, each
/// with the revisions that require it.
pub static AUTH: &[(&str, &[&str])] = &[
    ("auth/metadata-default", BOTH),
    ("auth/metadata-var1", BOTH),
    ("auth/metadata-var2", BOTH),
    ("auth/metadata-var3", BOTH),
    ("auth/basic-cimd", BOTH),
    ("auth/scope-from-www-authenticate", BOTH),
    ("auth/scope-from-scopes-supported", BOTH),
    ("auth/scope-omitted-when-undefined", BOTH),
    ("auth/scope-step-up", BOTH),
    ("auth/scope-retry-limit", BOTH),
    ("auth/token-endpoint-auth-basic", BOTH),
    ("auth/token-endpoint-auth-post", BOTH),
    ("auth/token-endpoint-auth-none", BOTH),
    ("auth/pre-registration", BOTH),
    ("auth/resource-mismatch", MODERN),
    ("auth/offline-access-scope", MODERN),
    ("auth/offline-access-not-supported", MODERN),
    ("auth/authorization-server-migration", MODERN),
    ("auth/iss-supported", MODERN),
    ("auth/iss-not-advertised", MODERN),
    ("auth/iss-supported-missing", MODERN),
    ("auth/iss-wrong-issuer", MODERN),
    ("auth/iss-unexpected", MODERN),
    ("auth/iss-normalized", MODERN),
    ("auth/metadata-issuer-mismatch", MODERN),
];

/// The counts of one (leg, revision): required, HTTP-only, covered,
/// partly, not.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Scenarios the requirement file lists.
    pub required: usize,
    /// Of them, those that need HTTP.
    pub http_only: usize,
    /// Covered by rpcspec.
    pub covered: usize,
    /// Partly covered.
    pub partly: usize,
    /// Not covered.
    pub not: usize,
}

impl Tally {
    /// The transport-agnostic scenarios.
    pub fn agnostic(&self) -> usize {
        self.required - self.http_only
    }

    /// Covered, in percent of the transport-agnostic ones.
    pub fn percent(&self) -> f64 {
        if self.agnostic() == 0 {
            return 100.0;
        }
        100.0 * self.covered as f64 / self.agnostic() as f64
    }
}

/// The counts of `leg` at `revision`.
pub fn tally(leg: Leg, revision: &str) -> Tally {
    let mut t = Tally::default();
    for s in SCENARIOS
        .iter()
        .filter(|s| s.leg == leg && s.revisions.contains(&revision))
    {
        t.required += 1;
        match s.coverage {
            Coverage::HttpOnly => t.http_only += 1,
            Coverage::Covered => t.covered += 1,
            Coverage::Partly => t.partly += 1,
            Coverage::Not => t.not += 1,
        }
    }
    if leg == Leg::Client {
        let auth = AUTH.iter().filter(|(_, r)| r.contains(&revision)).count();
        t.required += auth;
        t.http_only += auth;
    }
    t
}
