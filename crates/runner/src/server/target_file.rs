//! Target files (`rpcspec run --target FILE`): what to run, in which
//! dialect, what it lacks, its handshake and a call known to succeed, in
//! one TOML file kept beside the server.
//!
//! ```toml
//! command = ["npx", "mcp-server-everything", "stdio"]
//! dialect = "mcp"                 # default: jsonrpc2
//! without = ["subtract"]          # features it lacks (`rpcspec list`)
//! timeout = "10s"                 # deadline per case
//! startup_timeout = "30s"         # for a process to show it is reading
//! budget = "256MiB"               # per (case, plan): `--budget`
//!
//! [call]                          # a call that succeeds, for the cases
//! method = "tools/list"           # that need one (`$call`)
//! params = '{}'                   # JSON text; leave out for no params
//! result = '{"tools": "$array"}'  # a pattern; default "$any"
//!
//! [[preamble]]                    # a handshake instead of the shipped one,
//! dialect = "mcp"                 # as in spec-cases/preambles.toml
//! ...
//!
//! [mcp]                           # tool calls the MCP checks may make
//! call = { tool = "echo", arguments = '{"text": "hi"}' }   # safe: no side effects
//! slow = { tool = "sleep", arguments = '{"ms": 2000}' }    # takes a second or more
//! failing = { tool = "echo", arguments = '{}' }            # fails as a tool (bad input)
//! asks_client = { tool = "list_roots" }                    # makes the server ask the client
//! ```
//!
//! Options given on the command line win over the file's; `--without`
//! adds to its list. `command` may be left out when the command line gives
//! it after `--` (the matrix's manifests do). Errors say file:line:column.

use std::{ffi::OsString, ops::Range, path::Path, time::Duration};

use serde::Deserialize;
use toml::Spanned;

pub use crate::dialects::mcp::suite::{ToolCall, ToolCalls};
use crate::{
    budget::Budget,
    cases::{LoadError, Preamble, PreambleDef, parse_toml, preambles_from},
    pattern::Pattern,
    probe::Probe,
};

