//! `cargo xtask bench`: the criterion suites, the whole-run and memory
//! measurements, and one table of the issue's bars (BENCHMARKS.md).
//!
//! Every bar is a ratio of two medians measured in the same criterion group
//! (or the same process), because the machines are shared and noisy: the
//! absolute numbers move from run to run, the ratios much less.

use std::{
    collections::BTreeMap,
    fs,
    io::{self, BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Command, ExitCode, Stdio},
    thread,
    time::{Duration, Instant},
};

mod campaign;
mod fuzz;
mod real;
mod speed;

pub use campaign::fuzz_matrix;
pub use fuzz::fuzz_bench;

use speed::{Speeds, check_speed, side_by_side_rows};

const BENCH_USAGE: &str = "\
usage: cargo xtask bench [--mib N] [--runs N] [--reuse]
       cargo xtask bench --real [--help]: real implementations' full runs against the 20 s bar

Runs `cargo bench -p rpcspec-framer -p rpcspec-matcher` on N MiB workloads
(default 64), times `rpcspec run` against the built-in server (median of
--runs, default 5) against the floor of spawning as many trivial processes,
measures the peak RSS of `rpcspec check` on five generated streams (a 1 GiB
single line, a 500 MB conversation with --rpc, 10 M blank lines, 200 MB of
random bytes, 20 MB of `1` lines with --rpc), times `rpcspec check` and `check --rpc` beside `wc -l`,
Python's per-line `json.loads` and `jq -c .` on a 200 MB conversation (a
program not installed is skipped), and prints the bars with PASS or MISS.
--reuse skips criterion and reads the estimates of the last run from
target/criterion.
";

/// The criterion groups the benches write; cleared before a run so that no
/// stale estimate is ever read.
const GROUPS: &[&str] = &[
    "framing-tokens",
    "framing-rpc",
    "framing-large",
    "framing-linear",
    "matching-rpc",
];

const WORKLOADS: &[&str] = &["tokens", "rpc", "large"];

