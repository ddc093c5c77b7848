//! Replies: one reply or a batch's array paired with what it answers, its
//! shape checked; and the events of an event-stream dialect.

use super::{
    Dialect, Direction, Finding, Id, IdKind, IdMatch, Key, Kind, NullSlot, ReplyCtx, Session, Side,
    code_text, is_reply, plural, r, settle,
};

impl Session {
    pub(super) fn reply_array(&mut self, from: Direction, kinds: &[Kind], out: &mut Vec<Finding>) {
        let requester = from.reverse();
        let (batch, whole) = self.array_batch(requester, kinds);
        // An array of id-null errors alone that answers no batch whole now
        // may answer one an earlier array was given ([`Session::repair`]).
        if whole.is_none() && self.repair(requester, kinds) {
            return;
        }
        self.settle_array(from, kinds, batch, out);
        if let (Some(b), Some(w)) = (batch, whole) {
            self.remember_array(requester, kinds, b, w);
        }
    }

    /// Pairs each member of an array sent `from` one side with what it
    /// answers, in `batch` first; the array is that batch's whole answer:
    /// what it left out will not come.
    pub(super) fn settle_array(
        &mut self,
        from: Direction,
        kinds: &[Kind],
        batch: Option<usize>,
        out: &mut Vec<Finding>,
    ) {
        let message = self.messages;
        let requester = from.reverse();
        for (i, kind) in kinds.iter().enumerate() {
            let ctx = ReplyCtx {
                array: true,
                batch,
                member: Some(i),
                message,
            };
            if is_reply(kind) || matches!(kind, Kind::Invalid { .. }) {
                self.reply(from, kind, ctx, out);
            }
        }
        let Some(b) = batch else { return };
        // Findings carry member indexes of the message fed (the reply), so
        // the request batch's member indexes go in the detail.
        let side = &mut self.sides[requester.index()];
        let Some(entry) = side.batch(b) else { return };
        let batch_message = entry.message;
        let keys = std::mem::take(&mut entry.keys);
        // A batch read with U+FFFD is answered: not the -32700 its strict
        // reading awaited ([`Session::feed_invalid_utf8`]).
        side.nulls
            .retain(|n| !(n.parse_error && n.batch.is_none() && n.message == batch_message));
        let mut missing: Vec<(Option<usize>, String)> = Vec::new();
        for key in keys {
            if let Some(e) = side.ids.get_mut(&key)
                && e.due > 0
                && e.batch == Some(b)
            {
                side.due -= e.due as usize;
                e.due = 0;
                missing.push((e.member, format!("request id {}", e.id)));
            }
        }
        side.nulls.retain(|n| {
            let keep = n.batch != Some(b);
            if !keep && n.key.is_none() && !n.optional {
                missing.push((n.member, "an invalid request".to_owned()));
            }
            keep
        });
        missing.sort();
        for (member, what) in missing {
            let at = member.map_or(String::new(), |i| format!(" (member {i})"));
            let detail = format!(
                "the reply to the batch of message {batch_message} has nothing for {what}{at}"
            );
            out.push(Finding::new(&r::SESSION_BATCH_REPLY_MISSING, None, detail));
        }
    }

