//! The reference server driven without a process, each revision: every
//! message it writes in these tests is checked against its revision's
//! official JSON Schema (the definition its method names), then against
//! what the test expects.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Quirk, Server};
use crate::dialects::mcp::Revision;

const LEGACY: &[Revision] = &[Revision::V2025_06_18, Revision::V2025_11_25];
const MODERN: Revision = Revision::V2026_07_28;

type Validators = HashMap<(Revision, String), Arc<jsonschema::Validator>>;

/// The validator of the definition `name` of `revision`'s schema,
/// compiled once.
fn validator(revision: Revision, name: &str) -> Arc<jsonschema::Validator> {
    static CACHE: LazyLock<Mutex<Validators>> = LazyLock::new(Default::default);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry((revision, name.to_owned()))
        .or_insert_with(|| {
            let schema: Value = serde_json::from_str(revision.schema_text()).unwrap();
            let root = match schema.get("$defs") {
                Some(defs) => json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "$ref": format!("#/$defs/{name}"),
                    "$defs": defs,
                }),
                None => json!({
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "$ref": format!("#/definitions/{name}"),
                    "definitions": schema["definitions"],
                }),
            };
            Arc::new(jsonschema::validator_for(&root).unwrap())
        })
        .clone()
}

#[track_caller]
fn valid(revision: Revision, name: &str, value: &Value) {
    let v = validator(revision, name);
    let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "{revision} {name}: {value}\n{}",
        errors.join("\n")
    );
}

/// The definition of the result of `method` (and of its response).
fn result_def(method: &str) -> &'static str {
    match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            "EmptyResult"
        }
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        other => panic!("no result definition for {other}"),
    }
}

/// A client talking to a [`Server`] on a clock of its own.
struct Client {
    server: Server,
    now: Instant,
    /// The revision a request without `_meta` is read in.
    revision: Revision,
    /// Each request's id (as text) → its method and revision.
    sent: HashMap<String, (String, Revision)>,
    next: u64,
}

impl Client {
    fn new(server: Server, revision: Revision) -> Client {
        Client {
            server,
            now: Instant::now(),
            revision,
            sent: HashMap::new(),
            next: 1,
        }
    }

    /// A client of `served`, speaking `revision`: the legacy ones
    /// initialized (declaring `capabilities`), the modern one as is.
    fn of(served: &[Revision], revision: Revision, capabilities: Value) -> Client {
        let mut c = Client::new(Server::new(served), revision);
        if revision.has_initialize() {
            let r = c.call(
                "initialize",
                json!({"protocolVersion": revision.as_str(), "capabilities": capabilities,
                       "clientInfo": {"name": "t", "version": "1"}}),
            );
            assert_eq!(r["result"]["protocolVersion"], revision.as_str());
            assert!(
                c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                    .is_empty()
            );
        }
        c
    }

