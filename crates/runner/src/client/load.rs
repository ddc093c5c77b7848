//! Reading a scenario file (`spec-cases/client/**.toml`): each
//! `[[scenario]]` table checked field by field, every error pointing at
//! the field it is about (file:line:column).

use std::{ops::Range, path::Path, time::Duration};

use rpcspec_matcher::Level;
use serde_json::Value;
use toml::Spanned;

use super::{
    CallDef, CallMatch, Decoy, FileDef, Order, Protocol, Scenario, ScenarioDef, Writes, agents,
    twist::Twist,
};
use crate::{
    casefile::{self, LoadError, Meta},
    dialects::Playing,
};

/// Loads the scenarios of one file, given its path relative to the cases
/// root (which makes the ids) and its text.
pub fn load_str(file: &Path, text: &str) -> Result<Vec<Scenario>, LoadError> {
    let at = At { file, text };
    let def: FileDef = casefile::parse_toml(file, text)?;
    let prefix = casefile::id_prefix(file);
    let protocol = Protocol::of_file(&prefix)
        .ok_or_else(|| at.err(0..0, "a client scenario lives under client/".into()))?;
    let lines = casefile::Lines::new(text);
    let mut seen = casefile::SeenIds::new();
    let mut out = Vec::new();
    for spanned in def.scenario {
        let span = spanned.span();
        let d = spanned.into_inner();
        let line = lines.locate(file, span.start).line;
        let id = casefile::case_id(&prefix, d.name.get_ref(), line, &mut seen)
            .map_err(|e| at.err(d.name.span(), e))?;
        let level = match &d.level {
            Some(l) => casefile::parse_level(l.get_ref()).map_err(|e| at.err(l.span(), e))?,
            None => Level::Must,
        };
        let meta = Meta {
            id,
            title: d.title.clone(),
            section: d.section.clone(),
            level,
            requires: requirements(&at, &d.requires)?,
            source: lines.locate(file, span.start),
        };
        out.push(scenario(&at, protocol, &d, span, meta)?);
    }
    Ok(out)
}

/// One scenario of `protocol`, its fields checked.
fn scenario(
    at: &At<'_>,
    protocol: Protocol,
    d: &ScenarioDef,
    span: Range<usize>,
    meta: Meta,
) -> Result<Scenario, LoadError> {
    let (order, writes, decoy) = ways(at, d)?;
    let (framing, header) = framing(at, protocol.play(), d, writes, span.clone())?;
    let calls = calls(at, d)?;
    let twist = others_fields(at, protocol, d, span)?;
    Ok(Scenario {
        meta,
        order,
        writes,
        crlf: d.crlf,
        whitespace: d.whitespace.as_ref().map(|s| at.bytes(s)).transpose()?,
        before: at.lines(&d.before)?,
        on_notification: at.lines(&d.on_notification)?,
        decoy,
        replace: calls.replace,
        result: calls.result,
        error: d.error.as_ref().map(|s| at.json(s)).transpose()?,
        exit: calls.exit,
        close: calls.close,
        delay: calls.delay,
        ask: d.ask.clone(),
        ask_params: d.ask_params.as_ref().map(|s| at.json(s)).transpose()?,
        ask_if: d.ask_if.as_ref().map(|s| s.get_ref().clone()),
        ask_on: d.ask_on.as_ref().map(|c| at.call(c, "")).transpose()?,
        version: d.version.clone(),
        twist,
        protocol,
        framing,
        header,
        claude: agents::claude_play(protocol, d, &|s, m| at.err(s, m))?,
        codex_exec: agents::exec_stream(protocol, d, &|s, m| at.err(s, m))?,
        codex: agents::host_play(protocol, d, &|s, m| at.err(s, m))?,
    })
}

/// Where a scenario's errors point: its file and text.
struct At<'t> {
    file: &'t Path,
    text: &'t str,
}

