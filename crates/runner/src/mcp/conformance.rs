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
    Server "tools-call-simple-text" BOTH Partly ["mcp/tools/call"]
        "the target file's safe call is checked against the schema; missing: a call of `test_simple_text` and its text content";
    Server "tools-call-image" BOTH Not []
        "needs: a call of `test_image_content`, an image content with `data` and `mimeType`";
    Server "tools-call-audio" BOTH Not []
        "needs: a call of `test_audio_content`, an audio content with `data` and `mimeType`";
    Server "tools-call-embedded-resource" BOTH Not []
        "needs: a call of `test_embedded_resource`, a resource content with `uri` and text";
    Server "tools-call-mixed-content" BOTH Not []
        "needs: a call of `test_multiple_content_types`, text, image and resource contents";
    Server "tools-call-with-logging" LEGACY Not []
        "needs: a call of `test_tool_with_logging`, log notifications during the call";
    Server "tools-call-error" BOTH Covered ["mcp/tools/execution-error"]
        "with `[mcp] failing` in the target file: a failing tool answers with `isError: true`";
    Server "tools-call-with-progress" BOTH Covered ["mcp/utilities/progress"]
        "with `[mcp] slow` in the target file: progress increases, names the token, stops at the result";
    Server "tools-call-sampling" LEGACY Not []
        "needs: rpcspec declaring `sampling` and answering `sampling/createMessage` during `test_sampling`";
    Server "tools-call-elicitation" LEGACY Not []
        "needs: rpcspec declaring `elicitation` and answering `elicitation/create` during `test_elicitation`";
    Server "elicitation-sep1034-defaults" LEGACY Not []
        "needs: the defaults of `test_elicitation_sep1034_defaults`'s requested schema";
    Server "elicitation-sep1330-enums" LEGACY Not []
        "needs: the enum shapes of `test_elicitation_sep1330_enums`'s requested schema";
    Server "server-sse-multiple-streams" BOTH HttpOnly []
        "SSE streams of the Streamable HTTP transport";
    // Resources.
    Server "resources-list" BOTH Covered ["mcp/resources/list"]
        "the resource and template lists, paginated";
    Server "resources-read-text" BOTH Not []
        "needs: a read of a text resource, `contents` with `uri` and `text`";
    Server "resources-read-binary" BOTH Not []
        "needs: a read of a binary resource, `contents` with `uri` and base64 `blob`";
    Server "resources-templates-read" BOTH Not []
        "needs: a read of a template's expansion";
    Server "resources-subscribe" LEGACY Not []
        "needs: `resources/subscribe` when `subscribe` is declared";
    Server "resources-unsubscribe" LEGACY Not []
        "needs: `resources/unsubscribe` when `subscribe` is declared";
    Server "sep-2164-resource-not-found" MODERN Partly ["mcp/resources/unknown-uri"]
        "-32602 (not an empty `contents`) for an unknown resource; missing: `data.uri` in the error";
    // Prompts.
    Server "prompts-list" BOTH Covered ["mcp/prompts/list"]
        "the prompt list, paginated";
    Server "prompts-get-simple" BOTH Not []
        "needs: `prompts/get` of a prompt without arguments, its messages";
    Server "prompts-get-with-args" BOTH Not []
        "needs: `prompts/get` with arguments, the arguments in its messages";
    Server "prompts-get-embedded-resource" BOTH Not []
        "needs: `prompts/get` of a prompt whose message embeds a resource";
    Server "prompts-get-with-image" BOTH Not []
        "needs: `prompts/get` of a prompt whose message holds an image";
    Server "dns-rebinding-protection" BOTH HttpOnly []
        "`Host` and `Origin` headers of the Streamable HTTP transport";
    Server "caching" MODERN Partly ["mcp/schema/messages"]
        "`ttlMs` and `cacheScope` are checked against the schema where present; missing: their presence on the cacheable results";
    // Input required (SEP-2322).
    Server "input-required-result-basic-elicitation" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-basic-sampling" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-basic-list-roots" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-request-state" MODERN Not [] "needs: `requestState` echoed verbatim";
    Server "input-required-result-multiple-input-requests" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-multi-round" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-missing-input-response" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-non-tool-request" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-result-type" MODERN Partly ["mcp/schema/messages"]
        "`resultType` is checked against the schema on every result; missing: on an InputRequiredResult";
    Server "input-required-result-unsupported-methods" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-tampered-state" MODERN Not [] "needs: a tampered `requestState` refused";
    Server "input-required-result-capability-check" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-ignore-extra-params" MODERN Not [] "needs: InputRequiredResult round trips";
    Server "input-required-result-validate-input" MODERN Not [] "needs: InputRequiredResult round trips";

    // Client leg.
    Client "initialize" LEGACY Covered ["client/mcp/session/baseline", "client/mcp/session/version-counter-offer"]
        "the client's `initialize`, `notifications/initialized`, then its requests";
    Client "tools_call" BOTH Covered ["client/mcp/session/baseline"]
        "the client lists and calls the reference server's tools";
    Client "elicitation-sep1034-client-defaults" LEGACY Not []
        "needs: an `elicitation/create` with defaults, the client's answer filling them";
    Client "request-metadata" MODERN Partly ["client/mcp/session/baseline"]
        "missing: `clientInfo` in every request's `_meta`; a retry after -32022";
    Client "sep-2322-client-request-state" MODERN Not []
        "needs: an InputRequiredResult whose `requestState` the client echoes";
    Client "json-schema-ref-no-deref" MODERN Not []
        "needs: a tool schema with a network `$ref` the client must not fetch";
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
