//! What an MCP client made of the server's input requests and twists: the
//! 2026-07-28 round trip (`InputRequiredResult`, its `requestState` and
//! retry), -32022 and the retry, a network `$ref`, `clientInfo` on every
//! request; and the 2025-11-25 elicitation whose fields have defaults.

use serde_json::Value;

use super::{Evidence, Observed, Verdict, rules, scoped, short};
use crate::client::{
    script::Answer,
    twist::{self, INPUT_KEY, REQUEST_STATE, SUPPORTED, Twist},
};
use rpcspec_matcher::Level;

/// Every finding of the scenario's twist and of an `elicitation/create`
/// it asked, and `clientInfo` on the client's 2026-07-28 requests.
pub(crate) fn twists(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    client_info(o, out);
    if o.scenario.ask.as_deref() == Some("elicitation/create") {
        elicitation_defaults(o, out);
    }
    let answers = &o.log.answers;
    let modern = answers
        .iter()
        .any(|a| twist::version_of(&a.params).is_some());
    let Some(t) = o.scenario.twist else { return };
    if !modern && t != Twist::NetworkRef {
        out.push(Evidence::note(
            Verdict::Skipped,
            "the client opened a session of an earlier revision (`initialize`): what this scenario does is 2026-07-28's".into(),
        ));
        return;
    }
    match t {
        Twist::InputRequired | Twist::InputRequiredNoState => round_trip(o, t, out),
        Twist::VersionUnsupported => version_retry(o, out),
        Twist::NetworkRef => network_ref(o, modern, out),
        Twist::ResultTypeOmitted => {}
    }
}

/// MCP 2026-07-28 basic/index: "Clients SHOULD include
/// `io.modelcontextprotocol/clientInfo` on every request".
fn client_info(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    let modern: Vec<&Answer> = o
        .log
        .answers
        .iter()
        .filter(|a| twist::version_of(&a.params).is_some())
        .collect();
    let without: Vec<&&Answer> = modern
        .iter()
        .filter(|a| {
            !a.params
                .pointer("/_meta/io.modelcontextprotocol~1clientInfo")
                .is_some_and(Value::is_object)
        })
        .collect();
    if let Some(first) = without.first() {
        out.push(Evidence::broke(
            &rules::CLIENT_MCP_CLIENT_INFO,
            format!(
                "{} of the client's {} 2026-07-28 requests carry no `io.modelcontextprotocol/clientInfo` in `_meta` (the first: `{}`, id {})",
                without.len(),
                modern.len(),
                first.method,
                first.id
            ),
        ));
    }
}

/// The answer to the scenario's `elicitation/create`, whose fields all
/// have defaults: accepted as presented, each field holds a value of its
/// type (MCP 2025-11-25 client/elicitation: "Clients that support defaults
/// SHOULD pre-populate form fields with these values").
fn elicitation_defaults(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    // No answer, or no result: `client.mcp-server-request` (`mcp.rs`).
    let Some(result) = o
        .log
        .asks
        .first()
        .and_then(|a| a.answer.as_ref()?.get("result"))
    else {
        return;
    };
    let action = result.get("action").and_then(Value::as_str);
    if action != Some("accept") {
        out.push(Evidence::broke(
            &rules::CLIENT_CONTRACT,
            format!(
                "the client answered `elicitation/create` with action {}: the adapter accepts every form as presented (spec-cases/client/README.md)",
                result.get("action").map_or("(none)".into(), short)
            ),
        ));
        return;
    }
    let asked: Value = o
        .scenario
        .ask_params
        .as_deref()
        .and_then(|p| serde_json::from_slice(p).ok())
        .unwrap_or_default();
    let Some(fields) = asked
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
    else {
        return;
    };
    let content = result.get("content");
    // A client that fills in no default is not bound by the sentence
    // ("Clients that support defaults"): a note.
    if content
        .and_then(Value::as_object)
        .is_none_or(serde_json::Map::is_empty)
    {
        out.push(scoped(
            &rules::CLIENT_MCP_ELICITATION_DEFAULTS,
            Level::Info,
            format!(
                "the client accepted the form with content {}: it fills in no defaults (the sentence binds clients that support them)",
                content.map_or("(none)".into(), short)
            ),
        ));
        return;
    }
    let mut wrong = Vec::new();
    for (name, schema) in fields {
        let default = schema.get("default").cloned().unwrap_or_default();
        match content.and_then(|c| c.get(name)) {
            None => wrong.push(format!("`{name}` missing (its default: {default})")),
            Some(v) if !of_type(schema, v) => wrong.push(format!(
                "`{name}` is {}, not of its schema {}",
                short(v),
                short(schema)
            )),
            Some(_) => {}
        }
    }
    if !wrong.is_empty() {
        out.push(Evidence::broke(
            &rules::CLIENT_MCP_ELICITATION_DEFAULTS,
            format!(
                "the client accepted the form with content {}: {}",
                content.map_or("(none)".into(), short),
                wrong.join("; ")
            ),
        ));
    }
}