    /// The batch an array sent to `requester` answers, and, when its
    /// id-null errors answer that batch whole, how ([`Whole`]).
    fn array_batch(&self, requester: Direction, kinds: &[Kind]) -> (Option<usize>, Option<Whole>) {
        // The batch this array answers: that of its first member that pairs,
        // else the oldest its id-null errors answer whole, else the oldest
        // with a member that awaits or may draw one.
        let side = &self.sides[requester.index()];
        let mut answered = None;
        let batch = kinds
            .iter()
            .filter_map(|k| k.id().filter(|id| id.kind() != IdKind::Null))
            .find_map(|id| {
                side.ids
                    .get(&id.key())
                    .filter(|e| e.due > 0)
                    .map(|e| e.batch)
            })
            .or_else(|| {
                // An invalid member whose id could be read may still get
                // its reply by that id: one whose could not comes first.
                let in_batch = |optional: bool, keyed: bool| {
                    side.nulls.iter().find(|n| {
                        n.batch.is_some() && n.optional == optional && n.key.is_some() == keyed
                    })
                };
                // First a batch this array's id-null members can answer
                // whole ([`Side::answerable_whole`]), by [`Whole::tier`],
                // then the oldest: a reader answers its batches in turn.
                // Which of several it answered cannot be told yet: the
                // array is remembered, and a later one may take its place
                // ([`Session::repair`]).
                let nulls = kinds
                    .iter()
                    .filter(|k| k.id().is_none_or(|id| id.kind() == IdKind::Null))
                    .count();
                let whole = side.best_whole(nulls);
                answered = whole;
                whole
                    .map(|w| Some(w.batch))
                    .or_else(|| in_batch(false, false).map(|n| n.batch))
                    .or_else(|| in_batch(true, false).map(|n| n.batch))
                    .or_else(|| in_batch(false, true).map(|n| n.batch))
                    .or_else(|| in_batch(true, true).map(|n| n.batch))
                    .flatten()
                    .map(Some)
            })
            .flatten();
        (batch, answered)
    }

    /// Pairs one reply sent `from` one side with a request of the other:
    /// by its id, else (id null) with a message whose id could not be
    /// read, else by an id it was changed into (another type, a rounded
    /// number); one that pairs with nothing answers an unknown id or
    /// answers twice.
    pub(super) fn reply(
        &mut self,
        from: Direction,
        kind: &Kind,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) {
        if self.refusal(from, kind, ctx, out) {
            return;
        }
        let requester = from.reverse();
        let code = match kind {
            Kind::Error { code, .. } => *code,
            _ => None,
        };
        let id = kind.id();
        let key = id.map_or(Key::Null, Id::key);
        if !self.answers_invalid(requester, &key, code, ctx)
            && self.reply_by_id(requester, kind, code, &key, ctx, out)
        {
            return;
        }
        if key == Key::Null && self.reply_id_null(requester, kind, code, ctx, out) {
            return;
        }
        if self.reply_by_changed_id(requester, id, ctx, out) {
            return;
        }
        self.reply_unawaited(requester, id, &key, ctx, out);
    }

    /// Whether an id-null error meaning "invalid" goes to an invalid
    /// message whose id could not be read, before a request whose id
    /// really is null (which is more likely to get a result or -32601);
    /// one whose id could be read may still get its reply by that id.
    #[inline]
    fn answers_invalid(
        &self,
        requester: Direction,
        key: &Key,
        code: Option<i64>,
        ctx: ReplyCtx,
    ) -> bool {
        // Where a null slot would suit this reply: in its batch, or of the
        // same kind (alone, or in an array).
        // A notification with other members only by the -32600 that
        // refuses it.
        let refusal = matches!(code, Some(-32600 | -32700));
        let suits = |n: &NullSlot| (fits(0, n, ctx) || fits(1, n, ctx)) && (!n.optional || refusal);
        *key == Key::Null
            && refusal
            && self.sides[requester.index()]
                .nulls
                .iter()
                .any(|n| suits(n) && n.key.is_none())
    }

