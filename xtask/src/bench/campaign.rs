//! `cargo xtask fuzz-matrix`: fuzzing campaigns against the real servers
//! of the matrix (`xtask/matrix/`, after `cargo xtask matrix --install`),
//! each for a fixed time with a fixed seed, one job and a corpus of its
//! own: executions, executions per second, new behaviours (inputs the
//! corpus kept), findings, and for MCP servers what the drawn inputs
//! reached. The table is `docs/fuzzing.md`'s.

use std::{
    fmt::Write as _,
    path::Path,
    process::{Command, ExitCode, Stdio},
};

const USAGE: &str = "\
usage: cargo xtask fuzz-matrix [--minutes N] [--parallel N] [--only NAME]... [--out DIR]

Builds rpcspec (release), then runs `rpcspec fuzz --seed 1 --jobs 1` against
each real server of the matrix (after `cargo xtask matrix --install`) for N
minutes (default 10), --parallel campaigns at a time (default 1), each with
a corpus of its own under DIR (default target/fuzz-matrix, emptied first).
Prints the campaign table (Markdown) and every finding with its case file,
and writes them to DIR/report.md (each campaign's own summary to
DIR/NAME.txt). --only runs the named targets alone.";

/// A campaign: the matrix target's name (`xtask/matrix/manifest.toml`),
/// its command and environment (relative to `xtask/matrix/`), its
/// dialect, and the tools the fuzzer may call (safe with any arguments,
/// quick: each returns what it is given or refuses it).
struct Campaign {
    name: &'static str,
    command: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    dialect: &'static str,
    tools: &'static [&'static str],
}

const PY: &[(&str, &str)] = &[("PYTHONPATH", ".deps/python")];
const NODE: &[(&str, &str)] = &[("NODE_PATH", ".deps/node/node_modules")];

const CAMPAIGNS: &[Campaign] = &[
    Campaign {
        name: "jsonrpcserver",
        command: &["python3", "adapters/jsonrpcserver_stdio.py"],
        env: PY,
        dialect: "jsonrpc2",
        tools: &[],
    },
    Campaign {
        name: "json-rpc",
        command: &["python3", "adapters/json_rpc.py"],
        env: PY,
        dialect: "jsonrpc2",
        tools: &[],
    },
    Campaign {
        name: "json-rpc-2.0",
        command: &["node", "adapters/json-rpc-2.0.cjs"],
        env: NODE,
        dialect: "jsonrpc2",
        tools: &[],
    },
    Campaign {
        name: "jsonrpc-core",
        command: &[".deps/cargo-target/release/rpcspec-matrix-jsonrpc-core"],
        env: &[],
        dialect: "jsonrpc2",
        tools: &[],
    },
    Campaign {
        name: "mcp-lowlevel",
        command: &["python3", "adapters/mcp_lowlevel.py"],
        env: PY,
        dialect: "mcp",
        tools: &[],
    },
    Campaign {
        name: "mcp-server-everything",
        command: &[
            "node",
            ".deps/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            "stdio",
        ],
        env: &[],
        dialect: "mcp",
        tools: &["echo", "get-sum"],
    },
    Campaign {
        name: "mcp-python",
        command: &["python3", "adapters/mcp_server.py"],
        env: PY,
        dialect: "mcp",
        tools: &["echo", "add", "fail"],
    },
    Campaign {
        name: "rmcp",
        command: &[".deps/cargo-target/release/rpcspec-matrix-rmcp"],
        env: &[],
        dialect: "mcp",
        tools: &["echo", "add", "fail"],
    },
    Campaign {
        name: "codex-app-server",
        command: &[
            "node",
            ".deps/node/node_modules/@openai/codex/bin/codex.js",
            "app-server",
        ],
        env: &[("HOME", ".deps/codex-home")],
        dialect: "codex",
        tools: &[],
    },
];

