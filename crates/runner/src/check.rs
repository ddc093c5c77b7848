//! `rpcspec check`: validate a captured NDJSON stream (a log, a transcript).
//!
//! Every framing problem is a finding; with a dialect, so is every message
//! rule and pairing problem. Pairing assumes the usual transcript: messages
//! with a `method` come from the client, responses from the server.

use std::io::{self, Read};

use rpcspec_framer::{BlankLines, Config, Event, read::Events};
use rpcspec_matcher::{Dialect, Direction, Kind, Session, classify};
use serde::Serialize;

use crate::report::RuleRef;

/// One thing wrong in the stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// 1-based line (0 for findings about the whole stream).
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The rule broken.
    pub rule: RuleRef,
    /// What exactly.
    pub message: String,
}

/// Checks everything `input` yields.
pub fn check(input: impl Read, dialect: Option<&Dialect>) -> io::Result<Vec<Finding>> {
    let mut findings = Vec::new();
    let mut session = dialect.map(|d| Session::new(d.clone()));
    let config = Config::default().blank_lines(BlankLines::Report);
    let mut on_event = |event: Event<'_>, findings: &mut Vec<Finding>| match event {
        Event::Problem(p) => findings.push(Finding {
            line: p.number,
            offset: p.offset,
            rule: RuleRef::framing(p.kind),
            message: p.to_string(),
        }),
        Event::Line(line) => {
            let Some(session) = session.as_mut() else {
                return;
            };
            let text = line.as_str().expect("the framer checks UTF-8");
            let from = match classify(text, session.dialect()).kind {
                Kind::Success { .. } | Kind::Error { .. } => Direction::ServerToClient,
                Kind::Batch(members)
                    if members
                        .iter()
                        .all(|m| matches!(m, Kind::Success { .. } | Kind::Error { .. })) =>
                {
                    Direction::ServerToClient
                }
                _ => Direction::ClientToServer,
            };
            for f in session.feed(from, text).findings {
                findings.push(Finding {
                    line: line.number,
                    offset: line.offset,
                    rule: RuleRef::from_rule(f.rule),
                    message: detail(&f),
                });
            }
        }
    };
    for event in Events::new(input, config) {
        on_event(event?, &mut findings);
    }
    if let Some(session) = session.as_mut() {
        for f in session.close() {
            findings.push(Finding {
                line: 0,
                offset: 0,
                rule: RuleRef::from_rule(f.rule),
                message: detail(&f),
            });
        }
    }
    Ok(findings)
}

fn detail(f: &rpcspec_matcher::Finding) -> String {
    match f.member {
        Some(i) => format!("batch member {i}: {}", f.detail),
        None => f.detail.clone(),
    }
}
