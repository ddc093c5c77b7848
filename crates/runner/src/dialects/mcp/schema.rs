//! Every MCP message against its revision's official JSON Schema
//! (`schemas/mcp/`, vendored): rule `mcp.schema`.
//!
//! A message is checked against the definitions that name it: its
//! envelope (`JSONRPCRequest`, `JSONRPCNotification`, `JSONRPCResultResponse`
//! or `JSONRPCResponse`, `JSONRPCErrorResponse` or `JSONRPCError`), and the
//! definition of its method, found in the schema itself: the definition
//! ending in `Request` or `Notification` whose `method` is that constant
//! (`tools/list` → `ListToolsRequest`). A result is checked against its
//! request's definition with `Result` for `Request` (`ListToolsResult`),
//! else `EmptyResult` (`ping`). Nothing here is written by hand per method,
//! so a new revision's schema brings its own table.
//!
//! Validators are compiled once per (revision, definition) and kept for
//! the process: a schema of 180 KB compiles each definition it is asked
//! for in milliseconds.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
};

use serde_json::Value;

use super::Revision;

/// One way a message misses its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The definition it was checked against (`ListToolsResult`).
    pub definition: String,
    /// Where in the message: a JSON Pointer (`/result/tools/0/inputSchema`),
    /// relative to the whole message.
    pub path: String,
    /// The schema keyword that failed (`type`, `required`, …).
    pub keyword: String,
    /// The validator's words.
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(
            f,
            "{} at {path}: {} (keyword `{}`)",
            self.definition, self.message, self.keyword
        )
    }
}

/// What a message is, as far as picking its schema goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role<'a> {
    /// A request or notification with this method.
    Call(&'a str),
    /// A reply to a request of this method (`None`: a request we cannot
    /// tell, e.g. an id nobody sent).
    Reply(Option<&'a str>),
}

/// A revision's schema, parsed, with its method table and compiled
/// validators.
struct Compiled {
    revision: Revision,
    /// `$defs` or `definitions`.
    defs: Value,
    /// Method → definition of the request or notification.
    methods: HashMap<String, String>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn compiled(revision: Revision) -> &'static Compiled {
    static ALL: OnceLock<Vec<Compiled>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        Revision::ALL
            .iter()
            .map(|&r| {
                let mut schema: Value =
                    serde_json::from_str(r.schema_text()).expect("vendored schemas parse");
                let key = if schema.get("$defs").is_some() {
                    "$defs"
                } else {
                    "definitions"
                };
                let defs = schema
                    .get_mut(key)
                    .map(Value::take)
                    .expect("a schema with definitions");
                let mut methods = HashMap::new();
                for (name, def) in defs.as_object().expect("definitions are an object") {
                    if !(name.ends_with("Request") || name.ends_with("Notification"))
                        || name.starts_with("JSONRPC")
                        || name.starts_with("Client")
                        || name.starts_with("Server")
                    {
                        continue;
                    }
                    if let Some(method) = def
                        .pointer("/properties/method/const")
                        .and_then(Value::as_str)
                    {
                        methods.insert(method.to_owned(), name.clone());
                    }
                }
                Compiled {
                    revision: r,
                    defs,
                    methods,
                    validators: Mutex::new(HashMap::new()),
                }
            })
            .collect()
    });
    all.iter()
        .find(|c| c.revision == revision)
        .expect("every revision is compiled")
}

impl Compiled {
    fn has(&self, name: &str) -> bool {
        self.defs.get(name).is_some()
    }

    /// The validator of definition `name` (which exists).
    fn validator(&self, name: &str) -> Arc<jsonschema::Validator> {
        let mut cache = self.validators.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = cache.get(name) {
            return v.clone();
        }
        // A root that is only a reference to the definition, with every
        // definition beside it, in the revision's draft.
        let root = if self.revision == Revision::V2025_06_18 {
            serde_json::json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "$ref": format!("#/definitions/{name}"),
                "definitions": self.defs,
            })
        } else {
            serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": format!("#/$defs/{name}"),
                "$defs": self.defs,
            })
        };
        let validator = Arc::new(
            jsonschema::options()
                .should_validate_formats(false)
                .build(&root)
                .unwrap_or_else(|e| panic!("{} schema, {name}: {e}", self.revision)),
        );
        cache.insert(name.to_owned(), validator.clone());
        validator
    }

    /// The first definition of `names` this schema has.
    fn first(&self, names: &[&str]) -> Option<String> {
        names.iter().find(|n| self.has(n)).map(|n| (*n).to_owned())
    }

    fn check(&self, name: &str, value: &Value, prefix: &str, out: &mut Vec<SchemaError>) {
        let validator = self.validator(name);
        for error in validator.iter_errors(value).take(MAX_ERRORS) {
            out.push(SchemaError {
                definition: name.to_owned(),
                path: format!("{prefix}{}", error.instance_path()),
                keyword: error.kind().keyword().to_owned(),
                message: error.to_string(),
            });
        }
    }
}

