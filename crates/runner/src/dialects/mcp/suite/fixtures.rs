//! `--fixtures conformance`: the official conformance suite's scenarios
//! that call its fixtures by name (`test_image_content`,
//! `test://static-text`, `test_prompt_with_arguments`…), over stdio, with
//! the assertions the suite makes (modelcontextprotocol/conformance
//! 0.2.0-alpha.11, `src/scenarios/server/`). For servers written to it:
//! the SDKs' everything and conformance servers. Without the flag every
//! check here is SKIPPED; a fixture the server does not list is SKIPPED,
//! one it lists and serves otherwise is FAIL (`mcp.fixture.contract`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{
    CaseResult, Check, Evidence, Reply, Session, Verdict, finding, short, table::FIXTURE_CHECKS,
};
use crate::dialects::mcp::rules::{MCP_FIXTURE_CONTRACT, MCP_SCHEMA};

/// The token the suite's progress scenario gives.
const PROGRESS_TOKEN: &str = "progress-test-1";

/// What a fixture scenario asks, and what its result must hold.
pub(super) struct Fixture {
    /// `tools/call`, `resources/read`, `prompts/get`.
    method: &'static str,
    /// The tool, the resource URI or the prompt.
    name: &'static str,
    /// The call's arguments (tools, prompts), `null` for none.
    arguments: &'static str,
    /// Only in the revisions with `initialize` (the suite requires it of
    /// 2025-11-25 alone).
    legacy: bool,
    /// The suite's assertions on the result: what is missing.
    expect: fn(&Value) -> Vec<String>,
}

