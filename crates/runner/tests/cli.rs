//! End to end: every subcommand of `rpcspec` and every exit code, through
//! the built binary. Targets other than the built-in reference server are
//! programs every Unix has: `cat` echoes requests and never answers (a
//! TIMEOUT), `true` exits at once (a CRASH), a path that does not exist
//! ends the run before any case (exit 3), and a file the kernel will not
//! run is an ERROR per case ([`support::unrunnable`]).

mod support;

use std::{
    fs,
    io::{BufRead, BufReader, Write as _},
    path::Path,
    process::{Child, Command as StdCommand, ExitStatus, Stdio},
    thread,
    time::{Duration, Instant},
};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");

/// A case with a single request, cheap under every plan.
const ONE: &str = "jsonrpc/examples/method-not-found";

/// Plain output whatever the environment, and no test can hang.
fn rpcspec() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .timeout(Duration::from_secs(60));
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

fn last_line(bytes: &[u8]) -> String {
    text(bytes).lines().last().unwrap_or_default().to_owned()
}

/// `(passed, failed, skipped)` from the closing `N passed, N non-strict,
/// N failed, N timeout, N crash, N skipped[, N error]` line, which must be
/// exactly that: NON-STRICT counts as passed (it does not fail the run),
/// TIMEOUT, CRASH and ERROR as failed.
fn summary(line: &str) -> (usize, usize, usize) {
    let parse = || -> Option<(usize, usize, usize)> {
        let n = |s: &str| {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<usize>().ok())
                .flatten()
        };
        let mut counts = std::collections::BTreeMap::new();
        for part in line.split(", ") {
            let (count, what) = part.split_once(' ')?;
            counts.insert(what, n(count)?);
        }
        let names: Vec<&str> = counts.keys().copied().collect();
        let mut want = vec![
            "crash",
            "failed",
            "non-strict",
            "passed",
            "skipped",
            "timeout",
        ];
        if counts.contains_key("error") {
            want.insert(1, "error");
        }
        if counts.contains_key("not applicable") {
            want.insert(3, "not applicable");
        }
        if names != want || !line.starts_with(&format!("{} passed, ", counts["passed"])) {
            return None;
        }
        let failed = counts["failed"] + counts["timeout"] + counts["crash"];
        let errors = counts.get("error").copied().unwrap_or(0);
        Some((
            counts["passed"] + counts["non-strict"],
            failed + errors,
            counts["skipped"],
        ))
    };
    parse().unwrap_or_else(|| panic!("not a summary line: {line:?}"))
}

/// The cases as `rpcspec list --format json` shows them.
fn listed() -> Vec<Value> {
    listed_with(&[])
}

/// The cases `rpcspec list --format json ARGS` shows.
fn listed_with(args: &[&str]) -> Vec<Value> {
    let out = rpcspec()
        .args(["list", "--format", "json"])
        .args(args)
        .assert()
        .success();
    text(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn plan_count(case: &Value) -> usize {
    case["plans"].as_array().expect("plans").len()
}

fn requires(case: &Value, feature: &str) -> bool {
    case["requires"]
        .as_array()
        .expect("requires")
        .iter()
        .any(|r| r == feature)
}

// rpcspec run

#[test]
fn the_whole_suite_passes_against_the_reference_server() {
    // Every case that applies in JSON-RPC 2.0 over NDJSON passes; the rest
    // (LSP's, Content-Length's) are another suite's and not run.
    let expected: usize = listed_with(&["--dialect", "jsonrpc2"])
        .iter()
        .map(plan_count)
        .sum();
    let all: usize = listed().iter().map(plan_count).sum();
    assert!(
        expected < all,
        "some cases are another dialect's or framing's"
    );
    let out = rpcspec().arg("run").assert().code(0);
    let out = out.get_output();
    let last = last_line(&out.stdout);
    assert_eq!(summary(&last), (expected, 0, 0), "{last}");
    assert!(!last.contains("not applicable"), "{last}");
    assert!(!text(&out.stdout).contains("lsp/"));
    // Selected alone, another suite's cases say why they do not apply.
    let alone = rpcspec()
        .args(["run", "--filter", "lsp/lifecycle/*"])
        .assert()
        .code(0);
    let alone = text(&alone.get_output().stdout);
    assert!(alone.contains("lsp/lifecycle"), "{alone}");
    assert!(
        last_line(alone.as_bytes()).contains("not applicable"),
        "{alone}"
    );
    // Passes are not listed without --verbose.
    assert!(!text(&out.stdout).contains("PASS "));
}

#[test]
fn filters_and_plans_narrow_the_run() {
    let out = rpcspec().args(["run", "--filter", ONE]).assert().code(0);
    assert_eq!(summary(&last_line(&out.get_output().stdout)), (5, 0, 0));

    let out = rpcspec()
        .args(["run", "--filter", ONE, "--plans", "whole,crlf", "--verbose"])
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert_eq!(summary(stdout.lines().last().unwrap()), (2, 0, 0));
    assert!(
        stdout.contains(&format!("PASS       {ONE} [whole]")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("PASS       {ONE} [crlf]")),
        "{stdout}"
    );

    // A filter without glob characters selects the cases below it.
    let examples = listed()
        .iter()
        .filter(|c| c["id"].as_str().unwrap().starts_with("jsonrpc/examples/"))
        .count();
    let out = rpcspec()
        .args(["run", "--filter", "jsonrpc/examples", "--plans", "whole"])
        .assert()
        .code(0);
    assert_eq!(
        summary(&last_line(&out.get_output().stdout)),
        (examples, 0, 0)
    );
}

#[test]
fn a_target_that_never_answers_times_out() {
    rpcspec()
        .args([
            "run",
            "--timeout",
            "0.5",
            "--plans",
            "whole",
            "--filter",
            ONE,
        ])
        .args(["--", "cat"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("TIMEOUT    {ONE}  ")))
        .stdout(predicate::str::contains("\n  whole: "))
        .stdout(predicate::str::contains(
            "the case deadline (500ms from its last write the target took) passed",
        ))
        .stdout(predicate::str::ends_with(
            "0 passed, 0 non-strict, 0 failed, 1 timeout, 0 crash, 0 skipped\n",
        ));
}

#[test]
fn a_target_that_exits_at_once_crashes() {
    rpcspec()
        .args(["run", "--plans", "whole", "--filter", ONE, "--", "true"])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "CRASH      the run halted: the target exited (exit status 0) ",
        ))
        .stdout(predicate::str::contains(
            "before answering barrier 0, a request for the unknown method `rpcspec/barrier` that \
             JSON-RPC 2.0 §5.1 has answered with -32601, and wrote nothing to stdout",
        ))
        .stdout(predicate::str::contains(format!("\n  {ONE} (whole):\n")))
        .stdout(predicate::str::ends_with(
            "0 passed, 0 non-strict, 0 failed, 0 timeout, 1 crash, 0 skipped\n",
        ));
}