pub fn bench(root: &Path, args: &[String]) -> ExitCode {
    if args.first().is_some_and(|a| a == "--real") {
        return real::real(root, &args[1..]);
    }
    let mut mib = 64u64;
    let mut runs = 5usize;
    let mut reuse = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let number = |v: Option<&String>| v.and_then(|v| v.parse::<u64>().ok()).filter(|&n| n > 0);
        match a.as_str() {
            "--mib" => match number(it.next()) {
                Some(n) => mib = n,
                None => return usage("--mib takes a positive number"),
            },
            "--runs" => match number(it.next()) {
                Some(n) => runs = n as usize,
                None => return usage("--runs takes a positive number"),
            },
            "--reuse" => reuse = true,
            "-h" | "--help" => {
                print!("{BENCH_USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument `{other}`")),
        }
    }
    let started = Instant::now();
    let criterion_dir = root.join("target/criterion");
    let workloads_file = criterion_dir.join("rpcspec-workloads.txt");
    if !reuse {
        for g in GROUPS {
            let _ = fs::remove_dir_all(criterion_dir.join(g));
        }
        eprintln!("==> cargo bench -p rpcspec-framer -p rpcspec-matcher ({mib} MiB workloads)");
        match run_criterion(root, mib) {
            Ok(workloads) => {
                let _ = fs::create_dir_all(&criterion_dir);
                if let Err(e) = fs::write(&workloads_file, workloads.join("\n")) {
                    eprintln!(
                        "xtask bench: cannot write {}: {e}",
                        workloads_file.display()
                    );
                }
            }
            Err(e) => {
                eprintln!("xtask bench: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let workloads = fs::read_to_string(&workloads_file).unwrap_or_default();
    let estimates = Estimates {
        dir: criterion_dir,
        lines: parse_workloads(&workloads),
    };

    let Some(rpcspec) = build_release(root) else {
        return ExitCode::FAILURE;
    };

    eprintln!("==> rpcspec run, {runs} times, and the floor of as many spawns");
    let whole = match whole_run(&rpcspec, runs) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("xtask bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut rss = Vec::new();
    for (what, args, total, mut fill) in rss_streams() {
        eprintln!("==> /usr/bin/time -v rpcspec check: {what}");
        let kib = match peak_rss(&rpcspec, args, total, &mut fill) {
            Ok(kib) => Some(kib),
            Err(e) => {
                eprintln!("xtask bench: memory measurement failed: {e}");
                None
            }
        };
        rss.push((what, kib));
    }
    eprintln!("==> rpcspec check beside wc, Python and jq, {runs} times each");
    let speed = match check_speed(&rpcspec, &root.join("target/rpcspec-bench"), runs) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("xtask bench: check speed failed: {e}");
            None
        }
    };

    println!();
    estimates.print_workloads();
    println!();
    let misses = print_bars(&estimates, &whole, &rss, speed);
    println!();
    println!(
        "machine: {} cores, {}; whole run: median of {runs}; took {:.0?}",
        thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        started.elapsed()
    );
    if misses > 0 {
        println!("{misses} bar(s) missed");
    }
    // Measurements, not tests: a missed bar is reported, not an error.
    ExitCode::SUCCESS
}

/// Builds rpcspec in release and returns its path; `None` (said on
/// stderr) when the build fails.
fn build_release(root: &Path) -> Option<PathBuf> {
    eprintln!("==> cargo build --release -p rpcspec");
    let status = Command::new("cargo")
        .args(["build", "--release", "-p", "rpcspec"])
        .current_dir(root)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("xtask: the release build of rpcspec failed");
        return None;
    }
    Some(root.join("target/release/rpcspec"))
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("xtask bench: {problem}\n\n{BENCH_USAGE}");
    ExitCode::from(2)
}

/// Runs the criterion benches, echoing their output; returns the
/// `workload ...` lines they print (name, bytes, lines).
fn run_criterion(root: &Path, mib: u64) -> Result<Vec<String>, String> {
    let mut child = Command::new("cargo")
        .args(["bench", "-p", "rpcspec-framer", "-p", "rpcspec-matcher"])
        .env("RPCSPEC_BENCH_MIB", mib.to_string())
        .current_dir(root)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    let stdout = child.stdout.take().expect("piped");
    let mut workloads = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading cargo bench: {e}"))?;
        if line.starts_with("workload ") {
            workloads.push(line.clone());
        }
        println!("{line}");
    }
    let status = child.wait().map_err(|e| format!("cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("cargo bench failed ({status})"));
    }
    Ok(workloads)
}

/// `workload NAME BYTES LINES` → NAME: (bytes, lines).
fn parse_workloads(text: &str) -> BTreeMap<String, (f64, f64)> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace().skip(1);
            let name = f.next()?.to_owned();
            let bytes = f.next()?.parse().ok()?;
            let lines = f.next()?.parse().ok()?;
            Some((name, (bytes, lines)))
        })
        .collect()
}

struct Estimates {
    dir: PathBuf,
    /// Workload name → (bytes, lines).
    lines: BTreeMap<String, (f64, f64)>,
}

impl Estimates {
    /// The median time of one iteration, in seconds.
    fn median(&self, group: &str, bench: &str) -> Option<f64> {
        let path = self.dir.join(group).join(bench).join("new/estimates.json");
        let text = fs::read_to_string(path).ok()?;
        json_number_after(&text, "\"median\"", "\"point_estimate\":").map(|ns| ns / 1e9)
    }

    /// `a`'s throughput over `b`'s in one group: `b`'s time over `a`'s.
    fn speedup(&self, group: &str, a: &str, b: &str) -> Option<f64> {
        Some(self.median(group, b)? / self.median(group, a)?)
    }

