//! Event-stream profiles: data files (`spec-cases/profiles/*.toml`) that say
//! what a producer's records look like, how a stream starts and ends, and
//! which inputs (scenarios) to run it with.

use std::{
    ops::Range,
    path::{Path, PathBuf},
};

use serde::Deserialize;
use toml::Spanned;

use crate::{
    casefile::{self, LoadError, Location},
    pattern::{Match, Pattern},
    shipped,
};

/// An event-stream profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Its name (`events`, `claude`, or the file's).
    pub name: String,
    /// One line saying what it describes.
    pub title: String,
    /// The member naming a record's type.
    pub type_field: String,
    /// The type of the first record, if the stream has a start record.
    pub start: Option<String>,
    /// The types that end a stream.
    pub end: Vec<String>,
    /// The end type reporting a failure, if any: its records are error
    /// records, checked for their shape by `producer/lifecycle/error-record`.
    pub error: Option<String>,
    /// End records that report a failure by a field (Claude Code's
    /// `"is_error": true`), besides those of the `error` type.
    pub failed: Vec<Pattern>,
    /// Whether stdin stays open while the stream is written.
    pub stdin_open: bool,
    /// The shape of each declared type.
    pub records: Vec<(String, Pattern)>,
    /// How the runner answers the producer's control requests.
    pub control: Option<Control>,
    /// A request body an HTTP endpoint must refuse before streaming.
    pub bad_request: Option<String>,
    /// The media types a stream may be served as (their essence, lower
    /// case).
    pub content_types: Vec<String>,
    /// The runs of the producer.
    pub scenarios: Vec<Scenario>,
    /// Where the profile was read from.
    pub source: PathBuf,
}

/// A profile's control protocol (Claude Code's `control_request`).
#[derive(Debug, Clone)]
pub struct Control {
    /// The type of a control request.
    pub request: String,
    /// The member holding the request's id.
    pub id: String,
    /// The answer's template: `$id` and `$answer` are replaced.
    pub response: String,
    /// Command-line text that turns control requests on (Claude Code's
    /// `--permission-prompt-tool stdio`): a command without any of these
    /// cannot make one, so the control check does not apply to it. Empty:
    /// always on.
    pub enabled_by: Vec<String>,
    /// The type of the producer's answers to the runner's control requests
    /// (Claude Code's `control_response`), if the runner sends any.
    pub reply: Option<String>,
    /// The types of the control protocol's records: they are not part of a
    /// turn, so the lifecycle checks look past them.
    pub protocol: Vec<String>,
}

/// A control request a scenario sends (an input line of the control
/// request type).
#[derive(Debug, Clone)]
pub struct Request {
    /// Its index in the scenario's input.
    pub line: usize,
    /// Its id, if it has one.
    pub id: Option<serde_json::Value>,
    /// Its subtype, if it has one.
    pub subtype: Option<String>,
    /// It has an id (a string or number) and a `request` object with a
    /// string `subtype`: an answer is due.
    pub well_formed: bool,
}

/// One run of the producer.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Its name: the "plan" column of a report.
    pub name: String,
    /// Lines written to stdin.
    pub input: Vec<String>,
    /// The body POSTed to an HTTP endpoint.
    pub body: Option<String>,
    /// The end type the stream must finish with (`None`: any end type).
    pub end: Option<String>,
    /// The answer to control requests (JSON), when the scenario expects one.
    pub answer: Option<String>,
    /// Whether it sends a turn (a user message). Without one (`turn =
    /// false`: control requests alone) no start or end record is due, and
    /// stdin closes once every control request is answered.
    pub turn: bool,
    /// The control requests among its input lines.
    pub requests: Vec<Request>,
    /// The ids of the requests that must be answered with an error (a
    /// subtype no one serves).
    pub errors: Vec<String>,
    /// Whether each control request waits for the answers to those before
    /// it (as an SDK awaits each call), instead of all going at once.
    pub paced: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Def {
    name: String,
    title: String,
    #[serde(rename = "type")]
    type_field: String,
    start: Option<String>,
    end: Spanned<Vec<String>>,
    error: Option<Spanned<String>>,
    #[serde(default)]
    failed: Vec<Spanned<String>>,
    #[serde(default = "default_stdin")]
    stdin: Spanned<String>,
    #[serde(default)]
    records: std::collections::BTreeMap<String, Spanned<String>>,
    control: Option<ControlDef>,
    http: Option<HttpDef>,
    #[serde(default)]
    scenario: Vec<Spanned<ScenarioDef>>,
}

