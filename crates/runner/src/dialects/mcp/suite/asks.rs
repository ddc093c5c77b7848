//! The official suite's scenarios in which the server asks the client
//! during a tool call (`--fixtures conformance`, 2025-11-25): sampling,
//! elicitation, and the shapes of an elicitation's requested schema
//! (SEP-1034 defaults, SEP-1330 enums). They run on a process of their
//! own whose client declared sampling, elicitation and roots, and
//! answers what the server asks ([`crate::dialects::mcp::conn::client_answer`]).

use std::mem;

use serde_json::{Value, json};

use super::fixtures::fixture_result;
use super::{
    Check, Evidence, Reply, Revision, Session, Verdict, finding, initialize_params, short,
    table::ASK_CHECKS,
};
use crate::dialects::mcp::{conn::Conn, rules::MCP_FIXTURE_CONTRACT};

/// What the session's own client declares besides `roots`.
const ASKING: &str = r#"{"roots": {"listChanged": false}, "sampling": {}, "elicitation": {}}"#;

/// What the scenario's requests lack: `requests` are the params of the
/// server's requests of the kind the scenario expects.
type Expect = fn(&[Value]) -> Vec<String>;

/// Each scenario's tool, its arguments, the request it makes the server
/// send, and what that request must hold, in the order of [`ASK_CHECKS`].
const ASKS: &[(&str, &str, &str, Expect)] = &[
    (
        "test_sampling",
        r#"{"prompt": "Test prompt for sampling"}"#,
        "sampling/createMessage",
        |_| Vec::new(),
    ),
    (
        "test_elicitation",
        r#"{"message": "Please provide your information"}"#,
        "elicitation/create",
        |_| Vec::new(),
    ),
    (
        "test_elicitation_sep1034_defaults",
        "{}",
        "elicitation/create",
        sep1034,
    ),
    (
        "test_elicitation_sep1330_enums",
        "{}",
        "elicitation/create",
        sep1330,
    ),
];

/// The requested properties of the first request.
fn properties(requests: &[Value]) -> &Value {
    requests
        .first()
        .and_then(|r| r.pointer("/requestedSchema/properties"))
        .unwrap_or(&Value::Null)
}

/// SEP-1034: a default for each primitive type, with the suite's values.
fn sep1034(requests: &[Value]) -> Vec<String> {
    let props = properties(requests);
    let mut missing = Vec::new();
    for (name, kind, default) in [
        ("name", "string", json!("John Doe")),
        ("age", "integer", json!(30)),
        ("score", "number", json!(95.5)),
        ("status", "string", json!("active")),
        ("verified", "boolean", json!(true)),
    ] {
        let Some(p) = props.get(name) else {
            missing.push(format!("no requested property `{name}`"));
            continue;
        };
        if p.get("type") != Some(&json!(kind)) {
            missing.push(format!("`{name}` is not of type {kind}"));
        }
        match p.get("default") {
            None => missing.push(format!("`{name}` has no `default`")),
            Some(d)
                if d.as_f64()
                    .zip(default.as_f64())
                    .map_or(d != &default, |(a, b)| a != b) =>
            {
                missing.push(format!("`{name}`'s default is {d}, not {default}"));
            }
            Some(_) => {}
        }
    }
    let status = props.get("status");
    let listed = status
        .and_then(|s| {
            s.get("enum")?
                .as_array()?
                .iter()
                .find(|v| Some(*v) == s.get("default"))
        })
        .is_some();
    if status.is_some() && !listed {
        missing.push("`status`'s default is not one of its `enum`".into());
    }
    missing
}

/// Whether every item of `list` has a string `const` and `title`.
fn titled(list: Option<&Value>) -> bool {
    list.and_then(Value::as_array).is_some_and(|l| {
        !l.is_empty()
            && l.iter().all(|i| {
                i.get("const").is_some_and(Value::is_string)
                    && i.get("title").is_some_and(Value::is_string)
            })
    })
}

/// SEP-1330: the five enum shapes.
fn sep1330(requests: &[Value]) -> Vec<String> {
    let props = properties(requests);
    let mut missing = Vec::new();
    let mut need = |name: &str, ok: bool, shape: &str| {
        if !ok {
            missing.push(format!("`{name}` is not {shape}"));
        }
    };
    let p = |name: &str| props.get(name).unwrap_or(&Value::Null);
    let is = |v: &Value, t: &str| v.get("type") == Some(&json!(t));
    let array = |v: Option<&Value>| v.is_some_and(Value::is_array);
    let u = p("untitledSingle");
    need(
        "untitledSingle",
        is(u, "string")
            && array(u.get("enum"))
            && u.get("oneOf").is_none()
            && u.get("enumNames").is_none(),
        "a string with `enum` (no `oneOf`, no `enumNames`)",
    );
    let t = p("titledSingle");
    need(
        "titledSingle",
        is(t, "string") && titled(t.get("oneOf")) && t.get("enum").is_none(),
        "a string with `oneOf` of `const` and `title` (no `enum`)",
    );
    let l = p("legacyEnum");
    let same = l.get("enum").and_then(Value::as_array).map(Vec::len)
        == l.get("enumNames").and_then(Value::as_array).map(Vec::len);
    need(
        "legacyEnum",
        is(l, "string") && array(l.get("enum")) && array(l.get("enumNames")) && same,
        "a string with `enum` and as many `enumNames`",
    );
    let um = p("untitledMulti");
    let items = um.get("items").unwrap_or(&Value::Null);
    need(
        "untitledMulti",
        is(um, "array")
            && is(items, "string")
            && array(items.get("enum"))
            && items.get("anyOf").is_none(),
        "an array of strings with `items.enum` (no `items.anyOf`)",
    );
    let tm = p("titledMulti");
    let items = tm.get("items").unwrap_or(&Value::Null);
    need(
        "titledMulti",
        is(tm, "array") && titled(items.get("anyOf")) && items.get("enum").is_none(),
        "an array with `items.anyOf` of `const` and `title` (no `items.enum`)",
    );
    missing
}

