//! LSP messages against the official meta-model (`schemas/lsp/`, vendored):
//! rule `lsp.shape`.
//!
//! LSP 3.17 has a "Meta Model": "metaModel.json: The actual meta model for
//! the LSP 3.17 specification", every request's and notification's `params`
//! and `result` as types (base types, references to structures,
//! enumerations and aliases, arrays, maps, `and`, `or`, tuples, literals).
//! The file vendored is the 3.18 one, which keeps 3.17's messages and adds
//! to them (`MessageType.Debug`, new capabilities), so a server built on
//! either is held to what it may send.
//!
//! A message is checked as TypeScript would type it, where the meta-model
//! came from: members the type does not name are allowed, a member not
//! marked optional must be there, an enumeration without custom values
//! takes only its values, `integer` and `uinteger` are 32-bit. A member the
//! type marks optional that is sent as `null` is told apart
//! ([`Problem::NullOptional`]): TypeScript's `x?: T` does not take `null`,
//! but many servers write it, and what a client makes of it differs.
//!
//! Sans-IO; the meta-model is parsed once per process.

use std::{collections::HashMap, fmt, sync::OnceLock};

use serde::Deserialize;
use serde_json::Value;

/// The vendored meta-model's text.
const TEXT: &str = include_str!("../../../schemas/lsp/metaModel.json");

/// The most problems reported for one message.
const PER_MESSAGE: usize = 10;

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Type {
    Base { name: String },
    Reference { name: String },
    Array { element: Box<Type> },
    Map { key: Box<Type>, value: Box<Type> },
    And { items: Vec<Type> },
    Or { items: Vec<Type> },
    Tuple { items: Vec<Type> },
    Literal { value: Literal },
    StringLiteral { value: String },
    IntegerLiteral { value: i64 },
    BooleanLiteral { value: bool },
}

#[derive(Debug, Deserialize)]
struct Literal {
    properties: Vec<Property>,
}

#[derive(Debug, Deserialize)]
struct Property {
    name: String,
    #[serde(rename = "type")]
    ty: Type,
    #[serde(default)]
    optional: bool,
}

#[derive(Debug, Deserialize)]
struct Structure {
    name: String,
    properties: Vec<Property>,
    #[serde(default)]
    extends: Vec<Type>,
    #[serde(default)]
    mixins: Vec<Type>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Enumeration {
    name: String,
    #[serde(rename = "type")]
    ty: Type,
    values: Vec<EnumValue>,
    #[serde(default)]
    supports_custom_values: bool,
}

#[derive(Debug, Deserialize)]
struct EnumValue {
    name: String,
    value: Value,
}

#[derive(Debug, Deserialize)]
struct Alias {
    name: String,
    #[serde(rename = "type")]
    ty: Type,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Method {
    method: String,
    message_direction: String,
    #[serde(default)]
    params: Option<Type>,
    #[serde(default)]
    result: Option<Type>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    meta_data: MetaData,
    requests: Vec<Method>,
    notifications: Vec<Method>,
    structures: Vec<Structure>,
    enumerations: Vec<Enumeration>,
    type_aliases: Vec<Alias>,
}

#[derive(Debug, Deserialize)]
struct MetaData {
    version: String,
}

/// The meta-model, indexed by name.
pub struct Model {
    version: String,
    requests: HashMap<String, Method>,
    notifications: HashMap<String, Method>,
    structures: HashMap<String, Structure>,
    enumerations: HashMap<String, Enumeration>,
    aliases: HashMap<String, Alias>,
}

/// How a value misses its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Not of the type (the message says how).
    Mismatch,
    /// A member the type requires is absent.
    Missing,
    /// A member the type marks optional is `null`, which its type does not
    /// take.
    NullOptional,
}

/// One way a message misses the meta-model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// What was checked: "`initialize` result (InitializeResult)".
    pub subject: String,
    /// Where in the message: a JSON Pointer from the message's root.
    pub path: String,
    /// Its kind.
    pub problem: Problem,
    /// What was wanted, and what came.
    pub message: String,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.subject, self.path, self.message)
    }
}

/// The meta-model, parsed on first use.
pub fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let file: File = serde_json::from_str(TEXT).expect("the vendored meta-model parses");
        let by_method =
            |list: Vec<Method>| list.into_iter().map(|m| (m.method.clone(), m)).collect();
        Model {
            version: file.meta_data.version,
            requests: by_method(file.requests),
            notifications: by_method(file.notifications),
            structures: file
                .structures
                .into_iter()
                .map(|s| (s.name.clone(), s))
                .collect(),
            enumerations: file
                .enumerations
                .into_iter()
                .map(|e| (e.name.clone(), e))
                .collect(),
            aliases: file
                .type_aliases
                .into_iter()
                .map(|a| (a.name.clone(), a))
                .collect(),
        }
    })
}

