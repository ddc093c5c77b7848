//! The LSP dialect's own rules of a session (LSP 3.17, "Lifecycle
//! Messages", "Base Protocol"), as the reference language server keeps
//! them: the error codes LSP adds to JSON-RPC's, and the lifecycle a
//! server goes through (`initialize`, `shutdown`, `exit`). Sans-IO.

use std::sync::OnceLock;

use rpcspec_matcher::{Id, IdMatch, Rule};
use serde_json::Value;

use crate::dialects::{
    OwnRules,
    directions::{Directions, Sender},
    serving::{Batches, Call, Serving, UNKNOWN_PROBE, Wrote},
};

use crate::{
    report::{Evidence, RuleRef},
    server::serve::{EXAMPLES, Methods, Reference},
};

pub mod model;
pub mod played;

pub use played::PLAYING;

/// Who sends each LSP method, from the meta-model's `messageDirection`
/// (`clientToServer`, `serverToClient`, `both`). `$/cancelRequest`
/// withdraws a request of its sender (`params.id`); `$/progress` reports on
/// a token the other side gave (`workDoneToken`, `partialResultToken`) or
/// one its sender made (`window/workDoneProgress/create`).
pub fn directions() -> &'static Directions {
    static TABLE: OnceLock<Directions> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Directions::new("LSP metaModel.json (messageDirection)");
        table.cancels = &[("$/cancelRequest", "/params/id")];
        table.progress = &[("$/progress", "/params/token")];
        table.tokens_given = &["/params/workDoneToken", "/params/partialResultToken"];
        table.tokens_made = &[("window/workDoneProgress/create", "/params/token")];
        table.reply_fits = Some(|method, reply| {
            let problems = model::model().reply(method, reply);
            problems
                .iter()
                .all(|e| e.problem == model::Problem::NullOptional)
        });
        for (method, direction) in model::model().directions() {
            let sender = match direction {
                "clientToServer" => Sender::Client,
                "serverToClient" => Sender::Server,
                _ => Sender::Either,
            };
            table.add(method, sender);
        }
        table
    })
}

/// The problems of a call of `method` (`reply` false: the message's own
/// method) or of a reply to one, against the meta-model, in words.
fn shapes(method: &str, message: &Value, reply: bool) -> Vec<String> {
    let m = model::model();
    let found = if reply {
        m.reply(method, message)
    } else {
        m.call(message)
    };
    found
        .iter()
        .map(|e| format!("against LSP's meta-model: {e}"))
        .collect()
}

/// What the server role does in LSP: every request with `params`, as
/// LSP's requests are typed; a request of the server's answered as a client
/// that declared nothing would ([`answer`]); nothing after an `initialize`
/// until it is answered.
pub const SERVING: Serving = Serving {
    startup_hint: "is it a language server over stdio (many need an argument, such as \
                   `--stdio`)? does it flush stdout after each message?",
    params_always: true,
    answer: Some(answer),
    initialize_alone: true,
    awaited: &[],
    silent_to_unreadable: false,
    initiated: Some(initiated),
    // With `"params": {}`: LSP servers built on pygls
    // (jedi-language-server) drop a request without `params` unanswered,
    // which JSON-RPC 2.0 §4.2 and LSP's `params?` allow;
    // `jsonrpc/params/absent` catches that once, and no other case fails
    // for it.
    probe: Some(Call {
        params: Some("{}"),
        ..UNKNOWN_PROBE
    }),
    // No LSP request is both answered by every server and harmless
    // (`shutdown` ends the session): a target file's `[call]` gives one.
    calls: &[],
    unknown_stands_in: true,
    barrier: None,
    own_methods: Some("LSP's methods are its own"),
    // A batch is JSON-RPC 2.0's (§6), and LSP 3.17 names none: a server
    // that answers one as §6 says passes; one that refuses it with an
    // error, or ignores it, is NON-STRICT, saying so.
    batches: Batches::Unnamed(
        "the batch refused or ignored: LSP 3.17's base protocol says \"the content part of a message uses JSON-RPC to describe requests, responses and notifications\" and names no batch (JSON-RPC 2.0 §6 wants one answered)",
    ),
    unreadable: None,
    version_optional: false,
    id_fits: Some(is_id),
    ending: Some("exit"),
    reference: Some(REFERENCE),
};

