//! Verdicts a user can trust, through the built binary: a program that
//! cannot start is one line and exit 3, not a case per failure; a target
//! that says nothing ends the run in one block, every result that ran a
//! TIMEOUT, and nothing it never showed is a PASS; in every role and
//! dialect.

mod support;

use std::time::Duration;

use assert_cmd::Command;

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");
const MISSING: &str = "/nonexistent/rpcspec-no-such-target";

fn rpcspec() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .timeout(Duration::from_secs(120));
    cmd
}

/// Every role and dialect a target can be run in, as `run` arguments.
const EVERY_RUN: &[&[&str]] = &[
    &["--dialect", "jsonrpc2"],
    &["--dialect", "lenient"],
    &["--dialect", "codex"],
    &["--dialect", "mcp"],
    &["--dialect", "mcp@2025-11-25"],
    &["--dialect", "mcp@2026-07-28"],
    &["--dialect", "claude"],
    &["--dialect", "events"],
    &["--role", "producer", "--profile", "events"],
    &["--role", "producer", "--profile", "claude"],
    &["--role", "decoder"],
    &["--role", "client", "--dialect", "jsonrpc2"],
    &["--role", "client", "--dialect", "mcp"],
];

#[test]
fn a_program_that_cannot_start_is_one_line_and_exit_3_in_every_role() {
    let mut commands: Vec<Vec<&str>> = EVERY_RUN
        .iter()
        .map(|args| [&["run"], *args, &["--", MISSING]].concat())
        .collect();
    commands.push(vec!["fuzz", "--time", "5", "--", MISSING]);
    for args in commands {
        let out = rpcspec().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: no report");
        assert_eq!(
            stderr,
            format!("rpcspec: cannot start `{MISSING}`: No such file or directory\n"),
            "{args:?}"
        );
    }
}

#[test]
fn a_program_without_the_exec_bit_or_its_interpreter_cannot_start() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    let script = dir.path().join("script");
    std::fs::write(&script, "#!/nonexistent/python9\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (program, why) in [
        (&plain, "not executable".to_owned()),
        (&script, "its interpreter /nonexistent/python9".to_owned()),
    ] {
        let out = rpcspec()
            .arg("run")
            .arg("--")
            .arg(program)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(&why), "{stderr}");
    }
    // A program looked up in PATH that is not there.
    let out = rpcspec()
        .args(["run", "--", "rpcspec-no-such-program"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not found on $PATH"));
}

#[test]
fn check_of_an_input_that_cannot_be_opened_is_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    for input in [dir.path().join("missing.ndjson"), dir.path().to_owned()] {
        let out = rpcspec().arg("check").arg(&input).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(!stderr.contains("os error"), "{stderr}");
    }
}

/// The human report of `rpcspec run ARGS -- sleep 1000`, and the verdict
/// of each result from its JUnit report: `PASS` for a test case with no
/// failure, error or skip in it.
fn silent_run(args: &[&str]) -> (String, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let out = rpcspec()
        .arg("run")
        .args(args)
        .args(["--startup-timeout", "1s", "--timeout", "1s", "--jobs", "2"])
        .arg("--junit")
        .arg(&junit)
        .args(["--", "sleep", "1000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?} fails");
    let xml = std::fs::read_to_string(&junit).unwrap();
    let verdicts = xml
        .split("<testcase ")
        .skip(1)
        .map(|case| {
            let case = &case[..case.find("</testcase>").unwrap_or(case.len())];
            let name = case.split('"').nth(1).unwrap_or_default().to_owned();
            let verdict = if case.contains("<skipped") {
                "SKIPPED".to_owned()
            } else if let Some(at) = case.find(" type=\"") {
                case[at + 7..]
                    .split('"')
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            } else {
                "PASS".to_owned()
            };
            (name, verdict)
        })
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), verdicts)
}

#[test]
fn a_target_that_says_nothing_gets_no_pass_and_one_block_in_every_role() {
    // All at once: each run is a second or two of waiting on a deadline.
    let runs: Vec<_> = EVERY_RUN
        .iter()
        .map(|args| std::thread::spawn(move || silent_run(args)))
        .collect();
    for (args, run) in EVERY_RUN.iter().zip(runs) {
        let (human, verdicts) = run.join().expect("no panic");
        assert!(!verdicts.is_empty(), "{args:?}");
        for (name, verdict) in &verdicts {
            assert!(
                matches!(verdict.as_str(), "TIMEOUT" | "SKIPPED"),
                "{args:?}: {name} is {verdict}: {human}"
            );
        }
        assert!(verdicts.iter().any(|(_, v)| v == "TIMEOUT"), "{args:?}");
        // One block: the halt's, and no case's of its own.
        assert_eq!(human.matches("TIMEOUT    ").count(), 1, "{args:?}: {human}");
        assert!(human.contains("the run halted: "), "{args:?}: {human}");
    }
}

