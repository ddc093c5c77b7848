//! The producer checks: each a pure function of one [`Observation`] (what a
//! run wrote, when, and how it ended), so they are unit-tested without
//! spawning anything.

use std::time::Duration;

use rpcspec_framer::ProblemKind;
use serde_json::Value;

use super::{
    Grade, Profile, Scenario,
    observe::{Gate, Observation, Problem, Record},
};
use crate::{
    drive::EXIT_GRACE,
    http::{BodyEnd, BodyFraming},
    pattern::Match,
    rules::{self as R, Rule},
    target::describe_exit,
};

/// Findings that break `rule`; none is a pass.
pub(super) fn findings(rule: &'static Rule, list: Vec<String>) -> Grade {
    Grade::Findings(list.into_iter().map(|m| (rule, m)).collect())
}

pub(super) fn clip(text: &str) -> String {
    const MAX: usize = 200;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Whether an HTTP run failed before its stream (no records expected).
pub(super) fn refused(obs: &Observation) -> bool {
    obs.http.as_ref().is_some_and(|h| h.status != 200)
}

pub(super) fn grade_json_lines(_: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    if refused(obs) {
        return Grade::NotApplicable("the request was refused before the stream".into());
    }
    findings(
        &R::JSON_PARSE,
        obs.non_json
            .iter()
            .map(|(line, offset, text)| {
                format!("line {line} (byte {offset}) is not JSON: {}", clip(text))
            })
            .collect(),
    )
}

pub(super) fn grade_one_line(_: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    findings(&R::FRAMING_MULTI_LINE,
        obs.records
            .iter()
            .filter_map(|r| {
                let last = r.last_line?;
                Some(format!(
                    "lines {}-{last} (byte {}) are one record written over {} lines (pretty-printed)",
                    r.line,
                    r.offset,
                    last - r.line + 1
                ))
            })
            .collect(),
    )
}

fn problems<'a>(
    obs: &'a Observation,
    pick: impl Fn(&ProblemKind) -> bool + 'a,
) -> impl Iterator<Item = &'a Problem> + 'a {
    obs.problems.iter().filter(move |p| pick(&p.kind))
}

pub(super) fn grade_terminated(_: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    Grade::Findings(
        problems(obs, |k| {
            matches!(
                k,
                ProblemKind::Truncated | ProblemKind::RecordCut | ProblemKind::OutsideRecord
            ) || matches!(
                k,
                ProblemKind::Overlong {
                    terminated: false,
                    ..
                }
            )
        })
        .map(|p| match p.kind {
            ProblemKind::Truncated | ProblemKind::Overlong { .. } => (
                &R::FRAMING_UNTERMINATED,
                format!(
                    "the stream ends with {} bytes after its last \\n (line {}, byte {})",
                    p.len, p.line, p.offset
                ),
            ),
            _ => (
                &R::FRAMING_RECORD,
                format!(
                    "record at byte {} is not delimited as RFC 7464 requires ({} bytes)",
                    p.offset, p.len
                ),
            ),
        })
        .collect(),
    )
}

pub(super) fn grade_utf8(_: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    findings(
        &R::FRAMING_UTF8,
        problems(obs, |k| matches!(k, ProblemKind::InvalidUtf8 { .. }))
            .map(|p| match p.kind {
                ProblemKind::InvalidUtf8 { valid_up_to } => format!(
                    "line {} is not UTF-8: bad byte at {}",
                    p.line,
                    p.offset + valid_up_to as u64
                ),
                _ => unreachable!("filtered"),
            })
            .collect(),
    )
}

pub(super) fn grade_clean(_: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    Grade::Findings(
        problems(obs, |k| matches!(k, ProblemKind::Blank | ProblemKind::Bom))
            .map(|p| match p.kind {
                ProblemKind::Bom => (
                    &R::FRAMING_BOM,
                    format!("line {} starts with a byte order mark", p.line),
                ),
                _ => (
                    &R::FRAMING_BLANK_LINE,
                    format!("line {} (byte {}) is blank", p.line, p.offset),
                ),
            })
            .collect(),
    )
}