#[test]
fn a_target_that_cannot_run_is_an_error() {
    let bad = support::unrunnable();
    let bad = bad.to_str().expect("a UTF-8 path");
    rpcspec()
        .args(["run", "--plans", "whole", "--filter", ONE, "--", bad])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("ERROR      {ONE}  ")))
        .stdout(predicate::str::contains(format!(
            "  whole: cannot start `{bad}`: Exec format error"
        )))
        .stdout(predicate::str::ends_with(
            "0 passed, 0 non-strict, 0 failed, 0 timeout, 0 crash, 0 skipped, 1 error\n",
        ));
}

#[test]
fn no_matching_case_exits_4() {
    for sub in ["run", "list"] {
        rpcspec()
            .args([sub, "--filter", "no/such/case"])
            .assert()
            .code(4)
            .stdout("")
            .stderr(predicate::str::contains("no case matched"));
    }
}

#[test]
fn bad_usage_exits_2() {
    let usage = |args: &[&str], says: &str| {
        rpcspec()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(says));
    };
    usage(
        &["run", "--plans", "whole,diagonal"],
        "unknown write plan `diagonal`",
    );
    usage(
        &["run", "--dialect", "xml-rpc"],
        "unknown dialect `xml-rpc`",
    );
    usage(&["run", "--timeout", "0"], "--timeout");
    usage(&["run", "--timeout=-1"], "--timeout");
    usage(&["run", "--timeout", "inf"], "--timeout");
    usage(&["run", "--timeout", "1e20"], "out of range");
    usage(&["run", "--timeout", "5 minutes"], "is not a duration");
    usage(&["fuzz", "--time", "1e20", "--", "cat"], "out of range");
    usage(&["fuzz", "--timeout", "0", "--", "cat"], "out of range");
    usage(
        &["run", "--budget", "1MiB"],
        "a budget is from 4 MiB to 4 GiB",
    );
    usage(&["run", "--budget", "64 mb"], "is not a size");
    usage(
        &["fuzz", "--budget", "99999G", "--", "cat"],
        "a budget is from",
    );
    usage(
        &["run", "--without", "nonsense"],
        "unknown feature `nonsense` in --without (known: batch, get_data, subtract, sum)",
    );
    usage(
        &["run", "--without", "sum,nonsense"],
        "unknown feature `nonsense`",
    );
    usage(
        &["run", "--dialect", "mcp2"],
        &format!("(known: {})", rpcspec::dialects::names()),
    );
    usage(&["run", "--filter", "[unclosed"], "bad --filter");
    usage(&["bogus"], "unrecognized subcommand");
    // Lists are comma-separated or repeated, and durations take units.
    let listed = |args: &[&str]| {
        let out = rpcspec().args(args).assert().code(0);
        text(&out.get_output().stdout)
    };
    let one = listed(&[
        "run",
        "--filter",
        "jsonrpc/examples/*",
        "--without",
        "subtract,sum",
        "--timeout",
        "2500ms",
    ]);
    let two = listed(&[
        "run",
        "--filter",
        "jsonrpc/examples/*",
        "--without",
        "subtract",
        "--without",
        "sum",
        "--timeout",
        "2.5s",
    ]);
    assert!(one.contains(" skipped"), "{one}");
    let closing = |t: &str| t.lines().last().unwrap_or("").to_owned();
    assert_eq!(closing(&one), closing(&two));
    assert!(!closing(&one).contains(" 0 skipped"), "{one}");
    usage(
        &["check", "--rpc", "xml-rpc", "-"],
        "unknown dialect `xml-rpc`",
    );

    // JUnit is a report of a run; `list` and `check` print text or NDJSON.
    usage(&["list", "--format", "junit"], "invalid value 'junit'");
    usage(
        &["check", "--format", "junit", "-"],
        "invalid value 'junit'",
    );
    // --help and --version are not errors.
    rpcspec().arg("--help").assert().code(0);
    rpcspec()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("rpcspec "));
}

