//! Case files: the TOML format, its loader and the validated case model.
//!
//! `spec-cases/README.md` documents the format for people who write cases;
//! this module is its single implementation. A case file error always names
//! the file, line and column.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

mod defs;

pub(crate) use defs::PreambleDef;
use defs::{FileDef, step_from};

// The loading every role's case files share.
pub use crate::shipped::builtin_files;
pub use rpcspec_core::casefile::{
    Lines, Listing, LoadError, Location, MAX_REPEAT, MAX_SENDS, MAX_STEPS, Meta, ROLE_DIRS,
    SeenIds, case_id, id_prefix, locate, parse_level, parse_toml, read_text, read_tree, role_dir,
};

use crate::{
    pattern::Pattern,
    plan::{ALL_PLANS, Plan},
    unescape::unescape,
};

/// A validated case.
#[derive(Debug, Clone)]
pub struct Case {
    /// What the case says of itself: id, title, section, level, what it
    /// requires, where it is defined.
    pub meta: Meta,
    /// The write plans the case runs under.
    pub plans: Vec<Plan>,
    /// Matcher rule ids this case tolerates in the target's messages.
    pub allow: Vec<String>,
    /// Dialects the case cannot apply to, each with the passage that says
    /// why: it is SKIPPED there as not applicable.
    pub not_in: Vec<(String, String)>,
    /// With no success call known for the target, its `$call` may go to a
    /// method no server has, answered -32601 (see [`crate::probe`]).
    pub or_unknown_method: bool,
    /// Runs in a process of its own even where the other cases share one
    /// (`fresh = true`): it tests what a target does first, or leaves it in
    /// a state the next case must not inherit.
    pub fresh: bool,
    /// The framing the case is written for (`framing = "ndjson"`): its
    /// bytes or what it tests belong to that framing, and in another it is
    /// not applicable. `None`: any, unless a step is `raw` ([`Case::framing`]).
    pub framing: Option<String>,
    /// The dialect the case belongs to (`dialect = "lsp"`): in any other it
    /// is not applicable. `None`: every dialect, but those of `not_in`.
    pub dialect: Option<String>,
    /// Opens with the dialect's handshake (the default); `handshake =
    /// false`: without it, for a case that tests the handshake itself or
    /// what comes before it.
    pub handshake: bool,
    /// The registry rule the case checks (`rule = "lsp.shutdown"`): its own
    /// answers that are not a PASS name it, in place of the generic rule.
    pub rule: Option<&'static rpcspec_matcher::Rule>,
    /// What to send and what to expect, in order.
    pub steps: Vec<Step>,
}

impl Case {
    /// The framing the case applies to, if only one: the one it names, or
    /// NDJSON for a case with a `raw` step, whose exact bytes are lines.
    pub fn framing(&self) -> Option<&str> {
        self.framing.as_deref().or_else(|| {
            let raw = self.steps.iter().any(|s| matches!(s.send, Send::Raw(_)));
            raw.then_some("ndjson")
        })
    }

    /// The case as `rpcspec list` shows it.
    pub fn listing(&self) -> Listing {
        let plans = self.plans.iter().map(|p| p.name().to_owned()).collect();
        self.meta.listing(plans)
    }

    /// The case with `f` applied to every pattern of every step's answers,
    /// the expected one and the alternatives.
    pub fn map_patterns(&self, f: impl Fn(&Pattern) -> Pattern) -> Case {
        let map = |e: &Expect| match e {
            Expect::Messages(ps) => Expect::Messages(ps.iter().map(&f).collect()),
            Expect::Batch(ps) => Expect::Batch(ps.iter().map(&f).collect()),
            other => other.clone(),
        };
        let mut case = self.clone();
        for step in &mut case.steps {
            step.expect = map(&step.expect);
            for alt in &mut step.alternatives {
                alt.expect = map(&alt.expect);
            }
        }
        case
    }
}

/// Steps every case opens with when the target is judged in one dialect:
/// a protocol's handshake (MCP's `initialize`, then
/// `notifications/initialized`), which its servers require before anything
/// else. Declared in a case file as `[[preamble]]`; its steps are graded
/// like a case's, at MUST, and reported as preamble steps.
#[derive(Debug, Clone)]
pub struct Preamble {
    /// The dialect it applies to (`mcp`).
    pub dialect: String,
    /// One line saying what it does.
    pub title: String,
    /// Where the handshake is specified.
    pub section: String,
    /// What to send and what to expect, before the case's own steps.
    pub steps: Vec<Step>,
    /// Where it is defined.
    pub source: Location,
}