    /// Writes one message; what the server writes back, each validated.
    fn send(&mut self, message: Value) -> Vec<Value> {
        if let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) {
            let revision = message["params"]["_meta"][super::PROTOCOL_VERSION]
                .as_str()
                .and_then(|v| v.parse().ok())
                .unwrap_or(self.revision);
            self.sent
                .insert(id.to_string(), (method.to_owned(), revision));
        }
        let lines = self.server.on_line(&message.to_string(), self.now);
        self.read(lines)
    }

    /// Moves the clock on by `ms`; what the server then writes.
    fn wait(&mut self, ms: u64) -> Vec<Value> {
        self.now += Duration::from_millis(ms);
        let lines = self.server.on_tick(self.now);
        self.read(lines)
    }

    fn read(&self, lines: Vec<String>) -> Vec<Value> {
        lines.iter().map(|l| self.check(l)).collect()
    }

    /// One line the server wrote, checked against the schema.
    fn check(&self, line: &str) -> Value {
        assert!(!line.contains('\n'), "{line}");
        let message: Value = serde_json::from_str(line).unwrap();
        let (method, revision) = message
            .get("id")
            .and_then(|id| self.sent.get(&id.to_string()))
            .cloned()
            .unwrap_or_else(|| (String::new(), self.revision));
        let old = revision == Revision::V2025_06_18;
        if let Some(result) = message.get("result") {
            valid(
                revision,
                if old {
                    "JSONRPCResponse"
                } else {
                    "JSONRPCResultResponse"
                },
                &message,
            );
            valid(revision, result_def(&method), result);
        } else if let Some(error) = message.get("error") {
            if message.get("id").is_some() || !old {
                valid(
                    revision,
                    if old {
                        "JSONRPCError"
                    } else {
                        "JSONRPCErrorResponse"
                    },
                    &message,
                );
            }
            if error["code"] == -32022 {
                // A modern error, whichever version was asked for.
                valid(MODERN, "UnsupportedProtocolVersionError", &message);
            }
        } else if let Some(name) = message["method"].as_str() {
            let def = match name {
                "notifications/progress" => "ProgressNotification",
                "notifications/message" => "LoggingMessageNotification",
                "roots/list" => "ListRootsRequest",
                "sampling/createMessage" => "CreateMessageRequest",
                other => panic!("the server sent {other}"),
            };
            let envelope = if message.get("id").is_some() {
                "JSONRPCRequest"
            } else {
                "JSONRPCNotification"
            };
            valid(revision, envelope, &message);
            valid(revision, def, &message);
        } else {
            panic!("not a message: {line}");
        }
        message
    }

    /// Sends a request with a fresh id; its one answer.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let replies = self.request(method, params);
        assert_eq!(replies.len(), 1, "{method}: {replies:?}");
        replies.into_iter().next().unwrap()
    }

    /// Sends a request with a fresh id (modern clients put their `_meta`
    /// in); everything written back.
    fn request(&mut self, method: &str, mut params: Value) -> Vec<Value> {
        let id = self.next;
        self.next += 1;
        if !self.revision.has_initialize() && params.get("_meta").is_none() {
            params["_meta"] = meta(self.revision);
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    fn tool(&mut self, name: &str, arguments: Value) -> Value {
        self.call("tools/call", json!({"name": name, "arguments": arguments}))
    }
}

fn meta(revision: Revision) -> Value {
    json!({super::PROTOCOL_VERSION: revision.as_str(), super::CLIENT_CAPABILITIES: {}})
}

fn code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {reply}"))
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap()
}

/// Every revision, as a client of the dual-era server and of a server of
/// that revision alone.
fn clients(capabilities: Value) -> Vec<Client> {
    Revision::ALL
        .iter()
        .flat_map(|r| {
            [
                Client::of(Revision::ALL, *r, capabilities.clone()),
                Client::of(&[*r], *r, capabilities.clone()),
            ]
        })
        .collect()
}