/// What a language server sent of its own accord, held to LSP's lifecycle
/// and to the capabilities rpcspec declared (none): [`initiated_findings`];
/// and every message LSP's meta-model names (the `initialize` result, what
/// the server initiated) against it: [`model`].
fn initiated(got: &[Wrote<'_>]) -> Vec<Evidence> {
    let initialize = Id::parse(INITIALIZE_ID).expect("a JSON string");
    let mut initialized = false;
    let mut sent: Vec<(String, bool, bool)> = Vec::new();
    let mut shapes = Vec::new();
    let model = model::model();
    for g in got {
        // The matcher's ids say which reply is the initialize result, even
        // one whose text `Value` would refuse (a lone surrogate, 1e400).
        let answers_initialize = g.reply
            && g.ids
                .iter()
                .any(|i| i.compare(&initialize) == IdMatch::Same);
        initialized |= answers_initialize;
        let Some(value) = g.text.and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
            continue;
        };
        if answers_initialize {
            shapes.extend(model.reply("initialize", &value));
        }
        if g.reply {
            continue;
        }
        if let Some(method) = value.get("method").and_then(|m| m.as_str()) {
            sent.push((method.to_owned(), value.get("id").is_some(), initialized));
            shapes.extend(model.call(&value));
        }
    }
    let initiated: Vec<Initiated<'_>> = sent
        .iter()
        .map(|(method, request, initialized)| Initiated {
            method,
            request: *request,
            initialized: *initialized,
        })
        .collect();
    let mut out: Vec<Evidence> = initiated_findings(&initiated)
        .into_iter()
        .map(|(rule, message)| Evidence {
            rule: Some(RuleRef::from_rule(rule)),
            ..Evidence::note(RuleRef::from_rule(rule).verdict(), message)
        })
        .collect();
    out.extend(shape_evidence(shapes));
    out
}

/// What `check` does in LSP beyond pairing: every message against the
/// meta-model (rule `lsp.shape`); `$/cancelRequest` withdraws nothing (a
/// cancelled request "still needs to return from the server").
pub const CHECKING: crate::dialects::Checking = crate::dialects::Checking {
    lanes: ("client", "language server"),
    shapes: Some((&LSP_SHAPE, shapes)),
    ..crate::dialects::Checking::PLAIN
};

/// LSP's own rules, and where each is checked.
pub const OWN: OwnRules = OwnRules {
    table: || LSP,
    checked_on: |rule| {
        if rule.id == "lsp.shape" {
            "the server case `lsp/messages/shapes` (`rpcspec run --dialect lsp`), every LSP client scenario (`--role client --dialect lsp`), and `rpcspec check --rpc lsp`"
        } else if rule.id.starts_with("lsp.client-") {
            "every LSP client scenario (`--role client --dialect lsp`), on what the language client writes"
        } else {
            "the `lsp/…` server cases that name it (`rpcspec run --dialect lsp`)"
        }
    },
};