impl Preamble {
    /// Makes every `initialize` request of the preamble offer `version`
    /// as its `protocolVersion` (`--dialect mcp@REVISION`).
    pub fn offer_version(&mut self, version: &str) {
        for step in &mut self.steps {
            let Send::Lines(lines) = &mut step.send else {
                continue;
            };
            for line in lines.iter_mut() {
                let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(line) else {
                    continue;
                };
                if value.get("method").and_then(|m| m.as_str()) != Some("initialize") {
                    continue;
                }
                if let Some(params) = value.get_mut("params").and_then(|p| p.as_object_mut()) {
                    params.insert("protocolVersion".into(), version.into());
                    *line = value.to_string().into_bytes();
                }
            }
        }
    }
}

/// One exchange: bytes to send, then what must come back.
#[derive(Debug, Clone)]
pub struct Step {
    /// What to write.
    pub send: Send,
    /// Close the target's stdin after this step's bytes.
    pub close: bool,
    /// A barrier follows the step (the default); `barrier = false`: none,
    /// for a step after which the target answers no request it does not
    /// know (LSP after `shutdown`): what it answers is delimited by a later
    /// step's barrier or by its exit.
    pub barrier: bool,
    /// The target ends by itself after this step's bytes, with this exit
    /// status (`expect_exit = 0`: LSP's `exit`); its end delimits what it
    /// answered. Must be the last step.
    pub exit: Option<i32>,
    /// The specification's answer.
    pub expect: Expect,
    /// Other answers, graded differently.
    pub alternatives: Vec<Alternative>,
    /// Values of its reply kept for later steps (`keep = { session =
    /// "/result/sessionId" }`): each name and the JSON Pointer into the
    /// reply to the step's request. A later step's `"$kept:session"` (the
    /// string, quotes and all) is that value's JSON text; where no reply
    /// gave it, the case is SKIPPED there.
    pub keep: Vec<(String, String)>,
    /// Where the step is defined.
    pub source: Location,
}

/// The placeholder for a kept value, before its name: `"$kept:NAME"`.
pub const KEPT: &str = "\"$kept:";

