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
//! * `"method": "$call"`, `, "params": "$call-params"` (or `-extra`,
//!   `-recased`: the params got wrong on purpose) and `"$call-reply":
//!   true`: a call that succeeds, and its result. It is the first that fits
//!   the case ([`Need`]) of the target file's `[call]`, else of the
//!   dialect's (MCP: `ping`; the Codex app-server: `account/read`; JSON-RPC
//!   2.0: the §7 examples `get_data` and `subtract`, unless the run is
//!   `--without` them). Where none fits, a case marked `or_unknown_method`
//!   asks a method no server has ([`unknown_method`]); any other is
//!   SKIPPED, saying how to give one.

use crate::{
    cases::{Case, Expect, Send},
    dialects::{Call, Serving},
};

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
    /// The probe a dialect gives as data.
    pub fn of(call: &Call) -> Probe {
        Probe {
            method: call.method.to_owned(),
            params: call.params.map(str::to_owned),
            reply: call.reply.to_owned(),
        }
    }

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

/// The params placeholders of a `$call`, exactly as a send line writes
/// them: replaced by the call's params (removed when it has none), by its
/// params with one too many, or by its by-name params with their names'
/// case changed.
const CALL_PARAMS: &str = r#", "params": "$call-params""#;
const CALL_PARAMS_EXTRA: &str = r#", "params": "$call-params-extra""#;
const CALL_PARAMS_RECASED: &str = r#", "params": "$call-params-recased""#;

/// The member a by-name call gets to have one param too many.
const EXTRA_MEMBER: &str = "rpcspec_extra";

/// What a case asks of its `$call`, from the strictest of its send lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Need {
    /// Any call that succeeds.
    Any,
    /// One that takes no params: the case sends none.
    Bare,
    /// One that takes params, sent with one too many.
    Params,
    /// One that takes params by name, sent with their names' case changed.
    ByName,
}

impl Probe {
    fn params_json(&self) -> Option<serde_json::Value> {
        serde_json::from_str(self.params.as_deref()?).ok()
    }

    /// The params with one too many: a trailing `0`, or a member
    /// [`EXTRA_MEMBER`].
    fn params_extra(&self) -> Option<String> {
        match self.params_json()? {
            serde_json::Value::Array(mut a) => {
                a.push(0.into());
                Some(serde_json::Value::Array(a).to_string())
            }
            serde_json::Value::Object(mut o) if !o.contains_key(EXTRA_MEMBER) => {
                o.insert(EXTRA_MEMBER.to_owned(), 0.into());
                Some(serde_json::Value::Object(o).to_string())
            }
            _ => None,
        }
    }

    /// The by-name params with each name's ASCII case swapped, if that
    /// changes every name and makes no two alike.
    fn params_recased(&self) -> Option<String> {
        let serde_json::Value::Object(o) = self.params_json()? else {
            return None;
        };
        let swap = |k: &str| -> String {
            k.chars()
                .map(|c| match c {
                    'a'..='z' => c.to_ascii_uppercase(),
                    'A'..='Z' => c.to_ascii_lowercase(),
                    c => c,
                })
                .collect()
        };
        let n = o.len();
        let recased: serde_json::Map<String, serde_json::Value> =
            o.into_iter().map(|(k, v)| (swap(&k), v)).collect();
        let changed = n > 0 && recased.len() == n && recased.keys().all(|k| swap(k) != *k);
        changed.then(|| serde_json::Value::Object(recased).to_string())
    }

    /// Whether the call can serve a case that needs `need`.
    pub fn fits(&self, need: Need) -> bool {
        match need {
            Need::Any => true,
            Need::Bare => self.params.is_none(),
            Need::Params => self.params_extra().is_some(),
            Need::ByName => self.params_recased().is_some(),
        }
    }
}

/// What `case`'s `$call` must be able to do.
pub fn need(case: &Case) -> Need {
    let lines = case.steps.iter().flat_map(|s| match &s.send {
        Send::Lines(l) | Send::Raw(l) => l.iter(),
    });
    lines
        .map(|b| {
            if contains(b, CALL_PARAMS_RECASED.as_bytes()) {
                Need::ByName
            } else if contains(b, CALL_PARAMS_EXTRA.as_bytes()) {
                Need::Params
            } else if contains(b, b"\"$call\"") && !contains(b, b"\"params\"") {
                Need::Bare
            } else {
                Need::Any
            }
        })
        .max()
        .unwrap_or(Need::Any)
}

