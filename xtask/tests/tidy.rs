//! Tidy: the rules of the tree's shape (ARCHITECTURE.md, "Layers"), read
//! from the sources by `cargo test`.
//!
//! * core depends on neither clap nor jsonschema, and on no role: the roles
//!   live in `rpcspec`, above it, and Cargo forbids a cycle;
//! * no role imports another role ([`ROLES`]);
//! * clap only in the command line's files ([`CLI_DIR`]);
//! * a role reads its target through core's `capture` (a `Framing`), never
//!   a framer of its own, but where a file is NDJSON by what it tests
//!   ([`NDJSON_BY_DEFINITION`]);
//! * no glob import of the crate's own modules (`use super::*`) outside
//!   `#[cfg(test)]`;
//! * no source file over [`MAX_FILE_LINES`] lines, no function over
//!   [`MAX_FN_LINES`] (`xtask/src` too; tests, `crates/*/tests` and
//!   `xtask/tests`, over [`MAX_TEST_FILE_LINES`] and [`MAX_TEST_FN_LINES`]);
//! * no import circle between a crate's modules;
//! * no engine ([`ENGINES`]) names a dialect: a dialect's name as a string,
//!   a variant named after one (`Dialect::Mcp`, `Protocol::Lsp`), or a
//!   dialect's module (`dialects::mcp`); only the registry
//!   (`dialects/mod.rs`) and each dialect's own folder do, and no dialect
//!   imports another.
//!
//! Each rule has a list of the exceptions the tree has today ([`DEBT`]),
//! the work of the layering issue still to do. An exception that no longer
//! occurs fails the test until it is struck from the list: the lists only
//! shrink.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 120;
/// The caps for tests (`crates/*/tests`, `xtask/tests`, a `tests.rs`
/// module): a test file holds fixtures and expected outputs beside its
/// code.
const MAX_TEST_FILE_LINES: usize = 1600;
const MAX_TEST_FN_LINES: usize = 200;

/// The roles of `rpcspec` and the top modules of `crates/runner/src` each
/// one is made of (the server role's folder, and the names the crate root
/// re-exports its modules under). A role may use core, the matcher, the
/// framer and the dialects (`dialect`, `mcp`), never another role.
const ROLES: &[(&str, &[&str])] = &[
    (
        "server",
        &[
            "server",
            "cases",
            "exec",
            "probe",
            "target_file",
            "serve",
            "run_suite",
        ],
    ),
    ("producer", &["producer"]),
    ("decoder", &["decoder"]),
    ("client", &["client"]),
];

/// The engines: the folders of `crates/runner/src` that take a dialect's
/// descriptor and must name no dialect.
const ENGINES: &[&str] = &[
    "server", "client", "producer", "decoder", "check", "fuzz", "matrix", "cli",
];

/// The dialect every other builds on, which an engine may name (the
/// default): JSON-RPC 2.0 itself.
const BASE_DIALECT: &str = "jsonrpc2";

/// The modules of `dialects/` every dialect and engine may import: the
/// base they share (who sends a method, what `check` asks of a dialect).
const DIALECT_BASE: &[&str] = &["directions", "checking", "playing", "serving"];

/// The folder of `crates/runner/src` that makes the command line: the only
/// one that may name clap.
const CLI_DIR: &str = "runner/src/cli/";

/// Files of `rpcspec` that may build an NDJSON framer themselves, since
/// NDJSON is what they test: the decoder role (it grades NDJSON decoders
/// against the reference framer's reading).
const NDJSON_BY_DEFINITION: &[&str] = &["runner/src/decoder/"];

