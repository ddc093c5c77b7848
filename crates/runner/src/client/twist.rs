//! MCP 2026-07-28: what a scenario's `twist` makes the scripted server do
//! besides the reference MCP server's answers, sans-IO. The script asks
//! [`scripted`] before it hands a request to the reference (a reply the
//! twist writes itself: -32022, an `InputRequiredResult`) and [`reshape`]
//! for each result the reference wrote (`resultType` left out, a tool
//! whose schema points at the canary).

use serde_json::{Value, json};

use super::answers::{Answer, Body};

/// What the server does besides the reference's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Twist {
    /// The `echo` call (`{"text": "hi"}`) is first answered with an
    /// `InputRequiredResult` carrying [`REQUEST_STATE`].
    InputRequired,
    /// The same, without `requestState`.
    InputRequiredNoState,
    /// No result carries `resultType`.
    ResultTypeOmitted,
    /// The first request carrying a protocol version is answered with
    /// -32022 `UnsupportedProtocolVersion`, listing 2026-07-28.
    VersionUnsupported,
    /// `tools/list` holds one more tool, whose input schema has a `$ref`
    /// to the canary (an HTTP URL on the loopback address).
    NetworkRef,
}

impl Twist {
    /// Every twist by its name in a scenario file.
    pub const ALL: [(&'static str, Twist); 5] = [
        ("input-required", Twist::InputRequired),
        ("input-required-no-state", Twist::InputRequiredNoState),
        ("result-type-omitted", Twist::ResultTypeOmitted),
        ("version-unsupported", Twist::VersionUnsupported),
        ("network-ref", Twist::NetworkRef),
    ];

    /// The twist called `name`.
    pub fn named(name: &str) -> Option<Twist> {
        Twist::ALL.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }
}

/// The `requestState` of [`Twist::InputRequired`]: opaque, with the
/// characters a client that re-encodes or trims it would change.
pub const REQUEST_STATE: &str = "rpcspec.v1:c3RhdGU+/Pw== \u{e9}\u{1f600} ";

/// The protocol version the server says it supports in
/// [`Twist::VersionUnsupported`].
pub const SUPPORTED: &str = "2026-07-28";

/// The path the canary is asked for.
pub const CANARY_PATH: &str = "/canary/profile-schema.json";

/// The name of the tool [`Twist::NetworkRef`] adds.
pub const REF_TOOL: &str = "lookup_user";

/// The key of the input request in the `InputRequiredResult`.
pub const INPUT_KEY: &str = "rpcspec-input";

/// The call the `InputRequiredResult` answers: the series' `echo` step.
pub fn is_input_call(method: &str, params: &Value) -> bool {
    method == "tools/call"
        && params.get("name").and_then(Value::as_str) == Some("echo")
        && params.pointer("/arguments/text").and_then(Value::as_str) == Some("hi")
}

/// Whether an `elicitation` capability takes a form: `{}` (form, as
/// 2025-11-25 client/elicitation reads an empty object) or one with
/// `form`; not one that declared only `url` ("Servers MUST NOT send
/// elicitation requests with modes that are not supported").
pub fn takes_form(elicitation: Option<&Value>) -> bool {
    elicitation
        .and_then(Value::as_object)
        .is_some_and(|o| o.is_empty() || o.get("form").is_some_and(Value::is_object))
}

/// The protocol version a 2026-07-28 request carries in its `_meta`.
pub fn version_of(params: &Value) -> Option<&str> {
    params
        .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
}

/// The reply the twist writes itself to the request `method` `params`,
/// given the requests before it (`earlier`); `None` hands it to the
/// reference.
pub fn scripted(twist: Twist, earlier: &[Answer], method: &str, params: &Value) -> Option<Body> {
    let requested = version_of(params)?;
    match twist {
        Twist::VersionUnsupported if !earlier.iter().any(|a| version_of(&a.params).is_some()) => {
            let error = json!({
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": [SUPPORTED], "requested": requested},
            });
            Some(Body::Error(error.to_string().into_bytes()))
        }
        Twist::InputRequired | Twist::InputRequiredNoState
            if is_input_call(method, params)
                && params.get("inputResponses").is_none()
                && !earlier.iter().any(|a| is_input_call(&a.method, &a.params)) =>
        {
            input_required(twist, params).map(|r| Body::Result(r.to_string().into_bytes()))
        }
        _ => None,
    }
}

/// The `InputRequiredResult` for a request whose `_meta` declares the
/// client's capabilities: one input request of a capability it declared
/// (`roots/list`, else a form `elicitation/create`, else
/// `sampling/createMessage`), and [`REQUEST_STATE`] unless the twist
/// leaves it out. `None` when the result would be empty (2026-07-28
/// basic/patterns/mrtr: "Servers MUST include at least one of
/// `inputRequests` or `requestState`").
fn input_required(twist: Twist, params: &Value) -> Option<Value> {
    let capability = |c: &str| {
        params.pointer(&format!(
            "/_meta/io.modelcontextprotocol~1clientCapabilities/{c}"
        ))
    };
    let declared = |c: &str| capability(c).is_some_and(Value::is_object);
    let request = if declared("roots") {
        Some(json!({"method": "roots/list", "params": {}}))
    } else if takes_form(capability("elicitation")) {
        Some(json!({"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "rpcspec: confirm to go on",
            "requestedSchema": {"type": "object", "properties": {
                "confirmed": {"type": "boolean", "description": "Confirm?", "default": true}}},
        }}))
    } else if declared("sampling") {
        Some(json!({"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say ok."}}],
            "maxTokens": 16,
        }}))
    } else {
        None
    };
    let mut result = json!({"resultType": "input_required"});
    if let Some(r) = request {
        result["inputRequests"] = json!({ INPUT_KEY: r });
    }
    if twist == Twist::InputRequired {
        result["requestState"] = json!(REQUEST_STATE);
    }
    (result.as_object().is_some_and(|o| o.len() > 1)).then_some(result)
}

