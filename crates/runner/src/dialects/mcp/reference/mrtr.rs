//! The official suite's SEP-2322 fixtures (`--fixtures conformance`,
//! 2026-07-28 only): tools and a prompt that answer with an
//! `InputRequiredResult` until the client's `inputResponses` (and the
//! `requestState` they were given, checked for integrity) hold what they
//! asked. Pure functions of the request.

use serde_json::{Map, Value, json};

use super::{Quirk, RpcError};

/// The fixture tools.
pub(super) const TOOLS: &[&str] = &[
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
];

/// The fixture prompt.
pub(super) const PROMPT: &str = "test_input_required_result_prompt";

/// The tools as `tools/list` lists them.
pub(super) fn tools() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|name| {
            json!({"name": name, "description": format!("The conformance suite's {name}"),
                   "inputSchema": {"type": "object"}})
        })
        .collect()
}

/// The prompt as `prompts/list` lists it.
pub(super) fn prompt() -> Value {
    json!({"name": PROMPT, "description": "A prompt that asks the client for context"})
}

/// A keyed checksum of `payload` (FNV-1a over a secret and the payload):
/// enough to tell a state this server gave from one changed on the way.
fn sign(payload: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in b"rpcspec-reference-state:".iter().chain(payload.as_bytes()) {
        hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{payload}.{hash:016x}")
}

/// The payload of a state this server signed.
fn verify(state: &str) -> Option<&str> {
    let (payload, _) = state.rsplit_once('.')?;
    (sign(payload) == state).then_some(payload)
}

fn elicit(message: &str, property: &str, kind: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"message": message, "requestedSchema":
        {"type": "object", "properties": {property: {"type": kind}}, "required": [property]}}})
}

