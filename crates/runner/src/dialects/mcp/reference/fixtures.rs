//! The official conformance suite's fixtures (`rpcspec serve --dialect mcp
//! --fixtures conformance`), as its scenarios describe them
//! (modelcontextprotocol/conformance 0.2.0-alpha.11,
//! `src/scenarios/server/`): so the `mcp/fixtures/…` checks have a
//! reference to pass. Pure data and functions, like `features.rs`.

use serde_json::{Value, json};

use super::Quirk;

/// A 1×1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
/// A WAV of one sample, base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The fixture tools, with empty input schemas.
pub(super) fn tools() -> Vec<Value> {
    [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_error_handling",
        "test_tool_with_progress",
        "test_tool_with_logging",
    ]
    .into_iter()
    .map(|name| {
        json!({"name": name, "description": format!("The conformance suite's {name}"),
               "inputSchema": {"type": "object"}})
    })
    .collect()
}

/// What a fixture tool does.
pub(super) enum Call {
    /// Answer with this result.
    Done(Value),
    /// Answer later, with progress (`test_tool_with_progress`).
    Progress,
    /// Three log messages, then the result (`test_tool_with_logging`).
    Logs(Value),
    /// Ask the client (`method` with `params`), then answer with what it
    /// said (2025-11-25: `test_sampling`, `test_elicitation…`).
    Ask(&'static str, Value),
}

/// The fixture tools that ask the client, listed where servers may send
/// requests (before 2026-07-28).
pub(super) fn asking_tools() -> Vec<Value> {
    [
        "test_sampling",
        "test_elicitation",
        "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums",
    ]
    .into_iter()
    .map(|name| {
        json!({"name": name, "description": format!("The conformance suite's {name}"),
               "inputSchema": {"type": "object"}})
    })
    .collect()
}

/// The `requestedSchema` of `test_elicitation_sep1034_defaults`: a
/// default for every primitive type (SEP-1034).
fn defaults(quirk: Option<Quirk>) -> Value {
    let mut schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status",
                   "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": true},
    }, "required": []});
    if quirk == Some(Quirk::FixtureDefaultMissing) {
        schema["properties"]["age"]
            .as_object_mut()
            .expect("an object")
            .remove("default");
    }
    schema
}

/// The `requestedSchema` of `test_elicitation_sep1330_enums`: the five
/// enum shapes of SEP-1330.
fn enums(quirk: Option<Quirk>) -> Value {
    let titled = |titles: [&str; 3]| -> Vec<Value> {
        titles
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"const": format!("value{}", i + 1), "title": t}))
            .collect()
    };
    let single = if quirk == Some(Quirk::FixtureTitledEnumAsEnum) {
        json!({"type": "string", "description": "Titled", "enum": ["value1", "value2", "value3"]})
    } else {
        json!({"type": "string", "description": "Titled",
               "oneOf": titled(["First Option", "Second Option", "Third Option"])})
    };
    json!({"type": "object", "properties": {
        "untitledSingle": {"type": "string", "description": "Untitled", "enum": ["option1", "option2", "option3"]},
        "titledSingle": single,
        "legacyEnum": {"type": "string", "description": "Legacy", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Untitled multi", "minItems": 1, "maxItems": 3,
                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Titled multi", "minItems": 1, "maxItems": 3,
                        "items": {"anyOf": titled(["First Choice", "Second Choice", "Third Choice"])}},
    }, "required": []})
}

