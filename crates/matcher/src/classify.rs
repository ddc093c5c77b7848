//! Classify one message and check every rule that needs no history.

use std::fmt;

use crate::dialect::{Dialect, EventsConfig};
use crate::envelope::{self, Envelope, Field, JsonType, Scanned};
use crate::id::{self, Id, IdKind};
use crate::limits::Limit;
use crate::rules::{self as r, Level, Rule};
use crate::text::Text;

/// One broken rule, with what exactly broke it.
///
/// `#[non_exhaustive]`: findings are made by the matcher and may learn
/// more (where in the message, say); read the fields, match with `..`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The rule that was broken.
    pub rule: &'static Rule,
    /// What exactly, such as ``"`id` is an array"``.
    pub detail: String,
    /// The index of the batch member it concerns, if it concerns one.
    pub member: Option<usize>,
    /// The number of the message it is about (the first fed to a session
    /// is 1), where that is not the message it came with: an unanswered
    /// request's, at [`Session::close`](crate::Session::close).
    pub message: Option<usize>,
}

impl Finding {
    pub(crate) fn new(
        rule: &'static Rule,
        member: Option<usize>,
        detail: impl Into<String>,
    ) -> Self {
        Finding {
            rule,
            detail: detail.into(),
            member,
            message: None,
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}] ", self.rule.id, self.rule.level)?;
        if let Some(i) = self.member {
            write!(f, "member {i}: ")?;
        }
        f.write_str(&self.detail)
    }
}

/// What a message is, once classified.
///
/// `#[non_exhaustive]`: a new dialect can bring kinds of its own, as
/// Claude Code's control protocol brought [`Kind::Cancel`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A call that awaits a reply. In the `claude` dialect, a
    /// `control_request` (`method` is its `subtype`).
    Request {
        /// The id the reply must carry back.
        id: Id,
        /// The method name, decoded.
        method: Text,
    },
    /// A request without `id`: it gets no reply.
    Notification {
        /// The method name, decoded.
        method: Text,
    },
    /// A response with `result`. In the `claude` dialect, a
    /// `control_response` whose subtype is `success`.
    Success {
        /// The id of the request it answers.
        id: Id,
    },
    /// A response with `error`. In the `claude` dialect, a `control_response`
    /// whose subtype is `error`.
    Error {
        /// The id of the request it answers. `None` only where the dialect
        /// lets an error response omit it (`mcp`, when the request's id could
        /// not be read).
        id: Option<Id>,
        /// `error.code`; `None` in the `claude` dialect, whose errors have none.
        code: Option<i64>,
    },
    /// A `control_cancel_request` (`claude` dialect).
    Cancel {
        /// The `request_id` of the request withdrawn.
        id: Id,
    },
    /// A record that needs no reply (`claude` and `events` dialects).
    Event {
        /// The value of its type field.
        name: Text,
    },
    /// A batch: a non-empty array, each member classified on its own. The
    /// findings about a member carry its index.
    Batch(Vec<Kind>),
    /// A message that breaks a MUST rule, so it is none of the above.
    Invalid {
        /// What it looks like.
        shape: Shape,
        /// Its id, if it has one that is a string, number or null.
        id: Option<Id>,
    },
}

impl Kind {
    /// The id of a request, response or cancel, if it has a usable one.
    pub fn id(&self) -> Option<&Id> {
        match self {
            Kind::Request { id, .. } | Kind::Success { id } | Kind::Cancel { id } => Some(id),
            Kind::Error { id, .. } | Kind::Invalid { id, .. } => id.as_ref(),
            Kind::Notification { .. } | Kind::Event { .. } | Kind::Batch(_) => None,
        }
    }
}

/// What an [invalid](Kind::Invalid) message looks like.
///
/// `#[non_exhaustive]`: [`Shape::Other`] may be told apart further as
/// dialects add kinds (a malformed event, say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Shape {
    /// It has `method` (or is a control request or cancel): a malformed request.
    Request,
    /// It has `result` or `error` but no `method` (or is a control
    /// response): a malformed response.
    Response,
    /// Neither: unparseable, not an object, an empty batch, or an object
    /// with no member that makes it a request or a response. An `id` alone
    /// does not: `{"id": 1, "params": []}` is an invalid request that a
    /// server answers with -32600, not a reply.
    Other,
}