rpcspec_matcher::rule_table! { LSP;
    LSP_NOT_INITIALIZED = "lsp.not-initialized", Should, "LSP 3.17 Lifecycle Messages, initialize (\"If the server receives a request or notification before the initialize request it should act as follows: For a request the response should be an error with code: -32002\")",
        "a request before `initialize` is answered with the error -32002 ServerNotInitialized";
    LSP_INITIALIZE_ONCE = "lsp.initialize-once", Should, "LSP 3.17 Lifecycle Messages, initialize (\"The initialize request may only be sent once\")",
        "a second `initialize` is refused with an error (LSP says a client may not send one, not how a server answers it: a result is NON-STRICT)";
    LSP_SHUTDOWN = "lsp.shutdown", Must, "LSP 3.17 Lifecycle Messages, shutdown (Response: \"result: null\")",
        "`shutdown` is answered with the result null";
    LSP_AFTER_SHUTDOWN = "lsp.after-shutdown", Should, "LSP 3.17 Lifecycle Messages, shutdown (\"If a server receives requests after a shutdown request those requests should error with InvalidRequest\")",
        "a request after `shutdown` is answered with the error -32600 InvalidRequest";
    LSP_EXIT_STATUS = "lsp.exit-status", Should, "LSP 3.17 Lifecycle Messages, exit (\"The server should exit with success code 0 if the shutdown request has been received before; otherwise with error code 1\")",
        "on `exit` the server ends: with status 0 after `shutdown`, else with status 1";
    LSP_DOLLAR_REQUEST = "lsp.dollar-request", Must, "LSP 3.17 Base Protocol, $ Notifications and Requests (\"if a server or client receives a request starting with '$/' it must error the request with error code MethodNotFound\")",
        "a `$/` request the server does not implement is answered with -32601 MethodNotFound";
    LSP_DOLLAR_NOTIFICATION = "lsp.dollar-notification", Must, "LSP 3.17 Base Protocol, $ Notifications and Requests (\"it is free to ignore the notification\"); JSON-RPC 2.0 §4.1 (a notification is not answered)",
        "a `$/` notification the server does not implement draws no reply, and the session goes on";
    LSP_CANCEL_ANSWERED = "lsp.cancel-answered", Must, "LSP 3.17 Cancellation Support (\"A request that got canceled still needs to return from the server and send a response back. It can not be left open / hanging\")",
        "a request cancelled with `$/cancelRequest` still gets exactly one response: its result, its error, or -32800 RequestCancelled";
    LSP_BEFORE_INITIALIZED = "lsp.before-initialized", Must, "LSP 3.17 Lifecycle Messages, initialize (\"the server is not allowed to send any requests or notifications to the client until it has responded with an InitializeResult, with the exception that during the initialize request the server is allowed to send the notifications window/showMessage, window/logMessage and telemetry/event as well as the window/showMessageRequest request\")",
        "until it has answered `initialize`, the server sends no request or notification but `window/showMessage`, `window/logMessage`, `telemetry/event` and `window/showMessageRequest`";
    LSP_UNDECLARED = "lsp.undeclared", Should, "LSP 3.17 Capabilities (\"A development tool and the language server announce their supported features using capabilities\"); each request's client capability (`window.workDoneProgress`, `workspace.configuration`, `dynamicRegistration`, …)",
        "the server asks the client only for what the client declared: rpcspec declares no capability, so no request but `window/showMessageRequest`";
    LSP_ID = "lsp.id", Must, "LSP 3.17 Base Types (integer: -2^31 to 2^31 - 1); Request Message (`id: integer | string`); JSON-RPC 2.0 §5 (the response has the same id)",
        "a request id in LSP's range comes back exactly as sent; a language client's ids are in that range";
    LSP_SHAPE = "lsp.shape", Must, "LSP 3.17 Meta Model (\"metaModel.json: The actual meta model for the LSP 3.17 specification\"): each request's and notification's `params` and each request's `result` are of the types it declares (checked against the 3.18 meta-model, which keeps 3.17's and adds)",
        "what a language server or client sends has the shape LSP's meta-model gives it: the params of a request or notification it names, the result of a request it names (a member sent as null where the type makes it optional, not nullable: NON-STRICT)";
    LSP_CLIENT_INITIALIZE = "lsp.client-initialize", Must, "LSP 3.17 Lifecycle Messages, initialize (\"The initialize request is sent as the first request from the client to the server\"; \"Until the server has responded to the initialize request with an InitializeResult, the client must not send any additional requests or notifications to the server\"; \"The initialize request may only be sent once\")",
        "a language client's first message is `initialize`, sent once, and it sends nothing else until the initialize result has come";
    LSP_CLIENT_INITIALIZED = "lsp.client-initialized", Must, "LSP 3.17 Lifecycle Messages, initialized (\"The initialized notification is sent from the client to the server after the client received the result of the initialize request but before the client is sending any other request or notification to the server\")",
        "a language client's first message after the initialize result is the `initialized` notification";
    LSP_CLIENT_SERVER_REQUEST = "lsp.client-server-request", Must, "LSP 3.17 Base Protocol, Request Message (\"Every processed request must send a response back to the sender of the request\")",
        "a language client answers each request of the server's with its id: a result, or an error";
    LSP_CLIENT_AFTER_SHUTDOWN = "lsp.client-after-shutdown", Must, "LSP 3.17 Lifecycle Messages, shutdown (\"Clients must not send any notifications other than exit or requests to a server to which they have sent a shutdown request\")",
        "after `shutdown` a language client sends nothing but `exit`";
    LSP_CLIENT_SHUTDOWN = "lsp.client-shutdown", Should, "LSP 3.17 Lifecycle Messages, shutdown (\"It asks the server to shut down, but to not exit (otherwise the response might not be delivered correctly to the client). There is a separate exit notification that asks the server to exit\")",
        "a language client ends the session with `shutdown`, then `exit` (LSP names the way to end, not an obligation: SHOULD)";
}

