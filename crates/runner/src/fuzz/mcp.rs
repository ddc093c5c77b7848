//! MCP inputs past the front door: what the server declares (its
//! [`Surface`], asked once before the run on a process of its own), and
//! conversations drawn for it from the revision's own JSON Schema.
//!
//! After the `initialize` handshake (the run's preamble), each message is
//! a request of a method the server declared (by its capabilities), its
//! params drawn from the method's definition in the vendored schema
//! (`instance.rs`) with what the schema cannot know filled in from the
//! surface: a listed tool's name and arguments drawn from its own
//! `inputSchema` (only for the tools `--tool` allows: a tool can act on
//! the world; other calls name a tool that does not exist), a listed
//! prompt with its declared arguments, a listed resource's URI or a
//! template's with its variables filled, a completion of a prompt's
//! argument. Seven messages in ten are meant valid, two near-valid (one
//! thing wrong: a member dropped, a type changed, a member added, a
//! boundary number, a long string, deep nesting), one invalid (params of
//! the wrong type, a misspelt method, a bad `jsonrpc`, an id of the
//! wrong type). One in eight is a notification: a cancel of a request in
//! flight (sent earlier in the same step: the server may then answer it or
//! not, MCP Cancellation), of an answered one or of an id never sent,
//! `initialized` again, `roots/list_changed`, a progress for no token. One
//! request in sixteen reuses an answered id.
//!
//! [`Coverage`] counts what was drawn and what came of it: how many
//! messages meant valid the schema's validator accepts, and for each
//! declared method the requests sent and answered with a result or an
//! error.
//!
//! The drawing is pure (seeded per execution); [`discover`] (`surface.rs`)
//! does the I/O.

use std::collections::BTreeMap;

use serde_json::{Value, json};

pub use super::surface::{Prompt, Surface, Tool, Tools, discover};
use super::{
    Scenario,
    generate::{Rng, reuses_an_id},
    instance,
};
use crate::{
    dialects::mcp::{
        Revision,
        schema::{self, Role},
    },
    plan::Plan,
    report::{Bytes, CaseResult},
};

/// What a drawn message was meant to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Valid by the revision's schema (as far as drawing can tell).
    Valid,
    /// A valid message with one thing wrong.
    Near,
    /// Invalid on purpose.
    Invalid,
}

/// One message of a drawn input.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    /// Its method.
    pub method: String,
    /// Its id, for a request.
    pub id: Option<Value>,
    /// What it was meant to be.
    pub class: Class,
    /// The message.
    pub message: Value,
}

/// Mixed into the seed for MCP draws, so the generic ones stay the same.
const MCP_SALT: u64 = 0x6d63_7066_757a_0001;

/// Whether execution `n` of the run seeded `seed` draws an MCP input
/// (two in three), rather than a generic or mutated one.
pub fn drawn_here(seed: u64, n: u64) -> bool {
    !Rng::new(seed ^ MCP_SALT ^ 1, n).one_in(3)
}

/// The input of execution `n` for `surface`, and what each of its
/// messages was meant to be.
///
/// As for generated inputs ([`super::scenario`]), no step carries two
/// requests that a reply could not tell apart (invalid ids make that
/// possible): such a draw is replaced by the next.
pub fn draw(seed: u64, n: u64, surface: &Surface) -> (Scenario, Vec<Drawn>) {
    for attempt in 0..16 {
        if surface.methods.is_empty() {
            break;
        }
        let (scenario, drawn) =
            attempt_draw(seed, n.wrapping_mul(16).wrapping_add(attempt), n, surface);
        if !scenario.steps.iter().any(|lines| reuses_an_id(lines)) {
            return (scenario, drawn);
        }
    }
    let method = surface.methods.first().copied().unwrap_or("ping");
    let one = json!({"jsonrpc": "2.0", "id": format!("rpcspec-fuzz-{n}"), "method": method});
    let mut line = one.to_string().into_bytes();
    line.push(b'\n');
    let scenario = Scenario {
        steps: vec![vec![line]],
        plan: Plan::Whole,
    };
    (scenario, Vec::new())
}

