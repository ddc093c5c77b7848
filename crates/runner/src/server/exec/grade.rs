//! Pure grading: which step a reply answers, how a step's replies match
//! its expectations (by id first, then any order within a bounded search),
//! and framing problems as evidence. No process, no clock.

use rpcspec_framer::Problem;

use crate::capture::Framing;
use rpcspec_matcher::{Id, IdMatch, Kind, Level, Shape};

use super::{Evidence, Expect, Grade, MAX_SHOWN, Match, Pattern, RuleRef, Step, Verdict};

/// A request, notification or event the target sent of its own accord (a
/// batch of nothing else included).
pub(super) fn initiated(kind: &Kind) -> bool {
    match kind {
        Kind::Request { .. }
        | Kind::Notification { .. }
        | Kind::Event { .. }
        | Kind::Cancel { .. } => true,
        Kind::Batch(members) => !members.is_empty() && members.iter().all(initiated),
        _ => false,
    }
}

/// How many id-null messages a step may get back: the most any of its
/// answers (the expected one or an alternative) holds.
pub(super) fn null_capacity(step: &Step) -> usize {
    let count = |e: &Expect| match e {
        Expect::Messages(ps) => ps.iter().filter(|p| p.accepts_null_id()).count(),
        _ => 0,
    };
    std::iter::once(&step.expect)
        .chain(step.alternatives.iter().map(|a| &a.expect))
        .map(count)
        .max()
        .unwrap_or(0)
}

/// The ids of the requests in a message the client sent.
pub(super) fn request_ids(kind: &Kind) -> Vec<Id> {
    match kind {
        Kind::Request { id, .. } => vec![id.clone()],
        Kind::Invalid { id: Some(id), .. } => vec![id.clone()],
        Kind::Batch(members) => members.iter().flat_map(request_ids).collect(),
        _ => Vec::new(),
    }
}

/// The ids a message from the target answers (its own requests answer
/// nothing).
pub(super) fn reply_ids(kind: &Kind) -> Vec<Id> {
    match kind {
        Kind::Batch(members) => members.iter().flat_map(reply_ids).collect(),
        Kind::Success { id } | Kind::Error { id: Some(id), .. } => vec![id.clone()],
        Kind::Invalid {
            shape: Shape::Response,
            id: Some(id),
        } => vec![id.clone()],
        _ => Vec::new(),
    }
}

/// The one step whose requests carry these ids, if there is exactly one.
/// Null ids say nothing: many invalid requests share them.
pub(super) fn owner_step(ids: &[Id], step_ids: &[Vec<Id>]) -> Option<usize> {
    let mut owner = None;
    for id in ids.iter().filter(|id| id.raw() != "null") {
        let steps: Vec<usize> = step_ids
            .iter()
            .enumerate()
            .filter(|(_, sent)| sent.iter().any(|s| s.compare(id) != IdMatch::Different))
            .map(|(k, _)| k)
            .collect();
        match (steps.as_slice(), owner) {
            ([k], None) => owner = Some(*k),
            ([k], Some(o)) if *k == o => {}
            _ => return None,
        }
    }
    owner
}

/// Grades one step's answer: `None` for a pass.
pub(super) fn grade_step(step: &Step, k: usize, actual: &[&str], level: Level) -> Option<Evidence> {
    let primary = expect_matches(&step.expect, actual);
    let (verdict, message) = match &primary {
        Ok(None) => return None,
        Ok(Some(why)) => (Verdict::NonStrict, why.clone()),
        Err(why) => {
            let alternative = step
                .alternatives
                .iter()
                .find(|alt| expect_matches(&alt.expect, actual).is_ok());
            match alternative {
                Some(alt) if alt.grade == Grade::Pass => return None,
                Some(alt) => (Verdict::NonStrict, format!("tolerated: {}", alt.why)),
                None => {
                    let verdict = match level {
                        Level::Must => Verdict::Fail,
                        Level::Should | Level::Info => Verdict::NonStrict,
                    };
                    (verdict, why.clone())
                }
            }
        }
    };
    let mut shown: Vec<String> = actual
        .iter()
        .take(MAX_SHOWN)
        .map(|s| (*s).to_owned())
        .collect();
    if actual.len() > MAX_SHOWN {
        shown.push(format!("… and {} more messages", actual.len() - MAX_SHOWN));
    }
    Some(Evidence {
        verdict,
        rule: None,
        message,
        step: Some(k + 1),
        expected: describe_expect(&step.expect),
        actual: shown,
    })
}

