//! Expected messages as patterns: JSON, where a few marker strings stand for
//! "any value of this kind", objects match by the members the pattern names,
//! and the top-level `id` is compared as raw text.
//!
//! | marker      | matches                                   |
//! |-------------|-------------------------------------------|
//! | `"$any"`    | any value                                 |
//! | `"$string"` | any string (use it for `error.message`)   |
//! | `"$number"` | any number                                |
//! | `"$integer"`| a number written without fraction/exponent|
//! | `"$object"` | any object                                |
//! | `"$array"`  | any array                                 |
//! | `"$absent"` | (as an object member) the member is absent|
//! | `"$object?"`| (as an object member) absent, or an object; |
//! |             | likewise `"$string?"`, `"$number?"`, …    |
//!
//! Members the pattern does not name may be present (an error's optional
//! `data`); the matcher's envelope rules judge what a message may carry.

use rpcspec_matcher::{Id, IdKind, IdMatch};
use std::collections::BTreeMap;

use serde_json::{Value, value::RawValue};

/// A compiled expected message.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    value: Value,
    /// The top-level `id` member's raw text, when the pattern has one.
    id: Option<Id>,
}

/// How a message compares with a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// It matches.
    Yes,
    /// It matches, but its `id` is the same value written differently
    /// (`1.0` for `1`): graded, not silently accepted.
    IdSameValue,
    /// It does not match; the reason names the first difference.
    No(String),
}