fn attempt_draw(seed: u64, k: u64, n: u64, surface: &Surface) -> (Scenario, Vec<Drawn>) {
    let mut rng = Rng::new(seed ^ MCP_SALT, k);
    let mut steps = Vec::new();
    let mut drawn = Vec::new();
    // Requests of earlier steps: answered before the next step is sent.
    let mut answered: Vec<Value> = Vec::new();
    let mut k = 0u64;
    for _ in 0..1 + rng.below(3) {
        let mut lines = Vec::new();
        let mut sent = Vec::new();
        for _ in 0..1 + rng.below(3) {
            k += 1;
            let class = match rng.below(10) {
                0..=6 => Class::Valid,
                7 | 8 => Class::Near,
                _ => Class::Invalid,
            };
            let one = if rng.one_in(8) {
                notification(&mut rng, surface, [&answered, &sent], n, class)
            } else {
                let id = if !answered.is_empty() && rng.one_in(16) {
                    rng.pick(&answered).clone()
                } else if rng.one_in(2) {
                    json!(format!("rpcspec-fuzz-{n}-{k}"))
                } else {
                    json!(1_000_000_000 + n.wrapping_mul(16).wrapping_add(k) % (1 << 52))
                };
                // Never two requests with one id in flight.
                if sent.contains(&id) {
                    continue;
                }
                sent.push(id.clone());
                let method = *rng.pick(&surface.methods);
                request(&mut rng, surface, method, id, class)
            };
            let mut line = one.message.to_string().into_bytes();
            line.push(b'\n');
            lines.push(line);
            drawn.push(one);
        }
        answered.extend(sent);
        steps.push(lines);
    }
    let plan = *rng.pick(&[
        Plan::Whole,
        Plan::Whole,
        Plan::Whole,
        Plan::Split,
        Plan::Bytewise,
        Plan::Coalesced,
    ]);
    (Scenario { steps, plan }, drawn)
}

/// `schema`'s `$ref`s resolved in `revision`'s schema.
fn in_revision(revision: Revision) -> impl Fn(&str) -> Option<&'static Value> {
    move |r| schema::resolve(revision, r)
}

/// A value for the params of `method`'s definition (`None`: it has no
/// params, or they are optional and left out).
fn params_of(rng: &mut Rng, revision: Revision, method: &str) -> Option<Value> {
    let def = schema::definition(revision, schema::definition_of(revision, method)?)?;
    let params = def.pointer("/properties/params")?;
    let required = def
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.contains(&json!("params")));
    let resolve = in_revision(revision);
    (required || rng.one_in(2)).then(|| instance::valid(rng, params, &resolve))
}

fn request(rng: &mut Rng, surface: &Surface, method: &str, id: Value, class: Class) -> Drawn {
    let mut params = params_of(rng, surface.revision, method);
    if let Some(Value::Object(p)) = &mut params {
        // A progress token or a task makes the server write after its
        // reply; a cursor drawn at random is one the server never gave.
        if !rng.one_in(16) {
            p.remove("_meta");
            p.remove("task");
        }
        if !rng.one_in(8) {
            p.remove("cursor");
        }
        fill(rng, surface, method, p);
    }
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    match class {
        Class::Valid => {}
        Class::Near => near(rng, &mut params),
        Class::Invalid => match rng.below(4) {
            0 => {
                params = Some(
                    rng.pick(&[json!([1, 2]), json!("rpcspec"), json!(7)])
                        .clone(),
                )
            }
            1 => message["method"] = json!(format!("{method}x")),
            2 => message["jsonrpc"] = rng.pick(&[json!("1.0"), json!(2.0), Value::Null]).clone(),
            _ => {
                message["id"] = rng
                    .pick(&[json!(true), json!({"id": 1}), json!([1])])
                    .clone()
            }
        },
    }
    if let Some(p) = params {
        message["params"] = p;
    }
    Drawn {
        method: method.to_owned(),
        id: message.get("id").cloned(),
        class,
        message,
    }
}