/// Today's exceptions, by rule: `(rule, what)`. `what` is a file (relative
/// to `crates/`), a `file:function`, an arrow `file -> role`, or a circle
/// (its files, sorted, joined by `, `).
const DEBT: &[(&str, &str)] = &[
    // Wave 4's dialect issue: the dialects' code still in the engines'
    // folders, and the engine files that still name a dialect (with how
    // many times: a count that grows fails too).
    ("dialect-code-in-engine", "runner/src/client/claude"),
    ("dialect-code-in-engine", "runner/src/client/codex"),
    ("dialect-code-in-engine", "runner/src/client/codex_exec"),
    (
        "dialect-code-in-engine",
        "runner/src/client/grade/claude.rs",
    ),
    ("dialect-code-in-engine", "runner/src/client/grade/codex.rs"),
    (
        "dialect-code-in-engine",
        "runner/src/client/grade/codex_exec.rs",
    ),
    ("dialect-code-in-engine", "runner/src/client/grade/lsp.rs"),
    ("dialect-code-in-engine", "runner/src/client/grade/mcp.rs"),
    (
        "dialect-code-in-engine",
        "runner/src/client/reference/claude.rs",
    ),
    (
        "dialect-code-in-engine",
        "runner/src/client/reference/codex.rs",
    ),
    (
        "dialect-code-in-engine",
        "runner/src/client/reference/codex_exec.rs",
    ),
    (
        "dialect-code-in-engine",
        "runner/src/client/reference/lsp.rs",
    ),
    (
        "dialect-code-in-engine",
        "runner/src/client/reference/mcp.rs",
    ),
    ("dialect-code-in-engine", "runner/src/fuzz/mcp.rs"),
    ("dialect-in-engine", "runner/src/fuzz/mod.rs (2)"),
    (
        "dialect-in-engine",
        "runner/src/server/exec/observed.rs (1)",
    ),
    ("dialect-in-engine", "runner/src/cli/args.rs (3)"),
    ("dialect-in-engine", "runner/src/cli/fuzz_cmd.rs (1)"),
    ("dialect-in-engine", "runner/src/cli/main.rs (5)"),
    ("dialect-in-engine", "runner/src/cli/mcp_cmd.rs (4)"),
    ("dialect-in-engine", "runner/src/cli/rules_cmd.rs (1)"),
    ("dialect-in-engine", "runner/src/cli/run_cmd.rs (5)"),
    ("dialect-in-engine", "runner/src/client/agents.rs (3)"),
    (
        "dialect-in-engine",
        "runner/src/client/grade/codex_exec.rs (1)",
    ),
    ("dialect-in-engine", "runner/src/client/grade/lsp.rs (3)"),
    ("dialect-in-engine", "runner/src/client/grade/mcp.rs (4)"),
    (
        "dialect-in-engine",
        "runner/src/client/reference/codex_exec.rs (2)",
    ),
    ("dialect-in-engine", "runner/src/fuzz/mcp.rs (1)"),
    ("dialect-in-engine", "runner/src/fuzz/surface.rs (2)"),
    ("dialect-in-engine", "runner/src/matrix/drawn.rs (1)"),
    ("dialect-in-engine", "runner/src/producer/reference.rs (3)"),
    ("dialect-in-engine", "runner/src/server/role.rs (1)"),
    ("dialect-in-engine", "runner/src/server/target_file.rs (2)"),
    ("clap-outside-cli", "runner/src/matrix/mod.rs"),
    // The reference MCP server reads its stdin as NDJSON, which is MCP's
    // stdio framing (issue 33 took the reference client's off this list).
    (
        "framer-outside-capture",
        "runner/src/dialects/mcp/reference/io.rs",
    ),
    // The reference producer reads its stdin as NDJSON, the event-stream
    // protocol's framing (found once the rule read `read::Events` too).
    ("framer-outside-capture", "runner/src/producer/reference.rs"),
    // The syntax check's hot loop: one state machine over the bytes, read
    // top to bottom, kept whole so that its speed hangs on no inlining.
    ("long-function", "framer/src/syntax/mod.rs:scan"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The crates' source files: `(crate, path relative to crates/, text)`.
fn sources() -> Vec<(String, String, String)> {
    let crates = root().join("crates");
    let mut out = Vec::new();
    let mut names: Vec<_> = fs::read_dir(&crates)
        .expect("crates/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        for path in rust_files(&crates.join(&name).join("src")) {
            let rel = path
                .strip_prefix(&crates)
                .expect("under crates/")
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&path).expect("a readable source file");
            out.push((name.clone(), rel, text));
        }
    }
    out
}

