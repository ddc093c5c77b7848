//! `rpcspec fuzz` (part of `main.rs`, not of the library): options into a
//! [`rpcspec::fuzz::fuzz`] run, its progress on stderr, its findings and
//! corpus on stdout.

use std::{
    fmt::Write as _,
    io::{self, IsTerminal},
};

use rpcspec::fuzz::{
    FuzzOptions, FuzzReport, Progress,
    mcp::{McpReport, Tools},
};

use rpcspec::{cases, exec::RunOptions, exit, target::Target};

use crate::{args::FuzzArgs, emit, fail, handshake_of, startable};

/// `--tool` as given: `'*'` for every tool listed, none by default.
fn tools_of(named: &[String]) -> Tools {
    if named.iter().any(|t| t == "*") {
        Tools::All
    } else if named.is_empty() {
        Tools::None
    } else {
        Tools::Named(named.to_vec())
    }
}

pub(crate) fn fuzz_cmd(args: FuzzArgs) -> u8 {
    let (dialect, handshake) = match handshake_of(&args.dialect) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let pinned = match crate::mcp_cmd::mcp_pin(&args.dialect) {
        Ok((_, pinned)) => pinned,
        Err(code) => return code,
    };
    let mut preambles = match cases::builtin_preambles() {
        Ok(p) => p,
        Err(e) => return fail(&format!("case file error: {e}")),
    };
    // A pinned revision that has a handshake is the one it offers.
    if let Some(revision) = pinned.filter(|r| r.has_initialize()) {
        for preamble in preambles.iter_mut().filter(|p| p.dialect == "mcp") {
            preamble.offer_version(revision.as_str());
        }
    }
    let tools = tools_of(&args.tools);
    let builtin = match cases::builtin() {
        Ok(c) => c,
        Err(e) => return fail(&format!("case file error: {e}")),
    };
    let seeds = rpcspec::fuzz::seed_lines(&builtin, &handshake);
    let target = match startable(Target { argv: args.target }) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let jobs = usize::from(args.jobs);
    let fresh = args.fresh;
    let opts = FuzzOptions {
        seed: args.seed,
        time: args.time,
        max_executions: args.executions,
        run: RunOptions {
            timeout: args.timeout,
            dialect,
            framing: args.framing.map_or_else(
                || rpcspec::dialects::framing_of(&handshake),
                |f| f.framing(),
            ),
            handshake: Some(handshake),
            budget: args.budget,
            fresh: args.fresh,
            preambles,
            ..RunOptions::default()
        },
        out: args.out,
        jobs,
        corpus: args.corpus,
        corpus_max: args.corpus_max,
        tools,
        replay_dialect: pinned.map(|_| args.dialect.clone()),
    };
    let tty = io::stderr().is_terminal();
    let shown = target.display();
    let mut progress = |p: Progress<'_>| match p {
        Progress::Started {
            seed,
            first_execution,
            corpus,
            warnings,
        } => {
            for w in warnings {
                eprintln!("rpcspec fuzz: warning: {w}");
            }
            let corpus = corpus.map_or_else(String::new, |n| {
                format!(", corpus of {n} inputs, from execution {first_execution}")
            });
            let processes = if fresh {
                "a process per execution"
            } else {
                "processes kept between executions"
            };
            eprintln!(
                "rpcspec fuzz: seed {seed}{corpus}, {jobs} jobs, {processes}, target `{shown}`"
            );
        }
        Progress::Running {
            executions,
            findings,
            elapsed,
        } => {
            let rate = executions as f64 / elapsed.as_secs_f64().max(1e-3);
            let line = format!(
                "{executions} executions, {rate:.0}/s, {findings} findings, {:.0}s",
                elapsed.as_secs_f64()
            );
            if tty {
                eprint!("\r{line}   ");
            } else {
                eprintln!("{line}");
            }
        }
        _ => {}
    };
    let report = match rpcspec::fuzz::fuzz(&target, &seeds, &opts, &mut progress) {
        Ok(r) => r,
        Err(e) => {
            if tty {
                eprintln!();
            }
            return fail(&e.to_string());
        }
    };
    if tty {
        eprintln!();
    }
    emit(&summary(&report, jobs), false);
    if report.findings.is_empty() {
        exit::OK
    } else {
        exit::FAILED
    }
}