pub(super) fn kind_of<'a>(profile: &Profile, r: &'a Record) -> Option<&'a str> {
    profile.kind_of(&r.value)
}

/// The end record, when the stream has one and it reports a failure.
pub(super) fn failed_end<'a>(profile: &Profile, obs: &'a Observation) -> Option<&'a Record> {
    let end = &obs.records[obs.end_index?];
    profile
        .reports_failure(&end.value, &end.text)
        .then_some(end)
}

pub(super) fn grade_type(profile: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    findings(
        &R::EVENTS_TYPE,
        obs.records
            .iter()
            .filter(|r| kind_of(profile, r).is_none())
            .map(|r| {
                let why = match &r.value {
                    Value::Object(m) => match m.get(&profile.type_field) {
                        None => format!("has no `{}` member", profile.type_field),
                        Some(v) => format!("has `{}`: {v}, not a string", profile.type_field),
                    },
                    _ => "is not an object".to_owned(),
                };
                format!("record at line {} {why}: {}", r.line, clip(&r.text))
            })
            .collect(),
    )
}

pub(super) fn grade_shape(profile: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    if profile.records.is_empty() {
        return Grade::NotApplicable("the profile declares no record shapes".into());
    }
    // Records of one type that miss their shape the same way are one
    // finding (a stream has hundreds of tokens): (type, why, lines, first).
    let mut groups: Vec<(&str, String, Vec<u64>, &Record)> = Vec::new();
    for r in &obs.records {
        let Some(kind) = kind_of(profile, r) else {
            continue;
        };
        // The error record has its own check.
        if profile.error.as_deref() == Some(kind) {
            continue;
        }
        let Some(Match::No(why)) = profile.shape(kind).map(|p| p.matches(&r.text)) else {
            continue;
        };
        match groups.iter_mut().find(|g| g.0 == kind && g.1 == why) {
            Some(g) => g.2.push(r.line),
            None => groups.push((kind, why, vec![r.line], r)),
        }
    }
    findings(
        &R::EVENTS_SHAPE,
        groups
            .into_iter()
            .map(|(kind, why, lines, first)| match lines.as_slice() {
                [line] => format!(
                    "`{kind}` record at line {line}: {why}: {}",
                    clip(&first.text)
                ),
                _ => format!(
                    "{} `{kind}` records (lines {}): {why}; the first: {}",
                    lines.len(),
                    line_list(&lines),
                    clip(&first.text)
                ),
            })
            .collect(),
    )
}

/// Line numbers as `2-10, 14`: runs of consecutive lines joined, at most
/// ten runs shown.
fn line_list(lines: &[u64]) -> String {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &l in lines {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == l => *end = l,
            _ => runs.push((l, l)),
        }
    }
    let shown: Vec<String> = runs
        .iter()
        .take(10)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let more = if runs.len() > 10 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

pub(super) fn last_seen(obs: &Observation) -> String {
    match obs.records.last() {
        Some(r) => format!("last record (line {}): {}", r.line, clip(&r.text)),
        None => "no record at all".to_owned(),
    }
}

/// Whether a record is of the control protocol, not of a turn.
fn protocol(profile: &Profile, r: &Record) -> bool {
    profile
        .control
        .as_ref()
        .is_some_and(|c| kind_of(profile, r).is_some_and(|k| c.protocol.iter().any(|p| p == k)))
}

/// Why a scenario without a turn has no lifecycle to grade.
fn no_turn(scenario: &Scenario) -> Option<Grade> {
    (!scenario.turn).then(|| {
        Grade::NotApplicable("the scenario sends no turn: no start or end record is due".into())
    })
}