#[test]
fn legacy_handshake() {
    for &r in LEGACY {
        for served in [Revision::ALL, &[r][..]] {
            let mut c = Client::new(Server::new(served), r);
            // Before initialize: ping only.
            assert_eq!(c.call("ping", json!({}))["result"], json!({}));
            let before = c.call("tools/list", json!({}));
            assert_eq!(
                code(&before),
                if served.len() > 1 { -32602 } else { -32600 }
            );
            let init = c.call(
                "initialize",
                json!({"protocolVersion": r.as_str(), "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            );
            assert_eq!(init["result"]["protocolVersion"], r.as_str());
            assert_eq!(init["result"]["serverInfo"]["name"], "rpcspec-reference");
            for cap in ["tools", "resources", "prompts", "completions", "logging"] {
                assert!(init["result"]["capabilities"].get(cap).is_some(), "{cap}");
            }
            // Answered, not yet initialized: ping only.
            assert_eq!(code(&c.call("tools/list", json!({}))), -32600);
            assert_eq!(c.call("ping", json!({}))["result"], json!({}));
            assert!(
                c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                    .is_empty()
            );
            assert!(c.call("tools/list", json!({}))["result"]["tools"].is_array());
            assert_eq!(code(&c.call("initialize", init["result"].clone())), -32600);
            assert_eq!(code(&c.call("no/such/method", json!({}))), -32601);
            // Declared (`subscribe: true`) and answered; nothing changes.
            for method in ["resources/subscribe", "resources/unsubscribe"] {
                let reply = c.call(method, json!({"uri": "rpcspec://static/1"}));
                assert_eq!(reply["result"], json!({}), "{method}");
            }
            // server/discover is no legacy method.
            assert_eq!(code(&c.call("server/discover", json!({}))), -32601);
        }
    }
}

#[test]
fn an_unknown_version_gets_the_newest_legacy_one() {
    for (served, answer) in [
        (Revision::ALL, "2025-11-25"),
        (&[Revision::V2025_06_18][..], "2025-06-18"),
    ] {
        for asked in ["2024-11-05", "2026-07-28", "1900-01-01"] {
            let mut c = Client::new(Server::new(served), Revision::V2025_06_18);
            let init = c.call("initialize", json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
            assert_eq!(init["result"]["protocolVersion"], answer, "{asked}");
        }
    }
}

#[test]
fn modern_discover_and_versions() {
    for served in [Revision::ALL, &[MODERN][..]] {
        let mut c = Client::new(Server::new(served), MODERN);
        let d = c.call("server/discover", json!({}));
        let supported: Vec<&str> = served.iter().rev().map(|r| r.as_str()).collect();
        assert_eq!(d["result"]["supportedVersions"], json!(supported));
        assert_eq!(d["result"]["resultType"], "complete");
        assert_eq!(
            d["result"]["_meta"][super::SERVER_INFO]["name"],
            "rpcspec-reference"
        );
        assert!(d["result"]["ttlMs"].is_u64() && d["result"]["cacheScope"] == "public");
        // An unknown version: -32022 with what is supported.
        let e = c.call("tools/list", json!({"_meta": {super::PROTOCOL_VERSION: "1900-01-01", super::CLIENT_CAPABILITIES: {}}}));
        assert_eq!(code(&e), -32022);
        assert_eq!(
            e["error"]["data"],
            json!({"supported": supported, "requested": "1900-01-01"})
        );
        // The required fields missing: -32602.
        let e = c.call(
            "tools/list",
            json!({"_meta": {super::PROTOCOL_VERSION: "2026-07-28"}}),
        );
        assert_eq!(code(&e), -32602);
        let e = c.call(
            "tools/list",
            json!({"_meta": {super::CLIENT_CAPABILITIES: {}}}),
        );
        assert_eq!(code(&e), -32602);
        let e = c.call(
            "tools/list",
            json!({"_meta": {super::PROTOCOL_VERSION: 20260728, super::CLIENT_CAPABILITIES: {}}}),
        );
        assert_eq!(code(&e), -32602);
        // Methods 2026-07-28 removed.
        for removed in ["ping", "logging/setLevel", "resources/subscribe"] {
            assert_eq!(
                code(&c.call(removed, json!({"level": "info"}))),
                -32601,
                "{removed}"
            );
        }
        // An unknown log level.
        let mut m = meta(MODERN);
        m[super::LOG_LEVEL] = json!("loud");
        assert_eq!(code(&c.call("tools/list", json!({"_meta": m}))), -32602);
    }
    // A modern-only server refuses initialize, naming its versions.
    let mut c = Client::new(Server::new(&[MODERN]), MODERN);
    let e = c.send(json!({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    assert_eq!(e[0]["error"]["code"], -32022);
    assert_eq!(e[0]["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert!(
        e[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2026-07-28")
    );
    let e = c.send(json!({"jsonrpc": "2.0", "id": "n", "method": "tools/list"}));
    assert_eq!(e[0]["error"]["code"], -32602);
    let e = c.send(json!({"jsonrpc": "2.0", "id": "m", "method": "no/such"}));
    assert_eq!(e[0]["error"]["code"], -32601);
}

#[test]
fn a_dual_era_server_serves_both_eras_at_once() {
    let mut c = Client::of(Revision::ALL, Revision::V2025_11_25, json!({}));
    let legacy = c.call("tools/list", json!({}));
    assert!(legacy["result"].get("resultType").is_none());
    let modern = c.call("tools/list", json!({"_meta": meta(MODERN)}));
    assert_eq!(modern["result"]["resultType"], "complete");
    let names = |r: &Value| {
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&legacy),
        ["echo", "add", "fail", "slow", "log", "roots"]
    );
    assert_eq!(names(&modern), ["echo", "add", "fail", "slow", "log"]);
    // A legacy version in _meta, other than the session's: unsupported.
    let e = c.call("tools/list", json!({"_meta": meta(Revision::V2025_06_18)}));
    assert_eq!(code(&e), -32022);
}

#[test]
fn tools() {
    for mut c in clients(json!({})) {
        let r = c.revision;
        assert_eq!(text(&c.tool("echo", json!({"text": "hi"}))), "hi");
        assert_eq!(text(&c.tool("add", json!({"a": 2, "b": 40}))), "42");
        assert_eq!(text(&c.tool("add", json!({"a": 0.5, "b": 1}))), "1.5");
        let fail = c.tool("fail", json!({}));
        assert_eq!(fail["result"]["isError"], true);
        let unknown = c.tool("nope", json!({}));
        assert_eq!(code(&unknown), -32602);
        assert!(
            unknown["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nope")
        );
        // Arguments that break the input schema.
        let bad = c.tool("echo", json!({"text": 5}));
        if r == Revision::V2025_06_18 {
            assert_eq!(code(&bad), -32602, "{r}");
        } else {
            assert_eq!(bad["result"]["isError"], true, "{r}");
        }
        // A request that breaks CallToolRequest: always a protocol error.
        assert_eq!(
            code(&c.call("tools/call", json!({"arguments": {}}))),
            -32602
        );
        assert_eq!(
            code(&c.call("tools/call", json!({"name": "echo", "arguments": [1]}))),
            -32602
        );
        if r.has_initialize() {
            assert_eq!(code(&c.call("tools/list", json!([1]))), -32602);
        }
        // One page, so any cursor is invalid.
        assert_eq!(code(&c.call("tools/list", json!({"cursor": "x"}))), -32602);
        let list = c.call("tools/list", json!({}));
        if !r.has_initialize() {
            assert_eq!(list["result"]["resultType"], "complete");
            assert_eq!(list["result"]["ttlMs"], 60_000);
            assert_eq!(
                c.tool("echo", json!({"text": "x"}))["result"]["resultType"],
                "complete"
            );
            assert!(
                c.tool("echo", json!({"text": "x"}))["result"]
                    .get("ttlMs")
                    .is_none()
            );
            assert_eq!(
                code(&c.tool("roots", json!({}))),
                -32602,
                "no roots tool in {r}"
            );
        }
    }
}

#[test]
fn resources_pagination_walk() {
    for mut c in clients(json!({})) {
        let mut uris = Vec::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = c.call("resources/list", params);
            pages += 1;
            for res in page["result"]["resources"].as_array().unwrap() {
                uris.push(res["uri"].as_str().unwrap().to_owned());
            }
            match page["result"].get("nextCursor") {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
            assert!(pages < 10, "the list must end");
        }
        assert_eq!(pages, 3);
        assert_eq!(
            uris,
            (1..=5)
                .map(|n| format!("rpcspec://static/{n}"))
                .collect::<Vec<_>>()
        );
        for bad in [json!("nonsense"), json!(""), json!(5)] {
            assert_eq!(
                code(&c.call("resources/list", json!({ "cursor": bad }))),
                -32602
            );
        }
        let t = c.call("resources/templates/list", json!({}));
        assert_eq!(
            t["result"]["resourceTemplates"][0]["uriTemplate"],
            "rpcspec://static/{n}"
        );
        let read = c.call("resources/read", json!({"uri": "rpcspec://static/3"}));
        assert_eq!(
            read["result"]["contents"][0]["text"],
            "This is static resource 3."
        );
        let missing = c.call("resources/read", json!({"uri": "rpcspec://static/9"}));
        assert_eq!(code(&missing), c.revision.resource_not_found());
        assert_eq!(missing["error"]["data"]["uri"], "rpcspec://static/9");
        assert_eq!(code(&c.call("resources/read", json!({}))), -32602);
    }
}

#[test]
fn prompts_and_completion() {
    for mut c in clients(json!({})) {
        let list = c.call("prompts/list", json!({}));
        assert_eq!(list["result"]["prompts"][0]["name"], "greet");
        let got = c.call(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        );
        assert_eq!(
            got["result"]["messages"][0]["content"]["text"],
            "Please greet Ada."
        );
        assert_eq!(
            code(&c.call("prompts/get", json!({"name": "nope"}))),
            -32602
        );
        assert_eq!(
            code(&c.call("prompts/get", json!({"name": "greet"}))),
            -32602
        );
        let done = c.call(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "Al"}}),
        );
        assert_eq!(
            done["result"]["completion"]["values"],
            json!(["Alan", "Alice"])
        );
        let done = c.call(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "rpcspec://static/{n}"}, "argument": {"name": "n", "value": ""}}),
        );
        assert_eq!(
            done["result"]["completion"]["values"],
            json!(["1", "2", "3", "4", "5"])
        );
        let bad = c.call(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "name", "value": ""}}),
        );
        assert_eq!(code(&bad), -32602);
    }
}

