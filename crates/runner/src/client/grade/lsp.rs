//! The LSP session's graders: the lifecycle as the language client ran it
//! (`initialize` first and once, nothing before its result, `initialized`
//! next, nothing but `exit` after `shutdown`, the session ended with
//! them), its ids, and its answers to the server's `$/` requests.

use serde_json::Value;

use super::{ASK_ID, Evidence, Observed, Verdict, same_id};
use crate::{
    client::declares,
    dialects::lsp::{
        LSP_CLIENT_AFTER_SHUTDOWN, LSP_CLIENT_INITIALIZE, LSP_CLIENT_INITIALIZED,
        LSP_CLIENT_SHUTDOWN, LSP_DOLLAR_REQUEST, LSP_ID, is_id,
    },
};

/// The LSP session as the client ran it.
pub(crate) fn lsp_session(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    let messages: Vec<Option<Value>> = o
        .client_lines
        .iter()
        .map(|l| serde_json::from_slice(l).ok())
        .collect();
    let method = |m: &Value| m.get("method").and_then(Value::as_str).map(str::to_owned);
    let is_request = |m: &Value| m.get("id").is_some() && method(m).is_some();
    let named = |n: usize| {
        messages[n].as_ref().and_then(method).map_or_else(
            || "a message that is no request or notification".to_owned(),
            |m| format!("`{m}`"),
        )
    };
    let initialize: Vec<usize> = (0..messages.len())
        .filter(|&n| {
            messages[n]
                .as_ref()
                .is_some_and(|m| is_request(m) && method(m).as_deref() == Some("initialize"))
        })
        .collect();
    match initialize.first() {
        None if !messages.is_empty() => out.push(Evidence::broke(
            &LSP_CLIENT_INITIALIZE,
            format!(
                "the client never sent `initialize`; its first message was {}",
                named(0)
            ),
        )),
        None => {}
        Some(&first) => {
            if first > 0 {
                out.push(Evidence::broke(
                    &LSP_CLIENT_INITIALIZE,
                    format!(
                        "message {} the client wrote, before `initialize`, is {}",
                        1,
                        named(0)
                    ),
                ));
            }
            if let Some(&again) = initialize.get(1) {
                out.push(Evidence::broke(
                    &LSP_CLIENT_INITIALIZE,
                    format!("the client sent `initialize` again (message {})", again + 1),
                ));
            }
            if let Some(replied) = o.log.initialize_replied {
                let early = (first + 1..replied.min(messages.len())).next();
                if let Some(n) = early {
                    out.push(Evidence::broke(
                        &LSP_CLIENT_INITIALIZE,
                        format!(
                            "message {} the client wrote, {}, came before the initialize result",
                            n + 1,
                            named(n)
                        ),
                    ));
                }
                initialized(o, &messages, replied, out);
            }
        }
    }
    shutdown(o, &messages, out);
    for m in messages.iter().flatten().filter(|m| is_request(m)) {
        if let Some(id) = m.get("id").filter(|id| !is_id(id)) {
            out.push(Evidence::broke(
                &LSP_ID,
                format!(
                    "the client's `{}` has the id {id}: LSP's ids are strings or integers of 32 bits",
                    method(m).unwrap_or_default()
                ),
            ));
            break;
        }
    }
    asks(o, out);
    // Every message LSP's meta-model names, and every answer to a request
    // of the server's, against it.
    let model = crate::dialects::lsp::model::model();
    let mut shapes: Vec<_> = messages
        .iter()
        .flatten()
        .flat_map(|m| model.call(m))
        .collect();
    for ask in &o.log.asks {
        if let Some(answer) = &ask.answer {
            shapes.extend(model.reply(&ask.method, answer));
        }
    }
    out.extend(crate::dialects::lsp::shape_evidence(shapes));
}

