//! `cargo xtask bench --real`: one full default `rpcspec run` of each real
//! implementation the speed bar names (issue 62), timed, its (case, plan,
//! verdict, rules) list compared across runs and with a saved one.
//!
//! Each run is `rpcspec matrix MANIFEST --only NAME --jobs 1 --format
//! json`: the manifest's own command, environment and target file, no
//! `--timeout` (the default run a user makes), one target at a time. The
//! wall time is the whole command's; the matrix around the run costs a
//! few milliseconds.

use std::{
    collections::BTreeMap,
    fs,
    path::{Path, PathBuf},
    process::{Command, ExitCode, Stdio},
    sync::atomic::{AtomicBool, Ordering},
    thread,
    time::Instant,
};

use serde_json::Value;

const USAGE: &str = "\
usage: cargo xtask bench --real [--runs N] [--busy] [--only NAME]... [--lists DIR]

Times one full default `rpcspec run` of each real implementation below
(after `cargo xtask matrix --install`), N times each (default 1), and
prints a table: wall time against the 20 s bar, and whether every run gave
the same (case, plan, verdict, rules) list.
--busy       two threads spin on the cores for the whole bench (a loaded CI runner)
--only NAME  only this target (repeatable)
--lists DIR  compare each target's list with DIR/NAME.txt, written there when missing
";

/// The targets of the bar: (manifest under xtask/matrix/, target name).
const REAL: &[(&str, &str)] = &[
    ("manifest.toml", "mcp-server-everything"),
    ("manifest.toml", "mcp-python"),
    ("manifest.toml", "fastmcp"),
    ("manifest.toml", "rmcp"),
    ("manifest.toml", "codex-app-server"),
    ("lsp.toml", "pyright"),
    ("lsp.toml", "python-lsp-server"),
    ("lsp.toml", "jedi-language-server"),
    ("agents.toml", "python-claude-agent-sdk"),
    ("agents.toml", "node-claude-agent-sdk"),
    ("clients.toml", "python-mcp-sdk"),
    ("clients.toml", "node-mcp-sdk"),
];

/// The most one full run may take, in seconds.
const BAR: f64 = 20.0;