/// The files tidy holds to the length caps beyond the crates' sources:
/// `(path, text, whether it is a test)`, `xtask/src/…` by its path from
/// the root, a crate's test by its path from `crates/`.
fn more_sources() -> Vec<(String, String, bool)> {
    let root = root();
    let mut out = Vec::new();
    let mut read = |dir: PathBuf, base: &Path, test: bool| {
        for path in rust_files(&dir) {
            let rel = path
                .strip_prefix(base)
                .expect("under its base")
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&path).expect("a readable source file");
            out.push((rel, text, test));
        }
    };
    read(root.join("xtask/src"), &root, false);
    read(root.join("xtask/tests"), &root, true);
    let crates = root.join("crates");
    let mut names: Vec<_> = fs::read_dir(&crates)
        .expect("crates/")
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for krate in names {
        read(krate.join("tests"), &crates, true);
    }
    out
}

/// The text without comments, and without `#[cfg(test)]` items (a `mod`
/// block or a `mod x;` line): what the built crate is made of. A file
/// that is a test module of its own (`#[cfg(test)] mod tests;` names it)
/// is left out by [`is_test_file`].
fn code_of(text: &str) -> String {
    let mut lines = Vec::new();
    for line in text.lines() {
        let code = match line.find("//") {
            // A `//` inside a string literal is rare in this tree's code;
            // cutting there only shortens the line.
            Some(at) => &line[..at],
            None => line,
        };
        lines.push(code);
    }
    let mut out = String::new();
    let mut skip_depth: Option<i64> = None;
    let mut pending_cfg_test = false;
    for line in lines {
        let t = line.trim();
        if let Some(depth) = skip_depth.as_mut() {
            *depth += brace_balance(line);
            if *depth <= 0 {
                skip_depth = None;
            }
            out.push('\n');
            continue;
        }
        if t == "#[cfg(test)]" {
            pending_cfg_test = true;
            out.push('\n');
            continue;
        }
        if pending_cfg_test {
            pending_cfg_test = false;
            if !t.ends_with(';') {
                let depth = brace_balance(line);
                if depth > 0 {
                    skip_depth = Some(depth);
                }
            }
            out.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn brace_balance(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Whether a file is a test module of its own: `tests.rs`, or under a
/// `tests/` folder of `src/`.
fn is_test_file(rel: &str) -> bool {
    rel.ends_with("/tests.rs") || rel.contains("/tests/")
}

/// The failures of one rule, given today's exceptions to it: what breaks
/// the rule and is not listed, and what is listed and no longer breaks it.
fn settle(rule: &str, found: BTreeSet<String>) -> Vec<String> {
    let listed: BTreeSet<String> = DEBT
        .iter()
        .filter(|(r, _)| *r == rule)
        .map(|(_, w)| (*w).to_owned())
        .collect();
    let mut out: Vec<String> = found
        .difference(&listed)
        .map(|w| format!("{rule}: {w}"))
        .collect();
    out.extend(
        listed
            .difference(&found)
            .map(|w| format!("{rule}: {w} is fixed: strike it from DEBT in xtask/tests/tidy.rs")),
    );
    out
}

fn assert_tidy(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "the tree breaks its rules (ARCHITECTURE.md, \"Layers\"):\n  {}",
        failures.join("\n  ")
    );
}

/// The names in a `[dependencies]` table of a manifest (not dev- or build-).
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == "[dependencies]";
            continue;
        }
        if inside && let Some((name, _)) = t.split_once('=') {
            let name = name.trim().trim_end_matches(".workspace");
            if !name.is_empty() && !name.starts_with('#') {
                out.insert(name.to_owned());
            }
        }
    }
    out
}

