//! The client role's graders: pure functions of what one scenario showed
//! (what the client wrote to its server, what the script answered, what
//! the adapter reported, how it ended).

use std::{collections::HashMap, time::Duration};

use rpcspec_framer::ProblemKind;
use rpcspec_matcher::{Level, classify};
use serde_json::Value;

use super::{
    CALL_TIMEOUT, Decoy, Limits, Scenario, Step, StepKind, holds, pattern,
    script::{ASK_ID, Body, Log, Stop},
};
mod claude;
mod codex;
mod codex_exec;
mod lsp;
mod mcp;
mod twists;

pub(crate) use claude::claude_session;
pub(crate) use codex::host_session;
pub(crate) use codex_exec::exec_session;
pub(crate) use lsp::lsp_session;
pub(crate) use mcp::mcp_session;
pub(crate) use twists::twists;

use crate::{
    capture::Framing,
    report::{Evidence, FINDINGS_PER_RULE, RuleRef, Verdict},
    rules::{self, Rule},
};

/// What one scenario showed.
pub struct Observed<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The framing both sides spoke.
    pub framing: &'a Framing,
    /// What the scripted server did and saw (its log, not the script).
    pub log: &'a Log,
    /// Whether the client started its server (the peer connected).
    pub connected: bool,
    /// Whether the deadline passed first.
    pub timed_out: bool,
    /// How the adapter exited: its status code, and in words.
    pub exit: Option<(Option<i32>, String)>,
    /// The deadlines.
    pub limits: Limits,
    /// The adapter's report lines.
    pub reports: &'a [Vec<u8>],
    /// What was wrong with the framing of its stdout.
    pub report_problems: &'a [String],
    /// Every line the client wrote to its server.
    pub client_lines: &'a [Vec<u8>],
    /// Framing problems in what it wrote: kind, line, offset.
    pub client_problems: &'a [(ProblemKind, u64, u64)],
    /// MCP `twist = "network-ref"`: the connections to the canary, and the
    /// request lines of the first of them.
    pub canary: Option<(usize, &'a [String])>,
    /// How the server's process ended, as far as the client went.
    pub server_end: ServerEnd,
}

/// What rpcspec cannot see of a call's time, as its client measures it:
/// the request's way from the client through the peer to rpcspec, and the
/// answer's from rpcspec through the peer into the client's read. Each
/// takes microseconds on an idle machine and up to hundreds of
/// milliseconds on a loaded runner.
const UNSEEN: Duration = Duration::from_secs(1);

/// Whether a call rpcspec read at `asked`, answered by what the script
/// queued at `answered`, may have taken its client longer than the step's
/// [`CALL_TIMEOUT`]: the answer was queued later than the timeout less
/// [`UNSEEN`] after the request was read. A client may give up on such a
/// call; one that gives up on an answer queued sooner is graded.
pub(crate) fn late(asked: Duration, answered: Duration) -> bool {
    answered.saturating_sub(asked) + UNSEEN > CALL_TIMEOUT
}

/// How the server's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerEnd {
    /// The client closed its stdin.
    InputClosed,
    /// It ended with its stdin open: killed by the client.
    Killed,
    /// It was still running when the client had exited.
    Running,
}

/// What the adapter said its library returned for one step.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A result.
    Result(Value),
    /// An error object.
    Error(Value),
    /// A failure that is no JSON-RPC error (a timeout, a closed
    /// connection, an exception).
    Failed(String),
    /// The library cannot make this step.
    Skipped(String),
    /// A notification, sent.
    Sent,
}

impl Outcome {
    pub(crate) fn describe(&self) -> String {
        match self {
            Outcome::Result(v) => format!("result {}", short(v)),
            Outcome::Error(v) => format!("error {}", short(v)),
            Outcome::Failed(why) => format!("a failure ({why})"),
            Outcome::Skipped(why) => format!("skipped ({why})"),
            Outcome::Sent => "sent".to_owned(),
        }
    }
}

