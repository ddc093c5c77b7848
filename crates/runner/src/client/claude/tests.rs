use std::{path::Path, time::Duration};

use serde_json::{Value, json};

use super::{ASK_WAIT, Act, Answering, HELLO, LATE, script::Cli};
use crate::client::{Protocol, Scenario, load_str, peer::ToPeer, script::Stop};

fn scenario(toml: &str) -> Scenario {
    let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
    load_str(Path::new("client/claude/t.toml"), &text)
        .unwrap()
        .remove(0)
}

fn load_error(file: &str, toml: &str) -> String {
    let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
    load_str(Path::new(file), &text).unwrap_err().to_string()
}

/// The lines written, parsed.
fn records(orders: &[ToPeer]) -> Vec<Value> {
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

fn types(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect()
}

const USER: &[u8] = br#"{"type":"user","message":{"role":"user","content":"hi"}}"#;

#[test]
fn a_claude_scenario_loads_with_its_defaults() {
    let sc = scenario("");
    assert_eq!(sc.protocol, Protocol::named("claude").unwrap());
    assert_eq!(sc.framing.as_deref(), Some("ndjson"));
    let play = sc.claude.expect("a play");
    assert_eq!(play.initialize, Answering::Success);
    assert_eq!(play.controls, Answering::Success);
    assert_eq!(play.turn, super::plain_turn());
    let sc = scenario(
        r#"initialize = "late"
turn = [{ act = "init" }, { act = "stderr", bytes = 10 }, { act = "exit", code = 3 }]"#,
    );
    let play = sc.claude.unwrap();
    assert_eq!(play.initialize, Answering::Late);
    assert_eq!(play.turn, [Act::Init, Act::Stderr(10), Act::Exit(3)]);
}

#[test]
fn a_bad_claude_scenario_is_an_error_that_says_where() {
    let e = load_error("client/claude/t.toml", r#"turn = [{ act = "nope" }]"#);
    assert!(
        e.contains("client/claude/t.toml:5:") && e.contains("act `nope`"),
        "{e}"
    );
    let e = load_error(
        "client/claude/t.toml",
        r#"turn = [{ act = "exit", text = "x" }]"#,
    );
    assert!(e.contains("`text` does not belong to act `exit`"), "{e}");
    let e = load_error(
        "client/claude/t.toml",
        r#"turn = [{ act = "ask", requests = ['{"no":"subtype"}'] }]"#,
    );
    assert!(e.contains("a string `subtype`"), "{e}");
    let e = load_error("client/claude/t.toml", r#"initialize = "slowly""#);
    assert!(e.contains("`slowly` is not one of"), "{e}");
    let e = load_error(
        "client/claude/t.toml",
        r#"replace = { method = "echo", line = "x" }"#,
    );
    assert!(e.contains("`replace` is a JSON-RPC scenario's"), "{e}");
    let e = load_error("client/t.toml", r#"controls = "never""#);
    assert!(e.contains("`controls` belongs to Claude scenarios"), "{e}");
    let e = load_error("client/claude/t.toml", r#"framing = "content-length""#);
    assert!(e.contains("are NDJSON"), "{e}");
}

#[test]
fn initialize_is_answered_by_its_request_id_with_the_command() {
    let sc = scenario("");
    let mut cli = Cli::new(&sc);
    let line = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"initialize","hooks":{"PreToolUse":[{"matcher":null,"hookCallbackIds":["hook_7"]}]}}}"#;
    let out = records(&cli.on_line(line, Duration::ZERO));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["type"], "control_response");
    assert_eq!(out[0]["response"]["request_id"], "r1");
    assert_eq!(out[0]["response"]["subtype"], "success");
    assert_eq!(
        out[0]["response"]["response"]["commands"][0]["name"],
        super::COMMAND
    );
    assert_eq!(cli.log.callbacks, ["hook_7"]);
    for subtype in [
        "set_model",
        "interrupt",
        "set_permission_mode",
        "mcp_status",
    ] {
        let line =
            json!({"type":"control_request","request_id":subtype,"request":{"subtype":subtype}});
        let out = records(&cli.on_line(line.to_string().as_bytes(), Duration::ZERO));
        assert_eq!(out[0]["response"]["subtype"], "success", "{subtype}");
    }
    // An unknown subtype of the SDK's: an error, as the CLI answers.
    let line = br#"{"type":"control_request","request_id":"r2","request":{"subtype":"rpcspec_x"}}"#;
    let out = records(&cli.on_line(line, Duration::ZERO));
    assert_eq!(out[0]["response"]["subtype"], "error");
}

#[test]
fn late_answers_wait_and_never_answers_never_come() {
    let sc = scenario(
        r#"initialize = "late"
controls = "never""#,
    );
    let mut cli = Cli::new(&sc);
    let init =
        br#"{"type":"control_request","request_id":"r1","request":{"subtype":"initialize"}}"#;
    assert!(records(&cli.on_line(init, Duration::ZERO)).is_empty());
    assert_eq!(cli.next_due(), Some(LATE));
    assert!(records(&cli.on_tick(LATE - Duration::from_millis(1))).is_empty());
    assert_eq!(
        records(&cli.on_tick(LATE))[0]["response"]["request_id"],
        "r1"
    );
    let model = br#"{"type":"control_request","request_id":"r2","request":{"subtype":"set_model","model":"m"}}"#;
    assert!(cli.on_line(model, LATE).is_empty());
    assert_eq!(cli.next_due(), None);
    assert!(cli.log.requests[1].answer.is_none());
}

#[test]
fn a_user_message_plays_a_turn_and_the_end_of_input_exits() {
    let sc = scenario("");
    let mut cli = Cli::new(&sc);
    let out = records(&cli.on_line(USER, Duration::ZERO));
    assert_eq!(types(&out), ["system", "assistant", "result"]);
    assert_eq!(out[1]["message"]["content"][0]["text"], HELLO);
    assert_eq!(cli.log.turns.len(), 1);
    assert_eq!(
        cli.log.turns[0].result,
        Some((Some(super::DONE.to_owned()), false))
    );
    let out = cli.on_eof(Duration::from_millis(5));
    assert_eq!(out, [ToPeer::Exit(0)]);
    assert!(matches!(cli.log.stop, Some((_, Stop::Exited(0)))));
}

#[test]
fn an_ask_holds_the_turn_until_its_answer_or_its_wait() {
    let sc = scenario(
        r#"turn = [
  { act = "init" },
  { act = "ask", requests = ['{"subtype":"can_use_tool","tool_name":"Read","input":{}}'] },
  { act = "result", is_error = true, subtype = "error_during_execution", text = "boom" },
]"#,
    );
    let mut cli = Cli::new(&sc);
    let out = records(&cli.on_line(USER, Duration::ZERO));
    assert_eq!(types(&out), ["system", "control_request"]);
    let id = out[1]["request_id"].as_str().unwrap().to_owned();
    // A response to another id frees nothing, and is kept as stray.
    let other = json!({"type":"control_response","response":{"subtype":"success","request_id":"zz","response":{}}});
    assert!(
        cli.on_line(other.to_string().as_bytes(), Duration::ZERO)
            .is_empty()
    );
    assert_eq!(cli.log.stray, [r#"for request_id "zz""#]);
    let answer = json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":{"behavior":"allow","updatedInput":{}}}});
    let out = records(&cli.on_line(answer.to_string().as_bytes(), Duration::from_millis(3)));
    assert_eq!(types(&out), ["result"]);
    // An error result carries `errors`, and no `result`.
    assert_eq!(out[0]["errors"], json!(["boom"]));
    assert!(out[0].get("result").is_none());
    assert_eq!(cli.log.turns[0].result, Some((None, true)));
    assert_eq!(cli.log.asks[0].responses.len(), 1);

    // Unanswered, the turn goes on after ASK_WAIT.
    let mut cli = Cli::new(&sc);
    cli.on_line(USER, Duration::ZERO);
    assert_eq!(cli.next_due(), Some(ASK_WAIT));
    assert_eq!(types(&records(&cli.on_tick(ASK_WAIT))), ["result"]);
    assert!(cli.log.asks[0].responses.is_empty());
}

#[test]
fn a_cancelled_ask_is_followed_by_its_cancel_and_waits_for_nothing() {
    let sc = scenario(
        r#"turn = [{ act = "ask", cancel = true, requests = ['{"subtype":"hook_callback","callback_id":"$callback"}'] }, { act = "result" }]"#,
    );
    let mut cli = Cli::new(&sc);
    // No hook registered: nothing to call, and the scenario says so.
    let out = records(&cli.on_line(USER, Duration::ZERO));
    assert_eq!(types(&out), ["result"]);
    assert!(cli.log.missing.is_some());
    let mut cli = Cli::new(&sc);
    let init = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"initialize","hooks":{"Stop":[{"hookCallbackIds":["hook_0"]}]}}}"#;
    cli.on_line(init, Duration::ZERO);
    let out = records(&cli.on_line(USER, Duration::ZERO));
    assert_eq!(
        types(&out),
        ["control_request", "control_cancel_request", "result"]
    );
    assert_eq!(out[0]["request"]["callback_id"], "hook_0");
    assert_eq!(out[1]["request_id"], out[0]["request_id"]);
    assert!(cli.log.asks[0].cancelled);
}

#[test]
fn whitespace_goes_after_commas_outside_strings_only() {
    assert_eq!(
        crate::client::writes::spaced(br#"{"a":"x,\",y","b":[1,2]}"#, b"\r"),
        b"{\"a\":\"x,\\\",y\",\r\"b\":[1,\r2]}".to_vec()
    );
}

#[test]
fn mcp_set_servers_is_served_and_opens_each_sdk_server_through_the_sdk() {
    let sc = scenario("");
    let mut cli = Cli::new(&sc);
    let line = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"mcp_set_servers","servers":{"rpcspec":{"type":"sdk","name":"rpcspec"},"web":{"type":"http","url":"http://x"}}}}"#;
    let out = records(&cli.on_line(line, Duration::ZERO));
    assert_eq!(types(&out), ["control_response", "control_request"]);
    assert_eq!(out[0]["response"]["response"]["added"], json!(["rpcspec"]));
    assert_eq!(out[1]["request"]["subtype"], "mcp_message");
    assert_eq!(out[1]["request"]["server_name"], "rpcspec");
    assert_eq!(out[1]["request"]["message"]["method"], "initialize");
    // Each message of the handshake waits for the one before's answer.
    let id = out[1]["request_id"].as_str().unwrap();
    let answer = json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":{"mcp_response":{"jsonrpc":"2.0","id":0,"result":{}}}}});
    let out = records(&cli.on_line(answer.to_string().as_bytes(), Duration::ZERO));
    assert_eq!(
        out[0]["request"]["message"]["method"],
        "notifications/initialized"
    );
    // A request Claude Code serves is answered `success`.
    let line = br#"{"type":"control_request","request_id":"r2","request":{"subtype":"get_context_usage"}}"#;
    let out = records(&cli.on_line(line, Duration::ZERO));
    assert_eq!(out[0]["response"]["subtype"], "success");
}