/// A classified message and every rule it breaks.
///
/// `#[non_exhaustive]`: made by [`classify`] and [`Session`](crate::Session),
/// and it has grown before ([`Classified::limit`]); read the fields, match
/// with `..`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Classified {
    /// What the message is.
    pub kind: Kind,
    /// Every rule the message breaks, in the order checked; empty for a
    /// conforming message.
    pub findings: Vec<Finding>,
    /// The implementation limit the message is beyond, if any: a reader
    /// may refuse it as a whole (see [`crate::limits`]).
    pub limit: Option<Limit>,
}

impl Classified {
    /// The most binding level among the findings, `None` if there are none.
    pub fn worst(&self) -> Option<Level> {
        self.findings.iter().map(|f| f.rule.level).min()
    }

    /// Whether some finding is for the rule with this id.
    pub fn breaks(&self, rule_id: &str) -> bool {
        self.findings.iter().any(|f| f.rule.id == rule_id)
    }
}

/// Classifies one message, given as its JSON text (one framed line), and
/// checks every rule of `dialect` that needs no history. See the crate docs.
pub fn classify(text: &str, dialect: &Dialect) -> Classified {
    match envelope::validate(text) {
        Ok(()) => classify_checked(text, dialect),
        Err(e) => Classified {
            kind: invalid(Shape::Other, None),
            findings: vec![Finding::new(&r::JSON_PARSE, None, e.to_string())],
            limit: scan(text, dialect).limit,
        },
    }
}

/// [`classify`] for a text a JSON validator has already accepted as
/// exactly one JSON value (surrounding whitespace allowed), such as
/// `rpcspec-framer`'s `syntax::is_one_value`: the text is read once,
/// without checking its syntax again. The common message (an id of at
/// most 23 bytes as written, a string's quotes included, a method name of
/// at most 23 bytes, no finding) allocates nothing, so
/// messages can be classified on one thread and fed to a [`Session`] on
/// another at no cost.
///
/// [`Session`]: crate::Session
///
/// On a text that is not valid JSON the result is whatever a reading of
/// its structure gives (a `json.parse` finding is `classify`'s to make);
/// it never panics.
pub fn classify_checked(text: &str, dialect: &Dialect) -> Classified {
    classify_scanned(&scan(text, dialect), dialect)
}

/// Reads what the rules of `dialect` read of a text a JSON validator has
/// accepted (see [`classify_checked`]), for [`classify_scanned`].
pub(crate) fn scan<'a>(text: &'a str, dialect: &Dialect) -> Scanned<'a> {
    envelope::scan_with(text, dialect.type_field())
}

/// Classifies a message [`scan`]ned in the same `dialect`.
pub(crate) fn classify_scanned(scanned: &Scanned<'_>, dialect: &Dialect) -> Classified {
    let mut out = Vec::new();
    let kind = match scanned.what {
        JsonType::Object => object(&scanned.env, dialect, None, &mut out),
        JsonType::Array => match dialect {
            Dialect::Jsonrpc2 | Dialect::Lenient | Dialect::Mcp => {
                batch(&scanned.members, dialect, &mut out)
            }
            Dialect::Claude | Dialect::Events(_) => {
                not_object(JsonType::Array, dialect, None, &mut out)
            }
        },
        t => not_object(t, dialect, None, &mut out),
    };
    Classified {
        kind,
        findings: out,
        limit: scanned.limit,
    }
}

fn invalid(shape: Shape, id: Option<Id>) -> Kind {
    Kind::Invalid { shape, id }
}