/// `v` as JSON, at most 200 characters of it.
pub(crate) fn short(v: &Value) -> String {
    let mut text = v.to_string();
    if text.len() > 200 {
        let mut cut = 160;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let total = text.len();
        text.truncate(cut);
        text.push_str(&format!("… ({total} bytes)"));
    }
    text
}

fn body_text(b: &Body) -> String {
    match b {
        Body::Result(v) => format!("result {}", short_bytes(v)),
        Body::Error(v) => format!("error {}", short_bytes(v)),
    }
}

fn short_bytes(b: &[u8]) -> String {
    match serde_json::from_slice::<Value>(b) {
        Ok(v) => short(&v),
        Err(_) => String::from_utf8_lossy(&b[..b.len().min(200)]).into_owned(),
    }
}

/// Evidence for `rule` in a scenario of `level`: a MUST rule broken in a
/// SHOULD scenario is NON-STRICT, in an INFO one a note.
pub(crate) fn scoped(rule: &'static Rule, level: Level, message: String) -> Evidence {
    let mut e = Evidence::broke(rule, message);
    e.verdict = match (e.verdict, level) {
        (Verdict::Fail, Level::Should) => Verdict::NonStrict,
        (Verdict::Fail | Verdict::NonStrict, Level::Info) => Verdict::Pass,
        (v, _) => v,
    };
    e
}