impl At<'_> {
    /// An error at `span`.
    fn err(&self, span: Range<usize>, message: String) -> LoadError {
        LoadError::at(self.file, self.text, span, message)
    }

    /// A string's bytes, its escapes undone.
    fn bytes(&self, s: &Spanned<String>) -> Result<Vec<u8>, LoadError> {
        crate::unescape::stream_text(s.get_ref()).map_err(|e| self.err(s.span(), e))
    }

    /// Lines to write, each without a line end.
    fn lines(&self, v: &[Spanned<String>]) -> Result<Vec<Vec<u8>>, LoadError> {
        v.iter()
            .map(|s| {
                let b = self.bytes(s)?;
                if b.contains(&b'\n') {
                    return Err(self.err(s.span(), "a line may not hold `\\x0A`".into()));
                }
                Ok(b)
            })
            .collect()
    }

    /// A string that must be one JSON value, as bytes.
    fn json(&self, s: &Spanned<String>) -> Result<Vec<u8>, LoadError> {
        let b = self.bytes(s)?;
        serde_json::from_slice::<Value>(&b)
            .map_err(|e| self.err(s.span(), format!("not one JSON value: {e}")))?;
        Ok(b)
    }

    /// A call table: `{ method, params }` and the one `field` it needs
    /// (`""`: none).
    fn call(&self, c: &Spanned<CallDef>, field: &str) -> Result<CallMatch, LoadError> {
        let def = c.get_ref();
        let fields = [
            ("line", def.line.is_some()),
            ("value", def.value.is_some()),
            ("code", def.code.is_some()),
            ("ms", def.ms.is_some()),
        ];
        if let Some((extra, _)) = fields.iter().find(|(f, set)| *set && *f != field) {
            return Err(self.err(c.span(), format!("`{extra}` does not belong here")));
        }
        if !field.is_empty() && !fields.iter().any(|(f, set)| *set && *f == field) {
            return Err(self.err(c.span(), format!("`{field}` is missing")));
        }
        let params = def
            .params
            .as_ref()
            .map(serde_json::to_value)
            .transpose()
            .map_err(|e| self.err(c.span(), format!("params: {e}")))?;
        Ok(CallMatch {
            method: def.method.clone(),
            params,
        })
    }

    /// A call table's text field, its escapes undone.
    fn text(&self, c: &Spanned<CallDef>, s: Option<&str>) -> Result<Vec<u8>, LoadError> {
        crate::unescape::stream_text(s.unwrap_or_default()).map_err(|e| self.err(c.span(), e))
    }
}

/// `requires`: the library's features the scenario needs.
fn requirements(at: &At<'_>, requires: &[Spanned<String>]) -> Result<Vec<String>, LoadError> {
    requires
        .iter()
        .map(|r| {
            if ["concurrency", "batch"].contains(&r.get_ref().as_str()) {
                Ok(r.get_ref().clone())
            } else {
                Err(at.err(
                    r.span(),
                    format!(
                        "unknown requirement `{}` (known: concurrency, batch)",
                        r.get_ref()
                    ),
                ))
            }
        })
        .collect()
}

/// How the server orders and writes its replies, and its decoy.
fn ways(at: &At<'_>, d: &ScenarioDef) -> Result<(Order, Writes, Option<Decoy>), LoadError> {
    let order = match d.order.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
        None | Some(("received", _)) => Order::Received,
        Some(("reverse", _)) => Order::Reverse,
        Some((other, span)) => {
            return Err(at.err(
                span,
                format!("order `{other}` is not one of received, reverse"),
            ));
        }
    };
    let writes = match d.writes.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
        None | Some(("line", _)) => Writes::Line,
        Some(("coalesced", _)) => Writes::Coalesced,
        Some(("split", _)) => Writes::Split,
        Some(("bytewise", _)) => Writes::Bytewise,
        Some(("header-apart", _)) => Writes::HeaderApart,
        Some(("chunks", _)) => Writes::Chunks,
        Some((other, span)) => {
            return Err(at.err(
                span,
                format!(
                    "writes `{other}` is not one of line, coalesced, split, bytewise, header-apart, chunks"
                ),
            ));
        }
    };
    let decoy = match d.decoy.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
        None => None,
        Some(("unknown-id", _)) => Some(Decoy::UnknownId),
        Some(("retyped-id", _)) => Some(Decoy::RetypedId),
        Some(("duplicate", _)) => Some(Decoy::Duplicate),
        Some((other, span)) => {
            return Err(at.err(
                span,
                format!("decoy `{other}` is not one of unknown-id, retyped-id, duplicate"),
            ));
        }
    };
    Ok((order, writes, decoy))
}

