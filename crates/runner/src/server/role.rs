//! The server role as `rpcspec run` and `rpcspec list` drive it: the
//! JSON-RPC cases under every write plan and, in MCP, the MCP checks
//! beside them in one session of their own.

use std::path::Path;

use super::{
    cases::{self, Case},
    exec::{self, RunOptions},
    run_suite,
};
use crate::{
    casefile::{Listing, LoadError, Meta},
    compile_filters,
    dialects::mcp::{self, Revision},
    plan::Plan,
    report::{CaseResult, Evidence, Verdict},
    role::{Ran, Refused, Role},
    selected,
    target::Target,
};

/// The server role: each case under each plan, and in MCP the checks.
#[derive(Debug, Clone)]
pub struct Servers {
    /// The write plans to run the cases under.
    pub plans: Vec<Plan>,
    /// How each (case, plan) runs: the dialect, its handshakes, deadlines,
    /// the budget.
    pub opts: RunOptions,
    /// In MCP, the checks' options (their readiness is `opts`'s).
    pub mcp: Option<mcp::suite::Options>,
    /// The MCP revision pinned (`--dialect mcp@REVISION`), if any.
    pub pinned: Option<Revision>,
    /// The name of the handshake the dialect opens with, as the report
    /// names the dialect.
    pub handshake: String,
    /// `--filter`: the MCP checks are selected by it too.
    pub filters: Vec<String>,
}

impl Role for Servers {
    type Case = Case;

    fn load(&self, dir: Option<&Path>) -> Result<Vec<Case>, LoadError> {
        dir.map_or_else(cases::builtin, cases::load_dir)
    }

    fn meta(case: &Case) -> &Meta {
        &case.meta
    }

    fn listing(&self, case: &Case) -> Listing {
        case.listing()
    }

    /// In MCP a filter may pick only `mcp/…` checks.
    fn selects_beyond_cases(&self, filters: &[String]) -> bool {
        let Ok(compiled) = compile_filters(filters) else {
            return false;
        };
        self.mcp.is_some() && mcp::suite::CHECKS.iter().any(|c| selected(c.id, &compiled))
    }

    /// A server's cases mostly wait on the target: twice as many jobs as
    /// cores keep both busy.
    fn default_jobs(&self, cores: usize) -> usize {
        2 * cores
    }

    fn run(
        &self,
        cases: &[Case],
        target: &Target,
        jobs: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Ran, Refused> {
        let filters = compile_filters(&self.filters).map_err(Refused::usage)?;
        let (plans, opts) = (&self.plans, &self.opts);
        // A case written for another dialect or framing is of another
        // suite: left out, unless it is all that was selected (then its
        // N/A says why).
        let handshake = opts.handshake.as_deref().unwrap_or(opts.dialect.name());
        let own: Vec<Case> = cases
            .iter()
            .filter(|c| exec::foreign(c, handshake, &opts.framing).is_none())
            .cloned()
            .collect();
        let cases = if own.is_empty() { cases } else { &own[..] };
        // The MCP checks beside the JSON-RPC cases: one session, a few
        // seconds, its start-up paid while the cases pay theirs.
        let (mut results, outcome) = std::thread::scope(|scope| {
            let checks = self.mcp.as_ref().map(|mcp_opts| {
                scope
                    .spawn(|| mcp::suite::run_every(target, mcp_opts, &|id| selected(id, &filters)))
            });
            let results = match self.pinned {
                // The JSON-RPC cases need MCP's `initialize` and `ping`.
                Some(r) if !r.has_initialize() => not_applicable(
                    cases,
                    plans,
                    &format!(
                        "MCP {r} has no `initialize` and no `ping`, which the JSON-RPC cases open with and probe by: the `mcp/…` checks cover it"
                    ),
                ),
                _ => run_suite(cases, plans, target, opts, jobs, progress),
            };
            let outcome = checks.map(|h| h.join().expect("the MCP checks do not panic"));
            (results, outcome)
        });
        let outcome = outcome.unwrap_or_default();
        if outcome.has_initialize == Some(false) && self.pinned.is_none() {
            results = not_applicable(
                cases,
                plans,
                "the server speaks MCP 2026-07-28 only (it answered `initialize` with no result): the JSON-RPC cases open with `initialize` and probe with `ping`, which that revision removed; the `mcp/…` checks cover it",
            );
        }
        results.extend(outcome.results);
        // A target that answered nothing: the MCP checks say so too.
        let halt = opts.readiness.halt_results(&mut results);
        Ok(Ran {
            target: target.display(),
            dialect: match self.pinned {
                Some(r) => format!("{}@{r}", self.handshake),
                None => self.handshake.clone(),
            },
            results,
            halt,
        })
    }
}

/// Every (case, plan) of `cases` as N/A, `why`.
pub fn not_applicable(cases: &[Case], plans: &[Plan], why: &str) -> Vec<CaseResult> {
    let mut out = Vec::new();
    for case in cases {
        for plan in case.plans.iter().filter(|p| plans.contains(p)) {
            let mut r = CaseResult::new(
                case.meta.id.clone(),
                plan.name().to_owned(),
                case.meta.title.clone(),
                case.meta.section.clone(),
            );
            r.evidence
                .push(Evidence::note(Verdict::NotApplicable, why.to_owned()));
            r.settle();
            out.push(r);
        }
    }
    out
}
