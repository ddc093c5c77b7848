//! 2026-07-28's multi-round-trip requests (SEP-2322): a server that needs
//! the client's input answers a `tools/call` or a `prompts/get` with an
//! `InputRequiredResult` (`resultType: "input_required"`, `inputRequests`
//! keyed by the server, an opaque `requestState`), and the client asks
//! again with `inputResponses` under the same keys and the state echoed.
//! With `--fixtures conformance`, the official suite's
//! `input-required-result-*` scenarios against its fixture tools (those
//! the server does not list are SKIPPED); `unsupported-methods` needs no
//! fixture. rpcspec answers every input request as a client that declared
//! sampling, elicitation and roots, as the suite's client does.

use serde_json::{Map, Value, json};

use super::{Check, Evidence, Reply, Session, Verdict, finding, short, table::MRTR_CHECKS};
use crate::dialects::mcp::{
    conn::client_answer,
    rules::{MCP_FIXTURE_CONTRACT, MCP_FIXTURE_RECOMMENDED},
};

/// The client capabilities the suite's scenarios declare.
const ASKABLE: &str = r#"{"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}}"#;

/// The fixture each scenario calls (`prompts/get` for the prompt), and
/// the scenario, in the order of [`MRTR_CHECKS`].
type Scenario = fn(&mut Session, &'static str) -> Vec<Evidence>;

pub(super) const MRTR: &[(&str, Scenario)] = &[
    ("test_input_required_result_elicitation", |s, t| {
        s.one_kind(t, "elicitation/create", Some("user_name"))
    }),
    ("test_input_required_result_sampling", |s, t| {
        s.one_kind(t, "sampling/createMessage", None)
    }),
    ("test_input_required_result_list_roots", |s, t| {
        s.one_kind(t, "roots/list", None)
    }),
    (
        "test_input_required_result_request_state",
        Session::request_state,
    ),
    (
        "test_input_required_result_multiple_inputs",
        Session::multiple_inputs,
    ),
    (
        "test_input_required_result_multi_round",
        Session::multi_round,
    ),
    (
        "test_input_required_result_elicitation",
        Session::missing_response,
    ),
    ("test_input_required_result_prompt", Session::non_tool),
    (
        "test_input_required_result_elicitation",
        Session::result_type,
    ),
    ("", Session::unsupported_methods),
    (
        "test_input_required_result_tampered_state",
        Session::tampered_state,
    ),
    (
        "test_input_required_result_capabilities",
        Session::capability_check,
    ),
    (
        "test_input_required_result_elicitation",
        Session::extra_params,
    ),
    (
        "test_input_required_result_elicitation",
        Session::validate_input,
    ),
];

/// An `InputRequiredResult`, read.
struct Asked {
    /// `inputRequests`: key and method, in the server's order.
    requests: Vec<(String, String)>,
    /// Each request's params, by key.
    params: Map<String, Value>,
    state: Option<String>,
}

/// What a reply is, for these scenarios: asked for input, complete, or
/// something else (said in words).
enum Round {
    Asked(Asked),
    Complete(Value),
    Other(String),
}

fn round(reply: &Reply) -> Round {
    let Reply::Result(result) = reply else {
        return Round::Other(reply.describe());
    };
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return Round::Complete(result.clone());
    }
    let map = result.get("inputRequests").and_then(Value::as_object);
    let requests = map
        .into_iter()
        .flatten()
        .map(|(k, r)| {
            let method = r.get("method").and_then(Value::as_str).unwrap_or_default();
            (k.clone(), method.to_owned())
        })
        .collect();
    let params = map
        .into_iter()
        .flatten()
        .map(|(k, r)| (k.clone(), r.get("params").cloned().unwrap_or(Value::Null)))
        .collect();
    Round::Asked(Asked {
        requests,
        params,
        state: result
            .get("requestState")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

impl Session {
    pub(super) fn mrtr_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        for (check, (fixture, scenario)) in MRTR_CHECKS.iter().zip(MRTR) {
            if !wanted(check) {
                continue;
            }
            if self.revision.has_initialize() {
                self.results.push(
                    self.not_in_revision(
                        check,
                        "there is no InputRequiredResult before 2026-07-28",
                    ),
                );
                continue;
            }
            if !fixture.is_empty() && !self.calls.fixtures {
                self.results.push(self.without_fixtures(check));
                continue;
            }
            let capability = if fixture.ends_with("_prompt") {
                "prompts"
            } else {
                "tools"
            };
            if !self.declared(capability) {
                self.results.push(self.not_declared(check, capability));
                continue;
            }
            let method = if capability == "prompts" {
                "prompts/get"
            } else {
                "tools/call"
            };
            self.check(check, |s| {
                if !fixture.is_empty()
                    && let Some(why) = s.unlisted(method, fixture)
                {
                    return vec![why];
                }
                scenario(s, fixture)
            });
        }
    }

    /// `tools/call` (or `prompts/get`) of `fixture` with `extra` params
    /// (`inputResponses`, `requestState`), as a client of `capabilities`.
    fn mrtr_call(&mut self, fixture: &str, extra: Value, capabilities: &str) -> Reply {
        let (method, mut params) = if fixture.ends_with("_prompt") {
            ("prompts/get", json!({ "name": fixture }))
        } else {
            ("tools/call", json!({ "name": fixture, "arguments": {} }))
        };
        for (k, v) in extra.as_object().into_iter().flatten() {
            params[k] = v.clone();
        }
        let mut params = self.conn.params(params);
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            serde_json::from_str(capabilities).expect("valid JSON");
        self.ask_raw(method, params)
    }

    /// The retry of `asked`: every request answered, the state echoed.
    fn answer(&mut self, fixture: &str, asked: &Asked) -> Reply {
        let mut responses = Map::new();
        for (key, method) in &asked.requests {
            responses.insert(key.clone(), client_answer(method, &asked.params[key]));
        }
        let mut extra = json!({ "inputResponses": responses });
        if let Some(state) = &asked.state {
            extra["requestState"] = json!(state);
        }
        self.mrtr_call(fixture, extra, ASKABLE)
    }

    /// The first round: asked for input, or a finding saying what came.
    fn first_round(&mut self, fixture: &str) -> Result<Asked, Vec<Evidence>> {
        let reply = self.mrtr_call(fixture, json!({}), ASKABLE);
        match round(&reply) {
            Round::Asked(asked) => Ok(asked),
            Round::Complete(r) => Err(fail(
                fixture,
                format!(
                    "answered at once with a complete result ({}), not an InputRequiredResult",
                    short(&r)
                ),
            )),
            Round::Other(what) => Err(gone_or(fixture, &reply, what)),
        }
    }

    /// A retry that must complete (with `messages` for a prompt).
    fn must_complete(&mut self, fixture: &str, asked: &Asked, after: &str) -> Vec<Evidence> {
        let reply = self.answer(fixture, asked);
        match round(&reply) {
            Round::Complete(r) => {
                let member = if fixture.ends_with("_prompt") {
                    "messages"
                } else {
                    "content"
                };
                if r.get(member)
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty)
                {
                    return fail(
                        fixture,
                        format!(
                            "the complete result {after} has no `{member}`: {}",
                            short(&r)
                        ),
                    );
                }
                vec![Evidence::note(
                    Verdict::Pass,
                    format!("`{fixture}` {after}: {}", short(&r)),
                )]
            }
            Round::Asked(_) => fail(
                fixture,
                format!(
                    "asked for input again {after}, where the scenario expects a complete result"
                ),
            ),
            Round::Other(what) => gone_or(fixture, &reply, format!("{after}: {what}")),
        }
    }

    fn one_kind(
        &mut self,
        fixture: &'static str,
        method: &str,
        key: Option<&str>,
    ) -> Vec<Evidence> {
        let asked = match self.first_round(fixture) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let first = asked.requests.first();
        let found = match key {
            Some(key) => asked.requests.iter().find(|(k, _)| k == key),
            None => first,
        };
        match found {
            None if key.is_some() => {
                return fail(
                    fixture,
                    format!("`inputRequests` has no key `{}`", key.unwrap_or_default()),
                );
            }
            None => {
                return fail(
                    fixture,
                    "the InputRequiredResult has no `inputRequests`".into(),
                );
            }
            Some((k, m)) if m != method => {
                return fail(
                    fixture,
                    format!("the input request `{k}` is `{m}`, not `{method}`"),
                );
            }
            Some(_) => {}
        }
        self.must_complete(fixture, &asked, "after the input was given")
    }

    fn request_state(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let asked = match self.first_round(fixture) {
            Ok(a) => a,
            Err(e) => return e,
        };
        if asked.state.as_deref().is_none_or(str::is_empty) {
            return fail(
                fixture,
                "the InputRequiredResult has no `requestState` string".into(),
            );
        }
        self.must_complete(
            fixture,
            &asked,
            "after the input and its `requestState` were given",
        )
    }

    fn multiple_inputs(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let asked = match self.first_round(fixture) {
            Ok(a) => a,
            Err(e) => return e,
        };
        for method in ["elicitation/create", "sampling/createMessage", "roots/list"] {
            if !asked.requests.iter().any(|(_, m)| m == method) {
                return fail(
                    fixture,
                    format!(
                        "no `{method}` among the input requests {:?}",
                        asked.requests
                    ),
                );
            }
        }
        self.must_complete(fixture, &asked, "after every input was given")
    }

    fn multi_round(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let first = match self.first_round(fixture) {
            Ok(a) => a,
            Err(e) => return e,
        };
        if first.requests.is_empty() || first.state.is_none() {
            return fail(
                fixture,
                "the first InputRequiredResult lacks `inputRequests` or `requestState`".into(),
            );
        }
        let reply = self.answer(fixture, &first);
        let second = match round(&reply) {
            Round::Asked(a) if !a.requests.is_empty() && a.state.is_some() && a.state != first.state => a,
            Round::Asked(_) => return fail(fixture, "the second round is not an InputRequiredResult with new input requests and a new `requestState`".into()),
            Round::Complete(r) => return fail(fixture, format!("completed after one round ({}), where the scenario asks twice", short(&r))),
            Round::Other(what) => return gone_or(fixture, &reply, what),
        };
        self.must_complete(fixture, &second, "after the second round")
    }

    fn missing_response(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let extra = json!({"inputResponses": {"wrong_key": {"action": "accept", "content": {"data": "wrong"}}}});
        let reply = self.mrtr_call(fixture, extra, ASKABLE);
        match round(&reply) {
            Round::Asked(_) => vec![Evidence::note(
                Verdict::Pass,
                format!("`{fixture}` asked again for the input it lacks"),
            )],
            Round::Complete(r) => should(
                fixture,
                format!(
                    "with only an unknown key in `inputResponses`, it completed ({}) instead of asking again for what is missing",
                    short(&r)
                ),
            ),
            Round::Other(what) => match reply {
                Reply::Error(_) => should(
                    fixture,
                    format!(
                        "with only an unknown key in `inputResponses`, it got {what} instead of an InputRequiredResult asking again"
                    ),
                ),
                _ => gone_or(fixture, &reply, what),
            },
        }
    }

    fn non_tool(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let asked = match self.first_round(fixture) {
            Ok(a) => a,
            Err(e) => return e,
        };
        if asked.requests.is_empty() {
            return fail(
                fixture,
                "the InputRequiredResult of `prompts/get` has no `inputRequests`".into(),
            );
        }
        self.must_complete(fixture, &asked, "after the input was given")
    }

    fn result_type(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let reply = self.mrtr_call(fixture, json!({}), ASKABLE);
        match &reply {
            Reply::Result(r) => match r.get("resultType") {
                Some(t) if t == "input_required" => vec![Evidence::note(
                    Verdict::Pass,
                    "`resultType` is \"input_required\"".into(),
                )],
                other => fail(
                    fixture,
                    format!(
                        "the first result's `resultType` is {}, not \"input_required\"",
                        other.map_or("missing".to_owned(), Value::to_string)
                    ),
                ),
            },
            other => gone_or(fixture, other, other.describe()),
        }
    }

    fn unsupported_methods(&mut self, _: &'static str) -> Vec<Evidence> {
        let mut evidence = Vec::new();
        for (capability, method) in [("tools", "tools/list"), ("prompts", "prompts/list")] {
            if !self.declared(capability) {
                continue;
            }
            let reply = self.ask(method, json!({}));
            match round(&reply) {
                Round::Asked(_) => evidence.extend(fail(method, "answered with an InputRequiredResult, which only `tools/call`, `prompts/get`, `resources/read` and `tasks/result` may".into())),
                Round::Complete(_) => evidence.push(Evidence::note(Verdict::Pass, format!("`{method}`: a complete result"))),
                Round::Other(what) if matches!(reply, Reply::Error(_)) => evidence.push(Evidence::note(Verdict::Pass, format!("`{method}`: {what}"))),
                Round::Other(what) => evidence.extend(gone_or(method, &reply, what)),
            }
        }
        evidence
    }

    fn tampered_state(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let mut asked = match self.first_round(fixture) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let Some(state) = asked.state.take() else {
            return fail(
                fixture,
                "the InputRequiredResult has no `requestState` to tamper with".into(),
            );
        };
        asked.state = Some(format!("{state}-TAMPERED"));
        let reply = self.answer(fixture, &asked);
        match round(&reply) {
            Round::Other(_) if matches!(reply, Reply::Error(_)) => vec![Evidence::note(
                Verdict::Pass,
                format!("a tampered `requestState` got {}", reply.describe()),
            )],
            Round::Complete(r) => fail(
                fixture,
                format!(
                    "accepted a tampered `requestState` and completed ({})",
                    short(&r)
                ),
            ),
            Round::Asked(_) => fail(
                fixture,
                "a tampered `requestState` got another InputRequiredResult, not an error".into(),
            ),
            Round::Other(what) => gone_or(fixture, &reply, what),
        }
    }

    fn capability_check(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let reply = self.mrtr_call(fixture, json!({}), r#"{"sampling": {}}"#);
        match round(&reply) {
            Round::Asked(asked) => match asked
                .requests
                .iter()
                .find(|(_, m)| m == "elicitation/create")
            {
                Some((k, _)) => fail(
                    fixture,
                    format!(
                        "asked `elicitation/create` (key `{k}`) of a client that declared only sampling"
                    ),
                ),
                None => vec![Evidence::note(
                    Verdict::Pass,
                    format!(
                        "asked only {:?} of a client that declared only sampling",
                        asked.requests
                    ),
                )],
            },
            Round::Complete(r) => fail(
                fixture,
                format!(
                    "completed ({}), where the scenario expects sampling-only input requests",
                    short(&r)
                ),
            ),
            Round::Other(what) => gone_or(fixture, &reply, what),
        }
    }

    fn extra_params(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let extra = json!({"inputResponses": {
            "user_name": {"action": "accept", "content": {"name": "Alice"}},
            "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}},
            "another_unexpected": {"action": "accept", "content": {"baz": 123}},
        }});
        let reply = self.mrtr_call(fixture, extra, ASKABLE);
        match round(&reply) {
            Round::Complete(_) => vec![Evidence::note(Verdict::Pass, "completed, the unknown keys ignored".into())],
            Round::Asked(_) => should(fixture, "with `user_name` answered and two unknown keys besides, it asked again instead of ignoring what it does not know".into()),
            Round::Other(what) => match reply {
                Reply::Error(_) => should(fixture, format!("with two unknown keys besides `user_name`, it got {what} instead of ignoring them")),
                _ => gone_or(fixture, &reply, what),
            },
        }
    }

    fn validate_input(&mut self, fixture: &'static str) -> Vec<Evidence> {
        let mut evidence = Vec::new();
        for (responses, what) in [
            (json!({"user_name": 12345}), "a number for `user_name`"),
            (Value::Null, "`inputResponses: null`"),
        ] {
            let reply = self.mrtr_call(fixture, json!({ "inputResponses": responses }), ASKABLE);
            match round(&reply) {
                Round::Complete(r) => evidence.extend(should(
                    fixture,
                    format!("accepted {what} and completed ({})", short(&r)),
                )),
                Round::Asked(_) => evidence.push(Evidence::note(
                    Verdict::Pass,
                    format!("{what}: asked again"),
                )),
                Round::Other(w) if matches!(reply, Reply::Error(_)) => {
                    evidence.push(Evidence::note(Verdict::Pass, format!("{what}: {w}")))
                }
                Round::Other(w) => evidence.extend(gone_or(fixture, &reply, w)),
            }
        }
        evidence
    }
}

/// A broken scenario of the official suite (FAILURE there).
fn fail(fixture: &str, why: String) -> Vec<Evidence> {
    vec![finding(
        &MCP_FIXTURE_CONTRACT,
        format!("`{fixture}`: {why}"),
    )]
}

/// A recommendation of the scenario not followed (WARNING there).
fn should(fixture: &str, why: String) -> Vec<Evidence> {
    vec![finding(
        &MCP_FIXTURE_RECOMMENDED,
        format!("`{fixture}`: {why}"),
    )]
}

/// A reply that is no result: a stall, a crash, or a finding.
fn gone_or(fixture: &str, reply: &Reply, what: String) -> Vec<Evidence> {
    match reply {
        Reply::NoReply => vec![Evidence::note(
            Verdict::Timeout,
            format!("`{fixture}` got no reply"),
        )],
        Reply::Gone => vec![Evidence::note(
            Verdict::Crash,
            format!("`{fixture}`: the server closed stdout or exited"),
        )],
        _ => fail(fixture, format!("got {what}")),
    }
}
