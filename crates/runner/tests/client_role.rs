//! The client role through the built binary: the reference client passes,
//! a client reaches its server however it spawns it (`{server}` as
//! arguments, inside a shell line, from `$RPCSPEC_SERVER`), and a hostile
//! client gets a verdict, never a hang, a leak or unbounded memory.

mod support;

use std::{
    process::Command,
    time::{Duration, Instant},
};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");

/// One cheap scenario.
const ONE: &str = "client/framing/baseline";

/// `rpcspec run --role client ARGS --format json -- CLIENT...`: the exit
/// code and each result's (id, verdict, first message).
fn run(args: &[&str], client: &[&str]) -> (Option<i32>, Vec<(String, String, String)>) {
    let out = Command::new(BIN)
        .args(["run", "--role", "client", "--format", "json"])
        .args(args)
        .arg("--")
        .args(client)
        .output()
        .unwrap();
    let results = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "result")
        .map(|v| {
            let d = &v["data"];
            (
                d["id"].as_str().unwrap_or_default().to_owned(),
                d["verdict"].as_str().unwrap_or_default().to_owned(),
                d["evidence"][0]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect();
    (out.status.code(), results)
}

#[test]
fn the_reference_clients_pass_through_the_command_line() {
    let out = Command::new(BIN)
        .args(["run", "--role", "client"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 failed"), "{text}");
    let (code, results) = run(
        &[
            "--dialect",
            "mcp",
            "--filter",
            "client/mcp/session/ping",
            "--filter",
            "client/mcp/session/version-unknown",
        ],
        &[
            BIN,
            "serve",
            "--role",
            "client",
            "--dialect",
            "mcp",
            "--",
            "{server}",
        ],
    );
    assert_eq!(code, Some(0), "{results:?}");
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r.1 == "PASS"), "{results:?}");
}

#[test]
fn in_content_length_framing_the_reference_passes_and_the_report_counts_messages() {
    let out = Command::new(BIN)
        .args(["run", "--role", "client", "--framing", "content-length"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // Content-Length's own scenarios play, NDJSON's do not.
    assert!(text.contains("client/content-length"), "{text}");
    assert!(!text.contains("client/framing"), "{text}");
    assert!(text.contains("0 failed"), "{text}");
    // The NDJSON reference client against a Content-Length server reads
    // nothing (each call fails at its 3 s): what it writes is no
    // Content-Length message, and the report says `message`, not `line`.
    let out = Command::new(BIN)
        .args([
            "run",
            "--role",
            "client",
            "--framing",
            "content-length",
            "--filter",
            "client/content-length/baseline",
            "--",
            BIN,
            "serve",
            "--role",
            "client",
            "--",
            "{server}",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("framing.between-messages"), "{text}");
    assert!(text.contains("the client wrote to its server"), "{text}");
    assert!(text.contains("received message 1 "), "{text}");
    // MCP's stdio is NDJSON.
    let out = Command::new(BIN)
        .args([
            "run",
            "--role",
            "client",
            "--dialect",
            "mcp",
            "--framing",
            "content-length",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MCP clients speak NDJSON"));
}

#[test]
fn the_reference_language_client_passes_and_lsp_takes_no_ndjson() {
    let out = Command::new(BIN)
        .args(["run", "--role", "client", "--dialect", "lsp"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("client/lsp/session"), "{text}");
    assert!(!text.contains("client/pairing"), "{text}");
    assert!(text.contains("0 failed"), "{text}");
    // The reference language client named on the command line, as a
    // user's adapter is.
    let (code, results) = run(
        &[
            "--dialect",
            "lsp",
            "--filter",
            "client/lsp/session/baseline",
        ],
        &[
            env!("CARGO_BIN_EXE_rpcspec"),
            "serve",
            "--role",
            "client",
            "--dialect",
            "lsp",
            "--",
            "{server}",
        ],
    );
    assert_eq!(
        (code, results[0].1.as_str()),
        (Some(0), "PASS"),
        "{results:?}"
    );
    let out = Command::new(BIN)
        .args([
            "run",
            "--role",
            "client",
            "--dialect",
            "lsp",
            "--framing",
            "ndjson",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Content-Length framing"));
}

#[test]
fn a_client_finds_its_server_in_a_shell_line_or_the_environment() {
    let in_shell = format!("exec {BIN} serve --role client -- {{server}}");
    let from_env = format!("exec {BIN} serve --role client");
    for script in [in_shell, from_env] {
        let (code, results) = run(&["--filter", ONE], &["sh", "-c", &script]);
        assert_eq!(code, Some(0), "{script}: {results:?}");
        assert_eq!(results[0].1, "PASS", "{script}: {results:?}");
    }
}

#[test]
fn a_client_that_never_starts_its_server_times_out_at_the_start_up_limit() {
    let started = Instant::now();
    let (code, results) = run(
        &["--filter", ONE, "--startup-timeout", "1"],
        &["sleep", "300"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(results[0].1, "TIMEOUT", "{results:?}");
    assert!(
        results[0].2.contains("did not start its server"),
        "{results:?}"
    );
    // Bounded: the run ends at its start-up limit, not when the client's
    // `sleep 300` would (a bound on hanging, not on speed: CI's load has
    // made the run take over 20 s).
    assert!(started.elapsed() < Duration::from_secs(150));
    // One that exits at once is a CRASH that says what to check.
    let (_, results) = run(&["--filter", ONE], &["true"]);
    assert_eq!(results[0].1, "CRASH", "{results:?}");
    assert!(results[0].2.contains("{server}"), "{results:?}");
}

/// Whether `pid` is a live process (not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let rest = &s[s.rfind(')')? + 1..];
            rest.split_whitespace().next().map(|state| state != "Z")
        })
        .unwrap_or(false)
}

#[test]
fn a_hanging_client_is_stopped_and_its_server_and_escapees_are_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("pids");
    // The server (with stdin held open), a descendant in a session of its
    // own, then the client hangs.
    let script = format!(
        "sleep 300 | \"$@\" & echo $! >> {m}\nsetsid sleep 300 & echo $! >> {m}\nexec sleep 300",
        m = marker.display()
    );
    let started = Instant::now();
    let (code, results) = run(
        &["--filter", ONE, "--timeout", "2"],
        &["sh", "-c", &script, "sh", "{server}"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(results[0].1, "TIMEOUT", "{results:?}");
    // Bounded: the run ends at its start-up limit, not when the client's
    // `sleep 300` would (a bound on hanging, not on speed: CI's load has
    // made the run take over 20 s).
    assert!(started.elapsed() < Duration::from_secs(150));
    let pids: Vec<u32> = std::fs::read_to_string(&marker)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    let until = Instant::now() + Duration::from_secs(2);
    let mut left: Vec<u32> = pids.clone();
    while !left.is_empty() && Instant::now() < until {
        left.retain(|p| alive(*p));
        std::thread::sleep(Duration::from_millis(20));
    }
    for p in &left {
        let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
    }
    assert!(left.is_empty(), "{left:?} outlived the scenario");
}

#[test]
fn a_flooding_client_is_bounded_on_stdout_and_towards_its_server() {
    let floods: [&[&str]; 2] = [
        // Its adapter's stdout.
        &[
            "sh",
            "-c",
            "\"$@\" < /dev/null & exec yes",
            "sh",
            "{server}",
        ],
        // Its server's stdin.
        &["sh", "-c", "yes | \"$@\"", "sh", "{server}"],
    ];
    for client in floods {
        let mut args = vec![
            "run",
            "--role",
            "client",
            "--format",
            "json",
            "--budget",
            "16MiB",
            "--filter",
            ONE,
            "--timeout",
            "10",
            "--",
        ];
        args.extend_from_slice(client);
        let (peak_kib, code, stdout) = support::run_measured(BIN, &args);
        assert_eq!(code, Some(1), "{client:?}: {stdout}");
        assert!(
            stdout.contains("process.output-flood"),
            "{client:?}: {stdout}"
        );
        assert!(peak_kib > 0, "no VmHWM read");
        assert!(peak_kib < 256 << 10, "{client:?}: peak RSS {peak_kib} KiB");
    }
}

/// README's example: the standard-library client in `examples/clients/`
/// passes every JSON-RPC scenario.
#[test]
fn the_example_client_passes_every_scenario() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/clients/jsonrpc_client.py"
    );
    let (code, results) = run(&[], &["python3", example, "{server}"]);
    let not_passing: Vec<_> = results.iter().filter(|r| r.1 != "PASS").collect();
    assert!(not_passing.is_empty(), "{not_passing:?}");
    assert_eq!(code, Some(0));
    assert!(results.len() >= 20, "{results:?}");
}

#[test]
fn without_a_target_the_reference_sdk_plays_the_claude_scenarios_and_list_shows_them() {
    let out = Command::new(BIN)
        .args(["run", "--role", "client", "--dialect", "claude"])
        .args(["--filter", "client/claude/session/session"])
        .args(["--filter", "client/claude/asks/*"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("--dialect claude -- {server}"), "{text}");
    assert!(text.contains("11 passed"), "{text}");
    let out = Command::new(BIN)
        .args(["list", "--role", "client", "--dialect", "claude"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let ids: Vec<&str> = text.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(ids.len() >= 20, "{text}");
    assert!(
        ids.iter().all(|i| i.starts_with("client/claude/")),
        "{text}"
    );
}