    /// Pairs a reply with the request of its id, if one is due: checks
    /// the error code an invalid request awaits, and the reply's shape.
    #[inline]
    fn reply_by_id(
        &mut self,
        requester: Direction,
        kind: &Kind,
        code: Option<i64>,
        key: &Key,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) -> bool {
        let window = self.window;
        let side = &mut self.sides[requester.index()];
        let Some(e) = side.ids.get_mut(key).filter(|e| e.due > 0) else {
            return false;
        };
        // An absent id reaches here only for a pending request whose id
        // is null; it is reported by `classify` (`response.id-missing`).
        if let Some(id) = kind.id()
            && e.id.compare(id) == IdMatch::SameValue
        {
            let rule = match e.id.kind() {
                IdKind::Number => &r::SESSION_ID_NUMBER_TEXT,
                _ => &r::SESSION_ID_STRING_TEXT,
            };
            let detail = format!("reply id {id} answers request id {}", e.id);
            out.push(Finding::new(rule, ctx.member, detail));
        }
        self.in_kind |= e.versionless;
        // An invalid reply's own findings say what is wrong with it.
        let usable = !matches!(kind, Kind::Invalid { .. });
        if let Some(want) = e.invalid {
            if code != Some(want) && usable {
                let what = if want == -32700 {
                    "unparseable message"
                } else {
                    "invalid request"
                };
                let detail = format!("the {what} got {}, not {want}", code_text(kind));
                out.push(Finding::new(
                    &r::SESSION_ERROR_CODE_MEANING,
                    ctx.member,
                    detail,
                ));
            }
        } else if code == Some(-32700) {
            out.push(Finding::new(
                &r::SESSION_ERROR_CODE_MEANING,
                ctx.member,
                "a request that parsed got -32700",
            ));
        }
        let batch = e.batch;
        // A line read with U+FFFD, answered as read: not the -32700.
        if e.lossy {
            let line = e.message;
            side.nulls
                .retain(|n| !(n.message == line && n.parse_error && n.key.is_none()));
        }
        // An id sent again while its first request was unanswered
        // (the sender's fault: `session.id-reused`): which of them
        // a reply answers, alone or in a batch, cannot be told.
        let reused = e.reused;
        e.record(ctx.reply(), window);
        self.settled.push(e.message);
        e.due -= 1;
        side.due -= 1;
        if e.due == 0 && e.null_too {
            side.nulls.retain(|n| n.key.as_ref() != Some(key));
        }
        if !reused {
            self.check_shape(requester, batch, ctx, out);
        }
        true
    }

    /// Pairs a reply with id null: with the message awaiting one that
    /// fits it best, else with what carried no message; else it is a
    /// reply to a notification, or a duplicate. `false`: none of these.
    #[inline]
    fn reply_id_null(
        &mut self,
        requester: Direction,
        kind: &Kind,
        code: Option<i64>,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) -> bool {
        if let Some(i) = self.null_slot_for(requester, code, ctx) {
            self.answer_null_slot(requester, i, kind, code, ctx, out);
            return true;
        }
        let side = &mut self.sides[requester.index()];
        // What carried no message may draw an id-null reply.
        if side.unframed > 0 && !ctx.array {
            side.unframed -= 1;
            return true;
        }
        let in_batch = ctx
            .batch
            .and_then(|b| side.batch(b))
            .map_or(0, |b| b.notifications);
        if in_batch > 0 || side.notifications > 0 {
            let detail = if in_batch > 0 {
                format!(
                    "a reply with id null, but no invalid member awaits one and the batch holds {}",
                    plural(in_batch, "notification")
                )
            } else {
                format!(
                    "a reply with id null, but no invalid request awaits one and the other side sent {}",
                    plural(side.notifications, "notification")
                )
            };
            out.push(Finding::new(
                &r::SESSION_REPLY_TO_NOTIFICATION,
                ctx.member,
                detail,
            ));
            return true;
        }
        if side.nulls_answered > 0 && !side.ids.contains_key(&Key::Null) {
            let detail = format!(
                "a reply with id null, but the {} awaiting one {} answered",
                plural(side.nulls_answered, "invalid message"),
                if side.nulls_answered == 1 {
                    "was already"
                } else {
                    "were all already"
                }
            );
            out.push(Finding::new(
                &r::SESSION_DUPLICATE_REPLY,
                ctx.member,
                detail,
            ));
            return true;
        }
        false
    }