    /// One Markdown table per workload, fastest first (BENCHMARKS.md).
    fn print_workloads(&self) {
        let groups = WORKLOADS
            .iter()
            .map(|w| format!("framing-{w}"))
            .chain(["matching-rpc".to_owned()]);
        for group in groups {
            let Some(&(bytes, lines)) = self.lines.get(&group) else {
                continue;
            };
            println!(
                "{group}: {:.1} MiB, {lines:.0} lines, {:.0} B/line\n",
                bytes / 1048576.0,
                bytes / lines
            );
            println!("| bench | MB/s | lines/s | × limit framer | × Value parse |");
            println!("|---|--:|--:|--:|--:|");
            let mut benches: Vec<(String, f64)> = fs::read_dir(self.dir.join(&group))
                .map(|d| {
                    d.filter_map(|e| {
                        let name = e.ok()?.file_name().to_string_lossy().into_owned();
                        let t = self.median(&group, &name)?;
                        Some((name, t))
                    })
                    .collect()
                })
                .unwrap_or_default();
            benches.sort_by(|a, b| a.1.total_cmp(&b.1));
            let limit = self.median(&group, "limit-framer");
            let value = self.median(&group, "value-per-line");
            for (name, t) in benches {
                let ratio =
                    |base: Option<f64>| base.map_or("–".into(), |b| format!("{:.2}", b / t));
                println!(
                    "| {name} | {:.0} | {} | {} | {} |",
                    bytes / t / 1e6,
                    per_second(lines / t),
                    ratio(limit),
                    ratio(value)
                );
            }
            println!();
        }
    }
}

/// `27.10 M`, `1.3 k`, `420`.
fn per_second(n: f64) -> String {
    if n >= 1e6 {
        format!("{:.2} M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// The number after `key` that follows `section` in a criterion estimates
/// file (`{"median":{...,"point_estimate":123.4,...}}`); no JSON parser
/// needed for one field.
fn json_number_after(text: &str, section: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(section)?..];
    let rest = &rest[rest.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

struct WholeRun {
    /// Median wall time of `rpcspec run`.
    wall: Duration,
    /// (case, plan) pairs it ran.
    pairs: usize,
    jobs: usize,
    /// Median wall time of spawning and reaping `pairs` trivial processes
    /// on `jobs` threads, as the runner spreads its cases.
    floor: Duration,
}

fn whole_run(rpcspec: &Path, runs: usize) -> Result<WholeRun, String> {
    let jobs = thread::available_parallelism().map_or(1, |n| n.get());
    let mut walls = Vec::new();
    let mut pairs = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let out = Command::new(rpcspec)
            .arg("run")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot start {}: {e}", rpcspec.display()))?;
        walls.push(t.elapsed());
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!("`rpcspec run` failed ({}):\n{text}", out.status));
        }
        // "252 results of 57 cases against `...` (jsonrpc2 dialect) in 0.50s; ..."
        pairs = text
            .lines()
            .filter(|l| l.contains(" against "))
            .find_map(|l| l.split_once(" results ")?.0.trim().parse().ok())
            .ok_or("no `N results of M cases against` line in the report of `rpcspec run`")?;
    }
    let true_bin = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or("no /bin/true")?;
    let mut floors = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        thread::scope(|s| {
            for j in 0..jobs {
                let n = pairs / jobs + usize::from(j < pairs % jobs);
                s.spawn(move || {
                    for _ in 0..n {
                        let _ = Command::new(true_bin).status();
                    }
                });
            }
        });
        floors.push(t.elapsed());
    }
    Ok(WholeRun {
        wall: median(&mut walls),
        pairs,
        jobs,
        floor: median(&mut floors),
    })
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The streams whose peak RSS `rpcspec check` is measured on: what, the
/// arguments, the bytes, and what fills each block.
fn rss_streams() -> Vec<(&'static str, &'static [&'static str], u64, Filler)> {
    vec![
        (
            "1 GiB single line",
            &["check"],
            1 << 30,
            Box::new(single_line()),
        ),
        (
            "--rpc, 500 MB conversation",
            &["check", "--rpc", "jsonrpc2"],
            500_000_000,
            Box::new(conversation()),
        ),
        (
            "10 M blank lines",
            &["check"],
            10_000_000,
            Box::new(|b: &mut Vec<u8>| b.resize(1 << 20, b'\n')),
        ),
        (
            "200 MB random bytes",
            &["check"],
            200_000_000,
            Box::new(random_bytes()),
        ),
        (
            "--rpc, 20 MB of `1` lines (two findings each)",
            &["check", "--rpc", "jsonrpc2"],
            20_000_000,
            Box::new(|b: &mut Vec<u8>| {
                while b.len() < 1 << 20 {
                    b.extend_from_slice(b"1\n");
                }
            }),
        ),
    ]
}

type Filler = Box<dyn FnMut(&mut Vec<u8>)>;

/// `{"data":"aaaa…` with no `\n`, ever.
fn single_line() -> impl FnMut(&mut Vec<u8>) {
    let mut first = true;
    move |b| {
        b.resize(1 << 20, b'a');
        if std::mem::take(&mut first) {
            b[..9].copy_from_slice(b"{\"data\":\"");
        }
    }
}

/// Requests and their replies, ids counting up: the conforming traffic of
/// an MCP-style tool server.
fn conversation() -> impl FnMut(&mut Vec<u8>) {
    let mut id = 0u64;
    move |b| {
        while b.len() < (1 << 20) - 512 {
            id += 1;
            let _ = write!(
                b,
                "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"hello {id}\"}}}},\"id\":{id}}}\n\
                 {{\"jsonrpc\":\"2.0\",\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"hello {id}\"}}]}},\"id\":{id}}}\n"
            );
        }
    }
}

/// xorshift64 bytes.
fn random_bytes() -> impl FnMut(&mut Vec<u8>) {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    move |b| {
        while b.len() < 1 << 20 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
}

/// Peak RSS in KiB of `rpcspec ARGS` reading `total` bytes from its stdin,
/// streamed from `fill` (nothing written to disk), by `/usr/bin/time -v`.
fn peak_rss(rpcspec: &Path, args: &[&str], total: u64, fill: &mut Filler) -> Result<u64, String> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return Err("/usr/bin/time is missing (Debian package `time`)".into());
    }
    let mut child = Command::new(time)
        .arg("-v")
        .arg(rpcspec)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start /usr/bin/time: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let mut block = Vec::with_capacity(1 << 20);
    let mut written = 0;
    while written < total {
        block.clear();
        fill(&mut block);
        stdin
            .write_all(&block)
            .map_err(|e| format!("writing to rpcspec check: {e}"))?;
        written += block.len() as u64;
    }
    drop(stdin);
    let _ = child.wait();
    let report = reader.join().unwrap_or_default();
    report
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes):")?
                .trim()
                .parse()
                .ok()
        })
        .ok_or_else(|| format!("no peak RSS in the output of /usr/bin/time:\n{report}"))
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                Some(
                    l.strip_prefix("model name")?
                        .split_once(':')?
                        .1
                        .trim()
                        .to_owned(),
                )
            })
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// One row of the bar table.
struct Row {
    bar: &'static str,
    what: String,
    shown: String,
    pass: Option<bool>,
}