/// The first of `calls` that can serve a case that needs `need`.
pub fn choose(calls: &[Probe], need: Need) -> Option<&Probe> {
    calls.iter().find(|c| c.fits(need))
}

/// Why a case that needs `need` cannot run with `calls`: SKIPPED's message.
pub fn missing(calls: &[Probe], need: Need) -> String {
    let give = "give one as `[call]` in a target file (`rpcspec run --target FILE`)";
    let methods: Vec<String> = calls.iter().map(|c| format!("`{}`", c.method)).collect();
    let what = match need {
        Need::Any => "a call that succeeds",
        Need::Bare => "a call that succeeds and takes no params",
        Need::Params => "a call that succeeds and takes params",
        Need::ByName => {
            "a call that succeeds and takes params by name, with letters in their names"
        }
    };
    if methods.is_empty() {
        format!("it needs {what}, and none is known for this target: {give}")
    } else {
        format!(
            "it needs {what}, and the target's ({}) does not: {give}",
            methods.join(", ")
        )
    }
}

/// With no call that fits, a case marked `or_unknown_method` sends its
/// `$call` to a method no server has, and expects -32601 Method not found
/// (JSON-RPC 2.0 §5.1) for its `$call-reply`: a request valid enough to be
/// looked up gets that far.
pub fn unknown_method() -> Probe {
    Probe {
        method: "rpcspec/no-such-method".to_owned(),
        params: None,
        reply: r#""error": {"code": -32601, "message": "$string"}"#.to_owned(),
    }
}

/// The probe of a dialect whose server role is `serving`, if it has one.
pub fn probe(serving: &Serving) -> Option<Probe> {
    serving.probe.as_ref().map(Probe::of)
}

/// The calls known to succeed on a target of a dialect whose server role is
/// `serving`, best first, leaving out what the run says the target lacks
/// (`without`).
pub fn default_calls(serving: &Serving, without: &[String]) -> Vec<Probe> {
    let has = |m: &str| !without.iter().any(|w| w == m);
    serving
        .calls
        .iter()
        .filter(|c| c.needs.is_none_or(has))
        .map(Probe::of)
        .collect()
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
                for (placeholder, derived) in [
                    (CALL_PARAMS_EXTRA, probe.params_extra()),
                    (CALL_PARAMS_RECASED, probe.params_recased()),
                ] {
                    if let Some(p) = derived {
                        let p = format!(r#", "params": {p}"#);
                        *line = replace(line, placeholder.as_bytes(), p.as_bytes());
                    }
                }
            }
            let placeholder = format!("\"{}\"", slot.method());
            // A probe's params, if it has any, follow its method.
            let with = match slot {
                Slot::Probe => format!("{method}{params}"),
                Slot::Call => method.clone(),
            };
            *line = replace(line, placeholder.as_bytes(), with.as_bytes());
        }
    }
    case
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

