//! The checks that read what a server lists, fixture-free: its resources
//! (one of each MIME type), a template's expansion, its prompts with
//! arguments made from their declarations, and a subscription. rpcspec
//! reads only what the server names, and grades what comes back against
//! the revision's schema; reading, getting and subscribing change nothing
//! a client could not.

use serde_json::{Map, Value, json};

use super::{
    Check, Evidence, Reply, Session, Verdict, finding, short,
    table::{
        PROMPTS_GET, PROMPTS_MISSING_ARGUMENT, RESOURCES_READ, RESOURCES_SUBSCRIBE, TEMPLATES_READ,
    },
};
use crate::dialects::mcp::rules::{MCP_DECLARED_METHOD, MCP_PROMPTS_MISSING_ARGUMENT, MCP_SCHEMA};

/// At most this many resources read, prompts got, values completed.
const MAX_READS: usize = 4;
const MAX_PROMPTS: usize = 16;
const MAX_COMPLETIONS: usize = 8;

impl Session {
    pub(super) fn read_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        for (check, capability) in [
            (RESOURCES_READ, "resources"),
            (TEMPLATES_READ, "resources"),
            (RESOURCES_SUBSCRIBE, "resources"),
            (PROMPTS_GET, "prompts"),
            (PROMPTS_MISSING_ARGUMENT, "prompts"),
        ] {
            if !wanted(check) {
                continue;
            }
            if check.id == RESOURCES_SUBSCRIBE.id && !self.revision.has_initialize() {
                self.results.push(self.not_in_revision(
                    check,
                    "`resources/subscribe` is replaced by `subscriptions/listen`",
                ));
                continue;
            }
            if !self.declared(capability) {
                self.results.push(self.not_declared(check, capability));
                continue;
            }
            if check.id == RESOURCES_SUBSCRIBE.id
                && self.capabilities.pointer("/resources/subscribe") != Some(&Value::Bool(true))
            {
                self.results.push(self.skipped(
                    check,
                    "not declared: the server's `resources` capability has no `subscribe: true`"
                        .into(),
                ));
                continue;
            }
            self.check(check, |s| match check.id {
                id if id == RESOURCES_READ.id => s.read_resources(),
                id if id == TEMPLATES_READ.id => s.read_template(),
                id if id == RESOURCES_SUBSCRIBE.id => s.subscribe(),
                id if id == PROMPTS_GET.id => s.get_prompts(),
                _ => s.missing_argument(),
            });
        }
    }

    /// The items of a list, or the stall or crash that ended it: the
    /// list's own findings are `mcp/…/list`'s.
    pub(super) fn items(
        &mut self,
        method: &str,
        member: &str,
    ) -> Result<Vec<Value>, Box<Evidence>> {
        let (items, evidence) = self.list_all(method, member);
        match evidence
            .into_iter()
            .find(|e| matches!(e.verdict, Verdict::Timeout | Verdict::Crash))
        {
            Some(gone) => Err(Box::new(gone)),
            None => Ok(items),
        }
    }

    /// [`Session::items`], or SKIPPED when there are none.
    fn listed(
        &mut self,
        method: &str,
        member: &str,
        what: &str,
    ) -> Result<Vec<Value>, Box<Evidence>> {
        let items = self.items(method, member)?;
        if items.is_empty() {
            return Err(Box::new(Evidence::note(
                Verdict::Skipped,
                format!("the server lists no {what}: nothing to read"),
            )));
        }
        Ok(items)
    }

    /// `result` against the revision's result of `method`: a finding of
    /// `mcp.schema` per way it misses it (five at most).
    fn result_problems(&self, method: &str, result: &Value, what: &str) -> Vec<Evidence> {
        crate::dialects::mcp::schema::validate(
            self.revision,
            &json!({"jsonrpc": "2.0", "id": "rpcspec", "result": result}),
            crate::dialects::mcp::schema::Role::Reply(Some(method)),
        )
        .into_iter()
        .take(5)
        .map(|e| {
            finding(
                &MCP_SCHEMA,
                format!("the result of `{method}` for {what}: {e}"),
            )
        })
        .collect()
    }

    /// A reply that is not a result: a finding of a declared method
    /// answered otherwise, a stall or a crash.
    fn not_a_result(method: &str, what: &str, reply: &Reply) -> Evidence {
        match reply {
            Reply::NoReply => Evidence::note(
                Verdict::Timeout,
                format!("`{method}` of {what} got no reply"),
            ),
            Reply::Gone => Evidence::note(
                Verdict::Crash,
                format!("`{method}` of {what}: the server closed stdout or exited"),
            ),
            other => finding(
                &MCP_DECLARED_METHOD,
                format!(
                    "`{method}` of {what}, which the server lists, got {}",
                    other.describe()
                ),
            ),
        }
    }

    fn read_resources(&mut self) -> Vec<Evidence> {
        let resources = match self.listed("resources/list", "resources", "resources") {
            Ok(r) => r,
            Err(why) => return vec![*why],
        };
        // One of each MIME type: text and binary shapes both, where listed.
        let mut picked: Vec<(String, Option<String>)> = Vec::new();
        for r in &resources {
            let Some(uri) = r.get("uri").and_then(Value::as_str) else {
                continue;
            };
            let mime = r.get("mimeType").and_then(Value::as_str).map(str::to_owned);
            if picked.len() < MAX_READS && !picked.iter().any(|(_, m)| *m == mime) {
                picked.push((uri.to_owned(), mime));
            }
        }
        let mut evidence = Vec::new();
        for (uri, _) in picked {
            let what = format!("the resource {uri}");
            match self.ask("resources/read", json!({ "uri": uri })) {
                Reply::Result(result) => {
                    let found = self.result_problems("resources/read", &result, &what);
                    if found.is_empty() {
                        evidence.push(Evidence::note(
                            Verdict::Pass,
                            format!("read {uri}: {}", contents_of(&result)),
                        ));
                    }
                    evidence.extend(found);
                }
                other => {
                    let gone = matches!(other, Reply::NoReply | Reply::Gone);
                    evidence.push(Self::not_a_result("resources/read", &what, &other));
                    if gone {
                        break;
                    }
                }
            }
        }
        evidence
    }

    fn read_template(&mut self) -> Vec<Evidence> {
        let templates = match self.listed(
            "resources/templates/list",
            "resourceTemplates",
            "resource templates",
        ) {
            Ok(t) => t,
            Err(why) => return vec![*why],
        };
        // The first template of simple `{name}` expressions (RFC 6570
        // level 1) only: rpcspec expands no operator.
        let Some((template, names)) = templates.iter().find_map(|t| {
            let template = t.get("uriTemplate")?.as_str()?;
            simple_variables(template).map(|names| (template.to_owned(), names))
        }) else {
            return vec![Evidence::note(
                Verdict::Skipped,
                "no template of the server has only simple `{name}` variables: rpcspec expands no operator".into(),
            )];
        };
        let mut made_up = Vec::new();
        let mut uri = template.clone();
        for name in &names {
            let value = self
                .complete(json!({"type": "ref/resource", "uri": template}), name)
                .unwrap_or_else(|| {
                    made_up.push(name.clone());
                    "1".to_owned()
                });
            uri = uri.replace(&format!("{{{name}}}"), &percent_encode(&value));
        }
        let what = format!("the template {template} expanded to {uri}");
        match self.ask("resources/read", json!({ "uri": uri })) {
            Reply::Result(result) => {
                let found = self.result_problems("resources/read", &result, &what);
                if found.is_empty() {
                    vec![Evidence::note(
                        Verdict::Pass,
                        format!("read {uri}: {}", contents_of(&result)),
                    )]
                } else {
                    found
                }
            }
            Reply::Error(e) => vec![Evidence::note(
                Verdict::Skipped,
                format!(
                    "reading {what} got the error {}: {}nothing to check",
                    short(&e),
                    if made_up.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "rpcspec made up the value 1 for {} (no completion), ",
                            made_up.join(", ")
                        )
                    }
                ),
            )],
            other => vec![Self::not_a_result("resources/read", &what, &other)],
        }
    }

    fn subscribe(&mut self) -> Vec<Evidence> {
        let resources = match self.listed("resources/list", "resources", "resources") {
            Ok(r) => r,
            Err(why) => return vec![*why],
        };
        let Some(uri) = resources.iter().find_map(|r| r.get("uri")?.as_str()) else {
            return vec![Evidence::note(
                Verdict::Skipped,
                "no listed resource has a `uri`".into(),
            )];
        };
        let uri = uri.to_owned();
        let what = format!("the resource {uri}, with `subscribe` declared,");
        let mut evidence = Vec::new();
        for method in ["resources/subscribe", "resources/unsubscribe"] {
            match self.ask(method, json!({ "uri": uri })) {
                Reply::Result(result) => {
                    evidence.extend(self.result_problems(method, &result, &what))
                }
                other => {
                    evidence.push(Self::not_a_result(method, &what, &other));
                    return evidence;
                }
            }
        }
        if evidence.is_empty() {
            evidence.push(Evidence::note(
                Verdict::Pass,
                format!("subscribed to {uri} and unsubscribed"),
            ));
        }
        evidence
    }

    fn get_prompts(&mut self) -> Vec<Evidence> {
        let prompts = match self.listed("prompts/list", "prompts", "prompts") {
            Ok(p) => p,
            Err(why) => return vec![*why],
        };
        let mut evidence = Vec::new();
        let (mut got, mut refused) = (0, Vec::new());
        let mut completions = 0;
        for prompt in prompts.iter().take(MAX_PROMPTS) {
            let Some(name) = prompt.get("name").and_then(Value::as_str) else {
                continue;
            };
            let required = required_arguments(prompt);
            let mut arguments = Map::new();
            for arg in &required {
                let value = if completions < MAX_COMPLETIONS {
                    completions += 1;
                    self.complete(json!({"type": "ref/prompt", "name": name}), arg)
                } else {
                    None
                };
                arguments.insert(
                    arg.clone(),
                    Value::String(value.unwrap_or_else(|| "rpcspec".into())),
                );
            }
            let what = if required.is_empty() {
                format!("the prompt `{name}`")
            } else {
                format!(
                    "the prompt `{name}` with {}",
                    Value::Object(arguments.clone())
                )
            };
            let mut params = json!({ "name": name });
            if !arguments.is_empty() {
                params["arguments"] = Value::Object(arguments);
            }
            match self.ask("prompts/get", params) {
                Reply::Result(result) => {
                    got += 1;
                    evidence.extend(self.result_problems("prompts/get", &result, &what));
                }
                // Values rpcspec made up may be refused: not graded.
                Reply::Error(e) if !required.is_empty() => {
                    refused.push(format!("{what}: {}", short(&e)))
                }
                other => {
                    let gone = matches!(other, Reply::NoReply | Reply::Gone);
                    evidence.push(Self::not_a_result("prompts/get", &what, &other));
                    if gone {
                        return evidence;
                    }
                }
            }
        }
        if !refused.is_empty() {
            evidence.push(Evidence::note(
                if got == 0 && evidence.is_empty() {
                    Verdict::Skipped
                } else {
                    Verdict::Pass
                },
                format!(
                    "refused the arguments rpcspec made up, not graded: {}",
                    refused.join("; ")
                ),
            ));
        }
        if got > 0 && evidence.iter().all(|e| e.verdict == Verdict::Pass) {
            evidence.push(Evidence::note(
                Verdict::Pass,
                format!("got {got} prompts, each of its schema"),
            ));
        }
        evidence
    }

    fn missing_argument(&mut self) -> Vec<Evidence> {
        let prompts = match self.listed("prompts/list", "prompts", "prompts") {
            Ok(p) => p,
            Err(why) => return vec![*why],
        };
        let Some((name, arg)) = prompts.iter().find_map(|p| {
            let name = p.get("name")?.as_str()?;
            Some((name.to_owned(), required_arguments(p).into_iter().next()?))
        }) else {
            return vec![Evidence::note(
                Verdict::Skipped,
                "no prompt of the server declares a required argument".into(),
            )];
        };
        let reply = self.ask("prompts/get", json!({ "name": name }));
        match reply.code() {
            Some(-32602) => vec![Evidence::note(
                Verdict::Pass,
                format!("`{name}` without its required `{arg}` got -32602"),
            )],
            _ => match reply {
                Reply::NoReply | Reply::Gone => vec![Self::not_a_result(
                    "prompts/get",
                    &format!("the prompt `{name}`"),
                    &reply,
                )],
                other => vec![finding(
                    &MCP_PROMPTS_MISSING_ARGUMENT,
                    format!(
                        "getting the prompt `{name}` without `{arg}`, an argument it declares required, got {}, not error -32602",
                        other.describe()
                    ),
                )],
            },
        }
    }

    /// The first value `completion/complete` offers for `argument` of
    /// `reference`, when the server declared `completions`.
    fn complete(&mut self, reference: Value, argument: &str) -> Option<String> {
        if !self.declared("completions") {
            return None;
        }
        let reply = self.ask(
            "completion/complete",
            json!({"ref": reference, "argument": {"name": argument, "value": ""}}),
        );
        let Reply::Result(result) = reply else {
            return None;
        };
        result
            .pointer("/completion/values/0")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

/// The names of a prompt's required arguments.
fn required_arguments(prompt: &Value) -> Vec<String> {
    prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|a| a.get("required") == Some(&Value::Bool(true)))
        .filter_map(|a| a.get("name")?.as_str().map(str::to_owned))
        .collect()
}