/// `-32002` ServerNotInitialized: "If the server receives a request or
/// notification before the initialize request it should act as follows:
/// For a request the response should be an error with code: -32002."
pub const SERVER_NOT_INITIALIZED: i64 = -32002;
/// `-32800` RequestCancelled: the error a cancelled request may be
/// answered with.
pub const REQUEST_CANCELLED: i64 = -32800;
/// `-32600` InvalidRequest: what a request after `shutdown`, or a second
/// `initialize`, gets.
pub const INVALID_REQUEST: i64 = -32600;
/// `-32601` MethodNotFound: what a `$/` request the server does not know
/// gets ("it must error the request with error code MethodNotFound").
pub const METHOD_NOT_FOUND: i64 = -32601;

/// The id of the handshake's `initialize` (`spec-cases/preambles.toml`).
pub const INITIALIZE_ID: &str = "\"rpcspec-initialize\"";

/// What the server may send before it has answered `initialize`.
const BEFORE_INITIALIZED: [&str; 4] = [
    "window/showMessage",
    "window/logMessage",
    "telemetry/event",
    "window/showMessageRequest",
];

/// Whether `id` (a JSON value) is an LSP request id: "id: integer |
/// string", where "integer" is -2^31 to 2^31 - 1 (LSP 3.17, Request
/// Message; Base Types). `null`, fractions and wider numbers are not.
pub fn is_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some_and(|n| i32::try_from(n).is_ok())
}

/// What rpcspec, a client that declared no capability, answers a request
/// the server sends it: `window/showMessageRequest` with null (no action
/// chosen), every other with -32601, as a client without the capability
/// would. Its `result` or `error` member, as JSON text.
pub fn answer(method: &str) -> &'static str {
    match method {
        "window/showMessageRequest" => r#""result":null"#,
        _ => {
            r#""error":{"code":-32601,"message":"rpcspec declared no client capability for this method"}"#
        }
    }
}

/// One message the server sent of its own accord: its method, whether it
/// is a request, and whether the server had answered `initialize` before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initiated<'a> {
    /// The method.
    pub method: &'a str,
    /// A request (it has an id), not a notification.
    pub request: bool,
    /// Sent once the `initialize` result was.
    pub initialized: bool,
}