/// The framing the scenario is written for (its dialect's own where it
/// has one; `None`: any), and its Content-Length header.
fn framing(
    at: &At<'_>,
    play: &Playing,
    d: &ScenarioDef,
    writes: Writes,
    span: Range<usize>,
) -> Result<(Option<String>, Option<Vec<u8>>), LoadError> {
    let framing = match &d.framing {
        Some(f) if !crate::capture::Framing::NAMES.contains(&f.get_ref().as_str()) => {
            return Err(at.err(
                f.span(),
                format!(
                    "framing `{}` is not one of {}",
                    f.get_ref(),
                    crate::capture::Framing::NAMES.join(", ")
                ),
            ));
        }
        Some(f)
            if play
                .framing
                .is_some_and(|(own, _)| f.get_ref() != own.name()) =>
        {
            let (own, _) = play.framing.expect("just matched");
            return Err(at.err(
                f.span(),
                format!(
                    "{} scenarios ({}) are {}",
                    play.label,
                    play.folder,
                    own.described()
                ),
            ));
        }
        // The dialect's own framing, where it has one.
        None => play.framing.map(|(own, _)| own.name().to_owned()),
        f => f.as_ref().map(|f| f.get_ref().clone()),
    };
    let content_length = framing.as_deref() == Some("content-length");
    if d.crlf && framing.as_deref() != Some("ndjson") {
        return Err(at.err(
            span,
            "`crlf` is about NDJSON lines: it needs `framing = \"ndjson\"`".into(),
        ));
    }
    if writes == Writes::HeaderApart && !content_length {
        return Err(at.err(
            span,
            "`writes = \"header-apart\"` needs `framing = \"content-length\"`".into(),
        ));
    }
    let header = match &d.header {
        Some(h) if !content_length => {
            return Err(at.err(
                h.span(),
                "`header` needs `framing = \"content-length\"`".into(),
            ));
        }
        Some(h) => {
            let b = at.bytes(h)?;
            if !b.ends_with(b"\r\n\r\n") {
                return Err(at.err(h.span(), "a header ends with `\\r\\n\\r\\n`".into()));
            }
            Some(b)
        }
        None => None,
    };
    Ok((framing, header))
}

/// The calls a scenario answers its own way.
struct Calls {
    replace: Option<(CallMatch, Vec<u8>)>,
    result: Option<(CallMatch, Vec<u8>)>,
    exit: Option<(CallMatch, i32)>,
    close: Option<CallMatch>,
    delay: Option<(CallMatch, Duration)>,
}

/// `replace`, `result`, `exit`, `close` and `delay`.
fn calls(at: &At<'_>, d: &ScenarioDef) -> Result<Calls, LoadError> {
    let replace = match &d.replace {
        Some(c) => Some((
            at.call(c, "line")?,
            at.text(c, c.get_ref().line.as_deref())?,
        )),
        None => None,
    };
    let result = match &d.result {
        Some(c) => {
            let value = at.text(c, c.get_ref().value.as_deref())?;
            if serde_json::from_slice::<Value>(&value).is_err() {
                return Err(at.err(c.span(), "`value` is not one JSON value".into()));
            }
            Some((at.call(c, "value")?, value))
        }
        None => None,
    };
    let exit = match &d.exit {
        Some(c) => Some((at.call(c, "code")?, c.get_ref().code.unwrap_or(1))),
        None => None,
    };
    let close = d.close.as_ref().map(|c| at.call(c, "")).transpose()?;
    let delay = match &d.delay {
        Some(c) => {
            let ms = c.get_ref().ms.unwrap_or_default();
            if ms > 10_000 {
                return Err(at.err(c.span(), "a delay of at most 10000 ms".into()));
            }
            Some((at.call(c, "ms")?, Duration::from_millis(ms)))
        }
        None => None,
    };
    Ok(Calls {
        replace,
        result,
        exit,
        close,
        delay,
    })
}

/// The fields that belong to another dialect's scenarios refused, and the
/// MCP twist read.
fn others_fields(
    at: &At<'_>,
    protocol: Protocol,
    d: &ScenarioDef,
    span: Range<usize>,
) -> Result<Option<Twist>, LoadError> {
    let set = [
        ("ask_if", d.ask_if.as_ref().map(Spanned::span)),
        ("version", d.version.as_ref().map(|_| span)),
        ("twist", d.twist.as_ref().map(Spanned::span)),
    ];
    for (field, span) in set.into_iter().filter_map(|(f, s)| Some((f, s?))) {
        if protocol.play().fields.contains(&field) {
            continue;
        }
        let owner = crate::dialects::DIALECTS
            .iter()
            .filter_map(|d| d.play.as_ref())
            .find(|p| p.fields.contains(&field));
        if let Some(owner) = owner.filter(|p| p.folder != protocol.play().folder) {
            return Err(at.err(
                span,
                format!(
                    "`{field}` belongs to {} scenarios ({})",
                    owner.label, owner.folder
                ),
            ));
        }
    }
    if let Some(a) = d.ask_if.as_ref().filter(|a| !a.get_ref().starts_with('/')) {
        return Err(at.err(
            a.span(),
            "`ask_if` is a JSON pointer into the initialize params: `/capabilities/…`".into(),
        ));
    }
    d.twist
        .as_ref()
        .map(|t| {
            Twist::named(t.get_ref()).ok_or_else(|| {
                let names: Vec<&str> = Twist::ALL.iter().map(|(n, _)| *n).collect();
                at.err(
                    t.span(),
                    format!("twist `{}` is not one of {}", t.get_ref(), names.join(", ")),
                )
            })
        })
        .transpose()
}
