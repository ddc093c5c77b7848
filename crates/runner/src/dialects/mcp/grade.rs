//! Graders of whole transcripts: pure functions of what a connection
//! observed (the lines the server wrote, the messages rpcspec sent), run
//! once every check of a connection is done.

use rpcspec_framer::ProblemKind;
use serde_json::Value;

use super::{
    Revision,
    conn::{Line, Out},
    rules::{
        MCP_BEFORE_INITIALIZED, MCP_CLIENT_CAPABILITY, MCP_PROGRESS_AFTER_COMPLETION,
        MCP_PROGRESS_INCREASING, MCP_SCHEMA, MCP_SERVER_CAPABILITY, MCP_STDIO_MESSAGES_ONLY,
        MCP_STDIO_NO_REQUESTS,
    },
    schema::{self, Role},
};
use crate::{
    report::{Evidence, RuleRef, Verdict},
    rules::Level,
};

/// Evidence of a broken rule, at the rule's level.
pub fn finding(rule: &'static rpcspec_matcher::Rule, message: String) -> Evidence {
    Evidence {
        verdict: match rule.level {
            Level::Must => Verdict::Fail,
            Level::Should => Verdict::NonStrict,
            _ => Verdict::Pass,
        },
        rule: Some(RuleRef::from_rule(rule)),
        message,
        step: None,
        expected: Vec::new(),
        actual: Vec::new(),
    }
}

/// At most this many findings of one rule are listed; the rest counted.
const LISTED: usize = 5;

/// Appends `found` to `out`, the first [`LISTED`] of each rule and a count
/// of the rest.
fn capped(out: &mut Vec<Evidence>, found: Vec<Evidence>) {
    let mut per_rule: Vec<(String, usize)> = Vec::new();
    for e in found {
        let id = e.rule.as_ref().map(|r| r.id.clone()).unwrap_or_default();
        let seen = match per_rule.iter_mut().find(|(r, _)| *r == id) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                per_rule.push((id, 1));
                1
            }
        };
        if seen <= LISTED {
            out.push(e);
        }
    }
    for (id, n) in per_rule {
        if n > LISTED
            && let Some(last) = out
                .iter()
                .rev()
                .find(|e| e.rule.as_ref().is_some_and(|r| r.id == id))
                .cloned()
        {
            out.push(Evidence {
                message: format!("… and {} more {id} findings like it", n - LISTED),
                ..last
            });
        }
    }
}

/// `mcp.stdio.messages-only` and the framing rules: every line the server
/// wrote is one JSON-RPC message, UTF-8, on one line.
pub fn stdio(lines: &[Line]) -> Vec<Evidence> {
    let mut found = Vec::new();
    for line in lines {
        if let Some(kind) = line.problem {
            // A byte order mark is a notice; the line itself follows.
            let rule = crate::rules::framing(kind);
            let mut e = finding(rule, format!("line {}: {kind}", line.number));
            if kind == ProblemKind::Bom {
                e.verdict = Verdict::NonStrict;
            }
            found.push(e);
            continue;
        }
        let text = String::from_utf8_lossy(&line.bytes);
        let message = match &line.value {
            None => Some("not JSON".to_owned()),
            Some(Value::Object(o)) if o.get("jsonrpc").and_then(Value::as_str) == Some("2.0") => {
                None
            }
            Some(Value::Object(_)) => Some("a JSON object without \"jsonrpc\": \"2.0\"".to_owned()),
            Some(_) => Some("JSON, but not an object".to_owned()),
        };
        if let Some(what) = message {
            let mut shown: String = text.chars().take(120).collect();
            if shown.len() < text.len() {
                shown.push('…');
            }
            let hint = if line.value.is_none() && text.trim_start().starts_with(['{', '[']) {
                " (a message spread over lines?)"
            } else {
                ""
            };
            found.push(finding(
                &MCP_STDIO_MESSAGES_ONLY,
                format!("line {}: {what}{hint}: {shown}", line.number),
            ));
        }
    }
    let mut out = Vec::new();
    capped(&mut out, found);
    out
}

