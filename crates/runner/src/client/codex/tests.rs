use std::{path::Path, time::Duration};

use serde_json::{Value, json};

use super::{Ending, Ids, THREAD, USER_AGENT, script::AppServer};
use crate::client::{Protocol, Scenario, load_str, peer::ToPeer};

fn scenario(toml: &str) -> Scenario {
    let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
    load_str(Path::new("client/codex/t.toml"), &text)
        .unwrap()
        .remove(0)
}

fn load_error(file: &str, toml: &str) -> String {
    let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
    load_str(Path::new(file), &text).unwrap_err().to_string()
}

/// The messages written, parsed.
fn written(orders: &[ToPeer]) -> Vec<Value> {
    let bytes: Vec<u8> = orders
        .iter()
        .filter_map(|o| match o {
            ToPeer::Write(b) => Some(b.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON line"))
        .collect()
}

fn line(v: Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

fn handshake(s: &mut AppServer<'_>) {
    let out = written(&s.on_line(
        &line(json!({"id": 0, "method": "initialize", "params": {}})),
        Duration::ZERO,
    ));
    assert_eq!(out[0]["result"]["userAgent"], USER_AGENT);
    assert!(
        out[0].get("jsonrpc").is_none(),
        "the app-server leaves it out"
    );
    assert!(
        s.on_line(&line(json!({"method": "initialized"})), Duration::ZERO)
            .is_empty()
    );
    let out = written(&s.on_line(
        &line(json!({"id": 1, "method": "thread/start", "params": {}})),
        Duration::ZERO,
    ));
    assert_eq!(out[0]["result"]["thread"]["id"], THREAD);
    assert_eq!(out[1]["method"], "thread/started");
}

#[test]
fn a_codex_host_scenario_loads_with_its_defaults() {
    let sc = scenario("");
    assert_eq!(sc.protocol, Protocol::named("codex").unwrap());
    assert_eq!(sc.framing.as_deref(), Some("ndjson"));
    let play = sc.codex.expect("a play");
    assert_eq!(play.asks.len(), 2);
    assert!(!play.together);
    assert_eq!((play.ids, play.ending), (Ids::Integer, Ending::Completed));
}

#[test]
fn requests_before_initialize_and_a_second_initialize_are_refused_as_codex_does() {
    let sc = scenario("");
    let mut s = AppServer::new(&sc);
    let out = written(&s.on_line(
        &line(json!({"id": 7, "method": "thread/start"})),
        Duration::ZERO,
    ));
    assert_eq!(out[0]["error"]["message"], "Not initialized");
    handshake(&mut s);
    let out = written(&s.on_line(
        &line(json!({"id": 2, "method": "initialize"})),
        Duration::ZERO,
    ));
    assert_eq!(out[0]["error"]["message"], "Already initialized");
    let out = written(&s.on_line(
        &line(json!({"id": 3, "method": "rpcspec/nope"})),
        Duration::ZERO,
    ));
    assert_eq!(out[0]["error"]["code"], -32600);
}

#[test]
fn a_turn_asks_one_request_at_a_time_then_completes() {
    let sc = scenario("");
    let mut s = AppServer::new(&sc);
    handshake(&mut s);
    let start = json!({"id": 2, "method": "turn/start", "params": {"threadId": THREAD, "input": [{"type": "text", "text": "rpcspec: hello"}]}});
    let out = written(&s.on_line(&line(start), Duration::from_millis(10)));
    let methods: Vec<&str> = out
        .iter()
        .map(|m| m["method"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(methods, ["", "turn/started", super::COMMAND_APPROVAL]);
    assert_eq!(out[2]["id"], 0);
    assert_eq!(s.log.turns[0].input, "rpcspec: hello");
    assert_eq!(
        s.next_due(),
        Some(Duration::from_millis(10) + super::ASK_WAIT)
    );
    let out = written(&s.on_line(
        &line(json!({"id": 0, "result": {"decision": "accept"}})),
        Duration::from_millis(20),
    ));
    assert_eq!(out[0]["method"], super::FILE_APPROVAL);
    // Unanswered: the turn goes on at the deadline.
    let due = s.next_due().unwrap();
    assert!(s.on_tick(due - Duration::from_millis(1)).is_empty());
    let out = written(&s.on_tick(due));
    assert_eq!(out.last().unwrap()["method"], "turn/completed");
    assert_eq!(out.last().unwrap()["params"]["turn"]["status"], "completed");
    assert_eq!(s.log.asks[0].responses.len(), 1);
    assert!(s.log.asks[1].responses.is_empty());
    assert_eq!(s.log.turns[0].status, Some("completed"));
    // A response for no request is stray.
    s.on_line(
        &line(json!({"id": 99, "result": {}})),
        Duration::from_millis(30),
    );
    assert_eq!(s.log.stray, ["99"]);
    assert_eq!(s.on_eof(Duration::from_millis(40)), [ToPeer::Exit(0)]);
}

#[test]
fn together_string_ids_and_an_exit_ending_are_played() {
    let sc = scenario(
        r#"together = true
ids = "string"
ending = "exit""#,
    );
    let mut s = AppServer::new(&sc);
    handshake(&mut s);
    let start = json!({"id": 2, "method": "turn/start", "params": {"threadId": THREAD, "input": [{"type": "text", "text": "x"}]}});
    let out = written(&s.on_line(&line(start), Duration::ZERO));
    assert_eq!(out.len(), 4);
    assert_eq!(
        (out[2]["id"].clone(), out[3]["id"].clone()),
        (json!("rpcspec-0"), json!("rpcspec-1"))
    );
    let orders = s.on_line(
        &line(json!({"id": "rpcspec-1", "result": {"decision": "decline"}})),
        Duration::ZERO,
    );
    assert!(orders.is_empty(), "one still waits");
    let orders = s.on_line(
        &line(json!({"id": "rpcspec-0", "result": {"decision": "accept"}})),
        Duration::ZERO,
    );
    assert_eq!(orders, [ToPeer::Exit(1)]);
    assert!(s.log.exited && s.log.turns[0].status.is_none());
}

#[test]
fn bad_codex_host_scenarios_are_refused_with_the_reason() {
    let e = load_error(
        "client/codex/t.toml",
        r#"requests = ['{"id":1,"method":"x"}']"#,
    );
    assert!(e.contains("no `id`"), "{e}");
    let e = load_error("client/codex/t.toml", r#"ending = "later""#);
    assert!(e.contains("ending `later` is not one of"), "{e}");
    let e = load_error("client/codex/t.toml", r#"ids = "float""#);
    assert!(e.contains("ids `float`"), "{e}");
    let e = load_error("client/codex/t.toml", r#"stream = [{ act = "start" }]"#);
    assert!(e.contains("codex-exec scenarios"), "{e}");
    let e = load_error("client/pairing.toml", r#"together = true"#);
    assert!(e.contains("belongs to Codex host scenarios"), "{e}");
    let e = load_error(
        "client/codex/t.toml",
        r#"replace = { method = "x", line = "y" }"#,
    );
    assert!(e.contains("is not a Codex host scenario's"), "{e}");
}