#[test]
fn progress_increases_and_ends_before_the_result() {
    for mut c in clients(json!({})) {
        let mut params =
            json!({"name": "slow", "arguments": {"ms": 400}, "_meta": {"progressToken": "tok"}});
        if !c.revision.has_initialize() {
            let mut m = meta(c.revision);
            m["progressToken"] = json!("tok");
            params["_meta"] = m;
        }
        assert!(c.request("tools/call", params).is_empty());
        assert_eq!(
            c.server.next_due(),
            Some(c.now + Duration::from_millis(100))
        );
        let mut seen = c.wait(150);
        assert_eq!(seen.len(), 1);
        seen.extend(c.wait(1000));
        assert_eq!(c.server.next_due(), None);
        let (last, progress) = seen.split_last().unwrap();
        assert_eq!(text(last), "slept 400 ms");
        let values: Vec<f64> = progress
            .iter()
            .map(|p| {
                assert_eq!(p["params"]["progressToken"], "tok");
                p["params"]["progress"].as_f64().unwrap()
            })
            .collect();
        assert_eq!(values, [1.0, 2.0, 3.0, 4.0]);
        // Without a token: the result alone.
        assert!(c.tool_later("slow", json!({"ms": 10})).is_empty());
        let r = c.wait(10);
        assert_eq!(r.len(), 1);
        assert_eq!(text(&r[0]), "slept 10 ms");
    }
}