/// Every dialect, as the registry lists them: each command that takes one
/// names them all in `--help` (and `-h`), and so does the error for a name
/// no dialect has. A dialect a command does not take says which role does.
#[test]
fn every_dialect_is_named_by_every_command_that_takes_one() {
    // The registry's names (its own test pins the list), each described
    // once: `mcp, mcp@REVISION: …`.
    let all: Vec<String> = rpcspec::dialects::names()
        .split(", ")
        .map(str::to_owned)
        .collect();
    assert!(all.len() >= 9, "{all:?}");
    let described: Vec<String> = rpcspec::dialects::DIALECTS
        .iter()
        .map(|d| {
            if d.revisions.is_empty() {
                format!("{}:", d.name)
            } else {
                format!("{0}, {0}@REVISION:", d.name)
            }
        })
        .collect();
    for command in ["run", "list", "serve", "check"] {
        let long = text(
            &rpcspec()
                .args([command, "--help"])
                .assert()
                .code(0)
                .get_output()
                .stdout,
        );
        for name in &described {
            assert!(
                long.contains(&format!("  {name} ")),
                "{command} --help: no `{name}`\n{long}"
            );
        }
        let short = text(
            &rpcspec()
                .args([command, "-h"])
                .assert()
                .code(0)
                .get_output()
                .stdout,
        );
        let names = all.join(", ");
        let taken: Vec<&String> = all
            .iter()
            .filter(|n| short.contains(&format!(" {n},")) || short.contains(&format!(" {n}\n")))
            .collect();
        assert!(
            taken.len() >= 6,
            "{command} -h names {taken:?} of {names}\n{short}"
        );
    }
    let top = text(&rpcspec().arg("--help").assert().code(0).get_output().stdout);
    assert!(top.contains("Content-Length"), "{top}");
    let unknown = rpcspec()
        .args(["run", "--dialect", "soap"])
        .assert()
        .code(2);
    let said = text(&unknown.get_output().stderr);
    assert!(
        said.contains(&format!("(known: {})", all.join(", "))),
        "{said}"
    );
    // codex-exec is the client role's, and the server role says so.
    let other = rpcspec()
        .args(["run", "--dialect", "codex-exec"])
        .assert()
        .code(2);
    let said = text(&other.get_output().stderr);
    assert!(
        said.contains("takes no `codex-exec` (it is for run --role client, serve --role client)"),
        "{said}"
    );
    let other = rpcspec()
        .args([
            "run",
            "--role",
            "client",
            "--dialect",
            "events",
            "--",
            "true",
        ])
        .assert()
        .code(2);
    let said = text(&other.get_output().stderr);
    assert!(
        said.contains("the client role takes no `events` (it is for run --role server, check)"),
        "{said}"
    );
}

#[test]
fn a_broken_case_directory_exits_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("broken.toml"),
        "# broken on purpose\n[[case]]\nname = = \"x\"\n",
    )
    .unwrap();
    for sub in ["run", "list"] {
        rpcspec()
            .arg(sub)
            .arg("--cases")
            .arg(dir.path())
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("broken.toml:3:"));
    }
}

#[test]
fn a_bad_baseline_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline");
    fs::write(&baseline, "# known\njsonrpc/examples/batch whole extra\n").unwrap();
    rpcspec()
        .args(["run", "--filter", ONE, "--baseline"])
        .arg(&baseline)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "line 2: expected `CASE-ID [PLAN]`",
        ));
    rpcspec()
        .args(["run", "--filter", ONE, "--baseline"])
        .arg(dir.path().join("absent"))
        .assert()
        .code(2);
}

/// A case directory with one SHOULD-level case the reference server does
/// not meet (it answers 3, the case wants 4): a NON-STRICT result.
fn should_cases() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("own.toml"),
        r#"# A SHOULD expectation the reference server does not meet.
[[case]]
name = "should-differ"
title = "sum answered with a SHOULD-level expectation"
section = "test"
level = "SHOULD"
plans = ["whole"]

[[case.step]]
send = '{"jsonrpc": "2.0", "method": "sum", "params": [1, 2], "id": 1}'
expect = '{"jsonrpc": "2.0", "result": 4, "id": 1}'
"#,
    )
    .unwrap();
    dir
}

#[test]
fn strict_makes_non_strict_results_fail() {
    let dir = should_cases();
    let run = |strict: bool| {
        let mut cmd = rpcspec();
        cmd.arg("run").arg("--cases").arg(dir.path());
        if strict {
            cmd.arg("--strict");
        }
        cmd.assert()
    };
    let lenient = run(false).code(0);
    let stdout = text(&lenient.get_output().stdout);
    assert!(
        stdout.contains("NON-STRICT own/should-differ  ") && stdout.contains("\n  whole: "),
        "{stdout}"
    );
    assert!(stdout.contains("1 non-strict"), "{stdout}");
    // NON-STRICT does not fail the run: it counts as passed.
    assert_eq!(summary(stdout.lines().last().unwrap()), (1, 0, 0));

    let strict = run(true).code(1);
    let stdout = text(&strict.get_output().stdout);
    assert!(stdout.contains("(jsonrpc2 dialect, strict)"), "{stdout}");
    assert_eq!(summary(stdout.lines().last().unwrap()), (0, 1, 0));
}

