//! Values for a JSON Schema: valid ones drawn from its keywords, and
//! near-valid ones, a valid value with one thing wrong. Pure and seeded:
//! the same value for the same schema and generator state.
//!
//! What is drawn follows `$ref`, `const`, `enum`, `anyOf`, `oneOf`,
//! `allOf` (objects merged), `type`, `properties`, `required`, `items`,
//! `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum` and their
//! exclusive forms, `minLength`, `maxLength`, `format` (uri, date-time,
//! email, uuid), `default` and `examples`. What it cannot satisfy by
//! construction (`pattern`, `multipleOf`, `not`, `if`) it leaves to
//! chance; the fuzzer counts how many of its "valid" draws the schema's
//! validator accepts, so a miss shows in the summary rather than being
//! assumed away.

use serde_json::{Map, Value, json};

use super::generate::Rng;

/// Resolves a `$ref` to the schema it names, if it can.
pub type Resolve<'a, 'v> = &'a dyn Fn(&str) -> Option<&'v Value>;

/// Deeper than this, objects get only their required members and arrays
/// their fewest items: a recursive schema still ends.
const MAX_DEPTH: usize = 8;

/// The most `$ref`s followed for one value, against reference cycles that
/// no required member breaks.
const MAX_REFS: usize = 64;

/// A value `schema` accepts, as far as its keywords allow one to be built.
pub fn valid(rng: &mut Rng, schema: &Value, resolve: Resolve<'_, '_>) -> Value {
    let mut refs = 0;
    draw(rng, schema, resolve, 0, &mut refs)
}