fn default_stdin() -> Spanned<String> {
    Spanned::new(0..0, "open".to_owned())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlDef {
    request: String,
    id: String,
    response: Spanned<String>,
    #[serde(default)]
    enabled_by: Vec<String>,
    reply: Option<String>,
    #[serde(default)]
    protocol: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpDef {
    bad_request: Option<String>,
    content_types: Option<Spanned<Vec<String>>>,
}

/// The streaming JSON media types, when a profile names none.
const CONTENT_TYPES: &[&str] = &[
    "application/x-ndjson",
    "application/jsonl",
    "application/json-lines",
    "application/jsonlines",
    "application/ndjson",
    "application/json-seq",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDef {
    name: String,
    #[serde(default)]
    input: Vec<Spanned<String>>,
    body: Option<Spanned<String>>,
    end: Option<Spanned<String>>,
    answer: Option<Spanned<String>>,
    #[serde(default = "yes")]
    turn: bool,
    #[serde(default)]
    errors: Vec<Spanned<String>>,
    #[serde(default)]
    paced: bool,
}

fn yes() -> bool {
    true
}

impl Profile {
    /// A shipped profile by name (`events`, `claude`), or a profile file.
    pub fn named(name: &str) -> Result<Profile, String> {
        let shipped = format!("profiles/{name}.toml");
        if let Some((path, text)) = shipped::builtin_files(Some("profiles"))
            .into_iter()
            .find(|(p, _)| *p == Path::new(&shipped))
        {
            return Profile::parse(path, text).map_err(|e| e.to_string());
        }
        let path = Path::new(name);
        if path.extension().is_some_and(|x| x == "toml") || path.exists() {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read profile {}: {e}", path.display()))?;
            return Profile::parse(path, &text).map_err(|e| e.to_string());
        }
        let known: Vec<String> = shipped::builtin_files(Some("profiles"))
            .into_iter()
            .filter_map(|(p, _)| Some(p.file_stem()?.to_string_lossy().into_owned()))
            .collect();
        Err(format!(
            "unknown profile `{name}` (shipped: {}; or give the path of a profile file)",
            known.join(", ")
        ))
    }

    /// Parses a profile file; errors say file:line:column.
    pub fn parse(file: &Path, text: &str) -> Result<Profile, LoadError> {
        let at = |span: Range<usize>, message: String| LoadError {
            location: casefile::locate(file, text, span.start),
            message,
        };
        let def: Def = toml::from_str(text)
            .map_err(|e| at(e.span().unwrap_or(0..0), e.message().trim_end().to_owned()))?;
        let whole = |message: String| LoadError {
            location: Location {
                file: file.to_path_buf(),
                line: 1,
                column: 1,
            },
            message,
        };
        let end_span = def.end.span();
        let end = def.end.into_inner();
        if end.is_empty() {
            return Err(at(
                end_span,
                "`end` names no type: a stream could never end".into(),
            ));
        }
        let error = match def.error {
            Some(e) => {
                let span = e.span();
                let e = e.into_inner();
                if !end.contains(&e) {
                    return Err(at(span, format!("`error` type `{e}` is not one of `end`")));
                }
                Some(e)
            }
            None => None,
        };
        let stdin_span = def.stdin.span();
        let stdin_open = match def.stdin.into_inner().as_str() {
            "open" => true,
            "close" => false,
            other => {
                return Err(at(
                    stdin_span,
                    format!("`stdin` is `open` or `close`, not `{other}`"),
                ));
            }
        };
        let mut failed = Vec::new();
        for pattern in def.failed {
            let span = pattern.span();
            failed.push(Pattern::parse(pattern.get_ref()).map_err(|e| at(span, e))?);
        }
        let mut records = Vec::new();
        for (name, pattern) in def.records {
            let span = pattern.span();
            let p = Pattern::parse(pattern.get_ref()).map_err(|e| at(span, e))?;
            records.push((name, p));
        }
        let control = control(def.control, &at)?;
        let mut scenarios: Vec<Scenario> = Vec::new();
        for s in def.scenario {
            let span = s.span();
            let s = s.into_inner();
            if scenarios.iter().any(|x| x.name == s.name) {
                return Err(at(span, format!("a second scenario called `{}`", s.name)));
            }
            scenarios.push(scenario(
                s,
                span,
                &end,
                control.as_ref(),
                &def.type_field,
                &at,
            )?);
        }
        if scenarios.is_empty() {
            return Err(whole("the profile has no [[scenario]]".into()));
        }
        let (bad_request, content_types) = match def.http {
            Some(h) => (h.bad_request, h.content_types),
            None => (None, None),
        };
        let content_types = content_types_of(content_types, &at)?;
        Ok(Profile {
            name: def.name,
            title: def.title,
            type_field: def.type_field,
            start: def.start,
            end,
            error,
            failed,
            stdin_open,
            records,
            control,
            bad_request,
            content_types,
            scenarios,
            source: file.to_path_buf(),
        })
    }

    /// The shape declared for `kind`, if any.
    pub fn shape(&self, kind: &str) -> Option<&Pattern> {
        self.records.iter().find(|(k, _)| k == kind).map(|(_, p)| p)
    }

    /// The type of `record`, if it has one.
    pub fn kind_of<'a>(&self, record: &'a serde_json::Value) -> Option<&'a str> {
        record.get(&self.type_field)?.as_str()
    }

    /// Whether `record` (an end record) reports a failure: it is of the
    /// `error` type or matches one of the `failed` patterns.
    pub fn reports_failure(&self, record: &serde_json::Value, text: &str) -> bool {
        self.kind_of(record)
            .is_some_and(|k| self.error.as_deref() == Some(k))
            || self.failed.iter().any(|p| p.matches(text) == Match::Yes)
    }

    /// Why `argv` cannot make control requests, if it cannot: the profile
    /// names the command-line text that turns them on, and `argv` has
    /// none of it.
    pub fn control_off(&self, argv: &[std::ffi::OsString]) -> Option<String> {
        let control = self.control.as_ref()?;
        if control.enabled_by.is_empty() {
            return None;
        }
        let line = argv
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        if control.enabled_by.iter().any(|e| line.contains(e.as_str())) {
            return None;
        }
        Some(format!(
            "control requests are off: the command does not pass `{}`, so no `{}` can occur",
            control.enabled_by.join("` or `"),
            control.request
        ))
    }

    /// The id a record answers, if it is a reply to a control request the
    /// runner sent (its `reply` type, the id at `/response/<id member>`).
    pub fn reply_id<'v>(&self, record: &'v serde_json::Value) -> Option<&'v serde_json::Value> {
        let c = self.control.as_ref()?;
        (self.kind_of(record)? == c.reply.as_deref()?).then_some(())?;
        record.get("response")?.get(&c.id)
    }

    /// The answer to a control request with id `id` (raw JSON).
    pub fn control_answer(&self, id: &str, answer: &str) -> Option<String> {
        let c = self.control.as_ref()?;
        Some(fill_response(&c.response, id, answer))
    }
}

