//! The client role as `rpcspec run` and `rpcspec list` drive it.

use std::path::{Path, PathBuf};

use super::{Limits, Protocol, Scenario, builtin, load_dir, run_scenario};
use crate::{
    budget::Budget,
    capture::Framing,
    casefile::{Listing, LoadError, Meta},
    drive::Readiness,
    role::{Ran, Refused, Role},
    run_parallel_with,
    target::Target,
};

/// The client role: each scenario of one protocol, its server scripted by
/// `peer`.
#[derive(Debug, Clone)]
pub struct Clients {
    /// The protocol the client speaks: the scenarios of the others are
    /// left out (`None`: every scenario, as `rpcspec list` shows them).
    pub protocol: Option<Protocol>,
    /// How messages are framed both ways: the scenarios written for
    /// another framing are left out.
    pub framing: Framing,
    /// The deadlines of a scenario.
    pub limits: Limits,
    /// The budget of one scenario.
    pub budget: Budget,
    /// The rpcspec executable the scripted server runs from
    /// (`rpcspec peer`).
    pub peer: PathBuf,
}

impl Clients {
    /// The role for clients of `dialect` in `framing` (default: the
    /// dialect's own, else NDJSON; a dialect of one framing takes no
    /// other); a client has no write plans, so `plans` must be empty.
    pub fn new(
        dialect: &str,
        framing: Option<Framing>,
        plans: &[String],
        limits: Limits,
        budget: Budget,
        peer: PathBuf,
    ) -> Result<Clients, Refused> {
        let Some(protocol) = Protocol::named(dialect) else {
            return Err(Refused::usage(crate::dialects::unknown(
                dialect,
                |r| r.client,
                "the client role",
            )));
        };
        let framing = match (protocol.play().framing, framing) {
            (Some((own, why)), Some(asked)) if asked.name() != own.name() => {
                return Err(Refused::usage(format!(
                    "{why}: `--dialect {}` takes no `--framing {}`",
                    protocol.name(),
                    asked.name()
                )));
            }
            (Some((own, _)), _) => own.framing(),
            (None, asked) => asked.unwrap_or_else(Framing::ndjson),
        };
        if !plans.is_empty() {
            return Err(Refused::usage(
                "the client role has no plans: each scenario scripts its own writes",
            ));
        }
        Ok(Clients {
            protocol: Some(protocol),
            framing,
            limits,
            budget,
            peer,
        })
    }
}

impl Role for Clients {
    type Case = Scenario;

    /// The scenarios of the role's protocol.
    fn load(&self, dir: Option<&Path>) -> Result<Vec<Scenario>, LoadError> {
        let mut all = dir.map_or_else(builtin, load_dir)?;
        if let Some(protocol) = self.protocol {
            all.retain(|s| s.protocol == protocol);
            let own = self.framing.name();
            all.retain(|s| s.framing.as_deref().is_none_or(|f| f == own));
        }
        Ok(all)
    }

    fn meta(case: &Scenario) -> &Meta {
        &case.meta
    }

    fn listing(&self, case: &Scenario) -> Listing {
        case.listing()
    }

    /// A scenario mostly waits on the client (its start, its calls' own
    /// timeouts): twice as many jobs as cores keep both busy.
    fn default_jobs(&self, cores: usize) -> usize {
        2 * cores
    }

    fn run(
        &self,
        cases: &[Scenario],
        target: &Target,
        jobs: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Ran, Refused> {
        let readiness = Readiness::default();
        let mut results = run_parallel_with(
            cases,
            jobs,
            progress,
            || (),
            |(), sc| {
                let (limits, budget) = (self.limits, &self.budget);
                run_scenario(
                    sc,
                    &self.framing,
                    target,
                    &self.peer,
                    limits,
                    budget,
                    &readiness,
                )
            },
        );
        let dialect = self.protocol.map_or("jsonrpc2", Protocol::name);
        Ok(Ran {
            target: target.display(),
            dialect: dialect.to_owned(),
            halt: readiness.halt_results(&mut results),
            results,
        })
    }
}
