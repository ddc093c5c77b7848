//! The GitHub Action of `.github/actions/rpcspec/action.yml`: its inputs
//! are `rpcspec run`'s options, and its run step, executed here with bash
//! the way a runner executes it (inputs as environment variables,
//! `$GITHUB_OUTPUT` and `$GITHUB_STEP_SUMMARY` files), passes a conforming
//! server, fails a broken one with annotations, and writes the JUnit report.

use std::{
    collections::BTreeSet,
    fs,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use yaml_rust2::{Yaml, YamlLoader};

const BIN: &str = env!("CARGO_BIN_EXE_rpcspec");

/// Inputs that are not options of `rpcspec run`, and what each is.
const NOT_OPTIONS: &[&str] = &[
    "command",           // the target, after `--`
    "args",              // any further options
    "working-directory", // the step's folder
    "version",           // which rpcspec to install
];

fn action() -> Yaml {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.github/actions/rpcspec/action.yml");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut docs = YamlLoader::load_from_str(&text).expect("action.yml is YAML");
    assert_eq!(docs.len(), 1, "one YAML document");
    docs.remove(0)
}

/// The long options `rpcspec run --help` lists, without the dashes.
fn run_options() -> BTreeSet<String> {
    let out = Command::new(BIN)
        .args(["run", "--help"])
        .output()
        .expect("rpcspec runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("-v, ").unwrap_or(line);
            let name = line.strip_prefix("--")?;
            Some(name.split([' ', '<']).next()?.to_owned())
        })
        .collect()
}

fn inputs(action: &Yaml) -> Vec<(String, Yaml)> {
    action["inputs"]
        .as_hash()
        .expect("inputs")
        .iter()
        .map(|(k, v)| (k.as_str().expect("input name").to_owned(), v.clone()))
        .collect()
}

/// The run step: its script and its environment (name → expression).
fn run_step(action: &Yaml) -> (String, Vec<(String, String)>) {
    let steps = action["runs"]["steps"].as_vec().expect("runs.steps");
    let step = steps
        .iter()
        .find(|s| s["id"].as_str() == Some("run"))
        .expect("a step with id `run`");
    let env = step["env"]
        .as_hash()
        .expect("the run step's env")
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().expect("name").to_owned(),
                v.as_str().expect("expression").to_owned(),
            )
        })
        .collect();
    (step["run"].as_str().expect("run script").to_owned(), env)
}

#[test]
fn every_input_is_an_option_of_rpcspec_run_and_reaches_it() {
    let action = action();
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let options = run_options();
    assert!(
        options.contains("dialect") && options.contains("junit"),
        "{options:?}"
    );
    let (script, env) = run_step(&action);
    for (name, input) in inputs(&action) {
        assert!(
            input["description"].as_str().is_some_and(|d| !d.is_empty()),
            "input `{name}` has no description"
        );
        if NOT_OPTIONS.contains(&name.as_str()) {
            continue;
        }
        assert!(
            options.contains(&name),
            "input `{name}` is not an option of `rpcspec run` (its options: {options:?})"
        );
        // The input reaches the script through an environment variable,
        // and the script passes that option on.
        let var = env
            .iter()
            .find(|(_, expr)| expr == &format!("${{{{ inputs.{name} }}}}"))
            .map(|(var, _)| var.clone())
            .unwrap_or_else(|| panic!("input `{name}` is not in the run step's env"));
        assert!(
            script.contains(&format!("${var}")),
            "the script never reads ${var}"
        );
        assert!(
            script.contains(&format!("--{name}")),
            "the script never passes --{name}"
        );
    }
    // And the script passes no option rpcspec does not have.
    for word in script.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        if let Some(option) = word.strip_prefix("--")
            && option.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
            && !option.is_empty()
        {
            assert!(
                options.contains(option),
                "the script passes --{option}, which rpcspec run lacks"
            );
        }
    }
}