/// The fixture tool `name`, if it is one.
pub(super) fn call(name: &str, quirk: Option<Quirk>) -> Option<Call> {
    let text = |t: &str| json!({"type": "text", "text": t});
    let image = json!({"type": "image", "data": PNG, "mimeType": "image/png"});
    let content = |items: Vec<Value>| json!({ "content": items });
    Some(Call::Done(match name {
        "test_simple_text" => content(vec![text("This is a simple text response for testing.")]),
        "test_image_content" if quirk == Some(Quirk::FixtureImageNoMime) => {
            content(vec![json!({"type": "image", "data": PNG})])
        }
        "test_image_content" => content(vec![image]),
        "test_audio_content" => {
            let mime = if quirk == Some(Quirk::FixtureAudioMp3) {
                "audio/mpeg"
            } else {
                "audio/wav"
            };
            content(vec![
                json!({"type": "audio", "data": WAV, "mimeType": mime}),
            ])
        }
        "test_embedded_resource" => content(vec![json!({"type": "resource", "resource":
            {"uri": "test://embedded-resource", "mimeType": "text/plain",
             "text": "This is an embedded resource content."}})]),
        "test_multiple_content_types" => content(vec![
            text("Multiple content types test:"),
            image,
            json!({"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                   "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}),
        ]),
        "test_error_handling" => {
            let mut result = content(vec![text(
                "This tool intentionally returns an error for testing",
            )]);
            result["isError"] = Value::Bool(true);
            result
        }
        "test_tool_with_progress" => return Some(Call::Progress),
        "test_sampling" if quirk == Some(Quirk::FixtureSamplingUnasked) => {
            content(vec![text("LLM response: (not asked)")])
        }
        "test_sampling" => {
            return Some(Call::Ask(
                "sampling/createMessage",
                json!({"messages": [{"role": "user", "content": {"type": "text",
                       "text": "Test prompt for sampling"}}], "maxTokens": 100}),
            ));
        }
        "test_elicitation" => {
            return Some(Call::Ask(
                "elicitation/create",
                json!({"message": "Please provide your information", "requestedSchema":
                    {"type": "object", "properties": {
                        "username": {"type": "string", "description": "User's response"},
                        "email": {"type": "string", "description": "User's email address"}},
                     "required": ["username", "email"]}}),
            ));
        }
        "test_elicitation_sep1034_defaults" => {
            return Some(Call::Ask(
                "elicitation/create",
                json!({"message": "Please review and update the form fields with defaults",
                       "requestedSchema": defaults(quirk)}),
            ));
        }
        "test_elicitation_sep1330_enums" => {
            return Some(Call::Ask(
                "elicitation/create",
                json!({"message": "Please select options from the enum fields",
                       "requestedSchema": enums(quirk)}),
            ));
        }
        "test_tool_with_logging" => {
            return Some(Call::Logs(content(vec![text(
                "Tool with logging executed successfully",
            )])));
        }
        _ => return None,
    }))
}

/// The log messages of `test_tool_with_logging`.
pub(super) const LOGS: &[&str] = &[
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

/// The fixture resources, as `resources/list` lists them.
pub(super) fn resources() -> Vec<Value> {
    vec![
        json!({"uri": "test://static-text", "name": "static-text", "mimeType": "text/plain"}),
        json!({"uri": "test://static-binary", "name": "static-binary", "mimeType": "image/png"}),
    ]
}

/// The fixture template.
pub(super) fn template() -> Value {
    json!({"uriTemplate": "test://template/{id}/data", "name": "template", "mimeType": "application/json"})
}

/// `resources/read` of a fixture URI, if it is one.
pub(super) fn read(uri: &str, quirk: Option<Quirk>) -> Option<Value> {
    let item = match uri {
        "test://static-text" => json!({"uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource."}),
        "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG}),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let data = if quirk == Some(Quirk::FixtureTemplateUnfilled) {
                "{id}"
            } else {
                id
            };
            json!({"uri": uri, "mimeType": "application/json",
                   "text": json!({"id": data, "templateTest": true}).to_string()})
        }
    };
    Some(json!({ "contents": [item] }))
}

/// The fixture prompts, as `prompts/list` lists them.
pub(super) fn prompts() -> Vec<Value> {
    let arg = |name: &str| json!({"name": name, "description": name, "required": true});
    vec![
        json!({"name": "test_simple_prompt", "description": "A simple prompt"}),
        json!({"name": "test_prompt_with_arguments", "description": "A prompt with arguments",
               "arguments": [arg("arg1"), arg("arg2")]}),
        json!({"name": "test_prompt_with_embedded_resource", "description": "A prompt embedding a resource",
               "arguments": [arg("resourceUri")]}),
        json!({"name": "test_prompt_with_image", "description": "A prompt with an image"}),
    ]
}

/// `prompts/get` of a fixture prompt: `None` if it is none, `Some(Err)`
/// for a required argument missing.
pub(super) fn get_prompt(name: &str, arguments: &Value) -> Option<Result<Value, String>> {
    let user = |content: Value| json!({"role": "user", "content": content});
    let text = |t: String| user(json!({"type": "text", "text": t}));
    let arg = |a: &str| arguments.get(a).and_then(Value::as_str).map(str::to_owned);
    let messages = match name {
        "test_simple_prompt" => vec![text("This is a simple prompt for testing.".into())],
        "test_prompt_with_arguments" => match (arg("arg1"), arg("arg2")) {
            (Some(a), Some(b)) => vec![text(format!(
                "Prompt with arguments: arg1='{a}', arg2='{b}'"
            ))],
            _ => return Some(Err("Missing required arguments: arg1, arg2".into())),
        },
        "test_prompt_with_embedded_resource" => match arg("resourceUri") {
            Some(uri) => vec![
                user(
                    json!({"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain",
                            "text": "Embedded resource content for testing."}}),
                ),
                text("Please process the embedded resource above.".into()),
            ],
            None => return Some(Err("Missing required argument: resourceUri".into())),
        },
        "test_prompt_with_image" => vec![
            user(json!({"type": "image", "data": PNG, "mimeType": "image/png"})),
            text("Please analyze the image above.".into()),
        ],
        _ => return None,
    };
    Some(Ok(json!({ "messages": messages })))
}
