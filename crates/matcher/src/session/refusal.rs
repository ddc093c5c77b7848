//! Implementation limits in a conversation: a message beyond a limit
//! real parsers have (`limits.rs`) may be refused as a whole with one error
//! reply, which pairs as `limit.refused` (INFO), not as a broken MUST.

use super::{
    Direction, Finding, Id, IdKind, Key, Kind, Limit, NullSlot, REFUSABLE, Refusable, ReplyCtx,
    Session, Side, r,
};

impl Session {
    /// Notes that the message just paired, beyond `limit`, may be refused
    /// as a whole.
    pub(super) fn refusable(&mut self, from: Direction, kind: &Kind, limit: Limit) {
        let message = self.messages;
        let side = &mut self.sides[from.index()];
        let batch = match kind {
            Kind::Batch(_) if side.batches.back().is_some_and(|b| b.message == message) => {
                Some(side.first_batch + side.batches.len() - 1)
            }
            _ => None,
        };
        let keys: Vec<Key> = match batch.and_then(|b| side.batch(b)) {
            Some(b) => b.keys.clone(),
            None => kind
                .id()
                .filter(|id| id.kind() != IdKind::Null)
                .map(Id::key)
                .into_iter()
                .collect(),
        };
        let keys: Vec<Key> = keys
            .into_iter()
            .filter(|k| {
                side.ids
                    .get(k)
                    .is_some_and(|e| e.message == message && e.due > 0)
            })
            .collect();
        // A notification with other members awaits nothing to refuse.
        let nulls = side
            .nulls
            .iter()
            .filter(|n| n.message == message && n.key.is_none() && !n.optional)
            .count();
        if keys.is_empty() && nulls == 0 {
            // Notifications beyond a limit: a reader that cannot parse them
            // cannot tell they are notifications, and its one id-null
            // error (§5.1: -32700, "an error occurred on the server while
            // parsing the JSON text") is no reply to a notification.
            let notifications = match kind {
                Kind::Notification { .. } => true,
                Kind::Batch(members) => members
                    .iter()
                    .all(|m| matches!(m, Kind::Notification { .. })),
                _ => false,
            };
            if notifications {
                let null = NullSlot {
                    versionless: false,
                    strict: false,
                    parse_error: true,
                    optional: true,
                    batch: None,
                    key: None,
                    message,
                    member: None,
                };
                self.await_null(from, null, &mut Vec::new());
            }
            return;
        }
        side.refusable.push_back(Refusable {
            message,
            limit,
            keys,
            nulls,
            batch,
        });
        if side.refusable.len() > REFUSABLE {
            side.refusable.pop_front();
        }
    }

    /// An error reply sent alone that refuses a whole message beyond a
    /// limit: its id is null (or absent) or one of the message's, its code
    /// says it could not be read, and nothing of the message has been
    /// answered yet. Settles everything the message awaited.
    pub(super) fn refusal(
        &mut self,
        from: Direction,
        kind: &Kind,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) -> bool {
        let Kind::Error {
            id,
            code: Some(code @ (-32700 | -32600 | -32603)),
        } = kind
        else {
            return false;
        };
        if ctx.array {
            return false;
        }
        let key = id.as_ref().map_or(Key::Null, Id::key);
        let window = self.window;
        let side = &mut self.sides[from.reverse().index()];
        // Whether nothing of `r` has been answered yet.
        let untouched = |side: &Side, r: &Refusable| {
            r.keys.iter().all(|k| {
                side.ids
                    .get(k)
                    .is_some_and(|e| e.message == r.message && e.due > 0)
            }) && side
                .nulls
                .iter()
                .filter(|n| n.message == r.message && n.key.is_none() && !n.optional)
                .count()
                == r.nulls
        };
        // An id-null reply goes to the oldest message awaiting one: a
        // refusal only if no older invalid message awaits its -32600. A
        // message sent alone whose id could be read may still be answered
        // by that id, so an invalid message that only an id-null reply can
        // answer takes it first, whenever it was sent: JSON-RPC orders no
        // replies, and the refusal can take the next id-null reply.
        // A notification that may draw one counts only for the code that
        // would refuse it (-32600, or -32700 for one that is not UTF-8).
        // So does an unparseable message, whenever it was sent, for the
        // -32700 it awaits, before a batch (which an array may answer).
        let before = |side: &Side, r: &Refusable, code: i64| {
            let alone_with_id = r.batch.is_none() && !r.keys.is_empty();
            side.nulls.iter().any(|n| {
                let unparseable = code == -32700
                    && n.parse_error
                    && !n.optional
                    && n.key.is_none()
                    && n.batch.is_none();
                // One that may draw this very code counts too: a -32600, or
                // a -32700 (a notification that is not UTF-8, or beyond a
                // limit) where the refusal's message may still be answered
                // by its own id.
                let drawn = if n.parse_error { -32700 } else { -32600 };
                n.message != r.message
                    && (!n.optional
                        || (code == drawn && (drawn == -32600 || alone_with_id || n.strict)))
                    && (n.message < r.message
                        || (alone_with_id && n.key.is_none())
                        || (unparseable && r.batch.is_some()))
            })
        };
        let mut i = 0;
        let mut found = None;
        while i < side.refusable.len() {
            let r = &side.refusable[i];
            if !untouched(side, r) {
                // Partly answered: it can no longer be refused as a whole.
                side.refusable.remove(i);
                continue;
            }
            // A single message answered by its own id is paired as usual
            // (any error answers a request) unless the code says it could
            // not be parsed, which pairing would hold against it.
            let code = *code;
            let fits = if key == Key::Null {
                !before(side, r, code)
                    && (r.batch.is_some() || !r.keys.is_empty() || code == -32700)
            } else {
                r.keys.contains(&key) && (r.batch.is_some() || code == -32700)
            };
            if fits {
                found = side.refusable.remove(i);
                break;
            }
            i += 1;
        }
        let Some(r) = found else { return false };
        let code = *code;
        for k in &r.keys {
            if let Some(e) = side.ids.get_mut(k) {
                side.due -= e.due as usize;
                e.due = 0;
                e.record(ctx.reply(), window);
                self.settled.push(e.message);
            }
        }
        side.nulls.retain(|n| n.message != r.message);
        if let Some(b) = r.batch.and_then(|b| side.batch(b)) {
            b.keys.clear();
        }
        let detail = format!(
            "message {}, {}, was refused as a whole with code {code}",
            r.message, r.limit
        );
        out.push(Finding::new(&r::LIMIT_REFUSED, ctx.member, detail));
        true
    }
}