#[test]
fn without_a_feature_its_cases_are_skipped() {
    let cases = listed();
    let examples: Vec<&Value> = cases
        .iter()
        .filter(|c| c["id"].as_str().unwrap().starts_with("jsonrpc/examples/"))
        .collect();
    let skipped: usize = examples
        .iter()
        .filter(|c| requires(c, "subtract"))
        .map(|c| plan_count(c))
        .sum();
    let total: usize = examples.iter().map(|c| plan_count(c)).sum();
    assert!(skipped > 0, "some example requires subtract");
    let out = rpcspec()
        .args([
            "run",
            "--filter",
            "jsonrpc/examples",
            "--without",
            "subtract",
            "--verbose",
        ])
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert_eq!(
        summary(stdout.lines().last().unwrap()),
        (total - skipped, 0, skipped)
    );
    assert!(
        stdout.contains("SKIPPED    jsonrpc/examples/positional-params [whole]"),
        "{stdout}"
    );
    assert!(stdout.contains("the target lacks subtract"), "{stdout}");
    // Without -v they are counted by reason, not listed.
    let out = rpcspec()
        .args([
            "run",
            "--filter",
            "jsonrpc/examples",
            "--without",
            "subtract",
        ])
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert!(!stdout.contains("positional-params [whole]"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "SKIPPED    {skipped} results: the target lacks subtract\n           (-v lists them)"
        )),
        "{stdout}"
    );
}

#[test]
fn output_writes_the_report_to_a_file_and_the_summary_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.ndjson");
    rpcspec()
        .args(["run", "--filter", ONE, "--format", "json", "--output"])
        .arg(&file)
        .assert()
        .code(0)
        .stdout("")
        .stderr("5 passed, 0 non-strict, 0 failed, 0 timeout, 0 crash, 0 skipped\n");
    let report = fs::read_to_string(&file).unwrap();
    let types: Vec<String> = report
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("NDJSON");
            v["type"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        types,
        [
            "start", "result", "result", "result", "result", "result", "summary"
        ]
    );

    // A failing run still writes its report, and fails.
    let human = dir.path().join("report.txt");
    rpcspec()
        .args(["run", "--filter", ONE, "--plans", "whole", "--output"])
        .arg(&human)
        .arg("--")
        .arg(support::unrunnable())
        .assert()
        .code(1)
        .stdout("")
        .stderr("0 passed, 0 non-strict, 0 failed, 0 timeout, 0 crash, 0 skipped, 1 error\n");
    let report = fs::read_to_string(&human).unwrap();
    assert!(report.contains("ERROR"), "{report}");
    assert!(!report.contains('\x1b'), "no colour in a file: {report:?}");
}

#[test]
fn a_baseline_entry_that_passes_is_stale_and_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline");
    fs::write(&baseline, format!("# known failures\n{ONE}\n")).unwrap();
    rpcspec()
        .args(["run", "--filter", ONE, "--baseline"])
        .arg(&baseline)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "stale baseline entry: {ONE} (baseline line 2) passes now: remove it"
        )))
        .stdout(predicate::str::ends_with(
            "5 passed, 0 non-strict, 1 failed, 0 timeout, 0 crash, 0 skipped\n",
        ));
}

#[test]
fn a_baseline_covering_the_failures_makes_the_run_pass() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline");
    fs::write(&baseline, format!("{ONE} whole  # cannot start\n")).unwrap();
    rpcspec()
        .args(["run", "--filter", ONE, "--plans", "whole", "--baseline"])
        .arg(&baseline)
        .arg("--")
        .arg(support::unrunnable())
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("ERROR      {ONE}  ")))
        .stdout(predicate::str::contains("\n  whole (baselined): "))
        .stdout(predicate::str::contains("1 baselined, 0 stale"))
        .stdout(predicate::str::ends_with(
            "0 passed, 0 non-strict, 0 failed, 0 timeout, 0 crash, 0 skipped\n",
        ));

    // An entry for one plan does not cover another.
    rpcspec()
        .args([
            "run",
            "--filter",
            ONE,
            "--plans",
            "whole,crlf",
            "--baseline",
        ])
        .arg(&baseline)
        .arg("--")
        .arg(support::unrunnable())
        .assert()
        .code(1)
        .stdout(predicate::str::ends_with(
            "0 passed, 0 non-strict, 0 failed, 0 timeout, 0 crash, 0 skipped, 1 error\n",
        ));
}

#[test]
fn write_baseline_lists_the_failures_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline");
    rpcspec()
        .args(["run", "--filter", ONE, "--plans", "whole,crlf"])
        .arg("--write-baseline")
        .arg(&baseline)
        .arg("--")
        .arg(support::unrunnable())
        .assert()
        .code(1);
    assert_eq!(
        fs::read_to_string(&baseline).unwrap(),
        format!("# rpcspec baseline: known failures (CASE-ID PLAN)\n{ONE} whole\n{ONE} crlf\n")
    );
    // The same failures again: known, the run passes.
    rpcspec()
        .args([
            "run",
            "--filter",
            ONE,
            "--plans",
            "whole,crlf",
            "--baseline",
        ])
        .arg(&baseline)
        .arg("--")
        .arg(support::unrunnable())
        .assert()
        .code(0);
    // Against a target that passes, both entries are stale.
    rpcspec()
        .args([
            "run",
            "--filter",
            ONE,
            "--plans",
            "whole,crlf",
            "--baseline",
        ])
        .arg(&baseline)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("1 stale").not())
        .stdout(predicate::str::contains("2 stale"));

    // A passing run writes an empty baseline (just the header).
    let empty = dir.path().join("empty");
    rpcspec()
        .args([
            "run",
            "--filter",
            ONE,
            "--plans",
            "whole",
            "--write-baseline",
        ])
        .arg(&empty)
        .assert()
        .code(0);
    assert_eq!(
        fs::read_to_string(&empty).unwrap(),
        "# rpcspec baseline: known failures (CASE-ID PLAN)\n"
    );
}