/// After the initialize result (`replied` messages in), the client's next
/// message is `initialized`.
fn initialized(
    o: &Observed<'_>,
    messages: &[Option<Value>],
    replied: usize,
    out: &mut Vec<Evidence>,
) {
    // A session the server ended at once has no next message to judge.
    if o.scenario.exit.is_some() || o.scenario.close.is_some() {
        return;
    }
    let next = messages
        .iter()
        .enumerate()
        .skip(replied)
        .find_map(|(n, m)| Some((n, m.as_ref()?)));
    let is_initialized = |m: &Value| {
        m.get("method").and_then(Value::as_str) == Some("initialized") && m.get("id").is_none()
    };
    match next {
        Some((_, m)) if is_initialized(m) => {}
        Some((n, m)) => out.push(Evidence::broke(
            &LSP_CLIENT_INITIALIZED,
            format!(
                "the client's first message after the initialize result (message {}) is `{}`, not the `initialized` notification",
                n + 1,
                m.get("method").and_then(Value::as_str).unwrap_or("a reply")
            ),
        )),
        None => out.push(Evidence::broke(
            &LSP_CLIENT_INITIALIZED,
            "the client never sent the `initialized` notification after the initialize result".into(),
        )),
    }
}

/// Nothing but `exit` after `shutdown`; the session ended with both,
/// unless the scenario's server ended it first.
fn shutdown(o: &Observed<'_>, messages: &[Option<Value>], out: &mut Vec<Evidence>) {
    let method = |m: &Value| m.get("method").and_then(Value::as_str).map(str::to_owned);
    let at = messages.iter().position(|m| {
        m.as_ref()
            .is_some_and(|m| m.get("id").is_some() && method(m).as_deref() == Some("shutdown"))
    });
    let server_ended = o.scenario.exit.is_some() || o.scenario.close.is_some();
    let Some(at) = at else {
        if !server_ended && o.log.initialize_replied.is_some() && !o.timed_out {
            out.push(Evidence::broke(
                &LSP_CLIENT_SHUTDOWN,
                "the client ended the session without `shutdown` and `exit`".into(),
            ));
        }
        return;
    };
    let after: Vec<(usize, &Value)> = messages
        .iter()
        .enumerate()
        .skip(at + 1)
        .filter_map(|(n, m)| Some((n, m.as_ref()?)))
        .collect();
    // The client's answers to the server's requests are neither.
    if let Some((n, m)) = after
        .iter()
        .find(|(_, m)| method(m).is_some_and(|name| name != "exit"))
    {
        out.push(Evidence::broke(
            &LSP_CLIENT_AFTER_SHUTDOWN,
            format!(
                "message {} the client wrote, `{}`, came after its `shutdown`",
                n + 1,
                method(m).unwrap_or_default()
            ),
        ));
    }
    let exited = after
        .iter()
        .any(|(_, m)| method(m).as_deref() == Some("exit") && m.get("id").is_none());
    if !exited && !server_ended && !o.timed_out {
        out.push(Evidence::broke(
            &LSP_CLIENT_SHUTDOWN,
            "the client sent `shutdown` but never the `exit` notification".into(),
        ));
    }
}

/// The server's request, as the client answered it: made only if the
/// client declared the capability that allows it (else the scenario is
/// SKIPPED), and a `$/` request refused with -32601.
fn asks(o: &Observed<'_>, out: &mut Vec<Evidence>) {
    let sc = o.scenario;
    if let (Some(ask), Some(pointer), true) = (&sc.ask, &sc.ask_if, o.log.asks.is_empty()) {
        let declared = o
            .log
            .answers
            .iter()
            .find(|a| a.method == "initialize")
            .is_some_and(|a| declares(&a.params, pointer));
        if !declared {
            out.push(Evidence::note(
                Verdict::Skipped,
                format!(
                    "the client's initialize params do not declare {pointer}: the server may not ask `{ask}`"
                ),
            ));
            return;
        }
    }
    if let (Some(ask), true) = (&sc.ask, o.log.asks.is_empty()) {
        // Nothing unobserved passes.
        out.push(Evidence::note(
            Verdict::Skipped,
            format!(
                "the server never asked `{ask}`: the client made no request after `initialize` to ask it before"
            ),
        ));
    }
    for ask in o.log.asks.iter().filter(|a| a.method.starts_with("$/")) {
        let Some(answer) = &ask.answer else { continue };
        let code = answer.pointer("/error/code").and_then(Value::as_i64);
        if code != Some(-32601) || !answer.get("id").is_some_and(|id| same_id(id, ASK_ID)) {
            out.push(Evidence::broke(
                &LSP_DOLLAR_REQUEST,
                format!(
                    "the server's `{}` was answered {}, not with the error -32601 MethodNotFound",
                    ask.method,
                    super::short(answer)
                ),
            ));
        }
    }
}