/// The `[control]` table: its `response` must be JSON once `$id` and
/// `$answer` are filled in.
fn control(
    def: Option<ControlDef>,
    at: &impl Fn(Range<usize>, String) -> LoadError,
) -> Result<Option<Control>, LoadError> {
    Ok(match def {
        Some(c) => {
            let span = c.response.span();
            let filled = fill_response(c.response.get_ref(), "\"x\"", "{}");
            serde_json::from_str::<serde_json::Value>(&filled).map_err(|e| {
                at(
                    span,
                    format!("`response` is not JSON once $id and $answer are filled in: {e}"),
                )
            })?;
            Some(Control {
                request: c.request,
                id: c.id,
                response: c.response.into_inner(),
                enabled_by: c.enabled_by,
                reply: c.reply,
                protocol: c.protocol,
            })
        }
        None => None,
    })
}

/// One `[[scenario]]` (at `span`), checked against the profile's `end`
/// types and its `control` table: JSON where JSON is due, one line an
/// input, control requests with ids of their own.
fn scenario(
    s: ScenarioDef,
    span: Range<usize>,
    end: &[String],
    control: Option<&Control>,
    type_field: &str,
    at: &impl Fn(Range<usize>, String) -> LoadError,
) -> Result<Scenario, LoadError> {
    let json = |v: Option<Spanned<String>>, what: &str| -> Result<Option<String>, LoadError> {
        match v {
            None => Ok(None),
            Some(v) => {
                let span = v.span();
                serde_json::from_str::<serde_json::Value>(v.get_ref())
                    .map_err(|e| at(span, format!("`{what}` is not JSON: {e}")))?;
                Ok(Some(v.into_inner()))
            }
        }
    };
    let mut input = Vec::new();
    for line in s.input {
        if line.get_ref().contains('\n') {
            return Err(at(
                line.span(),
                "an input line may not contain a newline".into(),
            ));
        }
        input.push(line.into_inner());
    }
    let end_type = match s.end {
        Some(e) if !end.contains(e.get_ref()) => {
            return Err(at(
                e.span(),
                format!(
                    "`end` `{}` is not one of the profile's end types",
                    e.get_ref()
                ),
            ));
        }
        Some(e) => Some(e.into_inner()),
        None => None,
    };
    let answer = json(s.answer, "answer")?;
    if answer.is_some() && control.is_none() {
        return Err(at(span, "`answer` needs a [control] table".into()));
    }
    let requests = control
        .as_ref()
        .map(|c| requests(c, type_field, &input))
        .unwrap_or_default();
    for (i, r) in requests.iter().enumerate() {
        if r.id.is_some() && requests[..i].iter().any(|o| o.id == r.id) {
            return Err(at(
                span.clone(),
                format!(
                    "two control requests in `input` carry the id {}: answers pair by it",
                    r.id.as_ref().map_or(String::new(), ToString::to_string)
                ),
            ));
        }
    }
    if !s.turn && control.as_ref().is_none_or(|c| c.reply.is_none()) {
        return Err(at(
            span,
            "`turn = false` needs a [control] table with a `reply` type".into(),
        ));
    }
    let mut errors = Vec::new();
    for e in s.errors {
        let sent = requests
            .iter()
            .any(|r| r.id.as_ref().and_then(|v| v.as_str()) == Some(e.get_ref().as_str()));
        if !sent {
            return Err(at(
                e.span(),
                format!(
                    "`errors` names `{}`, the id of no control request in `input`",
                    e.get_ref()
                ),
            ));
        }
        errors.push(e.into_inner());
    }
    Ok(Scenario {
        name: s.name,
        input,
        body: json(s.body, "body")?,
        end: end_type,
        answer,
        turn: s.turn,
        requests,
        errors,
        paced: s.paced,
    })
}

