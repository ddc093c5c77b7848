//! One pass of serde_json over a message: the members the rules read, each
//! kept as raw JSON text, and nothing else.
//!
//! A hand-written visitor rather than `#[derive(Deserialize)]`: derive fails
//! the whole parse on a duplicate member and cannot match a type field whose
//! name is configuration. Unknown members are skipped with `IgnoredAny`, which
//! checks their syntax without building anything.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// A member the matcher reads. `Type` is named by configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Code,
    Message,
    Type,
    RequestId,
    Request,
    Response,
    Subtype,
}

const FIELDS: usize = 13;

const NAMES: [(&str, Field); FIELDS - 1] = [
    ("jsonrpc", Field::Jsonrpc),
    ("id", Field::Id),
    ("method", Field::Method),
    ("params", Field::Params),
    ("result", Field::Result),
    ("error", Field::Error),
    ("code", Field::Code),
    ("message", Field::Message),
    ("request_id", Field::RequestId),
    ("request", Field::Request),
    ("response", Field::Response),
    ("subtype", Field::Subtype),
];

/// The members of one JSON object that the rules read. `"id": null` is
/// `Some("null")`; an absent member is `None`.
#[derive(Debug, Default)]
pub(crate) struct Envelope<'a> {
    fields: [Option<&'a RawValue>; FIELDS],
    /// Bit `f as usize` is set when member `f` appeared more than once.
    duplicates: u16,
}

impl<'a> Envelope<'a> {
    pub(crate) fn get(&self, f: Field) -> Option<&'a str> {
        self.fields[f as usize].map(RawValue::get)
    }

    pub(crate) fn has(&self, f: Field) -> bool {
        self.fields[f as usize].is_some()
    }

    /// The members that appeared more than once, by name.
    pub(crate) fn duplicates<'t>(&self, type_field: &'t str) -> impl Iterator<Item = &'t str> {
        let bits = self.duplicates;
        NAMES
            .iter()
            .map(|&(n, f)| (n, f))
            .chain([(type_field, Field::Type)])
            .filter(move |&(_, f)| bits & (1 << f as u16) != 0)
            .map(|(n, _)| n)
    }
}

/// What a JSON text turned out to be.
pub(crate) enum Parsed<'a> {
    Object(Envelope<'a>),
    Array(Vec<&'a RawValue>),
    Other(JsonType),
}

/// The JSON type of a value, told from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl JsonType {
    /// `raw` is the text of one valid JSON value, without surrounding space.
    pub(crate) fn of(raw: &str) -> JsonType {
        match raw.as_bytes().first() {
            Some(b'{') => JsonType::Object,
            Some(b'[') => JsonType::Array,
            Some(b'"') => JsonType::String,
            Some(b't' | b'f') => JsonType::Bool,
            Some(b'n') => JsonType::Null,
            _ => JsonType::Number,
        }
    }

    /// "an object", "a string", ... for finding details.
    pub(crate) fn article(self) -> &'static str {
        match self {
            JsonType::Object => "an object",
            JsonType::Array => "an array",
            JsonType::String => "a string",
            JsonType::Number => "a number",
            JsonType::Bool => "a boolean",
            JsonType::Null => "null",
        }
    }
}

/// Parses `text` as exactly one JSON value (surrounding whitespace allowed).
///
/// `type_field` names the member read as [`Field::Type`].
pub(crate) fn parse<'a>(text: &'a str, type_field: &str) -> Result<Parsed<'a>, serde_json::Error> {
    let first = text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .as_bytes()
        .first();
    if !matches!(first, Some(b'{' | b'[')) {
        // Scalars go through RawValue, which checks syntax without converting
        // numbers: `1e400` is valid JSON, though no f64 holds it.
        let raw: &RawValue = serde_json::from_str(text)?;
        return Ok(Parsed::Other(JsonType::of(raw.get())));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = de.deserialize_any(TopVisitor { type_field })?;
    de.end()?;
    Ok(parsed)
}

/// Parses the members of an object that is already known to be valid JSON
/// (such as a batch member or a nested `error`), or says what else it is.
pub(crate) fn parse_nested<'a>(raw: &'a str, type_field: &str) -> Option<Envelope<'a>> {
    if JsonType::of(raw) != JsonType::Object {
        return None;
    }
    match parse(raw, type_field) {
        Ok(Parsed::Object(env)) => Some(env),
        // Cannot happen for text serde_json already accepted as an object.
        _ => None,
    }
}

struct TopVisitor<'t> {
    type_field: &'t str,
}

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = Parsed<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object or array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut env = Envelope::default();
        while let Some(field) = map.next_key_seed(KeySeed {
            type_field: self.type_field,
        })? {
            match field {
                Some(f) => {
                    let value: &'de RawValue = map.next_value()?;
                    let slot = &mut env.fields[f as usize];
                    if slot.is_some() {
                        env.duplicates |= 1 << f as u16;
                    }
                    // The last one wins, as in most parsers (JavaScript, Python, serde_json's Value).
                    *slot = Some(value);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Parsed::Object(env))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            members.push(raw);
        }
        Ok(Parsed::Array(members))
    }
}

/// Reads a member name, matching it against the names the rules read without
/// allocating (escaped names arrive decoded through `visit_str`).
struct KeySeed<'t> {
    type_field: &'t str,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Option<Field>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Option<Field>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        if name == self.type_field {
            return Ok(Some(Field::Type));
        }
        Ok(NAMES.iter().find(|&&(n, _)| n == name).map(|&(_, f)| f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_is_kept_apart_from_absent() {
        let Ok(Parsed::Object(env)) = parse(r#"{"id":null,"x":[1,{"id":2}]}"#, "type") else {
            panic!("not an object");
        };
        assert_eq!(env.get(Field::Id), Some("null"));
        assert_eq!(env.get(Field::Method), None);
    }

    #[test]
    fn duplicates_and_escaped_names() {
        let text = r#"{"\u0069d":1,"id":2,"kind":"a","kind":"b","x":1,"x":2}"#;
        let Ok(Parsed::Object(env)) = parse(text, "kind") else {
            panic!("not an object");
        };
        assert_eq!(env.get(Field::Id), Some("2"));
        assert_eq!(env.get(Field::Type), Some("\"b\""));
        assert_eq!(env.duplicates("kind").collect::<Vec<_>>(), ["id", "kind"]);
    }

    #[test]
    fn scalars_arrays_and_errors() {
        assert!(matches!(
            parse(" 1e400 ", "type"),
            Ok(Parsed::Other(JsonType::Number))
        ));
        assert!(matches!(parse("[1, {}]", "type"), Ok(Parsed::Array(v)) if v.len() == 2));
        assert!(parse("{} x", "type").is_err());
        assert!(parse("", "type").is_err());
        assert!(parse("{\"a\":1e400}", "type").is_ok());
    }
}