/// A pusher of findings into `out` at a scenario's `level` ([`scoped`]):
/// at most [`FINDINGS_PER_RULE`] a rule, then one saying there are more.
pub(crate) fn capped(
    out: &mut Vec<Evidence>,
    level: Level,
) -> impl FnMut(&'static Rule, String) + '_ {
    let mut count: HashMap<&'static str, usize> = HashMap::new();
    move |rule, message| {
        let n = count.entry(rule.id).or_default();
        *n += 1;
        if *n <= FINDINGS_PER_RULE {
            out.push(scoped(rule, level, message));
        } else if *n == FINDINGS_PER_RULE + 1 {
            out.push(scoped(
                rule,
                level,
                format!("and more findings of `{}`", rule.id),
            ));
        }
    }
}

/// A scripted CLI's own grader of its session: evidence from what it
/// logged, beside the client role's own.
pub type Session<'s> =
    dyn Fn(&Observed<'_>, &HashMap<&'static str, Outcome>, &mut Vec<Evidence>) + 's;

/// Every piece of evidence of one scenario; `session`, the scripted CLI's
/// grader where the dialect plays one (`o.log` is empty then).
pub fn grade(o: &Observed<'_>, session: Option<&Session<'_>>) -> Vec<Evidence> {
    let mut out = Vec::new();
    if !o.connected {
        let how = match &o.exit {
            Some((_, how)) => Evidence::note(
                Verdict::Crash,
                format!(
                    "the client ended ({how}) without starting its server: is `{{server}}` among its arguments, or does it read ${}?",
                    super::SERVER_ENV
                ),
            ),
            None => Evidence::note(
                Verdict::Timeout,
                format!(
                    "the client did not start its server within {:?} (--startup-timeout): is `{{server}}` among its arguments, or does it read ${}?",
                    o.limits.startup,
                    super::SERVER_ENV
                ),
            ),
        };
        out.push(how);
        return out;
    }
    let outcomes = reports(o, &mut out);
    if let Some(session) = session {
        session(o, &outcomes, &mut out);
        ending(o, &outcomes, &mut out);
        // What a decoder writes is its prompt, not messages.
        if o.scenario.protocol.play().messages.is_some() {
            messages(o, &mut out);
        }
        return out;
    }
    steps(o, &outcomes, &mut out);
    ending(o, &outcomes, &mut out);
    requirements(o, &outcomes, &mut out);
    messages(o, &mut out);
    if let Some(session) = o.scenario.protocol.play().session {
        session(o, &outcomes, &mut out);
    }
    out
}

/// The adapter's report lines, read under the contract.
pub(crate) fn reports(o: &Observed<'_>, out: &mut Vec<Evidence>) -> HashMap<&'static str, Outcome> {
    let mut outcomes = HashMap::new();
    let mut wrong = Vec::new();
    for problem in o.report_problems {
        wrong.push(problem.clone());
    }
    for (n, line) in o.reports.iter().enumerate() {
        let n = n + 1;
        let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(line) else {
            wrong.push(format!(
                "report line {n} is not a JSON object: {}",
                String::from_utf8_lossy(&line[..line.len().min(200)])
            ));
            continue;
        };
        let Some(step) = obj
            .get("step")
            .and_then(Value::as_str)
            .and_then(|n| o.scenario.protocol.steps().iter().find(|s| s.name == n))
        else {
            wrong.push(format!(
                "report line {n} names no step of the series: {}",
                short(&Value::Object(obj.clone()))
            ));
            continue;
        };
        let keys: Vec<&str> = ["result", "error", "failed", "skipped", "sent"]
            .into_iter()
            .filter(|k| obj.contains_key(*k))
            .collect();
        let outcome = match keys.as_slice() {
            ["result"] => Outcome::Result(obj["result"].clone()),
            ["error"] => Outcome::Error(obj["error"].clone()),
            ["failed"] => Outcome::Failed(text_of(&obj["failed"])),
            ["skipped"] => Outcome::Skipped(text_of(&obj["skipped"])),
            ["sent"] => Outcome::Sent,
            _ => {
                wrong.push(format!(
                    "report line {n} (step `{}`) has {} of result, error, failed, skipped, sent: exactly one belongs there",
                    step.name,
                    keys.len()
                ));
                continue;
            }
        };
        if outcomes.insert(step.name, outcome).is_some() {
            wrong.push(format!("step `{}` is reported twice", step.name));
        }
    }
    for w in wrong.into_iter().take(FINDINGS_PER_RULE) {
        out.push(Evidence::broke(&rules::CLIENT_CONTRACT, w));
    }
    outcomes
}

fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
}

/// Each call's outcome against what the server replied to it.
fn steps(o: &Observed<'_>, outcomes: &HashMap<&'static str, Outcome>, out: &mut Vec<Evidence>) {
    let level = o.scenario.meta.level;
    let protocol = o.scenario.protocol;
    // The adapter may report a part of a result (the contract's shapes).
    let reported = protocol.play().reported;
    for step in protocol.steps() {
        let Some(got) = outcomes.get(step.name) else {
            continue;
        };
        if step.kind == StepKind::Notify || matches!(got, Outcome::Skipped(_)) {
            continue;
        }
        // The call given up on fails, whatever the server said later.
        if step.kind == StepKind::Abandoned && matches!(got, Outcome::Failed(_)) {
            continue;
        }
        let params = pattern(step);
        let answer = step_answer(o, step, &params);
        let call = if step.params.is_empty() {
            format!("`{}` ({})", step.name, step.method)
        } else {
            format!("`{}` ({} {})", step.name, step.method, step.params)
        };
        // A client may refuse the version a scenario makes the server
        // answer with: disconnecting is what the lifecycle asks then.
        let refused = step.kind == StepKind::Connect
            && (o.scenario.version.is_some()
                || o.scenario.twist == Some(super::twist::Twist::VersionUnsupported))
            && matches!(got, Outcome::Failed(_) | Outcome::Error(_));
        // An InputRequiredResult never retried is graded with the round
        // trip (`twists.rs`).
        let unfinished = answer.is_some_and(|a| super::twist::is_input_required(&a.body));
        if refused || unfinished {
            continue;
        }
        match answer.and_then(|a| a.given()) {
            Some(body) => {
                let raw = match body {
                    Body::Result(v) | Body::Error(v) => {
                        serde_json::from_slice::<Value>(v).unwrap_or(Value::Null)
                    }
                };
                let method = answer.map_or("", |a| a.method.as_str());
                // What the adapter reports of a result (the contract).
                let expected = match (body, reported) {
                    (Body::Result(_), Some(reported)) => reported(method, &raw),
                    _ => Some(raw.clone()),
                };
                let ok = match (body, got, &expected) {
                    // A 2026-07-28 opening: any version the client settled on.
                    (Body::Result(_), Outcome::Result(v), None) => v.is_string(),
                    (Body::Result(_), Outcome::Result(v), Some(e)) => {
                        v == e || without_ref_tool(o, method, e) == Some(v.clone())
                    }
                    (Body::Error(_), Outcome::Error(v), _) => same_error(&raw, v),
                    _ => false,
                };
                let body_text = |b: &Body| match (b, &expected) {
                    (Body::Result(_), Some(e)) if reported.is_some() => {
                        format!("result {} (as the contract reports it)", short(e))
                    }
                    _ => body_text(b),
                };
                // A result without `resultType` the library did not take:
                // 2026-07-28's rule, not pairing.
                let rule = result_rule(o, answer, body);
                // A client may give up on a reply that reached it past the
                // step's timeout (a byte-a-write reply on a loaded runner).
                let late = matches!(got, Outcome::Failed(_))
                    && answer.is_some_and(|a| a.sent.is_some_and(|q| late(a.asked, q)));
                if !ok && !late {
                    let mut e = scoped(
                        rule,
                        level,
                        format!(
                            "step {call}: the server replied {}, the library returned {}{}",
                            body_text(body),
                            got.describe(),
                            whose(o, got, step.method, &params)
                        ),
                    );
                    e.expected = vec![body_text(body)];
                    e.actual = vec![got.describe()];
                    out.push(e);
                }
            }
            None => {
                if let Outcome::Result(v) = got {
                    let why = match answer {
                        Some(a) if a.replaced => "the line in its place was no valid reply",
                        Some(_) => "the server never answered it",
                        None => "it never reached the server",
                    };
                    out.push(scoped(
                        &rules::CLIENT_NO_REPLY,
                        level,
                        format!(
                            "step {call}: {why}, yet the library returned result {}{}",
                            short(v),
                            whose(o, got, step.method, &params)
                        ),
                    ));
                }
            }
        }
    }
}

/// The request whose reply `step` returns: the last one made of it (a
/// retry after -32022 or an `InputRequiredResult` is the call whose reply
/// the library returns) that was answered, else the last one.
fn step_answer<'a>(
    o: &'a Observed<'_>,
    step: &Step,
    params: &Value,
) -> Option<&'a super::answers::Answer> {
    let batch = step.kind == StepKind::Batch;
    let find = |method: &str| {
        let matching = || {
            o.log
                .answers
                .iter()
                .filter(|a| a.method == method && holds(params, &a.params) && a.batch == batch)
        };
        matching()
            .rfind(|a| a.given().is_some())
            .or_else(|| matching().next_back())
    };
    match step.kind {
        StepKind::Connect => find("initialize").or_else(|| find("server/discover")),
        _ => find(step.method),
    }
}

