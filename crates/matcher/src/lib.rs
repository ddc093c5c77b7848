#![doc = include_str!("../README.md")]
//!
//! # Where to start
//!
//! * [`classify`]: one message to a [`Classified`]: its [`Kind`] and every
//!   [`Finding`], each pointing at a [`Rule`] of [`RULES`] with its
//!   [`Level`]; [`classify_checked`] for a message already validated.
//! * [`Session`]: replies paired with requests by [`Id`] in each
//!   [`Direction`].
//! * [`Dialect`]: which rules apply and how replies pair.
//! * [`limits`]: the implementation limits a message may be refused for.
//!
//! # Readings of the specification
//!
//! * **An object without `id` is a notification only if it is otherwise a
//!   valid request.** §4.1 calls every request object without `id` a
//!   notification, yet §7 answers `{"jsonrpc":"2.0","method":1,"params":"bar"}`
//!   and `{"foo":"boo"}` with an id-null `-32600` error. So an invalid object
//!   is [`Kind::Invalid`] whatever its `id`, and a [`Session`] expects an
//!   id-null error reply for it; but one with `method` and no `id` member
//!   is a notification to a reader that checks no further, so it may also
//!   go unanswered (it draws at most one -32600). So may a notification a
//!   strict reader refuses: members §4 does not list, an `rpc.` name, a
//!   member named twice.
//! * **Answered in kind.** A request without `jsonrpc` (a 1.0 object, §2:
//!   "2.0 implementations should consider trying to handle 1.0 objects")
//!   may be answered without it: `session.reply-in-kind` (SHOULD), not
//!   `message.jsonrpc-version`.
//! * **A line that is not UTF-8** awaits an id-null -32700, or, read with
//!   U+FFFD as RFC 8259 §9 lets a parser, what it then is
//!   ([`Session::feed_invalid_utf8`]).
//! * **An id-null error names nothing it answers.** It goes to the message
//!   most likely to have drawn it: one whose id could not be read before
//!   one that may still be answered by its id, the code it awaits before
//!   another. An array of them goes to a batch it can answer whole (as
//!   many as the batch awaits, each request of it still due refusable by
//!   id null, no more than it may draw), the oldest, since a reader
//!   answers its batches in turn: first one whose members could get no
//!   other reply, then one that only may draw them, then one whose
//!   invalid requests may yet get their replies by id. Which batch it
//!   answered is settled over the whole conversation, as a bipartite
//!   matching is: a later array that fits no batch still open, or a batch
//!   left awaiting at [`Session::close`], takes the batch of an earlier
//!   array that can move to another it answers whole (down a chain of
//!   them), so no order in which a reader sends its batches' arrays is
//!   misread. The last 64 such arrays of each side are remembered.
//! * **Codex ids are strings or integers**
//!   ([`Session::silent_to_unreadable`]): a message whose id is `1.5` or
//!   `null` is owed nothing, yet a reader that reads it anyway may answer
//!   it once, by that id or with an id-null error.
//! * **A cancel** (Claude's `control_cancel_request`, MCP's
//!   `notifications/cancelled` as the runner reads it) withdraws what its
//!   request awaited, an invalid request's id-null error included; one
//!   reply may still cross it.
//! * **Ids compare as the JSON they are.** `"1"` and `1` are different ids
//!   (a reply that swaps them is `session.id-type-changed`). Numbers compare
//!   by exact decimal value, never through `f64`, so `9007199254740993` is not
//!   `9007199254740992`; only an id beyond 64 bits may come back as a
//!   double prints it (`18446744073709551616` as `18446744073709552000`,
//!   `session.id-number-text`, SHOULD: RFC 8259 §9 lets a parser limit the
//!   precision of numbers). `1`, `1.0` and `1e0` have the same value: they pair,
//!   graded `session.id-number-text` (SHOULD), because a client that keeps
//!   ids as integers cannot match them. Strings compare decoded, `"A"` with
//!   `"\u0041"`, graded `session.id-string-text` (INFO): escaping is the
//!   encoder's choice and the value is the same.
//! * **`rpc.` method names** are reported as INFO: calling `rpc.discover` is
//!   what the reservation is for, and only a server knows what it serves.
//! * **Reserved error codes** (-32768..-32000 outside the predefined ones) are
//!   SHOULD, not MUST: LSP, a JSON-RPC user, defines -32800..-32803 there.
//! * **An integer** `error.code` is written without fraction or exponent:
//!   `-32600.0` and `-3.26e4` break `error.code-integer`.
//! * **A batch answered with single objects** breaks a lower-case "should"
//!   (§6), graded SHOULD; the replies still pair.
//! * **Duplicate member names** (RFC 8259 §4 SHOULD) are reported for the
//!   members the rules read; the last one is the one read.
//! * **Limits are not violations** (RFC 8259 §9: a parser may limit depth,
//!   number range and text size; JSON-RPC 2.0 §5.1: what it cannot parse
//!   gets an error). A message nested deeper than 64 levels, longer than
//!   64 KiB, or holding a number beyond 64-bit integers or doubles
//!   ([`limits`]) may be answered with one error reply (-32700, -32600 or
//!   -32603) sent alone, with `id` null or one of the message's ids, before
//!   anything else of it is answered: that reply answers the whole message,
//!   batch or not, graded `limit.refused` (INFO). An id-null reply still
//!   goes first to an older invalid message awaiting one, and a single
//!   request answered by its own id pairs as usual unless the code is -32700.
//!
//! The library does no I/O, reads no clock and starts no thread. It reads
//! each message into raw JSON slices, never into a `serde_json::Value`:
//! serde_json validates it, one scan reads its members and limits
//! ([`classify_checked`] skips the validation, for a caller that has one;
//! [`Members`] skips the scan too, for a validator that tells the members).

#![warn(missing_docs)]

mod classify;
mod dialect;
mod envelope;
mod id;
pub mod limits;
mod members;
mod name;
pub mod rules;
mod session;
mod text;

pub use classify::{Classified, Finding, Kind, Shape, classify, classify_checked};
pub use dialect::{Dialect, EventsConfig};
pub use id::{Id, IdKind, IdMatch};
pub use limits::Limit;
pub use members::Members;
pub use name::UnknownName;
pub use rules::{Level, RULES, Rule};
pub use session::{Direction, Reply, Session};
pub use text::Text;