#[test]
fn core_depends_on_no_cli_no_schema_and_no_role() {
    let manifest = |c: &str| {
        fs::read_to_string(root().join("crates").join(c).join("Cargo.toml")).expect("a manifest")
    };
    let mut failures = Vec::new();
    let forbidden: &[(&str, &[&str])] = &[
        ("core", &["clap", "jsonschema", "rpcspec"]),
        ("framer", &["rpcspec-matcher", "rpcspec-core", "rpcspec"]),
        ("matcher", &["rpcspec-framer", "rpcspec-core", "rpcspec"]),
    ];
    for (krate, names) in forbidden {
        let deps = dependencies(&manifest(krate));
        for name in *names {
            if deps.contains(*name) {
                failures.push(format!("crates/{krate} depends on {name}"));
            }
        }
    }
    assert_tidy(failures);
}

/// The top module of a file of `crates/runner/src` (`exec/run.rs`: `exec`).
fn top_module(rel: &str) -> Option<&str> {
    let inside = rel.strip_prefix("runner/src/")?;
    let first = inside.split('/').next()?;
    Some(first.strip_suffix(".rs").unwrap_or(first))
}

fn role_of(module: &str) -> Option<&'static str> {
    ROLES
        .iter()
        .find(|(_, modules)| modules.contains(&module))
        .map(|(role, _)| *role)
}

#[test]
fn no_role_imports_another_role() {
    let mut found = BTreeSet::new();
    for (krate, rel, text) in sources() {
        if krate != "runner" || is_test_file(&rel) {
            continue;
        }
        let Some(own) = top_module(&rel).and_then(role_of) else {
            continue;
        };
        let code = code_of(&text);
        for module in crate_paths(&code)
            .into_iter()
            .filter_map(|p| p.first().cloned())
        {
            if let Some(other) = role_of(&module)
                && other != own
            {
                found.insert(format!("{rel} -> {other}"));
            }
        }
    }
    assert_tidy(settle("role-imports-role", found));
}

#[test]
fn clap_only_in_the_command_line() {
    let mut found = BTreeSet::new();
    for (_, rel, text) in sources() {
        if rel.starts_with(CLI_DIR) {
            continue;
        }
        if code_of(&text).contains("clap::") {
            found.insert(rel.clone());
        }
    }
    assert_tidy(settle("clap-outside-cli", found));
}

/// What builds a framer of the framer crate's: its framers' constructors
/// (`Framer::new`, `HeaderFramer::new`, `FramerCodec::new`), and its
/// one-shot and reader forms (`frame`, `frame_headers`, `read::Events`).
fn builds_a_framer(code: &str) -> bool {
    const BUILDERS: &[&str] = &[
        "Framer",
        "HeaderFramer",
        "FramerCodec",
        "frame",
        "frame_headers",
        "Events",
    ];
    code.contains("Framer::new(")
        || code.contains("FramerCodec::new(")
        || prefixed_paths(code, "rpcspec_framer")
            .iter()
            .any(|p| p.last().is_some_and(|l| BUILDERS.contains(&l.as_str())))
}

#[test]
fn roles_read_targets_through_a_framing() {
    let mut found = BTreeSet::new();
    for (krate, rel, text) in sources() {
        if krate != "runner" || NDJSON_BY_DEFINITION.iter().any(|p| rel.starts_with(p)) {
            continue;
        }
        if builds_a_framer(&code_of(&text)) {
            found.insert(rel.clone());
        }
    }
    assert_tidy(settle("framer-outside-capture", found));
}

/// The `use` declarations of the code, each whole (one may span lines),
/// without its visibility.
fn use_declarations(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in code.lines() {
        let t = line.trim();
        if current.is_none() {
            let t = ["pub(crate) ", "pub(super) ", "pub "]
                .iter()
                .fold(t, |t, p| t.strip_prefix(p).unwrap_or(t));
            if let Some(rest) = t.strip_prefix("use ") {
                current = Some(String::new());
                current.as_mut().expect("just set").push_str(rest);
            }
        } else if let Some(c) = current.as_mut() {
            c.push(' ');
            c.push_str(t);
        }
        if current.as_ref().is_some_and(|c| c.contains(';')) {
            out.extend(current.take());
        }
    }
    out
}

