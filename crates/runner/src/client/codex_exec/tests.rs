use std::{path::Path, time::Duration};

use serde_json::Value;

use super::{
    Act, PROMPT,
    script::{Began, Exec},
};
use crate::client::{Protocol, Scenario, load_str, peer::ToPeer};

fn scenario(toml: &str) -> Scenario {
    let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
    load_str(Path::new("client/codex-exec/t.toml"), &text)
        .unwrap()
        .remove(0)
}

fn load_error(file: &str, toml: &str) -> String {
    let text = format!("[[scenario]]\nname = \"s\"\ntitle = \"t\"\nsection = \"x\"\n{toml}\n");
    load_str(Path::new(file), &text).unwrap_err().to_string()
}

/// The bytes written to stdout, in order.
fn stdout(orders: &[ToPeer]) -> Vec<u8> {
    orders
        .iter()
        .filter_map(|o| match o {
            ToPeer::Write(b) => Some(b.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn types(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let v: Value = serde_json::from_slice(l).expect("a JSON line");
            v["type"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_codex_exec_scenario_plays_the_plain_turn_by_default() {
    let sc = scenario("");
    assert_eq!(sc.protocol, Protocol::named("codex-exec").unwrap());
    assert_eq!(sc.framing.as_deref(), Some("ndjson"));
    assert_eq!(
        sc.codex_exec.as_deref(),
        Some(super::plain_stream().as_slice())
    );
    let mut cli = Exec::new(&sc);
    assert!(
        cli.on_args(
            vec!["exec".into(), "--experimental-json".into()],
            Duration::ZERO
        )
        .is_empty()
    );
    cli.on_input(PROMPT.as_bytes());
    let orders = cli.on_eof(Duration::from_millis(5));
    assert_eq!(
        types(&stdout(&orders)),
        [
            "thread.started",
            "turn.started",
            "item.completed",
            "turn.completed"
        ]
    );
    assert_eq!(orders.last(), Some(&ToPeer::Exit(0)));
    assert_eq!(cli.log.prompt, PROMPT.as_bytes());
    assert_eq!(cli.log.began, Some((Duration::from_millis(5), Began::Eof)));
    assert_eq!(cli.log.lines.len(), 4);
    assert_eq!(cli.log.exit, Some(0));
}

#[test]
fn a_prompt_among_the_arguments_starts_the_play_at_once_and_only_once() {
    let sc = scenario("");
    let mut cli = Exec::new(&sc);
    let orders = cli.on_args(
        vec!["exec".into(), PROMPT.into(), "--json".into()],
        Duration::ZERO,
    );
    assert_eq!(orders.last(), Some(&ToPeer::Exit(0)));
    assert_eq!(cli.log.began, Some((Duration::ZERO, Began::Argument)));
    assert!(cli.on_eof(Duration::from_millis(1)).is_empty());
}

#[test]
fn nothing_is_played_before_stdin_ends() {
    let sc = scenario("");
    let mut cli = Exec::new(&sc);
    cli.on_args(vec!["exec".into()], Duration::ZERO);
    cli.on_input(b"rpcspec: hel");
    assert!(cli.log.began.is_none() && cli.log.lines.is_empty());
    assert_eq!(cli.log.input, 12);
}

#[test]
fn acts_play_in_order_and_nothing_follows_an_exit() {
    let sc = scenario(
        r#"crlf = true
stream = [
  { act = "start" },
  { act = "line", line = 'noise', end = false },
  { act = "stderr", bytes = 10, end = false },
  { act = "close" },
  { act = "sleep", ms = 20 },
  { act = "exit", code = 3 },
  { act = "stderr", bytes = 5 },
]"#,
    );
    let mut cli = Exec::new(&sc);
    let orders = cli.on_eof(Duration::ZERO);
    let out = stdout(&orders);
    assert!(
        out.ends_with(b"\r\nnoise"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    let stderr: Vec<&Vec<u8>> = orders
        .iter()
        .filter_map(|o| match o {
            ToPeer::Stderr(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(stderr.len(), 1);
    assert_eq!(stderr[0].len(), 10);
    assert_eq!(stderr[0].iter().filter(|b| **b == b'\n').count(), 1);
    assert!(stderr[0].ends_with(b"\n"));
    assert!(orders.contains(&ToPeer::CloseStdout));
    assert!(orders.contains(&ToPeer::Pause(Duration::from_millis(20))));
    assert_eq!(orders.last(), Some(&ToPeer::Exit(3)));
    assert!(cli.log.closed);
    // Nothing after the exit is played: one stderr write, three lines.
    assert_eq!(cli.log.stderr, 10);
    assert_eq!(cli.log.lines.len(), 3);
    assert!(!cli.log.lines[2].end);
}

#[test]
fn a_stream_without_an_exit_exits_0_and_messages_are_numbered() {
    let sc = scenario(r#"stream = [{ act = "message", text = "a" }, { act = "message" }]"#);
    let acts = sc.codex_exec.unwrap();
    assert_eq!(acts.last(), Some(&Act::Exit(0)));
    let text = |a: &Act| match a {
        Act::Line { bytes, .. } => String::from_utf8(bytes.clone()).unwrap(),
        other => panic!("{other:?}"),
    };
    assert!(text(&acts[0]).contains(r#""id":"item_0""#));
    assert!(text(&acts[1]).contains(r#""id":"item_1""#));
    assert!(text(&acts[1]).contains(super::HELLO));
}

#[test]
fn bad_scenarios_are_refused_with_the_reason() {
    let e = load_error(
        "client/codex-exec/t.toml",
        r#"stream = [{ act = "result" }]"#,
    );
    assert!(e.contains("act `result` is not one of start"), "{e}");
    let e = load_error(
        "client/codex-exec/t.toml",
        r#"stream = [{ act = "start", text = "x" }]"#,
    );
    assert!(e.contains("`text` does not belong to act `start`"), "{e}");
    let e = load_error(
        "client/codex-exec/t.toml",
        r#"stream = [{ act = "sleep", ms = 9000 }]"#,
    );
    assert!(e.contains("`ms` is 1 to 5000"), "{e}");
    let e = load_error(
        "client/codex-exec/t.toml",
        r#"stream = [{ act = "line", line = "x", end = false }, { act = "completed" }]"#,
    );
    assert!(
        e.contains("no line can follow a line without its line end"),
        "{e}"
    );
    let e = load_error(
        "client/codex-exec/t.toml",
        r#"stream = [{ act = "close" }, { act = "message" }]"#,
    );
    assert!(e.contains("no line can follow `close`"), "{e}");
    let e = load_error(
        "client/codex-exec/t.toml",
        r#"stream = [{ act = "exit", code = 256 }]"#,
    );
    assert!(e.contains("0 to 255"), "{e}");
    let e = load_error("client/codex-exec/t.toml", r#"before = ["x"]"#);
    assert!(e.contains("`before` is not a codex-exec scenario's"), "{e}");
    let e = load_error("client/codex-exec/t.toml", r#"initialize = "late""#);
    assert!(e.contains("belongs to Claude scenarios"), "{e}");
    let e = load_error("client/pairing.toml", r#"stream = [{ act = "start" }]"#);
    assert!(
        e.contains("`stream` belongs to codex-exec scenarios"),
        "{e}"
    );
    let e = load_error("client/codex-exec/t.toml", r#"framing = "content-length""#);
    assert!(e.contains("are NDJSON"), "{e}");
}