/// The findings, the known ones seen again, and the closing lines.
fn summary(report: &FuzzReport, jobs: usize) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let _ = writeln!(
            out,
            "{}  {}  on {} input (execution {}) -> {}",
            f.result.verdict.as_str(),
            f.signature,
            f.shape,
            f.execution,
            f.file.display()
        );
        if let Some(e) = f
            .result
            .evidence
            .iter()
            .find(|e| e.verdict == f.result.verdict)
        {
            let _ = writeln!(out, "    {}", e.message);
        }
    }
    for f in &report.flaky {
        let _ = writeln!(
            out,
            "flaky  {}  on {} input (execution {}): failed once, not in {} runs since with the replay's write plans (timing?) -> {}",
            f.signature,
            f.shape,
            f.execution,
            rpcspec::fuzz::REPRODUCE_TRIES,
            f.file.display()
        );
    }
    let corpus_dir = report.corpus.as_ref().map(|c| c.dir.clone());
    for k in &report.known {
        let file = corpus_dir.as_ref().map_or_else(
            || k.known.file.clone(),
            |d| d.join(&k.known.file).display().to_string(),
        );
        let _ = writeln!(
            out,
            "known  {}  on {} input ({} executions) -> {file}",
            k.known.signature, k.known.shape, k.executions,
        );
    }
    for k in &report.fixed {
        let _ = writeln!(
            out,
            "fixed  {}  on {} input: its case file no longer fails so, forgotten ({})",
            k.signature, k.shape, k.file,
        );
    }
    let rules: std::collections::BTreeSet<&str> = report
        .findings
        .iter()
        .map(|f| f.signature.as_str())
        .collect();
    let numbers = match report.executions {
        0 => String::new(),
        n => format!(
            " (numbers {} to {})",
            report.first_execution,
            report.first_execution + n - 1
        ),
    };
    let _ = writeln!(
        out,
        "{} executions{numbers} in {:.1}s on {jobs} jobs, {} findings (one per cause: rule and input shape) over {} rules, {} known, {} flaky (seed {})",
        report.executions,
        report.elapsed.as_secs_f64(),
        report.findings.len(),
        rules.len(),
        report.known.len(),
        report.flaky.len(),
        report.seed,
    );
    if let Some(m) = &report.mcp {
        mcp_summary(m, &mut out);
    }
    if let Some(c) = &report.corpus {
        let _ = write!(
            out,
            "corpus {}: {} -> {} inputs (at most {})",
            c.dir.display(),
            c.before,
            c.after,
            c.max
        );
        if c.full > 0 {
            let _ = write!(out, "; full: {} with a new behaviour not kept", c.full);
        }
        if c.too_big > 0 {
            let _ = write!(
                out,
                "; {} with a new behaviour over 64 KiB not kept",
                c.too_big
            );
        }
        out.push('\n');
    }
    out
}

/// What the MCP inputs drawn past the handshake met and did.
fn mcp_summary(m: &McpReport, out: &mut String) {
    let s = &m.surface;
    let c = &m.coverage;
    let allowed = s.tools.iter().filter(|t| t.allowed).count();
    let _ = writeln!(
        out,
        "mcp {}: the server lists {} tools ({allowed} callable by --tool), {} prompts, {} resources, {} templates; {} inputs drawn past the handshake",
        s.revision,
        s.tools.len(),
        s.prompts.len(),
        s.resources.len(),
        s.templates.len(),
        c.inputs,
    );
    let share = |part: u64, of: u64| 100.0 * part as f64 / of.max(1) as f64;
    let _ = writeln!(
        out,
        "  messages: {} meant valid, {} of them valid by the {} schema ({:.1}%); {} near-valid; {} invalid",
        c.valid,
        c.schema_valid,
        s.revision,
        share(c.schema_valid, c.valid),
        c.near,
        c.invalid,
    );
    if let Some(miss) = &c.first_miss {
        let _ = writeln!(out, "  first miss: {miss}");
    }
    let reached = c.methods.values().filter(|m| m.results > 0).count();
    let _ = writeln!(
        out,
        "  methods: {} declared, {reached} reached (answered with a result at least once)",
        c.methods.len()
    );
    for (method, count) in &c.methods {
        let why = if count.results > 0 {
            String::new()
        } else if method == "tools/call" && allowed == 0 {
            "  not reached: no tool may be called (--tool NAME, or --tool '*')".to_owned()
        } else {
            "  not reached".to_owned()
        };
        let _ = writeln!(
            out,
            "    {method:<26} {:>6} sent ({:>6} meant valid), {:>6} results, {:>6} errors{why}",
            count.sent, count.valid, count.results, count.errors
        );
    }
}
