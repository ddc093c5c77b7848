//! The reference producers (`rpcspec serve --role producer --profile P`),
//! built on the framer: what every producer check passes against.

use std::{
    io::{self, Read, Write},
    thread,
    time::Duration,
};

use rpcspec_framer::{Config, Event, read::Events};
use serde_json::{Value, json};

use super::Profile;

/// Pause between tokens: a stream is produced over time, as a model would.
const TOKEN_PAUSE: Duration = Duration::from_millis(1);

/// The `events` stream answering one request line `{"prompt": …}`:
/// `start`, a `token` per word of the prompt, `meta`, `done`; or `start`
/// then `error` when the line is not a request with a non-empty prompt
/// (over stdio there is no status to refuse it with before the stream).
pub fn records(input: Option<&str>) -> Vec<Value> {
    let start = json!({"type": "start",
        "data": {"request_id": "req-1", "model": "rpcspec-reference"}});
    let prompt = input
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .and_then(|v| v.get("prompt").and_then(Value::as_str).map(str::to_owned));
    let failure = match (input, &prompt) {
        (None, _) => Some(("NO_INPUT", "stdin closed before a request line")),
        (Some(_), None) => Some(("INVALID_INPUT", "prompt is required")),
        (Some(_), Some(t)) if t.trim().is_empty() => Some(("INVALID_INPUT", "prompt is empty")),
        _ => None,
    };
    if let Some((code, message)) = failure {
        return vec![
            start,
            json!({"type": "error", "data": {"code": code, "message": message}}),
        ];
    }
    let words: Vec<&str> = prompt.as_deref().unwrap_or("").split_whitespace().collect();
    let mut out = vec![start];
    for (i, w) in words.iter().enumerate() {
        let sep = if i + 1 < words.len() { " " } else { "" };
        out.push(json!({"type": "token", "data": {"content": format!("{w}{sep}")}}));
    }
    out.push(json!({"type": "meta",
        "data": {"total_tokens": words.len(), "finish_reason": "stop"}}));
    out.push(json!({"type": "done"}));
    out
}

/// Writes `value` as one line and flushes it.
pub fn emit(out: &mut impl Write, value: &Value) -> io::Result<()> {
    let mut line = serde_json::to_vec(value).map_err(io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Serves the reference producer of `profile` on `input`/`output`. With
/// `ask`, the Claude reference asks permission for a tool with a control
/// request, as Claude Code does with `--permission-prompt-tool stdio`;
/// without, it declines to use the tool.
pub fn serve(
    profile: &Profile,
    ask: bool,
    input: impl Read,
    mut output: impl Write,
) -> io::Result<()> {
    let mut lines = lines(input);
    match profile.name.as_str() {
        "events" => {
            let first = lines.next().transpose()?;
            for (i, record) in records(first.as_deref()).iter().enumerate() {
                if i > 0 {
                    thread::sleep(TOKEN_PAUSE);
                }
                emit(&mut output, record)?;
            }
            Ok(())
        }
        "claude" => claude(ask, &mut lines, &mut output, &mut claude_answer),
        other => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("no reference producer for profile `{other}` (shipped: events, claude)"),
        )),
    }
}

/// The lines of `input`, as the framer reads them (problems skipped).
fn lines(input: impl Read) -> impl Iterator<Item = io::Result<String>> {
    Events::new(input, Config::default()).filter_map(|e| match e {
        Ok(Event::Line(l)) => Some(Ok(String::from_utf8_lossy(&l.bytes).into_owned())),
        Ok(Event::Problem(_)) => None,
        Err(e) => Some(Err(e)),
    })
}

/// [`serve`] for the `claude` profile, each line that is not a user turn
/// given to `answer` ([`claude_answer`] is the reference's): for mutants
/// that answer the control protocol their own way.
pub fn serve_claude(
    ask: bool,
    input: impl Read,
    mut output: impl Write,
    answer: &mut dyn FnMut(&Value) -> Vec<Value>,
) -> io::Result<()> {
    claude(ask, &mut lines(input), &mut output, answer)
}

/// The text of a stream-json user record's content.
fn content(v: &Value) -> String {
    match v.pointer("/message/content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

fn assistant(text: &str) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "text", "text": text}]}, "session_id": "session-1"})
}

