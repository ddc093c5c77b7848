//! What a step writes when it uses a value an earlier reply gave: each
//! `"$kept:NAME"` in its lines replaced by the JSON at the pointer the
//! earlier step `keep`s (a session id from `session/new`), found in that
//! step's reply. A reply that did not give it stops the case SKIPPED.

use std::borrow::Cow;

use rpcspec_matcher::{Id, IdMatch};

use super::{Case, run::Run};
use crate::cases::{KEPT, Send};

impl Run<'_> {
    /// Step `k`'s bytes with each `"$kept:NAME"` replaced by the value an
    /// earlier step's reply gave (`keep`), or why the step cannot be
    /// written: no reply gave it.
    pub(super) fn with_kept<'c>(&self, case: &'c Case, k: usize) -> Result<Cow<'c, Send>, String> {
        let step = &case.steps[k];
        let names = step.uses_kept();
        if names.is_empty() {
            return Ok(Cow::Borrowed(&step.send));
        }
        let mut values = Vec::new();
        for name in names {
            // A case file's steps use only names kept before them (the
            // loader checks); a generated case (the fuzzer's) may hold the
            // text by chance, and it is sent as it is.
            let Some((j, pointer)) = case.steps[..k].iter().enumerate().rev().find_map(|(j, s)| {
                s.keep
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, p)| (j, p.as_str()))
            }) else {
                continue;
            };
            let value = self
                .step_ids
                .get(j)
                .and_then(|ids| self.kept_value(ids, pointer))
                .ok_or_else(|| {
                    format!(
                        "step {} needs `{name}`, which no reply to step {} gave (at `{pointer}`): \
                         the steps that need it were not sent",
                        k + 1 - self.preamble,
                        j + 1 - self.preamble
                    )
                })?;
            values.push((format!("{KEPT}{name}\""), value));
        }
        if values.is_empty() {
            return Ok(Cow::Borrowed(&step.send));
        }
        let fill = |line: &Vec<u8>| {
            values.iter().fold(line.clone(), |bytes, (token, value)| {
                replace(&bytes, token.as_bytes(), value.as_bytes())
            })
        };
        Ok(Cow::Owned(match &step.send {
            Send::Lines(lines) => Send::Lines(lines.iter().map(fill).collect()),
            Send::Raw(lines) => Send::Raw(lines.iter().map(fill).collect()),
        }))
    }

    /// The JSON text at `pointer` in the first reply to one of `ids`.
    fn kept_value(&self, ids: &[Id], pointer: &str) -> Option<String> {
        self.got
            .iter()
            .filter(|g| g.reply && !g.barrier)
            .filter(|g| {
                g.ids
                    .iter()
                    .any(|i| ids.iter().any(|a| a.compare(i) == IdMatch::Same))
            })
            .find_map(|g| {
                let value: serde_json::Value = serde_json::from_str(g.text.as_deref()?).ok()?;
                Some(value.pointer(pointer)?.to_string())
            })
    }
}

/// `bytes` with every `from` replaced by `to`, byte for byte (a line need
/// not be UTF-8).
fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at..].starts_with(from) {
            out.extend_from_slice(to);
            at += from.len();
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    out
}