pub(super) fn grade_start(profile: &Profile, scenario: &Scenario, obs: &Observation) -> Grade {
    let Some(start) = &profile.start else {
        return Grade::NotApplicable("the profile has no start record".into());
    };
    if refused(obs) {
        return Grade::NotApplicable("the request was refused before the stream".into());
    }
    if let Some(na) = no_turn(scenario) {
        return na;
    }
    // The control protocol's records may come first: an SDK's `initialize`
    // is answered before the turn's start record.
    let records: Vec<&Record> = obs
        .records
        .iter()
        .filter(|r| !protocol(profile, r))
        .collect();
    let Some(&first) = records.first() else {
        return findings(
            &R::EVENTS_START,
            vec![format!("no record at all; expected `{start}` first")],
        );
    };
    let mut out = Vec::new();
    match kind_of(profile, first) {
        Some(k) if k == start => {
            if let Some(Match::No(why)) = profile.shape(start).map(|p| p.matches(&first.text)) {
                out.push(format!(
                    "the start record lacks its metadata: {why}: {}",
                    clip(&first.text)
                ));
            }
        }
        _ => out.push(format!(
            "the first record (line {}) is not `{start}`: {}",
            first.line,
            clip(&first.text)
        )),
    }
    if let Some(again) = records[1..]
        .iter()
        .find(|r| kind_of(profile, r) == Some(start.as_str()))
        && profile.control.is_none()
    {
        out.push(format!("a second `{start}` record at line {}", again.line));
    }
    findings(&R::EVENTS_START, out)
}

pub(super) fn grade_interrupted(
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
) -> Grade {
    if refused(obs) {
        return Grade::NotApplicable("the request was refused before the stream".into());
    }
    if let Some(na) = no_turn(scenario) {
        return na;
    }
    if obs.end_index.is_some() {
        return findings(&R::EVENTS_INTERRUPTED, Vec::new());
    }
    let tail = obs
        .problems
        .iter()
        .find(|p| matches!(p.kind, ProblemKind::Truncated))
        .map_or(String::new(), |p| {
            format!("; an unterminated tail of {} bytes", p.len)
        });
    let how = if let Some(h) = &obs.http {
        match &h.end {
            BodyEnd::Complete => "the response body ended".to_owned(),
            BodyEnd::Cut(e) => format!("the connection broke ({e})"),
            BodyEnd::Timeout => "the deadline passed".to_owned(),
            BodyEnd::Stopped => "rpcspec stopped reading".to_owned(),
        }
    } else if obs.timed_out {
        "the deadline passed".to_owned()
    } else if let Some(exit) = &obs.exit {
        format!("the process exited ({exit})")
    } else {
        "stdout closed".to_owned()
    };
    findings(
        &R::EVENTS_INTERRUPTED,
        vec![format!(
            "interrupted: {how} without an end record ({}); {}{tail}",
            profile.end.join(" or "),
            last_seen(obs)
        )],
    )
}

pub(super) fn grade_after_end(profile: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    let Some(end) = obs.end_index else {
        return Grade::NotApplicable("the stream has no end record".into());
    };
    let end_line = obs.records[end].last_line.unwrap_or(obs.records[end].line);
    // The control protocol is not part of the turn: an answer may follow it.
    let mut out: Vec<String> = obs.records[end + 1..]
        .iter()
        .filter(|r| !protocol(profile, r))
        .map(|r| format!("line {} follows the end record: {}", r.line, clip(&r.text)))
        .collect();
    out.extend(
        obs.non_json
            .iter()
            .filter(|(line, _, _)| *line > end_line)
            .map(|(line, _, text)| format!("line {line} follows the end record: {}", clip(text))),
    );
    findings(&R::EVENTS_AFTER_END, out)
}