struct Options {
    runs: usize,
    busy: bool,
    only: Vec<String>,
    lists: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        runs: 1,
        busy: false,
        only: Vec::new(),
        lists: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => {
                o.runs = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs takes a positive number")?;
            }
            "--busy" => o.busy = true,
            "--only" => {
                let name = it.next().ok_or("--only takes a target name")?;
                if !REAL.iter().any(|(_, n)| n == name) {
                    let names: Vec<&str> = REAL.iter().map(|(_, n)| *n).collect();
                    return Err(format!("--only {name}: not one of {}", names.join(", ")));
                }
                o.only.push(name.clone());
            }
            "--lists" => o.lists = Some(it.next().ok_or("--lists takes a folder")?.into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

pub fn real(root: &Path, args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("xtask bench --real: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let dir = root.join("xtask/matrix");
    if !dir.join(".deps").is_dir() {
        eprintln!(
            "xtask bench --real: nothing installed: run `cargo xtask matrix --install` first"
        );
        return ExitCode::FAILURE;
    }
    let Some(rpcspec) = super::build_release(root) else {
        return ExitCode::FAILURE;
    };
    if let Some(lists) = &o.lists
        && let Err(e) = fs::create_dir_all(lists)
    {
        eprintln!("xtask bench --real: cannot create {}: {e}", lists.display());
        return ExitCode::FAILURE;
    }
    let stop = AtomicBool::new(false);
    let rows = thread::scope(|s| {
        if o.busy {
            for _ in 0..2 {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                });
            }
        }
        let rows: Vec<Row> = REAL
            .iter()
            .filter(|(_, name)| o.only.is_empty() || o.only.iter().any(|n| n == name))
            .map(|&(manifest, name)| measure(&rpcspec, &dir, manifest, name, &o))
            .collect();
        stop.store(true, Ordering::Relaxed);
        rows
    });
    print_table(&rows, &o);
    let bad = rows
        .iter()
        .any(|r| r.error.is_some() || !r.steady || r.saved == Some(false));
    if bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// One target's runs.
struct Row {
    name: &'static str,
    manifest: &'static str,
    /// Wall seconds of each run.
    walls: Vec<f64>,
    /// Results of the first run, and how many were not a PASS (SKIPPED and
    /// N/A apart).
    results: usize,
    not_pass: usize,
    /// Every run gave the first run's list.
    steady: bool,
    /// The list is the one saved under --lists (`None`: none was saved,
    /// or no --lists).
    saved: Option<bool>,
    error: Option<String>,
}

fn measure(
    rpcspec: &Path,
    dir: &Path,
    manifest: &'static str,
    name: &'static str,
    o: &Options,
) -> Row {
    let mut row = Row {
        name,
        manifest,
        walls: Vec::new(),
        results: 0,
        not_pass: 0,
        steady: true,
        saved: None,
        error: None,
    };
    let mut first: Option<Vec<String>> = None;
    for run in 1..=o.runs {
        let started = Instant::now();
        let out = Command::new(rpcspec)
            .arg("matrix")
            .arg(dir.join(manifest))
            .args(["--only", name, "--jobs", "1", "--format", "json"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output();
        let wall = started.elapsed().as_secs_f64();
        let list = match out
            .map_err(|e| e.to_string())
            .and_then(|out| verdict_list(&out.stdout))
        {
            Ok(list) => list,
            Err(e) => {
                row.error = Some(e);
                return row;
            }
        };
        eprintln!(
            "xtask bench --real: {name}, run {run}: {wall:.1} s, {} results",
            list.len()
        );
        row.walls.push(wall);
        match &first {
            None => {
                row.results = list.len();
                row.not_pass = list
                    .iter()
                    .filter(|l| {
                        !["PASS", "SKIPPED", "N/A"].contains(&l.split('\t').nth(2).unwrap_or(""))
                    })
                    .count();
                first = Some(list);
            }
            Some(f) if *f != list => {
                row.steady = false;
                report_difference(name, f, &list);
            }
            Some(_) => {}
        }
    }
    if let (Some(lists), Some(list)) = (&o.lists, &first) {
        let path = lists.join(format!("{name}.txt"));
        let text = list.join("\n") + "\n";
        match fs::read_to_string(&path) {
            Ok(saved) => {
                let saved: Vec<String> = saved.lines().map(str::to_owned).collect();
                row.saved = Some(saved == *list);
                if saved != *list {
                    report_difference(name, &saved, list);
                }
            }
            Err(_) => {
                if let Err(e) = fs::write(&path, text) {
                    eprintln!("xtask bench --real: cannot write {}: {e}", path.display());
                }
            }
        }
    }
    row
}

/// The (case, plan, verdict, rules) lines of a one-target matrix report,
/// sorted, or why there are none.
fn verdict_list(json: &[u8]) -> Result<Vec<String>, String> {
    let model: Value =
        serde_json::from_slice(json).map_err(|e| format!("no matrix report: {e}"))?;
    if let Some(e) = model["targets"][0]["error"].as_str() {
        return Err(e.to_owned());
    }
    let mut lines = Vec::new();
    for row in model["rows"].as_array().into_iter().flatten() {
        let id = row["id"].as_str().unwrap_or("?");
        let cell = &row["cells"][0];
        if !cell.is_object() {
            continue;
        }
        // The rules of each plan's evidence.
        let mut rules: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for e in cell["evidence"].as_array().into_iter().flatten() {
            let plan = e["plan"].as_str().unwrap_or("?");
            let ids = e["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x["rule"]["id"].as_str());
            rules.entry(plan).or_default().extend(ids);
        }
        for p in cell["plans"].as_array().into_iter().flatten() {
            let plan = p["plan"].as_str().unwrap_or("?");
            let verdict = p["verdict"].as_str().unwrap_or("?");
            let mut r = rules.get(plan).cloned().unwrap_or_default();
            r.sort_unstable();
            r.dedup();
            lines.push(format!("{id}\t{plan}\t{verdict}\t{}", r.join(" ")));
        }
    }
    lines.sort();
    if lines.is_empty() {
        return Err("the report has no results".into());
    }
    Ok(lines)
}

fn report_difference(name: &str, a: &[String], b: &[String]) {
    let only_a = a.iter().filter(|l| !b.contains(l));
    let only_b = b.iter().filter(|l| !a.contains(l));
    eprintln!("xtask bench --real: {name}: the lists differ");
    for l in only_a.take(10) {
        eprintln!("  - {l}");
    }
    for l in only_b.take(10) {
        eprintln!("  + {l}");
    }
}

fn print_table(rows: &[Row], o: &Options) {
    println!(
        "| target | manifest | results | not PASS | wall, {} run{} ({}) | ≤ {BAR} s | same list every run{} |",
        o.runs,
        if o.runs == 1 { "" } else { "s" },
        if o.busy {
            "two busy loops"
        } else {
            "nothing else running"
        },
        if o.lists.is_some() {
            " and as saved"
        } else {
            ""
        },
    );
    println!("|---|---|---:|---:|---:|---|---|");
    for r in rows {
        if let Some(e) = &r.error {
            println!("| {} | {} | | | | ERROR | {e} |", r.name, r.manifest);
            continue;
        }
        let (lo, hi) = r
            .walls
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &w| (lo.min(w), hi.max(w)));
        let wall = if r.walls.len() == 1 {
            format!("{hi:.1} s")
        } else {
            format!("{lo:.1}–{hi:.1} s")
        };
        let same = match (r.steady, r.saved) {
            (false, _) => "NO: the runs differ",
            (true, Some(false)) => "NO: not as saved",
            (true, Some(true)) => "yes, and as saved",
            (true, None) => "yes",
        };
        println!(
            "| {} | {} | {} | {} | {wall} | {} | {same} |",
            r.name,
            r.manifest,
            r.results,
            r.not_pass,
            if hi <= BAR { "PASS" } else { "MISS" },
        );
    }
}