fn sample(text: &str) -> Value {
    json!({"method": "sampling/createMessage", "params": {"messages":
        [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": 50}})
}

fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

/// An InputRequiredResult asking `requests`, with `state` signed.
fn ask(requests: Value, state: Option<&str>) -> Value {
    let mut result = json!({"resultType": "input_required", "inputRequests": requests});
    if let Some(state) = state {
        result["requestState"] = json!(sign(state));
    }
    result
}

fn done(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// What the request's `inputResponses` and `requestState` hold.
struct Given<'a> {
    responses: Map<String, Value>,
    /// The verified payload of `requestState`.
    state: Option<&'a str>,
}

impl Given<'_> {
    /// The accepted elicitation's `content[field]` under `key`.
    fn elicited(&self, key: &str, field: &str) -> Option<Value> {
        let r = self.responses.get(key)?;
        (r.get("action")? == "accept").then(|| r.pointer(&format!("/content/{field}")).cloned())?
    }

    fn text(&self, key: &str) -> Option<&str> {
        self.responses.get(key)?.pointer("/content/text")?.as_str()
    }

    fn roots(&self, key: &str) -> Option<usize> {
        Some(self.responses.get(key)?.get("roots")?.as_array()?.len())
    }
}

/// Reads `inputResponses` (an object of objects) and `requestState` (a
/// state this server signed): -32602 otherwise.
fn given<'a>(params: &'a Map<String, Value>, quirk: Option<Quirk>) -> Result<Given<'a>, RpcError> {
    let responses = match params.get("inputResponses") {
        None => Map::new(),
        Some(Value::Object(r)) => {
            if let Some((k, _)) = r.iter().find(|(_, v)| !v.is_object()) {
                return Err(RpcError::params(format!(
                    "`inputResponses.{k}` must be an object"
                )));
            }
            r.clone()
        }
        Some(_) => return Err(RpcError::params("`inputResponses` must be an object")),
    };
    let state = match params.get("requestState") {
        None => None,
        Some(Value::String(s)) if quirk == Some(Quirk::MrtrTrustsState) => {
            Some(s.rsplit_once('.').map_or(s.as_str(), |(p, _)| p))
        }
        Some(Value::String(s)) => {
            Some(verify(s).ok_or_else(|| RpcError::params("requestState integrity check failed"))?)
        }
        Some(_) => return Err(RpcError::params("`requestState` must be a string")),
    };
    Ok(Given { responses, state })
}

/// `tools/call` of a fixture tool, given the client's capabilities;
/// `None` for a tool that is none of them.
pub(super) fn call(
    name: &str,
    params: &Map<String, Value>,
    capabilities: &Value,
    quirk: Option<Quirk>,
) -> Option<Result<Value, RpcError>> {
    if !TOOLS.contains(&name) {
        return None;
    }
    let g = match given(params, quirk) {
        Ok(g) => g,
        Err(e) => return Some(Err(e)),
    };
    let name_of = |g: &Given<'_>, key| {
        g.elicited(key, "name")
            .and_then(|v| v.as_str().map(str::to_owned))
    };
    Some(Ok(match name {
        "test_input_required_result_elicitation" => match name_of(&g, "user_name") {
            Some(n) => done(format!("Hello, {n}!")),
            None => ask(
                json!({"user_name": elicit("What is your name?", "name", "string")}),
                None,
            ),
        },
        "test_input_required_result_sampling" => match g.text("sample_request") {
            Some(t) => done(format!("Sampling result: {t}")),
            None => ask(
                json!({"sample_request": sample("What is the capital of France?")}),
                None,
            ),
        },
        "test_input_required_result_list_roots" => match g.roots("roots_request") {
            Some(n) => done(format!("Found {n} root(s)")),
            None => ask(json!({"roots_request": roots()}), None),
        },
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            let kind = if name.ends_with("request_state") {
                "request-state"
            } else {
                "tamper-test"
            };
            match (g.state, g.elicited("confirm", "ok")) {
                (Some(s), Some(_)) if s == kind => done("state-ok: requestState validated".into()),
                _ => ask(
                    json!({"confirm": elicit("Please confirm", "ok", "boolean")}),
                    Some(kind),
                ),
            }
        }
        "test_input_required_result_multiple_inputs" => {
            match (
                g.state,
                name_of(&g, "user_name"),
                g.text("greeting"),
                g.roots("client_roots"),
            ) {
                (Some("multiple"), Some(n), Some(t), Some(r)) => {
                    done(format!("Name: {n}; Greeting: {t}; Roots: {r}"))
                }
                _ => ask(
                    json!({"user_name": elicit("What is your name?", "name", "string"),
                           "greeting": sample("Generate a greeting"), "client_roots": roots()}),
                    Some("multiple"),
                ),
            }
        }
        "test_input_required_result_multi_round" => {
            let color = g
                .elicited("step2", "color")
                .and_then(|v| v.as_str().map(str::to_owned));
            match (
                g.state.and_then(|s| s.strip_prefix("round2:")),
                color,
                name_of(&g, "step1"),
            ) {
                (Some(n), Some(c), _) => {
                    done(format!("Multi-round complete for {n} who likes {c}"))
                }
                (_, _, Some(n)) if g.state == Some("round1") => {
                    let state = if quirk == Some(Quirk::MrtrSameState) {
                        "round1".to_owned()
                    } else {
                        format!("round2:{n}")
                    };
                    ask(
                        json!({"step2": elicit("Step 2: What is your favorite color?", "color", "string")}),
                        Some(&state),
                    )
                }
                _ => ask(
                    json!({"step1": elicit("Step 1: What is your name?", "name", "string")}),
                    Some("round1"),
                ),
            }
        }
        _ => {
            // The capabilities fixture asks only what the client declared.
            let declared = |c: &str| {
                quirk == Some(Quirk::MrtrIgnoresCapabilities) || capabilities.get(c).is_some()
            };
            let mut requests = Map::new();
            if declared("elicitation") && g.elicited("elicit_input", "name").is_none() {
                requests.insert(
                    "elicit_input".into(),
                    elicit("What is your name?", "name", "string"),
                );
            }
            if declared("sampling") && g.text("sample_input").is_none() {
                requests.insert("sample_input".into(), sample("Sample request"));
            }
            if requests.is_empty() {
                done("Every input the client could give was given".into())
            } else {
                ask(Value::Object(requests), None)
            }
        }
    }))
}

/// `prompts/get` of the fixture prompt; `None` for another.
pub(super) fn get_prompt(
    name: &str,
    params: &Map<String, Value>,
    quirk: Option<Quirk>,
) -> Option<Result<Value, RpcError>> {
    if name != PROMPT {
        return None;
    }
    let g = match given(params, quirk) {
        Ok(g) => g,
        Err(e) => return Some(Err(e)),
    };
    Some(Ok(
        match g
            .elicited("user_context", "context")
            .and_then(|v| v.as_str().map(str::to_owned))
        {
            Some(c) => {
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Prompt with context: {c}")}}]})
            }
            None => ask(
                json!({"user_context": elicit("What context should the prompt use?", "context", "string")}),
                None,
            ),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::{sign, verify};

    #[test]
    fn a_state_is_only_the_one_signed() {
        let state = sign("round2:Alice");
        assert_eq!(verify(&state), Some("round2:Alice"));
        assert_eq!(verify(&format!("{state}-TAMPERED")), None);
        assert_eq!(verify("round2:Bob.0123456789abcdef"), None);
        assert_eq!(verify("no-signature"), None);
    }
}