/// An unknown member and a recased one are alike to a protocol that
/// ignores members it does not name: the two cases apply, or not, in the
/// same dialects.
#[test]
fn an_unknown_member_and_a_recased_one_are_judged_alike() {
    let cases = rpcspec::cases::builtin().expect("the shipped cases load");
    let not_in = |id: &str| -> Vec<String> {
        let case = cases
            .iter()
            .find(|c| c.meta.id == id)
            .expect("a shipped case");
        let mut dialects: Vec<String> = case.not_in.iter().map(|(d, _)| d.clone()).collect();
        dialects.sort();
        dialects
    };
    let arity = not_in("jsonrpc/params/wrong-arity");
    let recased = not_in("jsonrpc/params/names-case-sensitive");
    assert!(arity.contains(&"codex".to_owned()), "{arity:?}");
    for dialect in &recased {
        assert!(
            arity.contains(dialect),
            "{dialect}: {recased:?} vs {arity:?}"
        );
    }
    assert!(recased.contains(&"codex".to_owned()), "{recased:?}");
}

/// `-v` shows every result with its traffic, passes too: a producer's
/// checks and the MCP checks as well as the server's cases.
#[test]
fn verbose_shows_the_traffic_of_passing_results_in_every_role() {
    for args in [
        &["--role", "producer", "--plans", "prompt"][..],
        &[
            "--dialect",
            "mcp@2025-11-25",
            "--filter",
            "mcp/utilities/ping",
        ][..],
        &[
            "--filter",
            "jsonrpc/examples/notification",
            "--plans",
            "whole",
        ][..],
    ] {
        let out = rpcspec().arg("run").args(args).arg("-v").output().unwrap();
        let text = format!("\n{}", String::from_utf8_lossy(&out.stdout));
        let blocks: Vec<&str> = text.split("\nPASS ").skip(1).collect();
        assert!(!blocks.is_empty(), "{args:?}: {text}");
        for block in blocks {
            let block = block.split("\n\n").next().unwrap_or_default();
            let block = &block[..block.find("\nPASS").unwrap_or(block.len())];
            assert!(
                block.contains("\n  sent ") || block.contains("\n  received "),
                "{args:?}: a pass without its traffic:\n{block}"
            );
        }
    }
}

/// The JSON summary counts each result once: the counts add up to
/// `results`, and a failing case is counted in `failed_cases`.
#[test]
fn the_json_summary_counts_add_up() {
    let out = rpcspec()
        .args([
            "run",
            "--format",
            "json",
            "--timeout",
            "1s",
            "--filter",
            "jsonrpc/examples/*",
            "--",
            "cat",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let summary: serde_json::Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "summary")
        .expect("a summary")["data"]
        .clone();
    let n = |k: &str| {
        summary[k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k}: {summary}"))
    };
    let parts = [
        "passed",
        "non_strict",
        "failed",
        "timeouts",
        "crashes",
        "errors",
        "skipped",
        "not_applicable",
        "baselined",
    ];
    assert_eq!(
        parts.iter().map(|k| n(k)).sum::<u64>(),
        n("results"),
        "{summary}"
    );
    assert!(
        n("failed_cases") >= 1 && n("failed_cases") <= n("cases"),
        "{summary}"
    );
    assert!(n("timeouts") + n("failed") > 0, "{summary}");
}

/// A target's stderr is shown as text: colour and other terminal escape
/// sequences are left out, in every format.
#[test]
fn stderr_is_shown_without_terminal_escapes() {
    let script = r#"printf '\033[2m2026-12-03\033[0m \033[31mboom\033[0m\n' >&2; exit 1"#;
    for format in ["human", "json", "junit", "markdown"] {
        let out = rpcspec()
            .args([
                "run",
                "--format",
                format,
                "--filter",
                "jsonrpc/examples/notification",
            ])
            .args(["--plans", "whole", "--", "sh", "-c", script])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // The Markdown summary is a table of the cases: no stderr in it.
        assert!(
            format == "markdown" || text.contains("2026-12-03 boom"),
            "{format}: {text}"
        );
        assert!(
            !text.contains('\x1b') && !text.contains("u001b") && !text.contains("u{1b}"),
            "{format}: {text}"
        );
    }
}

/// A producer's checks name the profile they are run under.
#[test]
fn producer_checks_name_their_profile() {
    let out = rpcspec()
        .args(["list", "--role", "producer", "--profile", "claude"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(claude profile)"), "{text}");
    assert!(!text.contains("events profile)"), "{text}");
}
