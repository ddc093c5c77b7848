//! Probes: requests whose answer is known on a target that has none of the
//! JSON-RPC 2.0 §7 examples' methods, put into a case before it runs.
//!
//! A case names them with placeholders (spec-cases/README.md, "Probes"):
//!
//! * `"method": "$probe"` and `"$probe-reply": true`: a request every
//!   target of the dialect answers, and the members of its reply. Plain
//!   JSON-RPC has no method every server has, so its probe is a method no
//!   server has, answered by any error with the exact id (the code itself
//!   is `jsonrpc/examples/method-not-found`'s business, so a wrong code
//!   fails that case alone); MCP has `ping`.
//! * `"method": "$call"`, `, "params": "$call-params"` and
//!   `"$call-reply": true`: a call that succeeds, and its result. It comes
//!   from the target file's `[call]`, else from the dialect (MCP: `ping`;
//!   the Codex app-server: `account/read`; JSON-RPC 2.0: the §7 example
//!   `get_data`, unless the run is `--without get_data`). A case that needs one where there is none is
//!   SKIPPED, saying how to give one.

use rpcspec_matcher::Dialect;

use crate::cases::{Case, Expect, Send};

/// A request whose answer is known: its method, params, and the members
/// its reply holds besides `jsonrpc` and `id`, as pattern text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The method requested.
    pub method: String,
    /// The params, as JSON text; `None`: the request has no `params`.
    pub params: Option<String>,
    /// The reply's members, as pattern text (`"result": "$object"`).
    pub reply: String,
}

impl Probe {
    /// A call that succeeds: `method` with `params`, whose result matches
    /// the pattern text `result`.
    pub fn call(method: &str, params: Option<&str>, result: &str) -> Probe {
        Probe {
            method: method.to_owned(),
            params: params.map(str::to_owned),
            reply: format!(r#""result": {result}"#),
        }
    }
}

/// The two kinds of placeholder a case may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// `$probe`: any answer the dialect guarantees.
    Probe,
    /// `$call`: a call that succeeds.
    Call,
}

impl Slot {
    /// The method placeholder, as written in a send line.
    fn method(self) -> &'static str {
        match self {
            Slot::Probe => "$probe",
            Slot::Call => "$call",
        }
    }

    /// The pattern member that stands for the reply.
    pub fn reply_member(self) -> &'static str {
        match self {
            Slot::Probe => "$probe-reply",
            Slot::Call => "$call-reply",
        }
    }
}

/// The params placeholder of a `$call`, exactly as a send line writes it:
/// replaced by the call's params, or removed when it has none.
const CALL_PARAMS: &str = r#", "params": "$call-params""#;

/// The probe of `dialect`, if it has one.
pub fn probe(dialect: &Dialect) -> Option<Probe> {
    match dialect {
        Dialect::Jsonrpc2 | Dialect::Lenient => Some(Probe {
            method: "rpcspec/probe".to_owned(),
            params: None,
            reply: r#""error": "$object""#.to_owned(),
        }),
        Dialect::Mcp => Some(ping()),
        _ => None,
    }
}