// rpcspec list

#[test]
fn list_prints_one_line_per_case() {
    let builtin = rpcspec::cases::builtin().unwrap();
    let out = rpcspec().arg("list").assert().code(0);
    let stdout = text(&out.get_output().stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), builtin.len(), "{stdout}");
    for (line, case) in lines.iter().zip(&builtin) {
        assert!(line.starts_with(&format!("{}  ", case.meta.id)), "{line}");
        assert!(line.contains(&case.meta.title), "{line}");
        assert!(line.contains(&format!("({})", case.meta.section)), "{line}");
        assert_eq!(
            line.contains("requires: "),
            !case.meta.requires.is_empty(),
            "{line}"
        );
    }
}

#[test]
fn list_json_prints_one_object_per_case() {
    let builtin = rpcspec::cases::builtin().unwrap();
    let listed = listed();
    assert_eq!(listed.len(), builtin.len());
    for (v, case) in listed.iter().zip(&builtin) {
        assert!(v.is_object(), "{v}");
        assert_eq!(v["id"], case.meta.id.as_str());
        assert_eq!(v["title"], case.meta.title.as_str());
        assert_eq!(v["section"], case.meta.section.as_str());
        let requires: Vec<&str> = v["requires"]
            .as_array()
            .unwrap_or_else(|| panic!("requires is an array: {v}"))
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert_eq!(requires, case.meta.requires);
    }
    // With a filter.
    rpcspec()
        .args(["list", "--format", "json", "--filter", ONE])
        .assert()
        .code(0)
        .stdout(predicate::function(|out: &str| {
            out.lines().count() == 1 && out.contains(&format!("\"id\":\"{ONE}\""))
        }));
}

/// Waits for `child` at most `limit`, killing it past that.
fn wait_within(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}: killed");
        }
        thread::sleep(Duration::from_millis(10));
    }
}

fn spawn(args: &[&str]) -> Child {
    StdCommand::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn stderr_of(child: &mut Child) -> String {
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    err
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    // `rpcspec list | head -1`: read one line, then close the pipe.
    let mut child = spawn(&["list"]);
    drop(child.stdin.take());
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(
        ["acp/", "codex/", "framing/", "jsonrpc/"]
            .iter()
            .any(|area| first.starts_with(area)),
        "{first}"
    );
    let status = wait_within(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr_of(&mut child), "");

    // Closed before anything is written: every write fails with EPIPE.
    for args in [&["list"][..], &["run", "--filter", ONE, "--verbose"]] {
        let mut child = spawn(args);
        drop(child.stdin.take());
        drop(child.stdout.take());
        let status = wait_within(&mut child, Duration::from_secs(20));
        assert_eq!(status.code(), Some(0), "{args:?}");
        assert_eq!(stderr_of(&mut child), "", "{args:?}");
    }

    // `serve` whose client went away ends quietly too.
    let mut child = spawn(&["serve"]);
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // The write may fail if serve already exited; that is fine.
    let _ = stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1],\"id\":1}\n");
    drop(stdin);
    let status = wait_within(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr_of(&mut child), "");
}

// rpcspec serve

#[test]
fn serve_answers_the_specification_examples() {
    let requests = [
        r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
        r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
        r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
        r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
        r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
        r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
        r#"[]"#,
        r#"[1,2]"#,
        r#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"#,
        r#"{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "after"}"#,
    ];
    let invalid =
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;
    let replies = [
        r#"{"jsonrpc":"2.0","result":19,"id":1}"#.to_owned(),
        r#"{"jsonrpc":"2.0","result":19,"id":3}"#.to_owned(),
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#
            .to_owned(),
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#.to_owned(),
        invalid.to_owned(),
        invalid.to_owned(),
        format!("[{invalid},{invalid}]"),
        r#"{"jsonrpc":"2.0","result":7,"id":"after"}"#.to_owned(),
    ];
    rpcspec()
        .arg("serve")
        .write_stdin(requests.join("\n") + "\n")
        .assert()
        .code(0)
        .stdout(replies.join("\n") + "\n")
        .stderr("");
}

#[test]
fn serve_keeps_serving_after_bad_lines() {
    let mut input = Vec::new();
    input.extend_from_slice(b"\xff\xfe not utf-8\n");
    input.extend_from_slice(b"\n");
    input.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1,2],\"id\":1}\r\n",
    );
    input.extend_from_slice(b"not json\n");
    // The last line has no newline: still answered at EOF.
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[3],\"id\":2}");
    let parse_error =
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    rpcspec()
        .arg("serve")
        .write_stdin(input)
        .assert()
        .code(0)
        .stdout(format!(
            "{parse_error}\n{}\n{parse_error}\n{}\n",
            r#"{"jsonrpc":"2.0","result":3,"id":1}"#, r#"{"jsonrpc":"2.0","result":3,"id":2}"#
        ));
}

#[test]
fn a_case_that_cannot_apply_to_a_dialect_is_not_applicable_not_failed() {
    // Decided before anything is spawned: the reference needs no handshake.
    let out = rpcspec()
        .args([
            "run",
            "--dialect",
            "mcp",
            "--filter",
            "jsonrpc/ids/null",
            "--filter",
            "jsonrpc/concurrency/batch-of-five",
            "-v",
        ])
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains(
            "not applicable in the mcp dialect: MCP basic (requests): the id MUST NOT be null"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "not applicable in the mcp dialect: MCP 2025-06-18 removed JSON-RPC batching"
        ),
        "{stdout}"
    );
    // In its own dialect the same case runs.
    let out = rpcspec()
        .args(["run", "--filter", "jsonrpc/ids/null"])
        .assert()
        .code(0);
    assert!(text(&out.get_output().stdout).contains("5 passed, 0 non-strict, 0 failed, "));
}

