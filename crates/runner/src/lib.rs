//! rpcspec: a conformance suite for JSON-RPC 2.0 and NDJSON over lines.
//!
//! This crate is the `rpcspec` command and the roles behind it, on the
//! layer every role shares (`rpcspec-core`, re-exported here under its own
//! module names: [`target`], [`drive`], [`plan`], [`report`], [`render`]…).
//! The server role loads the case files ([`cases`]), drives any executable
//! over stdin/stdout ([`exec`]) under several write plans, and grades every
//! answer with the reference framer and the matcher. Three more roles share
//! the report model: event-stream producers over stdio or HTTP
//! ([`producer`]), NDJSON decoders ([`decoder`]) and clients ([`client`]);
//! [`matrix`] merges many targets' reports into one table.

#![warn(missing_docs)]

pub mod cases;
pub mod check;
pub mod client;
pub mod decoder;
pub mod exec;
pub mod fuzz;
pub mod matrix;
pub mod mcp;
pub mod probe;
pub mod producer;
pub mod rules;
pub mod serve;
pub mod shipped;
pub mod target_file;

// The layer under every role, under the names the roles have always used.
pub use rpcspec_core::{
    baseline, budget, casefile, drive, exit,
    filter::{compile_filters, selected},
    gather, http,
    parallel::{run_parallel, run_parallel_jobs, run_parallel_with},
    pattern, plan, reap, render, report, target, unescape,
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
