//! What an MCP server declares, asked once before a run on a process of
//! its own (the I/O of MCP fuzzing; `mcp.rs` draws for it): the methods
//! its capabilities open, and the first page of its tools, prompts,
//! resources and resource templates.

use serde_json::{Value, json};

use crate::{
    cases::Preamble,
    dialects::mcp::{
        Revision,
        conn::{Conn, Reply, initialize_params},
        schema,
    },
    target::Target,
};

/// The tools whose calls the fuzzer may draw (`--tool`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Tools {
    /// None: calls name a tool that does not exist.
    #[default]
    None,
    /// These, by name.
    Named(Vec<String>),
    /// Every tool the server lists (`--tool '*'`).
    All,
}

/// A tool the server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Its name.
    pub name: String,
    /// Its `inputSchema`.
    pub input_schema: Value,
    /// Whether `--tool` lets the fuzzer call it.
    pub allowed: bool,
}

/// A prompt the server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// Its name.
    pub name: String,
    /// Its arguments' names, and whether each is required.
    pub arguments: Vec<(String, bool)>,
}

/// What an MCP server declares: the methods its capabilities open, and
/// the first page of each of its lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// The revision the server answered `initialize` with.
    pub revision: Revision,
    /// The requests its capabilities declare, `ping` first.
    pub methods: Vec<&'static str>,
    /// Its tools.
    pub tools: Vec<Tool>,
    /// Its prompts.
    pub prompts: Vec<Prompt>,
    /// Its resources' URIs.
    pub resources: Vec<String>,
    /// Its resource templates' `uriTemplate`s.
    pub templates: Vec<String>,
}

/// The most items of each list a surface keeps.
const MAX_ITEMS: usize = 256;

/// The revision the run's MCP handshake offers (the preamble's
/// `initialize`), if it offers a known one.
fn offered(preambles: &[Preamble]) -> Option<Revision> {
    let preamble = preambles.iter().find(|p| p.dialect == "mcp")?;
    preamble.steps.iter().find_map(|step| match &step.send {
        crate::cases::Send::Lines(lines) => lines.iter().find_map(|l| {
            let v: Value = serde_json::from_slice(l).ok()?;
            (v["method"] == "initialize")
                .then(|| v.pointer("/params/protocolVersion")?.as_str()?.parse().ok())
                .flatten()
        }),
        crate::cases::Send::Raw(_) => None,
    })
}

/// The methods `capabilities` declare in `revision`, `ping` first.
pub(super) fn declared(revision: Revision, capabilities: &Value) -> Vec<&'static str> {
    let has = |c: &str| capabilities.get(c).is_some_and(Value::is_object);
    let flag = |c: &str, f: &str| capabilities.pointer(&format!("/{c}/{f}")) == Some(&json!(true));
    let mut methods = Vec::new();
    if revision.has_ping() {
        methods.push("ping");
    }
    if has("tools") {
        methods.extend(["tools/list", "tools/call"]);
    }
    if has("prompts") {
        methods.extend(["prompts/list", "prompts/get"]);
    }
    if has("resources") {
        methods.extend([
            "resources/list",
            "resources/read",
            "resources/templates/list",
        ]);
        if flag("resources", "subscribe") {
            methods.extend(["resources/subscribe", "resources/unsubscribe"]);
        }
    }
    if has("logging") && revision.has_set_level() {
        methods.push("logging/setLevel");
    }
    if has("completions") {
        methods.push("completion/complete");
    }
    if capabilities
        .pointer("/tasks/list")
        .is_some_and(Value::is_object)
    {
        methods.push("tasks/list");
    }
    methods.retain(|m| schema::knows(revision, m));
    methods
}

/// Asks `target` what it declares: the handshake the run's preamble
/// offers, then the first page of each list its capabilities declare.
/// An error says in one line why no surface could be had.
pub fn discover(
    target: &Target,
    run: &crate::exec::RunOptions,
    tools: &Tools,
) -> Result<Surface, String> {
    let offer = offered(&run.preambles).unwrap_or(Revision::NEWEST_LEGACY);
    let mut conn = Conn::spawn(target, &run.budget, offer, run.startup, run.timeout)
        .map_err(|e| e.message.clone())?;
    let surface = ask(&mut conn, offer, tools);
    conn.kill();
    surface
}

fn ask(conn: &mut Conn, offer: Revision, allowed: &Tools) -> Result<Surface, String> {
    let reply = conn.request(
        "initialize",
        initialize_params(offer.as_str()),
        conn.deadline(),
    );
    let Reply::Result(init) = reply else {
        return Err(format!("`initialize` got {}", reply.describe()));
    };
    let revision = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.parse::<Revision>().ok())
        .filter(|r| r.has_initialize())
        .unwrap_or(offer);
    conn.notify("notifications/initialized", Value::Null);
    let capabilities = init.get("capabilities").cloned().unwrap_or(Value::Null);
    let methods = declared(revision, &capabilities);
    let mut list = |method: &str, member: &str| -> Vec<Value> {
        if !methods.contains(&method) {
            return Vec::new();
        }
        match conn.request(method, json!({}), conn.deadline()) {
            Reply::Result(r) => r
                .get(member)
                .and_then(Value::as_array)
                .map(|items| items.iter().take(MAX_ITEMS).cloned().collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let tools = list("tools/list", "tools")
        .iter()
        .filter_map(|t| {
            let name = text(t, "name")?;
            let allowed = match allowed {
                Tools::None => false,
                Tools::All => true,
                Tools::Named(names) => names.contains(&name),
            };
            Some(Tool {
                name,
                input_schema: t.get("inputSchema").cloned().unwrap_or(json!({})),
                allowed,
            })
        })
        .collect();
    let prompts = list("prompts/list", "prompts")
        .iter()
        .filter_map(|p| {
            let arguments = p
                .get("arguments")
                .and_then(Value::as_array)
                .map(|args| {
                    args.iter()
                        .filter_map(|a| Some((text(a, "name")?, a["required"] == json!(true))))
                        .collect()
                })
                .unwrap_or_default();
            Some(Prompt {
                name: text(p, "name")?,
                arguments,
            })
        })
        .collect();
    let resources = list("resources/list", "resources")
        .iter()
        .filter_map(|r| text(r, "uri"))
        .collect();
    let templates = list("resources/templates/list", "resourceTemplates")
        .iter()
        .filter_map(|t| text(t, "uriTemplate"))
        .collect();
    Ok(Surface {
        revision,
        methods,
        tools,
        prompts,
        resources,
        templates,
    })
}
