//! What goes unanswered: the requests left at [`Session::close`], those
//! given up beyond the window, and how many replies are still due.

use super::{Direction, NullSlot, Session, Side, names};
use crate::classify::Finding;
use crate::dialect::Dialect;
use crate::rules as r;

impl Session {
    /// Ends the session: every request still awaiting a reply is reported
    /// (`session.unanswered`), and in the `events` dialect a stream without
    /// an end record (`events.interrupted`). Closing twice reports nothing
    /// new.
    pub fn close(&mut self) -> Vec<Finding> {
        let mut out = Vec::new();
        for from in [Direction::ClientToServer, Direction::ServerToClient] {
            self.repair_at_close(from);
            let side = &mut self.sides[from.index()];
            let mut left: Vec<(usize, Option<usize>, String)> = Vec::new();
            for e in side
                .ids
                .values_mut()
                .filter(|e| e.due > 0 && e.invalid.is_none())
            {
                if e.droppable {
                    e.due = 0;
                    continue;
                }
                let times = if e.due > 1 {
                    format!(" ({} replies missing)", e.due)
                } else {
                    String::new()
                };
                let detail = format!(
                    "request id {} (message {}, {from}) got no reply{times}",
                    e.id, e.message
                );
                left.push((e.message, e.member, detail));
                e.due = 0;
            }
            for null in side.nulls.drain(..) {
                if let Some(e) = null.key.as_ref().and_then(|k| side.ids.get_mut(k)) {
                    e.due = 0;
                }
                if null.optional {
                    continue;
                }
                if null.key.is_some()
                    && let Some(i) = side.lent.iter().position(|m| m.contains(&null.message))
                {
                    side.lent.swap_remove(i);
                    continue;
                }
                let what = if null.parse_error {
                    "unparseable message"
                } else {
                    "invalid request"
                };
                let detail = format!(
                    "the {what} (message {}, {from}) got no error reply",
                    null.message
                );
                left.push((null.message, null.member, detail));
            }
            side.due = 0;
            left.sort();
            out.extend(left.into_iter().map(|(message, member, detail)| Finding {
                message: Some(message),
                ..Finding::new(&r::SESSION_UNANSWERED, member, detail)
            }));
        }
        if let Dialect::Events(cfg) = &self.dialect
            && self.events.ended.is_none()
        {
            let detail = format!(
                "the stream stopped after {} records without {}",
                self.events.records,
                names(&cfg.end)
            );
            out.push(Finding::new(&r::EVENTS_INTERRUPTED, None, detail));
            // Reported once: a second close sees an ended stream.
            self.events.ended = Some((0, "".into()));
        }
        out
    }

    /// How many replies the requests sent `from` one side still await.
    pub fn outstanding(&self, from: Direction) -> usize {
        let side = &self.sides[from.index()];
        // A request that may have had its reply lent to a notification
        // waits for nothing more.
        let pending = |m: &usize| {
            side.nulls
                .iter()
                .any(|n| n.message == *m && n.key.is_some() && !n.optional)
        };
        let lent = side.lent.iter().filter(|l| l.iter().any(pending)).count();
        // Nor does the unterminated tail of a stream.
        let droppable = match side.tails {
            0 => 0,
            _ => side
                .ids
                .values()
                .filter(|e| e.droppable)
                .map(|e| e.due as usize)
                .sum(),
        };
        side.due.saturating_sub(lent + droppable)
            + side
                .nulls
                .iter()
                .filter(|n| n.key.is_none() && !n.optional)
                .count()
    }

    /// Records that a message sent `from` one side may draw a reply with
    /// id null; beyond the window, the oldest such message is given up
    /// (reported unanswered, unless no reply was its due).
    pub(super) fn await_null(&mut self, from: Direction, null: NullSlot, out: &mut Vec<Finding>) {
        let window = self.window;
        let member = null.member;
        let side = &mut self.sides[from.index()];
        side.nulls.push_back(null);
        if window.is_none_or(|n| side.nulls.len() <= n) {
            return;
        }
        let old = side.nulls.pop_front().expect("more than n");
        if let Some(e) = old.key.as_ref().and_then(|k| side.ids.get_mut(k)) {
            side.due -= e.due as usize;
            e.due = 0;
        }
        if old.optional {
            return;
        }
        let detail = format!(
            "the {} (message {old_message}, {from}) got no error reply before {} more awaited one (the session's window)",
            if old.parse_error {
                "unparseable message"
            } else {
                "invalid request"
            },
            window.unwrap_or(0),
            old_message = old.message,
        );
        out.push(Finding::new(&r::SESSION_UNANSWERED, member, detail));
    }
}

/// With a window of `n`: forgets the oldest request `side` sent, reporting
/// it if it still awaits a reply. Entries replaced by a later request with
/// the same id are skipped: their key now belongs to that one.
pub(super) fn forget_oldest(
    side: &mut Side,
    from: Direction,
    n: usize,
    member: Option<usize>,
    out: &mut Vec<Finding>,
) {
    while let Some(slot) = side.ids.pop_oldest() {
        // A request whose entry is another's: the next.
        let Some(e) = slot else { continue };
        if e.due > 0 {
            side.due -= e.due as usize;
            if e.null_too {
                side.nulls.retain(|n| n.key.as_ref() != Some(&e.key));
            }
            let detail = format!(
                "request id {} (message {}, {from}) got no reply before {n} later requests (the session's window)",
                e.id, e.message
            );
            out.push(Finding::new(&r::SESSION_UNANSWERED, member, detail));
        }
        return;
    }
}