pub(super) fn describe_expect(expect: &Expect) -> Vec<String> {
    match expect {
        Expect::Messages(ps) => ps.iter().map(|p| p.text().to_owned()).collect(),
        Expect::Batch(ps) => vec![format!(
            "[{}] (any order)",
            ps.iter().map(Pattern::text).collect::<Vec<_>>().join(", ")
        )],
        Expect::Nothing => vec!["(no reply)".to_owned()],
        Expect::Any => vec!["(any reply)".to_owned()],
    }
}

/// `Ok(None)`: matches. `Ok(Some(why))`: matches with a graded difference.
/// `Err(why)`: does not match.
pub(super) fn expect_matches(expect: &Expect, actual: &[&str]) -> Result<Option<String>, String> {
    match expect {
        Expect::Any => Ok(None),
        Expect::Nothing if actual.is_empty() => Ok(None),
        Expect::Nothing => Err(format!(
            "expected no reply, got {} message{}",
            actual.len(),
            if actual.len() == 1 { "" } else { "s" }
        )),
        Expect::Messages(patterns) => {
            if patterns.len() != actual.len() {
                return Err(format!(
                    "expected {} message{}, got {}",
                    patterns.len(),
                    if patterns.len() == 1 { "" } else { "s" },
                    actual.len()
                ));
            }
            match_all(patterns, actual.iter().copied())
        }
        Expect::Batch(patterns) => {
            // §6: the server "should respond with an Array" (lower case):
            // the same replies as separate objects are graded, not failed.
            if actual.len() == patterns.len()
                && actual.iter().all(|a| a.trim_start().starts_with('{'))
                && match_all(patterns, actual.iter().copied()).is_ok()
            {
                return Ok(Some(format!(
                    "the batch was answered with {} separate objects instead of one array \
                     (JSON-RPC 2.0 §6: the server should respond with an Array)",
                    actual.len()
                )));
            }
            let [one] = actual else {
                return Err(format!(
                    "expected one batch reply, got {} messages",
                    actual.len()
                ));
            };
            let members: Vec<&serde_json::value::RawValue> = serde_json::from_str(one)
                .map_err(|_| "expected a batch reply (an array), got a single object".to_owned())?;
            if members.len() != patterns.len() {
                return Err(format!(
                    "expected a batch reply of {} members, got {}",
                    patterns.len(),
                    members.len()
                ));
            }
            match_all(patterns, members.iter().map(|m| m.get()))
        }
    }
}

/// Most (pattern, message) pairs tried when the messages must be paired
/// in any order: beyond, only the pairing by position and id is (a step
/// sends at most [`crate::cases::MAX_SENDS`]).
pub(super) const MAX_PAIRINGS: usize = 256 * 256;

/// Pairs every pattern with a distinct message, in any order. Replies in
/// order or with the ids expected pair at once, one match each
/// ([`paired_by_id`]); otherwise it is a perfect bipartite matching
/// (Kuhn's algorithm), for at most [`MAX_PAIRINGS`] pairs. Exact matches
/// are tried first, so a same-value id is only graded when no exact
/// assignment exists.
pub(super) fn match_all<'a>(
    patterns: &[Pattern],
    actual: impl Iterator<Item = &'a str>,
) -> Result<Option<String>, String> {
    let actual: Vec<&str> = actual.collect();
    let unpaired = match paired_by_id(patterns, &actual) {
        Ok(()) => return Ok(None),
        Err(i) => i,
    };
    if patterns.len() * actual.len() > MAX_PAIRINGS {
        return Err(format!(
            "no message with its position or id matches {} ({} messages are too many to pair in any order)",
            patterns[unpaired].text(),
            actual.len()
        ));
    }
    let table: Vec<Vec<Match>> = patterns
        .iter()
        .map(|p| actual.iter().map(|a| p.matches(a)).collect())
        .collect();
    if perfect(&table, |m| *m == Match::Yes) {
        return Ok(None);
    }
    if perfect(&table, |m| matches!(m, Match::Yes | Match::IdSameValue)) {
        let graded = table
            .iter()
            .zip(patterns)
            .find(|(row, _)| row.contains(&Match::IdSameValue))
            .map(|(_, p)| p.text().to_owned())
            .unwrap_or_default();
        return Ok(Some(format!(
            "`id` echoed as the same value with different text (expected {graded})"
        )));
    }
    // Say why the first pattern that fits nothing does not.
    for (row, p) in table.iter().zip(patterns) {
        if !row
            .iter()
            .any(|m| matches!(m, Match::Yes | Match::IdSameValue))
        {
            return Err(match row.as_slice() {
                [Match::No(why)] => why.clone(),
                _ => format!("no message matches {}", p.text()),
            });
        }
    }
    Err("the messages match the patterns only with one message used twice".into())
}

