//! The checks of the features a server declares: tools, resources,
//! prompts, pagination, and the methods of what it did not declare.

use serde_json::{Value, json};

use super::{
    Check, Evidence, Reply, Revision, Session, Verdict, finding, grade, short,
    table::{
        COMPLETION, INVALID_CURSOR, PROMPTS_LIST, PROMPTS_UNKNOWN, RESOURCES_LIST,
        RESOURCES_UNKNOWN, TOOLS_LIST, TOOLS_UNKNOWN, UNDECLARED,
    },
};
use crate::dialects::mcp::rules::{
    MCP_DECLARED_METHOD, MCP_PAGINATION_ENDS, MCP_PAGINATION_INVALID, MCP_PROMPTS_UNKNOWN,
    MCP_RESOURCES_EMPTY_CONTENTS, MCP_RESOURCES_NOT_FOUND_URI, MCP_RESOURCES_UNKNOWN,
    MCP_TOOLS_INPUT_SCHEMA, MCP_TOOLS_NAME, MCP_TOOLS_UNKNOWN, MCP_UNDECLARED_METHOD,
};

impl Session {
    pub(super) fn feature_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        self.tool_checks(wanted);
        self.resource_checks(wanted);
        self.prompt_checks(wanted);
        self.completion_check(wanted);
        self.cursor_check(wanted);
        self.undeclared_check(wanted);
    }

    /// The tools' checks: the list (each tool's input schema and name, names
    /// unique), and a call of an unknown tool.
    fn tool_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(TOOLS_LIST) {
            if self.declared("tools") {
                self.check(TOOLS_LIST, |s| {
                    let (items, mut evidence) = s.list_all("tools/list", "tools");
                    let mut seen = std::collections::HashMap::new();
                    for tool in &items {
                        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                        match tool.get("inputSchema") {
                            None => evidence.push(finding(&MCP_TOOLS_INPUT_SCHEMA, format!("tool `{name}` has no `inputSchema`"))),
                            Some(schema) => {
                                use crate::dialects::mcp::schema::{SchemaProblem, schema_problems};
                                match schema_problems(schema) {
                                    Some(SchemaProblem::NotAnObject(why)) => evidence.push(finding(&MCP_TOOLS_INPUT_SCHEMA, format!("tool `{name}`: `inputSchema` is {why}"))),
                                    // 2025-06-18 names no draft: only the schema's shape is its rule.
                                    Some(SchemaProblem::Invalid(why)) if s.revision >= Revision::V2025_11_25 => evidence.push(finding(&MCP_TOOLS_INPUT_SCHEMA, format!("tool `{name}`: `inputSchema` is {why}"))),
                                    Some(SchemaProblem::Invalid(why) | SchemaProblem::Unusable(why)) => evidence.push(Evidence::note(Verdict::Pass, format!("tool `{name}`: `inputSchema`: {why} (not graded)"))),
                                    None => {}
                                }
                                if schema.is_object() && schema.get("type").and_then(Value::as_str) != Some("object") {
                                    evidence.push(finding(&MCP_TOOLS_INPUT_SCHEMA, format!("tool `{name}`: `inputSchema` is not of type \"object\": {}", short(schema))));
                                }
                            }
                        }
                        if s.revision >= Revision::V2025_11_25
                            && let Some(why) = grade::tool_name_problem(name)
                        {
                            evidence.push(finding(&MCP_TOOLS_NAME, format!("tool name {name:?} {why}")));
                        }
                        *seen.entry(name.to_owned()).or_insert(0) += 1;
                    }
                    let mut twice: Vec<_> = seen.into_iter().filter(|(_, n)| *n > 1).collect();
                    twice.sort();
                    for (name, n) in twice {
                        evidence.push(finding(&MCP_TOOLS_NAME, format!("tool name `{name}` is listed {n} times: names are unique within a server")));
                    }
                    evidence
                });
            } else {
                self.results.push(self.not_declared(TOOLS_LIST, "tools"));
            }
        }
        if wanted(TOOLS_UNKNOWN) {
            if self.declared("tools") {
                self.check(TOOLS_UNKNOWN, |s| {
                    let reply = s.ask("tools/call", json!({"name": "rpcspec-no-such-tool", "arguments": {}}));
                    match &reply {
                        Reply::Error(_) => Vec::new(),
                        Reply::Result(r) if r.get("isError") == Some(&Value::Bool(true)) => vec![finding(
                            &MCP_TOOLS_UNKNOWN,
                            format!("an unknown tool got a result with `isError: true` ({}), where the section lists unknown tools under protocol errors", short(r)),
                        )],
                        other => vec![finding(&MCP_TOOLS_UNKNOWN, format!("calling the unknown tool `rpcspec-no-such-tool` got {}", other.describe()))],
                    }
                });
            } else {
                self.results.push(self.not_declared(TOOLS_UNKNOWN, "tools"));
            }
        }
    }

    /// The resources' checks: the lists of resources and templates, and a
    /// read of an unknown resource.
    fn resource_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(RESOURCES_LIST) {
            if self.declared("resources") {
                self.check(RESOURCES_LIST, |s| {
                    let (_, mut evidence) = s.list_all("resources/list", "resources");
                    let (_, more) = s.list_all("resources/templates/list", "resourceTemplates");
                    evidence.extend(more);
                    evidence
                });
            } else {
                self.results
                    .push(self.not_declared(RESOURCES_LIST, "resources"));
            }
        }
        if wanted(RESOURCES_UNKNOWN) {
            if self.declared("resources") {
                self.check(RESOURCES_UNKNOWN, |s| {
                    let uri = "rpcspec://no-such-resource/0";
                    let reply = s.ask("resources/read", json!({"uri": uri}));
                    let want = s.revision.resource_not_found();
                    let empty = matches!(&reply, Reply::Result(r)
                        if r.get("contents").and_then(Value::as_array).is_some_and(Vec::is_empty));
                    match reply.code() {
                        Some(code) if code == want => match &reply {
                            Reply::Error(e) if e.pointer("/data/uri").and_then(Value::as_str) != Some(uri) => {
                                vec![finding(
                                    &MCP_RESOURCES_NOT_FOUND_URI,
                                    format!("the not-found error for {uri} does not name it in `data.uri`: {}", short(e)),
                                )]
                            }
                            _ => Vec::new(),
                        },
                        _ if empty && !s.revision.has_initialize() => vec![finding(
                            &MCP_RESOURCES_EMPTY_CONTENTS,
                            format!(
                                "reading the unknown resource {uri} got an empty `contents`: {}",
                                reply.describe()
                            ),
                        )],
                        _ => vec![finding(
                            &MCP_RESOURCES_UNKNOWN,
                            format!(
                                "reading the unknown resource {uri} got {}, not error {want}",
                                reply.describe()
                            ),
                        )],
                    }
                });
            } else {
                self.results
                    .push(self.not_declared(RESOURCES_UNKNOWN, "resources"));
            }
        }
    }

    /// The prompts' checks: the list, and a get of an unknown prompt.
    fn prompt_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(PROMPTS_LIST) {
            if self.declared("prompts") {
                self.check(PROMPTS_LIST, |s| s.list_all("prompts/list", "prompts").1);
            } else {
                self.results
                    .push(self.not_declared(PROMPTS_LIST, "prompts"));
            }
        }
        if wanted(PROMPTS_UNKNOWN) {
            if self.declared("prompts") {
                self.check(PROMPTS_UNKNOWN, |s| {
                    let reply = s.ask("prompts/get", json!({"name": "rpcspec-no-such-prompt"}));
                    match reply.code() {
                        Some(-32602) => Vec::new(),
                        _ => vec![finding(&MCP_PROMPTS_UNKNOWN, format!("getting the unknown prompt `rpcspec-no-such-prompt` got {}, not error -32602", reply.describe()))],
                    }
                });
            } else {
                self.results
                    .push(self.not_declared(PROMPTS_UNKNOWN, "prompts"));
            }
        }
    }

    /// `completion/complete` of the first prompt argument, with `completions`
    /// and `prompts` declared.
    fn completion_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(COMPLETION) {
            if !self.declared("completions") {
                self.results
                    .push(self.not_declared(COMPLETION, "completions"));
            } else if !self.declared("prompts") {
                self.results.push(self.skipped(
                    COMPLETION,
                    "not declared: the server declared `completions` but no `prompts`, whose arguments rpcspec completes".into(),
                ));
            } else {
                self.check(COMPLETION, |s| {
                    let (prompts, mut evidence) = s.list_all("prompts/list", "prompts");
                    let argument = prompts.iter().find_map(|p| {
                        let name = p.get("name")?.as_str()?;
                        let arg = p.get("arguments")?.as_array()?.first()?.get("name")?.as_str()?;
                        Some((name.to_owned(), arg.to_owned()))
                    });
                    let Some((prompt, arg)) = argument else {
                        evidence.push(Evidence::note(
                            Verdict::Skipped,
                            "not declared: no prompt of the server takes an argument to complete".into(),
                        ));
                        return evidence;
                    };
                    let reply = s.ask(
                        "completion/complete",
                        json!({"ref": {"type": "ref/prompt", "name": prompt}, "argument": {"name": arg, "value": ""}}),
                    );
                    match reply {
                        Reply::Result(_) => {}
                        Reply::Error(_) if reply.code() != Some(-32601) => {}
                        Reply::NoReply => evidence.push(Evidence::note(
                            Verdict::Timeout,
                            "`completion/complete` got no reply".into(),
                        )),
                        other => evidence.push(finding(
                            &MCP_DECLARED_METHOD,
                            format!(
                                "`completion/complete` of prompt `{prompt}`'s argument `{arg}`, with `completions` declared, got {}",
                                other.describe()
                            ),
                        )),
                    }
                    evidence
                });
            }
        }
    }

    /// A cursor the server never gave, sent to the first list it declared.
    fn cursor_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(INVALID_CURSOR) {
            let list = [
                ("tools", "tools/list"),
                ("resources", "resources/list"),
                ("prompts", "prompts/list"),
            ]
            .into_iter()
            .find(|(c, _)| self.declared(c));
            match list {
                Some((_, method)) => self.check(INVALID_CURSOR, |s| {
                    let reply = s.ask(method, json!({"cursor": "rpcspec-not-a-cursor"}));
                    match reply.code() {
                        Some(-32602) => Vec::new(),
                        _ => vec![finding(&MCP_PAGINATION_INVALID, format!("`{method}` with the cursor \"rpcspec-not-a-cursor\", which it never gave, got {}", reply.describe()))],
                    }
                }),
                None => self.results.push(self.not_declared(INVALID_CURSOR, "tools`, `resources` or `prompts")),
            }
        }
    }

    /// The methods of the capabilities the server did not declare: each
    /// must be -32601.
    fn undeclared_check(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        if wanted(UNDECLARED) {
            let undeclared: Vec<(&str, &str, Value)> = [
                ("tools", "tools/list", json!({})),
                ("resources", "resources/list", json!({})),
                ("prompts", "prompts/list", json!({})),
                ("completions", "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "rpcspec"}, "argument": {"name": "a", "value": ""}})),
            ]
            .into_iter()
            .filter(|(c, _, _)| !self.declared(c))
            .collect();
            if !self.capabilities.is_object() {
                self.results.push(self.skipped(
                    UNDECLARED,
                    "the server declared no capabilities object: there is nothing to tell undeclared methods by".into(),
                ));
            } else if undeclared.is_empty() {
                self.results.push(self.skipped(
                    UNDECLARED,
                    "the server declared tools, resources, prompts and completions: no undeclared method to call".into(),
                ));
            } else {
                self.check(UNDECLARED, |s| {
                    let mut evidence = Vec::new();
                    for (capability, method, params) in undeclared {
                        let reply = s.ask(method, params);
                        if reply.code() != Some(-32601) {
                            evidence.push(finding(
                                &MCP_UNDECLARED_METHOD,
                                format!("`{method}` (capability `{capability}`, not declared) got {}, not error -32601", reply.describe()),
                            ));
                        }
                    }
                    evidence
                });
            }
        }
    }

    /// Every item of a paginated list, following `nextCursor`; findings
    /// of `mcp.pagination.terminates` and of requests that failed.
    pub(super) fn list_all(&mut self, method: &str, member: &str) -> (Vec<Value>, Vec<Evidence>) {
        const MAX_PAGES: usize = 100;
        let mut items = Vec::new();
        let mut evidence = Vec::new();
        let mut cursors: Vec<String> = Vec::new();
        let mut params = json!({});
        for page in 1..=MAX_PAGES {
            let reply = self.ask(method, params.clone());
            let Reply::Result(result) = reply else {
                evidence.push(match reply {
                    Reply::NoReply => Evidence::note(
                        Verdict::Timeout,
                        format!("`{method}` (page {page}) got no reply"),
                    ),
                    Reply::Gone => Evidence::note(
                        Verdict::Crash,
                        format!("`{method}` (page {page}): the server closed stdout or exited"),
                    ),
                    other => finding(
                        &MCP_DECLARED_METHOD,
                        format!(
                            "`{method}` (page {page}), of a capability the server declared, got {}",
                            other.describe()
                        ),
                    ),
                });
                return (items, evidence);
            };
            if let Some(list) = result.get(member).and_then(Value::as_array) {
                items.extend(list.iter().cloned());
            }
            let Some(next) = result.get("nextCursor").and_then(Value::as_str) else {
                return (items, evidence);
            };
            if cursors.iter().any(|c| c == next) {
                evidence.push(finding(
                    &MCP_PAGINATION_ENDS,
                    format!("`{method}` page {page} gave the cursor {next:?} again: following `nextCursor` never ends"),
                ));
                return (items, evidence);
            }
            cursors.push(next.to_owned());
            params = json!({"cursor": next});
        }
        evidence.push(finding(
            &MCP_PAGINATION_ENDS,
            format!(
                "`{method}` still had a `nextCursor` after {MAX_PAGES} pages ({} items)",
                items.len()
            ),
        ));
        (items, evidence)
    }
}
