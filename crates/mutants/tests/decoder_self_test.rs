//! The decoder cases must be able to fail: the reference decoder passes
//! every case under every plan, every mutant decoder is caught (FAIL,
//! TIMEOUT or CRASH) by the cases written for its bug, and every case
//! catches at least one mutant other than `chunk-as-record` (which breaks
//! nearly all of them). The full table of which cases catch which mutant
//! is a snapshot (`snapshots/decoder_self_test__catches.snap`).

mod support;

use std::{collections::BTreeSet, time::Duration};

use rpcspec_matcher::Level;
use support::mutants;

use rpcspec::{
    decoder::{self, DecoderCase},
    report::{CaseResult, Verdict},
    run_parallel_with,
    target::Target,
};

const MUTANT: &str = env!("CARGO_BIN_EXE_rpcspec-mutant-decoder");

/// A mutant and the cases that must catch it (each under at least one plan).
const MUTANTS: &[(&str, &[&str])] = &[
    (
        "chunk-as-record",
        &[
            "decoder/basics/two-records",
            "decoder/splits/string-escapes",
            "decoder/splits/utf8-two-byte",
        ],
    ),
    (
        "utf8-per-chunk",
        &[
            "decoder/splits/utf8-two-byte",
            "decoder/splits/utf8-three-and-four-byte",
        ],
    ),
    ("leaks-cr", &["decoder/endings/blank-lf-and-crlf"]),
    (
        "splits-u2028",
        &[
            "decoder/unicode/u2028-in-string",
            "decoder/unicode/u2029-in-string",
            "decoder/unicode/nel-in-string",
        ],
    ),
    (
        "splits-on-cr",
        &[
            "decoder/endings/lone-cr-whitespace",
            "decoder/endings/lone-cr-between-values",
        ],
    ),
    (
        "drops-tail",
        &[
            "decoder/endings/no-final-newline",
            "decoder/endings/cut-mid-record",
        ],
    ),
    (
        "complete-without-done",
        &[
            "decoder/basics/interrupted",
            "decoder/basics/records-after-done",
            "decoder/basics/empty-stream",
        ],
    ),
    ("done-only-ends", &["decoder/basics/error-ends"]),
    (
        "skips-bad-lines",
        &[
            "decoder/records/broken-between-good",
            "decoder/records/two-values-one-line",
            "decoder/records/trailing-garbage",
            "decoder/records/pretty-printed",
            "decoder/records/log-line",
            "decoder/unicode/invalid-utf8-line",
        ],
    ),
    (
        "skips-non-json-lines",
        &[
            "decoder/unicode/bom",
            "decoder/basics/scalars",
            "decoder/records/log-line",
        ],
    ),
    (
        "counts-braces",
        &[
            "decoder/splits/string-escapes",
            "decoder/basics/scalars",
            "decoder/records/two-values-one-line",
        ],
    ),
    (
        "rejects-cr",
        &[
            "decoder/endings/crlf",
            "decoder/splits/crlf-split",
            "decoder/endings/blank-lf-and-crlf",
        ],
    ),
    (
        "stops-at-blank-line",
        &[
            "decoder/endings/whitespace-only-line",
            "decoder/endings/blank-lf-and-crlf",
        ],
    ),
    (
        "truncates-at-64k",
        &[
            "decoder/limits/line-over-64k",
            "decoder/limits/line-over-1m",
        ],
    ),
    (
        "keeps-lone-surrogates",
        &["decoder/unicode/invalid-utf8-line"],
    ),
    (
        "eof-mid-line-aborts",
        &[
            "decoder/endings/no-final-newline",
            "decoder/endings/cut-mid-record",
            "decoder/endings/trailing-space",
        ],
    ),
];

/// `chunk-as-record` breaks nearly every case under the rechunking plans,
/// so a case it catches proves little: every case must also catch a mutant
/// with a narrower bug, except these.
const CAUGHT_ONLY_BY_CHUNK_AS_RECORD: &[(&str, &str)] = &[(
    "decoder/basics/two-records",
    "the control case: two ordinary records, which every other case also \
     holds, so no bug fails it that fails no other case; a mutant of \
     ordinary reading is chunk-as-record",
)];

/// The mutants whose bug is in how reads are joined: only these run the
/// `split@K` plans (some 900 runs). The other bugs are in how a line is
/// read, whatever the writes, so `whole`, `coalesced`, `bytewise` and
/// `chunked` show all they can; `bytewise` puts a boundary at every byte.
const READ_BUGS: &[&str] = &["reference", "chunk-as-record", "utf8-per-chunk"];