/// What the schema cannot know, from the surface: names, URIs, arguments.
fn fill(rng: &mut Rng, surface: &Surface, method: &str, p: &mut serde_json::Map<String, Value>) {
    let uris: Vec<String> = surface
        .resources
        .iter()
        .cloned()
        .chain(surface.templates.iter().map(|t| expand(t)))
        .collect();
    match method {
        "tools/call" => {
            let allowed: Vec<&Tool> = surface.tools.iter().filter(|t| t.allowed).collect();
            if allowed.is_empty() || rng.one_in(8) {
                p.insert("name".into(), json!("rpcspec-no-such-tool"));
                p.insert("arguments".into(), json!({}));
            } else {
                let tool = *rng.pick(&allowed);
                let schema = &tool.input_schema;
                let resolve = |r: &str| schema.pointer(r.strip_prefix('#')?);
                p.insert("name".into(), json!(tool.name));
                p.insert("arguments".into(), instance::valid(rng, schema, &resolve));
            }
        }
        "prompts/get" => match surface.prompts.as_slice() {
            [] => {
                p.insert("name".into(), json!("rpcspec-no-such-prompt"));
                p.remove("arguments");
            }
            prompts => {
                let prompt = rng.pick(prompts);
                let arguments: serde_json::Map<String, Value> = prompt
                    .arguments
                    .iter()
                    .filter(|(_, required)| *required || rng.one_in(2))
                    .map(|(name, _)| (name.clone(), json!("rpcspec")))
                    .collect();
                p.insert("name".into(), json!(prompt.name));
                p.insert("arguments".into(), Value::Object(arguments));
            }
        },
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            let uri = if uris.is_empty() || rng.one_in(8) {
                "rpcspec:///no-such-resource".to_owned()
            } else {
                rng.pick(&uris).clone()
            };
            p.insert("uri".into(), json!(uri));
        }
        "completion/complete" => {
            let prompted: Vec<&Prompt> = surface
                .prompts
                .iter()
                .filter(|p| !p.arguments.is_empty())
                .collect();
            if !prompted.is_empty() && (surface.templates.is_empty() || rng.one_in(2)) {
                let prompt = *rng.pick(&prompted);
                let (argument, _) = rng.pick(&prompt.arguments);
                p.insert(
                    "ref".into(),
                    json!({"type": "ref/prompt", "name": prompt.name}),
                );
                p.insert("argument".into(), json!({"name": argument, "value": "r"}));
            } else if let Some(template) = surface.templates.first() {
                let variable = variables(template).into_iter().next().unwrap_or_default();
                p.insert(
                    "ref".into(),
                    json!({"type": "ref/resource", "uri": template}),
                );
                p.insert("argument".into(), json!({"name": variable, "value": "r"}));
            }
        }
        _ => {}
    }
}

/// The variables of an RFC 6570 template (`{id}`, `{+path}`, `{?a,b}`).
fn variables(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let inner =
            rest[open + 1..open + close].trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        out.extend(
            inner
                .split(',')
                .map(|v| {
                    v.trim_end_matches('*')
                        .split(':')
                        .next()
                        .unwrap_or("")
                        .to_owned()
                })
                .filter(|v| !v.is_empty()),
        );
        rest = &rest[open + close + 1..];
    }
    out
}