/// Whether a `use` declaration globs a module of the crate itself
/// (`super::*`, `crate::x::*`, a child's `run::*`, or a `*` inside a group
/// of them); `children` are the names of the file's child modules.
fn globs_own_module(declaration: &str, children: &[String]) -> bool {
    let first = declaration.split("::").next().unwrap_or("");
    let own = ["super", "crate", "self"].contains(&first) || children.iter().any(|c| c == first);
    let compact: String = declaration.chars().filter(|c| !c.is_whitespace()).collect();
    own && (compact.contains("::*") || compact.contains("{*") || compact.contains(",*"))
}

#[test]
fn no_glob_import_of_own_modules_outside_tests() {
    let all = sources();
    let files: BTreeSet<&str> = all.iter().map(|(_, rel, _)| rel.as_str()).collect();
    let mut found = BTreeSet::new();
    for (_, rel, text) in &all {
        if is_test_file(rel) {
            continue;
        }
        // A file's child modules: `dir/x.rs` or `dir/x/mod.rs`, where dir
        // is its own folder (`a/mod.rs`, `lib.rs`: theirs; `a/b.rs`: `a/b/`).
        let dir = match rel.rsplit_once('/') {
            Some((d, "mod.rs" | "lib.rs" | "main.rs")) => d.to_owned(),
            _ => rel.trim_end_matches(".rs").to_owned(),
        };
        let children: Vec<String> = files
            .iter()
            .filter_map(|f| f.strip_prefix(&format!("{dir}/")))
            .filter_map(|f| f.strip_suffix("/mod.rs").or_else(|| f.strip_suffix(".rs")))
            .filter(|f| !f.contains('/'))
            .map(str::to_owned)
            .collect();
        if use_declarations(&code_of(text))
            .iter()
            .any(|d| globs_own_module(d, &children))
        {
            found.insert(rel.clone());
        }
    }
    assert_tidy(settle("glob-import", found));
}

#[test]
fn no_source_file_over_800_lines() {
    let mut found = BTreeSet::new();
    for (_, rel, text) in sources() {
        // A test module of its own (`tests.rs`) is a test: its cap.
        let cap = if is_test_file(&rel) {
            MAX_TEST_FILE_LINES
        } else {
            MAX_FILE_LINES
        };
        if text.lines().count() > cap {
            found.insert(rel);
        }
    }
    for (rel, text, test) in more_sources() {
        let cap = if test {
            MAX_TEST_FILE_LINES
        } else {
            MAX_FILE_LINES
        };
        if text.lines().count() > cap {
            found.insert(rel);
        }
    }
    assert_tidy(settle("long-file", found));
}

/// Every function of the code (tests left out) and its length in lines,
/// from its `fn` line to its closing brace (rustfmt's layout: the brace
/// alone at the `fn` line's indentation).
fn functions(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let Some(at) = t.find("fn ") else {
            continue;
        };
        let head = &t[..at];
        let is_item = head.split_whitespace().all(|w| {
            matches!(
                w,
                "pub" | "pub(crate)" | "pub(super)" | "const" | "async" | "unsafe" | "extern"
            )
        });
        if !is_item {
            continue;
        }
        let name: String = t[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(end) = lines[i..].iter().position(|l| *l == close) {
            out.push((name, end + 1));
        }
    }
    out
}

#[test]
fn no_function_over_120_lines() {
    let mut found = BTreeSet::new();
    for (_, rel, text) in sources() {
        if is_test_file(&rel) {
            continue;
        }
        for (name, len) in functions(&code_of(&text)) {
            if len > MAX_FN_LINES {
                found.insert(format!("{rel}:{name}"));
            }
        }
    }
    for (rel, text, test) in more_sources() {
        let cap = if test {
            MAX_TEST_FN_LINES
        } else {
            MAX_FN_LINES
        };
        // A test file's own functions are what it is: its tests count.
        let code = if test { text.clone() } else { code_of(&text) };
        for (name, len) in functions(&code) {
            if len > cap {
                found.insert(format!("{rel}:{name}"));
            }
        }
    }
    assert_tidy(settle("long-function", found));
}

/// The `crate::…` paths a text names, each as its segments, the groups of
/// `use crate::{a::b, c}` expanded one level.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    prefixed_paths(code, "crate")
}