impl Step {
    /// The names of the kept values its lines use.
    pub fn uses_kept(&self) -> Vec<String> {
        let (Send::Lines(lines) | Send::Raw(lines)) = &self.send;
        let mut out = Vec::new();
        for line in lines {
            let text = String::from_utf8_lossy(line);
            let mut rest: &str = &text;
            while let Some(at) = rest.find(KEPT) {
                rest = &rest[at + KEPT.len()..];
                let end = rest.find('"').unwrap_or(rest.len());
                out.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
        out
    }
}

// The bytes of a step, as the write plans take them.
pub use rpcspec_core::plan::Send;

/// What the target must answer to a step.
#[derive(Debug, Clone)]
pub enum Expect {
    /// These messages, in any order, and nothing else.
    Messages(Vec<Pattern>),
    /// One message: an array whose members match these, in any order.
    Batch(Vec<Pattern>),
    /// No message at all.
    Nothing,
    /// No particular answer: only the rules every case checks apply, plus
    /// one more for the whole case: every request gets its reply (what
    /// `rpcspec fuzz` writes for the inputs it generates).
    Any,
}

/// A tolerated answer other than the specification's.
#[derive(Debug, Clone)]
pub struct Alternative {
    /// The tolerated answer.
    pub expect: Expect,
    /// The verdict it earns.
    pub grade: Grade,
    /// Why it is tolerated (which passage of the spec allows the reading).
    pub why: String,
}

/// The verdict an alternative earns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grade {
    /// An equally valid reading of the spec.
    Pass,
    /// A tolerated deviation.
    NonStrict,
}

/// Loads the server role's cases: every `*.toml` file under `root` outside
/// the role folders (sorted by path), with ids relative to `root`.
pub fn load_dir(root: &Path) -> Result<Vec<Case>, LoadError> {
    let mut cases = Vec::new();
    for (rel, text) in read_tree(root, None)? {
        cases.extend(load_str(&rel, &text)?);
    }
    Ok(cases)
}

/// Loads the cases of one file, given its path relative to the cases root
/// (which makes the ids) and its text. Its preambles are checked too (see
/// [`load_preambles`]).
pub fn load_str(file: &Path, text: &str) -> Result<Vec<Case>, LoadError> {
    load_file(file, text).map(|(cases, _)| cases)
}

/// The `[[preamble]]`s of one case file.
pub fn load_preambles(file: &Path, text: &str) -> Result<Vec<Preamble>, LoadError> {
    load_file(file, text).map(|(_, preambles)| preambles)
}

/// The preambles of every server-role file under `root` (the files
/// [`load_dir`] loads), in path order.
pub fn preambles_dir(root: &Path) -> Result<Vec<Preamble>, LoadError> {
    let mut preambles = Vec::new();
    for (rel, text) in read_tree(root, None)? {
        preambles.extend(load_preambles(&rel, &text)?);
    }
    Ok(preambles)
}

/// The preambles shipped in `spec-cases/` (the MCP handshake).
pub fn builtin_preambles() -> Result<Vec<Preamble>, LoadError> {
    let mut preambles = Vec::new();
    for (path, text) in builtin_files(None) {
        preambles.extend(load_preambles(path, text)?);
    }
    Ok(preambles)
}

fn load_file(file: &Path, text: &str) -> Result<(Vec<Case>, Vec<Preamble>), LoadError> {
    let at =
        |span: std::ops::Range<usize>, message: String| LoadError::at(file, text, span, message);
    let def: FileDef = parse_toml(file, text)?;
    let prefix = id_prefix(file);
    let lines = Lines::new(text);
    let mut cases: Vec<Case> = Vec::new();
    let mut seen = SeenIds::new();
    for spanned in def.case {
        let case_span = spanned.span();
        let def = spanned.into_inner();
        let name_span = def.name.span();
        let name = def.name.into_inner();
        let line = lines.locate(file, case_span.start).line;
        let id = case_id(&prefix, &name, line, &mut seen).map_err(|e| at(name_span, e))?;
        let level = parse_level(def.level.as_ref()).map_err(|e| at(def.level.span(), e))?;
        let plans =
            match def.plans {
                None => ALL_PLANS.to_vec(),
                Some(list) => {
                    let span = list.span();
                    let mut plans = Vec::new();
                    for name in list.into_inner() {
                        plans.push(name.parse::<Plan>().map_err(|_| {
                            at(span.clone(), format!("unknown write plan `{name}`"))
                        })?);
                    }
                    plans
                }
            };
        let steps = case_steps(def.step, &name, case_span.clone(), &lines, file, text)?;
        let not_in_span = def.not_in.span();
        let not_in: Vec<(String, String)> = def.not_in.into_inner().into_iter().collect();
        if let Some((bad, _)) = not_in
            .iter()
            .find(|(d, _)| crate::dialects::dialect_named(d).is_none())
        {
            return Err(at(
                not_in_span,
                format!("unknown dialect `{bad}` in not_in"),
            ));
        }
        let framing = match def.framing {
            Some(f) if !crate::capture::Framing::NAMES.contains(&f.as_ref().as_str()) => {
                return Err(at(
                    f.span(),
                    format!(
                        "unknown framing `{}` (known: {})",
                        f.as_ref(),
                        crate::capture::Framing::NAMES.join(", ")
                    ),
                ));
            }
            f => f.map(Spanned::into_inner),
        };
        let dialect = match def.dialect {
            Some(d) if crate::dialects::dialect_named(d.as_ref()).is_none() => {
                return Err(at(d.span(), format!("unknown dialect `{}`", d.as_ref())));
            }
            d => d.map(Spanned::into_inner),
        };
        let rule = match def.rule {
            Some(r) => match crate::rules::by_id(r.as_ref()) {
                Some(rule) => Some(rule),
                None => {
                    let why = format!("unknown rule `{}` (`rpcspec rules` lists them)", r.as_ref());
                    return Err(at(r.span(), why));
                }
            },
            None => None,
        };
        cases.push(Case {
            meta: Meta {
                id,
                title: def.title,
                section: def.section,
                level,
                requires: def.requires,
                source: lines.locate(file, case_span.start),
            },
            plans,
            allow: def.allow,
            not_in,
            or_unknown_method: def.or_unknown_method,
            fresh: def.fresh,
            framing,
            dialect,
            handshake: def.handshake,
            rule,
            steps,
        });
    }
    let preambles = preambles_from(def.preamble, file, text)?;
    Ok((cases, preambles))
}

/// The steps of case `name` (at `case_span`), checked: at least one, at
/// most [`MAX_STEPS`], none after one that ends the input, and each kept
/// value a step uses kept by an earlier step.
fn case_steps(
    defs: Vec<Spanned<defs::StepDef>>,
    name: &str,
    case_span: std::ops::Range<usize>,
    lines: &Lines,
    file: &Path,
    text: &str,
) -> Result<Vec<Step>, LoadError> {
    let at =
        |span: std::ops::Range<usize>, message: String| LoadError::at(file, text, span, message);
    if defs.is_empty() {
        return Err(at(case_span, format!("case `{name}` has no [[case.step]]")));
    }
    if defs.len() > MAX_STEPS {
        let why = format!(
            "case `{name}` has {} steps; at most {MAX_STEPS}",
            defs.len()
        );
        return Err(at(case_span, why));
    }
    let mut steps: Vec<Step> = Vec::new();
    for step in defs {
        let span = step.span();
        if steps.last().is_some_and(|s| s.close || s.exit.is_some()) {
            return Err(at(
                span,
                "no step can follow one with `close = true` or `expect_exit`".into(),
            ));
        }
        let parsed = step_from(step.into_inner()).map_err(|m| at(span.clone(), m))?;
        if let Some(name) = parsed
            .uses_kept()
            .into_iter()
            .find(|n| !steps.iter().any(|s| s.keep.iter().any(|(k, _)| k == n)))
        {
            return Err(at(
                span,
                format!("`\"$kept:{name}\"`: no earlier step of the case keeps `{name}`"),
            ));
        }
        steps.push(parsed);
        steps.last_mut().expect("just pushed").source = lines.locate(file, span.start);
    }
    Ok(steps)
}

/// The preambles declared in `file` (whose text is `text`), checked: a
/// known dialect, one preamble per dialect, steps that state their answer
/// and do not close stdin.
pub(crate) fn preambles_from(
    defs: Vec<Spanned<PreambleDef>>,
    file: &Path,
    text: &str,
) -> Result<Vec<Preamble>, LoadError> {
    let at =
        |span: std::ops::Range<usize>, message: String| LoadError::at(file, text, span, message);
    let lines = Lines::new(text);
    let mut preambles: Vec<Preamble> = Vec::new();
    for spanned in defs {
        let span = spanned.span();
        let def = spanned.into_inner();
        let dialect_span = def.dialect.span();
        let dialect = def.dialect.into_inner();
        if crate::dialects::dialect_named(&dialect).is_none() {
            return Err(at(dialect_span, format!("unknown dialect `{dialect}`")));
        }
        if preambles.iter().any(|p| p.dialect == dialect) {
            return Err(at(
                dialect_span,
                format!("a second preamble for dialect `{dialect}`"),
            ));
        }
        if def.step.is_empty() {
            return Err(at(span, "a preamble has no [[preamble.step]]".into()));
        }
        if def.step.len() > MAX_STEPS {
            return Err(at(
                span,
                format!(
                    "a preamble has {} steps; at most {MAX_STEPS}",
                    def.step.len()
                ),
            ));
        }
        let mut steps: Vec<Step> = Vec::new();
        for step in def.step {
            let span = step.span();
            let mut parsed = step_from(step.into_inner()).map_err(|m| at(span.clone(), m))?;
            if !parsed.keep.is_empty() || !parsed.uses_kept().is_empty() {
                return Err(at(
                    span.clone(),
                    "a preamble step keeps no value and uses none".into(),
                ));
            }
            if parsed.close || parsed.exit.is_some() || !parsed.barrier {
                return Err(at(
                    span,
                    "a preamble step cannot close stdin, expect an exit or go without a barrier"
                        .into(),
                ));
            }
            if matches!(parsed.expect, Expect::Any) {
                return Err(at(
                    span,
                    "a preamble step states its answer (`expect_any` is for cases)".into(),
                ));
            }
            parsed.source = lines.locate(file, span.start);
            steps.push(parsed);
        }
        preambles.push(Preamble {
            dialect,
            title: def.title,
            section: def.section,
            steps,
            source: lines.locate(file, span.start),
        });
    }
    Ok(preambles)
}

/// Every feature the cases require, for validating `--without`.
pub fn features(cases: &[Case]) -> std::collections::BTreeSet<String> {
    cases
        .iter()
        .flat_map(|c| c.meta.requires.iter().cloned())
        .collect()
}

/// The cases shipped with rpcspec (`spec-cases/` at build time), embedded so
/// an installed binary works anywhere.
pub fn builtin() -> Result<Vec<Case>, LoadError> {
    let mut cases = Vec::new();
    for (path, text) in builtin_files(None) {
        cases.extend(load_str(path, text)?);
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::defs::substitute;

    #[test]
    fn repeat_substitutes_n_but_not_markers() {
        assert_eq!(
            substitute(r#"{"id":$n,"result":"$number","x":"$n"}"#, 7),
            r#"{"id":7,"result":"$number","x":"7"}"#
        );
    }
}