impl Client {
    /// A tools/call that answers later: what it writes at once.
    fn tool_later(&mut self, name: &str, arguments: Value) -> Vec<Value> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }
}

#[test]
fn a_cancelled_call_says_nothing_more() {
    for mut c in clients(json!({})) {
        let mut params =
            json!({"name": "slow", "arguments": {"ms": 400}, "_meta": {"progressToken": 7}});
        if !c.revision.has_initialize() {
            let mut m = meta(c.revision);
            m["progressToken"] = json!(7);
            params["_meta"] = m;
        }
        c.send(json!({"jsonrpc": "2.0", "id": "slow-1", "method": "tools/call", "params": params}));
        assert_eq!(c.wait(100).len(), 1);
        // An unknown id, and the same id as a number: ignored.
        for other in [json!("other"), json!(1)] {
            assert!(c.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": other}})).is_empty());
        }
        assert!(c.server.next_due().is_some());
        assert!(c.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow-1", "reason": "enough"}})).is_empty());
        assert_eq!(c.server.next_due(), None);
        assert!(c.wait(1000).is_empty());
        // Still serving.
        assert_eq!(text(&c.tool("echo", json!({"text": "after"}))), "after");
    }
}

#[test]
fn legacy_log_levels() {
    for &r in LEGACY {
        let mut c = Client::of(&[r], r, json!({}));
        let log = |c: &mut Client, level: &str| {
            c.request(
                "tools/call",
                json!({"name": "log", "arguments": {"level": level, "message": "m"}}),
            )
        };
        // No level set: every level.
        let out = log(&mut c, "debug");
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[0]["params"],
            json!({"level": "debug", "logger": "rpcspec-reference", "data": "m"})
        );
        assert_eq!(
            c.call("logging/setLevel", json!({"level": "warning"}))["result"],
            json!({})
        );
        assert_eq!(log(&mut c, "info").len(), 1);
        assert_eq!(log(&mut c, "warning").len(), 2);
        assert_eq!(log(&mut c, "emergency").len(), 2);
        assert_eq!(
            code(&c.call("logging/setLevel", json!({"level": "loud"}))),
            -32602
        );
        assert_eq!(code(&c.call("logging/setLevel", json!({}))), -32602);
        let bad = c.tool("log", json!({"level": "loud", "message": "m"}));
        assert!(bad.get("error").is_some() || bad["result"]["isError"] == true);
    }
}

#[test]
fn modern_logs_only_when_the_request_asks() {
    let mut c = Client::of(&[MODERN], MODERN, json!({}));
    let args = |level: &str| json!({"name": "log", "arguments": {"level": level, "message": "m"}});
    assert_eq!(c.request("tools/call", args("emergency")).len(), 1);
    let mut params = args("info");
    let mut m = meta(MODERN);
    m[super::LOG_LEVEL] = json!("notice");
    params["_meta"] = m.clone();
    assert_eq!(c.request("tools/call", params).len(), 1);
    let mut params = args("error");
    params["_meta"] = m;
    let out = c.request("tools/call", params);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0]["method"], "notifications/message");
}