#[test]
fn a_not_in_table_names_known_dialects() {
    let dir = tempfile::tempdir().unwrap();
    temp_file(
        dir.path(),
        "bad.toml",
        b"[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\nnot_in = { mcq = \"typo\" }\n\n[[case.step]]\nsend = '{}'\nexpect_none = true\n",
    );
    rpcspec()
        .args(["list", "--cases"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown dialect `mcq` in not_in"));
}

// rpcspec check

fn temp_file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

const CLEAN: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1,2],\"id\":1}\n\
{\"jsonrpc\":\"2.0\",\"result\":3,\"id\":1}\n\
{\"jsonrpc\":\"2.0\",\"method\":\"update\"}\n";

/// An invalid UTF-8 line, a blank line, a CRLF line (fine), and a last line
/// without its newline.
const BROKEN_FRAMING: &[u8] = b"{\"a\":1}\n\xff\xfe\n\n{\"b\":2}\r\n{\"c\":3}";

#[test]
fn check_a_clean_stream_prints_only_its_summary_line() {
    let dir = tempfile::tempdir().unwrap();
    let clean = temp_file(dir.path(), "clean.ndjson", CLEAN);
    rpcspec()
        .arg("check")
        .arg(&clean)
        .assert()
        .code(0)
        .stdout("0 findings in 3 lines (127 bytes)\n")
        .stderr("");
    rpcspec()
        .args(["check", "--rpc", "jsonrpc2"])
        .arg(&clean)
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "0 findings in 3 lines, 3 messages (",
        ));
    rpcspec()
        .args(["check", "--format", "json"])
        .arg(&clean)
        .assert()
        .code(0)
        .stdout(
            "{\"type\":\"summary\",\"data\":{\"bytes\":127,\"lines\":3,\"findings\":0,\
             \"not_shown\":0,\"by_rule\":[],\"multi_line_values\":0,\"messages\":0,\
             \"requests\":0,\"replies\":0,\"paired\":0,\"senders\":\"guessed\"}}\n",
        );
}

