//! The checks that call tools the target file names (`[mcp]`): a safe
//! call, one that fails on its input, a slow one (progress, cancellation)
//! and one that makes the server ask the client. Without a call named, a
//! check is SKIPPED: a tool can do anything, so rpcspec calls none it is
//! not given.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{
    CaseResult, Check, Evidence, Reply, Revision, Session, ToolCall, Verdict, finding, grade,
    short,
    table::{CANCEL_IN_FLIGHT, PROGRESS, SERVER_REQUESTS, TOOLS_CALL, TOOLS_ERROR},
};
use crate::dialects::mcp::rules::{MCP_CANCEL_IN_FLIGHT, MCP_SCHEMA, MCP_TOOLS_EXECUTION_ERROR};

impl Session {
    /// SKIPPED: the check needs a tool call the target file does not name,
    /// or a tools capability the server did not declare. `None`: it runs.
    fn needs_call(&self, check: &Check, call: &Option<ToolCall>, key: &str) -> Option<CaseResult> {
        if !self.declared("tools") {
            return Some(self.not_declared(check, "tools"));
        }
        call.is_none().then(|| {
            self.skipped(
                check,
                format!(
                    "no `[mcp] {key}` in the target file: rpcspec calls no tool it is not given (README.md, \"Target files\")"
                ),
            )
        })
    }

    /// The checks that call tools the target file names.
    pub(super) fn tool_call_checks(&mut self, wanted: &dyn Fn(&Check) -> bool) {
        let calls = self.calls.clone();
        if wanted(TOOLS_CALL) {
            match self.needs_call(TOOLS_CALL, &calls.call, "call") {
                Some(skipped) => self.results.push(skipped),
                None => {
                    let call = calls.call.clone().expect("checked");
                    self.check(TOOLS_CALL, |s| match s.ask("tools/call", call.params()) {
                        // The call failed as a tool: the server did what it
                        // should, but the call shows nothing of a success.
                        Reply::Result(r) if r.get("isError") == Some(&Value::Bool(true)) => {
                            vec![Evidence::note(
                                Verdict::Error,
                                format!(
                                    "the target file's `[mcp] call` of `{}` returned `isError: true` ({}): \
                                     the call fails as a tool, so it checks no successful call; give \
                                     `[mcp] call` a tool and arguments that succeed",
                                    call.tool,
                                    short(&r)
                                ),
                            )]
                        }
                        // Its result against CallToolResult, here as well
                        // as in the check of every message.
                        // Not a line too long to keep: only its envelope is.
                        Reply::Result(_)
                            if s.conn.lines.iter().rev().find(|l| l.reply_to.as_deref() == Some("tools/call")).is_some_and(|l| l.elided) =>
                        {
                            Vec::new()
                        }
                        Reply::Result(r) => crate::dialects::mcp::schema::validate(
                            s.revision,
                            &json!({"jsonrpc": "2.0", "id": "rpcspec", "result": r}),
                            crate::dialects::mcp::schema::Role::Reply(Some("tools/call")),
                        )
                        .into_iter()
                        .take(5)
                        .map(|e| finding(&MCP_SCHEMA, format!("the result of `{}`: {e}", call.tool)))
                        .collect(),
                        Reply::Error(e) => vec![Evidence::note(
                            Verdict::Error,
                            format!(
                                "the target file's `[mcp] call` of `{}` got the error {}: is it a tool of this server, with arguments it takes?",
                                call.tool,
                                short(&e)
                            ),
                        )],
                        Reply::NoReply => vec![Evidence::note(
                            Verdict::Timeout,
                            format!("the call of `{}` got no reply", call.tool),
                        )],
                        Reply::Gone => vec![Evidence::note(
                            Verdict::Crash,
                            format!(
                                "the server closed stdout or exited during the call of `{}`",
                                call.tool
                            ),
                        )],
                    });
                }
            }
        }
        if wanted(TOOLS_ERROR) {
            match self.needs_call(TOOLS_ERROR, &calls.failing, "failing") {
                Some(skipped) => self.results.push(skipped),
                None => {
                    let call = calls.failing.clone().expect("checked");
                    self.check(TOOLS_ERROR, |s| s.execution_error(&call));
                }
            }
        }
        if wanted(PROGRESS) {
            match self.needs_call(PROGRESS, &calls.slow, "slow") {
                Some(skipped) => self.results.push(skipped),
                None => {
                    let call = calls.slow.clone().expect("checked");
                    self.check(PROGRESS, |s| s.progress(&call));
                }
            }
        }
        if wanted(CANCEL_IN_FLIGHT) {
            match self.needs_call(CANCEL_IN_FLIGHT, &calls.slow, "slow") {
                Some(skipped) => self.results.push(skipped),
                None => {
                    let call = calls.slow.clone().expect("checked");
                    self.check(CANCEL_IN_FLIGHT, |s| s.cancel_in_flight(&call));
                }
            }
        }
        if wanted(SERVER_REQUESTS) {
            if !self.revision.server_requests() {
                self.results.push(self.not_in_revision(
                    SERVER_REQUESTS,
                    "servers send no requests (basic/transports/stdio: InputRequiredResult instead)",
                ));
            } else {
                match self.needs_call(SERVER_REQUESTS, &calls.asks_client, "asks_client") {
                    Some(skipped) => self.results.push(skipped),
                    None => {
                        let call = calls.asks_client.clone().expect("checked");
                        self.check(SERVER_REQUESTS, |s| s.asks_client(&call));
                    }
                }
            }
        }
    }