#[test]
fn roots_only_from_a_client_that_declared_them() {
    for &r in LEGACY {
        let mut c = Client::of(&[r], r, json!({}));
        let no = c.tool("roots", json!({}));
        assert_eq!(no["result"]["isError"], true);
        let mut c = Client::of(&[r], r, json!({"roots": {"listChanged": true}}));
        let asked = c.tool_later("roots", json!({}));
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0]["method"], "roots/list");
        assert_eq!(asked[0]["id"], "srv-1");
        let asked_again = c.tool_later("roots", json!({}));
        assert_eq!(asked_again[0]["id"], "srv-2");
        let answer = c.send(json!({"jsonrpc": "2.0", "id": "srv-2", "result": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}}));
        assert_eq!(answer[0]["id"], 3);
        assert!(text(&answer[0]).contains("file:///tmp"));
        let answer = c
            .send(json!({"jsonrpc": "2.0", "id": "srv-1", "error": {"code": -1, "message": "no"}}));
        assert_eq!(answer[0]["result"]["isError"], true);
        // A reply to nothing asked: ignored.
        assert!(
            c.send(json!({"jsonrpc": "2.0", "id": "srv-9", "result": {}}))
                .is_empty()
        );
    }
}

#[test]
fn lines_that_are_no_request() {
    for mut c in clients(json!({})) {
        let lines = c.server.on_line("{not json", c.now);
        assert_eq!(
            serde_json::from_str::<Value>(&lines[0]).unwrap()["error"]["code"],
            -32700
        );
        let lines = c
            .server
            .on_line(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, c.now);
        assert_eq!(
            serde_json::from_str::<Value>(&lines[0]).unwrap()["error"]["code"],
            -32600
        );
        let lines = c
            .server
            .on_line(r#"{"jsonrpc":"2.0","id":"x","method":5}"#, c.now);
        assert_eq!(
            lines,
            [r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Invalid Request"}}"#]
        );
        assert_eq!(c.server.on_unreadable().len(), 1);
        // Unknown notifications: nothing.
        assert!(
            c.send(json!({"jsonrpc": "2.0", "method": "notifications/whatever"}))
                .is_empty()
        );
    }
}

/// Each quirk changes what the server writes where its mutant's bug is.
#[test]
fn quirks_show_their_bug() {
    let legacy = |q: Quirk, caps: Value| {
        let mut c = Client::of(&[Revision::V2025_11_25], Revision::V2025_11_25, caps);
        c.server = c.server.clone().with_quirk(q);
        c
    };
    let raw = |c: &mut Client, line: &str| c.server.on_line(line, c.now);
    let mut c = legacy(Quirk::StdoutLog, json!({}));
    assert!(raw(&mut c, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)[0].starts_with("[rpcspec"));
    let mut c = legacy(Quirk::EmbeddedNewline, json!({}));
    assert!(raw(&mut c, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)[0].contains('\n'));
    let mut c = legacy(Quirk::DropsInvalid, json!({}));
    assert!(raw(&mut c, "{oops").is_empty());
    let mut c = legacy(Quirk::NoPing, json!({}));
    assert_eq!(code(&c.call("ping", json!({}))), -32601);
    let mut c = legacy(Quirk::SecondInitializeOk, json!({}));
    assert!(c.call("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})).get("result").is_some());
    let mut c = legacy(Quirk::InvalidCursorOk, json!({}));
    assert!(
        c.call("resources/list", json!({"cursor": "bad"}))
            .get("result")
            .is_some()
    );
    let mut c = legacy(Quirk::EndlessPagination, json!({}));
    let mut cursor = json!(null);
    for _ in 0..5 {
        let page = c.call(
            "resources/list",
            if cursor.is_null() {
                json!({})
            } else {
                json!({"cursor": cursor})
            },
        );
        cursor = page["result"]["nextCursor"].clone();
        assert!(cursor.is_string());
    }
    let mut c = legacy(Quirk::WrongResourceError, json!({}));
    assert_eq!(
        c.call("resources/read", json!({"uri": "x:/y"}))["result"]["contents"],
        json!([])
    );
    let mut c = legacy(Quirk::ToolErrorAsProtocolError, json!({}));
    assert!(c.tool("fail", json!({})).get("error").is_some());
    let mut c = legacy(Quirk::DuplicateToolNames, json!({}));
    let tools = c.call("tools/list", json!({}))["result"]["tools"].clone();
    assert_eq!(
        tools[0]["name"],
        tools.as_array().unwrap().last().unwrap()["name"]
    );
    let mut c = legacy(Quirk::ReusesServerId, json!({"roots": {}}));
    assert_eq!(c.tool_later("roots", json!({}))[0]["id"], "srv-1");
    assert_eq!(c.tool_later("roots", json!({}))[0]["id"], "srv-1");
    let mut c = legacy(Quirk::ProgressBackwards, json!({}));
    c.request(
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 4}, "_meta": {"progressToken": 1}}),
    );
    let p: Vec<Value> = c
        .wait(4)
        .iter()
        .filter_map(|m| m["params"].get("progress").cloned())
        .collect();
    assert_eq!(p, [json!(4), json!(3), json!(2), json!(1)]);
    let mut c = legacy(Quirk::AnswersCancelled, json!({}));
    c.send(json!({"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 5}}}));
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s"}}));
    assert_eq!(c.wait(5).len(), 1);
    let mut c = legacy(Quirk::SamplingUndeclared, json!({}));
    let out = raw(
        &mut c,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#,
    );
    assert!(out.iter().any(|l| l.contains("sampling/createMessage")));
    let mut c = legacy(Quirk::InputSchemaNull, json!({}));
    assert!(
        c.server
            .on_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, c.now)[0]
            .contains(r#""inputSchema":null"#)
    );
    // Before initialized.
    let mut s = Server::new(&[Revision::V2025_11_25]).with_quirk(Quirk::RequestsBeforeInitialized);
    let out = s.on_line(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}"#, Instant::now());
    assert_eq!(out.len(), 2);
    assert!(out[1].contains("roots/list"));
    let mut s = Server::new(&[Revision::V2025_11_25]).with_quirk(Quirk::EchoUnknownVersion);
    let out = s.on_line(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#, Instant::now());
    assert!(out[0].contains("1999-01-01"));
    // Modern ones.
    let modern = |q: Quirk| Client::new(Server::new(&[MODERN]).with_quirk(q), MODERN);
    let mut c = modern(Quirk::NoResultType);
    let out = c.server.on_line(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(MODERN)}}).to_string(), c.now);
    assert!(!out[0].contains("resultType"));
    let mut c = modern(Quirk::DiscoverMissing);
    assert_eq!(code(&c.call("server/discover", json!({}))), -32601);
    assert!(Server::new(&[MODERN]).with_quirk(Quirk::Lingers).lingers());
    assert_eq!(Quirk::ALL.len(), 38);
    for (name, q) in Quirk::ALL {
        assert_eq!(Quirk::named(name), Some(*q));
    }
}

#[test]
fn dialect_names() {
    assert!(Server::for_dialect("mcp").is_some_and(|s| s.supported().len() == 3));
    assert_eq!(
        Server::for_dialect("mcp@2025-06-18").unwrap().supported(),
        ["2025-06-18"]
    );
    assert!(Server::for_dialect("mcp@2024-11-05").is_none());
    assert!(Server::for_dialect("mcpx").is_none());
    assert!(Server::for_dialect("jsonrpc2").is_none());
}

/// The loop over real pipes: a slow call answers while stdin is quiet,
/// and the server returns at end of input.
#[test]
fn serve_answers_while_input_is_quiet_and_ends_with_it() {
    use std::io::Write;
    let (reader, mut writer) = std::io::pipe().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    struct Lines(std::sync::mpsc::Sender<Vec<u8>>);
    impl std::io::Write for Lines {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.send(b.to_vec()).unwrap();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let server =
        std::thread::spawn(move || super::serve(Server::new(&[MODERN]), reader, Lines(tx)));
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 50}, "_meta": meta(MODERN)}});
    writeln!(writer, "{call}").unwrap();
    let mut got = Vec::new();
    while !got.ends_with(b"\n") {
        got.extend(
            rx.recv_timeout(Duration::from_secs(5))
                .expect("the answer, with stdin open"),
        );
    }
    assert!(String::from_utf8(got).unwrap().contains("slept 50 ms"));
    drop(writer);
    server.join().unwrap().unwrap();
}