pub fn fuzz_matrix(root: &Path, args: &[String]) -> ExitCode {
    let mut minutes = 10u64;
    let mut parallel = 1usize;
    let mut only: Vec<String> = Vec::new();
    let mut out = root.join("target/fuzz-matrix");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--minutes" => match it.next().and_then(|v| v.parse::<u64>().ok()) {
                Some(n) if n > 0 => minutes = n,
                _ => return usage("--minutes takes a positive number"),
            },
            "--parallel" => match it.next().and_then(|v| v.parse::<usize>().ok()) {
                Some(n) if n > 0 => parallel = n,
                _ => return usage("--parallel takes a positive number"),
            },
            "--only" => match it.next() {
                Some(name) if CAMPAIGNS.iter().any(|c| c.name == name) => only.push(name.clone()),
                _ => {
                    let names: Vec<&str> = CAMPAIGNS.iter().map(|c| c.name).collect();
                    return usage(&format!("--only takes one of {}", names.join(", ")));
                }
            },
            "--out" => match it.next() {
                Some(dir) => out = root.join(dir),
                None => return usage("--out takes a folder"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument {other}")),
        }
    }
    let dir = root.join("xtask/matrix");
    if !dir.join(".deps").is_dir() {
        eprintln!("xtask fuzz-matrix: run `cargo xtask matrix --install` first");
        return ExitCode::FAILURE;
    }
    let Some(rpcspec) = super::build_release(root) else {
        return ExitCode::FAILURE;
    };
    let _ = std::fs::remove_dir_all(&out);
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("xtask fuzz-matrix: cannot create {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let chosen: Vec<&Campaign> = CAMPAIGNS
        .iter()
        .filter(|c| only.is_empty() || only.iter().any(|o| o == c.name))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<Row, String>>>> =
        chosen.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(chosen.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(c) = chosen.get(i) else { break };
                    eprintln!("==> {} for {minutes} min", c.name);
                    let row = campaign(&rpcspec, &dir, &out, c, minutes);
                    if let Err(e) = &row {
                        eprintln!("xtask fuzz-matrix: {}: {e}", c.name);
                    }
                    *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(row);
                }
            });
        }
    });
    // A campaign that could not run is a row that says why: the others'
    // numbers still stand.
    let mut failed = false;
    let mut rows = Vec::new();
    for (c, result) in chosen.into_iter().zip(results) {
        let row = result
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .unwrap_or_else(|| Err("not run".to_owned()));
        failed |= row.is_err();
        rows.push((
            c,
            row.unwrap_or_else(|error| Row {
                error: Some(error),
                ..Row::default()
            }),
        ));
    }
    let report = report(&rows, minutes, parallel);
    print!("{report}");
    let path = out.join("report.md");
    if let Err(e) = std::fs::write(&path, &report) {
        eprintln!("xtask fuzz-matrix: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    eprintln!("xtask fuzz-matrix: wrote {}", path.display());
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("xtask fuzz-matrix: {problem}\n\n{USAGE}");
    ExitCode::from(2)
}

/// What one campaign's summary said.
#[derive(Debug, Default, PartialEq)]
struct Row {
    executions: u64,
    seconds: f64,
    findings: u64,
    corpus_after: u64,
    /// The finding lines, each with its evidence line.
    finding_lines: Vec<String>,
    /// The MCP lines of the summary, if any.
    mcp: Vec<String>,
    /// Why the campaign did not run.
    error: Option<String>,
}

fn campaign(
    rpcspec: &Path,
    dir: &Path,
    out: &Path,
    c: &Campaign,
    minutes: u64,
) -> Result<Row, String> {
    let mut command = Command::new(rpcspec);
    command
        .args(["fuzz", "--seed", "1", "--jobs", "1", "--dialect", c.dialect])
        .arg("--time")
        .arg(format!("{minutes}m"))
        .arg("--corpus")
        .arg(out.join("corpus").join(c.name))
        .arg("--out")
        .arg(out.join("findings").join(c.name));
    for tool in c.tools {
        command.args(["--tool", tool]);
    }
    command.arg("--").args(c.command).current_dir(dir);
    for (k, v) in c.env {
        command.env(k, v);
    }
    let output = command
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", rpcspec.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let raw = out.join(format!("{}.txt", c.name));
    std::fs::write(&raw, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", raw.display()))?;
    if !matches!(output.status.code(), Some(0 | 1)) {
        return Err(format!("`rpcspec fuzz` failed ({})", output.status));
    }
    parse(&text)
}

/// The numbers of `rpcspec fuzz`'s summary.
fn parse(text: &str) -> Result<Row, String> {
    let mut row = Row::default();
    let closing = text
        .lines()
        .find(|l| l.contains(" executions") && l.contains(" jobs, "))
        .ok_or_else(|| format!("no closing line in the output of `rpcspec fuzz`:\n{text}"))?;
    let between = |line: &str, after: &str, before: &str| -> Option<String> {
        let (_, rest) = line.split_once(after)?;
        Some(rest.split_once(before)?.0.trim().to_owned())
    };
    row.executions = closing
        .split_once(' ')
        .and_then(|(n, _)| n.parse().ok())
        .ok_or_else(|| format!("no execution count in {closing:?}"))?;
    row.seconds = between(closing, " in ", "s on ")
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no time in {closing:?}"))?;
    row.findings = between(closing, " jobs, ", " findings")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("corpus ") {
            row.corpus_after = between(line, " -> ", " inputs")
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
        } else if ["FAIL  ", "TIMEOUT  ", "CRASH  "]
            .iter()
            .any(|p| line.starts_with(p))
        {
            let mut finding = line.to_owned();
            if let Some(evidence) = lines.next_if(|l| l.starts_with("    ")) {
                finding.push('\n');
                finding.push_str(evidence);
            }
            row.finding_lines.push(finding);
        } else if line.starts_with("mcp ") || (line.starts_with("  ") && !row.mcp.is_empty()) {
            row.mcp.push(line.to_owned());
        }
    }
    Ok(row)
}

fn report(rows: &[(&Campaign, Row)], minutes: u64, parallel: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "`cargo xtask fuzz-matrix --minutes {minutes} --parallel {parallel}`: `rpcspec fuzz --seed 1 --jobs 1 --time {minutes}m --corpus DIR`, {parallel} campaigns at a time\n"
    );
    let _ = writeln!(
        out,
        "| target | dialect | executions | exec/s | new behaviours (corpus) | findings |"
    );
    let _ = writeln!(out, "|---|---|--:|--:|--:|--:|");
    for (c, r) in rows {
        if let Some(error) = &r.error {
            let _ = writeln!(
                out,
                "| {} | {} | not run: {error} | | | |",
                c.name, c.dialect
            );
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.0} | {} | {} |",
            c.name,
            c.dialect,
            r.executions,
            r.executions as f64 / r.seconds.max(1e-3),
            r.corpus_after,
            r.findings
        );
    }
    for (c, r) in rows {
        if r.finding_lines.is_empty() && r.mcp.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {}\n\n```", c.name);
        for line in r.finding_lines.iter().chain(&r.mcp) {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "```");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_is_read() {
        let text = "\
FAIL  session.unanswered  on not-json input (execution 4) -> f/seed-1-4.toml
    request id 1 got no reply
1200 executions (numbers 0 to 1199) in 60.0s on 1 jobs, 1 findings (one per cause: rule and input shape) over 1 rules, 0 known, 0 flaky (seed 1)
mcp 2025-11-25: the server lists 2 tools
  messages: 10 meant valid
corpus c: 0 -> 37 inputs (at most 1000)
";
        let row = parse(text).unwrap();
        assert_eq!(
            row,
            Row {
                executions: 1200,
                seconds: 60.0,
                findings: 1,
                corpus_after: 37,
                finding_lines: vec![
                    "FAIL  session.unanswered  on not-json input (execution 4) -> f/seed-1-4.toml\n    request id 1 got no reply".into()
                ],
                mcp: vec![
                    "mcp 2025-11-25: the server lists 2 tools".into(),
                    "  messages: 10 meant valid".into()
                ],
                error: None,
            }
        );
        assert!(parse("nothing").is_err());
    }
}