/// `mcp.schema`: every server message against its definition. rpcspec's
/// own messages are checked too: one that misses the schema is rpcspec's
/// bug, an ERROR.
pub fn schema(revision: Revision, lines: &[Line], sent: &[Out]) -> Vec<Evidence> {
    let mut found = Vec::new();
    for line in lines {
        let Some(value @ Value::Object(_)) = &line.value else {
            continue;
        };
        if line.elided {
            found.push(Evidence::note(
                Verdict::Pass,
                format!(
                    "line {}: {} bytes, longer than rpcspec validates ({} bytes): not checked",
                    line.number,
                    line.bytes.len(),
                    super::conn::KEEP_VALUE
                ),
            ));
            continue;
        }
        let role = match value.get("method").and_then(Value::as_str) {
            Some(method) => Role::Call(method),
            None => Role::Reply(line.reply_to.as_deref()),
        };
        for e in schema::validate(revision, value, role) {
            found.push(finding(&MCP_SCHEMA, format!("line {}: {e}", line.number)));
        }
    }
    for out in sent {
        let Value::Object(_) = &out.value else {
            continue;
        };
        let role = match out.value.get("method").and_then(Value::as_str) {
            Some(method) => Role::Call(method),
            None => Role::Reply(None),
        };
        // Deliberately odd requests of the checks are not in the schema's
        // methods: only what the schema defines is checked.
        if let Role::Call(m) = role
            && !schema::knows(revision, m)
        {
            continue;
        }
        if out
            .value
            .get("params")
            .and_then(|p| p.get("protocolVersion"))
            == Some(&Value::from("1900-01-01"))
        {
            continue;
        }
        // The round trips' `inputResponses` of the wrong shape, on purpose
        // (`mcp/fixtures/input-required-result-validate-input`).
        let responses = out.value.pointer("/params/inputResponses");
        if responses.is_some_and(|r| {
            r.as_object()
                .is_none_or(|o| o.values().any(|v| !v.is_object()))
        }) {
            continue;
        }
        for e in schema::validate(revision, &out.value, role) {
            found.push(Evidence::note(
                Verdict::Error,
                format!(
                    "rpcspec's own message misses the {revision} schema (a bug in rpcspec): {e}"
                ),
            ));
        }
    }
    let mut out = Vec::new();
    capped(&mut out, found);
    out
}

/// The requests the server sent, with their methods.
pub fn server_requests(lines: &[Line]) -> Vec<(u64, String)> {
    lines
        .iter()
        .filter_map(|l| {
            let v = l.value.as_ref()?;
            v.get("id")?;
            Some((l.number, v.get("method")?.as_str()?.to_owned()))
        })
        .collect()
}

/// `mcp.capability.client-declared` and, in 2026-07-28,
/// `mcp.stdio.no-server-requests`: what the server asked of the client.
pub fn client_capabilities(revision: Revision, declared: &Value, lines: &[Line]) -> Vec<Evidence> {
    let mut found = Vec::new();
    for (number, method) in server_requests(lines) {
        if !revision.server_requests() {
            found.push(finding(
                &MCP_STDIO_NO_REQUESTS,
                format!("line {number}: the server sent a `{method}` request"),
            ));
            continue;
        }
        let needs = match method.as_str() {
            "sampling/createMessage" => Some("sampling"),
            "elicitation/create" => Some("elicitation"),
            _ => None,
        };
        if let Some(capability) = needs.filter(|c| declared.get(c).is_none()) {
            found.push(finding(
                &MCP_CLIENT_CAPABILITY,
                format!(
                    "line {number}: the server sent `{method}`, but rpcspec declared no `{capability}` capability (it declared {declared})"
                ),
            ));
        }
    }
    let mut out = Vec::new();
    capped(&mut out, found);
    out
}

/// `mcp.capability.server-declared`: log messages from a server that did
/// not declare `logging`.
pub fn server_capabilities(capabilities: &Value, lines: &[Line]) -> Vec<Evidence> {
    if capabilities.get("logging").is_some() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for line in lines {
        if line
            .value
            .as_ref()
            .and_then(|v| v.get("method"))
            .and_then(Value::as_str)
            == Some("notifications/message")
        {
            found.push(finding(
                &MCP_SERVER_CAPABILITY,
                format!(
                    "line {}: a log message (notifications/message), but the server declared no `logging` capability",
                    line.number
                ),
            ));
        }
    }
    let mut out = Vec::new();
    capped(&mut out, found);
    out
}