    /// The null slot (its index) an id-null reply with `code` answers.
    #[inline]
    fn null_slot_for(
        &self,
        requester: Direction,
        code: Option<i64>,
        ctx: ReplyCtx,
    ) -> Option<usize> {
        let side = &self.sides[requester.index()];
        let refusal = matches!(code, Some(-32600 | -32700));
        // Best fit first; within a fit, a message whose id could not be
        // read, since one with a readable id may still get its reply
        // by that id.
        let nulls = &side.nulls;
        // Within a fit: a message whose id could not be read awaiting
        // this very code, then one that may draw it (a notification
        // with other members, refused by -32600), then one whose id
        // could not be read awaiting another code, then those whose id
        // could be read (they may still get their reply by it).
        let want = |n: &NullSlot| Some(if n.parse_error { -32700 } else { -32600 });
        // One whose id could be read and that may have been answered
        // already (an earlier id-null error went to a notification
        // that may draw it: `lent`) comes after one that cannot have.
        let lent = |n: &NullSlot| side.lent.iter().any(|m| m.contains(&n.message));
        // A request that may draw one (an `rpc.` method) comes after
        // those that await one: it may still be answered by its id.
        let classes: [&dyn Fn(&NullSlot) -> bool; 9] = [
            &|n| !n.optional && n.key.is_none() && want(n) == code,
            &|n| n.optional && n.key.is_none() && want(n) == code,
            &|n| !n.optional && n.key.is_none(),
            &|n| !n.optional && want(n) == code && !lent(n),
            &|n| !n.optional && want(n) == code,
            &|n| n.optional && n.key.is_none() && refusal,
            &|n| n.optional && refusal,
            &|n| !n.optional && !lent(n),
            &|n| !n.optional,
        ];
        (0..3).find_map(|tier| {
            classes
                .iter()
                .find_map(|class| nulls.iter().position(|n| fits(tier, n, ctx) && class(n)))
        })
    }

    /// Answers null slot `i` with an id-null reply: settles what it
    /// awaited and checks the error code it awaited, and the shape.
    #[inline]
    fn answer_null_slot(
        &mut self,
        requester: Direction,
        i: usize,
        kind: &Kind,
        code: Option<i64>,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) {
        let window = self.window;
        let side = &mut self.sides[requester.index()];
        // Given to a notification that may draw it, it may as well
        // answer an invalid request whose id could be read.
        if side.nulls[i].optional {
            let fit = (0..3).find(|&tier| fits(tier, &side.nulls[i], ctx));
            let keyed: Vec<usize> = side
                .nulls
                .iter()
                .filter(|n| !n.optional && n.key.is_some())
                .filter(|n| fit.is_some_and(|tier| fits(tier, n, ctx)))
                .map(|n| n.message)
                .collect();
            if !keyed.is_empty() {
                side.lent.push(keyed);
            }
        }
        let null = side.nulls.remove(i).expect("picked from nulls");
        side.nulls_answered += 1;
        self.settled.push(null.message);
        if let Some(k) = &null.key {
            if let Some(e) = side.ids.get_mut(k) {
                e.record(ctx.reply(), window);
                self.in_kind |= e.versionless;
            }
            settle(side, k);
        }
        self.in_kind |= null.versionless;
        let want = if null.parse_error { -32700 } else { -32600 };
        // An invalid reply's own findings say what is wrong with it.
        if code != Some(want) && !matches!(kind, Kind::Invalid { .. }) {
            let what = if null.parse_error {
                "unparseable message"
            } else {
                "invalid request"
            };
            out.push(Finding::new(
                &r::SESSION_ERROR_CODE_MEANING,
                ctx.member,
                format!("the {what} got {}, not {want}", code_text(kind)),
            ));
        }
        self.check_shape(requester, null.batch, ctx, out);
    }