/// Paths after `prefix::`, written out or in a `use prefix::{…};` group.
fn prefixed_paths(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let start = format!("{prefix}::");
    let mut rest = code;
    while let Some(at) = rest.find(&start) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + start.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        // The path's own segments, then a group it ends in, if any:
        // `x::{a::b, c}` is `x::a::b` and `x::c`.
        let path: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let head: Vec<String> = path
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        match rest[path.len()..].strip_prefix('{') {
            Some(group) => {
                for item in split_top(&group[..group_end(group)]) {
                    let item: String = item.chars().filter(|c| !c.is_whitespace()).collect();
                    let item = item.split("::{").next().unwrap_or("");
                    if !item.is_empty() && item != "self" && item != "*" {
                        let mut p = head.clone();
                        p.extend(item.split("::").map(str::to_owned));
                        out.push(p);
                    }
                }
            }
            None if !head.is_empty() => out.push(head),
            None => {}
        }
    }
    out
}

/// Where the `{…}` group that `text` opens ends (the index of its `}`).
fn group_end(text: &str) -> usize {
    let mut depth = 1;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// The items of a group, split at its top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut from) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[from..]);
    out
}

/// The module path of a source file of a crate (`exec/mod.rs`: `exec`).
fn module_of(rel_in_src: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel_in_src
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The circles between one crate's files: file A → file B when A names a
/// path in B's module (`crate::…`, `super::…`, `self::…`, a child by its
/// bare name), unless one contains the other (a folder and its own files
/// are one room). Each circle is its files, sorted.
fn circles(files: &[(String, String)]) -> Vec<Vec<String>> {
    let modules: BTreeMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (rel, _))| (module_of(rel), i))
        .collect();
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for (i, (rel, text)) in files.iter().enumerate() {
        let own = module_of(rel);
        let code = code_of(text);
        let mut refs: Vec<Vec<String>> = crate_paths(&code);
        // super:: (any number) and self:: paths, relative to this module.
        for path in prefixed_paths(&code, "super") {
            let up = 1 + path.iter().take_while(|s| *s == "super").count();
            let mut p = own[..own.len().saturating_sub(up)].to_vec();
            p.extend(path.into_iter().skip(up - 1));
            refs.push(p);
        }
        for path in prefixed_paths(&code, "self") {
            let mut p = own.clone();
            p.extend(path);
            refs.push(p);
        }
        // A child module named by its bare path (`dialect::for_codex`).
        for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            if let Some((first, _)) = word.split_once("::")
                && !first.is_empty()
            {
                let mut child = own.clone();
                child.push(first.to_owned());
                if modules.contains_key(&child) {
                    refs.push(child);
                }
            }
        }
        for r in refs {
            for k in (0..=r.len()).rev() {
                if let Some(&j) = modules.get(&r[..k]) {
                    let target = &r[..k];
                    let related = target.starts_with(&own) || own.starts_with(target);
                    if !related {
                        edges[i].insert(j);
                    }
                    break;
                }
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<String> = c.iter().map(|&i| files[i].0.clone()).collect();
            names.sort();
            names
        })
        .collect()
}

