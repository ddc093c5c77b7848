//! rpcspec: a conformance suite for JSON-RPC 2.0 and NDJSON over lines.
//!
//! This crate is the `rpcspec` command and the library behind it: it loads
//! the case files ([`cases`]), drives any executable over stdin/stdout
//! ([`target`], [`exec`]) under several write plans ([`plan`]), grades every
//! answer with the reference framer and the matcher, and renders one report
//! model ([`report`]) as human text, NDJSON or JUnit XML ([`render`]). Two
//! more roles share that model: event-stream producers over stdio or HTTP
//! ([`producer`], [`http`]) and NDJSON decoders ([`decoder`]); [`matrix`]
//! merges many targets' reports into one table. It is the only crate of the
//! workspace that spawns processes, opens sockets, reads the clock or prints.

#![warn(missing_docs)]

pub mod baseline;
pub mod budget;
pub mod cases;
pub mod check;
pub mod client;
pub mod decoder;
pub mod drive;
pub mod exec;
pub mod exit;
pub mod fuzz;
pub mod gather;
pub mod http;
pub mod matrix;
pub mod mcp;
pub mod pattern;
pub mod plan;
pub mod probe;
pub mod producer;
pub mod reap;
pub mod render;
pub mod report;
pub mod rules;
pub mod serve;
pub mod target;
pub mod target_file;
mod unescape;

use std::{
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    thread,
};

use cases::Case;
use exec::{Job, RunOptions, run_reusing};
use plan::Plan;
use report::CaseResult;
use target::Target;

/// Runs every (case, plan) pair, `jobs` at a time, and returns the results
/// in case order then plan order. `progress` is called after each result
/// with the count done and the total.
pub fn run_suite(
    cases: &[Case],
    plans: &[Plan],
    target: &Target,
    opts: &RunOptions,
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<CaseResult> {
    let work: Vec<(usize, &Case, Plan)> = cases
        .iter()
        .flat_map(|c| {
            c.plans
                .iter()
                .filter(|p| plans.contains(p))
                .map(move |&p| (c, p))
        })
        .enumerate()
        .map(|(i, (c, p))| (i, c, p))
        .collect();
    // Each job keeps its process for as many cases as can share it; a
    // case, or a job's end, may hand back earlier ones' results, run again.
    let case_of = |j: usize| (work[j].1, work[j].2);
    let mut again = Vec::new();
    let reused = run_parallel_jobs(
        &work,
        jobs,
        progress,
        Job::default,
        |job, &(i, case, plan)| run_reusing(i, case, plan, target, opts, job, case_of),
        |job| Some(job.finish(target, opts, case_of)),
    );
    let mut results = Vec::with_capacity(work.len());
    for r in reused {
        again.extend(r.again);
        results.extend(r.result);
    }
    for (i, result) in again {
        results[i] = result;
    }
    // A target that answered nothing: every case that ran says so, once.
    if let Some(halt) = opts.readiness.halted() {
        results.iter_mut().for_each(|r| halt.apply(r));
    }
    results
}

/// Runs `run` on every item of `work`, `jobs` at a time, and returns the
/// results in the order of `work`. `progress` is called after each result
/// with the count done and the total. Every role's runner uses this.
pub fn run_parallel<T: Sync, R: Send>(
    work: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    run: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    run_parallel_with(work, jobs, progress, || (), |(), item| run(item))
}

/// [`run_parallel`] with a state per job: `init` makes it when the job
/// starts, `run` gets it with every item, and it is dropped when the job
/// ends.
pub fn run_parallel_with<T: Sync, R: Send, S>(
    work: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    run_parallel_jobs(work, jobs, progress, init, run, |_| None)
}

/// [`run_parallel_with`], where each job's state is handed to `finish`
/// when the job ends (the server role closes its kept process there): its
/// results, when it gives any, follow those of `work`, in no set order.
pub fn run_parallel_jobs<T: Sync, R: Send, S>(
    work: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, &T) -> R + Sync,
    finish: impl Fn(S) -> Option<R> + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(work.len()).collect());
    let finished: Mutex<Vec<R>> = Mutex::new(Vec::new());
    thread::scope(|s| {
        for _ in 0..jobs.clamp(1, work.len().max(1)) {
            s.spawn(|| {
                let mut state = init();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = work.get(i) else {
                        break;
                    };
                    let result = run(&mut state, item);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, work.len());
                }
                if let Some(r) = finish(state) {
                    finished.lock().unwrap_or_else(|e| e.into_inner()).push(r);
                }
            });
        }
    });
    let mut all: Vec<R> = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect();
    all.extend(finished.into_inner().unwrap_or_else(|e| e.into_inner()));
    all
}

/// Whether `id` is selected by the filters: no filters select everything;
/// otherwise any glob (`*` any run of characters, `?` one) matching the
/// whole id, or a filter equal to a prefix of the id ending at a `/`.
pub fn selected(id: &str, filters: &[globset::GlobMatcher]) -> bool {
    filters.is_empty() || filters.iter().any(|f| f.is_match(id))
}

/// Compiles `--filter` globs. A filter without glob characters also
/// selects everything below it (`jsonrpc/examples` selects
/// `jsonrpc/examples/*`).
pub fn compile_filters(filters: &[String]) -> Result<Vec<globset::GlobMatcher>, String> {
    let mut out = Vec::new();
    for f in filters {
        let mut patterns = vec![f.clone()];
        if !f.contains(['*', '?', '[', '{']) {
            patterns.push(format!("{}/**", f.trim_end_matches('/')));
        }
        for p in patterns {
            let glob = globset::GlobBuilder::new(&p)
                .literal_separator(false)
                .build()
                .map_err(|e| format!("bad --filter `{f}`: {e}"))?;
            out.push(glob.compile_matcher());
        }
    }
    Ok(out)
}