fn draw(
    rng: &mut Rng,
    schema: &Value,
    resolve: Resolve<'_, '_>,
    depth: usize,
    refs: &mut usize,
) -> Value {
    let Value::Object(s) = schema else {
        // `true` (anything) or `false` (nothing can be valid).
        return if schema == &Value::Bool(false) {
            Value::Null
        } else {
            any(rng)
        };
    };
    if let Some(reference) = s.get("$ref").and_then(Value::as_str) {
        *refs += 1;
        return match resolve(reference) {
            Some(target) if *refs <= MAX_REFS => draw(rng, target, resolve, depth, refs),
            _ => Value::Null,
        };
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.is_empty()
    {
        return rng.pick(options).clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = s.get(key)
            && !branches.is_empty()
        {
            // The branch that adds nothing to the object is `{}`: a
            // sibling `properties` still describes the value.
            let branch = rng.pick(branches);
            let merged = merge(schema, branch, key);
            return draw(rng, &merged, resolve, depth, refs);
        }
    }
    if let Some(Value::Array(parts)) = s.get("allOf") {
        let mut merged = schema.clone();
        merged.as_object_mut().expect("an object").remove("allOf");
        for part in parts {
            let part = match part.get("$ref").and_then(Value::as_str) {
                Some(r) => resolve(r).cloned().unwrap_or(Value::Bool(true)),
                None => part.clone(),
            };
            merged = merge(&merged, &part, "");
        }
        return draw(rng, &merged, resolve, depth, refs);
    }
    if rng.one_in(2)
        && let Some(default) = s.get("default")
    {
        return default.clone();
    }
    if let Some(Value::Array(examples)) = s.get("examples")
        && !examples.is_empty()
        && rng.one_in(2)
    {
        return rng.pick(examples).clone();
    }
    match type_of(rng, s).as_str() {
        "object" => object(rng, s, resolve, depth, refs),
        "array" => array(rng, s, resolve, depth, refs),
        "string" => string(rng, s),
        "integer" => Value::from(integer(rng, s)),
        "number" => number(rng, s),
        "boolean" => Value::Bool(rng.one_in(2)),
        "null" => Value::Null,
        _ => any(rng),
    }
}

/// `schema` with `branch`'s keywords added (a `oneOf`'s or `anyOf`'s, named
/// by `key`, removed); `properties` and `required` are joined.
fn merge(schema: &Value, branch: &Value, key: &str) -> Value {
    let mut out = schema.as_object().cloned().unwrap_or_default();
    out.remove(key);
    let Some(b) = branch.as_object() else {
        return Value::Object(out);
    };
    for (k, v) in b {
        match (k.as_str(), out.get_mut(k)) {
            ("properties", Some(Value::Object(mine))) => {
                if let Value::Object(theirs) = v {
                    for (name, def) in theirs {
                        mine.insert(name.clone(), def.clone());
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                if let Value::Array(theirs) = v {
                    for name in theirs {
                        if !mine.contains(name) {
                            mine.push(name.clone());
                        }
                    }
                }
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// The type to draw: the schema's (one of them, when it lists several),
/// else what its keywords imply, else `any`.
fn type_of(rng: &mut Rng, s: &Map<String, Value>) -> String {
    match s.get("type") {
        Some(Value::String(t)) => return t.clone(),
        Some(Value::Array(types)) if !types.is_empty() => {
            return rng.pick(types).as_str().unwrap_or("null").to_owned();
        }
        _ => {}
    }
    let implied = if s.contains_key("properties") || s.contains_key("required") {
        "object"
    } else if s.contains_key("items") || s.contains_key("prefixItems") {
        "array"
    } else if s.contains_key("minLength") || s.contains_key("format") {
        "string"
    } else if s.contains_key("minimum") || s.contains_key("maximum") {
        "number"
    } else {
        "any"
    };
    implied.to_owned()
}

fn object(
    rng: &mut Rng,
    s: &Map<String, Value>,
    resolve: Resolve<'_, '_>,
    depth: usize,
    refs: &mut usize,
) -> Value {
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    let empty = Map::new();
    let properties = s
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (name, def) in properties {
        let wanted = required.contains(&name.as_str()) || (depth < MAX_DEPTH && rng.one_in(4));
        if wanted {
            out.insert(name.clone(), draw(rng, def, resolve, depth + 1, refs));
        }
    }
    // A required member the schema does not describe: anything will do.
    for name in required {
        if !out.contains_key(name) {
            out.insert(name.to_owned(), Value::String("rpcspec".into()));
        }
    }
    Value::Object(out)
}

fn array(
    rng: &mut Rng,
    s: &Map<String, Value>,
    resolve: Resolve<'_, '_>,
    depth: usize,
    refs: &mut usize,
) -> Value {
    let min = s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = s
        .get("maxItems")
        .and_then(Value::as_u64)
        .map_or(min.max(3), |m| m as usize)
        .min(min.max(8));
    let n = if depth >= MAX_DEPTH {
        min
    } else {
        min + rng.below(max.saturating_sub(min) + 1)
    };
    let prefix: &[Value] = s
        .get("prefixItems")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let items = match s.get("items") {
        Some(Value::Array(tuple)) => Some(tuple.as_slice()),
        _ => None,
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n.max(prefix.len()) {
        let def = prefix
            .get(i)
            .or_else(|| items.and_then(|t| t.get(i)))
            .or_else(|| s.get("items").filter(|v| v.is_object() || v.is_boolean()));
        out.push(match def {
            Some(def) => draw(rng, def, resolve, depth + 1, refs),
            None => any(rng),
        });
    }
    Value::Array(out)
}

fn string(rng: &mut Rng, s: &Map<String, Value>) -> Value {
    let base = match s.get("format").and_then(Value::as_str) {
        Some("uri" | "uri-reference" | "iri") => "file:///rpcspec.txt",
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("email") => "rpcspec@example.com",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        Some("byte") => "cnBjc3BlYw==",
        _ => *rng.pick(&["rpcspec", "", "x", "r\u{e9}sum\u{e9} \u{1f600}", "a b\tc"]),
    };
    let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = s
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let mut text = base.to_owned();
    while text.chars().count() < min {
        text.push('x');
    }
    if let Some(max) = max {
        text = text.chars().take(max.max(min)).collect();
    }
    Value::String(text)
}

/// The bounds of a number schema: inclusive, as `i64`s.
fn bounds(s: &Map<String, Value>) -> (i64, i64) {
    let get = |k: &str| s.get(k).and_then(Value::as_f64);
    let low = match (get("minimum"), get("exclusiveMinimum")) {
        (_, Some(x)) => (x.floor() as i64).saturating_add(1),
        (Some(m), None) => m.ceil() as i64,
        (None, None) => -1000,
    };
    let high = match (get("maximum"), get("exclusiveMaximum")) {
        (_, Some(x)) => (x.ceil() as i64).saturating_sub(1),
        (Some(m), None) => m.floor() as i64,
        (None, None) => low.saturating_add(2000).max(1000),
    };
    (low, high.max(low))
}

fn integer(rng: &mut Rng, s: &Map<String, Value>) -> i64 {
    let (low, high) = bounds(s);
    match rng.below(4) {
        0 => low,
        1 => high,
        _ => {
            let span = (high as i128 - low as i128 + 1) as u128;
            (low as i128 + (rng.next() as u128 % span) as i128) as i64
        }
    }
}

fn number(rng: &mut Rng, s: &Map<String, Value>) -> Value {
    let n = integer(rng, s);
    let (low, high) = bounds(s);
    if rng.one_in(3) && n < high && n >= low {
        json!(n as f64 + 0.5)
    } else {
        Value::from(n)
    }
}

/// Something for a schema that says nothing.
fn any(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => Value::Null,
        1 => Value::Bool(true),
        2 => Value::from(rng.below(100)),
        3 => Value::String("rpcspec".into()),
        4 => json!([]),
        _ => json!({}),
    }
}

/// `value` with one thing wrong, at a place drawn among all of its: a
/// member dropped, a value of another type, a member added, a number at
/// a boundary (`2^53 + 1`, `-1`, `1e308`, a fraction), a long string, or
/// nesting 32 deep (within what any parser takes, and rpcspec's 64 levels). The result may still
/// be valid (an added member a schema allows; a number it admits): it is
/// near the schema, not known to miss it.
pub fn near(rng: &mut Rng, value: &mut Value) {
    let mut places = Vec::new();
    paths(value, &mut String::new(), &mut places);
    let at = rng.pick(&places).clone();
    let Some(spot) = value.pointer_mut(&at) else {
        return;
    };
    match rng.below(6) {
        0 if !at.is_empty() => {
            let (parent, last) = at.rsplit_once('/').expect("a non-empty pointer");
            let last = last.replace("~1", "/").replace("~0", "~");
            match value.pointer_mut(parent) {
                Some(Value::Object(m)) => {
                    m.remove(&last);
                }
                Some(Value::Array(a)) => {
                    if let Ok(i) = last.parse::<usize>()
                        && i < a.len()
                    {
                        a.remove(i);
                    }
                }
                _ => {}
            }
        }
        1 => *spot = other_type(rng, spot),
        2 if spot.is_object() => {
            spot.as_object_mut()
                .expect("an object")
                .insert("rpcspecExtra".into(), json!(true));
        }
        3 => {
            *spot = rng
                .pick(&[
                    json!(9_007_199_254_740_993_u64),
                    json!(-1),
                    json!(1e308),
                    json!(0.5),
                    json!(u64::MAX),
                    json!(i64::MIN),
                ])
                .clone();
        }
        4 => *spot = Value::String("x".repeat(10_000)),
        _ => {
            let mut deep = json!(1);
            for _ in 0..32 {
                deep = json!([deep]);
            }
            *spot = deep;
        }
    }
}

/// Every JSON Pointer into `value`, itself (`""`) first.
fn paths(value: &Value, here: &mut String, out: &mut Vec<String>) {
    out.push(here.clone());
    let len = here.len();
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                here.push('/');
                here.push_str(&k.replace('~', "~0").replace('/', "~1"));
                paths(v, here, out);
                here.truncate(len);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                here.push('/');
                here.push_str(&i.to_string());
                paths(v, here, out);
                here.truncate(len);
            }
        }
        _ => {}
    }
}

/// A value of another JSON type than `value`'s.
fn other_type(rng: &mut Rng, value: &Value) -> Value {
    let options = [
        Value::Null,
        json!(true),
        json!(7),
        json!("rpcspec"),
        json!([1]),
        json!({"rpcspec": 1}),
    ];
    let same = |o: &Value| std::mem::discriminant(o) == std::mem::discriminant(value);
    let others: Vec<&Value> = options.iter().filter(|o| !same(o)).collect();
    (*rng.pick(&others)).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validator(schema: &Value) -> jsonschema::Validator {
        jsonschema::options()
            .should_validate_formats(false)
            .build(schema)
            .expect("a valid schema")
    }

    #[test]
    fn draws_what_the_schema_accepts() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 3, "maxLength": 5},
                "count": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
                "ratio": {"type": "number", "minimum": 0, "maximum": 1},
                "mode": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
                "child": {"$ref": "#/$defs/child"},
                "either": {"oneOf": [{"type": "boolean"}, {"type": "null"}]}
            },
            "required": ["name", "count", "tags", "child"],
            "additionalProperties": false,
            "$defs": {"child": {"type": "object", "properties": {"next": {"$ref": "#/$defs/child"}}}}
        });
        let check = validator(&schema);
        let resolve = |r: &str| schema.pointer(r.strip_prefix('#')?);
        for n in 0..500 {
            let mut rng = Rng::new(1, n);
            let v = valid(&mut rng, &schema, &resolve);
            assert!(check.is_valid(&v), "{v}");
        }
    }

    #[test]
    fn near_changes_one_thing() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["a", "b"],
            "additionalProperties": false
        });
        let check = validator(&schema);
        let resolve = |_: &str| None;
        let mut missed = 0;
        for n in 0..200 {
            let mut rng = Rng::new(2, n);
            let mut v = valid(&mut rng, &schema, &resolve);
            let before = v.clone();
            near(&mut rng, &mut v);
            if !check.is_valid(&v) {
                missed += 1;
            }
            // At most one member differs.
            if let (Some(a), Some(b)) = (v.as_object(), before.as_object()) {
                let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
                let changed = keys.iter().filter(|k| a.get(**k) != b.get(**k)).count();
                assert!(changed <= 1, "{before} -> {v}");
            }
        }
        // Every change but a number that is still an integer misses it.
        assert!(missed > 150, "{missed} of 200 missed the schema");
    }
}
