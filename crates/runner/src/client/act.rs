//! The check of one act of a scripted agent CLI, as a scenario writes it
//! (`claude::acts`, `codex_exec::acts`).

use toml::Spanned;

/// Checks a scripted CLI's act (`claude::acts`, `codex_exec::acts`):
/// its name is one of `table`'s, and of the fields `given` (name, set),
/// only those its row allows are set. Errors are (span, message).
pub(super) fn check_act(
    act: &Spanned<String>,
    span: &std::ops::Range<usize>,
    table: &[(&str, &[&str])],
    given: &[(&str, bool)],
) -> Result<(), (std::ops::Range<usize>, String)> {
    let name = act.get_ref().as_str();
    let Some((_, allowed)) = table.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        return Err((
            act.span(),
            format!("act `{name}` is not one of {}", names.join(", ")),
        ));
    };
    match given.iter().find(|(f, set)| *set && !allowed.contains(f)) {
        Some((extra, _)) => Err((
            span.clone(),
            format!("`{extra}` does not belong to act `{name}`"),
        )),
        None => Ok(()),
    }
}