/// The rule a step's wrong outcome breaks: in `result-type-omitted`, a
/// 2026-07-28 result not taken is `client.mcp-result-type`; else
/// `client.result`.
fn result_rule(
    o: &Observed<'_>,
    answer: Option<&super::answers::Answer>,
    body: &Body,
) -> &'static Rule {
    let modern = answer.is_some_and(|a| super::twist::version_of(&a.params).is_some());
    match (o.scenario.twist, body) {
        (Some(super::twist::Twist::ResultTypeOmitted), Body::Result(_)) if modern => {
            &rules::CLIENT_MCP_RESULT_TYPE
        }
        _ => &rules::CLIENT_RESULT,
    }
}

/// `network-ref`: the tool names of `tools/list` without the tool whose
/// schema `$ref`s the canary. A client may drop it (2026-07-28
/// basic/index: "Schemas that fail to validate due to an unresolved
/// external `$ref` SHOULD be rejected").
fn without_ref_tool(o: &Observed<'_>, method: &str, names: &Value) -> Option<Value> {
    use super::twist::{REF_TOOL, Twist};
    if o.scenario.twist != Some(Twist::NetworkRef) || method != "tools/list" {
        return None;
    }
    let kept = names.as_array()?.iter().filter(|n| *n != REF_TOOL).cloned();
    Some(Value::Array(kept.collect()))
}

/// Whether `id` is the id whose JSON text is `text`.
pub(crate) fn same_id(id: &Value, text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|t| t == *id)
}

