//! The `producer` role: the target writes an event stream (`start`,
//! `token`…, `done`), on stdout or as the body of an HTTP response.
//!
//! Each scenario of the profile is one run of the producer; every check
//! below then grades that run, so a report has one result per (check,
//! scenario), the scenario in the plan column. A stream has no replies to
//! wait for: the run ends when the producer exits (stdio) or the body ends
//! (HTTP), or at the deadline.
//!
//! Nothing is proved by sleeping. A stdio producer that holds its records
//! back is caught by a gate, not a timer: stdin stays open until the end
//! record arrives; when the start-up time (`--startup-timeout`) passes with
//! not a byte written the runner closes it, and a stream that completes
//! only then was waiting for EOF to flush. A cold start within the
//! start-up time is not taken for one.

mod grade;
mod observe;
pub mod profile;
mod reference;

use std::path::Path;

use rpcspec_matcher::Level;

pub use observe::{Limits, Observation, Record};
pub use profile::{Profile, Scenario};
pub use reference::{records as reference_records, serve};

use crate::{
    budget::Budget,
    cases::{Listing, LoadError, Location},
    report::{CaseResult, Evidence, RuleRef, Verdict},
    target::Target,
};

/// Where the stream comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A command, run once per scenario.
    Command(Target),
    /// A streaming HTTP endpoint, POSTed once per scenario.
    Url(String),
}

impl Source {
    /// As shown in reports.
    pub fn display(&self) -> String {
        match self {
            Source::Command(t) => t.display(),
            Source::Url(u) => u.clone(),
        }
    }

    fn transport(&self) -> Transport {
        match self {
            Source::Command(_) => Transport::Stdio,
            Source::Url(_) => Transport::Http,
        }
    }
}

/// Where a check applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Any,
    Stdio,
    Http,
}

/// One producer check: a case of the producer role.
#[derive(Debug)]
pub struct Check {
    /// The case id, `producer/<group>/<name>`.
    pub id: &'static str,
    /// MUST, SHOULD or INFO.
    pub level: Level,
    /// What it checks, in one line.
    pub title: &'static str,
    /// Where the rule is written.
    pub section: &'static str,
    transport: Transport,
    grade: fn(&Profile, &Scenario, &Observation) -> Grade,
}

/// What a check says about one run.
enum Grade {
    /// The check does not apply (the reason is shown).
    NotApplicable(String),
    /// Findings; none is a pass.
    Findings(Vec<String>),
}

const NDJSON: &str = "NDJSON 1.0 §3; JSON Lines";
const LIFECYCLE: &str = "rpcspec event streams: lifecycle (spec-cases/profiles/README.md)";