/// At most this many errors per definition a message is checked against.
const MAX_ERRORS: usize = 8;

/// The definition of `method`'s request or notification in `revision`.
pub fn definition_of(revision: Revision, method: &str) -> Option<&'static str> {
    compiled(revision).methods.get(method).map(String::as_str)
}

/// The definition named `name` (`CallToolRequest`) in `revision`'s schema.
pub fn definition(revision: Revision, name: &str) -> Option<&'static Value> {
    compiled(revision).defs.get(name)
}

/// What a `$ref` of `revision`'s schema (`#/$defs/RequestId`, or
/// `#/definitions/…` in 2025-06-18) points at.
pub fn resolve(revision: Revision, reference: &str) -> Option<&'static Value> {
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    definition(revision, name)
}

/// Whether `revision`'s schema defines `method`.
pub fn knows(revision: Revision, method: &str) -> bool {
    definition_of(revision, method).is_some()
}

/// Every way `message` misses `revision`'s schema, as a `role` message.
/// Empty: it is valid (or it is not an object, which other rules report).
pub fn validate(revision: Revision, message: &Value, role: Role<'_>) -> Vec<SchemaError> {
    let c = compiled(revision);
    let mut out = Vec::new();
    if !message.is_object() {
        return out;
    }
    match role {
        Role::Call(method) => {
            let envelope = if message.get("id").is_some() {
                "JSONRPCRequest"
            } else {
                "JSONRPCNotification"
            };
            c.check(envelope, message, "", &mut out);
            if let Some(def) = c.methods.get(method) {
                c.check(def, message, "", &mut out);
            }
        }
        Role::Reply(method) => {
            if message.get("error").is_some() {
                if let Some(def) = c.first(&["JSONRPCErrorResponse", "JSONRPCError"]) {
                    c.check(&def, message, "", &mut out);
                }
            } else {
                let envelope = c
                    .first(&["JSONRPCResultResponse", "JSONRPCResponse"])
                    .expect("a result envelope");
                c.check(&envelope, message, "", &mut out);
                let stem = method
                    .and_then(|m| c.methods.get(m))
                    .and_then(|req| req.strip_suffix("Request"));
                // 2026-07-28: a tool call, a prompt or a resource read may
                // answer an InputRequiredResult (its `…ResultResponse` is an
                // `anyOf`); `resultType` says which a result is ("the client
                // … determine[s] how to parse the result object"), and
                // InputRequiredResult alone would accept almost anything.
                let input_required = message.pointer("/result/resultType")
                    == Some(&Value::from("input_required"))
                    && stem
                        .and_then(|stem| c.defs.get(format!("{stem}ResultResponse")))
                        .is_some_and(|d| {
                            d.pointer("/properties/result")
                                .is_some_and(|r| r.to_string().contains("/InputRequiredResult\""))
                        });
                let result_def = stem
                    .map(|stem| {
                        if input_required {
                            "InputRequiredResult".to_owned()
                        } else {
                            format!("{stem}Result")
                        }
                    })
                    .filter(|name| c.has(name))
                    // A method of the schema without a result of its own
                    // (`ping`) has an empty one; a method the schema does
                    // not know has no result to check.
                    .or_else(|| {
                        method
                            .filter(|m| c.methods.contains_key(*m))
                            .and_then(|_| c.first(&["EmptyResult"]))
                    });
                if let (Some(def), Some(result)) = (result_def, message.get("result")) {
                    c.check(&def, result, "/result", &mut out);
                }
            }
        }
    }
    not_base64(message, &mut String::new(), &mut out);
    out
}

