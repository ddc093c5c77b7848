//! What a dialect changes about a case before it runs, as its descriptor
//! says (`Serving`): what cannot apply (N/A), the barrier's method,
//! expectations read in the dialect, the handshake's steps first.

use super::{BARRIER_METHOD, Case, Expect, Pattern, Preamble};
use crate::dialects::{Batches, Serving};

/// Why `case` cannot apply to a dialect whose server role is `serving`, if
/// it cannot: what it requires does not exist there. Dialects with methods
/// of their own have none of the §7 examples; one without batches takes no
/// case that sends one (one that names none grades them instead:
/// [`batches_unnamed`]).
pub fn not_applicable(case: &Case, serving: &Serving) -> Option<String> {
    let methods = serving.own_methods?;
    let example: Vec<&str> = case
        .meta
        .requires
        .iter()
        .map(String::as_str)
        .filter(|r| matches!(*r, "subtract" | "sum" | "get_data"))
        .collect();
    if !example.is_empty() {
        return Some(format!(
            "no `{}` here (the JSON-RPC 2.0 §7 example methods; {methods})",
            example.join("`, `")
        ));
    }
    let batches = no_batches(serving)?;
    case.meta
        .requires
        .iter()
        .any(|r| r == "batch")
        .then(|| batches.to_owned())
}

/// Why a dialect whose server role is `serving` has no batches, if it has
/// none.
pub fn no_batches(serving: &Serving) -> Option<&'static str> {
    match serving.batches {
        Batches::Absent(why) => Some(why),
        _ => None,
    }
}

/// `case` as its dialect (`serving`) reads it: replies without
/// `"jsonrpc"`, its answer to an unreadable id, batches it names none of.
pub(super) fn read_in(case: Case, serving: &Serving) -> Case {
    let mut case = case;
    if serving.version_optional {
        case = without_version(&case);
    }
    if let Some(u) = serving.unreadable {
        case = unreadable_ids(&case, u.id_absent, u.why_silence);
    }
    if let Batches::Unnamed(why) = serving.batches {
        case = batches_unnamed(&case, why);
    }
    case
}

/// `case` where a batch may be refused or ignored, NON-STRICT, saying
/// `why`.
pub(super) fn batches_unnamed(case: &Case, why: &str) -> Case {
    let mut case = case.clone();
    if !case.meta.requires.iter().any(|r| r == "batch") {
        return case;
    }
    let refused = Pattern::parse(
        r#"{"jsonrpc": "2.0", "error": {"code": "$integer", "message": "$string"}, "id": null}"#,
    )
    .expect("a valid pattern");
    // Refused whole, an array draws the error an invalid request gets, id
    // null: of notifications, it is no reply to one of them but to the
    // array; of requests, it answers none of their ids but the array's
    // (a wrong id still fails the step: only the id-null refusal is an
    // alternative).
    for rule in [
        &crate::rules::SESSION_REPLY_TO_NOTIFICATION,
        &crate::rules::SESSION_UNKNOWN_ID,
    ] {
        if !case.allow.iter().any(|a| a == rule.id) {
            case.allow.push(rule.id.to_owned());
        }
    }
    for step in &mut case.steps {
        if matches!(step.expect, Expect::Nothing) {
            step.alternatives.push(crate::cases::Alternative {
                expect: Expect::Messages(vec![refused.clone()]),
                grade: crate::cases::Grade::NonStrict,
                why: why.to_owned(),
            });
            continue;
        }
        for expect in [Expect::Messages(vec![refused.clone()]), Expect::Nothing] {
            step.alternatives.push(crate::cases::Alternative {
                expect,
                grade: crate::cases::Grade::NonStrict,
                why: why.to_owned(),
            });
        }
    }
    case
}

/// The method of the barrier request in a dialect whose server role is
/// `serving`: its own, else [`BARRIER_METHOD`].
pub(super) fn barrier_method(serving: &Serving) -> &'static str {
    serving.barrier.unwrap_or(BARRIER_METHOD)
}

/// `case` with each step that expects an id-null error also accepting
/// silence for it, NON-STRICT, saying `why`; with `absent`, the error is
/// expected without `id` instead of with `"id": null`.
pub(super) fn unreadable_ids(case: &Case, absent: bool, why: &str) -> Case {
    let mut case = case.clone();
    let rewrite = |ps: &[Pattern]| -> Vec<Pattern> {
        ps.iter()
            .map(|p| {
                if absent && p.is_null_id_error() {
                    p.with_id_absent()
                } else {
                    p.clone()
                }
            })
            .collect()
    };
    for step in &mut case.steps {
        let Expect::Messages(ps) = &step.expect else {
            continue;
        };
        if !ps.iter().any(Pattern::is_null_id_error) {
            continue;
        }
        let silent: Vec<Pattern> = ps
            .iter()
            .filter(|p| !p.is_null_id_error())
            .cloned()
            .collect();
        step.expect = Expect::Messages(rewrite(ps));
        for alt in &mut step.alternatives {
            if let Expect::Messages(ps) = &alt.expect {
                alt.expect = Expect::Messages(rewrite(ps));
            }
        }
        step.alternatives.push(crate::cases::Alternative {
            expect: if silent.is_empty() {
                Expect::Nothing
            } else {
                Expect::Messages(silent)
            },
            grade: crate::cases::Grade::NonStrict,
            why: why.to_owned(),
        });
    }
    case
}

/// `case` opened by `preamble`'s steps.
pub(super) fn with_preamble(case: &Case, preamble: &Preamble) -> Case {
    let mut opened = case.clone();
    opened.steps = preamble.steps.iter().chain(&case.steps).cloned().collect();
    opened
}

/// `case` with no `"jsonrpc"` member in any expected message.
pub(super) fn without_version(case: &Case) -> Case {
    case.map_patterns(Pattern::without_version)
}