pub(super) fn grade_error_record(profile: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    let Some(error) = &profile.error else {
        return Grade::NotApplicable("the profile has no error record".into());
    };
    let errors: Vec<&Record> = obs
        .records
        .iter()
        .filter(|r| kind_of(profile, r) == Some(error.as_str()))
        .collect();
    if errors.is_empty() {
        return Grade::NotApplicable(format!("no `{error}` record in this stream"));
    }
    let Some(shape) = profile.shape(error) else {
        return Grade::NotApplicable(format!("the profile declares no shape for `{error}`"));
    };
    findings(
        &R::EVENTS_ERROR_RECORD,
        errors
            .iter()
            .filter_map(|r| match shape.matches(&r.text) {
                Match::No(why) => Some(format!(
                    "`{error}` record at line {}: {why}: {}",
                    r.line,
                    clip(&r.text)
                )),
                _ => None,
            })
            .collect(),
    )
}

pub(super) fn grade_expected_end(
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
) -> Grade {
    let Some(want) = &scenario.end else {
        return Grade::NotApplicable("the scenario accepts any end record".into());
    };
    // Over HTTP a failure may be reported before the stream instead.
    if let Some(h) = &obs.http
        && h.status != 200
    {
        return findings(
            &R::EVENTS_EXPECTED_END,
            if profile.error.as_ref() == Some(want) {
                Vec::new()
            } else {
                vec![format!(
                    "refused with {} where the stream must end with `{want}`",
                    h.status_line
                )]
            },
        );
    }
    let Some(end) = obs.end_index else {
        return Grade::NotApplicable("the stream has no end record".into());
    };
    let got = kind_of(profile, &obs.records[end]).unwrap_or_default();
    findings(
        &R::EVENTS_EXPECTED_END,
        if got == want {
            Vec::new()
        } else {
            vec![format!(
                "the stream ends with `{got}` (line {}) where this scenario must end with `{want}`: {}",
                obs.records[end].line,
                clip(&obs.records[end].text)
            )]
        },
    )
}

pub(super) fn grade_exit(profile: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    if obs.lingered {
        return findings(
            &R::PROCESS_EXIT_ON_EOF,
            vec![format!(
                "the process did not exit within {:.1}s of its stdin closing ({}s, or twice the \
                 time to its first byte if longer)",
                obs.exit_grace.as_secs_f64(),
                EXIT_GRACE.as_secs_f64()
            )],
        );
    }
    let Some(status) = obs.status else {
        return Grade::NotApplicable("the process did not exit before the deadline".into());
    };
    // A failure reported by the end record may be followed by a non-zero
    // exit: that is consistent, not a finding.
    let ended_ok = obs.end_index.is_some() && failed_end(profile, obs).is_none();
    findings(
        &R::PROCESS_EXIT_STATUS,
        if ended_ok && !status.success() {
            vec![format!(
                "the stream ended well but the process then ended with {}",
                describe_exit(status)
            )]
        } else if status.code().is_none() {
            vec![format!("the process was {}", describe_exit(status))]
        } else {
            Vec::new()
        },
    )
}

pub(super) fn grade_streams(profile: &Profile, scenario: &Scenario, obs: &Observation) -> Grade {
    // Answers to control requests sent at once come at once, and stdin
    // closes (so the process exits) as the last arrives: no turn, no
    // stream to hold back (seen on the real CLI, one run in three).
    if let Some(na) = no_turn(scenario) {
        return na;
    }
    if let Some(h) = &obs.http {
        if h.status != 200 {
            return Grade::NotApplicable("the request was refused before the stream".into());
        }
        if obs.records.len() < 2 {
            return Grade::NotApplicable("fewer than two records: nothing to hold back".into());
        }
        let first = obs.records[0].piece;
        let last = obs.records[obs.records.len() - 1].piece;
        return findings(
            &R::EVENTS_HELD_BACK,
            match h.framing {
                BodyFraming::Length(n) => vec![format!(
                    "the body was sent with Content-Length: {n}: sized, so buffered whole before the first byte was sent"
                )],
                // Chunks are the server's flushes; reads of an unframed body
                // are TCP's, which may merge fast writes: judged on chunks only.
                BodyFraming::Chunked if first == last => vec![format!(
                    "all {} records arrived in one chunk (of {}): the stream was buffered, not written as produced",
                    obs.records.len(),
                    h.pieces
                )],
                _ => Vec::new(),
            },
        );
    }
    // A turn that failed at once (Claude Code without a login writes its
    // init, the error and the result in one go and exits) is an error
    // report, not a stream held back: seen on the real CLI, one run in three.
    if let Some(why) = held_until_exit(obs)
        && failed_end(profile, obs).is_none()
    {
        return findings(&R::EVENTS_HELD_BACK, vec![why]);
    }
    match obs.gate.unwrap_or_default() {
        Gate::NotUsed => Grade::NotApplicable(
            "the profile closes stdin after the input: holding back is not observable".into(),
        ),
        Gate::Passed => findings(&R::EVENTS_HELD_BACK, Vec::new()),
        Gate::Held => findings(
            &R::EVENTS_HELD_BACK,
            vec![format!(
                "nothing on stdout within the start-up time ({:.1}s, --startup-timeout) with stdin open; once stdin \
             closed the whole stream arrived: records were held back (a buffered stdout, or waiting for EOF)",
                obs.startup.as_secs_f64()
            )],
        ),
        Gate::NeverEnded => {
            Grade::NotApplicable("the stream did not end even after stdin closed".into())
        }
    }
}