impl Pattern {
    /// Compiles a pattern; the error says why the text is not one.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| format!("expected message is not JSON ({e}): {text}"))?;
        let id = match &value {
            Value::Object(_) => {
                let raw: BTreeMap<String, &RawValue> =
                    serde_json::from_str(text).map_err(|e| e.to_string())?;
                match raw.get("id") {
                    // A marker: matched like any other member.
                    Some(r) if r.get().starts_with("\"$") => None,
                    Some(r) => Some(Id::parse(r.get()).ok_or_else(|| {
                        format!("`id` {} is not a string, number or null", r.get())
                    })?),
                    None => None,
                }
            }
            _ => None,
        };
        Ok(Pattern {
            text: text.to_owned(),
            value,
            id,
        })
    }

    /// Whether a message with `"id": null` can match: the pattern's id is
    /// null or a wildcard.
    pub fn accepts_null_id(&self) -> bool {
        match &self.id {
            Some(id) => id.kind() == IdKind::Null,
            None => self
                .value
                .get("id")
                .is_some_and(|v| matches!(v.as_str(), Some("$any"))),
        }
    }

    /// The pattern without its top-level `"jsonrpc"` member, for dialects
    /// that omit it (Codex's app-server): whether it is there and right is
    /// then the matcher's business.
    pub fn without_version(&self) -> Pattern {
        let mut p = self.clone();
        if let Value::Object(m) = &mut p.value
            && let Some(version) = m.remove("jsonrpc")
        {
            // The text too: it is what a report shows as expected, and what
            // a difference is drawn from.
            let member = format!("\"jsonrpc\": {version}");
            let tight = format!("\"jsonrpc\":{version}");
            for cut in [
                format!("{member}, "),
                format!(", {member}"),
                format!("{tight},"),
                format!(",{tight}"),
                member,
                tight,
            ] {
                if let Some(at) = p.text.find(&cut) {
                    p.text.replace_range(at..at + cut.len(), "");
                    break;
                }
            }
        }
        p
    }

    /// The pattern with its `"NAME": true` member, if it has one, replaced
    /// by `members` (`"error": "$object"`, say): how a probe's reply is put
    /// in (the server role's probes).
    pub fn with_members(&self, name: &str, members: &str) -> Pattern {
        let mut p = self.clone();
        if let Value::Object(m) = &mut p.value
            && m.remove(name).is_some()
        {
            let put: serde_json::Map<String, Value> =
                serde_json::from_str(&format!("{{{members}}}"))
                    .expect("a probe reply is members (target files are checked when loaded)");
            m.extend(put);
            p.text = p.text.replace(&format!("\"{name}\": true"), members);
        }
        p
    }

    /// Whether the pattern expects an error reply (an `error` member).
    pub fn is_error(&self) -> bool {
        self.value.get("error").is_some_and(|e| !e.is_null())
    }

    /// Whether the pattern expects an error reply with `"id": null`.
    pub fn is_null_id_error(&self) -> bool {
        self.value.get("error").is_some()
            && self.id.as_ref().is_some_and(|id| id.kind() == IdKind::Null)
    }

    /// The pattern with its top-level `id` required absent, as MCP
    /// 2025-11-25 writes an error to a request whose id could not be read.
    pub fn with_id_absent(&self) -> Pattern {
        let mut p = self.clone();
        if let Value::Object(m) = &mut p.value {
            m.insert("id".into(), Value::String("$absent".into()));
        }
        p.id = None;
        p.text = p.text.replace("\"id\": null", "\"id\": \"$absent\"");
        p
    }

    /// Whether the pattern has a top-level member called `name` (a
    /// probe's reply placeholder).
    pub fn has_member(&self, name: &str) -> bool {
        self.value.get(name).is_some()
    }

    /// The pattern as written in the case file.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Compares one received message (its JSON text) with the pattern.
    pub fn matches(&self, actual: &str) -> Match {
        let Ok(value) = serde_json::from_str::<Value>(actual) else {
            return Match::No("not JSON".into());
        };
        if let Err(why) = value_matches(&self.value, &value, "", self.id.is_some()) {
            return Match::No(why);
        }
        let Some(expected) = &self.id else {
            return Match::Yes;
        };
        let raw: BTreeMap<String, &RawValue> = match serde_json::from_str(actual) {
            Ok(raw) => raw,
            Err(_) => return Match::No("not an object".into()),
        };
        let Some(got) = raw.get("id") else {
            return Match::No(format!("`id` is missing, expected {}", expected.raw()));
        };
        let Some(got) = Id::parse(got.get()) else {
            return Match::No(format!(
                "`id` {} is not a string, number or null",
                got.get()
            ));
        };
        match expected.compare(&got) {
            IdMatch::Same => Match::Yes,
            // Strings compare after unescaping (RFC 8259 §8.3): `"\u00e9"`
            // and `"é"` are the same id, and Python's json.dumps escapes by
            // default. Numbers written differently are graded.
            IdMatch::SameValue if expected.kind() == IdKind::String => Match::Yes,
            IdMatch::SameValue => Match::IdSameValue,
            IdMatch::TypeChanged => Match::No(format!(
                "`id` changed type: sent {}, got {}",
                expected.raw(),
                got.raw()
            )),
            // Different, and any near miss a later matcher tells apart
            // (IdMatch is non_exhaustive) until it is graded here.
            _ => Match::No(format!(
                "`id` differs: sent {}, got {}",
                expected.raw(),
                got.raw()
            )),
        }
    }
}

impl Pattern {
    /// How `actual` differs from the pattern, member by member, for people:
    /// `- "name": expected` and `+ "name": got` lines for the top-level
    /// members that differ or are missing, then members the pattern does
    /// not name, at most `max` lines, each value cut to `width` characters.
    /// `None` when the pattern or the message is not an object.
    pub fn diff(&self, actual: &str, max: usize, width: usize) -> Option<Vec<String>> {
        let want: BTreeMap<String, &RawValue> = serde_json::from_str(&self.text).ok()?;
        let got: BTreeMap<String, &RawValue> = serde_json::from_str(actual).ok()?;
        let cut = |text: &str| match text.char_indices().nth(width) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text.to_owned(),
        };
        let member = |sign: char, key: &str, raw: &RawValue| {
            format!("{sign} {}: {}", Value::from(key), cut(raw.get()))
        };
        let mut out = Vec::new();
        for (key, w) in &want {
            let optional = w.get().starts_with("\"$") && w.get().ends_with("?\"");
            match got.get(key) {
                None if w.get() == "\"$absent\"" || optional => {}
                None => out.push(member('-', key, w)),
                Some(g) => {
                    let one = |raw: &RawValue| {
                        format!("{{{}: {}}}", Value::from(key.as_str()), raw.get())
                    };
                    // The same value written differently (`1.0`) is shown.
                    let same = Pattern::parse(&one(w))
                        .is_ok_and(|p| matches!(p.matches(&one(g)), Match::Yes));
                    if !same {
                        if w.get() != "\"$absent\"" {
                            out.push(member('-', key, w));
                        }
                        out.push(member('+', key, g));
                    }
                }
            }
        }
        for (key, g) in &got {
            if !want.contains_key(key) {
                out.push(member('+', key, g));
            }
        }
        let more = out.len().saturating_sub(max);
        out.truncate(max);
        if more > 0 {
            out.push(format!("  … {more} more lines"));
        }
        Some(out)
    }
}

