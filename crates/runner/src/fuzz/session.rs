//! A job's target process kept from one input to the next: persistent
//! fuzzing, as `rpcspec run` keeps processes between cases
//! ([`run_reusing`]), and with its guarantees.
//!
//! Every input ends with a fence, and what the target answers before the
//! fence's answer is the input's. The process is kept only while it
//! answered everything, wrote no partial line and still reads; an input
//! that closes stdin or leaves a message unfinished runs on a process of
//! its own. A result other than PASS on a process that ran inputs before
//! is run again on a new process, and that verdict stands: a finding is
//! confirmed on a fresh process before it is written (and minimised on
//! fresh ones, [`super::minimise`]). Output no later input can have drawn
//! sends every input that ran on the process back to be run again alone
//! ([`Outcome::again`]).
//!
//! With [`RunOptions::fresh`] every input runs on a process of its own, by
//! the same path.

use std::collections::HashMap;

use super::{Scenario, as_case};
use crate::{
    cases::Case,
    exec::{Job, Reused, RunOptions, run_reusing},
    report::CaseResult,
    target::Target,
};

/// The most inputs one process takes before a new one replaces it: what a
/// session keeps of its inputs, and what output after a fence may send
/// back to be run again alone, stay bounded.
pub const PER_PROCESS: usize = 1000;

/// The most bytes of inputs one process takes before a new one replaces it
/// (each input is kept twice: as generated and as the case it runs as).
pub const PER_PROCESS_BYTES: usize = 16 << 20;

/// One job's kept process and the inputs that ran on it.
#[derive(Default)]
pub(super) struct Session {
    job: Job,
    /// The inputs run on the kept process, by their index in this session.
    ran: HashMap<usize, Ran>,
    next: usize,
    /// The bytes of the inputs in `ran`.
    bytes: usize,
}

struct Ran {
    execution: u64,
    case: Case,
    scenario: Scenario,
    bytes: usize,
}

/// An earlier input run again on a process of its own: its execution
/// number, the input, and that result, which stands.
pub(super) type Again = (u64, Scenario, CaseResult);

/// What running one input gave.
pub(super) struct Outcome {
    /// The input's result.
    pub result: CaseResult,
    /// Earlier inputs of the session, run again alone.
    pub again: Vec<Again>,
}

impl Session {
    /// Runs execution `execution`'s `scenario` on the kept process, or on
    /// a new one.
    pub fn run(
        &mut self,
        execution: u64,
        scenario: &Scenario,
        target: &Target,
        opts: &RunOptions,
    ) -> Outcome {
        let mut again = Vec::new();
        let bytes = 2 * scenario.steps.iter().flatten().map(Vec::len).sum::<usize>();
        if self.ran.len() >= PER_PROCESS || self.bytes + bytes > PER_PROCESS_BYTES {
            again = std::mem::take(self).finish(target, opts);
        }
        let index = self.next;
        self.next += 1;
        self.bytes += bytes;
        self.ran.insert(
            index,
            Ran {
                execution,
                case: as_case("input", scenario, &opts.framing),
                scenario: scenario.clone(),
                bytes,
            },
        );
        let Session { job, ran, .. } = self;
        let case = &ran[&index].case;
        let reused = run_reusing(index, case, scenario.plan, target, opts, job, |i| {
            (&ran[&i].case, ran[&i].scenario.plan)
        });
        let (result, more) = self.take(reused);
        again.extend(more);
        Outcome {
            result: result.expect("run_reusing gives the case's result"),
            again,
        }
    }

    /// Ends the session: its process is closed, and if it wrote anything
    /// after its last fence, every input that ran on it is run again alone.
    pub fn finish(self, target: &Target, opts: &RunOptions) -> Vec<Again> {
        let Session { job, ran, .. } = self;
        let reused = job.finish(target, opts, |i| (&ran[&i].case, ran[&i].scenario.plan));
        reused
            .again
            .into_iter()
            .filter_map(|(i, result)| {
                let ran = ran.get(&i)?;
                Some((ran.execution, ran.scenario.clone(), result))
            })
            .collect()
    }

    /// The input's result and the earlier ones run again; forgets the
    /// inputs that are no longer on the kept process.
    fn take(&mut self, reused: Reused) -> (Option<CaseResult>, Vec<Again>) {
        let again = reused
            .again
            .into_iter()
            .filter_map(|(i, result)| {
                let ran = self.ran.get(&i)?;
                Some((ran.execution, ran.scenario.clone(), result))
            })
            .collect();
        // The kept process's inputs are the earlier ones (this one ran on
        // a process of its own), all of them, this one alone (the process
        // that confirmed its verdict), or none (it was given up).
        let kept = self.job.cases();
        let index = self.next - 1;
        match kept {
            [] => {
                self.ran.clear();
                self.bytes = 0;
            }
            [only] if *only == index => {
                self.ran.retain(|&i, _| i == index);
                self.bytes = self.ran.values().map(|r| r.bytes).sum();
            }
            [.., last] if *last != index => {
                if let Some(gone) = self.ran.remove(&index) {
                    self.bytes -= gone.bytes;
                }
            }
            _ => {}
        }
        debug_assert_eq!(self.ran.len(), kept.len(), "the inputs on the kept process");
        (reused.result, again)
    }
}