    /// Pairs a reply with a due request whose id it changed: a number
    /// sent as a string or the other way round, or an id beyond 64 bits
    /// echoed as the nearest double.
    #[inline]
    fn reply_by_changed_id(
        &mut self,
        requester: Direction,
        id: Option<&Id>,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) -> bool {
        let window = self.window;
        let side = &mut self.sides[requester.index()];
        let shown = id.map_or("null", Id::raw);
        if let Some(swapped) = id.and_then(Id::swapped_key)
            && let Some(e) = side.ids.get_mut(&swapped)
            && e.due > 0
        {
            out.push(Finding::new(
                &r::SESSION_ID_TYPE_CHANGED,
                ctx.member,
                format!("reply id {shown} answers request id {}", e.id),
            ));
            e.record(ctx.reply(), window);
            self.settled.push(e.message);
            settle(side, &swapped);
            return true;
        }
        // An id beyond 64 bits, echoed as the nearest double: RFC 8259 §9
        // lets a parser limit the range and precision of numbers.
        let rounded = id.and_then(|id| {
            let e = side
                .ids
                .values_mut()
                .find(|e| e.due > 0 && id.is_rounded(&e.id))?;
            Some(e.key.clone())
        });
        if let Some(rounded) = rounded
            && let Some(e) = side.ids.get_mut(&rounded)
        {
            out.push(Finding::new(
                &r::SESSION_ID_NUMBER_TEXT,
                ctx.member,
                format!(
                    "reply id {shown} answers request id {}, beyond 64 bits, rounded to the nearest \
                     double (RFC 8259 §9 lets a parser limit the precision of numbers)",
                    e.id
                ),
            ));
            e.record(ctx.reply(), window);
            self.settled.push(e.message);
            settle(side, &rounded);
            return true;
        }
        false
    }

    /// Reports a reply that no request awaits: an unknown id, one
    /// answered already, or the one reply a cancel lets cross it.
    #[inline]
    fn reply_unawaited(
        &mut self,
        requester: Direction,
        id: Option<&Id>,
        key: &Key,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) {
        let window = self.window;
        let side = &mut self.sides[requester.index()];
        let shown = id.map_or("null", Id::raw);
        let Some(e) = side.ids.get_mut(key) else {
            out.push(Finding::new(
                &r::SESSION_UNKNOWN_ID,
                ctx.member,
                format!("no request with id {shown} awaits a reply"),
            ));
            return;
        };
        e.record(ctx.reply(), window);
        if e.cancelled {
            self.settled.push(e.message);
            // One reply may cross the cancel; a second is a duplicate.
            e.cancelled = false;
            out.push(Finding::new(
                &r::CLAUDE_REPLY_AFTER_CANCEL,
                ctx.member,
                format!("request id {shown} was cancelled"),
            ));
        } else {
            let detail = format!(
                "request id {shown} (message {}) was already answered",
                e.message
            );
            out.push(Finding::new(
                &r::SESSION_DUPLICATE_REPLY,
                ctx.member,
                detail,
            ));
        }
    }

    /// Reports a batch answered with single objects, or a single request
    /// answered inside an array.
    pub(super) fn check_shape(
        &mut self,
        requester: Direction,
        batch: Option<usize>,
        ctx: ReplyCtx,
        out: &mut Vec<Finding>,
    ) {
        match (batch, ctx.array) {
            (Some(b), false) => {
                let Some(batch) = self.sides[requester.index()].batch(b) else {
                    return;
                };
                if !batch.unwrapped {
                    batch.unwrapped = true;
                    let detail = format!(
                        "a reply to the batch of message {} came as a single object",
                        batch.message
                    );
                    out.push(Finding::new(
                        &r::SESSION_BATCH_REPLY_ARRAY,
                        ctx.member,
                        detail,
                    ));
                }
            }
            (None, true) => {
                let detail = "a reply to a request sent alone came inside an array".to_owned();
                out.push(Finding::new(
                    &r::SESSION_SINGLE_REPLY_OBJECT,
                    ctx.member,
                    detail,
                ));
            }
            _ => {}
        }
    }

    pub(super) fn event(&mut self, kind: &Kind, out: &mut Vec<Finding>) {
        let Dialect::Events(cfg) = &self.dialect else {
            return;
        };
        let state = &mut self.events;
        state.records += 1;
        let n = state.records;
        if let Some((end_at, end)) = &state.ended {
            let detail = format!("record {n} follows the end record `{end}` (record {end_at})");
            out.push(Finding::new(&r::EVENTS_AFTER_END, None, detail));
            return;
        }
        let Kind::Event { name } = kind else { return };
        if let (1, Some(start)) = (n, &cfg.start)
            && **name != **start
        {
            out.push(Finding::new(
                &r::EVENTS_START,
                None,
                format!("the first record is `{name}`, not `{start}`"),
            ));
        }
        if cfg.end.iter().any(|e| **e == **name) {
            state.ended = Some((n, name.clone()));
        }
    }
}