/// One finding in the making: where, what kind, the words.
type Found = (String, Problem, String);

impl Model {
    /// Every request's and notification's method, with its
    /// `messageDirection` (`clientToServer`, `serverToClient`, `both`).
    pub fn directions(&self) -> impl Iterator<Item = (&str, &str)> {
        self.requests
            .values()
            .chain(self.notifications.values())
            .map(|m| (m.method.as_str(), m.message_direction.as_str()))
    }

    /// The meta-model's LSP version (`3.18.0`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Whether the meta-model names `method`, as a request or notification.
    pub fn knows(&self, method: &str) -> bool {
        self.requests.contains_key(method) || self.notifications.contains_key(method)
    }

    /// A request or notification (a whole JSON-RPC message): its `params`
    /// against its method's. Nothing for a method the meta-model does not
    /// name, or one it gives no params.
    pub fn call(&self, message: &Value) -> Vec<ShapeError> {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return Vec::new();
        };
        let (first, second) = if message.get("id").is_some() {
            (&self.requests, &self.notifications)
        } else {
            (&self.notifications, &self.requests)
        };
        let Some(ty) = first
            .get(method)
            .or_else(|| second.get(method))
            .and_then(|m| m.params.as_ref())
        else {
            return Vec::new();
        };
        let subject = format!("`{method}` params ({})", describe(ty));
        let mut out = Vec::new();
        match message.get("params") {
            Some(params) => self.check(ty, params, &mut "/params".to_owned(), &mut out),
            // "params MAY be omitted" (JSON-RPC 2.0 §4): as good as `{}`
            // where `{}` would do.
            None => {
                let mut empty = Vec::new();
                self.check(
                    ty,
                    &Value::Object(Default::default()),
                    &mut String::new(),
                    &mut empty,
                );
                if !empty.is_empty() {
                    out.push((
                        String::new(),
                        Problem::Missing,
                        format!("no `params`; {} requires them", describe(ty)),
                    ));
                }
            }
        }
        finish(subject, out)
    }

    /// A reply to a request of `method`: its `result` against the
    /// method's. Nothing for an error, or a method the meta-model does not
    /// name.
    pub fn reply(&self, method: &str, message: &Value) -> Vec<ShapeError> {
        let (Some(ty), Some(result)) = (
            self.requests.get(method).and_then(|m| m.result.as_ref()),
            message.get("result"),
        ) else {
            return Vec::new();
        };
        let subject = format!("`{method}` result ({})", describe(ty));
        let mut out = Vec::new();
        self.check(ty, result, &mut "/result".to_owned(), &mut out);
        finish(subject, out)
    }

    fn check(&self, ty: &Type, v: &Value, path: &mut String, out: &mut Vec<Found>) {
        if out.len() >= PER_MESSAGE {
            return;
        }
        let ok = match ty {
            Type::Base { name } => base(name, v),
            Type::Reference { name } => return self.reference(name, v, path, out),
            Type::Array { element } => {
                let Some(items) = v.as_array() else {
                    return mismatch(ty, v, path, out);
                };
                for (n, item) in items.iter().enumerate() {
                    within(path, &n.to_string(), |path| {
                        self.check(element, item, path, out)
                    });
                }
                true
            }
            Type::Map { value, .. } => {
                let Some(members) = v.as_object() else {
                    return mismatch(ty, v, path, out);
                };
                for (key, item) in members {
                    within(path, key, |path| self.check(value, item, path, out));
                }
                true
            }
            Type::And { items } => {
                for item in items {
                    self.check(item, v, path, out);
                }
                true
            }
            Type::Or { items } => return self.one_of(ty, items, v, path, out),
            Type::Tuple { items } => match v.as_array() {
                Some(got) if got.len() == items.len() => {
                    for (n, (item, t)) in got.iter().zip(items).enumerate() {
                        within(path, &n.to_string(), |path| self.check(t, item, path, out));
                    }
                    true
                }
                _ => false,
            },
            Type::Literal { value } => return self.members(ty, &value.properties, v, path, out),
            Type::StringLiteral { value } => v.as_str() == Some(value),
            Type::IntegerLiteral { value } => v.as_i64() == Some(*value),
            Type::BooleanLiteral { value } => v.as_bool() == Some(*value),
        };
        if !ok {
            mismatch(ty, v, path, out);
        }
    }

    fn reference(&self, name: &str, v: &Value, path: &mut String, out: &mut Vec<Found>) {
        if let Some(alias) = self.aliases.get(name) {
            // An alias's own name reads better than its expansion.
            let mut found = Vec::new();
            self.check(&alias.ty, v, path, &mut found);
            if let [(at, Problem::Mismatch, _)] = found.as_slice()
                && at == path
            {
                found[0].2 = format!("expected {name}, got {}", shown(v));
            }
            out.extend(found);
        } else if let Some(e) = self.enumerations.get(name) {
            let fits = base_of(&e.ty, v)
                && (e.supports_custom_values || e.values.iter().any(|x| same(&x.value, v)));
            if !fits {
                let values: Vec<String> = e
                    .values
                    .iter()
                    .map(|x| format!("{} {}", x.value, x.name))
                    .collect();
                let custom = if e.supports_custom_values {
                    ", or any other"
                } else {
                    ""
                };
                out.push((
                    path.clone(),
                    Problem::Mismatch,
                    format!(
                        "expected {name} ({}{custom}), got {}",
                        values.join(", "),
                        shown(v)
                    ),
                ));
            }
        } else if let Some(s) = self.structures.get(name) {
            let mut props = Vec::new();
            self.collect(s, &mut props, 0);
            let ty = Type::Reference {
                name: s.name.clone(),
            };
            self.members_of(&ty, &props, v, path, out);
        }
        // A name the meta-model does not define: nothing to check against.
    }

    /// A structure's properties with those of what it extends and mixes in.
    fn collect<'m>(&'m self, s: &'m Structure, props: &mut Vec<&'m Property>, depth: usize) {
        props.extend(&s.properties);
        if depth > 16 {
            return;
        }
        for parent in s.extends.iter().chain(&s.mixins) {
            if let Type::Reference { name } = parent
                && let Some(p) = self.structures.get(name)
            {
                self.collect(p, props, depth + 1);
            }
        }
    }

    fn members(
        &self,
        ty: &Type,
        props: &[Property],
        v: &Value,
        path: &mut String,
        out: &mut Vec<Found>,
    ) {
        let props: Vec<&Property> = props.iter().collect();
        self.members_of(ty, &props, v, path, out);
    }

    fn members_of(
        &self,
        ty: &Type,
        props: &[&Property],
        v: &Value,
        path: &mut String,
        out: &mut Vec<Found>,
    ) {
        let Some(object) = v.as_object() else {
            return mismatch(ty, v, path, out);
        };
        for p in props {
            match object.get(&p.name) {
                None if !p.optional => out.push((
                    path.clone(),
                    Problem::Missing,
                    format!(
                        "{} has no `{}` ({}), which is not optional",
                        describe(ty),
                        p.name,
                        describe(&p.ty)
                    ),
                )),
                None => {}
                Some(Value::Null) if p.optional && !self.takes_null(&p.ty) => {
                    within(path, &p.name, |path| {
                        out.push((
                            path.clone(),
                            Problem::NullOptional,
                            format!(
                                "null for the optional `{}` ({}): omit it instead",
                                p.name,
                                describe(&p.ty)
                            ),
                        ));
                    });
                }
                Some(member) => within(path, &p.name, |path| self.check(&p.ty, member, path, out)),
            }
        }
    }

    fn takes_null(&self, ty: &Type) -> bool {
        let mut found = Vec::new();
        self.check(ty, &Value::Null, &mut String::new(), &mut found);
        found.is_empty()
    }

    /// `or`: the value fits one item. Where none fits, the item it came
    /// nearest (its first problem deepest in the value) speaks, unless
    /// every item failed at the value itself.
    fn one_of(
        &self,
        ty: &Type,
        items: &[Type],
        v: &Value,
        path: &mut String,
        out: &mut Vec<Found>,
    ) {
        let mut best: Option<Vec<Found>> = None;
        for item in items {
            let mut found = Vec::new();
            self.check(item, v, path, &mut found);
            if found.is_empty() {
                return;
            }
            let depth = |f: &[Found]| f.first().map_or(0, |(at, ..)| at.len());
            if best.as_ref().is_none_or(|b| depth(&found) > depth(b)) {
                best = Some(found);
            }
        }
        match best {
            Some(found) if found.first().is_some_and(|(at, ..)| at != path) => out.extend(found),
            _ => mismatch(ty, v, path, out),
        }
    }
}