/// The media types an HTTP stream may come as (`[http]`'s
/// `content_types`, lower case), by default [`CONTENT_TYPES`].
fn content_types_of(
    content_types: Option<Spanned<Vec<String>>>,
    at: &impl Fn(Range<usize>, String) -> LoadError,
) -> Result<Vec<String>, LoadError> {
    Ok(match content_types {
        None => CONTENT_TYPES.iter().map(|t| (*t).to_owned()).collect(),
        Some(types) if types.get_ref().is_empty() => {
            return Err(at(
                types.span(),
                "`content_types` names no media type: no stream could pass".into(),
            ));
        }
        Some(types) => types
            .into_inner()
            .iter()
            .map(|t| t.trim().to_ascii_lowercase())
            .collect(),
    })
}

/// The control requests among a scenario's input lines.
fn requests(control: &Control, type_field: &str, input: &[String]) -> Vec<Request> {
    use serde_json::Value;
    input
        .iter()
        .enumerate()
        .filter_map(|(line, text)| {
            let v: Value = serde_json::from_str(text).ok()?;
            (v.get(type_field)?.as_str()? == control.request).then_some(())?;
            let id = v.get(&control.id).cloned();
            let subtype = v
                .pointer("/request/subtype")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let well_formed =
                matches!(id, Some(Value::String(_) | Value::Number(_))) && subtype.is_some();
            Some(Request {
                line,
                id,
                subtype,
                well_formed,
            })
        })
        .collect()
}

