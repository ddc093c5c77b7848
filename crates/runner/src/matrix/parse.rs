//! Reading a JSON report of `rpcspec run` (see [`crate::render`]) back
//! into a [`Run`]: what `rpcspec matrix --merge` and a manifest's runs
//! merge.

use std::path::Path;

use serde::Deserialize;

use super::{Error, Evidence, Received, Sent, Verdict};

/// A parsed JSON report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The command, as the report names it.
    pub target: String,
    /// `server`, `producer` or `decoder`.
    pub role: String,
    /// The dialect or profile.
    pub dialect: String,
    /// Every result, in report order.
    pub results: Vec<RunResult>,
}

/// One `result` event of a JSON report.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RunResult {
    /// The case id.
    pub id: String,
    /// The plan.
    pub plan: String,
    /// The case's title.
    #[serde(default)]
    pub title: String,
    /// Its section.
    #[serde(default)]
    pub section: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it is not a pass.
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// Every write.
    #[serde(default)]
    pub sent: Vec<Sent>,
    /// Every line received.
    #[serde(default)]
    pub received: Vec<Received>,
    /// The end of stderr.
    #[serde(default)]
    pub stderr: String,
    /// How the target ended.
    #[serde(default)]
    pub exit: Option<String>,
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    data: serde_json::Value,
}

#[derive(Deserialize)]
struct Start {
    #[serde(default)]
    target: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    dialect: String,
}

/// Parses a JSON report (see [`crate::render`]). Event types it does not
/// know, and fields it does not know, are skipped: reports only grow.
pub fn parse_report(file: &Path, text: &str) -> Result<Run, Error> {
    let at = |line: usize, message: String| Error::Report {
        file: file.to_path_buf(),
        line,
        message,
    };
    let mut run: Option<Run> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let env: Envelope =
            serde_json::from_str(line).map_err(|e| at(n, format!("not a report event: {e}")))?;
        match env.kind.as_str() {
            "start" => {
                if run.is_some() {
                    // Not a restart: `cat a.json b.json` would silently
                    // drop a's results.
                    return Err(at(
                        n,
                        format!(
                            "a second report starts at line {n}: give each report as its own file"
                        ),
                    ));
                }
                let s: Start = serde_json::from_value(env.data)
                    .map_err(|e| at(n, format!("bad start event: {e}")))?;
                run = Some(Run {
                    target: s.target,
                    role: if s.role.is_empty() {
                        "server".to_owned()
                    } else {
                        s.role
                    },
                    dialect: s.dialect,
                    results: Vec::new(),
                });
            }
            "result" => {
                let r: RunResult = serde_json::from_value(env.data)
                    .map_err(|e| at(n, format!("bad result event: {e}")))?;
                run.as_mut()
                    .ok_or_else(|| at(n, "a result before the start event".to_owned()))?
                    .results
                    .push(r);
            }
            _ => {}
        }
    }
    run.ok_or_else(|| {
        at(
            1,
            "no start event: not a JSON report of `rpcspec run`".to_owned(),
        )
    })
}