/// Tarjan's strongly connected components, without recursion.
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut out, mut next) = (vec![false; n], Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>)> = Vec::new();
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        work.push((root, edges[root].iter().copied().collect()));
        while let Some((v, pending)) = work.last_mut() {
            let v = *v;
            if let Some(w) = pending.pop() {
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, edges[w].iter().copied().collect()));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _)) = work.last() {
                low[*parent] = low[*parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

#[test]
fn no_import_circle_between_modules() {
    let mut by_crate: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (krate, rel, text) in sources() {
        let in_src = rel
            .split_once("/src/")
            .map(|(_, r)| r.to_owned())
            .unwrap_or_default();
        by_crate.entry(krate).or_default().push((in_src, text));
    }
    let mut found = BTreeSet::new();
    for (krate, files) in &by_crate {
        for circle in circles(files) {
            found.insert(format!("{krate}: {}", circle.join(", ")));
        }
    }
    assert_tidy(settle("circle", found));
}

/// The checks themselves can fail: each finds a planted violation.
#[test]
fn the_checks_find_planted_violations() {
    let code = code_of("use super::*;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n");
    assert_eq!(code.matches("use super::*").count(), 1);
    let uses =
        use_declarations("use crate::{\n    args::*,\n    fail,\n};\npub(crate) use std::io::*;\n");
    assert_eq!(uses.len(), 2);
    assert!(globs_own_module(&uses[0], &[]) && !globs_own_module(&uses[1], &[]));
    assert!(globs_own_module("run::*;", &["run".to_owned()]));
    assert!(!globs_own_module("serde::*;", &["run".to_owned()]));
    assert!(builds_a_framer("let f = HeaderFramer::new(c);"));
    assert!(builds_a_framer(
        "use rpcspec_framer::{Config, frame_headers};"
    ));
    assert!(builds_a_framer("let e = rpcspec_framer::frame(&c, b);"));
    assert!(!builds_a_framer(
        "use rpcspec_framer::{Config, Event, ProblemKind};"
    ));
    let long = format!("fn long() {{\n{}}}\n", "    x();\n".repeat(130));
    assert_eq!(functions(&long), [("long".to_owned(), 132)]);
    let files = [
        ("a.rs".to_owned(), "use crate::b::B;".to_owned()),
        ("b.rs".to_owned(), "use crate::{a::A, c};".to_owned()),
        ("c.rs".to_owned(), String::new()),
    ];
    assert_eq!(
        circles(&files),
        [vec!["a.rs".to_owned(), "b.rs".to_owned()]]
    );
    let nested = [
        (
            "x/mod.rs".to_owned(),
            "use self::y::Y; fn f() { super::z::g() }".to_owned(),
        ),
        (
            "x/y.rs".to_owned(),
            "use super::X;\nuse crate::z;".to_owned(),
        ),
        ("z.rs".to_owned(), "use crate::x::y::Y;".to_owned()),
    ];
    let chained = [
        (
            "a/b/c.rs".to_owned(),
            "use super::super::{d::D};".to_owned(),
        ),
        ("a/d.rs".to_owned(), "use crate::a::b::{c::C};".to_owned()),
    ];
    assert_eq!(
        circles(&chained),
        [vec!["a/b/c.rs".to_owned(), "a/d.rs".to_owned()]]
    );
    assert_eq!(
        circles(&nested),
        [vec!["x/y.rs".to_owned(), "z.rs".to_owned()]]
    );
    assert_eq!(
        dependencies(
            "[dependencies]\nclap = \"4\"\nserde.workspace = true\n[dev-dependencies]\ntoml = \"1\"\n"
        ),
        BTreeSet::from(["clap".to_owned(), "serde".to_owned()])
    );
    assert_eq!(
        settle("planted", BTreeSet::from(["new".to_owned()])),
        ["planted: new"]
    );
}

/// The dialects' names, as the registry (`dialects/mod.rs`) lists them,
/// the base left out.
fn dialect_names() -> Vec<String> {
    let registry = fs::read_to_string(root().join("crates/runner/src/dialects/mod.rs"))
        .expect("the registry of dialects");
    registry
        .lines()
        .filter_map(|l| l.trim().strip_prefix("name: \""))
        .filter_map(|rest| rest.split('"').next())
        .filter(|n| *n != BASE_DIALECT)
        .map(str::to_owned)
        .collect()
}

/// The dialects' own modules: the folders and files of `dialects/` but
/// the registry's.
fn dialect_modules() -> Vec<String> {
    let dir = root().join("crates/runner/src/dialects");
    let mut out: Vec<String> = fs::read_dir(&dir)
        .expect("crates/runner/src/dialects")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .map(|n| n.trim_end_matches(".rs").to_owned())
        .filter(|n| !matches!(n.as_str(), "mod" | "tests") && !DIALECT_BASE.contains(&n.as_str()))
        .collect();
    out.sort();
    out
}

/// A name without case or punctuation: `codex-exec`, `CodexExec` and
/// `codex_exec` are one.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// How many times `code` names a dialect of `names` or a module of
/// `modules`: `"mcp"` (or `"mcp@…`), a variant named after one
/// (`Dialect::Mcp`, `Protocol::CodexExec`), a path into one
/// (`crate::dialects::mcp`, `rpcspec::dialects::lsp::…`).
fn dialect_mentions(code: &str, names: &[String], modules: &[String]) -> usize {
    let squashed: BTreeSet<String> = names.iter().map(|n| squash(n)).collect();
    let mut n = 0;
    for name in names {
        n += code.matches(&format!("\"{name}\"")).count();
        n += code.matches(&format!("\"{name}@")).count();
    }
    let mut rest = code;
    while let Some(at) = rest.find("::") {
        rest = &rest[at + 2..];
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.starts_with(|c: char| c.is_ascii_uppercase()) && squashed.contains(&squash(&ident))
        {
            n += 1;
        }
    }
    for prefix in ["crate", "rpcspec"] {
        n += prefixed_paths(code, prefix)
            .iter()
            .filter(|p| p.len() >= 2 && p[0] == "dialects" && modules.contains(&p[1]))
            .count();
    }
    n
}

#[test]
fn engines_name_no_dialect_and_no_dialect_imports_another() {
    let (names, modules) = (dialect_names(), dialect_modules());
    assert!(
        names.len() >= 6 && modules.len() >= 2,
        "{names:?} {modules:?}"
    );
    let (mut named, mut imports, mut placed) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for (krate, rel, text) in sources() {
        if krate != "runner" || is_test_file(&rel) {
            continue;
        }
        let code = code_of(&text);
        let top = top_module(&rel).unwrap_or("");
        if ENGINES.contains(&top) {
            let n = dialect_mentions(&code, &names, &modules);
            if n > 0 {
                named.insert(format!("{rel} ({n})"));
            }
            // A file or folder of an engine named after a dialect is that
            // dialect's code, in the wrong place.
            let inside = rel.strip_prefix("runner/src/").unwrap_or(&rel);
            let parts: Vec<&str> = inside.split('/').collect();
            for (i, part) in parts.iter().enumerate() {
                let stem = part.trim_end_matches(".rs");
                if names.iter().any(|n| squash(n) == squash(stem)) {
                    placed.insert(format!("runner/src/{}", parts[..=i].join("/")));
                    break;
                }
            }
        }
        let own = rel
            .strip_prefix("runner/src/dialects/")
            .and_then(|r| r.split('/').next())
            .map(|r| r.trim_end_matches(".rs"));
        if let Some(own) = own.filter(|o| modules.iter().any(|m| m == o)) {
            for path in crate_paths(&code) {
                if path.len() >= 2
                    && path[0] == "dialects"
                    && path[1] != own
                    && modules.contains(&path[1])
                {
                    imports.insert(format!("{rel} -> {}", path[1]));
                }
            }
        }
    }
    let mut failures = settle("dialect-in-engine", named);
    failures.extend(settle("dialect-code-in-engine", placed));
    failures.extend(settle("dialect-imports-dialect", imports));
    assert_tidy(failures);
}

/// The dialect rule finds what it is for, and not the base or a word.
#[test]
fn the_dialect_rule_finds_planted_names() {
    let names = ["mcp".to_owned(), "codex-exec".to_owned(), "lsp".to_owned()];
    let modules = ["mcp".to_owned(), "lsp".to_owned()];
    let n = |code: &str| dialect_mentions(code, &names, &modules);
    assert_eq!(n(r#"if d == "mcp" || d == "mcp@2025-11-25" {}"#), 2);
    assert_eq!(
        n("match p { Protocol::CodexExec => 1, Dialect::Mcp => 2, Flavor::Lsp => 3 }"),
        3
    );
    assert_eq!(
        n("use crate::dialects::{mcp::Revision, directions::Sender};"),
        1
    );
    assert_eq!(n("let x = rpcspec::dialects::lsp::model::model();"), 1);
    assert_eq!(
        n(r#"let d = "jsonrpc2"; let s = "an mcp server"; Kind::Request;"#),
        0
    );
    assert_eq!(n("use crate::dialects::{DIALECTS, Descriptor};"), 0);
}