/// The schema checks above can fail: the bugs of some mutants are
/// schema violations.
#[test]
fn the_schemas_catch_malformed_messages() {
    let fails = |revision: Revision, name: &str, value: Value| {
        assert!(
            !validator(revision, name).is_valid(&value),
            "{name}: {value}"
        );
    };
    let mut s = Server::new(&[MODERN]).with_quirk(Quirk::NoResultType);
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(MODERN)}});
    let out: Value =
        serde_json::from_str(&s.on_line(&line.to_string(), Instant::now())[0]).unwrap();
    fails(MODERN, "ListToolsResult", out["result"].clone());
    let mut s = Server::new(&[Revision::V2025_06_18]).with_quirk(Quirk::InputSchemaNull);
    s.on_line(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#, Instant::now());
    s.on_line(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        Instant::now(),
    );
    let out: Value = serde_json::from_str(
        &s.on_line(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            Instant::now(),
        )[0],
    )
    .unwrap();
    fails(
        Revision::V2025_06_18,
        "ListToolsResult",
        out["result"].clone(),
    );
    fails(
        MODERN,
        "DiscoverResult",
        json!({"resultType": "complete", "supportedVersions": [], "capabilities": {}}),
    );
    fails(
        Revision::V2025_11_25,
        "JSONRPCResultResponse",
        json!({"jsonrpc": "2.0", "result": {}}),
    );
}