/// Whether the error the library returned is the one the server sent:
/// the same code and message, and the same data when the server sent
/// some.
fn same_error(sent: &Value, got: &Value) -> bool {
    let field = |v: &Value, k: &str| v.get(k).cloned();
    field(sent, "code") == field(got, "code")
        && field(sent, "message") == field(got, "message")
        && (sent.get("data").is_none() || field(sent, "data") == field(got, "data"))
}

/// `" (the reply to …)"` when `got` is what the server replied to another
/// call: the library paired replies with the wrong calls.
fn whose(o: &Observed<'_>, got: &Outcome, method: &str, params: &Value) -> String {
    let got_value = match got {
        Outcome::Result(v) => v,
        _ => return String::new(),
    };
    if *got_value == serde_json::from_str::<Value>(super::script::DECOY_RESULT).expect("JSON") {
        return ": the decoy reply, whose id was no id of this call".to_owned();
    }
    for a in &o.log.answers {
        if a.method == method && a.params == *params {
            continue;
        }
        if let Some(Body::Result(v)) = a.given()
            && serde_json::from_slice::<Value>(v).is_ok_and(|v| v == *got_value)
        {
            return format!(
                ": the reply to {} {} (id {}), paired with the wrong call",
                a.method, a.params, a.id
            );
        }
    }
    String::new()
}

