//! The TOML shapes of a case file, as written (`FileDef`, `CaseDef`,
//! `StepDef`, …), and their validation into the case model: a step's
//! sends and expectations, `repeat` expanded with `$n` substituted.

use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

use super::{
    Alternative, Expect, Grade, Location, MAX_REPEAT, MAX_SENDS, Pattern, Send, Step, unescape,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileDef {
    #[serde(default)]
    pub(super) case: Vec<Spanned<CaseDef>>,
    #[serde(default)]
    pub(super) preamble: Vec<Spanned<PreambleDef>>,
}

/// A `[[preamble]]` as written, in a case file or a target file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PreambleDef {
    pub(super) dialect: Spanned<String>,
    pub(super) title: String,
    pub(super) section: String,
    #[serde(default)]
    pub(super) step: Vec<Spanned<StepDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CaseDef {
    pub(super) name: Spanned<String>,
    pub(super) title: String,
    pub(super) section: String,
    #[serde(default = "must")]
    pub(super) level: Spanned<String>,
    #[serde(default)]
    pub(super) requires: Vec<String>,
    pub(super) plans: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub(super) allow: Vec<String>,
    #[serde(default = "no_dialects")]
    pub(super) not_in: Spanned<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    pub(super) or_unknown_method: bool,
    #[serde(default)]
    pub(super) fresh: bool,
    pub(super) framing: Option<Spanned<String>>,
    pub(super) dialect: Option<Spanned<String>>,
    #[serde(default = "yes")]
    pub(super) handshake: bool,
    pub(super) rule: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) step: Vec<Spanned<StepDef>>,
}

pub(super) fn no_dialects() -> Spanned<std::collections::BTreeMap<String, String>> {
    Spanned::new(0..0, Default::default())
}

pub(super) fn yes() -> bool {
    true
}

