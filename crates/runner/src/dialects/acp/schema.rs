//! Every ACP message against the official schema of version 1
//! (`schemas/acp/v1/schema.json`, vendored): rule `acp.schema`.
//!
//! The schema defines the params of each request and notification and the
//! result of each request, and names the method of each such definition
//! in `x-method` (`NewSessionRequest` and `NewSessionResponse` are
//! `session/new`'s). A call is checked against its params' definition, a
//! result against its request's, an error against `Error`. Nothing here is
//! written per method: a new schema brings its own table.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
};

use serde_json::Value;

const TEXT: &str = include_str!("../../../schemas/acp/v1/schema.json");

/// At most this many problems per definition a message is checked against.
const MAX_ERRORS: usize = 8;

/// The schema, its method tables and the validators compiled so far.
struct Compiled {
    defs: Value,
    /// Method → the definition of its params.
    params: HashMap<String, String>,
    /// Method → the definition of its result.
    results: HashMap<String, String>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn compiled() -> &'static Compiled {
    static SCHEMA: OnceLock<Compiled> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut schema: Value = serde_json::from_str(TEXT).expect("the vendored schema parses");
        let defs = schema
            .get_mut("$defs")
            .map(Value::take)
            .expect("a schema with $defs");
        let mut params = HashMap::new();
        let mut results = HashMap::new();
        for (name, def) in defs.as_object().expect("$defs is an object") {
            let Some(method) = def.get("x-method").and_then(Value::as_str) else {
                continue;
            };
            let table = if name.ends_with("Response") {
                &mut results
            } else {
                &mut params
            };
            table.insert(method.to_owned(), name.clone());
        }
        Compiled {
            defs,
            params,
            results,
            validators: Mutex::new(HashMap::new()),
        }
    })
}

impl Compiled {
    fn validator(&self, name: &str) -> Arc<jsonschema::Validator> {
        let mut cache = self.validators.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = cache.get(name) {
            return v.clone();
        }
        let root = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": format!("#/$defs/{name}"),
            "$defs": self.defs,
        });
        let validator = Arc::new(
            jsonschema::options()
                .should_validate_formats(false)
                .build(&root)
                .unwrap_or_else(|e| panic!("ACP schema, {name}: {e}")),
        );
        cache.insert(name.to_owned(), validator.clone());
        validator
    }

    fn check(&self, name: &str, value: &Value, at: &str, out: &mut Vec<String>) {
        for error in self.validator(name).iter_errors(value).take(MAX_ERRORS) {
            let path = format!("{at}{}", error.instance_path());
            out.push(format!(
                "{name} at {path}: {error} (keyword `{}`)",
                error.kind().keyword()
            ));
        }
    }
}

/// The methods the schema defines params for, and whether each is a
/// request (it has a result) or a notification.
pub fn methods() -> impl Iterator<Item = (&'static str, bool)> {
    let c = compiled();
    c.params
        .keys()
        .map(|m| (m.as_str(), c.results.contains_key(m)))
}

/// The problems of a call of `method` (`reply` false: `message` is the
/// request or notification) or of a reply to one, against the schema, in
/// words. A method the schema does not define (an extension's `_…`, an
/// unknown one) has nothing to check.
pub fn problems(method: &str, message: &Value, reply: bool) -> Vec<String> {
    let c = compiled();
    let mut out = Vec::new();
    if !message.is_object() {
        return out;
    }
    if reply {
        if let Some(error) = message.get("error") {
            c.check("Error", error, "/error", &mut out);
        } else if let (Some(def), Some(result)) = (c.results.get(method), message.get("result")) {
            c.check(def, result, "/result", &mut out);
        }
    } else if let Some(def) = c.params.get(method) {
        match message.get("params") {
            Some(params) => c.check(def, params, "/params", &mut out),
            None => out.push(format!("{def}: `params` is missing")),
        }
    }
    out.into_iter()
        .map(|p| format!("against ACP's schema (v1): {p}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_of_the_method_table_has_its_params_in_the_schema() {
        let meta: Value =
            serde_json::from_str(super::super::META).expect("the vendored meta.json parses");
        for side in ["agentMethods", "clientMethods", "protocolMethods"] {
            for method in meta[side].as_object().unwrap().values() {
                let method = method.as_str().unwrap();
                assert!(
                    compiled().params.contains_key(method),
                    "{method} has no params definition"
                );
            }
        }
    }

    #[test]
    fn a_result_is_held_to_its_requests_definition() {
        let good =
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}});
        assert!(problems("session/prompt", &good, true).is_empty());
        let bad = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "done"}});
        let found = problems("session/prompt", &bad, true);
        assert!(
            found
                .iter()
                .any(|p| p.contains("PromptResponse at /result/stopReason")),
            "{found:?}"
        );
    }

    #[test]
    fn a_call_is_held_to_its_params_definition_and_an_error_to_error() {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/tmp"}});
        let found = problems("session/new", &call, false);
        assert!(found.iter().any(|p| p.contains("mcpServers")), "{found:?}");
        let error =
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}});
        assert!(!problems("session/new", &error, true).is_empty());
        let unknown = serde_json::json!({"jsonrpc": "2.0", "method": "_x/y", "params": 1});
        assert!(problems("_x/y", &unknown, false).is_empty());
    }
}
