//! `rpcspec fuzz` (part of `main.rs`, not of the library): options into a
//! [`rpcspec::fuzz::fuzz`] run, its progress on stderr, its findings and
//! corpus on stdout.

use std::{
    fmt::Write as _,
    io::{self, IsTerminal},
};

use rpcspec::fuzz::{FuzzOptions, FuzzReport, Progress};

use rpcspec::{cases, exec::RunOptions, exit, target::Target};

use crate::{args::FuzzArgs, emit, fail, handshake_of, startable};

pub(crate) fn fuzz_cmd(args: FuzzArgs) -> u8 {
    let (dialect, handshake) = match handshake_of(&args.dialect) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let builtin = match cases::builtin() {
        Ok(c) => c,
        Err(e) => return fail(&format!("case file error: {e}")),
    };
    let seeds = rpcspec::fuzz::seed_lines(&builtin);
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
            framing: args
                .framing
                .map_or_else(|| rpcspec::dialect::framing_of(&handshake), |f| f.framing()),
            handshake: Some(handshake),
            budget: args.budget,
            fresh: args.fresh,
            ..RunOptions::default()
        },
        out: args.out,
        jobs,
        corpus: args.corpus,
        corpus_max: args.corpus_max,
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
        "{} executions{numbers} in {:.1}s on {jobs} jobs, {} findings (one per cause: rule and input shape) over {} rules, {} known (seed {})",
        report.executions,
        report.elapsed.as_secs_f64(),
        report.findings.len(),
        rules.len(),
        report.known.len(),
        report.seed,
    );
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