/// Every check, in report order.
pub const CHECKS: &[Check] = &[
    Check {
        id: "producer/framing/json-lines",
        level: Level::Must,
        title: "every line is one JSON value: no log lines or other text on stdout",
        section: NDJSON,
        transport: Transport::Any,
        grade: grade::grade_json_lines,
    },
    Check {
        id: "producer/framing/one-line-per-record",
        level: Level::Must,
        title: "a record is one line: not pretty-printed over several",
        section: NDJSON,
        transport: Transport::Any,
        grade: grade::grade_one_line,
    },
    Check {
        id: "producer/framing/terminated",
        level: Level::Must,
        title: "every record ends with \\n, the last one included",
        section: NDJSON,
        transport: Transport::Any,
        grade: grade::grade_terminated,
    },
    Check {
        id: "producer/framing/utf8",
        level: Level::Must,
        title: "every line is UTF-8",
        section: "RFC 8259 §8.1; NDJSON 1.0 §3.1",
        transport: Transport::Any,
        grade: grade::grade_utf8,
    },
    Check {
        id: "producer/framing/no-blank-or-bom",
        level: Level::Should,
        title: "no blank lines and no byte order mark",
        section: "RFC 8259 §8.1; NDJSON 1.0 §3.2",
        transport: Transport::Any,
        grade: grade::grade_clean,
    },
    Check {
        id: "producer/envelope/type",
        level: Level::Must,
        title: "every record is an object whose type member is a string",
        section: "the profile's `type`",
        transport: Transport::Any,
        grade: grade::grade_type,
    },
    Check {
        id: "producer/envelope/shape",
        level: Level::Must,
        title: "records of a declared type have the profile's shape",
        section: "the profile's [records]",
        transport: Transport::Any,
        grade: grade::grade_shape,
    },
    Check {
        id: "producer/lifecycle/start-first",
        level: Level::Must,
        title: "the first record is the profile's start record, with its metadata",
        section: LIFECYCLE,
        transport: Transport::Any,
        grade: grade::grade_start,
    },
    Check {
        id: "producer/lifecycle/interrupted",
        level: Level::Must,
        title: "the stream ends with an end record (done or error): else it was interrupted",
        section: LIFECYCLE,
        transport: Transport::Any,
        grade: grade::grade_interrupted,
    },
    Check {
        id: "producer/lifecycle/nothing-after-end",
        level: Level::Must,
        title: "nothing follows the end record",
        section: LIFECYCLE,
        transport: Transport::Any,
        grade: grade::grade_after_end,
    },
    Check {
        id: "producer/lifecycle/error-record",
        level: Level::Must,
        title: "an error record carries a code and a message",
        section: LIFECYCLE,
        transport: Transport::Any,
        grade: grade::grade_error_record,
    },
    Check {
        id: "producer/lifecycle/expected-end",
        level: Level::Must,
        title: "a scenario that names its end type (opt-in: `end` in the profile) finishes with it",
        section: LIFECYCLE,
        transport: Transport::Any,
        grade: grade::grade_expected_end,
    },
    Check {
        id: "producer/lifecycle/exit-status",
        level: Level::Must,
        title: "the process exits once its stream has ended, with status 0 after an end that reports success",
        section: LIFECYCLE,
        transport: Transport::Stdio,
        grade: grade::grade_exit,
    },
    Check {
        id: "producer/lifecycle/streams",
        level: Level::Should,
        title: "records are written as they are produced, not held back until the end",
        section: LIFECYCLE,
        transport: Transport::Any,
        grade: grade::grade_streams,
    },
    Check {
        id: "producer/control/answered",
        level: Level::Must,
        title: "a control request is made when the scenario needs one (and the command enables them), and once answered the stream goes on to its end",
        section: "Claude Code stream-json control protocol",
        transport: Transport::Stdio,
        grade: grade::grade_control,
    },
    Check {
        id: "producer/http/status",
        level: Level::Must,
        title: "a valid request streams with status 200; a scenario that expects a failure may be refused first, with a JSON body",
        section: "RFC 9110 §15",
        transport: Transport::Http,
        grade: grade::grade_status,
    },
    Check {
        id: "producer/http/content-type",
        level: Level::Must,
        title: "a stream is served as the profile's media type (events: application/x-ndjson)",
        section: "NDJSON 1.0 §4; RFC 7464 §6",
        transport: Transport::Http,
        grade: grade::grade_content_type,
    },
    Check {
        id: "producer/http/bad-request",
        level: Level::Must,
        title: "a request the endpoint cannot serve is refused before the stream: 4xx with a JSON error body",
        section: "RFC 9110 §15.5",
        transport: Transport::Http,
        grade: grade::grade_bad_request,
    },
];

/// A producer case: one check, run under each of the profile's scenarios.
#[derive(Debug, Clone)]
pub struct ProducerCase {
    /// The case id.
    pub id: String,
    check: &'static Check,
    scenarios: Vec<String>,
}

impl ProducerCase {
    /// As `rpcspec list` shows it.
    pub fn listing(&self) -> Listing {
        Listing {
            id: self.id.clone(),
            title: self.check.title.to_owned(),
            section: self.check.section.to_owned(),
            level: self.check.level.as_str().to_owned(),
            requires: match self.check.transport {
                Transport::Http => vec!["http".to_owned()],
                Transport::Stdio => vec!["stdio".to_owned()],
                Transport::Any => Vec::new(),
            },
            plans: self.scenarios.clone(),
            file: "crates/runner/src/producer/mod.rs".into(),
            line: 0,
        }
    }
}

