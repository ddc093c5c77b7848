//! The server role (`--role server`, the default): rpcspec writes each
//! case's messages to a JSON-RPC server under every write plan and grades
//! what it answers.
//!
//! [`cases`] loads the case files (the shapes as written, validated into
//! steps) and the dialects' preambles; [`probe`] puts a dialect's probe and
//! a call that succeeds into a case; [`exec`] runs one (case, plan) on a
//! process of its own or a kept one ([`exec::run_reusing`]: a shared
//! process never changes a verdict) and grades it; [`target_file`] loads
//! `--target FILE`; [`serve`] is the reference server, a flavor per
//! dialect. The crate root re-exports each module under its old name
//! (`rpcspec::exec`, `rpcspec::cases`…).

pub mod cases;
pub mod exec;
pub mod probe;
mod role;
pub mod serve;
pub mod target_file;

pub use role::{Servers, not_applicable};

use cases::Case;
use exec::{Job, RunOptions, run_reusing};

use crate::{plan::Plan, report::CaseResult, run_parallel_jobs, target::Target};

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
    // The plans of a case go to one job in turn: a case that is not a PASS
    // on a shared process is run again on a new one, which then takes the
    // case's other plans (see `run_reusing`).
    let reused = run_parallel_jobs(
        &work,
        jobs,
        progress,
        |a, b| std::ptr::eq(a.1, b.1),
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
    opts.readiness.halt_results(&mut results);
    results
}