/// What the server sending `sent` breaks of LSP: a rule and what it did,
/// once per (rule, method).
pub fn initiated_findings(sent: &[Initiated<'_>]) -> Vec<(&'static Rule, String)> {
    let mut out: Vec<(&'static Rule, String)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for m in sent {
        let early = !m.initialized && !BEFORE_INITIALIZED.contains(&m.method);
        let undeclared = m.request && m.method != "window/showMessageRequest";
        let kind = if m.request { "request" } else { "notification" };
        if early && seen.insert((LSP_BEFORE_INITIALIZED.id, m.method)) {
            out.push((
                &LSP_BEFORE_INITIALIZED,
                format!(
                    "the server sent the {kind} `{}` before it had answered `initialize`",
                    m.method
                ),
            ));
        }
        if undeclared && seen.insert((LSP_UNDECLARED.id, m.method)) {
            out.push((
                &LSP_UNDECLARED,
                format!(
                    "the server sent the request `{}` to a client that declared no capability (rpcspec answered -32601)",
                    m.method
                ),
            ));
        }
    }
    out
}

/// Meta-model findings as evidence: one per (what, where), at most
/// [`FINDINGS_PER_RULE`] listed and the rest counted; a null for an
/// optional member is NON-STRICT.
pub fn shape_evidence(shapes: Vec<model::ShapeError>) -> Vec<Evidence> {
    use crate::report::{FINDINGS_PER_RULE, RuleRef, Verdict};
    use model::Problem;
    let rule = RuleRef::from_rule(&LSP_SHAPE);
    let mut seen = std::collections::BTreeSet::new();
    let fresh: Vec<_> = shapes
        .into_iter()
        .filter(|e| seen.insert((e.subject.clone(), e.path.clone())))
        .collect();
    let mut out: Vec<Evidence> = fresh
        .iter()
        .take(FINDINGS_PER_RULE)
        .map(|e| {
            let verdict = match e.problem {
                Problem::NullOptional => Verdict::NonStrict,
                _ => rule.verdict(),
            };
            Evidence {
                rule: Some(rule.clone()),
                ..Evidence::note(verdict, format!("against LSP's meta-model: {e}"))
            }
        })
        .collect();
    if fresh.len() > FINDINGS_PER_RULE {
        let strict = fresh[FINDINGS_PER_RULE..]
            .iter()
            .any(|e| e.problem != Problem::NullOptional);
        let verdict = if strict {
            rule.verdict()
        } else {
            Verdict::NonStrict
        };
        out.push(Evidence {
            rule: Some(rule.clone()),
            ..Evidence::note(
                verdict,
                format!(
                    "{} more meta-model findings not listed",
                    fresh.len() - FINDINGS_PER_RULE
                ),
            )
        });
    }
    out
}

/// Where a language server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lifecycle {
    /// `initialize` not yet received.
    #[default]
    Starting,
    /// Initialized: serving requests.
    Running,
    /// `shutdown` answered: requests now get InvalidRequest.
    ShutDown,
    /// `exit` received: the process ends with this status ("The server
    /// should exit with success code 0 if the shutdown request has been
    /// received before; otherwise with error code 1").
    Exited(i32),
}