/// `mcp.lifecycle.before-initialized`: requests other than `ping` the
/// server sent in `lines` (those before `initialized`).
pub fn before_initialized(lines: &[Line]) -> Vec<Evidence> {
    server_requests(lines)
        .into_iter()
        .filter(|(_, m)| m != "ping")
        .map(|(number, method)| {
            finding(
                &MCP_BEFORE_INITIALIZED,
                format!("line {number}: the server sent a `{method}` request before `notifications/initialized`"),
            )
        })
        .collect()
}

/// `mcp.id-reused`: a request id the server used twice in the session.
pub fn reused_ids(lines: &[Line]) -> Vec<Evidence> {
    let mut seen: Vec<(String, u64)> = Vec::new();
    let mut found = Vec::new();
    for line in lines {
        let Some(v) = &line.value else { continue };
        if v.get("method").is_none() {
            continue;
        }
        let Some(id) = v.get("id") else { continue };
        let key = id.to_string();
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
            found.push(finding(
                &crate::rules::MCP_ID_REUSED,
                format!(
                    "line {}: the server's request reuses the id {key} of its request on line {first}",
                    line.number
                ),
            ));
        } else {
            seen.push((key, line.number));
        }
    }
    let mut out = Vec::new();
    capped(&mut out, found);
    out
}

/// `mcp.progress.*` over `lines` (those from the request on): the
/// notifications for `token` increase and stop at the reply to `id`; none
/// names a token that is not active.
pub fn progress(lines: &[Line], token: &str, id: &str) -> Vec<Evidence> {
    let mut found = Vec::new();
    let mut last: Option<f64> = None;
    let mut answered_at: Option<u64> = None;
    for line in lines {
        let Some(v) = &line.value else { continue };
        if v.get("method").is_none() && v.get("id").and_then(Value::as_str) == Some(id) {
            answered_at = Some(line.number);
            continue;
        }
        if v.get("method").and_then(Value::as_str) != Some("notifications/progress") {
            continue;
        }
        let params = v.get("params").cloned().unwrap_or(Value::Null);
        let named = params.get("progressToken");
        if named.and_then(Value::as_str) != Some(token) {
            found.push(finding(
                &MCP_PROGRESS_AFTER_COMPLETION,
                format!(
                    "line {}: a progress notification for the token {}, which no request in flight gave",
                    line.number,
                    named.map_or("(none)".to_owned(), Value::to_string)
                ),
            ));
            continue;
        }
        if let Some(at) = answered_at {
            found.push(finding(
                &MCP_PROGRESS_AFTER_COMPLETION,
                format!(
                    "line {}: progress for {token} after the request was answered (line {at})",
                    line.number
                ),
            ));
        }
        if let Some(p) = params.get("progress").and_then(Value::as_f64) {
            if let Some(before) = last
                && p <= before
            {
                found.push(finding(
                    &MCP_PROGRESS_INCREASING,
                    format!(
                        "line {}: progress {p} after {before}: it must increase",
                        line.number
                    ),
                ));
            }
            last = Some(p);
        }
    }
    let mut out = Vec::new();
    capped(&mut out, found);
    if out.is_empty() && last.is_none() {
        out.push(Evidence::note(
            Verdict::Pass,
            "the server sent no progress for the token (it MAY)".to_owned(),
        ));
    }
    out
}