/// `template` with each expression replaced by `1` (a value most
/// variables take: an id, a name, a page).
fn expand(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        out.push('1');
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// A notification; a cancel names one of `[answered, in_flight]`, or an
/// id never sent.
fn notification(
    rng: &mut Rng,
    surface: &Surface,
    [answered, in_flight]: [&[Value]; 2],
    n: u64,
    class: Class,
) -> Drawn {
    let revision = surface.revision;
    let choices: Vec<&str> = [
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/roots/list_changed",
        "notifications/progress",
    ]
    .into_iter()
    .filter(|m| schema::knows(revision, m))
    .collect();
    let method = *rng.pick(&choices);
    let mut params = params_of(rng, revision, method);
    if let Some(Value::Object(p)) = &mut params {
        p.remove("_meta");
        if method == "notifications/cancelled" {
            // A request in flight (its reply may then never come), an
            // answered one (the cancel crossed the reply, as MCP allows),
            // or one never sent.
            let id = match rng.below(3) {
                0 if !in_flight.is_empty() => rng.pick(in_flight).clone(),
                1 if !answered.is_empty() => rng.pick(answered).clone(),
                _ => json!(format!("rpcspec-never-sent-{n}")),
            };
            p.insert("requestId".into(), id);
        }
    }
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    match class {
        Class::Valid => {}
        Class::Near => near(rng, &mut params),
        Class::Invalid => message["method"] = json!(format!("{method}x")),
    }
    if let Some(p) = params {
        message["params"] = p;
    }
    Drawn {
        method: method.to_owned(),
        id: None,
        class,
        message,
    }
}

/// What a run's MCP draws met and did.
#[derive(Debug, Clone, PartialEq)]
pub struct McpReport {
    /// What the server declared.
    pub surface: Surface,
    /// What was drawn for it, and what came of it.
    pub coverage: Coverage,
}

/// `params` with one thing wrong ([`instance::near`]); absent params
/// become an array, which no MCP method takes.
fn near(rng: &mut Rng, params: &mut Option<Value>) {
    match params {
        Some(p) => instance::near(rng, p),
        None => *params = Some(json!([1])),
    }
}

/// For one method: requests sent, and what came of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodCount {
    /// Requests sent.
    pub sent: u64,
    /// Of those, the ones meant valid.
    pub valid: u64,
    /// Those answered with a result.
    pub results: u64,
    /// Those answered with an error.
    pub errors: u64,
}

/// What the MCP draws of a run were, and what came of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Inputs drawn for the surface.
    pub inputs: u64,
    /// Messages meant valid, near-valid and invalid.
    pub valid: u64,
    /// See `valid`.
    pub near: u64,
    /// See `valid`.
    pub invalid: u64,
    /// Messages meant valid that the revision's schema accepts.
    pub schema_valid: u64,
    /// One meant valid that it does not, with why (the first seen).
    pub first_miss: Option<String>,
    /// Per declared method (requests only).
    pub methods: BTreeMap<String, MethodCount>,
}

impl Coverage {
    /// A coverage with a row for each method `surface` declares.
    pub fn of(surface: &Surface) -> Coverage {
        Coverage {
            methods: surface
                .methods
                .iter()
                .map(|m| ((*m).to_owned(), MethodCount::default()))
                .collect(),
            ..Coverage::default()
        }
    }

