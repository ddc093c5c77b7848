//! The control protocol checks (Claude Code's `control_request` and
//! `control_response`, docs/agents.md): what the producer asks its host
//! during a turn, and how it answers what the host asks it. Pure functions
//! of a run, as the other checks are.

use serde_json::Value;

use super::{
    Grade, Profile, Scenario,
    grade::{clip, failed_end, findings, last_seen},
    observe::{Observation, Record},
};
use crate::rules as R;

pub(super) fn grade_control(profile: &Profile, scenario: &Scenario, obs: &Observation) -> Grade {
    let Some(control) = &profile.control else {
        return Grade::NotApplicable("the profile has no control protocol".into());
    };
    if obs.controls.is_empty()
        && let Some(off) = &obs.control_off
    {
        return Grade::NotApplicable(off.clone());
    }
    if scenario.answer.is_none() {
        return if obs.controls.is_empty() {
            Grade::NotApplicable("the scenario needs no control request".into())
        } else {
            findings(
                &R::EVENTS_CONTROL_ANSWERED,
                vec![format!(
                    "a `{}` the scenario does not expect (line {}): unanswered",
                    control.request, obs.records[obs.controls[0].0].line
                )],
            )
        };
    }
    let Some(&(index, answered)) = obs.controls.first() else {
        if let Some(end) = failed_end(profile, obs) {
            return Grade::NotApplicable(format!(
                "the turn failed before any `{}` (line {}): {}",
                control.request,
                end.line,
                clip(&end.text)
            ));
        }
        return findings(
            &R::EVENTS_CONTROL_ANSWERED,
            vec![format!(
                "no `{}` record: the scenario needs one; {}",
                control.request,
                last_seen(obs)
            )],
        );
    };
    let record = &obs.records[index];
    if !answered {
        return findings(
            &R::EVENTS_CONTROL_ANSWERED,
            vec![format!(
                "`{}` at line {} has no `{}` member to answer by: {}",
                control.request,
                record.line,
                control.id,
                clip(&record.text)
            )],
        );
    }
    findings(
        &R::EVENTS_CONTROL_ANSWERED,
        match obs.end_index {
            Some(end) if end > index => Vec::new(),
            _ => vec![format!(
                "answered the `{}` at line {}, but the stream did not go on to its end; {}",
                control.request,
                record.line,
                last_seen(obs)
            )],
        },
    )
}

/// The producer's answers to the runner's control requests, with the id
/// each answers (none if it carries none).
fn replies<'o>(profile: &Profile, obs: &'o Observation) -> Vec<(&'o Record, Option<&'o Value>)> {
    let Some(reply) = profile.control.as_ref().and_then(|c| c.reply.as_deref()) else {
        return Vec::new();
    };
    obs.records
        .iter()
        .filter(|r| profile.kind_of(&r.value) == Some(reply))
        .map(|r| (r, profile.reply_id(&r.value)))
        .collect()
}

/// The input lines up to the first malformed control request: what comes
/// after one is `producer/control/malformed`'s.
fn before_malformed(scenario: &Scenario) -> usize {
    scenario
        .requests
        .iter()
        .find(|r| !r.well_formed)
        .map_or(usize::MAX, |r| r.line)
}

fn id_text(id: &Value) -> String {
    clip(&id.to_string())
}

/// Why a run ended, for a request left unanswered.
fn how_it_ended(obs: &Observation) -> String {
    if obs.timed_out {
        format!("the deadline ({}s) passed", obs.timeout.as_secs_f64())
    } else if let Some(exit) = &obs.exit {
        format!("the process exited ({exit})")
    } else {
        "stdout closed".to_owned()
    }
}

pub(super) fn grade_answered_once(
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
) -> Grade {
    let upto = before_malformed(scenario);
    let due: Vec<_> = scenario
        .requests
        .iter()
        .filter(|r| r.well_formed && r.line < upto)
        .collect();
    if due.is_empty() {
        return Grade::NotApplicable("the scenario sends no control request".into());
    }
    let replies = replies(profile, obs);
    let mut out = Vec::new();
    for r in due {
        let Some(id) = &r.id else { continue };
        let lines: Vec<u64> = replies
            .iter()
            .filter(|(_, answered)| *answered == Some(id))
            .map(|(rec, _)| rec.line)
            .collect();
        let subtype = r.subtype.as_deref().unwrap_or("?");
        match lines.len() {
            1 => {}
            0 => out.push(format!(
                "the `{subtype}` request {} (input line {}) got no answer: {}; {}",
                id_text(id),
                r.line + 1,
                how_it_ended(obs),
                last_seen(obs)
            )),
            n => out.push(format!(
                "the `{subtype}` request {} (input line {}) was answered {n} times, at lines {:?}",
                id_text(id),
                r.line + 1,
                lines
            )),
        }
    }
    findings(&R::CONTROL_ANSWERED_ONCE, out)
}