/// Runs `f` with `path` extended by one JSON Pointer token.
fn within(path: &mut String, token: &str, f: impl FnOnce(&mut String)) {
    let len = path.len();
    path.push('/');
    path.push_str(&token.replace('~', "~0").replace('/', "~1"));
    f(path);
    path.truncate(len);
}

fn mismatch(ty: &Type, v: &Value, path: &str, out: &mut Vec<Found>) {
    out.push((
        path.to_owned(),
        Problem::Mismatch,
        format!("expected {}, got {}", describe(ty), shown(v)),
    ));
}

fn finish(subject: String, mut found: Vec<Found>) -> Vec<ShapeError> {
    found.truncate(PER_MESSAGE);
    found
        .into_iter()
        .map(|(path, problem, message)| ShapeError {
            subject: subject.clone(),
            path: if path.is_empty() {
                "/".to_owned()
            } else {
                path
            },
            problem,
            message,
        })
        .collect()
}

/// LSP's base types ("Base Types": integer and uinteger are 32-bit).
fn base(name: &str, v: &Value) -> bool {
    let whole = |v: &Value| {
        v.as_i64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 1e10)
                .map(|f| f as i64)
        })
    };
    match name {
        "string" | "DocumentUri" | "URI" | "RegExp" => v.is_string(),
        "integer" => whole(v).is_some_and(|n| i32::try_from(n).is_ok()),
        "uinteger" => whole(v).is_some_and(|n| (0..=i64::from(i32::MAX)).contains(&n)),
        "decimal" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        // A base type newer than this code: not held against the value.
        _ => true,
    }
}

