//! Which requests a step's lines hold: an `initialize`, or one its
//! dialect awaits past the barrier (`Serving::awaited`).

use crate::cases::Send;

/// Whether `send` holds an `initialize` request (a method and an id).
pub(super) fn sends_initialize(send: &Send) -> bool {
    sends_one_of(send, &["initialize"])
}

/// Whether `send` holds a request (a method and an id) of one of
/// `methods`.
pub(super) fn sends_one_of(send: &Send, methods: &[&str]) -> bool {
    let (Send::Lines(lines) | Send::Raw(lines)) = send;
    !methods.is_empty()
        && lines.iter().any(|line| {
            serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|v| {
                v.get("id").is_some() && v["method"].as_str().is_some_and(|m| methods.contains(&m))
            })
        })
}