/// The fixtures, in the order of [`FIXTURE_CHECKS`].
pub(super) const FIXTURES: &[Fixture] = &[
    tool("test_simple_text", "null", |r| {
        content_has(r, "text", &["text"])
    }),
    tool("test_image_content", "{}", |r| {
        content_has(r, "image", &["data", "mimeType"])
    }),
    tool("test_audio_content", "{}", |r| {
        let mut missing = content_has(r, "audio", &["data", "mimeType"]);
        if let Some(m) = item(r, "content", "audio")
            .and_then(|a| a.get("mimeType"))
            .and_then(Value::as_str)
            && m != "audio/wav"
        {
            missing.push(format!(
                "the audio's `mimeType` is {m:?}, not \"audio/wav\""
            ));
        }
        missing
    }),
    tool("test_embedded_resource", "{}", |r| {
        let mut missing = content_has(r, "resource", &["resource"]);
        if let Some(res) = item(r, "content", "resource").and_then(|c| c.get("resource")) {
            missing.extend(fields(res, "the embedded resource", &["uri", "mimeType"]));
            if truthy(res.get("text")).is_none() && truthy(res.get("blob")).is_none() {
                missing.push("the embedded resource has neither `text` nor `blob`".into());
            }
        }
        missing
    }),
    tool("test_multiple_content_types", "{}", |r| {
        let mut missing = Vec::new();
        if r.get("content")
            .and_then(Value::as_array)
            .is_none_or(|c| c.len() < 2)
        {
            missing.push("`content` has fewer than 2 items".into());
        }
        for kind in ["text", "image", "resource"] {
            if item(r, "content", kind).is_none() {
                missing.push(format!("no {kind} content"));
            }
        }
        missing
    }),
    tool("test_error_handling", "{}", |r| {
        let mut missing = Vec::new();
        if r.get("isError") != Some(&Value::Bool(true)) {
            missing.push("no `isError: true`".into());
        }
        if truthy(r.pointer("/content/0/text")).is_none() {
            missing.push("no error message in `content[0].text`".into());
        }
        missing
    }),
    // Progress and logging are graded on the notifications (`run_fixture`).
    tool("test_tool_with_progress", "{}", |_| Vec::new()),
    Fixture {
        legacy: true,
        ..tool("test_tool_with_logging", "{}", |_| Vec::new())
    },
    read("test://static-text", |r| {
        let mut missing = contents_first(r);
        if let Some(c) = r.pointer("/contents/0") {
            missing.extend(fields(c, "`contents[0]`", &["uri", "mimeType", "text"]));
        }
        missing
    }),
    read("test://static-binary", |r| {
        let mut missing = contents_first(r);
        if let Some(c) = r.pointer("/contents/0") {
            missing.extend(fields(c, "`contents[0]`", &["uri", "mimeType", "blob"]));
        }
        missing
    }),
    read("test://template/123/data", |r| {
        let mut missing = contents_first(r);
        if let Some(c) = r.pointer("/contents/0") {
            missing.extend(fields(c, "`contents[0]`", &["uri"]));
            match c.get("text").and_then(Value::as_str) {
                Some(text) if text.contains("123") => {}
                Some(_) => missing.push("the text does not hold the template's value 123".into()),
                None => missing
                    .push("`contents[0]` has no `text` holding the template's value 123".into()),
            }
        }
        missing
    }),
    prompt("test_simple_prompt", "null", |r| {
        let mut missing = messages_first(r);
        for (i, m) in r
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            missing.extend(fields(m, &format!("message {i}"), &["role", "content"]));
        }
        missing
    }),
    prompt(
        "test_prompt_with_arguments",
        r#"{"arg1": "testValue1", "arg2": "testValue2"}"#,
        |r| {
            let mut missing = messages_first(r);
            let text = r.get("messages").map(Value::to_string).unwrap_or_default();
            for (arg, value) in [("arg1", "testValue1"), ("arg2", "testValue2")] {
                if !text.contains(value) {
                    missing.push(format!("`{arg}` ({value}) is not in the messages"));
                }
            }
            missing
        },
    ),
    prompt(
        "test_prompt_with_embedded_resource",
        r#"{"resourceUri": "test://example-resource"}"#,
        |r| {
            let mut missing = messages_first(r);
            let embedded = r
                .get("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|m| {
                    m.pointer("/content/type") == Some(&json!("resource"))
                        || m.pointer("/content/resource").is_some()
                });
            if !embedded {
                missing.push("no message embeds a resource".into());
            }
            missing
        },
    ),
    prompt("test_prompt_with_image", "null", |r| {
        let mut missing = messages_first(r);
        let image = r
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|m| {
                m.pointer("/content/type") == Some(&json!("image"))
                    && truthy(m.pointer("/content/data")).is_some()
                    && truthy(m.pointer("/content/mimeType")).is_some()
            });
        if !image {
            missing.push("no message holds an image with `data` and `mimeType`".into());
        }
        missing
    }),
];

const fn tool(
    name: &'static str,
    arguments: &'static str,
    expect: fn(&Value) -> Vec<String>,
) -> Fixture {
    Fixture {
        method: "tools/call",
        name,
        arguments,
        legacy: false,
        expect,
    }
}

const fn read(uri: &'static str, expect: fn(&Value) -> Vec<String>) -> Fixture {
    Fixture {
        method: "resources/read",
        name: uri,
        arguments: "null",
        legacy: false,
        expect,
    }
}

const fn prompt(
    name: &'static str,
    arguments: &'static str,
    expect: fn(&Value) -> Vec<String>,
) -> Fixture {
    Fixture {
        method: "prompts/get",
        name,
        arguments,
        legacy: false,
        expect,
    }
}

/// `value`, unless JavaScript would call it false (absent, `""`, 0, …):
/// the suite tests fields for truthiness.
fn truthy(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        _ => true,
    })
}

/// The first item of `result[member]` of `type` `kind`.
fn item<'a>(result: &'a Value, member: &str, kind: &str) -> Option<&'a Value> {
    result
        .get(member)?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
}

/// The fields of `names` that `value` lacks (or has falsy).
fn fields(value: &Value, what: &str, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .filter(|n| truthy(value.get(**n)).is_none())
        .map(|n| format!("{what} has no `{n}`"))
        .collect()
}