/// Runs the action's run step with bash, the inputs given (the others take
/// their defaults), in `dir`.
fn run_action(given: &[(&str, &str)], dir: &Path) -> (Output, String, String) {
    let action = action();
    let (script, env) = run_step(&action);
    let output_file = dir.join("github-output");
    let summary_file = dir.join("step-summary");
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(&script)
        .current_dir(dir)
        .env("GITHUB_OUTPUT", &output_file)
        .env("GITHUB_STEP_SUMMARY", &summary_file)
        .env("NO_COLOR", "1");
    let defaults = inputs(&action);
    for (var, expr) in env {
        let value = if var == "RPCSPEC" {
            given
                .iter()
                .find(|(n, _)| *n == "RPCSPEC")
                .map_or(BIN, |(_, v)| *v)
                .to_owned()
        } else {
            let name = expr
                .strip_prefix("${{ inputs.")
                .and_then(|rest| rest.strip_suffix(" }}"))
                .unwrap_or_else(|| panic!("{var}: {expr} is not an input"));
            given
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
                .unwrap_or_else(|| {
                    let (_, input) = defaults.iter().find(|(n, _)| n == name).expect("declared");
                    input["default"].as_str().unwrap_or_default().to_owned()
                })
        };
        cmd.env(var, value);
    }
    let out = cmd.output().expect("bash runs");
    let outputs = fs::read_to_string(&output_file).unwrap_or_default();
    let summary = fs::read_to_string(&summary_file).unwrap_or_default();
    (out, outputs, summary)
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn the_run_step_passes_the_reference_and_writes_junit() {
    let dir = temp();
    let (out, outputs, summary) = run_action(
        &[
            ("filter", "jsonrpc/ids/*\n  framing/lines/crlf* "),
            ("args", "--plans 'whole,split' --jobs 2"),
        ],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("::error"), "{stdout}");
    let closing = stdout.lines().last().unwrap_or_default();
    assert!(
        closing.contains(" passed, 0 non-strict, 0 failed"),
        "{closing}"
    );
    let junit: PathBuf = dir.path().join("rpcspec-junit.xml");
    assert_eq!(outputs.trim(), format!("junit={}", junit.display()));
    let xml = fs::read_to_string(&junit).expect("the JUnit report is written");
    // Only the filtered cases, under the two plans of `args`.
    let cases = xml.matches("<testcase ").count();
    assert!(
        cases >= 4 && cases.is_multiple_of(2),
        "{cases} test cases:\n{xml}"
    );
    assert!(!xml.contains("bytewise") && xml.contains("split"), "{xml}");
    assert!(
        xml.contains("jsonrpc/ids/") && !xml.contains("jsonrpc/examples/"),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");
    assert!(summary.contains('|'), "a Markdown summary: {summary}");
}

#[test]
fn the_run_step_fails_a_broken_server_with_annotations() {
    let dir = temp();
    // The lenient reference omits "jsonrpc": every reply breaks JSON-RPC 2.0.
    let command = format!("'{BIN}' serve --dialect \"lenient\"");
    let (out, _, summary) = run_action(
        &[
            ("command", command.as_str()),
            ("filter", "jsonrpc/ids/*"),
            ("timeout", "2s"),
            ("junit", "report dir/junit.xml"),
        ],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("::error title=FAIL jsonrpc/ids/")),
        "{stdout}"
    );
    // A JUnit path with a space is one argument; its folder is made.
    let xml = fs::read_to_string(dir.path().join("report dir/junit.xml")).expect("JUnit");
    assert!(xml.contains("<failure"), "{xml}");
    assert!(summary.contains("jsonrpc/ids/"), "{summary}");
}

#[test]
fn the_run_step_builds_rpcspec_s_argv_from_the_inputs() {
    let dir = temp();
    // A stand-in for rpcspec that writes the arguments it was given.
    let fake = dir.path().join("fake-rpcspec");
    fs::write(&fake, "#!/bin/sh\nprintf '%s\\n' \"$@\" > argv\n").expect("write");
    fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let (out, outputs, _) = run_action(
        &[
            ("RPCSPEC", fake.to_str().expect("UTF-8 path")),
            (
                "command",
                "python3 'my server.py' --name \"a b\" *.py $HOME",
            ),
            ("role", "producer"),
            ("dialect", "mcp"),
            ("target", "t.toml"),
            ("filter", " a/* \nmcp/{tools,prompts}/*\nc"),
            ("without", "batch,sum"),
            ("baseline", "known.txt"),
            ("strict", "true"),
            ("timeout", "3s"),
            ("startup-timeout", "30s"),
            ("junit", "out.xml"),
            ("args", "--jobs 2 --plans 'whole,crlf'"),
        ],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let argv = fs::read_to_string(dir.path().join("argv")).expect("the fake ran");
    let expected = [
        "run",
        "--format",
        "github",
        "--role",
        "producer",
        "--dialect",
        "mcp",
        "--target",
        "t.toml",
        "--filter",
        "a/*",
        "--filter",
        "mcp/{tools,prompts}/*",
        "--filter",
        "c",
        "--without",
        "batch,sum",
        "--baseline",
        "known.txt",
        "--strict",
        "--timeout",
        "3s",
        "--startup-timeout",
        "30s",
        "--junit",
        "out.xml",
        "--jobs",
        "2",
        "--plans",
        "whole,crlf",
        "--",
        "python3",
        "my server.py",
        "--name",
        "a b",
        "*.py",
        "$HOME",
    ];
    assert_eq!(argv.lines().collect::<Vec<_>>(), expected);
    assert_eq!(
        outputs.trim(),
        format!("junit={}", dir.path().join("out.xml").display())
    );

    // A quote left open is an error, never a shorter command.
    for (input, value) in [
        ("command", "node it's.js --port 1"),
        ("args", "--baseline 'x"),
    ] {
        let (out, _, _) = run_action(
            &[("RPCSPEC", fake.to_str().expect("UTF-8")), (input, value)],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(2), "{input}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.starts_with("::error title=rpcspec action::the input `"),
            "{stdout}"
        );
    }

    // Defaults: the reference, no option beyond the format and role.
    let (out, _, _) = run_action(&[("RPCSPEC", fake.to_str().expect("UTF-8"))], dir.path());
    assert!(out.status.success());
    let argv = fs::read_to_string(dir.path().join("argv")).expect("the fake ran");
    assert_eq!(
        argv.lines().collect::<Vec<_>>(),
        [
            "run",
            "--format",
            "github",
            "--role",
            "server",
            "--junit",
            "rpcspec-junit.xml"
        ]
    );
}

/// The workflows of `docs/ci.md` and `.github/workflows/` parse, and every
/// use of the action names only inputs it declares.
#[test]
fn the_documented_workflows_use_only_declared_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let declared: BTreeSet<String> = inputs(&action()).into_iter().map(|(n, _)| n).collect();
    let doc = fs::read_to_string(root.join("docs/ci.md")).expect("docs/ci.md");
    let blocks: Vec<&str> = doc
        .split("```yaml\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default())
        .collect();
    assert!(
        blocks.len() >= 2,
        "docs/ci.md shows a Python and a Node workflow"
    );
    let mut uses = 0;
    for block in blocks {
        let docs = YamlLoader::load_from_str(block).unwrap_or_else(|e| panic!("{e}\n{block}"));
        for job in docs[0]["jobs"].as_hash().expect("jobs").values() {
            for step in job["steps"].as_vec().expect("steps") {
                let Some(action) = step["uses"].as_str() else {
                    continue;
                };
                if !action.contains(".github/actions/rpcspec") {
                    continue;
                }
                uses += 1;
                for key in step["with"].as_hash().expect("with").keys() {
                    let key = key.as_str().expect("input name");
                    assert!(declared.contains(key), "docs/ci.md uses input `{key}`");
                }
            }
        }
    }
    assert!(uses >= 2, "{uses} uses of the action in docs/ci.md");

    let workflows = root.join(".github/workflows");
    let mut modes = BTreeSet::new();
    for entry in fs::read_dir(&workflows).expect(".github/workflows") {
        let path = entry.expect("entry").path();
        let text = fs::read_to_string(&path).expect("read");
        let docs =
            YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for job in docs[0]["jobs"].as_hash().expect("jobs").values() {
            for step in job["steps"].as_vec().expect("steps") {
                let uses = step["uses"].as_str().unwrap_or_default();
                if uses.starts_with("google/clusterfuzzlite/actions/build_fuzzers") {
                    assert_eq!(
                        step["with"]["language"].as_str(),
                        Some("rust"),
                        "{}",
                        path.display()
                    );
                }
                if uses.starts_with("google/clusterfuzzlite/actions/run_fuzzers") {
                    modes.insert(step["with"]["mode"].as_str().expect("mode").to_owned());
                }
            }
        }
    }
    assert!(
        modes.contains("code-change") && modes.contains("batch"),
        "ClusterFuzzLite runs in code-change and batch mode: {modes:?}"
    );
    let project =
        fs::read_to_string(root.join(".clusterfuzzlite/project.yaml")).expect("project.yaml");
    let project = YamlLoader::load_from_str(&project).expect("YAML");
    assert_eq!(project[0]["language"].as_str(), Some("rust"));
}
