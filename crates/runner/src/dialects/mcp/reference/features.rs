//! What the reference server offers, the same in every revision but for
//! the shapes: its tools, resources, prompt and completions, as pure
//! functions from arguments to a result or an error.

use serde_json::{Map, Value, json};

use super::{Quirk, RpcError};
use crate::dialects::mcp::Revision;

/// The log levels of RFC 5424, lowest first (MCP server/utilities/logging).
pub(super) const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// A level's rank in [`LEVELS`]; `None` for a name that is none of them.
pub(super) fn level_rank(name: &str) -> Option<usize> {
    LEVELS.iter().position(|l| *l == name)
}

/// How many static resources there are, and how many a page lists.
const RESOURCES: usize = 5;
const PAGE: usize = 2;

/// The names `completion/complete` offers for `greet`'s `name`.
const NAMES: &[&str] = &["Ada", "Alan", "Alice", "Barbara", "Grace", "Linus"];

/// The tools of `revision`, in a fixed order (2026-07-28: "Servers SHOULD
/// return tools from `tools/list` in a deterministic order"). `roots`
/// exists where servers may send requests (legacy revisions only).
pub(super) fn tools(revision: Revision, quirk: Option<Quirk>) -> Vec<Value> {
    let text =
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let mut tools = vec![
        tool(
            "echo",
            "Returns its text",
            if quirk == Some(Quirk::InputSchemaNull) {
                Value::Null
            } else {
                text
            },
        ),
        tool(
            "add",
            "Adds two numbers",
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        ),
        tool(
            "fail",
            "Always fails, as a tool: a result with isError",
            json!({"type": "object"}),
        ),
        tool(
            "slow",
            "Answers after `ms` milliseconds, with progress when asked",
            json!({"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 60000}}, "required": ["ms"]}),
        ),
        tool(
            "log",
            "Emits a log message at a level",
            json!({"type": "object", "properties": {"level": {"type": "string", "enum": LEVELS}, "message": {"type": "string"}}, "required": ["level", "message"]}),
        ),
    ];
    if revision.server_requests() {
        tools.push(tool(
            "roots",
            "Asks the client for its roots (when it declared them)",
            json!({"type": "object"}),
        ));
    }
    if quirk == Some(Quirk::DuplicateToolNames) {
        tools.push(tools[0].clone());
    }
    tools
}

fn tool(name: &str, description: &str, input_schema: Value) -> Value {
    json!({"name": name, "description": description, "inputSchema": input_schema})
}

/// A tool's text result.
pub(super) fn text_result(text: impl Into<String>, is_error: bool) -> Value {
    let mut result = json!({"content": [{"type": "text", "text": text.into()}]});
    if is_error {
        result["isError"] = Value::Bool(true);
    }
    result
}

/// What a tool call asks for once its arguments are read.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ToolCall {
    /// Answer now.
    Done(Value),
    /// `slow`: answer after this many milliseconds.
    Slow(u64),
    /// `log`: emit at `level` (if allowed), then answer.
    Log { level: String, message: String },
    /// `roots`: ask the client.
    Roots,
    /// A fixture that asks the client `method` with these params.
    Ask(&'static str, Value),
}

/// Runs the tool `name` on `arguments`. Arguments that do not fit the
/// tool's input schema are a protocol error in 2025-06-18 ("Protocol
/// Errors … Invalid arguments") and a tool execution error from
/// 2025-11-25 ("Input validation errors" are reported with `isError`).
pub(super) fn call_tool(
    revision: Revision,
    name: &str,
    arguments: &Map<String, Value>,
    quirk: Option<Quirk>,
) -> Result<ToolCall, RpcError> {
    let invalid = |why: String| {
        if revision == Revision::V2025_06_18 {
            Err(RpcError::params(format!(
                "Invalid arguments for tool {name}: {why}"
            )))
        } else {
            Ok(ToolCall::Done(text_result(
                format!("Invalid arguments for tool {name}: {why}"),
                true,
            )))
        }
    };
    let known = tools(revision, None)
        .iter()
        .any(|t| t["name"].as_str() == Some(name));
    if !known {
        return Err(RpcError::params(format!("Unknown tool: {name}")));
    }
    match name {
        "echo" => match arguments.get("text").and_then(Value::as_str) {
            Some(text) => Ok(ToolCall::Done(text_result(text, false))),
            None => invalid("`text` must be a string".into()),
        },
        "add" => match (
            arguments.get("a").and_then(Value::as_f64),
            arguments.get("b").and_then(Value::as_f64),
        ) {
            (Some(a), Some(b)) => {
                let sum = arguments["a"]
                    .as_i64()
                    .zip(arguments["b"].as_i64())
                    .and_then(|(x, y)| x.checked_add(y))
                    .map_or_else(|| (a + b).to_string(), |s| s.to_string());
                Ok(ToolCall::Done(text_result(sum, false)))
            }
            _ => invalid("`a` and `b` must be numbers".into()),
        },
        "fail" if quirk == Some(Quirk::ToolErrorAsProtocolError) => Err(RpcError {
            code: -32603,
            message: "The tool failed, as asked".into(),
            data: None,
        }),
        "fail" => Ok(ToolCall::Done(text_result(
            "The tool failed, as asked",
            true,
        ))),
        "slow" => match arguments.get("ms").and_then(Value::as_u64) {
            Some(ms) if ms <= 60_000 => Ok(ToolCall::Slow(ms)),
            _ => invalid("`ms` must be an integer from 0 to 60000".into()),
        },
        "log" => match (
            arguments.get("level").and_then(Value::as_str),
            arguments.get("message").and_then(Value::as_str),
        ) {
            (Some(level), Some(message)) if level_rank(level).is_some() => Ok(ToolCall::Log {
                level: level.into(),
                message: message.into(),
            }),
            _ => invalid("`level` must be a log level and `message` a string".into()),
        },
        _ => Ok(ToolCall::Roots),
    }
}

/// An opaque cursor for the page that starts at `offset`.
fn cursor(offset: usize) -> String {
    format!("{:x}", 0x5eed_0000_u64 + offset as u64)
}

/// The offset a cursor stands for, if this server issued it.
fn offset_of(cursor: &str) -> Option<usize> {
    let n = u64::from_str_radix(cursor, 16)
        .ok()?
        .checked_sub(0x5eed_0000)?;
    let n = usize::try_from(n).ok()?;
    (n > 0 && n < RESOURCES && n % PAGE == 0 && cursor.len() == 8).then_some(n)
}

/// Where a list starts: the first page, or the cursor's.
fn start(
    params: &Map<String, Value>,
    paged: bool,
    quirk: Option<Quirk>,
) -> Result<usize, RpcError> {
    match params.get("cursor") {
        None => Ok(0),
        Some(Value::String(c)) => match paged.then(|| offset_of(c)).flatten() {
            Some(n) => Ok(n),
            None if quirk == Some(Quirk::InvalidCursorOk) => Ok(0),
            None => Err(RpcError::params(format!("Invalid cursor: {c}"))),
        },
        Some(_) => Err(RpcError::params("`cursor` must be a string")),
    }
}

/// A list that fits one page: an invalid cursor is still an error
/// (server/utilities/pagination: "Invalid cursors SHOULD result in an
/// error with code -32602").
pub(super) fn one_page(
    params: &Map<String, Value>,
    key: &str,
    items: Vec<Value>,
    quirk: Option<Quirk>,
) -> Result<Value, RpcError> {
    start(params, false, quirk)?;
    Ok(json!({ key: items }))
}

/// The one binary resource: eight bytes, 0 to 7.
const BINARY: usize = RESOURCES;

fn mime_type(n: usize) -> &'static str {
    if n == BINARY {
        "application/octet-stream"
    } else {
        "text/plain"
    }
}

fn uri(n: usize) -> String {
    format!("rpcspec://static/{n}")
}

/// `resources/list`: five resources, two a page.
pub(super) fn list_resources(
    params: &Map<String, Value>,
    quirk: Option<Quirk>,
) -> Result<Value, RpcError> {
    let from = start(params, true, quirk)?;
    let to = (from + PAGE).min(RESOURCES);
    let resources: Vec<Value> = (from + 1..=to)
        .map(|n| json!({"uri": uri(n), "name": format!("static-{n}"), "mimeType": mime_type(n)}))
        .collect();
    let mut result = json!({ "resources": resources });
    if to < RESOURCES {
        result["nextCursor"] = Value::String(cursor(to));
    } else if quirk == Some(Quirk::EndlessPagination) {
        // Back to a page it already gave: the list never ends.
        result["nextCursor"] = Value::String(cursor(PAGE));
    }
    Ok(result)
}

/// `resources/templates/list`: one template.
pub(super) fn list_templates(
    params: &Map<String, Value>,
    quirk: Option<Quirk>,
) -> Result<Value, RpcError> {
    one_page(
        params,
        "resourceTemplates",
        vec![
            json!({"uriTemplate": "rpcspec://static/{n}", "name": "static-by-number", "mimeType": "text/plain"}),
        ],
        quirk,
    )
}

/// `resources/read`.
pub(super) fn read_resource(
    revision: Revision,
    params: &Map<String, Value>,
    quirk: Option<Quirk>,
) -> Result<Value, RpcError> {
    let Some(asked) = params.get("uri").and_then(Value::as_str) else {
        return Err(RpcError::params("`uri` must be a string"));
    };
    match (1..=RESOURCES).find(|n| uri(*n) == asked) {
        Some(BINARY) if quirk == Some(Quirk::BinaryUnreadable) => Err(RpcError {
            code: -32603,
            message: "Cannot read binary resources".into(),
            data: None,
        }),
        Some(n) => {
            let mut contents = json!({"uri": asked, "mimeType": mime_type(n)});
            if n == BINARY {
                contents["blob"] = json!(if quirk == Some(Quirk::BlobNotBase64) {
                    // The bytes as text, not encoded.
                    "\u{1}\u{2}\u{3} not base64"
                } else {
                    "AAECAwQFBgc="
                });
            } else {
                contents["text"] = json!(format!("This is static resource {n}."));
            }
            if quirk == Some(Quirk::ContentsWithoutUri) {
                contents.as_object_mut().expect("an object").remove("uri");
            }
            Ok(json!({ "contents": [contents] }))
        }
        None if quirk == Some(Quirk::WrongResourceError) => Ok(json!({"contents": []})),
        None => Err(RpcError {
            code: revision.resource_not_found(),
            message: "Resource not found".into(),
            data: (quirk != Some(Quirk::NotFoundWithoutUri)).then(|| json!({ "uri": asked })),
        }),
    }
}

/// `prompts/list`: `greet`.
pub(super) fn prompts() -> Vec<Value> {
    vec![json!({
        "name": "greet",
        "description": "Greets someone by name",
        "arguments": [{"name": "name", "description": "Who to greet", "required": true}],
    })]
}

/// `prompts/get` (server/prompts, "Error Handling": an invalid prompt name
/// or a missing required argument is -32602).
pub(super) fn get_prompt(
    params: &Map<String, Value>,
    quirk: Option<Quirk>,
) -> Result<Value, RpcError> {
    match params.get("name").and_then(Value::as_str) {
        Some("greet") => {}
        Some(other) => return Err(RpcError::params(format!("Unknown prompt: {other}"))),
        None => return Err(RpcError::params("`name` must be a string")),
    }
    let name = params
        .get("arguments")
        .and_then(|a| a.get("name"))
        .and_then(Value::as_str);
    let name = match name {
        Some(name) => name,
        None if quirk == Some(Quirk::MissingArgumentOk) => "",
        None => return Err(RpcError::params("Missing required argument: name")),
    };
    let mut content = json!({"type": "text", "text": format!("Please greet {name}.")});
    if quirk == Some(Quirk::PromptContentUntyped) {
        content.as_object_mut().expect("an object").remove("type");
    }
    Ok(json!({
        "description": "A greeting",
        "messages": [{"role": "user", "content": content}],
    }))
}

/// `completion/complete`: `greet`'s `name` from a list of names, the
/// template's `n` from the resources' numbers.
pub(super) fn complete(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let reference = params.get("ref").and_then(Value::as_object);
    let argument = params.get("argument").and_then(Value::as_object);
    let (Some(reference), Some(argument)) = (reference, argument) else {
        return Err(RpcError::params("`ref` and `argument` must be objects"));
    };
    let (Some(name), Some(prefix)) = (
        argument.get("name").and_then(Value::as_str),
        argument.get("value").and_then(Value::as_str),
    ) else {
        return Err(RpcError::params(
            "`argument` needs a string `name` and `value`",
        ));
    };
    let kind = reference.get("type").and_then(Value::as_str);
    let candidates: Vec<String> = match (kind, name) {
        (Some("ref/prompt"), "name")
            if reference.get("name").and_then(Value::as_str) == Some("greet") =>
        {
            NAMES.iter().map(|n| (*n).to_owned()).collect()
        }
        (Some("ref/resource"), "n")
            if reference.get("uri").and_then(Value::as_str) == Some("rpcspec://static/{n}") =>
        {
            (1..=RESOURCES).map(|n| n.to_string()).collect()
        }
        (Some("ref/prompt" | "ref/resource"), _) => {
            return Err(RpcError::params(format!(
                "Nothing to complete for argument {name} of this reference"
            )));
        }
        _ => {
            return Err(RpcError::params(
                "`ref.type` must be ref/prompt or ref/resource",
            ));
        }
    };
    let values: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.starts_with(prefix))
        .collect();
    Ok(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_only_the_ones_issued() {
        assert_eq!(offset_of(&cursor(2)), Some(2));
        assert_eq!(offset_of(&cursor(4)), Some(4));
        for bad in [
            cursor(0),
            cursor(1),
            cursor(6),
            "".into(),
            "zz".into(),
            "05eed0002".into(),
        ] {
            assert_eq!(offset_of(&bad), None, "{bad}");
        }
    }
}