/// Compares `actual` with `pattern` at `path`. With `raw_id`, the top-level
/// `id` member is only checked for presence: [`Pattern::matches`] compares
/// its raw text.
fn value_matches(pattern: &Value, actual: &Value, path: &str, raw_id: bool) -> Result<(), String> {
    let here = if path.is_empty() { "the message" } else { path };
    if let Value::String(marker) = pattern
        && let Some(kind) = marker.strip_prefix('$')
    {
        // `$kind?` names an optional member: here it is present.
        let kind = kind.strip_suffix('?').unwrap_or(kind);
        let ok = match kind {
            "any" => true,
            "string" => actual.is_string(),
            "number" => actual.is_number(),
            "integer" => actual.is_i64() || actual.is_u64(),
            "object" => actual.is_object(),
            "array" => actual.is_array(),
            _ => false,
        };
        return if ok {
            Ok(())
        } else {
            Err(format!("{here}: expected {marker}, got {actual}"))
        };
    }
    match (pattern, actual) {
        (Value::Object(p), Value::Object(a)) => {
            for (key, want) in p {
                let at = format!("{path}.{key}");
                if raw_id && key == "id" {
                    if !a.contains_key("id") {
                        return Err("`id` is missing".into());
                    }
                    continue;
                }
                match (want, a.get(key)) {
                    (Value::String(m), None) if m == "$absent" => {}
                    (Value::String(m), Some(v)) if m == "$absent" => {
                        return Err(format!("{at}: must be absent, got {v}"));
                    }
                    (Value::String(m), None) if m.starts_with('$') && m.ends_with('?') => {}
                    (_, None) => return Err(format!("{at}: missing, expected {want}")),
                    (want, Some(got)) => value_matches(want, got, &at, false)?,
                }
            }
            Ok(())
        }
        (Value::Array(p), Value::Array(a)) => {
            if p.len() != a.len() {
                return Err(format!(
                    "{here}: expected {} elements, got {}",
                    p.len(),
                    a.len()
                ));
            }
            for (i, (want, got)) in p.iter().zip(a).enumerate() {
                value_matches(want, got, &format!("{path}[{i}]"), false)?;
            }
            Ok(())
        }
        (want, got) if want == got => Ok(()),
        // One number written two ways (19 and 19.0) is one JSON number.
        (Value::Number(w), Value::Number(g))
            if Id::parse(&w.to_string())
                .zip(Id::parse(&g.to_string()))
                .is_some_and(|(w, g)| w.compare(&g) == IdMatch::SameValue) =>
        {
            Ok(())
        }
        (want, got) => Err(format!("{here}: expected {want}, got {got}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, actual: &str) -> Match {
        Pattern::parse(pattern).unwrap().matches(actual)
    }

    #[test]
    fn without_version_drops_the_member_from_the_text_too() {
        for (text, left) in [
            (
                r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "$string"}, "id": "1"}"#,
                r#"{"error": {"code": -32601, "message": "$string"}, "id": "1"}"#,
            ),
            (r#"{"result":7,"jsonrpc":"2.0"}"#, r#"{"result":7}"#),
            (r#"{"result": 7}"#, r#"{"result": 7}"#),
        ] {
            let p = Pattern::parse(text).unwrap().without_version();
            assert_eq!(p.text(), left);
            // What is shown is what is matched: the text parses to the value.
            assert_eq!(Pattern::parse(p.text()).unwrap().value, p.value);
        }
        // A difference drawn from it names no `"jsonrpc"`.
        let p = Pattern::parse(r#"{"jsonrpc": "2.0", "error": {"code": -32601}, "id": 1}"#)
            .unwrap()
            .without_version();
        let shown = Pattern::parse(p.text())
            .unwrap()
            .diff(r#"{"error":{"code":-32000},"id":1}"#, 6, 120)
            .unwrap();
        assert!(shown.iter().all(|l| !l.contains("jsonrpc")), "{shown:?}");
    }

    #[test]
    fn markers_and_members() {
        let p = r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"$string"},"id":"1"}"#;
        let ok = r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"nope","data":1},"id":"1"}"#;
        assert_eq!(m(p, ok), Match::Yes);
        let code = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"},"id":"1"}"#;
        assert_eq!(
            m(p, code),
            Match::No(".error.code: expected -32601, got -32600".into())
        );
        let absent = r#"{"result":19,"error":"$absent","id":1}"#;
        assert!(matches!(
            m(absent, r#"{"result":19,"error":null,"id":1}"#),
            Match::No(_)
        ));
        assert_eq!(m(absent, r#"{"result":19,"id":1}"#), Match::Yes);
        let optional = r#"{"type":"done","metadata":"$object?"}"#;
        assert_eq!(m(optional, r#"{"type":"done"}"#), Match::Yes);
        assert_eq!(
            m(optional, r#"{"type":"done","metadata":{"model":"m"}}"#),
            Match::Yes
        );
        assert_eq!(
            m(optional, r#"{"type":"done","metadata":"m"}"#),
            Match::No(".metadata: expected $object?, got \"m\"".into())
        );
    }

    #[test]
    fn ids_compare_as_raw_text() {
        let p = r#"{"result":1,"id":18446744073709551616}"#;
        assert_eq!(
            m(p, r#"{"result":1,"id":18446744073709551616}"#),
            Match::Yes
        );
        assert!(matches!(
            m(p, r#"{"result":1,"id":18446744073709552000}"#),
            Match::No(_)
        ));
        assert_eq!(m(r#"{"id":1}"#, r#"{"id":1.0}"#), Match::IdSameValue);
        assert_eq!(
            m(r#"{"id":"1"}"#, r#"{"id":1}"#),
            Match::No("`id` changed type: sent \"1\", got 1".into())
        );
        assert_eq!(m(r#"{"id":"$any"}"#, r#"{"id":[]}"#), Match::Yes);
    }

    #[test]
    fn numbers_and_strings_compare_by_value() {
        assert_eq!(
            m(r#"{"result":19,"id":1}"#, r#"{"result":19.0,"id":1}"#),
            Match::Yes
        );
        assert!(matches!(
            m(r#"{"result":19,"id":1}"#, r#"{"result":19.5,"id":1}"#),
            Match::No(_)
        ));
        assert_eq!(m(r#"{"id":"\u00e9"}"#, r#"{"id":"é"}"#), Match::Yes);
    }

    #[test]
    fn diffs_show_the_members_that_differ() {
        let p = Pattern::parse(
            r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"$string"},"id":1,"x":"$absent"}"#,
        )
        .unwrap();
        let got = r#"{"jsonrpc":"2.0","result":null,"id":1,"x":2}"#;
        assert_eq!(
            p.diff(got, 10, 80).unwrap(),
            [
                r#"- "error": {"code":-32601,"message":"$string"}"#,
                r#"+ "x": 2"#,
                r#"+ "result": null"#,
            ]
        );
        let got = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad"},"id":1.0}"#;
        assert_eq!(
            p.diff(got, 10, 20).unwrap(),
            [
                r#"- "error": {"code":-32601,"mess…"#,
                r#"+ "error": {"code":-32600,"mess…"#,
                r#"- "id": 1"#,
                r#"+ "id": 1.0"#,
            ]
        );
        assert!(p.diff("[1]", 10, 80).is_none());
        assert_eq!(p.diff(got, 1, 80).unwrap().len(), 2);
    }

    #[test]
    fn bad_patterns_say_why() {
        assert!(Pattern::parse("{nope}").unwrap_err().contains("not JSON"));
        assert!(
            Pattern::parse(r#"{"id":[]}"#)
                .unwrap_err()
                .contains("not a string")
        );
    }
}
