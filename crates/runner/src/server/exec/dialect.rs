//! What a dialect changes about a case before it runs: what cannot apply
//! (N/A), the barrier's method, expectations read in MCP or Codex, the
//! handshake's steps first.

use rpcspec_matcher::Dialect;

use super::{BARRIER_METHOD, Case, Expect, Pattern, Preamble};

/// Why `case` cannot apply to the dialect (or handshake) named `dialect`,
/// if it cannot: what it requires does not exist there. MCP, the Codex
/// app-server and LSP define their own methods; neither MCP nor the
/// app-server takes batches (LSP's are graded instead: [`for_lsp`]).
pub fn not_applicable(case: &Case, dialect: &str) -> Option<String> {
    let methods = match dialect {
        "lsp" => "LSP's methods are its own",
        "mcp" => "MCP's methods are its own",
        "codex" => "the app-server's methods are its own",
        _ => return None,
    };
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
    let batches = no_batches(dialect)?;
    case.meta
        .requires
        .iter()
        .any(|r| r == "batch")
        .then(|| batches.to_owned())
}

/// Why the dialect (or handshake) named `dialect` has no batches, if it
/// has none: a server of it may answer one member by member or refuse it
/// whole, and neither can be graded.
pub fn no_batches(dialect: &str) -> Option<&'static str> {
    match dialect {
        "mcp" => Some(
            "MCP 2025-06-18 removed JSON-RPC batching (changelog); no server must accept a batch",
        ),
        "codex" => Some(
            "the app-server protocol has no batches (codex-rs/app-server-protocol, jsonrpc_lite.rs: a message is one request, notification or response)",
        ),
        _ => None,
    }
}

/// `case` as LSP reads it: a batch is JSON-RPC 2.0's (§6), and LSP 3.17
/// names none: its base protocol carries "requests, responses and
/// notifications", one per message. A server that answers a batch as §6
/// says passes; one that refuses it with an error, or ignores it, is
/// graded NON-STRICT, saying so.
pub(super) fn for_lsp(case: &Case) -> Case {
    const WHY: &str = "the batch refused or ignored: LSP 3.17's base protocol says \"the content part of a message uses JSON-RPC to describe requests, responses and notifications\" and names no batch (JSON-RPC 2.0 §6 wants one answered)";
    let mut case = case.clone();
    if !case.meta.requires.iter().any(|r| r == "batch") {
        return case;
    }
    let refused = Pattern::parse(
        r#"{"jsonrpc": "2.0", "error": {"code": "$integer", "message": "$string"}, "id": null}"#,
    )
    .expect("a valid pattern");
    for step in &mut case.steps {
        if matches!(step.expect, Expect::Nothing) {
            continue;
        }
        for expect in [Expect::Messages(vec![refused.clone()]), Expect::Nothing] {
            step.alternatives.push(crate::cases::Alternative {
                expect,
                grade: crate::cases::Grade::NonStrict,
                why: WHY.to_owned(),
            });
        }
    }
    case
}

/// The method of the barrier request in `dialect`: MCP's `ping`, which a
/// server answers even before `notifications/initialized` (the only request
/// a client may send then), else [`BARRIER_METHOD`].
pub(super) fn barrier_method(dialect: &Dialect) -> &'static str {
    match dialect {
        Dialect::Mcp => "ping",
        _ => BARRIER_METHOD,
    }
}

/// `case` as MCP reads it: an error to a request whose id could not be read
/// omits `id` (2025-11-25 schema: `JSONRPCErrorResponse.id?: RequestId`;
/// a `RequestId` is never null), where JSON-RPC 2.0 §5 writes `"id": null`.
/// The 2025-06-18 schema makes `id` required, so a server of that revision
/// has no schema-valid answer at all: staying silent is graded NON-STRICT.
pub(super) fn for_mcp(case: &Case) -> Case {
    const WHY: &str = "no reply to an unreadable request: the MCP 2025-06-18 schema requires a non-null `id` on every error, so a server of that revision has no valid answer (JSON-RPC 2.0 §5.1 and §7 want one with id null, MCP 2025-11-25 one without id)";
    unreadable_ids(case, true, WHY)
}

/// `case` as the Codex app-server's protocol reads it: its errors carry a
/// `RequestId`, a string or an integer, never null
/// (codex-rs/app-server-protocol, jsonrpc_lite.rs), so a request whose id
/// could not be read has no answer there: staying silent is graded
/// NON-STRICT, and JSON-RPC's `"id": null` error is still accepted.
pub(super) fn for_codex(case: &Case) -> Case {
    const WHY: &str = "no reply to an unreadable request: the app-server's errors carry a string or integer `id` (jsonrpc_lite.rs `RequestId`), so it has no way to write JSON-RPC 2.0's `\"id\": null` (§5.1, §7)";
    unreadable_ids(case, false, WHY)
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