    /// `mcp/tools/execution-error`: the failing call.
    fn execution_error(&mut self, call: &ToolCall) -> Vec<Evidence> {
        match self.ask("tools/call", call.params()) {
            Reply::Result(r) if r.get("isError") == Some(&Value::Bool(true)) => Vec::new(),
            Reply::Result(r) => vec![Evidence::note(
                Verdict::Error,
                format!(
                    "the target file's `[mcp] failing` call of `{}` succeeded ({}): name a call that fails on its input",
                    call.tool,
                    short(&r)
                ),
            )],
            Reply::Error(e) if self.revision == Revision::V2025_06_18 => vec![Evidence::note(
                Verdict::Pass,
                format!(
                    "a JSON-RPC error ({}): 2025-06-18 lists invalid arguments under protocol errors",
                    short(&e)
                ),
            )],
            Reply::Error(e) => vec![finding(
                &MCP_TOOLS_EXECUTION_ERROR,
                format!(
                    "`{}` failed on its input with the JSON-RPC error {}, not a result with `isError: true`",
                    call.tool,
                    short(&e)
                ),
            )],
            other => vec![finding(
                &MCP_TOOLS_EXECUTION_ERROR,
                format!("the call of `{}` got {}", call.tool, other.describe()),
            )],
        }
    }

    /// `mcp/utilities/progress`: the slow call with a progress token.
    fn progress(&mut self, call: &ToolCall) -> Vec<Evidence> {
        let token = "rpcspec-progress-1";
        let mut params = call.params();
        params["_meta"] = json!({"progressToken": token});
        let params = self.conn.params(params);
        let from = self.conn.lines.len();
        let asked = Instant::now();
        let id = self.conn.send_request("tools/call", params);
        let deadline = self.conn.deadline();
        let reply = self.conn.wait_reply(&id, from, deadline);
        self.slow_took = Some(asked.elapsed());
        if matches!(reply, Reply::NoReply | Reply::Gone) {
            let verdict = if matches!(reply, Reply::NoReply) {
                Verdict::Timeout
            } else {
                Verdict::Crash
            };
            return vec![Evidence::note(
                verdict,
                format!("the slow call of `{}` got {}", call.tool, reply.describe()),
            )];
        }
        // Late progress: what comes soon after the result.
        self.conn
            .settle(Instant::now() + Duration::from_millis(300));
        grade::progress(&self.conn.lines[from..], token, &id)
    }

    /// `mcp/utilities/cancel-in-flight`: the slow call, cancelled soon
    /// after it is sent; nothing may come for it after that.
    fn cancel_in_flight(&mut self, call: &ToolCall) -> Vec<Evidence> {
        let params = self.conn.params(call.params());
        let from = self.conn.lines.len();
        let id = self.conn.send_request("tools/call", params);
        // Long enough for the server to have started on it.
        self.conn
            .settle(Instant::now() + Duration::from_millis(200));
        let cancelled_at = self.conn.lines.len();
        if let Reply::Result(_) | Reply::Error(_) = self.conn.wait_reply(&id, from, Instant::now())
        {
            return vec![Evidence::note(
                Verdict::Error,
                format!(
                    "the `[mcp] slow` call of `{}` was answered within 200 ms: name a slower call",
                    call.tool
                ),
            )];
        }
        self.conn.notify(
            "notifications/cancelled",
            json!({"requestId": id, "reason": "rpcspec: cancelled on purpose"}),
        );
        // As long as the call took uncancelled, and a margin.
        let wait = self.slow_took.map_or(self.conn.timeout, |t| {
            t + t / 2 + Duration::from_millis(500)
        });
        let reply = self
            .conn
            .wait_reply(&id, cancelled_at, Instant::now() + wait);
        let mut evidence = Vec::new();
        if let Reply::Result(_) | Reply::Error(_) = &reply {
            evidence.push(finding(
                &MCP_CANCEL_IN_FLIGHT,
                format!(
                    "after `notifications/cancelled` for {id}, the server still answered it with {}",
                    reply.describe()
                ),
            ));
        }
        // Still serving.
        let (method, params) = if self.revision.has_ping() {
            ("ping", Value::Null)
        } else {
            ("server/discover", json!({}))
        };
        match self.ask(method, params) {
            Reply::Result(_) | Reply::Error(_) => {}
            other => evidence.push(Evidence::note(
                if matches!(other, Reply::Gone) {
                    Verdict::Crash
                } else {
                    Verdict::Timeout
                },
                format!(
                    "after the cancellation, `{method}` got {}",
                    other.describe()
                ),
            )),
        }
        evidence
    }

    /// `mcp/tools/asks-client`: the call twice; the server's requests have
    /// fresh ids.
    fn asks_client(&mut self, call: &ToolCall) -> Vec<Evidence> {
        let before = grade::server_requests(&self.conn.lines).len();
        for _ in 0..2 {
            let _ = self.ask("tools/call", call.params());
        }
        if grade::server_requests(&self.conn.lines).len() == before {
            return vec![Evidence::note(
                Verdict::Error,
                format!(
                    "two calls of the target file's `[mcp] asks_client` (`{}`) made no request to the client",
                    call.tool
                ),
            )];
        }
        grade::reused_ids(&self.conn.lines)
    }
}