#[test]
fn a_cli_whose_stdout_closed_exits_when_its_stdin_ends_and_the_end_drops_what_waits() {
    let sc = scenario(r#"turn = [{ act = "init" }, { act = "close" }]"#);
    let mut cli = Cli::new(&sc);
    let out = cli.on_line(USER, Duration::ZERO);
    assert_eq!(out.last(), Some(&ToPeer::CloseStdout));
    assert_eq!(cli.on_eof(Duration::from_millis(9)), [ToPeer::Exit(0)]);
    assert!(matches!(cli.log.stop, Some((_, Stop::Exited(0)))));

    // A late answer still due when stdin ends is never written.
    let sc = scenario(r#"controls = "late""#);
    let mut cli = Cli::new(&sc);
    let model =
        br#"{"type":"control_request","request_id":"r1","request":{"subtype":"set_model"}}"#;
    assert!(cli.on_line(model, Duration::ZERO).is_empty());
    assert_eq!(cli.on_eof(Duration::from_millis(1)), [ToPeer::Exit(0)]);
    assert!(!cli.log.requests[0].written);

    // Turns are kept with their prompts and times.
    let sc = scenario("");
    let mut cli = Cli::new(&sc);
    cli.on_line(USER, Duration::from_millis(4));
    assert_eq!(cli.log.turns[0].prompt, "hi");
    assert_eq!(cli.log.turns[0].asked, Duration::from_millis(4));
    assert_eq!(cli.log.turns[0].done, Some(Duration::from_millis(4)));
}

#[test]
fn a_flood_of_user_messages_or_requests_gets_a_bounded_answer() {
    let sc = scenario("");
    let mut cli = Cli::new(&sc);
    let mut written = 0;
    for _ in 0..10_000 {
        written += records(&cli.on_line(USER, Duration::ZERO)).len();
    }
    assert_eq!(cli.log.turns.len(), 64);
    assert_eq!(written, 64 * 3);
    let request =
        br#"{"type":"control_request","request_id":"r","request":{"subtype":"initialize"}}"#;
    let answered: usize = (0..5_000)
        .map(|_| records(&cli.on_line(request, Duration::ZERO)).len())
        .sum();
    assert_eq!(answered, 1024);
}