/// The call known to succeed on a target of `dialect` opened by
/// `handshake`, if the dialect knows one and the run does not say the
/// target lacks it (`without`).
pub fn default_call(dialect: &Dialect, handshake: &str, without: &[String]) -> Option<Probe> {
    match dialect {
        Dialect::Mcp => Some(ping()),
        // Needs no login: "account": null when there is none (checked
        // against @openai/codex 0.171.0; `params` is required).
        Dialect::Lenient if handshake == "codex" => {
            Some(Probe::call("account/read", Some("{}"), r#""$object""#))
        }
        Dialect::Jsonrpc2 | Dialect::Lenient
            if handshake != "codex" && !without.iter().any(|w| w == "get_data") =>
        {
            Some(Probe::call("get_data", None, r#"["hello", 5]"#))
        }
        _ => None,
    }
}

/// MCP's `ping`: "The receiver MUST respond promptly with an empty
/// response" (basic/utilities/ping); any object is accepted as the result.
fn ping() -> Probe {
    Probe::call("ping", None, r#""$object""#)
}

/// Whether `case` sends or expects the placeholder of `slot`.
pub fn uses(case: &Case, slot: Slot) -> bool {
    let needle = slot.method().as_bytes();
    let sends = |step: &crate::cases::Step| match &step.send {
        Send::Lines(l) | Send::Raw(l) => l.iter().any(|b| contains(b, needle)),
    };
    let expects = |e: &Expect| match e {
        Expect::Messages(ps) | Expect::Batch(ps) => {
            ps.iter().any(|p| p.has_member(slot.reply_member()))
        }
        _ => false,
    };
    case.steps.iter().any(|s| {
        sends(s) || expects(&s.expect) || s.alternatives.iter().any(|a| expects(&a.expect))
    })
}

/// Whether `case` sends the `$call` with no `params` at all, so that it
/// needs a call that takes none (`jsonrpc/params/absent`). A case that
/// sends its own params (`null`, `42`) does not.
pub fn needs_bare_call(case: &Case) -> bool {
    case.steps.iter().any(|s| match &s.send {
        Send::Lines(l) | Send::Raw(l) => l
            .iter()
            .any(|b| contains(b, b"\"$call\"") && !contains(b, b"\"params\"")),
    })
}

/// `case` with `probe` put in for the placeholders of `slot`.
pub fn put(case: &Case, slot: Slot, probe: &Probe) -> Case {
    let mut case = case.map_patterns(|p| p.with_members(slot.reply_member(), &probe.reply));
    let method = serde_json::Value::from(probe.method.as_str()).to_string();
    let params = probe
        .params
        .as_ref()
        .map_or(String::new(), |p| format!(r#", "params": {p}"#));
    for step in &mut case.steps {
        let (Send::Lines(lines) | Send::Raw(lines)) = &mut step.send;
        for line in lines {
            if slot == Slot::Call {
                *line = replace(line, CALL_PARAMS.as_bytes(), params.as_bytes());
            }
            let placeholder = format!("\"{}\"", slot.method());
            *line = replace(line, placeholder.as_bytes(), method.as_bytes());
        }
    }
    case
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn replace(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_case(text: &str) -> Case {
        crate::cases::load_str(std::path::Path::new("t.toml"), text)
            .unwrap()
            .remove(0)
    }

    fn sent(case: &Case) -> Vec<String> {
        let (Send::Lines(l) | Send::Raw(l)) = &case.steps[0].send;
        l.iter()
            .map(|b| String::from_utf8(b.clone()).unwrap())
            .collect()
    }

    fn expected(case: &Case) -> Vec<String> {
        match &case.steps[0].expect {
            Expect::Messages(ps) => ps.iter().map(|p| p.text().to_owned()).collect(),
            _ => Vec::new(),
        }
    }

    const CALLS: &str = r#"
[[case]]
name = "x"
title = "t"
section = "s"

[[case.step]]
send = ['{"jsonrpc": "2.0", "method": "$call", "params": "$call-params", "id": 1}', '{"jsonrpc": "2.0", "method": "$probe", "id": 2}']
expect = ['{"jsonrpc": "2.0", "$call-reply": true, "id": 1}', '{"jsonrpc": "2.0", "$probe-reply": true, "id": 2}']
"#;

    #[test]
    fn a_call_puts_in_its_method_params_and_result() {
        let case = one_case(CALLS);
        assert!(uses(&case, Slot::Call) && uses(&case, Slot::Probe));
        assert!(!needs_bare_call(&case));
        let call = Probe::call("tools/list", Some("{}"), r#"{"tools": "$array"}"#);
        let put = put(&case, Slot::Call, &call);
        assert_eq!(
            sent(&put),
            [
                r#"{"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 1}"#,
                r#"{"jsonrpc": "2.0", "method": "$probe", "id": 2}"#
            ]
        );
        assert_eq!(
            expected(&put)[0],
            r#"{"jsonrpc": "2.0", "result": {"tools": "$array"}, "id": 1}"#
        );
        assert!(!uses(&put, Slot::Call) && uses(&put, Slot::Probe));
    }

    #[test]
    fn a_call_without_params_leaves_the_member_out() {
        let put = put(&one_case(CALLS), Slot::Call, &ping());
        assert_eq!(
            sent(&put)[0],
            r#"{"jsonrpc": "2.0", "method": "ping", "id": 1}"#
        );
    }

    #[test]
    fn defaults_follow_the_dialect_and_the_features() {
        assert_eq!(default_call(&Dialect::Mcp, "mcp", &[]), Some(ping()));
        let get_data = default_call(&Dialect::Jsonrpc2, "jsonrpc2", &[]).unwrap();
        assert_eq!(get_data.method, "get_data");
        assert_eq!(
            default_call(&Dialect::Jsonrpc2, "jsonrpc2", &["get_data".to_owned()]),
            None
        );
        let account = default_call(&Dialect::Lenient, "codex", &[]).unwrap();
        assert_eq!(account.method, "account/read");
        assert_eq!(
            default_call(&Dialect::Events(Default::default()), "events", &[]),
            None
        );
        assert!(probe(&Dialect::Claude).is_none());
    }
}