fn not_object(
    t: JsonType,
    dialect: &Dialect,
    member: Option<usize>,
    out: &mut Vec<Finding>,
) -> Kind {
    let detail = match (member, dialect) {
        (Some(_), _) => format!("the batch member is {}", t.article()),
        (None, Dialect::Claude | Dialect::Events(_)) => {
            format!(
                "the message is {}; this dialect has no batches",
                t.article()
            )
        }
        (None, _) => format!("the message is {}", t.article()),
    };
    out.push(Finding::new(&r::MESSAGE_OBJECT, member, detail));
    invalid(Shape::Other, None)
}

fn batch(members: &[&str], dialect: &Dialect, out: &mut Vec<Finding>) -> Kind {
    if members.is_empty() {
        out.push(Finding::new(
            &r::BATCH_EMPTY,
            None,
            "the batch is an empty array",
        ));
        return invalid(Shape::Other, None);
    }
    if *dialect == Dialect::Mcp {
        let n = members.len();
        let detail = format!(
            "the message is a batch of {n} member{}",
            if n == 1 { "" } else { "s" }
        );
        out.push(Finding::new(&r::MCP_BATCH, None, detail));
    }
    let kinds = members
        .iter()
        .enumerate()
        .map(|(i, raw)| match envelope::parse_nested(raw, "type") {
            Some(env) => object(&env, dialect, Some(i), out),
            None => not_object(JsonType::of(raw), dialect, Some(i), out),
        })
        .collect();
    Kind::Batch(kinds)
}

fn object(
    env: &Envelope<'_>,
    dialect: &Dialect,
    member: Option<usize>,
    out: &mut Vec<Finding>,
) -> Kind {
    for name in env.duplicates(dialect.type_field()) {
        out.push(Finding::new(
            &r::MESSAGE_DUPLICATE_MEMBER,
            member,
            format!("member `{name}` appears more than once; the last one was read"),
        ));
    }
    match dialect {
        Dialect::Jsonrpc2 | Dialect::Lenient | Dialect::Mcp => Rpc {
            env,
            dialect,
            member,
            out,
        }
        .classify(),
        Dialect::Claude => claude(env, member, out),
        Dialect::Events(cfg) => event(env, cfg, member, out),
    }
}

/// The decoded value of a JSON string. A lone surrogate escape cannot be
/// decoded; the text between the quotes stands in for it then.
fn decode(raw: &str) -> Text {
    // `"` alone is no string, but text that is not JSON may end so.
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
    if !inner.contains('\\') {
        return inner.into();
    }
    serde_json::from_str::<String>(raw).map_or_else(|_| inner.into(), Text::from)
}

fn string(raw: Option<&str>) -> Option<Text> {
    raw.filter(|r| JsonType::of(r) == JsonType::String)
        .map(decode)
}

/// "the string \"1.0\"", "the number 2.0", "an array" ... for details.
fn describe(raw: &str) -> String {
    const MAX: usize = 40;
    let shown = if raw.len() > MAX {
        let mut end = MAX;
        while !raw.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &raw[..end])
    } else {
        raw.to_owned()
    };
    match JsonType::of(raw) {
        JsonType::String => format!("the string {shown}"),
        JsonType::Number => format!("the number {shown}"),
        JsonType::Bool => format!("the boolean {shown}"),
        t => t.article().to_owned(),
    }
}

/// The detail of `message.jsonrpc-version` for a message without `jsonrpc`.
pub(crate) const JSONRPC_ABSENT: &str = "`jsonrpc` is absent";

fn has_must(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.rule.level == Level::Must)
}

/// JSON-RPC 2.0 and its `lenient` and `mcp` dialects.
struct Rpc<'e, 'a> {
    env: &'e Envelope<'a>,
    dialect: &'e Dialect,
    member: Option<usize>,
    out: &'e mut Vec<Finding>,
}

impl Rpc<'_, '_> {
    fn push(&mut self, rule: &'static Rule, detail: impl Into<String>) {
        self.out.push(Finding::new(rule, self.member, detail));
    }

    fn mcp(&self) -> bool {
        *self.dialect == Dialect::Mcp
    }