/// A stream that took [`HELD_SPAN`] or more yet came in one read, as the
/// process exited: what a block-buffered stdout does (Python's `print` to
/// a pipe, C's stdio), whatever the start-up. A slow starter that then
/// streams comes in many reads and is not held back.
const HELD_SPAN: Duration = Duration::from_millis(100);

/// How close to the exit the one read must be to have come with it.
const AT_EXIT: Duration = Duration::from_millis(250);

fn held_until_exit(obs: &Observation) -> Option<String> {
    let (first, last) = (obs.records.first()?, obs.records.last()?);
    let span = Duration::from_millis(last.at_ms);
    let with_exit =
        obs.status.is_some() && obs.stdout_closed && obs.duration.saturating_sub(span) <= AT_EXIT;
    (obs.records.len() >= 2 && first.piece == last.piece && span >= HELD_SPAN && with_exit).then(
        || {
            format!(
                "all {} records arrived in one read {} ms after the start, as the process exited: \
                 they were held back until exit (a block-buffered stdout, such as Python's print \
                 to a pipe: flush after each record, or run it unbuffered)",
                obs.records.len(),
                last.at_ms
            )
        },
    )
}

fn is_json_object(body: &[u8]) -> bool {
    matches!(serde_json::from_slice::<Value>(body), Ok(Value::Object(_)))
}

pub(super) fn grade_status(profile: &Profile, scenario: &Scenario, obs: &Observation) -> Grade {
    let Some(h) = &obs.http else {
        return Grade::NotApplicable("not an HTTP run".into());
    };
    // Only a scenario that expects a failure may be refused: the others
    // send a request the profile calls valid.
    let failing = scenario.end.is_some() && scenario.end == profile.error;
    let body = || clip(&String::from_utf8_lossy(&h.body));
    findings(
        &R::HTTP_STATUS,
        match h.status {
            200 => Vec::new(),
            400..=599 if failing => {
                if is_json_object(&h.body) {
                    Vec::new()
                } else {
                    vec![format!(
                        "{}: a refusal needs a JSON error body, got: {}",
                        h.status_line,
                        body()
                    )]
                }
            }
            401 | 403 | 407 => vec![format!(
                "{} for a valid request: the endpoint wants credentials rpcspec does not send \
             (test an endpoint that needs none, or a local one); body: {}",
                h.status_line,
                body()
            )],
            _ => vec![format!(
                "{} where a valid request must stream with 200; body: {}",
                h.status_line,
                body()
            )],
        },
    )
}