/// Whether `v` is of the primitive schema `schema`'s type (and among its
/// `enum`, when it has one).
fn of_type(schema: &Value, v: &Value) -> bool {
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.contains(v)
    {
        return false;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => v.is_string(),
        Some("integer") => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        Some("number") => v.is_number(),
        Some("boolean") => v.is_boolean(),
        _ => true,
    }
}

/// The `echo` call answered with an `InputRequiredResult`, and its retry
/// (MCP 2026-07-28 basic/patterns/mrtr, client requirements).
fn round_trip(o: &Observed<'_>, t: Twist, out: &mut Vec<Evidence>) {
    let answers = &o.log.answers;
    let Some(k) = answers
        .iter()
        .position(|a| a.sent.is_some() && twist::is_input_required(&a.body))
    else {
        let why = if answers
            .iter()
            .any(|a| twist::is_input_call(&a.method, &a.params))
        {
            "the client declared no `roots`, `elicitation` nor `sampling`: without a `requestState` the server has nothing to send"
        } else {
            "the client never called `echo` with `{\"text\": \"hi\"}`"
        };
        out.push(Evidence::note(
            Verdict::Skipped,
            format!("no InputRequiredResult was sent: {why}"),
        ));
        return;
    };
    let first = &answers[k];
    let given: Value = match &first.body {
        super::Body::Result(raw) => serde_json::from_slice(raw).unwrap_or_default(),
        super::Body::Error(_) => Value::Null,
    };
    let r = answers[k + 1..]
        .iter()
        .position(|a| twist::is_input_call(&a.method, &a.params))
        .map(|p| p + k + 1);
    let mut isolated = |a: &Answer| {
        let leaked: Vec<&str> = ["inputResponses", "requestState"]
            .into_iter()
            .filter(|f| a.params.get(*f).is_some())
            .collect();
        if !leaked.is_empty() {
            out.push(Evidence::broke(
                &rules::CLIENT_MCP_INPUT_ISOLATION,
                format!(
                    "`{}` (id {}), which is no retry of `echo` (id {}), carries {}",
                    a.method,
                    a.id,
                    first.id,
                    leaked.join(" and ")
                ),
            ));
        }
    };
    for (n, a) in answers.iter().enumerate().skip(k + 1) {
        if Some(n) != r {
            isolated(a);
        }
    }
    let Some(retry) = r.map(|n| &answers[n]) else {
        out.push(Evidence::note(
            Verdict::Skipped,
            format!(
                "the client never retried `echo` (id {}) after its InputRequiredResult {}: its SDK leaves the round trip to the application",
                first.id,
                short(&given)
            ),
        ));
        return;
    };
    let said = format!(
        "the retry of `echo` (id {}, first id {})",
        retry.id, first.id
    );
    if retry.id == first.id {
        out.push(Evidence::broke(
            &rules::CLIENT_MCP_RETRY_ID,
            format!("{said} has the id of the request it retries"),
        ));
    }
    let state = retry.params.get("requestState");
    match (t, state) {
        (Twist::InputRequired, Some(Value::String(s))) if s == REQUEST_STATE => {}
        (Twist::InputRequired, got) => {
            let mut e = Evidence::broke(
                &rules::CLIENT_MCP_REQUEST_STATE,
                format!(
                    "{said} carries requestState {}, not the value the server gave",
                    got.map_or("(none)".into(), short)
                ),
            );
            e.expected = vec![Value::from(REQUEST_STATE).to_string()];
            e.actual = vec![got.map_or("(none)".into(), Value::to_string)];
            out.push(e);
        }
        (_, Some(v)) => out.push(Evidence::broke(
            &rules::CLIENT_MCP_REQUEST_STATE,
            format!(
                "{said} carries requestState {}, though the InputRequiredResult had none",
                short(v)
            ),
        )),
        (_, None) => {}
    }
    if given
        .pointer(&format!("/inputRequests/{INPUT_KEY}"))
        .is_some()
        && !retry
            .params
            .pointer(&format!("/inputResponses/{INPUT_KEY}"))
            .is_some_and(Value::is_object)
    {
        out.push(Evidence::broke(
            &rules::CLIENT_MCP_INPUT_RESPONSES,
            format!(
                "{said} carries inputResponses {}: no object under `{INPUT_KEY}`, the key of the input request {}",
                retry.params.get("inputResponses").map_or("(none)".into(), short),
                short(&given["inputRequests"][INPUT_KEY])
            ),
        ));
    }
}

