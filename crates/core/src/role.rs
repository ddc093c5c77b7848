//! What every role is to `rpcspec run` and `rpcspec list`: cases that say
//! what they are ([`Meta`]), loaded from a folder or the shipped ones,
//! listed, filtered, and run against a target into results. The command
//! line builds a role from its arguments and hands it to one generic
//! path ([`select`], then [`Role::run`]), so a new role is an
//! implementation of this trait, not a fifth copy of the loading,
//! filtering and reporting.

use std::path::Path;

use crate::{
    casefile::{Listing, LoadError, Meta},
    filter::{compile_filters, selected},
    report::{CaseResult, Halt},
    target::Target,
};

/// A role: the kind of program rpcspec tests, and how.
pub trait Role: Sync {
    /// The role's case: a [`Meta`] and its own steps.
    type Case: Sync;

    /// The role's cases: those of the case files under `dir`, or the
    /// shipped ones.
    fn load(&self, dir: Option<&Path>) -> Result<Vec<Self::Case>, LoadError>;

    /// What `case` says of itself.
    fn meta(case: &Self::Case) -> &Meta;

    /// The case as `rpcspec list` shows it (its plans are the role's).
    fn listing(&self, case: &Self::Case) -> Listing {
        Self::meta(case).listing(Vec::new())
    }

    /// Whether the filters select work of the role beyond its cases (the
    /// MCP checks that run beside the server's cases), so that no case
    /// selected is not yet "nothing selected".
    fn selects_beyond_cases(&self, _filters: &[String]) -> bool {
        false
    }

    /// How many jobs run at once unless `--jobs` says: one per core.
    fn default_jobs(&self, cores: usize) -> usize {
        cores
    }

    /// Runs `cases` against `target`, `jobs` at a time, calling
    /// `progress(done, total)` as they end.
    fn run(
        &self,
        cases: &[Self::Case],
        target: &Target,
        jobs: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Ran, Refused>;
}

/// What a role's run hands back to be reported.
#[derive(Debug)]
pub struct Ran {
    /// The target, as the report names it.
    pub target: String,
    /// The dialect or profile it was held to, as the report names it.
    pub dialect: String,
    /// Every result, in case order.
    pub results: Vec<CaseResult>,
    /// Why the run stopped running cases, if it did.
    pub halt: Option<Halt>,
}

/// Why a role will not run: one line for the user, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// What is wrong, in one line.
    pub message: String,
    /// The exit code ([`crate::exit`]).
    pub code: u8,
}

impl Refused {
    /// A usage error ([`crate::exit::USAGE`]).
    pub fn usage(message: impl Into<String>) -> Refused {
        Refused {
            message: message.into(),
            code: crate::exit::USAGE,
        }
    }
}

/// The cases of `role` under `dir` that `filters` select. None selected
/// (and nothing beyond them, [`Role::selects_beyond_cases`]) is refused
/// with [`crate::exit::NO_CASES`]; a case file error or a bad filter is a
/// usage error.
pub fn select<R: Role>(
    role: &R,
    dir: Option<&Path>,
    filters: &[String],
) -> Result<Vec<R::Case>, Refused> {
    let all = role
        .load(dir)
        .map_err(|e| Refused::usage(format!("case file error: {e}")))?;
    let compiled = compile_filters(filters).map_err(Refused::usage)?;
    let chosen: Vec<R::Case> = all
        .into_iter()
        .filter(|c| selected(&R::meta(c).id, &compiled))
        .collect();
    if chosen.is_empty() && !role.selects_beyond_cases(filters) {
        return Err(Refused {
            message: "no case matched the filters".into(),
            code: crate::exit::NO_CASES,
        });
    }
    Ok(chosen)
}