fn base_of(ty: &Type, v: &Value) -> bool {
    match ty {
        Type::Base { name } => base(name, v),
        _ => true,
    }
}

/// Enumeration values compare as JSON, numbers by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// A type as the specification writes it.
fn describe(ty: &Type) -> String {
    match ty {
        Type::Base { name } | Type::Reference { name } => name.clone(),
        Type::Array { element } => match **element {
            Type::Or { .. } | Type::And { .. } => format!("({})[]", describe(element)),
            _ => format!("{}[]", describe(element)),
        },
        Type::Map { key, value } => format!("{{ [key: {}]: {} }}", describe(key), describe(value)),
        Type::And { items } => items.iter().map(describe).collect::<Vec<_>>().join(" & "),
        Type::Or { items } => items.iter().map(describe).collect::<Vec<_>>().join(" | "),
        Type::Tuple { items } => format!(
            "[{}]",
            items.iter().map(describe).collect::<Vec<_>>().join(", ")
        ),
        Type::Literal { value } => {
            let members: Vec<String> = value
                .properties
                .iter()
                .map(|p| format!("{}{}", p.name, if p.optional { "?" } else { "" }))
                .collect();
            format!("{{ {} }}", members.join(", "))
        }
        Type::StringLiteral { value } => format!("{value:?}"),
        Type::IntegerLiteral { value } => value.to_string(),
        Type::BooleanLiteral { value } => value.to_string(),
    }
}