/// The producer cases for `profile`. They are the checks above; a profile
/// gives the inputs, so there is no cases folder (`dir` must be `None`).
pub fn load(dir: Option<&Path>, profile: &Profile) -> Result<Vec<ProducerCase>, LoadError> {
    if let Some(dir) = dir {
        return Err(LoadError {
            location: Location {
                file: dir.to_path_buf(),
                line: 0,
                column: 0,
            },
            message: "producer checks are built in: describe your producer's inputs and records \
                      in a profile file and pass it to --profile"
                .to_owned(),
        });
    }
    let scenarios: Vec<String> = profile.scenarios.iter().map(|s| s.name.clone()).collect();
    Ok(CHECKS
        .iter()
        .map(|check| ProducerCase {
            id: check.id.to_owned(),
            check,
            scenarios: scenarios.clone(),
        })
        .collect())
}

/// Runs every scenario of `profile` once against `source` (`jobs` at a
/// time) and grades each with every case: results in case order, then
/// scenario order. Cases for the other transport are left out.
pub fn run(
    cases: &[ProducerCase],
    profile: &Profile,
    source: &Source,
    limits: Limits,
    budget: &Budget,
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<CaseResult> {
    let transport = source.transport();
    let cases: Vec<&ProducerCase> = cases
        .iter()
        .filter(|c| c.check.transport == Transport::Any || c.check.transport == transport)
        .collect();
    let observed = crate::run_parallel(&profile.scenarios, jobs, progress, |scenario| {
        observe::observe(profile, scenario, source, limits, budget)
    });
    let mut results = Vec::new();
    for case in cases {
        for (scenario, obs) in profile.scenarios.iter().zip(&observed) {
            let mut result = grade(case.check, profile, scenario, obs, budget);
            result.fit(budget);
            results.push(result);
        }
    }
    results
}

fn grade(
    check: &Check,
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
    budget: &Budget,
) -> CaseResult {
    let mut result = CaseResult::new(
        check.id.to_owned(),
        scenario.name.clone(),
        check.title.to_owned(),
        check.section.to_owned(),
    );
    result.exit = obs.exit.clone();
    result.duration = obs.duration;
    result.evidence = evidence(check, profile, scenario, obs);
    if let Some(why) = &obs.flood {
        result.evidence.push(Evidence::flood(why.clone(), budget));
    }
    result.settle();
    // The run's bytes go with the results that need explaining only: one
    // run is graded by every check, and a pass needs no evidence.
    if !matches!(result.verdict, Verdict::Pass | Verdict::Skipped) {
        result.sent = obs.sent.clone();
        result.received = obs.received.clone();
        result.stderr = obs.stderr.clone();
        if obs.received_omitted > 0 {
            result.evidence.push(Evidence::note(
                Verdict::Pass,
                format!(
                    "{} more lines were graded but are not shown (over 2000 lines or 1 MiB)",
                    obs.received_omitted
                ),
            ));
        }
    }
    result
}

/// What one check says about one run, as evidence (none for a pass).
fn evidence(
    check: &Check,
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
) -> Vec<Evidence> {
    if let Some(error) = &obs.error {
        return vec![Evidence::note(Verdict::Error, error.clone())];
    }
    if obs.no_head {
        return vec![Evidence::note(
            Verdict::Timeout,
            format!(
                "no response head within the deadline ({:.1}s)",
                obs.timeout.as_secs_f64()
            ),
        )];
    }
    let rule = RuleRef {
        id: check.id.replace('/', "."),
        level: check.level.as_str().to_owned(),
        section: check.section.to_owned(),
        statement: check.title.to_owned(),
    };
    let grade = if grade::refused(obs)
        && !check.id.starts_with("producer/http/")
        && check.id != "producer/lifecycle/expected-end"
    {
        Grade::NotApplicable("the request was refused before the stream".into())
    } else {
        (check.grade)(profile, scenario, obs)
    };
    let mut out: Vec<Evidence> = match grade {
        Grade::NotApplicable(why) => return vec![Evidence::note(Verdict::Skipped, why)],
        Grade::Findings(findings) => findings
            .into_iter()
            .map(|message| Evidence {
                verdict: rule.verdict(),
                rule: Some(rule.clone()),
                message,
                step: None,
                expected: Vec::new(),
                actual: Vec::new(),
            })
            .collect(),
    };
    // A run cut short by the deadline is a timeout for every check that
    // needed the rest of the stream.
    if obs.timed_out && check.id != "producer/lifecycle/streams" {
        out.push(Evidence::note(
            Verdict::Timeout,
            format!(
                "the deadline ({:.1}s) passed before the stream ended",
                obs.timeout.as_secs_f64()
            ),
        ));
    }
    out
}
