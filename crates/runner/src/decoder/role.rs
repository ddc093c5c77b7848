//! The decoder role as `rpcspec run` and `rpcspec list` drive it.

use std::{path::Path, time::Duration};

use super::{DecoderCase, PLAN_KINDS, Session, builtin, load_dir, run_case_in};
use crate::{
    budget::Budget,
    casefile::{Listing, LoadError, Meta},
    drive::Readiness,
    exit,
    role::{Ran, Refused, Role},
    run_parallel_with,
    target::Target,
};

/// The decoder role: each stream case under each of its plans.
#[derive(Debug, Clone)]
pub struct Decoders {
    /// The plan families to run (`--plans`; none: every one).
    pub plans: Vec<String>,
    /// The case deadline.
    pub timeout: Duration,
    /// The budget of one (case, plan).
    pub budget: Budget,
    /// A process per stream, even for an adapter that takes many.
    pub fresh: bool,
}

impl Decoders {
    /// The role under `plans`, each a known family, else refused.
    pub fn new(
        plans: Vec<String>,
        timeout: Duration,
        budget: Budget,
        fresh: bool,
    ) -> Result<Decoders, Refused> {
        if let Some(unknown) = plans.iter().find(|p| !PLAN_KINDS.contains(&p.as_str())) {
            return Err(Refused::usage(format!(
                "unknown decoder plan `{unknown}` (known: {})",
                PLAN_KINDS.join(", ")
            )));
        }
        Ok(Decoders {
            plans,
            timeout,
            budget,
            fresh,
        })
    }
}

impl Role for Decoders {
    type Case = DecoderCase;

    fn load(&self, dir: Option<&Path>) -> Result<Vec<DecoderCase>, LoadError> {
        dir.map_or_else(builtin, load_dir)
    }

    fn meta(case: &DecoderCase) -> &Meta {
        &case.meta
    }

    fn listing(&self, case: &DecoderCase) -> Listing {
        case.listing()
    }

    fn run(
        &self,
        cases: &[DecoderCase],
        target: &Target,
        jobs: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Ran, Refused> {
        let work: Vec<_> = cases
            .iter()
            .flat_map(|c| {
                c.plans()
                    .into_iter()
                    .filter(|p| self.plans.is_empty() || self.plans.iter().any(|n| n == p.kind()))
                    .map(move |p| (c, p))
            })
            .collect();
        if work.is_empty() {
            return Err(Refused {
                message: "no case runs under the plans given".into(),
                code: exit::NO_CASES,
            });
        }
        let readiness = Readiness::default();
        let mut results = run_parallel_with(
            &work,
            jobs,
            progress,
            || Session::new(self.fresh),
            |session, (case, plan)| {
                run_case_in(
                    session,
                    case,
                    plan,
                    target,
                    self.timeout,
                    &self.budget,
                    &readiness,
                )
            },
        );
        Ok(Ran {
            target: target.display(),
            dialect: "ndjson".to_owned(),
            halt: readiness.halt_results(&mut results),
            results,
        })
    }
}