impl Session {
    pub(super) fn ask_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        let mut run = Vec::new();
        for (check, ask) in ASK_CHECKS.iter().zip(ASKS) {
            if !wanted(check) {
                continue;
            }
            if !self.calls.fixtures {
                self.results.push(self.without_fixtures(check));
            } else if self.revision != Revision::V2025_11_25 {
                self.results
                    .push(self.not_in_revision(check, "the suite requires it of 2025-11-25 only"));
            } else if !self.declared("tools") {
                self.results.push(self.not_declared(check, "tools"));
            } else {
                run.push((*check, ask));
            }
        }
        if run.is_empty() {
            return;
        }
        let side = match self.asking_session() {
            Ok(conn) => conn,
            Err(why) => {
                for (check, _) in run {
                    self.results.push(super::result_with(
                        check,
                        self.revision.as_str(),
                        vec![(*why).clone()],
                    ));
                }
                return;
            }
        };
        // The checks run on the asking session; the transcript graders
        // read it with the session's other processes.
        let main = mem::replace(&mut self.conn, side);
        for (check, (tool, arguments, method, expect)) in run {
            self.check(check, |s| s.run_ask(tool, arguments, method, *expect));
        }
        // Closed as a client closes: stdin first (a server that lingers
        // is `mcp/shutdown/stdin-eof`'s to grade, on the main process).
        let mut side = mem::replace(&mut self.conn, main);
        side.shut_down(std::time::Duration::from_millis(500));
        self.past.push(side);
    }

    /// A new process, opened by a client that declared sampling and
    /// elicitation.
    fn asking_session(&mut self) -> Result<Conn, Box<Evidence>> {
        let mut conn = Conn::spawn(
            &self.target,
            &self.opts.budget,
            self.revision,
            self.opts.startup,
            self.opts.timeout,
        )?;
        let capabilities: Value = serde_json::from_str(ASKING).expect("valid JSON");
        conn.declare(capabilities.clone());
        let mut params = initialize_params(self.revision.as_str());
        params["capabilities"] = capabilities;
        let deadline = conn.deadline();
        match conn.request("initialize", params, deadline) {
            Reply::Result(_) => {
                conn.notify("notifications/initialized", Value::Null);
                Ok(conn)
            }
            other => Err(Box::new(Evidence::note(
                Verdict::Crash,
                format!(
                    "a second session, as a client that declares sampling and elicitation: `initialize` got {}",
                    other.describe()
                ),
            ))),
        }
    }

    fn run_ask(
        &mut self,
        tool: &str,
        arguments: &str,
        method: &str,
        expect: Expect,
    ) -> Vec<Evidence> {
        if let Some(why) = self.unlisted("tools/call", tool) {
            return vec![why];
        }
        let from = self.conn.lines.len();
        let arguments: Value = serde_json::from_str(arguments).expect("the table's JSON");
        let reply = self.ask("tools/call", json!({"name": tool, "arguments": arguments}));
        let requests: Vec<Value> = self.conn.lines[from..]
            .iter()
            .filter_map(|l| l.value.as_ref())
            .filter(|v| {
                v.get("id").is_some() && v.get("method").and_then(Value::as_str) == Some(method)
            })
            .map(|v| v.get("params").cloned().unwrap_or(Value::Null))
            .collect();
        let what = format!("the fixture `{tool}`");
        let result = match fixture_result(&what, reply) {
            Ok(r) => r,
            Err(e) => return e,
        };
        let mut missing = Vec::new();
        if requests.is_empty() {
            missing.push(format!("it sent no `{method}` to the client"));
        } else {
            missing.extend(expect(&requests));
        }
        if result
            .get("content")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        {
            missing.push("its result has no content".into());
        }
        if missing.is_empty() {
            return vec![Evidence::note(
                Verdict::Pass,
                format!("{what} asked `{method}`, then answered {}", short(&result)),
            )];
        }
        missing
            .into_iter()
            .map(|m| finding(&MCP_FIXTURE_CONTRACT, format!("{what}: {m}")))
            .collect()
    }
}
