//! The case files shipped with rpcspec (`spec-cases/` at build time),
//! embedded by `build.rs` so that an installed binary runs its suites
//! anywhere. Every role reads its folder of them here.

use std::path::Path;

use crate::casefile::role_dir;

/// The shipped files (`spec-cases/` at build time) of one role folder, or
/// with `None` those outside every role folder, as (relative path, text).
pub fn builtin_files(under: Option<&str>) -> Vec<(&'static Path, &'static str)> {
    BUILTIN
        .iter()
        .map(|&(rel, text)| (Path::new(rel), text))
        .filter(|(rel, _)| match under {
            None => role_dir(rel).is_none(),
            Some(dir) => rel.starts_with(dir),
        })
        .collect()
}

include!(concat!(env!("OUT_DIR"), "/builtin_cases.rs"));