#[test]
fn check_reports_framing_problems() {
    let dir = tempfile::tempdir().unwrap();
    let broken = temp_file(dir.path(), "broken.ndjson", BROKEN_FRAMING);
    let out = rpcspec()
        .arg("check")
        .arg(&broken)
        .assert()
        .code(1)
        .stderr("");
    let stdout = text(&out.get_output().stdout);
    insta::assert_snapshot!(stdout, @r#"
    2:8: framing.utf8: line 2 (byte 8): invalid utf-8 after 0 valid bytes: "\xff\xfe"
    3:11: framing.blank-line: line 3 (byte 11): blank line
    5:21: framing.unterminated: line 5 (byte 21): stream ended inside a line (no final newline): "{\"c\":3}"
    3 findings in 5 lines (28 bytes): framing.utf8 1, framing.blank-line 1, framing.unterminated 1
    "#);
}

#[test]
fn check_reads_stdin() {
    let expected = {
        let dir = tempfile::tempdir().unwrap();
        let broken = temp_file(dir.path(), "broken.ndjson", BROKEN_FRAMING);
        let out = rpcspec().arg("check").arg(&broken).assert().code(1);
        text(&out.get_output().stdout)
    };
    for args in [&["check", "-"][..], &["check"]] {
        rpcspec()
            .args(args)
            .write_stdin(BROKEN_FRAMING)
            .assert()
            .code(1)
            .stdout(expected.clone());
    }
    rpcspec()
        .args(["check", "-"])
        .write_stdin(CLEAN)
        .assert()
        .code(0)
        .stdout("0 findings in 3 lines (127 bytes)\n");
}

#[test]
fn check_rpc_reports_a_reply_to_an_unknown_id() {
    let transcript = b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1],\"id\":1}\n\
{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}\n\
{\"jsonrpc\":\"2.0\",\"result\":2,\"id\":7}\n";
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(dir.path(), "transcript.ndjson", transcript);
    let out = rpcspec()
        .args(["check", "--rpc", "jsonrpc2"])
        .arg(&file)
        .assert()
        .code(1);
    insta::assert_snapshot!(text(&out.get_output().stdout), @r"
    3:89: session.unknown-id: no request with id 7 awaits a reply
    1 finding in 3 lines, 3 messages (1 request, 2 replies, 1 paired; senders guessed: mark the lines `-->`/`<--` or give --from) (125 bytes): session.unknown-id 1
    ");
    // Without --rpc only framing is checked: nothing wrong.
    rpcspec()
        .arg("check")
        .arg(&file)
        .assert()
        .code(0)
        .stdout("0 findings in 3 lines (125 bytes)\n");
}

#[test]
fn check_json_prints_findings_then_a_summary() {
    let out = rpcspec()
        .args(["check", "--format", "json", "-"])
        .write_stdin(BROKEN_FRAMING)
        .assert()
        .code(1);
    let lines: Vec<Value> = text(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("NDJSON"))
        .collect();
    let (last, findings) = lines.split_last().unwrap();
    assert_eq!(findings.len(), 3);
    for f in findings {
        assert_eq!(f["type"], "finding", "{f}");
        for key in ["line", "offset", "message"] {
            assert!(!f["data"][key].is_null(), "{key} in {f}");
        }
        assert!(f["data"]["rule"]["id"].is_string(), "{f}");
    }
    let rules: Vec<&str> = findings
        .iter()
        .map(|f| f["data"]["rule"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        ["framing.utf8", "framing.blank-line", "framing.unterminated"]
    );
    assert_eq!(findings[0]["data"]["line"], 2);
    assert_eq!(findings[0]["data"]["offset"], 8);
    assert_eq!(last["type"], "summary");
    assert_eq!(last["data"]["findings"], 3);
    assert_eq!(
        last["data"]["by_rule"],
        serde_json::json!([
            ["framing.utf8", 1],
            ["framing.blank-line", 1],
            ["framing.unterminated", 1]
        ])
    );
}

#[test]
fn a_symbolic_link_loop_in_a_cases_folder_is_an_error_not_a_stack_overflow() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("a")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("a").join("up")).unwrap();
    rpcspec()
        .args(["list", "--cases"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a symbolic link loop?"));
}

#[test]
fn an_unknown_decoder_plan_is_refused_not_an_empty_pass() {
    rpcspec()
        .args(["run", "--role", "decoder", "--plans", "splits"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown decoder plan `splits`"));
}

/// A target file in a temporary folder, its `command` the reference MCP
/// server; `rest` is the rest of the file.
fn mcp_target_file(rest: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("target.toml");
    let text = format!(
        "command = [{:?}, \"serve\", \"--dialect\", \"mcp\"]\ndialect = \"mcp\"\n{rest}",
        BIN
    );
    fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn a_target_file_gives_the_command_dialect_and_success_call() {
    let (_dir, path) = mcp_target_file("[call]\nmethod = \"ping\"\nresult = '{}'\n");
    let out = rpcspec()
        .args(["run", "--target", path.to_str().unwrap()])
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.contains("(mcp dialect)"), "{stdout}");
    // `N passed, 0 failed, 42 skipped, M not applicable`: MCP has no
    // batches, and `ping` no params whose names' case to change (one case
    // under five plans); the reference declares every capability, so the
    // MCP check of undeclared methods has none to call; and the file names
    // no `[mcp]` tool calls, which four MCP checks need; without
    // `--fixtures conformance` the 32 checks of the official suite's
    // fixtures are SKIPPED too (15, 4 that ask the client, and 13 round
    // trips at 2026-07-28). The reference speaks 2026-07-28 and has
    // `initialize`: its checks run at 2025-11-25 too, where 25 more are
    // SKIPPED.
    let last = last_line(&out.get_output().stdout);
    let (counts, na) = last.rsplit_once(", ").unwrap();
    let (passed, failed, skipped) = summary(counts);
    assert_eq!((failed, skipped), (0, 42 + 25), "{stdout}");
    assert!(passed > 100, "{last}");
    assert!(na.ends_with(" not applicable"), "{last}");
}

#[test]
fn the_success_call_of_a_target_file_is_the_one_sent() {
    // `prompts/get` without a prompt's name is an error from the
    // reference: every case that needs the call fails, and says which
    // method it sent.
    let (_dir, path) = mcp_target_file("[call]\nmethod = \"prompts/get\"\n");
    let out = rpcspec()
        .args([
            "run",
            "--target",
            path.to_str().unwrap(),
            "--filter",
            "jsonrpc/params/absent",
            "--filter",
            "jsonrpc/envelope/result-object-shape",
            "--plans",
            "whole",
        ])
        .assert()
        .code(1);
    let stdout = text(&out.get_output().stdout);
    assert_eq!(stdout.matches("FAIL ").count(), 2, "{stdout}");
    assert!(stdout.contains(r#""method": "prompts/get""#), "{stdout}");
}

/// A target file may leave the command to the command line (the matrix's
/// manifests name one beside a file of `[mcp]` tool calls), but one of the
/// two must give it.
#[test]
fn a_target_file_without_a_command_takes_the_one_after_the_separator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.toml");
    fs::write(
        &path,
        "dialect = \"mcp\"\n[mcp]\ncall = { tool = \"echo\", arguments = '{\"text\": \"hi\"}' }\n",
    )
    .unwrap();
    let out = rpcspec()
        .args([
            "run",
            "--target",
            path.to_str().unwrap(),
            "--filter",
            "mcp/tools/call",
            "--",
        ])
        .args([BIN, "serve", "--dialect", "mcp"])
        .assert()
        .code(0);
    // Once a revision: 2026-07-28, then 2025-11-25.
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.ends_with("2 passed, 0 non-strict, 0 failed, 0 timeout, 0 crash, 0 skipped\n"),
        "{stdout}"
    );
    let out = rpcspec()
        .args(["run", "--target", path.to_str().unwrap()])
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("has no `command`: give it there, or the command after `--`"),
        "{stderr}"
    );
}

#[test]
fn a_bad_target_file_exits_2_naming_file_line_and_column() {
    let (_dir, path) = mcp_target_file("timeout = \"soon\"\n");
    let out = rpcspec()
        .args(["run", "--target", path.to_str().unwrap()])
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    let wanted = format!("{}:3:11: `soon` is not a duration", path.display());
    assert!(stderr.contains(&wanted), "{stderr}");
    // A command in the file and another after `--`: which one is meant?
    let (_dir, good) = mcp_target_file("");
    rpcspec()
        .args(["run", "--target", good.to_str().unwrap(), "--", "cat"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not both"));
}

#[test]
fn the_shipped_target_files_load() {
    for name in ["mcp-everything.toml", "jsonrpc-server.toml"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/targets")
            .join(name);
        let file = rpcspec::target_file::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(file.call.is_some(), "{name} shows a success call");
    }
}

/// rpcspec with `args`, measured (`support::run_measured`), its exit code
/// -1 when it was killed.
fn run_measured(args: &[&str]) -> (u64, i32, String) {
    let (peak, code, stdout) = support::run_measured(BIN, args);
    (peak, code.unwrap_or(-1), stdout)
}

/// A target that writes short lines without end (`yes 1`: JSON scalars;
/// `yes ''`: blank lines) is stopped at the default budget's 8192 lines: a FAIL that says so,
/// in a bounded report, with rpcspec's memory bounded (it was 2.7 GB and
/// 3.4 GB within the case deadline: every line was kept with its findings).
#[test]
fn a_flood_of_short_lines_is_stopped_with_memory_bounded() {
    // Valid replies too: 1.4 GB before.
    for line in ["1", "", r#"{"jsonrpc":"2.0","result":1,"id":1}"#] {
        let args = [
            "run",
            "--timeout",
            "5",
            "--plans",
            "whole",
            "--filter",
            ONE,
            "--format",
            "json",
            "--",
            "yes",
            line,
        ];
        let (peak_kib, code, stdout) = run_measured(&args);
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stdout.contains("the target wrote more than 8192 lines in one case; stopped"),
            "{}",
            &stdout[..stdout.len().min(2000)]
        );
        assert!(stdout.len() < 2 << 20, "report of {} bytes", stdout.len());
        assert!(peak_kib > 0, "no VmHWM read");
        assert!(
            peak_kib < 256 << 10,
            "`yes {line:?}`: peak RSS {peak_kib} KiB"
        );
    }
}

/// One huge line (15 MB, not JSON) costs a report 64 KiB of it, not its
/// length: the received line and each evidence's `actual` keep a head and
/// the length in all (a report of 31 MB per result before).
#[test]
fn a_huge_line_costs_a_report_its_head_only() {
    let script = "head -c 15000000 /dev/zero | tr '\\0' x; echo; exec cat >/dev/null";
    let args = [
        "run",
        "--timeout",
        "5",
        "--plans",
        "whole",
        "--filter",
        ONE,
        "--format",
        "json",
        "--",
        "sh",
        "-c",
        script,
    ];
    let (_, code, stdout) = run_measured(&args);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("… (15000000 bytes in all, fnv1a "),
        "the length is kept"
    );
    assert!(stdout.len() < 1 << 20, "report of {} bytes", stdout.len());
}

/// The human report in a real terminal (tmux): styled (ANSI colours on
/// the verdicts), the progress bar gone by the end; piped, the same report
/// is plain text. The pane, colours and all, is kept in
/// `target/tmp/tty/report.ansi` to be looked at (`cat` it in a terminal).
#[test]
fn in_a_real_terminal_the_report_has_colours_and_piped_it_has_none() {
    let tmux = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("tmux"))
            .find(|p| p.is_file())
    });
    let Some(tmux) = tmux else {
        let required = std::env::var("RPCSPEC_REQUIRE_TMUX").is_ok_and(|v| v == "1");
        assert!(!required, "tmux not installed but RPCSPEC_REQUIRE_TMUX=1");
        eprintln!("tmux not installed: the terminal rendering was not checked");
        return;
    };
    let bin = env!("CARGO_BIN_EXE_rpcspec");
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("tmux.sock");
    let quoted: Vec<String> = support::CAT_TIMES_OUT
        .iter()
        .map(|a| format!("'{a}'"))
        .collect();
    let run = format!(
        "{bin} run {}; echo rpcspec-exit=$?; sleep 60",
        quoted.join(" ")
    );
    let tmux_cmd = |args: &[&str]| {
        std::process::Command::new(&tmux)
            .arg("-S")
            .arg(&socket)
            .args(args)
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR")
            .env_remove("CLICOLOR_FORCE")
            .output()
            .expect("tmux runs")
    };
    let started = tmux_cmd(&["new-session", "-d", "-x", "220", "-y", "200", &run]);
    assert!(started.status.success(), "{started:?}");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let pane = loop {
        let pane = tmux_cmd(&["capture-pane", "-p", "-e", "-S", "-200"]);
        let pane = String::from_utf8_lossy(&pane.stdout).into_owned();
        if pane.contains("rpcspec-exit=") || std::time::Instant::now() > deadline {
            break pane;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = tmux_cmd(&["kill-server"]);
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tty");
    fs::create_dir_all(&keep).unwrap();
    fs::write(keep.join("report.ansi"), &pane).unwrap();
    assert!(pane.contains("rpcspec-exit=1"), "the run ended: {pane}");
    // TIMEOUT in its colour, and the closing line.
    assert!(pane.contains("\u{1b}[1m\u{1b}[31mTIMEOUT"), "{pane}");
    assert!(pane.contains(" 26 timeout, 0 crash, 0 skipped"), "{pane}");
    assert!(
        !pane.contains("] 26/26"),
        "the progress bar is cleared: {pane}"
    );
    let piped = rpcspec()
        .arg("run")
        .args(support::CAT_TIMES_OUT)
        .assert()
        .code(1);
    let piped = text(&piped.get_output().stdout);
    assert!(!piped.contains('\u{1b}'), "{piped}");
    assert!(piped.contains("TIMEOUT    jsonrpc/examples/"), "{piped}");
}
