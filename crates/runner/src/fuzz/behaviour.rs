//! The behaviour of an execution: what a black-box target did, as words,
//! and the features (words and pairs of words) whose novelty makes the
//! corpus keep an input.

use std::collections::BTreeSet;

use rpcspec_matcher::{Dialect, Kind, Shape, classify};

use crate::report::{Bytes, CaseResult, Verdict};

/// The most words of a behaviour.
pub const MAX_WORDS: usize = 64;

/// What a target did for an input, as sorted words: a coverage proxy seen
/// from outside a black box. The words are the verdict
/// (`verdict:FAIL`), each piece of evidence (`rule:ID` for a broken rule,
/// framing's included, `note:VERDICT` for one without: a timeout, a
/// crash; notes that pass are left out), each kind of line the target
/// wrote other than barrier replies (`line:success`, `line:error:-32600` for the five codes of §5.1,
/// `line:error:server` for -32000 to -32099, `line:error:other`,
/// `line:notification`, `line:request`, `line:batch[…]` with its members'
/// kinds, `line:invalid-request`, `line:invalid-response`,
/// `line:not-json`, `line:not-utf8`, …), and `silent` when it wrote none.
/// Counts and timing are left out: one more reply of a kind seen is not
/// new behaviour, and timing is not repeatable. At most [`MAX_WORDS`].
pub fn behaviour(result: &CaseResult, dialect: &Dialect) -> String {
    let mut words = BTreeSet::new();
    words.insert(format!("verdict:{}", result.verdict.as_str()));
    for e in &result.evidence {
        match &e.rule {
            Some(rule) => words.insert(format!("rule:{}", rule.id)),
            // A note that passes says how the report was cut, not what
            // the target did.
            None if e.verdict == Verdict::Pass => false,
            None => words.insert(format!("note:{}", e.verdict.as_str())),
        };
    }
    let skip = result.prologue.map_or(0, |p| p.received);
    let mut silent = true;
    for line in result.received.iter().skip(skip) {
        let word = match &line.bytes {
            Bytes::Text(text) => {
                let c = classify(text.trim_end(), dialect);
                if c.kind
                    .id()
                    .is_some_and(|id| id.raw().starts_with("\"rpcspec-barrier-"))
                {
                    continue;
                }
                if c.breaks("json.parse") {
                    "not-json".to_owned()
                } else {
                    kind_word(&c.kind)
                }
            }
            Bytes::Base64(_) => "not-utf8".to_owned(),
        };
        silent = false;
        words.insert(format!("line:{word}"));
    }
    if silent {
        words.insert("silent".to_owned());
    }
    let words: Vec<String> = words.into_iter().take(MAX_WORDS).collect();
    words.join(" ")
}

fn kind_word(kind: &Kind) -> String {
    match kind {
        Kind::Request { .. } => "request".into(),
        Kind::Notification { .. } => "notification".into(),
        Kind::Success { .. } => "success".into(),
        Kind::Error { code: None, .. } => "error".into(),
        Kind::Error {
            code: Some(code), ..
        } => match code {
            -32700 | -32600 | -32601 | -32602 | -32603 => format!("error:{code}"),
            -32099..=-32000 => "error:server".into(),
            _ => "error:other".into(),
        },
        Kind::Cancel { .. } => "cancel".into(),
        Kind::Event { .. } => "event".into(),
        Kind::Batch(members) => {
            let kinds: BTreeSet<String> = members.iter().map(kind_word).take(8).collect();
            format!("batch[{}]", kinds.into_iter().collect::<Vec<_>>().join(","))
        }
        Kind::Invalid { shape, .. } => match shape {
            Shape::Request => "invalid-request".into(),
            Shape::Response => "invalid-response".into(),
            _ => "invalid".into(),
        },
        _ => "other".into(),
    }
}

/// The features of a behaviour: each word, and each pair of words (`a b`,
/// in order). A new pair is new behaviour the way a new edge is to a
/// coverage-guided fuzzer: a broken rule with a kind of reply not seen
/// together before. Sets of words would be new far more often (every
/// combination of twenty words) and pairs grow as the square of the words.
pub(super) fn features(behaviour: &str) -> Vec<String> {
    let words: Vec<&str> = behaviour.split(' ').filter(|w| !w.is_empty()).collect();
    let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    for (i, a) in words.iter().enumerate() {
        for b in &words[i + 1..] {
            out.push(format!("{a} {b}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(lines: &[&[u8]]) -> CaseResult {
        let mut result = CaseResult::new("fuzz/x".into(), "whole".into(), "".into(), "".into());
        result.received = lines
            .iter()
            .enumerate()
            .map(|(i, l)| crate::report::Received {
                at_ms: 0,
                line: i as u64 + 1,
                offset: 0,
                bytes: Bytes::new(l),
                unit: Default::default(),
            })
            .collect();
        result
    }

    #[test]
    fn behaviour_is_what_the_target_wrote_but_barrier_replies() {
        let d = Dialect::Jsonrpc2;
        assert_eq!(behaviour(&received(&[]), &d), "silent verdict:PASS");
        let wrote = received(&[
            br#"{"jsonrpc":"2.0","result":0,"id":"rpcspec-barrier-0"}"#,
            br#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"},"id":null}"#,
            br#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"x"},"id":1}"#,
            br#"[{"jsonrpc":"2.0","result":1,"id":2},{"jsonrpc":"2.0","result":1,"id":3}]"#,
            b"{oops",
            b"\xFF",
        ]);
        assert_eq!(
            behaviour(&wrote, &d),
            "line:batch[success] line:error:-32600 line:error:server line:not-json \
             line:not-utf8 verdict:PASS"
        );
        assert_eq!(
            behaviour(
                &received(&[br#"{"jsonrpc":"2.0","result":0,"id":"rpcspec-barrier-1"}"#]),
                &d
            ),
            "silent verdict:PASS"
        );
    }
}