/// The variable names of a URI template of simple expressions only
/// (`{name}`, RFC 6570 level 1); `None` for an operator, an explode, a
/// prefix or a brace out of place.
fn simple_variables(template: &str) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let name = &after[..close];
        let simple = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%');
        if !simple {
            return None;
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        rest = &after[close + 1..];
    }
    (!rest.contains('}')).then_some(names)
}

/// `value` as a simple expansion writes it (RFC 6570 §3.2.2: unreserved
/// characters as they are, every other byte percent-encoded).
fn percent_encode(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What a read's contents are, in a few words: `text (text/plain)`.
fn contents_of(result: &Value) -> String {
    let contents = result.get("contents").and_then(Value::as_array);
    let Some(contents) = contents.filter(|c| !c.is_empty()) else {
        return "no contents".into();
    };
    contents
        .iter()
        .take(4)
        .map(|c| {
            let shape = if c.get("blob").is_some() {
                "blob"
            } else {
                "text"
            };
            match c.get("mimeType").and_then(Value::as_str) {
                Some(m) => format!("{shape} ({m})"),
                None => shape.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::{percent_encode, simple_variables};

    #[test]
    fn only_simple_templates_are_expanded() {
        assert_eq!(
            simple_variables("test://template/{id}/data"),
            Some(vec!["id".to_owned()])
        );
        assert_eq!(
            simple_variables("a://{x}/{y}/{x}"),
            Some(vec!["x".to_owned(), "y".to_owned()])
        );
        assert_eq!(simple_variables("file:///static"), Some(vec![]));
        for operator in [
            "a://{+path}",
            "a://{?q}",
            "a://{x*}",
            "a://{x",
            "a://x}",
            "a://{}",
        ] {
            assert_eq!(simple_variables(operator), None, "{operator}");
        }
        assert_eq!(percent_encode("a b/é~"), "a%20b%2F%C3%A9~");
    }
}