/// Whether null slot `n` suits a reply at `ctx` by fit `tier`: 0, in
/// the reply's batch; 1, of the same kind (alone, or in an array); 2, any.
#[inline]
fn fits(tier: u8, n: &NullSlot, ctx: ReplyCtx) -> bool {
    match tier {
        0 => ctx.batch.is_some() && n.batch == ctx.batch,
        1 => n.batch.is_none() != ctx.array,
        _ => true,
    }
}

/// A batch an array of id-null errors, pairing none of its ids, can
/// answer whole: the array holds a reply to each request of the batch
/// still due (here by id null) and an error to each member whose id could
/// not be read, and no more than the batch may draw.
#[derive(Debug, Clone, Copy)]
pub(super) struct Whole {
    pub(super) batch: usize,
    /// How many of the array's errors the batch awaits.
    pub(super) awaited: usize,
    /// How many of the array's errors it may draw at most.
    pub(super) may: usize,
    /// How many of those go to members whose id could not be read.
    unkeyed: usize,
}

impl Whole {
    /// Which such batch an array goes to first (the lowest, then the
    /// oldest): 0, one whose members awaiting the errors can get no other
    /// reply; 1, one that only may draw them; 2, one with invalid requests
    /// whose ids could be read, which may yet be answered by id.
    pub(super) fn tier(&self) -> u8 {
        match self.awaited {
            0 => 1,
            n if n == self.unkeyed => 0,
            _ => 2,
        }
    }
}

impl Side {
    /// The batches, oldest first, that an array of `nulls` id-null errors
    /// can answer whole ([`Whole`]).
    pub(super) fn answerable_whole(&self, nulls: usize) -> Vec<Whole> {
        self.null_batches()
            .into_iter()
            .filter_map(|b| self.answers_whole(b, nulls))
            .collect()
    }

    /// The batch an array of `nulls` id-null errors goes to of those it
    /// answers whole: by [`Whole::tier`], then the oldest.
    pub(super) fn best_whole(&self, nulls: usize) -> Option<Whole> {
        let fits = self.answerable_whole(nulls);
        (0..3).find_map(|tier| fits.iter().find(|w| w.tier() == tier).copied())
    }

    /// The batches with members still awaiting id-null errors, oldest
    /// first.
    pub(super) fn null_batches(&self) -> Vec<usize> {
        let mut batches: Vec<usize> = Vec::new();
        for b in self.nulls.iter().filter_map(|n| n.batch) {
            if !batches.contains(&b) {
                batches.push(b);
            }
        }
        batches
    }

    /// Batch `b` as an array of `nulls` id-null errors answers it whole;
    /// `None`: it does not fit, or a request of it only its id can answer.
    pub(super) fn answers_whole(&self, b: usize, nulls: usize) -> Option<Whole> {
        let mut due = 0;
        for e in self.ids.values() {
            // (A request of a batch read with U+FFFD, or of a tail, is
            // owed nothing, unless the batch is answered: then it was read.)
            if e.batch != Some(b) || e.due == 0 {
                continue;
            }
            if !self.nulls.iter().any(|n| n.key.as_ref() == Some(&e.key)) {
                return None;
            }
            due += 1;
        }
        let of = self.nulls.iter().filter(|n| n.batch == Some(b));
        let may = of.clone().count();
        let unkeyed = of.filter(|n| !n.optional && n.key.is_none()).count();
        let awaited = due + unkeyed;
        (awaited <= nulls && nulls <= may).then_some(Whole {
            batch: b,
            awaited,
            may,
            unkeyed,
        })
    }
}
