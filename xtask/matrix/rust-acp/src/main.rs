//! The ACP adapter for the Rust SDK's client half: an editor whose user
//! says yes, declaring fs and terminal, making the ACP series against the
//! agent `{server}` and reporting each step on stdout.
//!
//!     rpcspec run --role client --dialect acp -- rpcspec-matrix-acp-client {server}

use std::{
    process::Command,
    sync::{Arc, Mutex},
    time::Duration,
};

use agent_client_protocol::{
    AcpAgent, Agent, Client, ConnectionTo, UntypedMessage,
    schema::v1::{
        ContentBlock, CreateTerminalRequest, CreateTerminalResponse, ReadTextFileRequest,
        ReadTextFileResponse, RequestPermissionOutcome, RequestPermissionRequest,
        RequestPermissionResponse, SelectedPermissionOutcome, SessionNotification, SessionUpdate,
        WriteTextFileRequest, WriteTextFileResponse,
    },
};
use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(3);
const CANCEL_ME: &str = "rpcspec: cancel me";

/// The turn in flight: its text, the session to cancel at its first sign,
/// and whether it was.
#[derive(Default)]
struct Turn {
    text: String,
    cancel: Option<String>,
    cancelled: bool,
}

/// The series' steps, in order.
const STEPS: [&str; 9] = [
    "initialize",
    "session",
    "prompt",
    "error",
    "echo-a",
    "echo-b",
    "echo-c",
    "cancel",
    "after",
];

/// The steps reported so far.
static REPORTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn report(line: Value) {
    if let Some(step) = line["step"].as_str() {
        REPORTED.lock().unwrap().push(step.to_owned());
    }
    println!("{line}");
}

/// Sends `session/cancel` for the armed turn of `session`, once.
fn cancel(turn: &Mutex<Turn>, session: &str, cx: &ConnectionTo<Agent>) {
    let mut t = turn.lock().unwrap();
    if t.cancel.as_deref() == Some(session) && !t.cancelled {
        t.cancelled = true;
        if let Ok(m) = UntypedMessage::new("session/cancel", json!({"sessionId": session})) {
            let _ = cx.send_notification(m);
        }
    }
}

/// What a request came to, as the contract reports it.
async fn call(cx: &ConnectionTo<Agent>, method: &str, params: Value) -> Result<Value, Value> {
    let message =
        UntypedMessage::new(method, params).map_err(|e| json!({"failed": e.to_string()}))?;
    match tokio::time::timeout(TIMEOUT, cx.send_request(message).block_task()).await {
        Err(_) => Err(json!({"failed": format!("no reply within {TIMEOUT:?}")})),
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(match serde_json::to_value(&e) {
            Ok(v) if v.get("code").is_some() => json!({"error": v}),
            _ => json!({"failed": e.to_string()}),
        }),
    }
}

fn outcome(step: &str, got: Result<Value, Value>, shown: impl Fn(&Value) -> Value) {
    match got {
        Ok(v) => report(json!({"step": step, "result": shown(&v)})),
        Err(Value::Object(mut o)) => {
            o.insert("step".into(), json!(step));
            report(Value::Object(o));
        }
        Err(other) => report(json!({"step": step, "failed": other.to_string()})),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let agent = AcpAgent::from_args(argv)?;
    let turn = Arc::new(Mutex::new(Turn::default()));
    let (on_update, on_permission) = (Arc::clone(&turn), Arc::clone(&turn));
    let ended = Client
        .builder()
        .on_receive_notification(
            async move |n: SessionNotification, cx: ConnectionTo<Agent>| {
                let session = n.session_id.to_string();
                if let SessionUpdate::AgentMessageChunk(chunk) = &n.update
                    && let ContentBlock::Text(t) = &chunk.content
                {
                    on_update.lock().unwrap().text.push_str(&t.text);
                }
                cancel(&on_update, &session, &cx);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |r: RequestPermissionRequest, responder, cx: ConnectionTo<Agent>| {
                cancel(&on_permission, &r.session_id.to_string(), &cx);
                let outcome = if on_permission.lock().unwrap().cancelled {
                    RequestPermissionOutcome::Cancelled
                } else {
                    let allow = r
                        .options
                        .iter()
                        .find(|o| format!("{:?}", o.kind).starts_with("Allow"))
                        .or(r.options.first());
                    match allow {
                        Some(o) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(o.option_id.clone())),
                        None => RequestPermissionOutcome::Cancelled,
                    }
                };
                responder.respond(RequestPermissionResponse::new(outcome))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_: ReadTextFileRequest, responder, _cx: ConnectionTo<Agent>| {
                responder.respond(ReadTextFileResponse::new("rpcspec: a file\n"))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_: WriteTextFileRequest, responder, _cx: ConnectionTo<Agent>| {
                responder.respond(WriteTextFileResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: CreateTerminalRequest, responder, _cx: ConnectionTo<Agent>| {
                let _ = Command::new(&r.command).args(&r.args).output();
                responder.respond(CreateTerminalResponse::new("rpcspec-terminal-1"))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(agent, async move |cx: ConnectionTo<Agent>| {
            let init = json!({
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true},
                "clientInfo": {"name": "rpcspec-rust-client", "version": "1"},
            });
            outcome("initialize", call(&cx, "initialize", init).await, |r| r["protocolVersion"].clone());
            let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_else(|_| "/".into());
            let session = call(&cx, "session/new", json!({"cwd": cwd, "mcpServers": []})).await;
            let id = session.as_ref().ok().and_then(|s| s["sessionId"].as_str()).unwrap_or_default().to_owned();
            outcome("session", session, |r| r["sessionId"].clone());
            let prompt = async |step: &str, text: &str| {
                *turn.lock().unwrap() = Turn {
                    cancel: (text == CANCEL_ME).then(|| id.clone()),
                    ..Turn::default()
                };
                let params = json!({"sessionId": id, "prompt": [{"type": "text", "text": text}]});
                let got = call(&cx, "session/prompt", params).await;
                let text = turn.lock().unwrap().text.clone();
                outcome(step, got, |r| json!({"stopReason": r["stopReason"], "text": text}));
            };
            prompt("prompt", "rpcspec: hello").await;
            outcome("error", call(&cx, "_rpcspec/fail", json!({})).await, Value::clone);
            let (a, b, c) = futures::join!(
                call(&cx, "_rpcspec/echo", json!({"text": "a"})),
                call(&cx, "_rpcspec/echo", json!({"text": "b"})),
                call(&cx, "_rpcspec/echo", json!({"text": "c"})),
            );
            for (step, got) in [("echo-a", a), ("echo-b", b), ("echo-c", c)] {
                outcome(step, got, Value::clone);
            }
            prompt("cancel", CANCEL_ME).await;
            prompt("after", "rpcspec: again").await;
            Ok(())
        })
        .await;
    // A connection that ended (the agent exited) ends every step left.
    if let Err(e) = ended {
        let done = REPORTED.lock().unwrap().clone();
        for step in STEPS.iter().filter(|s| !done.iter().any(|d| d == *s)) {
            report(json!({"step": step, "failed": format!("the connection ended: {e}")}));
        }
    }
    Ok(())
}