pub(super) fn grade_reply_shape(profile: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    let replies = replies(profile, obs);
    if replies.is_empty() {
        return Grade::NotApplicable("no control response in this stream".into());
    }
    let mut out = Vec::new();
    for (r, id) in replies {
        let response = r.value.get("response");
        let problem = match (response, id) {
            (Some(Value::Object(_)), Some(Value::String(_))) => {
                match response
                    .and_then(|v| v.get("subtype"))
                    .and_then(Value::as_str)
                {
                    Some("success") => None,
                    Some("error")
                        if response
                            .and_then(|v| v.get("error"))
                            .is_some_and(Value::is_string) =>
                    {
                        None
                    }
                    Some("error") => Some("an `error` response has no string `error`"),
                    _ => Some("`response.subtype` is neither \"success\" nor \"error\""),
                }
            }
            (Some(Value::Object(_)), _) => Some("`response.request_id` is not a string"),
            _ => Some("`response` is not an object"),
        };
        if let Some(problem) = problem {
            out.push(format!("line {}: {problem}: {}", r.line, clip(&r.text)));
        }
    }
    findings(&rpcspec_matcher::rules::CLAUDE_CONTROL_RESPONSE, out)
}

pub(super) fn grade_unsupported(
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
) -> Grade {
    if scenario.errors.is_empty() {
        return Grade::NotApplicable("the scenario sends no request that no one serves".into());
    }
    let replies = replies(profile, obs);
    let mut out = Vec::new();
    for e in &scenario.errors {
        let id = Value::String(e.clone());
        // Unanswered is `producer/control/answered-once`'s.
        for (r, _) in replies
            .iter()
            .filter(|(_, answered)| *answered == Some(&id))
        {
            // A subtype that is neither is `producer/control/response-shape`'s.
            if r.value.pointer("/response/subtype").and_then(Value::as_str) == Some("success") {
                out.push(format!(
                    "the request {} names a subtype no one serves, and line {} answers it with `success`: {}",
                    id_text(&id),
                    r.line,
                    clip(&r.text)
                ));
            }
        }
    }
    findings(&R::CONTROL_UNSUPPORTED, out)
}

pub(super) fn grade_unsolicited(
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
) -> Grade {
    if profile.control.as_ref().is_none_or(|c| c.reply.is_none()) {
        return Grade::NotApplicable("the profile names no reply type".into());
    }
    if scenario.turn {
        return Grade::NotApplicable("the scenario is a turn: its answers are the turn's".into());
    }
    let sent: Vec<&Value> = scenario
        .requests
        .iter()
        .filter_map(|r| r.id.as_ref())
        .collect();
    findings(
        &R::CONTROL_UNSOLICITED,
        replies(profile, obs)
            .into_iter()
            .filter(|(_, id)| id.is_none_or(|id| !sent.contains(&id)))
            .map(|(r, id)| {
                format!(
                    "line {} answers {}, which no control request sent carries: {}",
                    r.line,
                    id.map_or("no id".to_owned(), id_text),
                    clip(&r.text)
                )
            })
            .collect(),
    )
}

pub(super) fn grade_malformed(profile: &Profile, scenario: &Scenario, obs: &Observation) -> Grade {
    let Some(bad) = scenario.requests.iter().find(|r| !r.well_formed) else {
        return Grade::NotApplicable("the scenario sends no malformed control request".into());
    };
    let replies = replies(profile, obs);
    // A producer that answers nothing at all is `answered-once`'s: this
    // check needs the requests before the malformed one answered.
    let answers = |r: &&crate::producer::profile::Request| {
        r.id.as_ref()
            .is_some_and(|id| replies.iter().any(|(_, answered)| *answered == Some(id)))
    };
    let before: Vec<_> = scenario
        .requests
        .iter()
        .filter(|r| r.well_formed && r.line < bad.line)
        .collect();
    if before.is_empty() || !before.iter().all(answers) {
        return Grade::NotApplicable(
            "the requests before the malformed one were not all answered (`producer/control/answered-once`)"
                .into(),
        );
    }
    let unanswered: Vec<String> = scenario
        .requests
        .iter()
        .filter(|r| r.well_formed && r.line > bad.line)
        .filter_map(|r| r.id.as_ref().map(|id| (r, id)))
        .filter(|(_, id)| !replies.iter().any(|(_, answered)| *answered == Some(*id)))
        .map(|(r, id)| {
            format!(
                "the `{}` request {} (input line {})",
                r.subtype.as_deref().unwrap_or("?"),
                id_text(id),
                r.line + 1
            )
        })
        .collect();
    let died = obs.status.is_some_and(|s| !s.success()) && !obs.timed_out;
    let after = format!(
        "the malformed request (input line {}: {})",
        bad.line + 1,
        clip(&scenario.input[bad.line])
    );
    let mut out = Vec::new();
    // One cause, one finding: a process that died took what came after.
    if died {
        let stderr = obs.stderr.lines().rev().find(|l| !l.trim().is_empty());
        let lost = if unanswered.is_empty() {
            String::new()
        } else {
            format!(", leaving unanswered {}", unanswered.join(", "))
        };
        out.push(format!(
            "the process ended with {} after {after}{lost}{}",
            obs.exit.as_deref().unwrap_or("an error"),
            stderr.map_or(String::new(), |l| format!("; stderr: {}", clip(l)))
        ));
    } else if !unanswered.is_empty() {
        out.push(format!(
            "after {after}, {} got no answer: {}",
            unanswered.join(", "),
            how_it_ended(obs)
        ));
    }
    findings(&R::CONTROL_MALFORMED, out)
}