/// A loaded target file.
#[derive(Debug, Clone)]
pub struct TargetFile {
    /// The command and its arguments, run without a shell; empty when the
    /// file leaves it to the command line (after `--`).
    pub command: Vec<OsString>,
    /// The `--dialect` name, if the file gives one.
    pub dialect: Option<String>,
    /// Features the target lacks.
    pub without: Vec<String>,
    /// The deadline per case, if the file gives one.
    pub timeout: Option<Duration>,
    /// The start-up limit (`--startup-timeout`), if the file gives one.
    pub startup_timeout: Option<Duration>,
    /// The budget per (case, plan) (`--budget`), if the file gives one.
    pub budget: Option<Budget>,
    /// A call that succeeds on the target.
    pub call: Option<Probe>,
    /// Handshakes that replace the shipped ones of their dialects.
    pub preambles: Vec<Preamble>,
    /// Tool calls the MCP checks may make (`[mcp]`).
    pub mcp: ToolCalls,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    command: Option<Spanned<Vec<String>>>,
    dialect: Option<Spanned<String>>,
    #[serde(default)]
    without: Vec<String>,
    timeout: Option<Spanned<String>>,
    startup_timeout: Option<Spanned<String>>,
    budget: Option<Spanned<String>>,
    call: Option<Spanned<CallDef>>,
    #[serde(default)]
    preamble: Vec<Spanned<PreambleDef>>,
    mcp: Option<McpDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct McpDef {
    call: Option<Spanned<ToolCallDef>>,
    slow: Option<Spanned<ToolCallDef>>,
    failing: Option<Spanned<ToolCallDef>>,
    asks_client: Option<Spanned<ToolCallDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallDef {
    tool: String,
    arguments: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallDef {
    method: String,
    params: Option<Spanned<String>>,
    result: Option<Spanned<String>>,
}

/// Most seconds a target file's `timeout` may be (as `--timeout`).
pub const MAX_TIMEOUT_SECS: f64 = 3600.0;

/// Reads and checks the target file at `path`.
pub fn load(path: &Path) -> Result<TargetFile, LoadError> {
    let text = crate::cases::read_text(path, path)?;
    parse(path, &text)
}

/// Parses the target file `file`, whose text is `text`.
pub fn parse(file: &Path, text: &str) -> Result<TargetFile, LoadError> {
    let at = |span: Range<usize>, message: String| LoadError::at(file, text, span, message);
    let def: FileDef = parse_toml(file, text)?;
    let command = match def.command {
        Some(command) => {
            let span = command.span();
            let command = command.into_inner();
            if command.first().is_none_or(|c| c.is_empty()) {
                return Err(at(
                    span,
                    "`command` is empty: give the program and its arguments".into(),
                ));
            }
            command
        }
        None => Vec::new(),
    };
    let dialect = match def.dialect {
        Some(d) if crate::dialects::dialect_named(d.as_ref()).is_none() => {
            let why = crate::dialects::unknown(d.as_ref(), |r| r.server, "a target file");
            return Err(at(d.span(), why));
        }
        d => d.map(Spanned::into_inner),
    };
    let timeout = match def.timeout {
        Some(t) => Some(duration(t.as_ref(), MAX_TIMEOUT_SECS).map_err(|e| at(t.span(), e))?),
        None => None,
    };
    let startup_timeout = match def.startup_timeout {
        Some(t) => Some(duration(t.as_ref(), MAX_TIMEOUT_SECS).map_err(|e| at(t.span(), e))?),
        None => None,
    };
    let budget = match def.budget {
        Some(b) => Some(Budget::parse(b.as_ref()).map_err(|e| at(b.span(), e))?),
        None => None,
    };
    let call = match def.call {
        Some(call) => Some(call_probe(call, &at)?),
        None => None,
    };
    let mcp = match def.mcp {
        Some(def) => tool_calls(def, &at)?,
        None => ToolCalls::default(),
    };
    Ok(TargetFile {
        mcp,
        command: command.into_iter().map(OsString::from).collect(),
        dialect,
        without: def.without,
        timeout,
        startup_timeout,
        budget,
        call,
        preambles: preambles_from(def.preamble, file, text)?,
    })
}

/// `[call]`: a call that succeeds, its `params` JSON (an object or an
/// array), its `result` a pattern (by default `"$any"`).
fn call_probe(
    call: Spanned<CallDef>,
    at: &impl Fn(Range<usize>, String) -> LoadError,
) -> Result<Probe, LoadError> {
    let span = call.span();
    let call = call.into_inner();
    if call.method.is_empty() {
        return Err(at(span, "`call.method` is empty".into()));
    }
    let params = match call.params {
        Some(p) => {
            let json: serde_json::Value = serde_json::from_str(p.as_ref())
                .map_err(|e| at(p.span(), format!("`call.params` is not JSON: {e}")))?;
            if !(json.is_object() || json.is_array()) {
                return Err(at(
                    p.span(),
                    "`call.params` must be an object or an array (JSON-RPC 2.0 §4.2)".into(),
                ));
            }
            Some(json.to_string())
        }
        None => None,
    };
    let result = match call.result {
        Some(r) => {
            Pattern::parse(&format!(r#"{{"result": {}}}"#, r.as_ref()))
                .map_err(|e| at(r.span(), format!("`call.result` is not a pattern: {e}")))?;
            r.into_inner()
        }
        None => r#""$any""#.to_owned(),
    };
    Ok(Probe::call(&call.method, params.as_deref(), &result))
}

/// `[mcp]`: the tool calls the MCP checks may make.
fn tool_calls(
    def: McpDef,
    at: &impl Fn(Range<usize>, String) -> LoadError,
) -> Result<ToolCalls, LoadError> {
    Ok(ToolCalls {
        call: tool_call("call", def.call, at)?,
        slow: tool_call("slow", def.slow, at)?,
        failing: tool_call("failing", def.failing, at)?,
        asks_client: tool_call("asks_client", def.asks_client, at)?,
        ..ToolCalls::default()
    })
}

/// One tool call of `[mcp]` (`mcp.NAME`): a tool, and its `arguments`, a
/// JSON object (by default `{}`).
fn tool_call(
    name: &str,
    def: Option<Spanned<ToolCallDef>>,
    at: &impl Fn(Range<usize>, String) -> LoadError,
) -> Result<Option<ToolCall>, LoadError> {
    let Some(def) = def else { return Ok(None) };
    let span = def.span();
    let def = def.into_inner();
    if def.tool.is_empty() {
        return Err(at(span, format!("`mcp.{name}.tool` is empty")));
    }
    let arguments = match def.arguments {
        Some(a) => {
            let json: serde_json::Value = serde_json::from_str(a.as_ref())
                .map_err(|e| at(a.span(), format!("`mcp.{name}.arguments` is not JSON: {e}")))?;
            if !json.is_object() {
                return Err(at(
                    a.span(),
                    format!(
                        "`mcp.{name}.arguments` must be an object (CallToolRequest.params.arguments)"
                    ),
                ));
            }
            json
        }
        None => serde_json::json!({}),
    };
    Ok(Some(ToolCall {
        tool: def.tool,
        arguments,
    }))
}

/// A duration as the command line takes it: `5`, `2.5`, `5s`, `500ms`,
/// `5m`, `2h`; more than 0 and at most `max_secs`.
pub fn duration(text: &str, max_secs: f64) -> Result<Duration, String> {
    let t = text.trim();
    let (number, scale) = match t.strip_suffix("ms") {
        Some(n) => (n, 1e-3),
        None => match t.strip_suffix('s') {
            Some(n) => (n, 1.0),
            None => match t.strip_suffix('m') {
                Some(n) => (n, 60.0),
                None => match t.strip_suffix('h') {
                    Some(n) => (n, 3600.0),
                    None => (t, 1.0),
                },
            },
        },
    };
    let secs = number
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("`{text}` is not a duration (like 5, 2.5s, 500ms, 5m, 2h)"))?
        * scale;
    if !(secs.is_finite() && secs > 0.0 && secs <= max_secs) {
        return Err(format!(
            "`{text}` is out of range: more than 0 and at most {max_secs} s"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<TargetFile, String> {
        parse(Path::new("t.toml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_full_file_loads() {
        let f = parsed(
            r#"
command = ["npx", "mcp-server-everything", "stdio"]
dialect = "mcp"
without = ["subtract"]
timeout = "500ms"
startup_timeout = "30s"
budget = "256MiB"

[call]
method = "tools/list"
params = '{}'
result = '{"tools": "$array"}'

[[preamble]]
dialect = "mcp"
title = "t"
section = "s"

[[preamble.step]]
send = '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
expect_none = true
"#,
        )
        .unwrap();
        assert_eq!(f.command.len(), 3);
        assert_eq!(f.dialect.as_deref(), Some("mcp"));
        assert_eq!(f.timeout, Some(Duration::from_millis(500)));
        assert_eq!(f.startup_timeout, Some(Duration::from_secs(30)));
        assert_eq!(f.budget.map(|b| b.bytes()), Some(256 << 20));
        let call = f.call.unwrap();
        assert_eq!(call.params.as_deref(), Some("{}"));
        assert_eq!(call.reply, r#""result": {"tools": "$array"}"#);
        assert_eq!(f.preambles.len(), 1);
        assert!(f.mcp.call.is_none());
    }

    #[test]
    fn mcp_tool_calls_load() {
        let f = parsed(
            "command = [\"x\"]\ndialect = \"mcp@2025-11-25\"\n[mcp]\ncall = { tool = \"echo\", arguments = '{\"text\": \"hi\"}' }\nslow = { tool = \"slow\" }\n",
        )
        .unwrap();
        let call = f.mcp.call.unwrap();
        assert_eq!(
            (call.tool.as_str(), call.arguments["text"].as_str()),
            ("echo", Some("hi"))
        );
        assert_eq!(f.mcp.slow.unwrap().arguments, serde_json::json!({}));
        assert!(f.mcp.failing.is_none() && f.mcp.asks_client.is_none());
        for (text, wanted) in [
            (
                "command = [\"x\"]\n[mcp]\ncall = { tool = \"\" }",
                "t.toml:3:8: `mcp.call.tool` is empty",
            ),
            (
                "command = [\"x\"]\n[mcp]\nslow = { tool = \"s\", arguments = '[1]' }",
                "t.toml:3:34: `mcp.slow.arguments` must be an object",
            ),
            (
                "command = [\"x\"]\n[mcp]\nfast = { tool = \"s\" }",
                "t.toml:3:1: unknown field `fast`",
            ),
            (
                "command = [\"x\"]\ndialect = \"mcp@1999-01-01\"",
                "t.toml:2:11: unknown dialect `mcp@1999-01-01`",
            ),
        ] {
            let e = parsed(text).unwrap_err();
            assert!(e.starts_with(wanted), "{text:?}: {e}");
        }
    }

    #[test]
    fn errors_say_where() {
        for (text, wanted) in [
            ("command = []", "t.toml:1:11: `command` is empty"),
            (
                "command = [\"x\"]\ndialect = \"mpc\"",
                "t.toml:2:11: unknown dialect `mpc`",
            ),
            (
                "command = [\"x\"]\ntimeout = \"5 min\"",
                "t.toml:2:11: `5 min` is not a duration",
            ),
            (
                "command = [\"x\"]\n[call]\nmethod = \"m\"\nparams = '42'",
                "t.toml:4:10: `call.params` must be an object or an array",
            ),
            (
                "command = [\"x\"]\n[call]\nmethod = \"m\"\nresult = '{'",
                "t.toml:4:10: `call.result` is not a pattern",
            ),
            (
                "command = [\"x\"]\nbudget = \"1MiB\"",
                "t.toml:2:10: a budget is from 4 MiB to 4 GiB",
            ),
            (
                "command = [\"x\"]\nwithuot = []",
                "t.toml:2:1: unknown field `withuot`",
            ),
        ] {
            let e = parsed(text).unwrap_err();
            assert!(e.starts_with(wanted), "{text:?}: {e}");
        }
    }

    #[test]
    fn only_regular_utf8_files_are_read() {
        let dir = std::env::temp_dir().join(format!("rpcspec-target-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = load(&dir).unwrap_err().to_string();
        assert!(e.ends_with(": not a regular file"), "{e}");
        let bad = dir.join("bad.toml");
        std::fs::write(&bad, b"command = [\"x\"]\n# \xff\n").unwrap();
        let e = load(&bad).unwrap_err().to_string();
        assert!(e.ends_with(":2:3: not UTF-8"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn durations_take_units() {
        assert_eq!(duration("5", 10.0), Ok(Duration::from_secs(5)));
        assert_eq!(duration("2.5s", 10.0), Ok(Duration::from_millis(2500)));
        assert_eq!(duration("500ms", 10.0), Ok(Duration::from_millis(500)));
        assert_eq!(duration("2m", 600.0), Ok(Duration::from_secs(120)));
        assert!(duration("0", 10.0).is_err());
        assert!(duration("11", 10.0).is_err());
        assert!(duration("fast", 10.0).is_err());
    }
}
