//! `--filter`: which case ids a run selects.

/// Whether `id` is selected by the filters: no filters select everything;
/// otherwise any glob (`*` any run of characters, `?` one) matching the
/// whole id, or a filter equal to a prefix of the id ending at a `/`.
pub fn selected(id: &str, filters: &[globset::GlobMatcher]) -> bool {
    filters.is_empty() || filters.iter().any(|f| f.is_match(id))
}

/// Compiles `--filter` globs. A filter without glob characters also
/// selects everything below it (`jsonrpc/examples` selects
/// `jsonrpc/examples/*`).
pub fn compile_filters(filters: &[String]) -> Result<Vec<globset::GlobMatcher>, String> {
    let mut out = Vec::new();
    for f in filters {
        let mut patterns = vec![f.clone()];
        if !f.contains(['*', '?', '[', '{']) {
            patterns.push(format!("{}/**", f.trim_end_matches('/')));
        }
        for p in patterns {
            let glob = globset::GlobBuilder::new(&p)
                .literal_separator(false)
                .build()
                .map_err(|e| format!("bad --filter `{f}`: {e}"))?;
            out.push(glob.compile_matcher());
        }
    }
    Ok(out)
}