/// Why a tool name breaks 2025-11-25's naming rules, if it does.
pub fn tool_name_problem(name: &str) -> Option<String> {
    let n = name.chars().count();
    if !(1..=128).contains(&n) {
        return Some(format!("is {n} characters long"));
    }
    let bad: String = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .take(5)
        .collect();
    (!bad.is_empty()).then(|| format!("has characters outside A-Z a-z 0-9 _ - .: {bad:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn line(number: u64, text: &str) -> Line {
        Line {
            at: Duration::ZERO,
            number,
            offset: 0,
            bytes: text.as_bytes().to_vec(),
            value: serde_json::from_str(text).ok(),
            problem: None,
            reply_to: None,
            elided: false,
        }
    }

    #[test]
    fn a_log_line_on_stdout_is_not_a_message() {
        let lines = [
            line(1, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            line(2, "INFO starting server"),
            line(3, "{"),
            line(4, "[1]"),
        ];
        let found = stdio(&lines);
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found.iter().all(|e| e.verdict == Verdict::Fail));
        assert!(found[0].message.starts_with("line 2: not JSON"));
        assert!(found[1].message.contains("spread over lines"));
    }

    #[test]
    fn findings_of_one_rule_are_capped() {
        let lines: Vec<Line> = (1..=9).map(|n| line(n, "log")).collect();
        let found = stdio(&lines);
        assert_eq!(found.len(), LISTED + 1);
        assert!(
            found[LISTED]
                .message
                .contains("4 more mcp.stdio.messages-only")
        );
    }

    #[test]
    fn undeclared_client_capabilities_and_modern_requests() {
        let lines = [
            line(1, r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#),
            line(
                2,
                r#"{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}"#,
            ),
        ];
        let roots = serde_json::from_str(crate::dialects::mcp::conn::CLIENT_CAPABILITIES).unwrap();
        let legacy = client_capabilities(Revision::V2025_11_25, &roots, &lines);
        assert_eq!(legacy.len(), 1);
        assert_eq!(
            legacy[0].rule.as_ref().unwrap().id,
            "mcp.capability.client-declared"
        );
        let modern = client_capabilities(Revision::V2026_07_28, &roots, &lines);
        assert_eq!(modern.len(), 2);
        assert!(
            modern
                .iter()
                .all(|e| e.rule.as_ref().unwrap().id == "mcp.stdio.no-server-requests")
        );
    }

    #[test]
    fn log_messages_need_the_logging_capability() {
        let lines = [line(
            1,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
        )];
        assert_eq!(server_capabilities(&json!({"tools": {}}), &lines).len(), 1);
        assert!(server_capabilities(&json!({"logging": {}}), &lines).is_empty());
    }

    #[test]
    fn progress_must_increase_and_stop_at_the_reply() {
        let p = |n: u64, progress: u64| {
            line(
                n,
                &format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{progress}}}}}"#
                ),
            )
        };
        let reply = line(4, r#"{"jsonrpc":"2.0","id":"r1","result":{"content":[]}}"#);
        let good = [p(1, 1), p(2, 2), p(3, 5), reply.clone()];
        assert!(progress(&good, "t", "r1").is_empty());
        let backwards = [p(1, 2), p(2, 1), reply.clone()];
        let found = progress(&backwards, "t", "r1");
        assert_eq!(
            found[0].rule.as_ref().unwrap().id,
            "mcp.progress.increasing"
        );
        let late = [p(1, 1), reply, p(5, 2)];
        let found = progress(&late, "t", "r1");
        assert_eq!(
            found[0].rule.as_ref().unwrap().id,
            "mcp.progress.after-completion"
        );
        let none: [Line; 0] = [];
        assert_eq!(progress(&none, "t", "r1")[0].verdict, Verdict::Pass);
    }

    #[test]
    fn a_reused_request_id_is_found() {
        let lines = [
            line(1, r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#),
            line(2, r#"{"jsonrpc":"2.0","id":"s2","method":"roots/list"}"#),
            line(3, r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#),
        ];
        let found = reused_ids(&lines);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("line 3") && found[0].message.contains("line 1"));
    }

    #[test]
    fn tool_names() {
        assert_eq!(tool_name_problem("get_weather.v2-x"), None);
        assert!(tool_name_problem("").is_some());
        assert!(tool_name_problem(&"a".repeat(129)).is_some());
        assert!(tool_name_problem("get weather").unwrap().contains(r#"" ""#));
    }

    #[test]
    fn schema_findings_name_the_line_path_and_keyword() {
        let mut l = line(
            3,
            r#"{"jsonrpc":"2.0","id":"rpcspec-1","result":{"tools":[{"name":"t","inputSchema":null}]}}"#,
        );
        l.reply_to = Some("tools/list".into());
        let found = schema(Revision::V2025_11_25, &[l], &[]);
        assert!(
            found.iter().any(|e| e
                .message
                .starts_with("line 3: ListToolsResult at /result/tools/0/inputSchema")
                && e.message.contains("`type`")),
            "{found:#?}"
        );
    }
}
