//! The producer role from the command line: the reference producers pass,
//! the checks are listed, and bad profiles, URLs and flags are refused
//! with a clear message. The checks' power to fail is proved by the mutant
//! producers in `crates/mutants/tests/producer_self_test.rs`.

use assert_cmd::Command;
use predicates::prelude::*;

fn rpcspec() -> Command {
    Command::cargo_bin("rpcspec").expect("binary built")
}

#[test]
fn both_shipped_profiles_pass_against_their_reference() {
    for profile in ["events", "claude"] {
        rpcspec()
            .args(["run", "--role", "producer", "--profile", profile])
            .assert()
            .code(0)
            .stdout(predicate::str::contains(" 0 failed"));
    }
}

#[test]
fn list_shows_each_check_with_the_profile_scenarios_as_plans() {
    let out = rpcspec()
        .args(["list", "--role", "producer", "--format", "json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines.len(), 23);
    assert!(
        lines
            .iter()
            .all(|c| c["plans"] == serde_json::json!(["prompt", "unicode"]))
    );
    assert!(
        lines
            .iter()
            .any(|c| c["id"] == "producer/lifecycle/interrupted" && c["level"] == "MUST")
    );
}

#[test]
fn a_bad_profile_file_is_refused_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mine.toml");
    std::fs::write(
        &path,
        "name = \"mine\"\ntitle = \"t\"\ntype = \"kind\"\nend = [\"finished\"]\nstdin = \"later\"\n",
    )
    .expect("write");
    rpcspec()
        .args(["run", "--role", "producer", "--profile"])
        .arg(&path)
        .args(["--", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "mine.toml:5:9: `stdin` is `open` or `close`, not `later`",
        ));
    rpcspec()
        .args(["run", "--role", "producer", "--profile", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown profile `nope`"));
}

#[test]
fn a_url_that_refuses_connections_is_an_error_not_a_hang() {
    // Port 1 on loopback: nothing listens there.
    rpcspec()
        .args([
            "run",
            "--role",
            "producer",
            "--url",
            "http://127.0.0.1:1/stream",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("ERROR"))
        .stdout(predicate::str::contains("cannot connect to 127.0.0.1:1"));
    rpcspec()
        .args(["run", "--url", "http://127.0.0.1:1/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("use it with --role producer"));
    rpcspec()
        .args(["run", "--role", "producer", "--url", "https://example.com/"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("only http:// URLs"));
}

#[test]
fn a_producer_that_writes_nothing_is_interrupted() {
    rpcspec()
        .args(["run", "--role", "producer", "--", "true"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "interrupted: the process exited (exit status 0) without an end record (done or error); no record at all",
        ));
}

#[test]
fn plans_select_scenarios() {
    let out = rpcspec()
        .args([
            "run", "--role", "producer", "--plans", "unicode", "--format", "json",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf8");
    let results: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .filter(|v| v["type"] == "result")
        .collect();
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["data"]["plan"] == "unicode"));
    rpcspec()
        .args(["run", "--role", "producer", "--plans", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown scenario `nope`"));
}