/// After -32022, the client goes on in a version the server listed (MCP
/// 2026-07-28 basic/versioning).
fn version_retry(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    let answers = &o.log.answers;
    let Some(k) = answers.iter().position(|a| {
        a.sent.is_some()
            && twist::version_of(&a.params).is_some()
            && matches!(a.body, super::Body::Error(_))
    }) else {
        return;
    };
    let first = &answers[k];
    let later: Vec<&Answer> = answers[k + 1..].iter().collect();
    if later
        .iter()
        .any(|a| twist::version_of(&a.params) == Some(SUPPORTED))
    {
        return;
    }
    let what = if later.is_empty() {
        "no request after it".to_owned()
    } else {
        let sent: Vec<String> = later
            .iter()
            .take(5)
            .map(|a| {
                format!(
                    "`{}` at {}",
                    a.method,
                    twist::version_of(&a.params).unwrap_or("no version")
                )
            })
            .collect();
        format!("after it: {}", sent.join(", "))
    };
    out.push(Evidence::broke(
        &rules::CLIENT_MCP_VERSION_RETRY,
        format!(
            "the server answered `{}` (id {}, version {}) with -32022, supported [\"{SUPPORTED}\"] (the official suite's `request-metadata` refuses the first request whatever it asked, as here); the client never sent a request at {SUPPORTED}: {what}",
            first.method,
            first.id,
            twist::version_of(&first.params).unwrap_or_default()
        ),
    ));
}

/// The tool whose schema `$ref`s the canary: the client must not fetch it
/// (a MUST in 2026-07-28; in an earlier revision's session, a note).
fn network_ref(o: &Observed<'_>, modern: bool, out: &mut Vec<Evidence>) {
    let listed = o
        .log
        .answers
        .iter()
        .any(|a| a.method == "tools/list" && a.sent.is_some());
    let (count, hits) = o.canary.unwrap_or((0, &[]));
    if count > 0 {
        let level = if modern { Level::Must } else { Level::Info };
        let mut message = format!(
            "the canary, named only by the `$ref` of tool `{}`'s input schema, was fetched {count} time(s): {}",
            twist::REF_TOOL,
            hits.join("; ")
        );
        if !modern {
            message.push_str(" (MCP 2025-11-25 has no sentence against it: a note)");
        }
        out.push(scoped(&rules::CLIENT_MCP_REF_FETCH, level, message));
    } else if !listed {
        out.push(Evidence::note(
            Verdict::Skipped,
            "the client never listed the tools: no `$ref` reached it".into(),
        ));
    }
}