pub(super) fn must() -> Spanned<String> {
    Spanned::new(0..0, "MUST".to_owned())
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StepDef {
    pub(super) send: Option<OneOrMany>,
    #[serde(default)]
    pub(super) raw: bool,
    #[serde(default)]
    pub(super) unescape: bool,
    #[serde(default)]
    pub(super) close: bool,
    #[serde(default = "yes")]
    pub(super) barrier: bool,
    pub(super) expect_exit: Option<i32>,
    pub(super) repeat: Option<u32>,
    pub(super) expect: Option<OneOrMany>,
    pub(super) expect_batch: Option<Vec<String>>,
    #[serde(default)]
    pub(super) expect_none: bool,
    #[serde(default)]
    pub(super) expect_any: bool,
    #[serde(default)]
    pub(super) alternatives: Vec<AltDef>,
    #[serde(default)]
    pub(super) keep: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AltDef {
    pub(super) expect: Option<OneOrMany>,
    pub(super) expect_batch: Option<Vec<String>>,
    #[serde(default)]
    pub(super) expect_none: bool,
    pub(super) grade: Grade,
    pub(super) why: String,
}

/// The ways to say what comes back, as written in a step or an
/// alternative.
pub(super) struct ExpectDef {
    pub(super) expect: Option<OneOrMany>,
    pub(super) expect_batch: Option<Vec<String>>,
    pub(super) expect_none: bool,
    pub(super) expect_any: bool,
}

pub(super) fn step_from(def: StepDef) -> Result<Step, String> {
    let mut send = def.send.map(OneOrMany::into_vec).unwrap_or_default();
    let repeat = def.repeat.unwrap_or(1);
    if !(1..=MAX_REPEAT).contains(&repeat) {
        return Err(format!("`repeat` must be 1 to {MAX_REPEAT}, not {repeat}"));
    }
    if send.len() > MAX_SENDS || send.len() * repeat as usize > MAX_SENDS {
        return Err(format!(
            "a step sends at most {MAX_SENDS} messages (`send` times `repeat`)"
        ));
    }
    if def.repeat.is_some() {
        send = expand(&send, repeat);
    }
    let bytes = send
        .iter()
        .map(|s| {
            if def.unescape {
                unescape(s)
            } else {
                Ok(s.clone().into_bytes())
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let send = if def.raw {
        Send::Raw(bytes)
    } else {
        if let Some(line) = bytes.iter().find(|l| l.contains(&b'\n')) {
            return Err(format!(
                "a line to send contains a newline (use `raw = true` to send exact bytes): {:?}",
                String::from_utf8_lossy(line)
            ));
        }
        Send::Lines(bytes)
    };
    let primary = ExpectDef {
        expect: def.expect,
        expect_batch: def.expect_batch,
        expect_none: def.expect_none,
        expect_any: def.expect_any,
    };
    let unescaped = def.unescape;
    let expect = expect_from(primary, repeat, def.repeat.is_some(), unescaped)?.ok_or(
        "a step needs one of `expect`, `expect_batch`, `expect_none = true`, `expect_any = true`",
    )?;
    let mut alternatives = Vec::new();
    for alt in def.alternatives {
        let given = ExpectDef {
            expect: alt.expect,
            expect_batch: alt.expect_batch,
            expect_none: alt.expect_none,
            expect_any: false,
        };
        let expect = expect_from(given, repeat, def.repeat.is_some(), unescaped)?
            .ok_or("an alternative needs one of `expect`, `expect_batch`, `expect_none = true`")?;
        alternatives.push(Alternative {
            expect,
            grade: alt.grade,
            why: alt.why,
        });
    }
    if def.close && def.expect_exit.is_some() {
        return Err("a step closes stdin or expects the target to exit, not both".into());
    }
    for (name, pointer) in &def.keep {
        if !is_kept_name(name) {
            return Err(format!(
                "`keep` names `{name}`: a name is lower case letters, digits and `-`"
            ));
        }
        if !pointer.starts_with('/') {
            return Err(format!(
                "`keep.{name}` is `{pointer}`: a JSON Pointer into the reply, starting with `/`"
            ));
        }
    }
    Ok(Step {
        send,
        close: def.close,
        barrier: def.barrier,
        exit: def.expect_exit,
        expect,
        alternatives,
        keep: def.keep.into_iter().collect(),
        source: Location {
            file: PathBuf::new(),
            line: 0,
            column: 0,
        },
    })
}

/// Whether `name` may name a kept value: `[a-z0-9-]+`.
pub(super) fn is_kept_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// With `unescaped`, `\xNN` in expected messages is unescaped too (the
/// result must be UTF-8 text).
pub(super) fn expect_from(
    def: ExpectDef,
    repeat: u32,
    repeated: bool,
    unescaped: bool,
) -> Result<Option<Expect>, String> {
    let compile = |texts: Vec<String>| -> Result<Vec<Pattern>, String> {
        let texts = if repeated {
            expand(&texts, repeat)
        } else {
            texts
        };
        texts
            .iter()
            .map(|t| {
                if unescaped {
                    let text = String::from_utf8(unescape(t)?).map_err(|_| {
                        format!("expected message is not UTF-8 once unescaped: {t}")
                    })?;
                    Pattern::parse(&text)
                } else {
                    Pattern::parse(t)
                }
            })
            .collect()
    };
    let given = [
        def.expect.is_some(),
        def.expect_batch.is_some(),
        def.expect_none,
        def.expect_any,
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(
            "give only one of `expect`, `expect_batch`, `expect_none`, `expect_any`".into(),
        );
    }
    Ok(if let Some(one) = def.expect {
        Some(Expect::Messages(compile(one.into_vec())?))
    } else if let Some(batch) = def.expect_batch {
        if batch.is_empty() {
            return Err("`expect_batch` is empty: use `expect_none = true`".into());
        }
        Some(Expect::Batch(compile(batch)?))
    } else if def.expect_none {
        Some(Expect::Nothing)
    } else if def.expect_any {
        Some(Expect::Any)
    } else {
        None
    })
}

/// `repeat = N`: each template is instantiated for n = 1..=N, with `$n`
/// replaced by n (but not the `$n` that starts a marker such as `$number`).
pub(super) fn expand(templates: &[String], repeat: u32) -> Vec<String> {
    (1..=repeat)
        .flat_map(|n| templates.iter().map(move |t| substitute(t, n)))
        .collect()
}

pub(super) fn substitute(template: &str, n: u32) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("$n") {
        let after = &rest[at + 2..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str("$n");
        } else {
            out.push_str(&n.to_string());
        }
        rest = after;
    }
    out.push_str(rest);
    out
}