/// The schema's `"format": "byte"` strings that are not base64 (the
/// validator leaves formats alone): an image's or audio's `data`, a
/// resource's `blob` ("A base64-encoded string representing the binary
/// data"). Padding may be left off; a character outside RFC 4648's
/// alphabet, or a length no encoding has, is not base64.
fn not_base64(value: &Value, path: &mut String, out: &mut Vec<SchemaError>) {
    const MAX: usize = 8;
    match value {
        Value::Object(o) => {
            let kind = o.get("type").and_then(Value::as_str);
            let field = match kind {
                Some("image" | "audio") => "data",
                _ if o.contains_key("uri") => "blob",
                _ => "",
            };
            if let Some(Value::String(text)) = o.get(field)
                && let Some(why) = base64_problem(text)
                && out.len() < MAX
            {
                out.push(SchemaError {
                    definition: if field == "blob" {
                        "BlobResourceContents".into()
                    } else if kind == Some("image") {
                        "ImageContent".into()
                    } else {
                        "AudioContent".into()
                    },
                    path: format!("{path}/{field}"),
                    keyword: "format".into(),
                    message: format!("is not base64 (format `byte`): {why}"),
                });
            }
            for (k, v) in o {
                let len = path.len();
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                not_base64(v, path, out);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                not_base64(v, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// Why `text` is not base64 (RFC 4648 §4), if it is not.
pub fn base64_problem(text: &str) -> Option<String> {
    let body = text.trim_end_matches('=');
    let pad = text.len() - body.len();
    if let Some((at, c)) = body
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '+' || *c == '/'))
    {
        return Some(format!("{c:?} at byte {at}"));
    }
    if pad > 2 || body.len() % 4 == 1 || (pad > 0 && !text.len().is_multiple_of(4)) {
        return Some(format!("{} characters cannot be base64", text.len()));
    }
    None
}

/// What is wrong with a tool's `inputSchema`, if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaProblem {
    /// Not a JSON Schema object at all (`null`, a string, …): every
    /// revision's `Tool.inputSchema` is an object.
    NotAnObject(String),
    /// An object its meta-schema rejects (2020-12 unless its `$schema`
    /// names another draft; 2025-11-25 on: "MUST be a valid JSON Schema").
    Invalid(String),
    /// Valid as far as rpcspec can tell, but rpcspec cannot use it (a
    /// remote `$ref`, a pattern its regex engine refuses, a meta-schema it
    /// does not know): rpcspec's limit, not a broken rule.
    Unusable(String),
}

/// What is wrong with `schema` (a tool's `inputSchema`), if anything.
pub fn schema_problems(schema: &Value) -> Option<SchemaProblem> {
    if !schema.is_object() {
        return Some(SchemaProblem::NotAnObject(format!(
            "not a JSON Schema object: {}",
            kind_of(schema)
        )));
    }
    // The validator crate documents panics for a meta-schema it cannot
    // detect; a target's schema is input, so a panic is caught and said.
    let checked = std::panic::catch_unwind(|| {
        if let Err(e) = jsonschema::meta::validate(schema) {
            return Some(SchemaProblem::Invalid(format!(
                "not a valid JSON Schema: {e} at {}",
                e.instance_path()
            )));
        }
        jsonschema::options()
            .should_validate_formats(false)
            .build(schema)
            .err()
            .map(|e| SchemaProblem::Unusable(format!("rpcspec cannot compile it: {e}")))
    });
    checked.unwrap_or_else(|_| {
        Some(SchemaProblem::Unusable(
            "rpcspec cannot tell its meta-schema".to_owned(),
        ))
    })
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_method_has_a_definition_in_its_revision() {
        for r in Revision::ALL {
            assert_eq!(
                definition_of(*r, "tools/list"),
                Some("ListToolsRequest"),
                "{r}"
            );
            assert_eq!(knows(*r, "initialize"), r.has_initialize());
            assert_eq!(knows(*r, "ping"), r.has_ping());
            assert_eq!(knows(*r, "server/discover"), !r.has_initialize());
        }
    }

    #[test]
    fn an_input_required_result_answers_a_tool_call_in_2026_07_28() {
        let r = Revision::V2026_07_28;
        let call = |m: &Value| validate(r, m, Role::Reply(Some("tools/call")));
        // `CallToolResultResponse`'s result is an `anyOf`: this one too.
        let input_required = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "input_required", "requestState": "step-1"
        }});
        assert_eq!(call(&input_required), []);
        // Not a result `tools/list` may give.
        let list = validate(r, &input_required, Role::Reply(Some("tools/list")));
        assert!(
            list.iter().any(|e| e.definition == "ListToolsResult"),
            "{list:#?}"
        );
        // A CallToolResult still passes, and a broken one still fails plainly.
        let text = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "complete", "content": [{"type": "text", "text": "hi"}]
        }});
        assert_eq!(call(&text), []);
        let broken = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": "hi"}});
        let errors = call(&broken);
        assert!(
            errors.iter().any(|e| e.definition == "CallToolResult"),
            "{errors:#?}"
        );
    }

    #[test]
    fn a_valid_list_tools_result_passes_and_a_null_input_schema_fails() {
        let r = Revision::V2025_11_25;
        let good = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "echo", "inputSchema": {"type": "object"}}
        ]}});
        assert_eq!(validate(r, &good, Role::Reply(Some("tools/list"))), []);
        let bad = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "echo", "inputSchema": null}
        ]}});
        let errors = validate(r, &bad, Role::Reply(Some("tools/list")));
        assert!(
            errors.iter().any(|e| e.definition == "ListToolsResult"
                && e.path == "/result/tools/0/inputSchema"
                && e.keyword == "type"),
            "{errors:#?}"
        );
    }

    #[test]
    fn envelopes_and_methods_are_checked_in_each_draft() {
        for r in Revision::ALL {
            // A progress notification without its token breaks its definition.
            let bad = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progress": 1}});
            let errors = validate(*r, &bad, Role::Call("notifications/progress"));
            assert!(
                errors
                    .iter()
                    .any(|e| e.definition == "ProgressNotification" && e.keyword == "required"),
                "{r}: {errors:#?}"
            );
            // An error with a string code breaks the error envelope.
            let bad = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}});
            assert!(!validate(*r, &bad, Role::Reply(None)).is_empty(), "{r}");
            let good =
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "m"}});
            assert_eq!(validate(*r, &good, Role::Reply(None)), [], "{r}");
        }
    }

    #[test]
    fn an_initialize_result_needs_its_members() {
        let r = Revision::V2025_06_18;
        let good = json!({"jsonrpc": "2.0", "id": "i", "result": {"protocolVersion": "2025-06-18",
            "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        assert_eq!(validate(r, &good, Role::Reply(Some("initialize"))), []);
        let bad = json!({"jsonrpc": "2.0", "id": "i", "result": {"protocolVersion": "2025-06-18"}});
        let errors = validate(r, &bad, Role::Reply(Some("initialize")));
        assert!(
            errors
                .iter()
                .any(|e| e.definition == "InitializeResult" && e.keyword == "required"),
            "{errors:#?}"
        );
    }

    #[test]
    fn base64_data_and_blobs() {
        for good in ["", "aGk=", "aGk", "AAECAw==", "+/+/"] {
            assert_eq!(base64_problem(good), None, "{good}");
        }
        for bad in ["not base64!", "a", "aGk===", "aG=k", "a-b_"] {
            assert!(base64_problem(bad).is_some(), "{bad}");
        }
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "no such thing", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "test://b", "blob": "%%"}}
        ]}});
        let found = validate(
            Revision::V2025_11_25,
            &reply,
            Role::Reply(Some("tools/call")),
        );
        let paths: Vec<&str> = found.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            ["/result/content/1/data", "/result/content/2/resource/blob"],
            "{found:?}"
        );
    }

    #[test]
    fn schema_problems_of_tool_schemas() {
        assert_eq!(schema_problems(&json!({"type": "object"})), None);
        assert!(
            matches!(schema_problems(&Value::Null), Some(SchemaProblem::NotAnObject(m)) if m.contains("null"))
        );
        assert!(matches!(
            schema_problems(&json!({"type": 12})),
            Some(SchemaProblem::Invalid(_))
        ));
        assert!(matches!(
            schema_problems(&json!({"$ref": "https://example.invalid/s.json"})),
            Some(SchemaProblem::Unusable(_))
        ));
    }
}