    /// Counts one execution: `drawn` as sent, `result` as observed.
    pub fn tally(&mut self, revision: Revision, drawn: &[Drawn], result: &CaseResult) {
        self.inputs += 1;
        let skip = result.prologue.map_or(0, |p| p.received);
        let mut replies: BTreeMap<String, bool> = BTreeMap::new();
        for line in result.received.iter().skip(skip) {
            let Bytes::Text(text) = &line.bytes else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Value>(text.trim_end()) else {
                continue;
            };
            if let Some(id) = v.get("id")
                && v.get("method").is_none()
            {
                replies.insert(id.to_string(), v.get("result").is_some());
            }
        }
        for d in drawn {
            match d.class {
                Class::Valid => {
                    self.valid += 1;
                    let errors = schema::validate(revision, &d.message, Role::Call(&d.method));
                    match errors.first() {
                        None => self.schema_valid += 1,
                        Some(e) if self.first_miss.is_none() => {
                            self.first_miss = Some(format!("`{}`: {e}", d.method));
                        }
                        Some(_) => {}
                    }
                }
                Class::Near => self.near += 1,
                Class::Invalid => self.invalid += 1,
            }
            let (Some(id), Some(count)) = (&d.id, self.methods.get_mut(&d.method)) else {
                continue;
            };
            count.sent += 1;
            if d.class == Class::Valid {
                count.valid += 1;
            }
            match replies.get(&id.to_string()) {
                Some(true) => count.results += 1,
                Some(false) => count.errors += 1,
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(revision: Revision) -> Surface {
        Surface {
            revision,
            methods: super::super::surface::declared(
                revision,
                &json!({"tools": {}, "prompts": {}, "resources": {"subscribe": true},
                        "logging": {}, "completions": {}}),
            ),
            tools: vec![Tool {
                name: "add".into(),
                input_schema: json!({"type": "object", "properties": {
                    "a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
                allowed: true,
            }],
            prompts: vec![Prompt {
                name: "greet".into(),
                arguments: vec![("who".into(), true)],
            }],
            resources: vec!["file:///a.txt".into()],
            templates: vec!["file:///{name}.txt".into()],
        }
    }

    #[test]
    fn draws_are_valid_by_the_schema_and_reach_every_method() {
        for &revision in &[Revision::V2025_06_18, Revision::V2025_11_25] {
            let surface = surface(revision);
            assert_eq!(surface.methods.len(), 12, "{:?}", surface.methods);
            let mut coverage = Coverage::of(&surface);
            let mut misses = Vec::new();
            for n in 0..400 {
                let (scenario, drawn) = draw(9, n, &surface);
                assert_eq!(
                    scenario.steps.iter().map(Vec::len).sum::<usize>(),
                    drawn.len()
                );
                for d in drawn.iter().filter(|d| d.class == Class::Valid) {
                    let errors = schema::validate(revision, &d.message, Role::Call(&d.method));
                    if !errors.is_empty() {
                        misses.push(format!("{}: {}", d.message, errors[0]));
                    }
                }
                coverage.tally(
                    revision,
                    &drawn,
                    &CaseResult::new(String::new(), String::new(), String::new(), String::new()),
                );
            }
            assert!(misses.is_empty(), "{revision}: {misses:#?}");
            assert_eq!(coverage.valid, coverage.schema_valid);
            for (method, count) in &coverage.methods {
                assert!(count.valid > 20, "{revision} {method}: {count:?}");
            }
            assert!(coverage.near > coverage.invalid && coverage.invalid > 0);
        }
    }

    #[test]
    fn the_surface_fills_names_and_arguments() {
        let surface = surface(Revision::V2025_11_25);
        let mut seen = BTreeMap::<String, Value>::new();
        for n in 0..300 {
            for d in draw(1, n, &surface).1 {
                if d.class == Class::Valid {
                    seen.insert(d.method.clone(), d.message["params"].clone());
                }
            }
        }
        assert_eq!(seen["tools/call"]["name"], "add");
        assert!(seen["tools/call"]["arguments"]["a"].is_number());
        assert_eq!(seen["prompts/get"]["arguments"]["who"], "rpcspec");
        let uri = seen["resources/read"]["uri"].as_str().unwrap();
        assert!(["file:///a.txt", "file:///1.txt"].contains(&uri), "{uri}");
    }

    #[test]
    fn templates_expand() {
        assert_eq!(expand("file:///{name}/{+path}{?q,r}"), "file:///1/11");
        assert_eq!(variables("x://{a}/{+b}{?c,d*}"), ["a", "b", "c", "d"]);
    }

    #[test]
    fn replies_are_counted_by_id() {
        let surface = surface(Revision::V2025_11_25);
        let (_, drawn) = draw(3, 0, &surface);
        let mut result =
            CaseResult::new(String::new(), String::new(), String::new(), String::new());
        for d in &drawn {
            if let Some(id) = &d.id {
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": {}});
                result.received.push(crate::report::Received {
                    at_ms: 0,
                    line: 0,
                    offset: 0,
                    bytes: Bytes::Text(reply.to_string()),
                    unit: crate::report::Unit::Line,
                });
            }
        }
        let mut coverage = Coverage::of(&surface);
        coverage.tally(surface.revision, &drawn, &result);
        let results: u64 = coverage.methods.values().map(|c| c.results).sum();
        let requests = drawn
            .iter()
            .filter(|d| d.id.is_some() && coverage.methods.contains_key(&d.method))
            .count() as u64;
        assert_eq!(results, requests);
    }
}