/// The reference's answer to a line of its input that is not a user turn:
/// a `control_request` with a `request_id` is answered once by that id,
/// `success` for what it serves (`initialize`, `interrupt`,
/// `set_permission_mode`, `set_model`, `mcp_status`) and `error` for any
/// other subtype or a request it cannot read; anything else (a
/// `keep_alive`, a cancel, an unknown type, a request without an id) gets
/// nothing.
pub fn claude_answer(line: &Value) -> Vec<Value> {
    if line.get("type").and_then(Value::as_str) != Some("control_request") {
        return Vec::new();
    }
    let Some(id) = line.get("request_id") else {
        return Vec::new();
    };
    let response = match line.pointer("/request/subtype").and_then(Value::as_str) {
        Some("initialize") => json!({"subtype": "success", "request_id": id,
            "response": {"commands": [], "models": []}}),
        Some("interrupt" | "set_model") => json!({"subtype": "success", "request_id": id}),
        Some("set_permission_mode") => json!({"subtype": "success", "request_id": id,
            "response": {"mode": line.pointer("/request/mode")}}),
        Some("mcp_status") => json!({"subtype": "success", "request_id": id,
            "response": {"mcpServers": []}}),
        Some(other) => json!({"subtype": "error", "request_id": id,
            "error": format!("Unsupported control request subtype: {other}")}),
        None => json!({"subtype": "error", "request_id": id,
            "error": "a control request needs a `request` object with a string `subtype`"}),
    };
    vec![json!({"type": "control_response", "response": response})]
}

/// A Claude Code stream-json session: a `system` init record, then per user
/// turn assistant records and a `result`; with `ask`, a turn that mentions
/// a tool asks permission with a `control_request` first and waits for its
/// answer. Every other line gets what `answer` makes of it
/// ([`claude_answer`], or a mutant's).
fn claude(
    ask: bool,
    lines: &mut impl Iterator<Item = io::Result<String>>,
    out: &mut impl Write,
    answer: &mut dyn FnMut(&Value) -> Vec<Value>,
) -> io::Result<()> {
    let mut turn = 0;
    let mut started = false;
    while let Some(line) = lines.next() {
        let line = line?;
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if value.get("type").and_then(Value::as_str) != Some("user") {
            for a in answer(&value) {
                emit(out, &a)?;
            }
            continue;
        }
        if !started {
            started = true;
            emit(
                out,
                &json!({"type": "system", "subtype": "init", "session_id": "session-1",
                    "model": "rpcspec-reference", "tools": ["Bash"]}),
            )?;
        }
        turn += 1;
        let text = content(&value);
        let tool = text.contains("tool") || text.contains("Bash");
        let reply = if tool && !ask {
            "Using Bash needs permission, and no one can be asked: not running it."
        } else if tool {
            let id = format!("req_{turn}_a1");
            emit(
                out,
                &json!({"type": "control_request", "request_id": id,
                    "request": {"subtype": "can_use_tool", "tool_name": "Bash",
                        "input": {"command": "ls"}}}),
            )?;
            // Wait for the host's answer to this request.
            let mut behaviour = None;
            for answer in lines.by_ref() {
                let answer: Value = match serde_json::from_str(&answer?) {
                    Ok(v) => v,
                    Err(_) => continue,
                };
                if answer
                    .pointer("/response/request_id")
                    .and_then(Value::as_str)
                    == Some(id.as_str())
                {
                    behaviour = answer
                        .pointer("/response/response/behavior")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    break;
                }
            }
            match behaviour.as_deref() {
                Some("allow") => "Ran `ls`: Cargo.toml README.md",
                Some(_) => "Permission denied; not running the tool.",
                None => return Ok(()),
            }
        } else {
            "Hello!"
        };
        emit(out, &assistant(reply))?;
        emit(
            out,
            &json!({"type": "result", "subtype": "success", "is_error": false,
                "result": reply, "num_turns": turn, "session_id": "session-1"}),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_stream_for_a_prompt_and_a_failure() {
        let good = records(Some(r#"{"prompt":"a b"}"#));
        let kinds: Vec<&str> = good.iter().map(|v| v["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["start", "token", "token", "meta", "done"]);
        assert_eq!(good[1]["data"]["content"], "a ");
        assert_eq!(good[3]["data"]["total_tokens"], 2);
        let bad = records(Some(r#"{"prompt":""}"#));
        assert_eq!(bad[1]["data"]["code"], "INVALID_INPUT");
        assert_eq!(
            records(Some("{}"))[1]["data"]["message"],
            "prompt is required"
        );
        assert_eq!(records(None)[1]["data"]["code"], "NO_INPUT");
    }
}
