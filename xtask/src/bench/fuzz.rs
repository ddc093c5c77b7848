//! `cargo xtask fuzz-bench`: `rpcspec fuzz` on one job against two
//! servers, with a process per execution (`--fresh`) and with processes
//! kept between executions (the default), the same seed both ways, runs
//! interleaved: executions per second and their ratio, in the same run
//! (issue 37's bars).

use std::{
    path::Path,
    process::{Command, ExitCode, Stdio},
};

const USAGE: &str = "\
usage: cargo xtask fuzz-bench [--seconds N] [--runs N]

Builds rpcspec (release), then fuzzes the stdlib-Python JSON-RPC server
(xtask/bench/stdlib_server.py) and the built-in server (`rpcspec serve`) on
one job with seed 1, N seconds a run (--seconds, default 20), alternating a
process per execution (--fresh) and processes kept, --runs times each
(default 3). Prints the median executions per second of each mode and
their ratio, against the bars (50x and 20x): the table of BENCHMARKS.md.";

/// A target: its name in the table, its command (`{rpcspec}`: ours,
/// `{root}`: the repository), and the bar on the ratio.
const TARGETS: &[(&str, &[&str], f64)] = &[
    (
        "stdlib-Python JSON-RPC server",
        &["python3", "{root}/xtask/bench/stdlib_server.py"],
        50.0,
    ),
    (
        "built-in server (`rpcspec serve`)",
        &["{rpcspec}", "serve"],
        20.0,
    ),
];

pub fn fuzz_bench(root: &Path, args: &[String]) -> ExitCode {
    let (mut seconds, mut runs) = (20u64, 3usize);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" | "--runs" => {
                let value = it.next().and_then(|v| v.parse::<u64>().ok());
                let Some(n) = value.filter(|&n| n > 0) else {
                    eprintln!("{arg} takes a positive number\n{USAGE}");
                    return ExitCode::from(2);
                };
                if arg == "--seconds" {
                    seconds = n;
                } else {
                    runs = n as usize;
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(rpcspec) = super::build_release(root) else {
        return ExitCode::FAILURE;
    };
    let out = std::env::temp_dir().join(format!("rpcspec-fuzz-bench-{}", std::process::id()));
    let mut rows = Vec::new();
    for &(name, argv, bar) in TARGETS {
        let argv: Vec<String> = argv
            .iter()
            .map(|a| {
                a.replace("{rpcspec}", &rpcspec.display().to_string())
                    .replace("{root}", &root.display().to_string())
            })
            .collect();
        let (mut fresh, mut kept) = (Vec::new(), Vec::new());
        for run in 0..runs {
            for (mode, rates) in [("--fresh", &mut fresh), ("", &mut kept)] {
                match fuzz_rate(&rpcspec, &argv, mode, seconds, &out) {
                    Ok(rate) => {
                        eprintln!(
                            "    {name}, run {}, {}: {:.1} executions/s ({} findings)",
                            run + 1,
                            if mode.is_empty() { "kept" } else { "fresh" },
                            rate.per_second,
                            rate.findings
                        );
                        rates.push(rate);
                    }
                    Err(e) => {
                        eprintln!("{name}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
        }
        rows.push((name, median(&fresh), median(&kept), bar));
    }
    let _ = std::fs::remove_dir_all(&out);
    println!(
        "`rpcspec fuzz --jobs 1 --seed 1 --time {seconds}`, {runs} interleaved runs per mode, \
         medians:\n"
    );
    println!("| target | `--fresh` exec/s | kept exec/s | ratio | bar | result |");
    println!("|---|--:|--:|--:|--:|---|");
    let mut missed = false;
    for (name, fresh, kept, bar) in rows {
        let ratio = kept / fresh.max(f64::MIN_POSITIVE);
        let pass = ratio >= bar;
        missed |= !pass;
        println!(
            "| {name} | {fresh:.1} | {kept:.1} | {ratio:.1}x | >= {bar:.0}x | {} |",
            if pass { "PASS" } else { "**MISS**" }
        );
    }
    if missed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

struct Rate {
    per_second: f64,
    findings: u64,
}

/// One `rpcspec fuzz` run: executions per second, from its closing line
/// ("N executions (numbers a to b) in S.Ss on 1 jobs, F findings ...").
fn fuzz_rate(
    rpcspec: &Path,
    argv: &[String],
    mode: &str,
    seconds: u64,
    out: &Path,
) -> Result<Rate, String> {
    let _ = std::fs::remove_dir_all(out);
    let mut command = Command::new(rpcspec);
    command.args(["fuzz", "--jobs", "1", "--seed", "1", "--time"]);
    command.arg(seconds.to_string()).arg("--out").arg(out);
    if !mode.is_empty() {
        command.arg(mode);
    }
    let output = command
        .arg("--")
        .args(argv)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", rpcspec.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find(|l| l.contains(" executions") && l.contains(" jobs, "))
        .ok_or_else(|| format!("no closing line in the output of `rpcspec fuzz`:\n{text}"))?;
    let number = |after: &str, before: &str| -> Option<f64> {
        let (_, rest) = line.split_once(after)?;
        rest.split_once(before)?.0.trim().parse().ok()
    };
    let executions = line
        .split_once(' ')
        .and_then(|(n, _)| n.parse::<f64>().ok())
        .ok_or_else(|| format!("no execution count in {line:?}"))?;
    let secs = number(" in ", "s on ").ok_or_else(|| format!("no time in {line:?}"))?;
    let findings = number(" jobs, ", " findings").unwrap_or(0.0);
    Ok(Rate {
        per_second: executions / secs.max(1e-3),
        findings: findings as u64,
    })
}

fn median(rates: &[Rate]) -> f64 {
    let mut v: Vec<f64> = rates.iter().map(|r| r.per_second).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_rate() {
        let rates = |v: &[f64]| -> Vec<Rate> {
            v.iter()
                .map(|&per_second| Rate {
                    per_second,
                    findings: 0,
                })
                .collect()
        };
        assert_eq!(median(&rates(&[3.0, 1.0, 2.0])), 2.0);
        assert_eq!(median(&rates(&[5.0])), 5.0);
    }
}
