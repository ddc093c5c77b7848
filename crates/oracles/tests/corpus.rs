//! Replays every file of every `corpus/<target>/` through its target's
//! check, and keeps the fuzzing tree honest: every target has a check and a
//! corpus, and every regression input is explained.

use std::{
    fs,
    panic::{AssertUnwindSafe, catch_unwind},
    path::{Path, PathBuf},
};

use rpcspec_oracles::TARGETS;

/// Every `regress-*` file, with the root cause of the bug it caught.
const REGRESSIONS: &[(&str, &str)] = &[(
    "framer_roundtrip/regress-float-parse-ulp",
    "serde_json without its `float_roundtrip` feature parses some decimal \
     floats one ulp off (997268.9892578125 came back as ...124), so a value \
     encoded by the framer did not parse back equal. The bytes were right; \
     the parse was lossy. Fixed by enabling `float_roundtrip` for the whole \
     workspace, so `Line::parse_value` is exact.",
)];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_file_passes_its_check() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (target, check) in TARGETS {
        for file in files(&root().join("corpus").join(target)) {
            let data = fs::read(&file).unwrap();
            count += 1;
            if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
                failures.push(file.display().to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "corpus inputs that fail their check:\n{}",
        failures.join("\n")
    );
    assert!(count >= 50, "only {count} corpus files");
}

#[test]
fn every_fuzz_target_has_a_check_and_a_corpus() {
    let mut on_disk: Vec<String> = files(&root().join("fuzz/fuzz_targets"))
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut checked: Vec<String> = TARGETS.iter().map(|(t, _)| (*t).to_owned()).collect();
    checked.sort();
    assert_eq!(on_disk, checked, "fuzz/fuzz_targets and TARGETS differ");
    // A fuzzer starts from its seeds: one or two leave it little to cross.
    for (target, _) in TARGETS {
        let seeds = files(&root().join("corpus").join(target))
            .iter()
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("seed-")
            })
            .count();
        assert!(seeds >= 3, "corpus/{target}/ has {seeds} seeds, not 3");
    }
}

#[test]
fn every_regression_is_explained() {
    for (target, _) in TARGETS {
        for file in files(&root().join("corpus").join(target)) {
            let name = file.file_name().unwrap().to_string_lossy();
            if name.starts_with("regress-") {
                let key = format!("{target}/{name}");
                assert!(
                    REGRESSIONS
                        .iter()
                        .any(|(f, why)| *f == key && !why.is_empty()),
                    "{key} is not in REGRESSIONS with its root cause"
                );
            } else {
                assert!(
                    name.starts_with("seed-"),
                    "{target}/{name}: name it seed-* or regress-*"
                );
            }
        }
    }
    for (file, _) in REGRESSIONS {
        assert!(
            root().join("corpus").join(file).is_file(),
            "REGRESSIONS names a missing file {file}"
        );
    }
}
