//! What the agent CLIs' scenarios take beside the JSON-RPC ones: a
//! Claude scenario's play (`claude/`), a codex-exec scenario's stream
//! (`codex-exec/`), each refusing the other protocols' fields.

use toml::Spanned;

use super::{Protocol, ScenarioDef, claude, codex, codex_exec};
use crate::{casefile::LoadError, dialects::Peer};

/// What a Claude scenario plays (`None` in the other protocols, which may
/// not use its fields; a Claude scenario may not use theirs).
pub(super) fn claude_play(
    protocol: Protocol,
    d: &ScenarioDef,
    at: &dyn Fn(std::ops::Range<usize>, String) -> LoadError,
) -> Result<Option<claude::Play>, LoadError> {
    let own = [
        ("initialize", d.initialize.as_ref().map(Spanned::span)),
        ("controls", d.controls.as_ref().map(Spanned::span)),
        ("turn", d.turn.first().map(Spanned::span)),
    ];
    if protocol.peer() != Peer::Claude {
        if let Some((name, Some(span))) = own.into_iter().find(|(_, s)| s.is_some()) {
            return Err(at(
                span,
                format!("`{name}` belongs to Claude scenarios (client/claude/)"),
            ));
        }
        return Ok(None);
    }
    let theirs = jsonrpc_fields(d);
    if let Some((name, _)) = theirs.iter().find(|(_, set)| *set) {
        return Err(at(
            d.name.span(),
            format!(
                "`{name}` is a JSON-RPC scenario's; a Claude scenario plays `initialize`, `controls`, `turn`"
            ),
        ));
    }
    let answering = |a: &Option<Spanned<String>>| match a {
        Some(a) => claude::answering(a.get_ref()).map_err(|e| at(a.span(), e)),
        None => Ok(claude::Answering::Success),
    };
    let bytes = |s: &str| crate::unescape::stream_text(s);
    let turn = if d.turn.is_empty() {
        claude::plain_turn()
    } else {
        let defs: Vec<Spanned<claude::ActDef>> = d.turn.clone();
        claude::acts(defs, &bytes).map_err(|(span, m)| at(span, m))?
    };
    Ok(Some(claude::Play {
        initialize: answering(&d.initialize)?,
        controls: answering(&d.controls)?,
        turn,
    }))
}