    fn classify(mut self) -> Kind {
        let start = self.out.len();
        match self.env.get(Field::Jsonrpc) {
            None if *self.dialect == Dialect::Lenient => {}
            None => self.push(&r::MESSAGE_JSONRPC_VERSION, JSONRPC_ABSENT),
            Some("\"2.0\"") => {}
            Some(raw) if raw.contains('\\') && string(Some(raw)).as_deref() == Some("2.0") => {}
            Some(raw) => self.push(
                &r::MESSAGE_JSONRPC_VERSION,
                format!("`jsonrpc` is {}", describe(raw)),
            ),
        }
        let env = self.env;
        let kind = if let Some(method) = env.get(Field::Method) {
            self.request(method)
        } else if env.has(Field::Result) || env.has(Field::Error) || env.has(Field::Id) {
            self.response()
        } else {
            self.push(
                &r::MESSAGE_KIND,
                "the object has none of `method`, `result`, `error` and `id`",
            );
            invalid(Shape::Other, None)
        };
        match kind {
            Kind::Invalid { .. } => kind,
            _ if has_must(&self.out[start..]) => invalid(shape_of(&kind), kind.id().cloned()),
            _ => kind,
        }
    }

    fn request(&mut self, method_raw: &str) -> Kind {
        let method = string(Some(method_raw));
        match &method {
            None => self.push(
                &r::REQUEST_METHOD_TYPE,
                format!("`method` is {}", describe(method_raw)),
            ),
            Some(m) if m.starts_with("rpc.") => {
                self.push(
                    &r::REQUEST_METHOD_RESERVED,
                    format!("method `{m}` begins with `rpc.`"),
                );
            }
            Some(_) => {}
        }
        if let Some(params) = self.env.get(Field::Params)
            && !matches!(JsonType::of(params), JsonType::Object | JsonType::Array)
        {
            self.push(
                &r::REQUEST_PARAMS_TYPE,
                format!("`params` is {}", describe(params)),
            );
        }
        let Some(id_raw) = self.env.get(Field::Id) else {
            return match method {
                Some(method) => {
                    if self.env.others {
                        self.push(
                            &r::REQUEST_OTHER_MEMBERS,
                            "the notification has members besides `jsonrpc`, `method` and \
                             `params`: a strict reader may refuse it with -32600, id null",
                        );
                    }
                    Kind::Notification { method }
                }
                None => invalid(Shape::Request, None),
            };
        };
        let Some(id) = Id::from_raw(id_raw) else {
            self.push(&r::REQUEST_ID_TYPE, format!("`id` is {}", describe(id_raw)));
            return invalid(Shape::Request, None);
        };
        match id.kind() {
            IdKind::Null => {
                self.push(&r::REQUEST_ID_NULL, "`id` is null");
                if self.mcp() {
                    self.push(&r::MCP_ID_TYPE, "`id` is null");
                }
            }
            IdKind::Number => {
                if id.is_fractional() {
                    let detail = if id.raw().contains('.') {
                        format!("`id` {id} has a fraction part")
                    } else {
                        format!("`id` {id} is not an integer")
                    };
                    self.push(&r::REQUEST_ID_FRACTIONAL, detail);
                }
                if self.mcp() && !id.is_integer_literal() {
                    self.push(
                        &r::MCP_ID_TYPE,
                        format!("`id` {id} is not written as an integer"),
                    );
                }
            }
            IdKind::String => {}
        }
        match method {
            Some(method) => Kind::Request { id, method },
            None => invalid(Shape::Request, Some(id)),
        }
    }