/// How the series ended: every step reported and the adapter exited 0.
fn ending(o: &Observed<'_>, outcomes: &HashMap<&'static str, Outcome>, out: &mut Vec<Evidence>) {
    let missing: Vec<&str> = o
        .scenario
        .protocol
        .steps()
        .iter()
        .map(|s| s.name)
        .filter(|n| !outcomes.contains_key(n))
        .collect();
    let server = match o.log.stop {
        Some((at, Stop::Exited(code))) if code != 0 || o.log.eof.is_none() => {
            format!(
                "; the server had exited (status {code}) at {} ms",
                at.as_millis()
            )
        }
        Some((at, Stop::Closed)) => format!(
            "; the server had closed its stdout at {} ms",
            at.as_millis()
        ),
        _ => String::new(),
    };
    let list = |m: &[&str]| {
        m.iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if o.timed_out {
        let what = if missing.is_empty() {
            "every step was reported, but the adapter did not exit".to_owned()
        } else {
            format!("steps never reported: {}", list(&missing))
        };
        let mut e = Evidence::broke(
            &rules::CLIENT_ENDS,
            format!(
                "the client did not finish within {:?} (--timeout): {what}{server}",
                o.limits.timeout
            ),
        );
        e.verdict = Verdict::Timeout;
        out.push(e);
        return;
    }
    match &o.exit {
        Some((Some(0), _)) if missing.is_empty() => {}
        Some((Some(0), _)) => out.push(Evidence::broke(
            &rules::CLIENT_CONTRACT,
            format!(
                "the adapter exited with status 0 without reporting steps {}{server}",
                list(&missing)
            ),
        )),
        Some((_, how)) => {
            let before = if missing.is_empty() {
                "after reporting every step".to_owned()
            } else {
                format!("before reporting steps {}", list(&missing))
            };
            out.push(Evidence::note(
                Verdict::Crash,
                format!("the client ended ({how}) {before}{server}"),
            ));
        }
        None => {}
    }
}

/// A scenario whose point the client cannot reach is SKIPPED, unless
/// something failed anyway.
fn requirements(
    o: &Observed<'_>,
    outcomes: &HashMap<&'static str, Outcome>,
    out: &mut Vec<Evidence>,
) {
    let sc = o.scenario;
    if sc.meta.requires.iter().any(|r| r == "concurrency") && o.log.max_held < 2 {
        out.push(Evidence::note(
            Verdict::Skipped,
            "the client never had two `echo` calls in flight at once (its adapter makes them one at a time): nothing to answer out of order".into(),
        ));
    }
    if sc.meta.requires.iter().any(|r| r == "batch") && !o.log.answers.iter().any(|a| a.batch) {
        let why = match outcomes.get("batch-x") {
            Some(Outcome::Skipped(why)) => format!(": {why}"),
            _ => String::new(),
        };
        out.push(Evidence::note(
            Verdict::Skipped,
            format!("the client sent no batch{why}"),
        ));
    }
    if sc.decoy == Some(Decoy::RetypedId)
        && o.log.retyped == 0
        && o.log.answers.iter().any(|a| a.sent.is_some())
    {
        out.push(Evidence::note(
            Verdict::Skipped,
            "the client's ids have no twin of the other type (they are neither integers nor strings of digits): no decoy could be made".into(),
        ));
    }
}

/// Every message the client wrote: framing, JSON-RPC's rules for requests
/// and notifications, ids in flight, answers to the server's requests.
fn messages(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    let mut count: HashMap<&'static str, usize> = HashMap::new();
    // A scenario of SHOULD may feed the client a malformed request: the
    // rules its dialect names for it are judged at the scenario's level;
    // every other rule its messages break, at its own.
    let play = o.scenario.protocol.play();
    let level = |rule: &'static Rule| {
        if play.scenario_level.contains(&rule.id) {
            o.scenario.meta.level
        } else {
            Level::Must
        }
    };
    let mut push = |out: &mut Vec<Evidence>, rule: &'static Rule, message: String| {
        let n = count.entry(rule.id).or_default();
        *n += 1;
        if *n <= FINDINGS_PER_RULE {
            out.push(scoped(rule, level(rule), message));
        }
    };
    for &(kind, number, offset) in o.client_problems {
        let rule = o.framing.rule(kind);
        if matches!(kind, ProblemKind::Blank) {
            continue;
        }
        push(
            out,
            rule,
            format!(
                "{} {number} the client wrote to its server (byte {offset}): {kind}",
                o.framing.noun()
            ),
        );
    }
    for (n, line) in o.client_lines.iter().enumerate() {
        let text = String::from_utf8_lossy(line);
        let Some(dialect) = play.messages.map(|d| d()) else {
            break;
        };
        let classified = classify(&text, &dialect);
        for f in &classified.findings {
            push(
                out,
                f.rule,
                format!("message {} the client wrote: {}", n + 1, f.detail),
            );
        }
    }
    for id in &o.log.reused {
        push(
            out,
            &rules::SESSION_ID_REUSED,
            format!(
                "the client sent id {id} again while its earlier request with that id awaited its reply"
            ),
        );
    }
    for a in o.log.answers.iter().filter(|a| a.method == "update") {
        push(
            out,
            &rules::CLIENT_NOTIFICATION,
            format!(
                "the notification `update` {} was sent with an id ({})",
                a.params, a.id
            ),
        );
    }
    let server_request = play.server_request;
    for (ask, rule) in o.log.asks.iter().filter_map(|a| Some((a, server_request?))) {
        if ask.answer.is_none() {
            push(
                out,
                rule,
                format!(
                    "the server's request `{}` (id {}) got no answer within {:?}",
                    ask.method,
                    super::script::ASK_ID,
                    super::ASK_WAIT
                ),
            );
        }
    }
    for id in &o.log.stray_answers {
        push(
            out,
            &rules::SESSION_UNKNOWN_ID,
            format!("the client answered id {id}, which no request of the server's had"),
        );
    }
    for (id, n) in count {
        if n > FINDINGS_PER_RULE {
            let rule = rules::by_id(id).expect("a registry rule");
            out.push(Evidence {
                rule: Some(RuleRef::from_rule(rule)),
                ..Evidence::note(
                    Evidence::broke(rule, String::new()).verdict,
                    format!("{} more of `{id}` not listed", n - FINDINGS_PER_RULE),
                )
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_call_is_late_past_the_timeout_less_what_rpcspec_cannot_see() {
        // Answered 1.9 s after the request was read: in time; 2.1 s: a
        // client may have seen it past its 3 s.
        assert!(!late(ms(1000), ms(2900)));
        assert!(late(ms(1000), ms(3100)));
        assert!(late(ms(0), ms(8000)));
        assert!(!late(ms(5000), ms(5000)));
    }
}
