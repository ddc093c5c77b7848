//! Embeds every case file under `spec-cases/` into the binary, so an
//! installed `rpcspec` runs the shipped suite anywhere.
//!
//! `crates/runner/spec-cases` is a symbolic link to the workspace's
//! `spec-cases/`; `cargo package` follows it, so the published crate
//! carries the cases as a folder of its own. A build that finds no case
//! file fails: an `rpcspec` without its cases would pass every run while
//! testing nothing.

use std::{
    env, fs,
    path::{Path, PathBuf},
};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest.join("spec-cases");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    // Every folder a role's default run reads, not just "some file".
    for needed in ["jsonrpc", "framing", "decoder", "profiles", "client"] {
        if !files.iter().any(|f| {
            f.strip_prefix(&root)
                .is_ok_and(|rel| rel.starts_with(needed))
        }) {
            panic!(
                "rpcspec build: no case file under {}/{needed}/ ({} found in all): the \
                 shipped cases are missing, and an rpcspec built without them would \
                 test nothing. In a checkout, `crates/runner/spec-cases` must be the \
                 symbolic link to `../../spec-cases` (git config core.symlinks true); \
                 in a package, `spec-cases/` must be beside Cargo.toml",
                root.display(),
                files.len()
            );
        }
    }
    let mut out =
        String::from("/// The shipped case files: (path relative to `spec-cases/`, text).\n");
    out.push_str("const BUILTIN: &[(&str, &str)] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let rel = file.strip_prefix(&root).expect("under root");
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let abs = fs::canonicalize(file).expect("case file exists");
        out.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            abs.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest =
        PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo")).join("builtin_cases.rs");
    fs::write(dest, out).expect("write OUT_DIR file");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => panic!("rpcspec build: cannot read {}: {e}", dir.display()),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Directories are watched too, so a new file triggers a rebuild.
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, out);
        } else if path.extension().is_some_and(|x| x == "toml") {
            out.push(path);
        }
    }
}