/// A result of the reference's to `method`, as the twist has it: without
/// `resultType`, or with the tool pointing at `canary` (an URL) listed.
pub fn reshape(twist: Twist, canary: Option<&str>, method: &str, result: &mut Value) {
    match twist {
        Twist::ResultTypeOmitted => {
            if let Some(o) = result.as_object_mut() {
                o.remove("resultType");
            }
        }
        Twist::NetworkRef if method == "tools/list" => {
            let Some(url) = canary else { return };
            if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
                tools.push(ref_tool(url));
            }
        }
        _ => {}
    }
}

/// The tool whose input schema has a local `$ref` and one to `url`.
pub fn ref_tool(url: &str) -> Value {
    json!({
        "name": REF_TOOL,
        "description": "Look up a user profile by id",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"userId": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
            "properties": {
                "id": {"$ref": "#/$defs/userId"},
                "profile": {"$ref": url},
            },
            "required": ["id"],
        },
    })
}

/// Whether `body` is an `InputRequiredResult`.
pub fn is_input_required(body: &Body) -> bool {
    match body {
        Body::Result(raw) => serde_json::from_slice::<Value>(raw)
            .is_ok_and(|v| v.get("resultType").and_then(Value::as_str) == Some("input_required")),
        Body::Error(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(caps: Value) -> Value {
        json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps}})
    }

    #[test]
    fn the_input_request_is_of_a_capability_the_client_declared() {
        let body = |caps| scripted(Twist::InputRequired, &[], "tools/call", &request(caps));
        let method = |b: Option<Body>| {
            let Some(Body::Result(raw)) = b else {
                panic!("a result")
            };
            let v: Value = serde_json::from_slice(&raw).expect("JSON");
            assert_eq!(v["requestState"], REQUEST_STATE);
            v.pointer(&format!("/inputRequests/{INPUT_KEY}/method"))
                .cloned()
        };
        assert_eq!(
            method(body(json!({"roots": {}}))),
            Some(json!("roots/list"))
        );
        assert_eq!(
            method(body(json!({"elicitation": {}}))),
            Some(json!("elicitation/create"))
        );
        assert_eq!(method(body(json!({}))), None);
        // Nothing to ask and no state: no result can be made.
        let none = scripted(
            Twist::InputRequiredNoState,
            &[],
            "tools/call",
            &request(json!({})),
        );
        assert!(none.is_none());
    }

    #[test]
    fn only_the_first_versioned_request_is_refused() {
        let params = request(json!({}));
        let first = scripted(Twist::VersionUnsupported, &[], "server/discover", &params);
        let Some(Body::Error(raw)) = first else {
            panic!("an error")
        };
        let e: Value = serde_json::from_slice(&raw).expect("JSON");
        assert_eq!(e["code"], -32022);
        assert_eq!(e["data"]["requested"], "2026-07-28");
        let earlier = [Answer {
            method: "server/discover".into(),
            params: params.clone(),
            id: "1".into(),
            body: Body::Error(raw),
            sent: Some(std::time::Duration::ZERO),
            replaced: false,
            batch: false,
            awaiting: false,
            asked: std::time::Duration::ZERO,
        }];
        assert!(scripted(Twist::VersionUnsupported, &earlier, "tools/list", &params).is_none());
        // A legacy request carries no version: nothing to refuse.
        assert!(scripted(Twist::VersionUnsupported, &[], "initialize", &json!({})).is_none());
    }
}