/// An error: its code and message.
pub type Refusal = (i64, &'static str);

/// The reference language server: JSON-RPC 2.0 with LSP's lifecycle, no
/// method of its own, in Content-Length framing by default.
pub const REFERENCE: Reference = Reference {
    methods: || Box::new(Lifecycle::default()),
    ..EXAMPLES
};

impl Methods for Lifecycle {
    fn call(&mut self, method: &str, _: Option<Value>) -> Result<Value, Refusal> {
        self.request(method)
    }

    fn notification(&mut self, method: &str, _: Option<Value>) {
        Lifecycle::notification(self, method);
    }

    fn exit(&self) -> Option<i32> {
        Lifecycle::exit(*self)
    }
}

impl Lifecycle {
    /// The answer to a request for `method` (a result, or an error), and
    /// the state it leaves. The reference has no method of its own but
    /// `initialize` and `shutdown`.
    pub fn request(&mut self, method: &str) -> Result<Value, Refusal> {
        match (*self, method) {
            (Lifecycle::Starting, "initialize") => {
                *self = Lifecycle::Running;
                Ok(serde_json::json!({
                    "capabilities": {},
                    "serverInfo": {"name": "rpcspec-reference", "version": env!("CARGO_PKG_VERSION")},
                }))
            }
            (Lifecycle::Starting, _) => Err((SERVER_NOT_INITIALIZED, "Server not initialized")),
            (Lifecycle::Running, "initialize") => Err((
                INVALID_REQUEST,
                "Invalid request: initialize may only be sent once",
            )),
            (Lifecycle::Running, "shutdown") => {
                *self = Lifecycle::ShutDown;
                Ok(Value::Null)
            }
            (Lifecycle::Running, _) => Err((METHOD_NOT_FOUND, "Method not found")),
            (Lifecycle::ShutDown | Lifecycle::Exited(_), _) => {
                Err((INVALID_REQUEST, "Invalid request: the server is shut down"))
            }
        }
    }

    /// Takes a notification for `method`: `exit` ends the server; every
    /// other is dropped before `initialize`, and needs nothing here after
    /// it (`$/cancelRequest` included: the reference answers each request
    /// as it reads it, so none is pending to cancel).
    pub fn notification(&mut self, method: &str) {
        if method == "exit" {
            let status = i32::from(*self != Lifecycle::ShutDown);
            *self = Lifecycle::Exited(status);
        }
    }

    /// The exit status, once `exit` was received.
    pub fn exit(self) -> Option<i32> {
        match self {
            Lifecycle::Exited(status) => Some(status),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_goes_through_initialize_shutdown_and_exit() {
        let mut life = Lifecycle::default();
        assert_eq!(life.request("textDocument/hover").unwrap_err().0, -32002);
        life.notification("initialized");
        assert_eq!(life, Lifecycle::Starting, "dropped before initialize");
        assert!(life.request("initialize").unwrap()["capabilities"].is_object());
        assert_eq!(life.request("initialize").unwrap_err().0, -32600);
        assert_eq!(life.request("$/rpcspec").unwrap_err().0, -32601);
        assert_eq!(life.request("shutdown"), Ok(Value::Null));
        assert_eq!(life.request("shutdown").unwrap_err().0, -32600);
        assert_eq!(life.exit(), None);
        life.notification("exit");
        assert_eq!(life.exit(), Some(0));
    }

    #[test]
    fn what_a_server_initiates_is_held_to_the_lifecycle_and_the_declared_capabilities() {
        let m = |method, request, initialized| Initiated {
            method,
            request,
            initialized,
        };
        let found = initiated_findings(&[
            m("window/logMessage", false, false),
            m("window/showMessageRequest", true, false),
            m("client/registerCapability", true, false),
            m("client/registerCapability", true, true),
            m("textDocument/publishDiagnostics", false, true),
            m("$/progress", false, false),
            m("workspace/configuration", true, true),
        ]);
        let ids: Vec<(&str, &str)> = found
            .iter()
            .map(|(r, msg)| (r.id, msg.split('`').nth(1).unwrap()))
            .collect();
        assert_eq!(
            ids,
            [
                ("lsp.before-initialized", "client/registerCapability"),
                ("lsp.undeclared", "client/registerCapability"),
                ("lsp.before-initialized", "$/progress"),
                ("lsp.undeclared", "workspace/configuration"),
            ]
        );
        assert_eq!(answer("window/showMessageRequest"), r#""result":null"#);
        assert!(answer("workspace/configuration").contains("-32601"));
    }

    #[test]
    fn exit_without_shutdown_is_status_1() {
        for mut life in [Lifecycle::Starting, Lifecycle::Running] {
            life.notification("exit");
            assert_eq!(life.exit(), Some(1));
        }
    }
}
