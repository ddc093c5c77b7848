//! The producer role as `rpcspec run` and `rpcspec list` drive it.

use std::path::Path;

use super::{Limits, ProducerCase, Profile, Source, load, run};
use crate::{
    budget::Budget,
    casefile::{Listing, LoadError, Meta},
    role::{Ran, Refused, Role},
    target::Target,
};

/// The producer role: each check, over every scenario of one profile.
#[derive(Debug, Clone)]
pub struct Producers {
    /// The profile, its scenarios cut to those `--plans` names.
    pub profile: Profile,
    /// The streaming HTTP endpoint, when it is one instead of a command.
    pub url: Option<String>,
    /// The deadlines of a run.
    pub limits: Limits,
    /// The budget of one run.
    pub budget: Budget,
}

impl Producers {
    /// The role for the profile `name` under the scenarios `plans` names
    /// (none: every one), each one of the profile's, else refused.
    pub fn new(
        name: &str,
        plans: &[String],
        url: Option<String>,
        limits: Limits,
        budget: Budget,
    ) -> Result<Producers, Refused> {
        let mut profile = Profile::named(name).map_err(Refused::usage)?;
        // A producer's plans are its profile's scenarios.
        if !plans.is_empty() {
            if let Some(unknown) = plans
                .iter()
                .find(|p| !profile.scenarios.iter().any(|s| &s.name == *p))
            {
                let known: Vec<&str> = profile.scenarios.iter().map(|s| s.name.as_str()).collect();
                return Err(Refused::usage(format!(
                    "unknown scenario `{unknown}` in --plans (profile `{}` has: {})",
                    profile.name,
                    known.join(", ")
                )));
            }
            profile.scenarios.retain(|s| plans.contains(&s.name));
        }
        Ok(Producers {
            profile,
            url,
            limits,
            budget,
        })
    }
}

impl Role for Producers {
    type Case = ProducerCase;

    fn load(&self, dir: Option<&Path>) -> Result<Vec<ProducerCase>, LoadError> {
        load(dir, &self.profile)
    }

    fn meta(case: &ProducerCase) -> &Meta {
        &case.meta
    }

    fn listing(&self, case: &ProducerCase) -> Listing {
        case.listing()
    }

    /// Runs against the endpoint, if the role has one, else `target`.
    fn run(
        &self,
        cases: &[ProducerCase],
        target: &Target,
        jobs: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Ran, Refused> {
        let source = match &self.url {
            Some(url) => Source::Url(url.clone()),
            None => Source::Command(target.clone()),
        };
        let produced = run(
            cases,
            &self.profile,
            &source,
            self.limits,
            &self.budget,
            jobs,
            progress,
        );
        Ok(Ran {
            target: source.display(),
            dialect: self.profile.name.clone(),
            results: produced.results,
            halt: produced.halt,
        })
    }
}