/// Pairs each pattern with the message at its position or, failing that,
/// one with its id, greedily; `Err` names the first pattern left without.
/// A success is a perfect matching; a failure only says to look further.
pub(super) fn paired_by_id(patterns: &[Pattern], actual: &[&str]) -> Result<(), usize> {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    fn id_of(text: &str) -> Option<&str> {
        let with: WithId<'_> = serde_json::from_str(text).ok()?;
        with.id.map(|r| r.get())
    }
    let mut by_id: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (j, a) in actual.iter().enumerate() {
        if let Some(id) = id_of(a) {
            by_id.entry(id).or_default().push(j);
        }
    }
    let mut used = vec![false; actual.len()];
    for (i, p) in patterns.iter().enumerate() {
        let same_id = id_of(p.text()).and_then(|id| by_id.get(id));
        let mut candidates = (i < actual.len())
            .then_some(i)
            .into_iter()
            .chain(same_id.into_iter().flatten().copied());
        match candidates.find(|&j| !used[j] && p.matches(actual[j]) == Match::Yes) {
            Some(j) => used[j] = true,
            None => return Err(i),
        }
    }
    Ok(())
}

/// Whether every row (pattern) gets its own column (message) among the
/// cells `ok` accepts.
pub(super) fn perfect(table: &[Vec<Match>], ok: impl Fn(&Match) -> bool) -> bool {
    fn augment(
        row: usize,
        table: &[Vec<bool>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for (col, &edge) in table[row].iter().enumerate() {
            if edge && !seen[col] {
                seen[col] = true;
                if owner[col].is_none_or(|r| augment(r, table, seen, owner)) {
                    owner[col] = Some(row);
                    return true;
                }
            }
        }
        false
    }
    let cols = table.first().map_or(0, Vec::len);
    let edges: Vec<Vec<bool>> = table.iter().map(|r| r.iter().map(&ok).collect()).collect();
    let mut owner = vec![None; cols];
    (0..table.len()).all(|row| augment(row, &edges, &mut vec![false; cols], &mut owner))
}

/// A framing problem in the target's output.
pub(super) fn framing_evidence(problem: &Problem<'_>, framing: &Framing) -> Evidence {
    let rule = RuleRef::from_rule(framing.rule(problem.kind));
    Evidence {
        verdict: rule.verdict(),
        rule: Some(rule),
        message: format!("stdout {}", problem.display_as(framing.noun())),
        step: None,
        expected: Vec::new(),
        actual: Vec::new(),
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::{
        cases::Case,
        probe::{self, Slot},
        server::exec::dialect::read_in,
    };

    fn patterns(texts: &[&str]) -> Vec<Pattern> {
        texts.iter().map(|t| Pattern::parse(t).unwrap()).collect()
    }

    #[test]
    fn messages_match_in_any_order() {
        let expect = Expect::Messages(patterns(&[
            r#"{"result":1,"id":1}"#,
            r#"{"result":2,"id":2}"#,
        ]));
        assert_eq!(
            expect_matches(
                &expect,
                &[r#"{"result":2,"id":2}"#, r#"{"result":1,"id":1}"#]
            ),
            Ok(None)
        );
        assert!(expect_matches(&expect, &[r#"{"result":2,"id":2}"#]).is_err());
    }

    #[test]
    fn a_batch_is_one_array() {
        let expect = Expect::Batch(patterns(&[r#"{"result":1,"id":1}"#]));
        assert_eq!(
            expect_matches(&expect, &[r#"[{"result":1,"id":1}]"#]),
            Ok(None)
        );
        // The same replies as separate objects: graded (§6 "should").
        assert!(matches!(
            expect_matches(&expect, &[r#"{"result":1,"id":1}"#]),
            Ok(Some(why)) if why.contains("separate objects")
        ));
        assert_eq!(
            expect_matches(&expect, &[r#"{"result":2,"id":1}"#]),
            Err("expected a batch reply (an array), got a single object".into())
        );
    }

    #[test]
    fn matching_finds_an_assignment_first_fit_would_miss() {
        // The wildcard pattern comes first and would take the only message
        // the exact pattern fits.
        let expect = Expect::Messages(patterns(&[
            r#"{"result":"$any","id":"$any"}"#,
            r#"{"result":1,"id":1}"#,
        ]));
        assert_eq!(
            expect_matches(
                &expect,
                &[r#"{"result":1,"id":1}"#, r#"{"result":2,"id":2}"#]
            ),
            Ok(None)
        );
    }

    #[test]
    fn nothing_means_nothing() {
        assert_eq!(expect_matches(&Expect::Nothing, &[]), Ok(None));
        assert!(expect_matches(&Expect::Nothing, &["[]"]).is_err());
    }

    fn one_case(text: &str) -> Case {
        crate::cases::load_str(std::path::Path::new("t.toml"), text)
            .expect("loads")
            .remove(0)
    }

    #[test]
    fn in_mcp_an_unreadable_request_is_answered_without_id_or_not_at_all() {
        let case = one_case(
            r#"
[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = ['{"a":', '{"jsonrpc": "2.0", "method": "$probe", "id": 2}']
expect = ['{"jsonrpc": "2.0", "error": {"code": -32700, "message": "$string"}, "id": null}', '{"jsonrpc": "2.0", "$probe-reply": true, "id": 2}']
"#,
        );
        let mcp = probe::put(
            &read_in(case.clone(), &crate::dialects::mcp::SERVING),
            Slot::Probe,
            &probe::probe(&crate::dialects::mcp::SERVING).unwrap(),
        );
        let step = &mcp.steps[0];
        let texts = |e: &Expect| match e {
            Expect::Messages(ps) => ps.iter().map(|p| p.text().to_owned()).collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        assert_eq!(
            texts(&step.expect),
            [
                r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "$string"}, "id": "$absent"}"#,
                r#"{"jsonrpc": "2.0", "result": "$object", "id": 2}"#
            ]
        );
        let without_id = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#;
        let pong = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
        assert_eq!(expect_matches(&step.expect, &[without_id, pong]), Ok(None));
        // An id-null error is what JSON-RPC writes and MCP's schema forbids.
        let with_null =
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
        assert!(expect_matches(&step.expect, &[with_null, pong]).is_err());
        // Silence is the one alternative, NON-STRICT, and says why.
        assert_eq!(step.alternatives.len(), 1);
        assert_eq!(step.alternatives[0].grade, crate::cases::Grade::NonStrict);
        assert!(step.alternatives[0].why.contains("2025-06-18 schema"));
        assert_eq!(
            expect_matches(&step.alternatives[0].expect, &[pong]),
            Ok(None)
        );
        // Other dialects keep JSON-RPC's answer.
        let plain = probe::put(
            &case,
            Slot::Probe,
            &probe::probe(&crate::dialects::Serving::PLAIN).unwrap(),
        );
        let unknown = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"x"}}"#;
        assert_eq!(
            expect_matches(&plain.steps[0].expect, &[with_null, unknown]),
            Ok(None)
        );
        assert!(expect_matches(&plain.steps[0].expect, &[without_id, unknown]).is_err());
        assert!(plain.steps[0].alternatives.is_empty());
    }

    #[test]
    fn owner_is_the_one_step_with_that_id() {
        let id = |s: &str| Id::parse(s).unwrap();
        let steps = vec![vec![id("1")], vec![id("2"), id("3")]];
        assert_eq!(owner_step(&[id("3")], &steps), Some(1));
        assert_eq!(owner_step(&[id("1"), id("2")], &steps), None);
        assert_eq!(owner_step(&[id("null")], &steps), None);
        assert_eq!(
            owner_step(&[id("\"1\"")], &steps),
            Some(0),
            "a changed type still points at its step"
        );
    }
}
