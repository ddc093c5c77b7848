//! `tools/call` on the reference: its own tools, the fixtures with
//! `--fixtures conformance`, and what each does besides answering (a
//! `slow` call answered later, log messages, a `roots/list` of its own).

use serde_json::{Map, Value, json};

use super::{
    Answer, Asked, Call, Quirk, RpcError, Server, Session, Slow, ToolCall, features, fixtures,
    level_rank, request_text, text_result, wire::Out,
};
use crate::dialects::mcp::Revision;

impl Server {
    pub(super) fn call_tool(
        &mut self,
        revision: Revision,
        call: &Call<'_>,
        params: &Map<String, Value>,
        logs: &dyn Fn(usize) -> bool,
        out: &mut Out,
    ) -> Answer {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(RpcError::params("`name` must be a string"));
        };
        let empty = Map::new();
        let arguments = match params.get("arguments") {
            None => &empty,
            Some(Value::Object(a)) => a,
            Some(_) => return Err(RpcError::params("`arguments` must be an object")),
        };
        let legacy = revision.has_initialize();
        let fixture = if self.fixtures {
            fixtures::call(name, self.quirk)
        } else {
            None
        };
        let tool_call = match fixture {
            Some(fixtures::Call::Done(result)) => ToolCall::Done(result),
            Some(fixtures::Call::Progress) => ToolCall::Slow(200),
            Some(fixtures::Call::Logs(result)) => {
                let info = level_rank("info").expect("a level");
                if logs(info) {
                    for message in fixtures::LOGS {
                        out.notify(
                            "notifications/message",
                            json!({"level": "info", "logger": "rpcspec-reference", "data": message}),
                        );
                    }
                }
                ToolCall::Done(result)
            }
            // Servers of 2026-07-28 send no requests.
            Some(fixtures::Call::Ask(..)) if !legacy => ToolCall::Done(text_result(
                format!("{name} asks the client: a 2025-11-25 fixture"),
                true,
            )),
            Some(fixtures::Call::Ask(method, params)) => ToolCall::Ask(method, params),
            None => features::call_tool(revision, name, arguments, self.quirk)?,
        };
        match tool_call {
            ToolCall::Done(result) => {
                if name == "echo" && legacy && self.quirk(Quirk::SamplingUndeclared) {
                    let id = self.server_id();
                    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}], "maxTokens": 50});
                    out.lines
                        .push(request_text(&id, "sampling/createMessage", Some(params)));
                }
                Ok(Some(result))
            }
            ToolCall::Slow(ms) => {
                let token = params
                    .get("_meta")
                    .and_then(|m| m.get("progressToken"))
                    .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
                    .cloned();
                self.slow.push(Slow {
                    id: call.id.clone(),
                    raw: call.raw.clone(),
                    modern: !legacy,
                    start: call.now,
                    ms,
                    token,
                    sent: 0,
                });
                Ok(None)
            }
            ToolCall::Log { level, message } => {
                let rank = level_rank(&level).expect("a known level");
                let sent = logs(rank);
                if sent {
                    out.notify(
                        "notifications/message",
                        json!({"level": level, "logger": "rpcspec-reference", "data": message}),
                    );
                }
                let said = if sent {
                    "logged"
                } else {
                    "below the log level"
                };
                Ok(Some(text_result(said, false)))
            }
            ToolCall::Roots => Ok(self.ask_client(call, "roots/list", None, out)),
            ToolCall::Ask(method, params) => Ok(self.ask_client(call, method, Some(params), out)),
        }
    }

    /// Asks the client `method` for the tool call `call`, if it declared
    /// the capability (`roots`, `sampling`, `elicitation`); the call is
    /// answered once the client is ([`Server::answered`]).
    fn ask_client(
        &mut self,
        call: &Call<'_>,
        method: &'static str,
        params: Option<Value>,
        out: &mut Out,
    ) -> Option<Value> {
        let capability = method.split('/').next().unwrap_or_default();
        let declared = match &self.session {
            Session::Ready { client, .. } => client.get(capability).is_some(),
            _ => false,
        };
        if !declared {
            return Some(text_result(
                format!("The client did not declare the {capability} capability"),
                true,
            ));
        }
        let server_id = self.server_id();
        out.lines.push(request_text(&server_id, method, params));
        self.asked.push(Asked {
            server_id,
            method,
            call: call.id.clone(),
            raw: call.raw.clone(),
        });
        None
    }
}
