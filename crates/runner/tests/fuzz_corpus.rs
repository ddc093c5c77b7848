//! `rpcspec fuzz --corpus DIR` on the command line: what it prints, and
//! what it says of a corpus it cannot load (file, line and column, exit 2)
//! or of files that are not its own (skipped, with a warning).

use std::{path::Path, process::Command};

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");

/// `rpcspec fuzz` with `args` against the reference server: (exit code,
/// stdout, stderr).
fn fuzz(args: &[&str], corpus: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .arg("fuzz")
        .args(args)
        .arg("--corpus")
        .arg(corpus)
        .arg("--out")
        .arg(corpus.with_extension("findings"))
        .args(["--", BIN, "serve"])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_second_run_says_where_it_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let shown = corpus.display().to_string();
    let (code, out, err) = fuzz(&["--executions", "6", "--seed", "5"], &corpus);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains("seed 5, corpus of 0 inputs, from execution 0, 1 jobs"),
        "{err}"
    );
    assert!(out.contains("6 executions (numbers 0 to 5)"), "{out}");
    let grown = format!("corpus {shown}: 0 -> ");
    assert!(out.contains(&grown), "{out}");
    let after: usize = out[out.find(&grown).unwrap() + grown.len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(after > 0, "{out}");

    let (code, out, err) = fuzz(&["--executions", "4", "--jobs", "2"], &corpus);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains(&format!(
            "seed 5, corpus of {after} inputs, from execution 6, 2 jobs"
        )),
        "{err}"
    );
    assert!(out.contains("4 executions (numbers 6 to 9) in"), "{out}");
    assert!(
        out.contains(&format!("corpus {shown}: {after} -> ")),
        "{out}"
    );
}

#[test]
fn a_bad_corpus_file_is_named_with_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(
        corpus.join("input-0.toml"),
        "[[case]]\nname = \"x\"\ntitle = 3\n",
    )
    .unwrap();
    let (code, out, err) = fuzz(&["--executions", "1"], &corpus);
    assert_eq!(code, Some(2), "{out}{err}");
    let at = format!("{}:3:", corpus.join("input-0.toml").display());
    assert!(err.contains(&at), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    std::fs::remove_file(corpus.join("input-0.toml")).unwrap();
    std::fs::write(corpus.join("state.json"), "{\"version\": 1,\n\"seed\": -1}").unwrap();
    let (code, _, err) = fuzz(&["--executions", "1"], &corpus);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{}:2:", corpus.join("state.json").display())),
        "{err}"
    );
}

#[test]
fn files_that_are_not_inputs_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir_all(corpus.join("notes")).unwrap();
    std::fs::write(corpus.join("README.txt"), "mine").unwrap();
    std::fs::write(corpus.join(".input-1.toml.tmp-99"), "[[case").unwrap();
    std::fs::write(corpus.join("huge.toml"), "#".repeat(65 << 10)).unwrap();
    let (code, out, err) = fuzz(&["--executions", "1"], &corpus);
    assert_eq!(code, Some(0), "{out}{err}");
    for (file, why) in [
        ("README.txt", "not a corpus input"),
        ("notes", "a folder"),
        (
            ".input-1.toml.tmp-99",
            "left by an interrupted run, removed",
        ),
        ("huge.toml", "over the 64 KiB"),
    ] {
        let said = format!("warning: {}: skipped: {why}", corpus.join(file).display());
        assert!(err.contains(&said), "{said}\n{err}");
    }
    assert!(corpus.join("README.txt").exists());
    assert!(!corpus.join(".input-1.toml.tmp-99").exists());
}

#[test]
fn jobs_and_corpus_max_have_bounds() {
    for args in [
        ["--jobs", "0"],
        ["--jobs", "257"],
        ["--corpus-max", "0"],
        ["--corpus-max", "100001"],
    ] {
        let out = Command::new(BIN)
            .arg("fuzz")
            .args(args)
            .args(["--", "cat"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// Every `rpcspec fuzz` command of docs/fuzzing.md runs as written (cut
/// to two executions, against the reference server instead of
/// `python3 server.py`), in a fresh folder.
#[test]
fn the_commands_of_the_fuzzing_guide_run() {
    let guide = include_str!("../../../docs/fuzzing.md");
    let commands: Vec<&str> = guide
        .lines()
        .map(|l| l.trim().trim_start_matches("run: "))
        .filter(|l| l.starts_with("rpcspec fuzz "))
        .collect();
    assert!(commands.len() >= 2, "{commands:?}");
    for command in commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        let dash = words.iter().position(|w| *w == "--").unwrap();
        assert_eq!(&words[dash + 1..], ["python3", "server.py"], "{command}");
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(BIN)
            .args(&words[1..dash])
            .args(["--executions", "2", "--", BIN, "serve"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command}\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("corpus .rpcspec-corpus: 0 -> "),
            "{command}\n{stdout}"
        );
    }
}

/// A run killed at any moment (here with SIGKILL, once it has kept an
/// input) leaves a corpus the next run loads and resumes from: at the
/// execution number its state names.
#[test]
fn a_killed_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let mut child = Command::new(BIN)
        .args(["fuzz", "--time", "60", "--seed", "9", "--corpus"])
        .arg(&corpus)
        .arg("--out")
        .arg(dir.path().join("findings"))
        .args(["--", BIN, "serve"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let state = corpus.join("state.json");
    let next = |text: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["next_execution"].as_u64().unwrap()
    };
    let began = std::time::Instant::now();
    while std::fs::read_to_string(&state).map_or(true, |t| t.is_empty() || next(&t) == 0) {
        assert!(
            began.elapsed() < std::time::Duration::from_secs(30),
            "no execution saved in 30 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let stopped = next(&std::fs::read_to_string(&state).unwrap());
    assert!(stopped > 0);
    let (code, out, err) = fuzz(&["--executions", "1"], &corpus);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains("seed 9, corpus of ") && err.contains(&format!("from execution {stopped},")),
        "{err}"
    );
    assert!(
        out.contains(&format!("numbers {stopped} to {stopped})")),
        "{out}"
    );
}