fn replace(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return hay.to_vec();
    }
    let mut out = Vec::with_capacity(hay.len());
    let mut rest = 0;
    // Matches that do not overlap, from the left.
    for at in memchr::memmem::find_iter(hay, from) {
        out.extend_from_slice(&hay[rest..at]);
        out.extend_from_slice(to);
        rest = at + from.len();
    }
    out.extend_from_slice(&hay[rest..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_puts_in_every_match_from_the_left() {
        assert_eq!(replace(b"a$x$xb$x", b"$x", b"YY"), b"aYYYYbYY");
        assert_eq!(replace(b"aaa", b"aa", b"b"), b"ba");
        assert_eq!(replace(b"none", b"$x", b"YY"), b"none");
        assert!(contains(b"a\"$probe\"", b"$probe"));
        assert!(!contains(b"$prob", b"$probe"));
    }

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
        assert_eq!(need(&case), Need::Any);
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
        let ping = Probe::call("ping", None, r#""$object""#);
        let put = put(&one_case(CALLS), Slot::Call, &ping);
        assert_eq!(
            sent(&put)[0],
            r#"{"jsonrpc": "2.0", "method": "ping", "id": 1}"#
        );
    }

    #[test]
    fn defaults_follow_the_dialect_and_the_features() {
        let serving = |name: &str| &crate::dialects::find(name).expect(name).0.serve;
        let methods = |name: &str, without: &[&str]| -> Vec<String> {
            let without: Vec<String> = without.iter().map(|w| w.to_string()).collect();
            default_calls(serving(name), &without)
                .into_iter()
                .map(|c| c.method)
                .collect()
        };
        let ping = Probe::call("ping", None, r#""$object""#);
        assert_eq!(
            default_calls(serving("mcp"), &[]),
            std::slice::from_ref(&ping)
        );
        assert_eq!(probe(serving("mcp")), Some(ping));
        assert_eq!(
            methods("jsonrpc2", &[]),
            ["get_data", "subtract", "subtract"]
        );
        assert_eq!(methods("jsonrpc2", &["get_data"]), ["subtract", "subtract"]);
        assert!(methods("lenient", &["get_data", "subtract"]).is_empty());
        assert_eq!(methods("codex", &[]), ["account/read"]);
        assert!(methods("events", &[]).is_empty());
        assert!(methods("lsp", &[]).is_empty());
        assert!(probe(serving("claude")).is_none());
        let lsp = probe(serving("lsp")).expect("a probe");
        assert_eq!(
            (lsp.method.as_str(), lsp.params.as_deref()),
            ("rpcspec/probe", Some("{}"))
        );
        assert_eq!(probe(serving("jsonrpc2")).expect("a probe").params, None);
    }

    fn case_sending(line: &str) -> Case {
        one_case(&format!(
            "[[case]]\nname = \"x\"\ntitle = \"t\"\nsection = \"s\"\n[[case.step]]\nsend = '{line}'\nexpect = \"{{}}\"\n"
        ))
    }

    #[test]
    fn a_case_needs_what_its_placeholders_ask() {
        let need_of = |params: &str| {
            need(&case_sending(&format!(
                r#"{{"jsonrpc": "2.0", "method": "$call"{params}, "id": 1}}"#
            )))
        };
        assert_eq!(need_of(""), Need::Bare);
        assert_eq!(need_of(r#", "params": "$call-params""#), Need::Any);
        assert_eq!(need_of(r#", "params": 42"#), Need::Any);
        assert_eq!(need_of(r#", "params": "$call-params-extra""#), Need::Params);
        assert_eq!(
            need_of(r#", "params": "$call-params-recased""#),
            Need::ByName
        );
    }

    #[test]
    fn params_are_got_wrong_from_the_calls_own() {
        let by_position = Probe::call("add", Some("[1, 2]"), "3");
        let by_name = Probe::call("add", Some(r#"{"a": 1, "bB": 2}"#), "3");
        let bare = Probe::call("now", None, "$number");
        assert_eq!(by_position.params_extra().as_deref(), Some("[1,2,0]"));
        assert_eq!(
            by_name.params_extra().as_deref(),
            Some(r#"{"a":1,"bB":2,"rpcspec_extra":0}"#)
        );
        assert_eq!(
            by_name.params_recased().as_deref(),
            Some(r#"{"A":1,"Bb":2}"#)
        );
        assert_eq!(by_position.params_recased(), None);
        assert_eq!(bare.params_extra(), None);
        // A name with no letter cannot change case; an empty object has none.
        assert_eq!(
            Probe::call("m", Some(r#"{"a": 1, "2": 2}"#), "1").params_recased(),
            None
        );
        assert_eq!(Probe::call("m", Some("{}"), "1").params_recased(), None);
        let calls = [bare.clone(), by_position.clone(), by_name.clone()];
        assert_eq!(choose(&calls, Need::Bare), Some(&bare));
        assert_eq!(choose(&calls, Need::Params), Some(&by_position));
        assert_eq!(choose(&calls, Need::ByName), Some(&by_name));
        assert_eq!(choose(&calls[..2], Need::ByName), None);
        assert!(missing(&calls[..2], Need::ByName).contains("`now`, `add`"));
        let case = case_sending(
            r#"{"jsonrpc": "2.0", "method": "$call", "params": "$call-params-recased", "id": 1}"#,
        );
        assert_eq!(
            sent(&put(&case, Slot::Call, &by_name)),
            [r#"{"jsonrpc": "2.0", "method": "add", "params": {"A":1,"Bb":2}, "id": 1}"#]
        );
    }
}