/// A bar on a ratio: PASS when it is at least `min`.
fn at_least(bar: &'static str, what: String, value: Option<f64>, min: f64) -> Row {
    Row {
        bar,
        what,
        shown: value.map_or("n/a".to_owned(), |v| format!("{v:.2}x")),
        pass: value.map(|v| v >= min),
    }
}

/// The framing bars, by workload: (bar, bench, baseline, minimum), the
/// bench's throughput over the baseline's.
const FRAMING_BARS: &[(&str, &str, &str, f64)] = &[
    (
        "1 framing >= 0.8x limit framer",
        "framer-64k",
        "limit-framer",
        0.8,
    ),
    (
        "1 framing >= 4x LinesCodec",
        "framer-64k",
        "lines-codec",
        4.0,
    ),
    (
        "1 utf8 on >= 0.9x limit+from_utf8",
        "framer-64k-utf8",
        "limit-framer+from_utf8",
        0.9,
    ),
    (
        "2 7-byte chunks >= 3x Value",
        "framer-7b",
        "value-per-line",
        3.0,
    ),
];

/// The bars of framing with more on top, as [`FRAMING_BARS`].
const FRAMING_PLUS_BARS: &[(&str, &str, &str, f64)] = &[
    (
        "3 framing+validation >= 0.85x bare",
        "framer-64k-utf8+syntax",
        "validate-per-line",
        0.85,
    ),
    (
        "3 framing+Value >= 0.95x bare",
        "framer-64k+value",
        "value-per-line",
        0.95,
    ),
];