/// Every case against the mutant `name`: on one adapter process per job,
/// taking the streams over named pipes, or with `fresh` on a process per
/// stream.
fn run(name: &str, fresh: bool) -> Vec<CaseResult> {
    let cases: Vec<DecoderCase> = decoder::builtin().unwrap();
    let every_split = READ_BUGS.contains(&name);
    let work: Vec<_> = cases
        .iter()
        .flat_map(|c| c.plans().into_iter().map(move |p| (c, p)))
        .filter(|(_, p)| every_split || p.kind() != "split")
        .collect();
    let target = Target {
        argv: vec![MUTANT.into(), name.into()],
    };
    run_parallel_with(
        &work,
        4,
        &|_, _| {},
        || decoder::Session::new(fresh),
        |session, (case, plan)| {
            decoder::run_case_in(
                session,
                case,
                plan,
                &target,
                Duration::from_secs(10),
                &Default::default(),
                &Default::default(),
            )
        },
    )
}

/// The cases that catch a mutant: FAIL, TIMEOUT or CRASH under some plan,
/// or, for a SHOULD case (whose failures are NON-STRICT), NON-STRICT.
fn caught<'r>(results: &'r [CaseResult], should: &BTreeSet<String>) -> BTreeSet<&'r str> {
    results
        .iter()
        .filter(|r| match r.verdict {
            Verdict::Fail | Verdict::Timeout | Verdict::Crash => true,
            Verdict::NonStrict => should.contains(&r.id),
            _ => false,
        })
        .map(|r| r.id.as_str())
        .collect()
}

#[test]
fn the_reference_passes_every_case_under_every_plan() {
    let results = run("reference", false);
    assert!(results.len() > 500, "{} (case, plan) pairs", results.len());
    // Every stream went to a shared adapter: none saw its process exit.
    let own: Vec<_> = results
        .iter()
        .filter(|r| r.exit.is_some())
        .map(|r| (&r.id, &r.plan))
        .collect();
    assert!(
        own.is_empty(),
        "streams run on a process of their own: {own:?}"
    );
    let bad: Vec<String> = results
        .iter()
        .filter(|r| r.verdict != Verdict::Pass)
        .map(|r| format!("{} [{}] {:?}: {:?}", r.id, r.plan, r.verdict, r.evidence))
        .collect();
    assert!(
        bad.is_empty(),
        "the reference must pass:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_mutant_is_caught_by_the_cases_written_for_it() {
    let mut table = String::new();
    let cases = decoder::builtin().unwrap();
    let should: BTreeSet<String> = cases
        .iter()
        .filter(|c| c.meta.level == Level::Should)
        .map(|c| c.meta.id.clone())
        .collect();
    let mut uncaught: BTreeSet<String> = cases.iter().map(|c| c.meta.id.clone()).collect();
    let mut narrowly: BTreeSet<String> = uncaught.clone();
    for (name, caught_by) in MUTANTS {
        let results = run(name, false);
        let caught = caught(&results, &should);
        for case in &caught {
            uncaught.remove(*case);
            if *name != "chunk-as-record" {
                narrowly.remove(*case);
            }
        }
        for case in *caught_by {
            assert!(
                caught.contains(case),
                "mutant `{name}` is not caught by `{case}`; caught by: {caught:?}"
            );
        }
        table.push_str(&format!("{name}: {} caught\n", caught.len()));
        for case in &caught {
            table.push_str(&format!("  {case}\n"));
        }
    }
    assert!(
        uncaught.is_empty(),
        "every case can fail: these catch no mutant: {uncaught:?}"
    );
    let allowed: BTreeSet<String> = CAUGHT_ONLY_BY_CHUNK_AS_RECORD
        .iter()
        .map(|(id, _)| (*id).to_owned())
        .collect();
    assert_eq!(
        narrowly, allowed,
        "every case but the listed ones catches a mutant other than chunk-as-record"
    );
    insta::assert_snapshot!("catches", table);
}

/// A shared adapter and a process per stream catch every mutant with the
/// same cases (verdicts under `bytewise` depend on how the reads fall, in
/// either mode, so the catch tables are compared, as for the server role).
#[test]
fn shared_adapters_and_processes_of_their_own_catch_the_same() {
    let should: BTreeSet<String> = decoder::builtin()
        .unwrap()
        .into_iter()
        .filter(|c| c.meta.level == Level::Should)
        .map(|c| c.meta.id)
        .collect();
    for name in std::iter::once("reference").chain(MUTANTS.iter().map(|(n, _)| *n)) {
        let (shared, own) = (run(name, false), run(name, true));
        assert!(
            own.iter().all(|r| r.exit.is_some()),
            "`{name}`: --fresh ran every stream on its own process"
        );
        assert_eq!(
            caught(&shared, &should),
            caught(&own, &should),
            "`{name}`: shared adapters and processes of their own catch it with different cases"
        );
    }
}

/// The list above and the binary's list of mutants are the same.
#[test]
fn every_mutant_of_the_binary_is_tested() {
    let tested: BTreeSet<String> = MUTANTS.iter().map(|(n, _)| (*n).to_owned()).collect();
    assert_eq!(mutants::listed(MUTANT), tested);
}
