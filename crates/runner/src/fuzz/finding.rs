//! Findings: which failures are one (a signature and an input shape), and
//! shrinking the input that showed one.

use std::time::Instant;

use rpcspec_matcher::{Dialect, Kind, classify};

use super::{Scenario, as_case, generate::collapse_runs};
use crate::{
    exec::{RunOptions, run_case},
    plan::Plan,
    report::{CaseResult, Verdict},
    target::Target,
};

/// The shape of a scenario's input, for grouping findings by root cause:
/// the first that applies of `beyond-limit` (a message past a parser limit:
/// see `rpcspec_matcher::limits`), `frame` (a Content-Length frame of its
/// own, damaged), `not-json` (a line that does not parse), `batch`, and
/// `messages`.
pub fn shape(scenario: &Scenario) -> &'static str {
    let classified: Vec<_> = scenario
        .steps
        .iter()
        .flatten()
        .map(|line| {
            let text = String::from_utf8_lossy(line);
            classify(text.trim_end(), &Dialect::Jsonrpc2)
        })
        .collect();
    if classified.iter().any(|c| c.limit.is_some()) {
        "beyond-limit"
    } else if scenario.steps.iter().flatten().any(|l| super::is_frame(l)) {
        "frame"
    } else if classified.iter().any(|c| c.breaks("json.parse")) {
        "not-json"
    } else if classified.iter().any(|c| matches!(c.kind, Kind::Batch(_))) {
        "batch"
    } else {
        "messages"
    }
}

/// What kind of failure a result is, for deduplication and minimisation.
pub fn signature(result: &CaseResult) -> Option<String> {
    if !matches!(
        result.verdict,
        Verdict::Fail | Verdict::Timeout | Verdict::Crash
    ) {
        return None;
    }
    let worst = result
        .evidence
        .iter()
        .filter(|e| e.verdict == result.verdict)
        .find(|_| true)?;
    Some(match &worst.rule {
        Some(rule) => rule.id.clone(),
        None => result.verdict.as_str().to_lowercase(),
    })
}

pub(super) fn run_scenario(scenario: &Scenario, target: &Target, opts: &RunOptions) -> CaseResult {
    let case = as_case("input", scenario, &opts.framing);
    run_case(&case, scenario.plan, target, opts)
}

/// How many times an input is run, with the replay's write plans, before
/// its finding is called flaky: it failed once and not since.
pub const REPRODUCE_TRIES: usize = 3;

/// Shrinks a failing scenario while it fails with the same signature:
/// fewer steps, then fewer lines, then plan `whole`. Bounded: at most 64
/// executions, none begun after `until` (what is smallest by then is
/// kept). An input that does not fail so in [`REPRODUCE_TRIES`] runs is
/// returned as it is, with its last result: the caller sees that the
/// signature is not that result's.
pub fn minimise(
    mut scenario: Scenario,
    signature: &str,
    target: &Target,
    opts: &RunOptions,
    until: Instant,
) -> (Scenario, CaseResult) {
    let mut best = run_scenario(&scenario, target, opts);
    for _ in 1..REPRODUCE_TRIES {
        if self::signature(&best).as_deref() == Some(signature) {
            break;
        }
        best = run_scenario(&scenario, target, opts);
    }
    if self::signature(&best).as_deref() != Some(signature) {
        return (scenario, best);
    }
    let mut budget = 64;
    let mut still_fails = |candidate: &Scenario, best: &mut CaseResult| -> bool {
        if budget == 0 || Instant::now() >= until {
            return false;
        }
        budget -= 1;
        let result = run_scenario(candidate, target, opts);
        let same = self::signature(&result).as_deref() == Some(signature);
        if same {
            *best = result;
        }
        same
    };
    let mut i = 0;
    while i < scenario.steps.len() && scenario.steps.len() > 1 {
        let mut candidate = scenario.clone();
        candidate.steps.remove(i);
        if still_fails(&candidate, &mut best) {
            scenario = candidate;
        } else {
            i += 1;
        }
    }
    for step in 0..scenario.steps.len() {
        let mut j = 0;
        while j < scenario.steps[step].len() && scenario.steps[step].len() > 1 {
            let mut candidate = scenario.clone();
            candidate.steps[step].remove(j);
            if still_fails(&candidate, &mut best) {
                scenario = candidate;
            } else {
                j += 1;
            }
        }
    }
    // Long runs of one byte (huge strings and numbers) down to 8.
    let collapsed = Scenario {
        steps: scenario
            .steps
            .iter()
            .map(|lines| lines.iter().map(|l| collapse_runs(l, 8)).collect())
            .collect(),
        plan: scenario.plan,
    };
    if collapsed != scenario && still_fails(&collapsed, &mut best) {
        scenario = collapsed;
    }
    if scenario.plan != Plan::Whole {
        let candidate = Scenario {
            plan: Plan::Whole,
            ..scenario.clone()
        };
        if still_fails(&candidate, &mut best) {
            scenario = candidate;
        }
    }
    (scenario, best)
}