/// A value as a finding shows it: a scalar itself (cut at 60 bytes), a
/// container by its kind.
fn shown(v: &Value) -> String {
    match v {
        Value::Object(_) => "an object".into(),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::String(s) if s.len() > 60 => {
            let cut = (0..=60).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            format!("the string {:?}…", &s[..cut])
        }
        Value::String(s) => format!("the string {s:?}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paths(found: &[ShapeError]) -> Vec<(&str, &str)> {
        found
            .iter()
            .map(|e| (e.path.as_str(), e.message.as_str()))
            .collect()
    }

    #[test]
    fn the_vendored_meta_model_names_the_lifecycle_and_every_reference_resolves() {
        let m = model();
        assert_eq!(m.version(), "3.18.0");
        for method in [
            "initialize",
            "shutdown",
            "initialized",
            "exit",
            "$/cancelRequest",
            "window/logMessage",
        ] {
            assert!(m.knows(method), "{method}");
        }
        // Every name a type refers to is defined: a typo in the file would
        // silently check nothing.
        fn names<'t>(ty: &'t Type, out: &mut Vec<&'t str>) {
            match ty {
                Type::Reference { name } => out.push(name),
                Type::Array { element } => names(element, out),
                Type::Map { key, value } => {
                    names(key, out);
                    names(value, out);
                }
                Type::And { items } | Type::Or { items } | Type::Tuple { items } => {
                    items.iter().for_each(|t| names(t, out))
                }
                Type::Literal { value } => value.properties.iter().for_each(|p| names(&p.ty, out)),
                _ => {}
            }
        }
        let mut all = Vec::new();
        for s in m.structures.values() {
            s.properties.iter().for_each(|p| names(&p.ty, &mut all));
            s.extends
                .iter()
                .chain(&s.mixins)
                .for_each(|t| names(t, &mut all));
        }
        for call in m.requests.values().chain(m.notifications.values()) {
            call.params
                .iter()
                .chain(&call.result)
                .for_each(|t| names(t, &mut all));
        }
        m.aliases.values().for_each(|a| names(&a.ty, &mut all));
        let unknown: Vec<&&str> = all
            .iter()
            .filter(|n| {
                !m.structures.contains_key(**n)
                    && !m.enumerations.contains_key(**n)
                    && !m.aliases.contains_key(**n)
            })
            .collect();
        assert!(unknown.is_empty(), "{unknown:?}");
    }

    #[test]
    fn a_well_formed_initialize_exchange_fits() {
        let m = model();
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "rootUri": null, "capabilities": {},
            "clientInfo": {"name": "rpcspec"}, "trace": "off", "workspaceFolders": null,
        }});
        assert_eq!(m.call(&request), []);
        let reply = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "capabilities": {"textDocumentSync": 2, "hoverProvider": true,
                "completionProvider": {"triggerCharacters": ["."]},
                "workspace": {"workspaceFolders": {"supported": true, "changeNotifications": "id"}}},
            "serverInfo": {"name": "s", "version": "1"},
        }});
        assert_eq!(m.reply("initialize", &reply), []);
        let log = json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 5, "message": "debug"}});
        assert_eq!(m.call(&log), []);
        assert_eq!(m.reply("shutdown", &json!({"id": 2, "result": null})), []);
        // Errors, and methods the meta-model does not name, are not its to check.
        assert_eq!(
            m.reply(
                "initialize",
                &json!({"id": 1, "error": {"code": 1, "message": "x"}})
            ),
            []
        );
        assert_eq!(
            m.call(&json!({"method": "rpcspec/echo", "params": [1]})),
            []
        );
    }

    #[test]
    fn each_way_to_miss_a_type_is_found_where_it_is() {
        let m = model();
        let reply = json!({"id": 1, "result": {
            "capabilities": {"textDocumentSync": "full", "hoverProvider": "yes",
                "positionEncoding": 8},
            "serverInfo": {"version": "1"},
        }});
        let found = m.reply("initialize", &reply);
        assert_eq!(found[0].subject, "`initialize` result (InitializeResult)");
        assert_eq!(
            paths(&found),
            [
                (
                    "/result/capabilities/positionEncoding",
                    "expected PositionEncodingKind (\"utf-8\" UTF8, \"utf-16\" UTF16, \"utf-32\" UTF32, or any other), got 8"
                ),
                (
                    "/result/capabilities/textDocumentSync",
                    "expected TextDocumentSyncOptions | TextDocumentSyncKind, got the string \"full\""
                ),
                (
                    "/result/capabilities/hoverProvider",
                    "expected boolean | HoverOptions, got the string \"yes\""
                ),
                (
                    "/result/serverInfo",
                    "ServerInfo has no `name` (string), which is not optional"
                ),
            ]
        );
        let log = json!({"method": "window/logMessage", "params": {"type": 9, "message": null}});
        assert_eq!(
            paths(&m.call(&log)),
            [
                (
                    "/params/type",
                    "expected MessageType (1 Error, 2 Warning, 3 Info, 4 Log, 5 Debug), got 9"
                ),
                ("/params/message", "expected string, got null"),
            ]
        );
        // 32-bit integers; an alias by its name.
        let diagnostics = json!({"method": "textDocument/publishDiagnostics", "params": {
            "uri": "file:///a", "version": 4294967296u64, "diagnostics": [
                {"range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}},
                 "message": "m", "data": {"any": [1, {"thing": null}]}, "code": 1.5}]}});
        assert_eq!(
            paths(&m.call(&diagnostics)),
            [
                ("/params/version", "expected integer, got 4294967296"),
                (
                    "/params/diagnostics/0/range/start/line",
                    "expected uinteger, got -1"
                ),
                (
                    "/params/diagnostics/0/code",
                    "expected integer | string, got 1.5"
                ),
            ]
        );
        // Absent params where `{}` would not do; null for an optional member.
        let found = m.call(&json!({"id": 1, "method": "initialize"}));
        assert_eq!(found[0].problem, Problem::Missing);
        assert_eq!(m.call(&json!({"method": "initialized"})), []);
        let found = m.call(
            &json!({"method": "window/logMessage", "params": {"type": 1, "message": "m"}, "x": 1}),
        );
        assert_eq!(found, []);
        let found = m.reply(
            "initialize",
            &json!({"id": 1, "result": {"capabilities": {"hoverProvider": null}}}),
        );
        assert_eq!(found[0].problem, Problem::NullOptional);
        assert_eq!(found[0].path, "/result/capabilities/hoverProvider");
    }
}