    fn response(&mut self) -> Kind {
        let env = self.env;
        let (result, error) = (env.has(Field::Result), env.has(Field::Error));
        match (result, error) {
            (true, true) => self.push(
                &r::RESPONSE_RESULT_XOR_ERROR,
                "the response has both `result` and `error`",
            ),
            (false, false) => self.push(
                &r::RESPONSE_RESULT_XOR_ERROR,
                "the response has neither `result` nor `error`",
            ),
            _ => {}
        }
        let id = match env.get(Field::Id) {
            None => {
                // MCP lets an error response omit the id it could not read.
                if !(self.mcp() && error && !result) {
                    self.push(&r::RESPONSE_ID_MISSING, "the response has no `id`");
                }
                None
            }
            Some(raw) => match Id::from_raw(raw) {
                None => {
                    self.push(&r::RESPONSE_ID_TYPE, format!("`id` is {}", describe(raw)));
                    None
                }
                Some(id) => {
                    if self.mcp() {
                        if id.kind() == IdKind::Null {
                            self.push(
                                &r::MCP_ID_TYPE,
                                "`id` is null; an MCP error response omits an unreadable id",
                            );
                        } else if id.kind() == IdKind::Number && !id.is_integer_literal() {
                            self.push(
                                &r::MCP_ID_TYPE,
                                format!("`id` {id} is not written as an integer"),
                            );
                        }
                    }
                    Some(id)
                }
            },
        };
        let code = env.get(Field::Error).and_then(|e| self.error_object(e));
        match (result, error, id) {
            (true, false, Some(id)) => Kind::Success { id },
            (false, true, id) => Kind::Error { id, code },
            // Only an `id`: nothing makes it a response.
            (false, false, id) => invalid(Shape::Other, id),
            (_, _, id) => invalid(Shape::Response, id),
        }
    }

    /// Checks an `error` member; returns its code if it is a usable integer.
    fn error_object(&mut self, raw: &str) -> Option<i64> {
        let Some(err) = envelope::parse_nested(raw, "type") else {
            self.push(&r::ERROR_OBJECT, format!("`error` is {}", describe(raw)));
            return None;
        };
        for name in err.duplicates("type") {
            self.push(
                &r::MESSAGE_DUPLICATE_MEMBER,
                format!("member `error.{name}` appears more than once; the last one was read"),
            );
        }
        match err.get(Field::Message) {
            None => self.push(&r::ERROR_MESSAGE_STRING, "`error.message` is absent"),
            Some(m) if JsonType::of(m) != JsonType::String => {
                self.push(
                    &r::ERROR_MESSAGE_STRING,
                    format!("`error.message` is {}", describe(m)),
                );
            }
            Some(_) => {}
        }
        let code = match err.get(Field::Code) {
            None => {
                self.push(&r::ERROR_CODE_INTEGER, "`error.code` is absent");
                return None;
            }
            Some(c) if JsonType::of(c) != JsonType::Number => {
                self.push(
                    &r::ERROR_CODE_INTEGER,
                    format!("`error.code` is {}", describe(c)),
                );
                return None;
            }
            Some(c) if !id::is_integer_literal(c) => {
                self.push(
                    &r::ERROR_CODE_INTEGER,
                    format!("`error.code` {c} is written with a fraction or exponent"),
                );
                return None;
            }
            Some(c) => match c.parse::<i64>() {
                Ok(n) => n,
                Err(_) => {
                    self.push(
                        &r::ERROR_CODE_INTEGER,
                        format!("`error.code` {c} does not fit in 64 bits"),
                    );
                    return None;
                }
            },
        };
        let predefined = code == -32700
            || (-32603..=-32600).contains(&code)
            || (-32099..=-32000).contains(&code);
        if (-32768..=-32000).contains(&code) && !predefined {
            self.push(
                &r::ERROR_CODE_RESERVED,
                format!("code {code} is reserved for future use"),
            );
        }
        Some(code)
    }
}

fn shape_of(kind: &Kind) -> Shape {
    match kind {
        Kind::Request { .. } | Kind::Notification { .. } | Kind::Cancel { .. } => Shape::Request,
        Kind::Success { .. } | Kind::Error { .. } => Shape::Response,
        Kind::Invalid { shape, .. } => *shape,
        Kind::Event { .. } | Kind::Batch(_) => Shape::Other,
    }
}