pub(super) fn grade_content_type(profile: &Profile, _: &Scenario, obs: &Observation) -> Grade {
    let Some(h) = &obs.http else {
        return Grade::NotApplicable("not an HTTP run".into());
    };
    if h.status != 200 {
        return Grade::NotApplicable("the request was refused before the stream".into());
    }
    let ty = h.content_type.as_deref().unwrap_or("");
    let essence = ty
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    findings(
        &R::HTTP_CONTENT_TYPE,
        if profile.content_types.contains(&essence) {
            Vec::new()
        } else if essence.is_empty() {
            vec![format!(
                "no Content-Type (a stream is served as {})",
                profile.content_types.join(", ")
            )]
        } else {
            vec![format!(
                "Content-Type `{ty}` is not {}",
                profile.content_types.join(" or ")
            )]
        },
    )
}

pub(super) fn grade_bad_request(
    profile: &Profile,
    scenario: &Scenario,
    obs: &Observation,
) -> Grade {
    let Some(bad) = &profile.bad_request else {
        return Grade::NotApplicable("the profile declares no bad request".into());
    };
    let Some(h) = &obs.http else {
        return Grade::NotApplicable("not an HTTP run".into());
    };
    // The same request for every scenario: graded once, on the first.
    if profile
        .scenarios
        .first()
        .is_some_and(|s| s.name != scenario.name)
    {
        return Grade::NotApplicable(format!(
            "graded under the first scenario, `{}`",
            profile.scenarios[0].name
        ));
    }
    findings(
        &R::HTTP_BAD_REQUEST,
        match &h.bad {
            None => Vec::new(),
            Some(Err(e)) => vec![format!("POST {bad}: {e}")],
            Some(Ok((status, ty, body))) => {
                let mut out = Vec::new();
                if *status == 200 {
                    out.push(format!(
                    "POST {bad}: streamed with status 200 ({}); a bad request is refused before the stream, with a 4xx",
                    clip(&String::from_utf8_lossy(body))
                ));
                } else if !(400..500).contains(status) {
                    out.push(format!("POST {bad}: status {status}, not 4xx"));
                }
                if *status != 200 && !is_json_object(body) {
                    out.push(format!(
                        "POST {bad}: the error body is not a JSON object ({}): {}",
                        ty.as_deref().unwrap_or("no Content-Type"),
                        clip(&String::from_utf8_lossy(body))
                    ));
                }
                out
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(line: u64, text: &str) -> Record {
        Record {
            line,
            offset: 0,
            text: text.to_owned(),
            value: serde_json::from_str(text).expect("json"),
            last_line: None,
            at_ms: 0,
            piece: 0,
        }
    }

    #[test]
    fn records_that_miss_their_shape_alike_are_one_finding() {
        let profile = Profile::named("events").expect("shipped");
        let mut obs = Observation::default();
        obs.records.push(record(
            1,
            r#"{"type":"start","data":{"request_id":"r","model":"m"}}"#,
        ));
        for line in 2..=5 {
            obs.records
                .push(record(line, r#"{"type":"token","text":"x"}"#));
        }
        obs.records
            .push(record(6, r#"{"type":"token","data":{"content":1}}"#));
        obs.records
            .push(record(7, r#"{"type":"token","text":"y"}"#));
        let Grade::Findings(found) = grade_shape(&profile, &profile.scenarios[0], &obs) else {
            panic!("applies");
        };
        assert!(found.iter().all(|(rule, _)| rule.id == "events.shape"));
        let found: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(
            found,
            [
                r#"5 `token` records (lines 2-5, 7): .data: missing, expected {"content":"$string"}; the first: {"type":"token","text":"x"}"#,
                r#"`token` record at line 6: .data.content: expected $string, got 1: {"type":"token","data":{"content":1}}"#,
            ]
        );
    }

    #[test]
    fn line_lists_join_runs_and_stop_at_ten() {
        assert_eq!(line_list(&[2, 3, 4, 9]), "2-4, 9");
        let many: Vec<u64> = (1..=40).step_by(2).collect();
        assert_eq!(line_list(&many), "1, 3, 5, 7, 9, 11, 13, 15, 17, 19, …");
    }
}
