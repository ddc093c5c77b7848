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

mod control;
mod grade;
mod observe;
pub mod profile;
mod reference;
mod role;

use std::path::Path;

pub use observe::{Limits, Observation, Record};
pub use profile::{Profile, Scenario};
pub use reference::{claude_answer, records as reference_records, serve, serve_claude};
pub use role::Producers;

use crate::{
    budget::Budget,
    casefile::{Listing, LoadError, Location, Meta},
    report::{CaseResult, Evidence, Halt, Verdict},
    rules::{self as R, Rule},
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
    /// What it checks, in one line.
    pub title: &'static str,
    /// The rules of the registry it checks, the main one first: its level
    /// and section are the case's.
    pub rules: &'static [&'static Rule],
    transport: Transport,
    grade: fn(&Profile, &Scenario, &Observation) -> Grade,
}

/// What a check says about one run.
enum Grade {
    /// The check does not apply (the reason is shown).
    NotApplicable(String),
    /// Findings, each with the rule it breaks; none is a pass.
    Findings(Vec<(&'static Rule, String)>),
}

/// Every check, in report order.
pub const CHECKS: &[Check] = &[
    Check {
        id: "producer/framing/json-lines",
        title: "every line is one JSON value: no log lines or other text on stdout",
        rules: &[&R::JSON_PARSE],
        transport: Transport::Any,
        grade: grade::grade_json_lines,
    },
    Check {
        id: "producer/framing/one-line-per-record",
        title: "a record is one line: not pretty-printed over several",
        rules: &[&R::FRAMING_MULTI_LINE],
        transport: Transport::Any,
        grade: grade::grade_one_line,
    },
    Check {
        id: "producer/framing/terminated",
        title: "every record ends with \\n, the last one included",
        rules: &[&R::FRAMING_UNTERMINATED, &R::FRAMING_RECORD],
        transport: Transport::Any,
        grade: grade::grade_terminated,
    },
    Check {
        id: "producer/framing/utf8",
        title: "every line is UTF-8",
        rules: &[&R::FRAMING_UTF8],
        transport: Transport::Any,
        grade: grade::grade_utf8,
    },
    Check {
        id: "producer/framing/no-blank-or-bom",
        title: "no blank lines and no byte order mark",
        rules: &[&R::FRAMING_BLANK_LINE, &R::FRAMING_BOM],
        transport: Transport::Any,
        grade: grade::grade_clean,
    },
    Check {
        id: "producer/envelope/type",
        title: "every record is an object whose type member is a string",
        rules: &[&R::EVENTS_TYPE],
        transport: Transport::Any,
        grade: grade::grade_type,
    },
    Check {
        id: "producer/envelope/shape",
        title: "records of a declared type have the profile's shape",
        rules: &[&R::EVENTS_SHAPE],
        transport: Transport::Any,
        grade: grade::grade_shape,
    },
    Check {
        id: "producer/lifecycle/start-first",
        title: "the first record is the profile's start record, with its metadata",
        rules: &[&R::EVENTS_START],
        transport: Transport::Any,
        grade: grade::grade_start,
    },
    Check {
        id: "producer/lifecycle/interrupted",
        title: "the stream ends with an end record (done or error): else it was interrupted",
        rules: &[&R::EVENTS_INTERRUPTED],
        transport: Transport::Any,
        grade: grade::grade_interrupted,
    },
    Check {
        id: "producer/lifecycle/nothing-after-end",
        title: "nothing follows the end record",
        rules: &[&R::EVENTS_AFTER_END],
        transport: Transport::Any,
        grade: grade::grade_after_end,
    },
    Check {
        id: "producer/lifecycle/error-record",
        title: "an error record carries a code and a message",
        rules: &[&R::EVENTS_ERROR_RECORD],
        transport: Transport::Any,
        grade: grade::grade_error_record,
    },
    Check {
        id: "producer/lifecycle/expected-end",
        title: "a scenario that names its end type (opt-in: `end` in the profile) finishes with it",
        rules: &[&R::EVENTS_EXPECTED_END],
        transport: Transport::Any,
        grade: grade::grade_expected_end,
    },
    Check {
        id: "producer/lifecycle/exit-status",
        title: "the process exits once its stream has ended, with status 0 after an end that reports success",
        rules: &[&R::PROCESS_EXIT_STATUS, &R::PROCESS_EXIT_ON_EOF],
        transport: Transport::Stdio,
        grade: grade::grade_exit,
    },
    Check {
        id: "producer/lifecycle/streams",
        title: "records are written as they are produced, not held back until the end",
        rules: &[&R::EVENTS_HELD_BACK],
        transport: Transport::Any,
        grade: grade::grade_streams,
    },
    Check {
        id: "producer/control/answered",
        title: "a control request is made when the scenario needs one (and the command enables them), and once answered the stream goes on to its end",
        rules: &[&R::EVENTS_CONTROL_ANSWERED],
        transport: Transport::Stdio,
        grade: control::grade_control,
    },
    Check {
        id: "producer/control/answered-once",
        title: "each control request the host sends is answered once, by its request_id, with no turn needed first",
        rules: &[&R::CONTROL_ANSWERED_ONCE],
        transport: Transport::Stdio,
        grade: control::grade_answered_once,
    },
    Check {
        id: "producer/control/response-shape",
        title: "a control response has a response object: subtype success, or error with an error string, and the request_id",
        rules: &[&rpcspec_matcher::rules::CLAUDE_CONTROL_RESPONSE],
        transport: Transport::Stdio,
        grade: control::grade_reply_shape,
    },
    Check {
        id: "producer/control/unsupported",
        title: "a request whose subtype no one serves is answered with an error",
        rules: &[&R::CONTROL_UNSUPPORTED],
        transport: Transport::Stdio,
        grade: control::grade_unsupported,
    },
    Check {
        id: "producer/control/unsolicited",
        title: "no control response for a keep_alive, a cancel, an unknown type or an id never sent",
        rules: &[&R::CONTROL_UNSOLICITED],
        transport: Transport::Stdio,
        grade: control::grade_unsolicited,
    },
    Check {
        id: "producer/control/malformed",
        title: "a malformed control request costs that request alone: the session goes on",
        rules: &[&R::CONTROL_MALFORMED],
        transport: Transport::Stdio,
        grade: control::grade_malformed,
    },
    Check {
        id: "producer/http/status",
        title: "a valid request streams with status 200; a scenario that expects a failure may be refused first, with a JSON body",
        rules: &[&R::HTTP_STATUS],
        transport: Transport::Http,
        grade: grade::grade_status,
    },
    Check {
        id: "producer/http/content-type",
        title: "a stream is served as the profile's media type (events: application/x-ndjson)",
        rules: &[&R::HTTP_CONTENT_TYPE],
        transport: Transport::Http,
        grade: grade::grade_content_type,
    },
    Check {
        id: "producer/http/bad-request",
        title: "a request the endpoint cannot serve is refused before the stream: 4xx with a JSON error body",
        rules: &[&R::HTTP_BAD_REQUEST],
        transport: Transport::Http,
        grade: grade::grade_bad_request,
    },
];

impl Check {
    /// Where its rules come from, each section once, for a run under the
    /// profile named `profile`: the lifecycle rules the `events` profile
    /// defines are the profile's own under another (`claude profile`).
    pub fn section(&self, profile: &str) -> String {
        let mut sections: Vec<String> = Vec::new();
        for rule in self.rules {
            let section = match rule.section {
                "events profile" => format!("{profile} profile"),
                other => other.to_owned(),
            };
            if !sections.contains(&section) {
                sections.push(section);
            }
        }
        sections.join("; ")
    }
}

/// A producer case: one check, run under each of the profile's scenarios.
#[derive(Debug, Clone)]
pub struct ProducerCase {
    /// What the case says of itself: the check's id, title and level, the
    /// sections of its rules under the profile's name.
    pub meta: Meta,
    check: &'static Check,
    scenarios: Vec<String>,
}

impl ProducerCase {
    /// As `rpcspec list` shows it.
    pub fn listing(&self) -> Listing {
        self.meta.listing(self.scenarios.clone())
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
            meta: Meta {
                id: check.id.to_owned(),
                title: check.title.to_owned(),
                section: check.section(&profile.name),
                level: check.rules[0].level,
                requires: match check.transport {
                    Transport::Http => vec!["http".to_owned()],
                    Transport::Stdio => vec!["stdio".to_owned()],
                    Transport::Any => Vec::new(),
                },
                // The checks are code, not a case file.
                source: Location {
                    file: "crates/runner/src/producer/mod.rs".into(),
                    line: 0,
                    column: 0,
                },
            },
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
) -> Produced {
    let transport = source.transport();
    let cases: Vec<&ProducerCase> = cases
        .iter()
        .filter(|c| c.check.transport == Transport::Any || c.check.transport == transport)
        .collect();
    let observed = crate::run_parallel(&profile.scenarios, jobs, progress, |scenario| {
        observe::observe(profile, scenario, source, limits, budget)
    });
    // A command that wrote nothing in any run, and outlived its input in
    // each: one block says so, not a FAIL per check.
    let mut halt = None;
    if !observed.is_empty()
        && observed.iter().all(|o| {
            o.http.is_none()
                && o.error.is_none()
                && o.received.bytes() == 0
                && (o.timed_out || o.lingered)
        })
    {
        halt = Some(Halt {
            verdict: Verdict::Timeout,
            message: format!(
                "the producer wrote nothing to stdout in any of its {} runs, and was still running \
                 after its input ended (start-up limit {:?}, --startup-timeout): does it read its \
                 input from stdin, in this profile's form? does it flush stdout after each record?",
                observed.len(),
                limits.startup
            ),
        });
    }
    let mut results = Vec::new();
    for case in cases {
        for (scenario, obs) in profile.scenarios.iter().zip(&observed) {
            let mut result = grade(case.check, profile, scenario, obs, budget);
            result.fit(budget);
            results.push(result);
        }
    }
    if let Some(halt) = &halt {
        results.iter_mut().for_each(|r| halt.apply(r));
    }
    Produced { results, halt }
}

/// What [`run`] hands back.
#[derive(Debug)]
pub struct Produced {
    /// Every (check, scenario) result, check by check.
    pub results: Vec<CaseResult>,
    /// Why the results are all one TIMEOUT, when the command wrote nothing.
    pub halt: Option<Halt>,
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
        check.section(&profile.name),
    );
    result.exit = obs.exit.clone();
    result.duration = obs.duration;
    result.evidence = evidence(check, profile, scenario, obs);
    if let Some(why) = &obs.flood {
        result.evidence.push(Evidence::flood(why.clone(), budget));
    }
    result.settle();
    // The run's bytes go with every result that judged it (`-v` shows a
    // pass's traffic too), each cut to its share of the budget by `fit`.
    if result.verdict != Verdict::Skipped {
        result.sent = obs.sent.clone();
        result.received = obs.received.list().to_vec();
        result.stderr = obs.stderr.clone();
        if obs.received.omitted() > 0 {
            result.evidence.push(Evidence::note(
                Verdict::Pass,
                format!(
                    "{} more lines were graded but are not shown (over 2000 lines or 1 MiB)",
                    obs.received.omitted()
                ),
            ));
        }
    }
    result
}

/// Whether `check` judges the records of a stream (and so has nothing to
/// pass on a stream of none), not the process's exit or the HTTP head.
fn judges_records(check: &Check) -> bool {
    !(check.id.starts_with("producer/http/") || check.id == "producer/lifecycle/exit-status")
}

/// What a run without records showed instead.
fn nothing_seen(obs: &Observation) -> String {
    if obs.received.bytes() == 0 {
        "its stdout (or body) was empty".to_owned()
    } else {
        format!("its {} bytes held no JSON record", obs.received.bytes())
    }
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
        // A check of records that saw none has nothing to pass.
        Grade::Findings(findings)
            if findings.is_empty() && obs.records.is_empty() && judges_records(check) =>
        {
            return vec![Evidence::note(
                Verdict::Skipped,
                format!("no record from the producer: {}", nothing_seen(obs)),
            )];
        }
        Grade::Findings(findings) => findings
            .into_iter()
            .map(|(rule, message)| Evidence::broke(rule, message))
            .collect(),
    };
    // A run cut short by the deadline is a timeout for every check that
    // needed the rest of the stream.
    if obs.timed_out && check.id != "producer/lifecycle/streams" {
        // Over stdio, a stream that never began had the start-up time.
        let message =
            if obs.http.is_none() && obs.received.list().is_empty() && obs.records.is_empty() {
                format!(
                    "nothing on stdout within the start-up time ({:.1}s, --startup-timeout){}",
                    obs.startup.as_secs_f64(),
                    if profile.stdin_open {
                        format!(
                            ", nor {:.1}s after stdin was closed",
                            obs.timeout.as_secs_f64()
                        )
                    } else {
                        String::new()
                    }
                )
            } else {
                format!(
                    "the deadline ({:.1}s) passed before the stream ended",
                    obs.timeout.as_secs_f64()
                )
            };
        out.push(Evidence::note(Verdict::Timeout, message));
    }
    out
}