/// Claude Code's stream-json control protocol.
fn claude(env: &Envelope<'_>, member: Option<usize>, out: &mut Vec<Finding>) -> Kind {
    let mut push = |rule, detail: String| out.push(Finding::new(rule, member, detail));
    let ty = match env.get(Field::Type) {
        None => {
            push(&r::CLAUDE_TYPE, "`type` is absent".into());
            return invalid(Shape::Other, None);
        }
        Some(raw) => match string(Some(raw)) {
            Some(ty) => ty,
            None => {
                push(&r::CLAUDE_TYPE, format!("`type` is {}", describe(raw)));
                return invalid(Shape::Other, None);
            }
        },
    };
    // A `request_id` that is a string; anything else is described for `rule`.
    let request_id =
        |env: &Envelope<'_>, rule, push: &mut dyn FnMut(&'static Rule, String)| match env
            .get(Field::RequestId)
        {
            None => {
                push(rule, "`request_id` is absent".into());
                None
            }
            Some(raw) if JsonType::of(raw) != JsonType::String => {
                push(rule, format!("`request_id` is {}", describe(raw)));
                Id::from_raw(raw)
            }
            Some(raw) => Id::from_raw(raw),
        };
    match &*ty {
        "control_request" => {
            let rule = &r::CLAUDE_CONTROL_REQUEST;
            let mut ok = true;
            let mut bad = |rule, detail| {
                ok = false;
                push(rule, detail);
            };
            let id = request_id(env, rule, &mut bad);
            let subtype = match env.get(Field::Request) {
                None => {
                    bad(rule, "`request` is absent".into());
                    None
                }
                Some(raw) => match envelope::parse_nested(raw, "type") {
                    None => {
                        bad(rule, format!("`request` is {}", describe(raw)));
                        None
                    }
                    Some(req) => {
                        let subtype = string(req.get(Field::Subtype));
                        if subtype.is_none() {
                            bad(rule, "`request.subtype` is absent or not a string".into());
                        }
                        subtype
                    }
                },
            };
            match (ok, id, subtype) {
                (true, Some(id), Some(method)) => Kind::Request { id, method },
                (_, id, _) => invalid(Shape::Request, id),
            }
        }
        "control_response" => {
            let rule = &r::CLAUDE_CONTROL_RESPONSE;
            let Some(raw) = env.get(Field::Response) else {
                push(rule, "`response` is absent".into());
                return invalid(Shape::Response, None);
            };
            let Some(resp) = envelope::parse_nested(raw, "type") else {
                push(rule, format!("`response` is {}", describe(raw)));
                return invalid(Shape::Response, None);
            };
            let mut ok = true;
            let mut bad = |rule, detail| {
                ok = false;
                push(rule, detail);
            };
            let id = request_id(&resp, rule, &mut bad);
            let subtype = string(resp.get(Field::Subtype));
            if !matches!(subtype.as_deref(), Some("success" | "error")) {
                bad(
                    rule,
                    "`response.subtype` is not \"success\" or \"error\"".into(),
                );
            }
            match (ok, id, subtype.as_deref()) {
                (true, Some(id), Some("success")) => Kind::Success { id },
                (true, Some(id), _) => Kind::Error {
                    id: Some(id),
                    code: None,
                },
                (_, id, _) => invalid(Shape::Response, id),
            }
        }
        "control_cancel_request" => {
            let mut ok = true;
            let mut bad = |rule, detail| {
                ok = false;
                push(rule, detail);
            };
            match (request_id(env, &r::CLAUDE_CONTROL_CANCEL, &mut bad), ok) {
                (Some(id), true) => Kind::Cancel { id },
                (id, _) => invalid(Shape::Request, id),
            }
        }
        _ => Kind::Event { name: ty },
    }
}

/// A plain event stream: one record, checked for its type field.
fn event(
    env: &Envelope<'_>,
    cfg: &EventsConfig,
    member: Option<usize>,
    out: &mut Vec<Finding>,
) -> Kind {
    let field = &cfg.type_field;
    let detail = match env.get(Field::Type) {
        Some(raw) if JsonType::of(raw) == JsonType::String => {
            return Kind::Event { name: decode(raw) };
        }
        Some(raw) => format!("`{field}` is {}", describe(raw)),
        None => format!("`{field}` is absent"),
    };
    out.push(Finding::new(&r::EVENTS_TYPE, member, detail));
    invalid(Shape::Other, None)
}