/// Prints the bars; returns how many were missed.
fn print_bars(
    e: &Estimates,
    whole: &WholeRun,
    rss: &[(&str, Option<u64>)],
    speed: Option<Speeds>,
) -> usize {
    let mut rows = Vec::new();
    framing_rows(e, FRAMING_BARS, &mut rows);
    // Per-byte cost of 1-byte pushes, 8 MiB over 1 MiB: the same means ~1.
    let per_byte = |bench, mib: f64| e.median("framing-linear", bench).map(|t| t / mib);
    let growth = per_byte("1b-8mib", 8.0)
        .zip(per_byte("1b-1mib", 1.0))
        .map(|(a, b)| a / b);
    rows.push(Row {
        bar: "2 1-byte chunks linear",
        what: "per-byte cost, 8 MiB / 1 MiB (<= 1.15)".into(),
        shown: growth.map_or("n/a".to_owned(), |v| format!("{v:.2}x")),
        pass: growth.map(|g| g <= 1.15),
    });
    framing_rows(e, FRAMING_PLUS_BARS, &mut rows);
    rows.push(at_least(
        "4 matcher >= 1.6x Value (goal 2x)",
        "rpc: session / value-per-line".into(),
        e.speedup("matching-rpc", "session", "value-per-line"),
        1.6,
    ));
    for &(what, kib) in rss {
        let mib = kib.map(|k| k as f64 / 1024.0);
        rows.push(Row {
            bar: "5 peak RSS < 64 MiB",
            what: format!("rpcspec check, {what}"),
            shown: mib.map_or("n/a".into(), |m| format!("{m:.1} MiB")),
            pass: mib.map(|m| m < 64.0),
        });
    }
    side_by_side_rows(speed.as_ref(), &mut rows);
    let wall = whole.wall.as_secs_f64();
    rows.push(Row {
        bar: "6 whole run < 3 s",
        what: format!(
            "rpcspec run, {} (case, plan) pairs, {} jobs",
            whole.pairs, whole.jobs
        ),
        shown: format!("{wall:.2} s"),
        pass: Some(wall < 3.0),
    });
    let misses = print_rows(&rows);
    println!("\n{}", floor_note(whole));
    misses
}

/// A row per bar of `table` and workload.
fn framing_rows(e: &Estimates, table: &[(&'static str, &str, &str, f64)], rows: &mut Vec<Row>) {
    for &(bar, bench, base, min) in table {
        for w in WORKLOADS {
            let g = format!("framing-{w}");
            let what = format!("{w}: {bench} / {base}");
            rows.push(at_least(bar, what, e.speedup(&g, bench, base), min));
        }
    }
}

/// What the whole run would take if spawning the target were all it did.
fn floor_note(whole: &WholeRun) -> String {
    let per = |d: Duration| d.as_secs_f64() * 1e3 / whole.pairs.max(1) as f64;
    format!(
        "floor: {} spawns of /bin/true on {} threads: {:.2} s; per pair {:.2} ms, floor {:.2} ms, overhead {:.2} ms ({:.1}x the floor)",
        whole.pairs,
        whole.jobs,
        whole.floor.as_secs_f64(),
        per(whole.wall),
        per(whole.floor),
        per(whole.wall) - per(whole.floor),
        whole.wall.as_secs_f64() / whole.floor.as_secs_f64().max(1e-9),
    )
}

/// Prints the rows as a Markdown table; returns how many missed their bar.
fn print_rows(rows: &[Row]) -> usize {
    println!("| bar | measured | value | result |");
    println!("|---|---|--:|---|");
    let mut misses = 0;
    for r in rows {
        let verdict = match r.pass {
            Some(true) => "PASS",
            Some(false) => {
                misses += 1;
                "MISS"
            }
            None => "n/a",
        };
        println!("| {} | {} | {} | {verdict} |", r.bar, r.what, r.shown);
    }
    misses
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_median_of_an_estimates_file() {
        let text = r#"{"mean":{"confidence_interval":{"lower_bound":1.0},"point_estimate":5.5},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":2.0,"upper_bound":3.0},"point_estimate":2.5e6,"standard_error":1.0}}"#;
        assert_eq!(
            json_number_after(text, "\"median\"", "\"point_estimate\":"),
            Some(2.5e6)
        );
    }

    #[test]
    fn reads_workload_lines() {
        let w = parse_workloads("workload framing-rpc 100 4\nnoise\n");
        assert_eq!(w.get("framing-rpc"), Some(&(100.0, 4.0)));
    }
}