/// The fields only JSON-RPC scenarios take, and whether `d` sets each (a
/// Claude scenario may set `decoy = "unknown-id"`).
fn jsonrpc_fields(d: &ScenarioDef) -> [(&'static str, bool); 12] {
    [
        ("on_notification", !d.on_notification.is_empty()),
        ("replace", d.replace.is_some()),
        ("result", d.result.is_some()),
        ("error", d.error.is_some()),
        ("exit", d.exit.is_some()),
        ("close", d.close.is_some()),
        ("delay", d.delay.is_some()),
        ("ask", d.ask.is_some()),
        ("ask_params", d.ask_params.is_some()),
        ("order", d.order.is_some()),
        ("requires", !d.requires.is_empty()),
        (
            "decoy",
            d.decoy
                .as_ref()
                .is_some_and(|x| x.get_ref() != "unknown-id"),
        ),
    ]
}

/// What a codex-exec scenario's CLI writes (`None` in the other
/// protocols, which may not use `stream`; a codex-exec scenario takes
/// `writes`, `crlf`, `whitespace` and `stream`).
pub(super) fn exec_stream(
    protocol: Protocol,
    d: &ScenarioDef,
    at: &dyn Fn(std::ops::Range<usize>, String) -> LoadError,
) -> Result<Option<Vec<codex_exec::Act>>, LoadError> {
    if protocol.peer() != Peer::CodexExec {
        if let Some(s) = d.stream.first() {
            return Err(at(
                s.span(),
                "`stream` belongs to codex-exec scenarios (client/codex-exec/)".into(),
            ));
        }
        return Ok(None);
    }
    let mut theirs = jsonrpc_fields(d).to_vec();
    theirs.extend(host_fields(d));
    theirs.extend([
        ("decoy", d.decoy.is_some()),
        ("before", !d.before.is_empty()),
        ("initialize", d.initialize.is_some()),
        ("controls", d.controls.is_some()),
        ("turn", !d.turn.is_empty()),
    ]);
    if let Some((name, _)) = theirs.iter().find(|(_, set)| *set) {
        return Err(at(
            d.name.span(),
            format!(
                "`{name}` is not a codex-exec scenario's; it takes `writes`, `crlf`, `whitespace` and `stream`"
            ),
        ));
    }
    if d.stream.is_empty() {
        return Ok(Some(codex_exec::plain_stream()));
    }
    let bytes = |s: &str| crate::unescape::stream_text(s);
    codex_exec::acts(d.stream.clone(), &bytes)
        .map(Some)
        .map_err(|(span, m)| at(span, m))
}

/// The fields only Codex host scenarios take, and whether `d` sets each.
fn host_fields(d: &ScenarioDef) -> [(&'static str, bool); 5] {
    [
        ("requests", !d.requests.is_empty()),
        ("together", d.together.is_some()),
        ("ids", d.ids.is_some()),
        ("notes", !d.notes.is_empty()),
        ("ending", d.ending.is_some()),
    ]
}

/// What a Codex host scenario's app-server plays (`None` in the other
/// protocols, which may not use its fields; it takes `writes`, `crlf`,
/// `whitespace`, `before` and its own).
pub(super) fn host_play(
    protocol: Protocol,
    d: &ScenarioDef,
    at: &dyn Fn(std::ops::Range<usize>, String) -> LoadError,
) -> Result<Option<codex::Play>, LoadError> {
    if protocol.peer() != Peer::Codex {
        if let Some((name, _)) = host_fields(d).iter().find(|(_, set)| *set) {
            return Err(at(
                d.name.span(),
                format!("`{name}` belongs to Codex host scenarios (client/codex/)"),
            ));
        }
        return Ok(None);
    }
    let mut theirs = jsonrpc_fields(d).to_vec();
    theirs.extend([
        ("decoy", d.decoy.is_some()),
        ("initialize", d.initialize.is_some()),
        ("controls", d.controls.is_some()),
        ("turn", !d.turn.is_empty()),
        ("stream", !d.stream.is_empty()),
    ]);
    if let Some((name, _)) = theirs.iter().find(|(_, set)| *set) {
        return Err(at(
            d.name.span(),
            format!(
                "`{name}` is not a Codex host scenario's; it takes `writes`, `crlf`, `whitespace`, `before`, `requests`, `together`, `ids`, `notes`, `ending`"
            ),
        ));
    }
    let mut play = codex::Play::default();
    if !d.requests.is_empty() {
        play.asks = Vec::new();
        for r in &d.requests {
            let ok = serde_json::from_str::<serde_json::Value>(r.get_ref())
                .ok()
                .is_some_and(|v| {
                    v.get("method").is_some_and(serde_json::Value::is_string)
                        && v.get("id").is_none()
                });
            if !ok {
                return Err(at(
                    r.span(),
                    "each of `requests` is a JSON object with a string `method` and no `id` (the server numbers them)".into(),
                ));
            }
            play.asks.push(r.get_ref().clone());
        }
    }
    for n in &d.notes {
        let ok = serde_json::from_str::<serde_json::Value>(n.get_ref())
            .ok()
            .is_some_and(|v| {
                v.get("method").is_some_and(serde_json::Value::is_string) && v.get("id").is_none()
            });
        if !ok {
            return Err(at(
                n.span(),
                "each of `notes` is a JSON notification: a string `method`, no `id`".into(),
            ));
        }
        play.notes.push(n.get_ref().clone());
    }
    play.together = d.together.unwrap_or(false);
    if let Some(ids) = &d.ids {
        play.ids = match ids.get_ref().as_str() {
            "integer" => codex::Ids::Integer,
            "string" => codex::Ids::String,
            other => {
                return Err(at(
                    ids.span(),
                    format!("ids `{other}` is not one of integer, string"),
                ));
            }
        };
    }
    if let Some(e) = &d.ending {
        play.ending = match e.get_ref().as_str() {
            "completed" => codex::Ending::Completed,
            "failed" => codex::Ending::Failed,
            "exit" => codex::Ending::Exit,
            other => {
                return Err(at(
                    e.span(),
                    format!("ending `{other}` is not one of completed, failed, exit"),
                ));
            }
        };
    }
    Ok(Some(play))
}