/// A non-empty `content` with an item of `kind` holding `names`.
fn content_has(result: &Value, kind: &str, names: &[&str]) -> Vec<String> {
    match result.get("content").and_then(Value::as_array) {
        None => vec!["no `content` array".into()],
        Some(c) if c.is_empty() => vec!["`content` is empty".into()],
        Some(_) => match item(result, "content", kind) {
            None => vec![format!("no {kind} content")],
            Some(found) => fields(found, &format!("the {kind} content"), names),
        },
    }
}

fn contents_first(result: &Value) -> Vec<String> {
    match result.get("contents").and_then(Value::as_array) {
        None => vec!["no `contents` array".into()],
        Some(c) if c.is_empty() => vec!["`contents` is empty".into()],
        Some(_) => Vec::new(),
    }
}

fn messages_first(result: &Value) -> Vec<String> {
    match result.get("messages").and_then(Value::as_array) {
        None => vec!["no `messages` array".into()],
        Some(m) if m.is_empty() => vec!["`messages` is empty".into()],
        Some(_) => Vec::new(),
    }
}

impl Session {
    pub(super) fn fixture_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        for (check, fixture) in FIXTURE_CHECKS.iter().zip(FIXTURES) {
            if !wanted(check) {
                continue;
            }
            if !self.calls.fixtures {
                self.results.push(self.without_fixtures(check));
                continue;
            }
            if fixture.legacy && !self.revision.has_initialize() {
                self.results
                    .push(self.not_in_revision(check, "the suite requires it of 2025-11-25 only"));
                continue;
            }
            let capability = match fixture.method {
                "tools/call" => "tools",
                "resources/read" => "resources",
                _ => "prompts",
            };
            if !self.declared(capability) {
                self.results.push(self.not_declared(check, capability));
                continue;
            }
            self.check(check, |s| s.run_fixture(fixture));
        }
    }

    /// SKIPPED: `check` calls the official suite's fixtures by name, and
    /// the run has no `--fixtures conformance`.
    pub(super) fn without_fixtures(&self, check: &Check) -> CaseResult {
        self.skipped(
            check,
            "no `--fixtures conformance`: this check calls the official conformance suite's fixture by name".into(),
        )
    }

    /// Why the fixture `name` that `method` calls (`tools/call`,
    /// `prompts/get`, `resources/read`) cannot be called: the list that
    /// would show it stalled or crashed, or the server does not list it
    /// (SKIPPED; a template's expansion is listed as its template).
    /// `None`: it is listed.
    pub(super) fn unlisted(&mut self, method: &str, name: &str) -> Option<Evidence> {
        let (list, member, key, listed) = match method {
            "tools/call" => ("tools/list", "tools", "name", name),
            "prompts/get" => ("prompts/list", "prompts", "name", name),
            _ if name.starts_with("test://template/") => (
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate",
                "test://template/{id}/data",
            ),
            _ => ("resources/list", "resources", "uri", name),
        };
        match self.items(list, member) {
            Err(why) => Some(*why),
            Ok(items)
                if items
                    .iter()
                    .any(|i| i.get(key).and_then(Value::as_str) == Some(listed)) =>
            {
                None
            }
            Ok(_) => Some(Evidence::note(
                Verdict::Skipped,
                format!("the server does not list the fixture `{name}`"),
            )),
        }
    }

    fn run_fixture(&mut self, fixture: &Fixture) -> Vec<Evidence> {
        if let Some(why) = self.unlisted(fixture.method, fixture.name) {
            return vec![why];
        }
        let key = if fixture.method == "resources/read" {
            "uri"
        } else {
            "name"
        };
        let mut params = json!({ key: fixture.name });
        let arguments: Value = serde_json::from_str(fixture.arguments).expect("the table's JSON");
        if !arguments.is_null() {
            params["arguments"] = arguments;
        }
        let progress = fixture.name == "test_tool_with_progress";
        let logging = fixture.name == "test_tool_with_logging";
        if progress {
            params["_meta"] = json!({ "progressToken": PROGRESS_TOKEN });
        }
        if logging {
            let set = self.ask("logging/setLevel", json!({"level": "debug"}));
            if !matches!(set, Reply::Result(_)) {
                return vec![finding(
                    &MCP_FIXTURE_CONTRACT,
                    format!(
                        "`logging/setLevel` before `{}` got {}",
                        fixture.name,
                        set.describe()
                    ),
                )];
            }
        }
        let from = self.conn.lines.len();
        let what = format!("the fixture `{}`", fixture.name);
        let reply = self.ask(fixture.method, params);
        let result = match fixture_result(&what, reply) {
            Ok(r) => r,
            Err(e) => return e,
        };
        if logging {
            // The suite waits 200 ms for the notifications.
            self.conn
                .settle(Instant::now() + Duration::from_millis(200));
        }
        let mut evidence: Vec<Evidence> = crate::dialects::mcp::schema::validate(
            self.revision,
            &json!({"jsonrpc": "2.0", "id": "rpcspec", "result": result}),
            crate::dialects::mcp::schema::Role::Reply(Some(fixture.method)),
        )
        .into_iter()
        .take(5)
        .map(|e| finding(&MCP_SCHEMA, format!("{what}: {e}")))
        .collect();
        let mut missing = (fixture.expect)(&result);
        missing.extend(self.notifications_missing(fixture.name, from));
        evidence.extend(missing.into_iter().map(|m| {
            finding(
                &MCP_FIXTURE_CONTRACT,
                format!("{what}: {m}: {}", short(&result)),
            )
        }));
        if evidence.is_empty() {
            evidence.push(Evidence::note(
                Verdict::Pass,
                format!("{what}: {}", short(&result)),
            ));
        }
        evidence
    }

    /// What the notifications since line `from` lack, for the fixtures
    /// graded on them: 3 progress notifications for `progress-test-1`, the
    /// first three not decreasing; 3 log messages.
    fn notifications_missing(&self, fixture: &str, from: usize) -> Vec<String> {
        let notified = |method: &str| -> Vec<&Value> {
            self.conn.lines[from..]
                .iter()
                .filter_map(|l| l.value.as_ref())
                .filter(|v| v.get("method").and_then(Value::as_str) == Some(method))
                .collect()
        };
        match fixture {
            "test_tool_with_progress" => {
                let values: Vec<f64> = notified("notifications/progress")
                    .into_iter()
                    .filter(|n| {
                        n.pointer("/params/progressToken").and_then(Value::as_str)
                            == Some(PROGRESS_TOKEN)
                    })
                    .filter_map(|n| n.pointer("/params/progress").and_then(Value::as_f64))
                    .collect();
                if values.len() < 3 {
                    vec![format!(
                        "{} progress notifications for {PROGRESS_TOKEN:?}, not 3 or more",
                        values.len()
                    )]
                } else if values.windows(2).take(2).any(|w| w[1] < w[0]) {
                    vec![format!("the first progress values decrease: {values:?}")]
                } else {
                    Vec::new()
                }
            }
            "test_tool_with_logging" => match notified("notifications/message").len() {
                n if n < 3 => vec![format!(
                    "{n} log notifications during the call, not 3 or more"
                )],
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }
}

/// A fixture's result, or what came instead: a stall, a crash, or an
/// error where the fixture answers (`mcp.fixture.contract`).
pub(super) fn fixture_result(what: &str, reply: Reply) -> Result<Value, Vec<Evidence>> {
    match reply {
        Reply::Result(r) => Ok(r),
        Reply::NoReply => Err(vec![Evidence::note(
            Verdict::Timeout,
            format!("{what} got no reply"),
        )]),
        Reply::Gone => Err(vec![Evidence::note(
            Verdict::Crash,
            format!("{what}: the server closed stdout or exited"),
        )]),
        Reply::Error(e) => Err(vec![finding(
            &MCP_FIXTURE_CONTRACT,
            format!("{what} got the error {}", short(&e)),
        )]),
    }
}