fn fill_response(template: &str, id: &str, answer: &str) -> String {
    template.replace("$id", id).replace("$answer", answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_profiles_load() {
        for name in ["events", "claude"] {
            let p = Profile::named(name).unwrap();
            assert_eq!(p.name, name);
            assert!(!p.scenarios.is_empty());
        }
        let e = Profile::named("nope").unwrap_err();
        assert!(e.contains("events"), "{e}");
    }

    #[test]
    fn errors_say_where() {
        let text =
            "name = \"x\"\ntitle = \"t\"\ntype = \"type\"\nend = [\"done\"]\nerror = \"fail\"\n";
        let e = Profile::parse(Path::new("p.toml"), text).unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.toml:5:9: `error` type `fail` is not one of `end`"
        );
        let text = "name = \"x\"\ntitle = \"t\"\ntype = \"type\"\nend = [\"done\"]\n[records]\ndone = '{'\n";
        let e = Profile::parse(Path::new("p.toml"), text).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("p.toml:6:8: expected message is not JSON"),
            "{e}"
        );
        let text = "name = \"x\"\ntitle = \"t\"\ntype = \"type\"\nend = [\"done\"]\n";
        let e = Profile::parse(Path::new("p.toml"), text).unwrap_err();
        assert_eq!(e.to_string(), "p.toml:1:1: the profile has no [[scenario]]");
    }

    #[test]
    fn control_scenarios_are_checked_as_they_load() {
        let head = "name = \"x\"\ntitle = \"t\"\ntype = \"type\"\nend = [\"done\"]\n";
        let control = "[control]\nrequest = \"req\"\nid = \"id\"\nresponse = '{\"id\": $id}'\nreply = \"resp\"\n";
        let scenario =
            |body: &str| format!("{head}{control}[[scenario]]\nname = \"s\"\nturn = false\n{body}");
        let two = scenario(
            "input = ['{\"type\":\"req\",\"id\":\"a\"}', '{\"type\":\"req\",\"id\":\"a\"}']\n",
        );
        let e = Profile::parse(Path::new("p.toml"), &two)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("two control requests in `input` carry the id \"a\""),
            "{e}"
        );
        let unknown = scenario("input = ['{\"type\":\"req\",\"id\":\"a\"}']\nerrors = [\"b\"]\n");
        let e = Profile::parse(Path::new("p.toml"), &unknown)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`errors` names `b`"), "{e}");
        let no_reply = format!("{head}[[scenario]]\nname = \"s\"\nturn = false\n");
        let e = Profile::parse(Path::new("p.toml"), &no_reply)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`turn = false` needs a [control] table"), "{e}");
        let good = scenario(
            "paced = true\ninput = ['{\"type\":\"req\",\"id\":\"a\",\"request\":{\"subtype\":\"x\"}}', '{\"type\":\"req\",\"id\":7}', 'not json']\n",
        );
        let p = Profile::parse(Path::new("p.toml"), &good).expect("loads");
        let requests = &p.scenarios[0].requests;
        assert_eq!(requests.len(), 2);
        assert!(requests[0].well_formed && !requests[1].well_formed);
        assert_eq!(requests[1].id, Some(serde_json::json!(7)));
    }

    #[test]
    fn failed_ends_control_flags_and_media_types() {
        let claude = Profile::named("claude").unwrap();
        let failed = r#"{"type":"result","subtype":"success","is_error":true,"session_id":"s"}"#;
        let ok = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#;
        let value = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap();
        assert!(claude.reports_failure(&value(failed), failed));
        assert!(!claude.reports_failure(&value(ok), ok));
        let argv =
            |line: &str| -> Vec<std::ffi::OsString> { line.split(' ').map(Into::into).collect() };
        assert!(
            claude
                .control_off(&argv("claude -p --permission-prompt-tool stdio"))
                .is_none()
        );
        assert!(
            claude
                .control_off(&argv("sh -c claude --permission-prompt-tool=stdio"))
                .is_none()
        );
        let off = claude.control_off(&argv("claude -p")).expect("off");
        assert!(off.contains("`--permission-prompt-tool stdio`"), "{off}");
        let events = Profile::named("events").unwrap();
        assert_eq!(events.content_types, ["application/x-ndjson"]);
        let error = r#"{"type":"error","data":{"code":"X","message":"m"}}"#;
        assert!(events.reports_failure(&value(error), error));
        assert!(events.control_off(&argv("anything")).is_none());
        let text = "name = \"x\"\ntitle = \"t\"\ntype = \"type\"\nend = [\"done\"]\n\
                    [http]\ncontent_types = []\n[[scenario]]\nname = \"s\"\n";
        let e = Profile::parse(Path::new("p.toml"), text).unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.toml:6:17: `content_types` names no media type: no stream could pass"
        );
    }
}
