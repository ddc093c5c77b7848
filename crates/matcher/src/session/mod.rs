//! Pair replies with requests across a whole conversation.

use std::collections::VecDeque;
use std::fmt;

use crate::classify::{Classified, Finding, Kind, Shape, classify};
use crate::dialect::Dialect;
use crate::id::{Id, IdKind, IdMatch, Key};
use crate::limits::Limit;
use crate::rules as r;

mod arrays;
mod readings;
mod refusal;
mod reply;
mod table;
mod unanswered;

use readings::breaks;
use table::Table;
use unanswered::forget_oldest;

/// Who sent a message.
///
/// Not `#[non_exhaustive]`: a conversation has two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the client (the side that starts the conversation) to the server.
    ClientToServer,
    /// From the server to the client.
    ServerToClient,
}

impl Direction {
    /// The other direction.
    pub fn reverse(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::ClientToServer => "client to server",
            Direction::ServerToClient => "server to client",
        })
    }
}

/// Where a reply came: which message fed to the session, and which member
/// of it if it was a batch.
///
/// Not `#[non_exhaustive]`: callers build one to compare with
/// [`Session::replies`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reply {
    /// The number of the message it came in (the first message fed is 1).
    pub message: usize,
    /// Its index in that message, if the message was a batch.
    pub member: Option<usize>,
}

/// A conversation between a client and a server, fed message by message in
/// the order each side sent them.
///
/// The session pairs every reply with its request by id, in both directions
/// (servers send requests too: MCP sampling, Codex approvals, Claude's
/// `can_use_tool`), and reports what does not pair. It does no I/O and reads
/// no clock: "no reply yet" becomes a finding only at [`Session::close`].
///
/// ```
/// use rpcspec_matcher::{Dialect, Direction::*, Id, Reply, Session};
///
/// let mut session = Session::new(Dialect::Jsonrpc2);
/// session.feed(ClientToServer, r#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}"#);
/// session.feed(ClientToServer, r#"{"jsonrpc":"2.0","method":"ping","id":2}"#);
/// let reply = session.feed(ServerToClient, r#"{"jsonrpc":"2.0","result":3,"id":1.0}"#);
/// assert_eq!(reply.findings[0].rule.id, "session.id-number-text");
/// let id = Id::parse("1").unwrap();
/// assert_eq!(session.replies(ClientToServer, &id).collect::<Vec<_>>(), [&Reply { message: 3, member: None }]);
/// assert_eq!(session.outstanding(ClientToServer), 1);
/// let unanswered = session.close();
/// assert_eq!(unanswered[0].rule.id, "session.unanswered");
/// ```
///
/// # How replies are matched
///
/// * A reply pairs with an outstanding request from the other side whose id
///   has the same value ([`Id::compare`]); different text for the same value
///   is reported (`session.id-number-text`, `session.id-string-text`).
/// * A message that is not a valid request (unparseable JSON, `[]`,
///   `{"foo":"boo"}`, a request with a bad `method`) awaits one error reply
///   with `id` null (`-32700` for unparseable JSON, else `-32600`); if it
///   carried a readable id, a reply with that id also answers it. Only
///   messages the client sends are held to this, plus malformed requests
///   (objects with `method`) from the server: a server printing garbage is
///   reported by `classify`, and no client is expected to answer it.
/// * A reply with id null that no invalid request awaits is a reply to a
///   notification if the other side has sent any, else an unknown id;
///   unless bytes that carried no message ([`Session::unframed`]) may draw
///   it.
/// * A batch reply is matched to the batch of its first paired member; the
///   members of that batch it leaves out are reported at once, since the one
///   array is the whole answer.
/// * Every id each side used is remembered until the session is dropped
///   (to tell a duplicate reply from an unknown id, and for MCP's no-reuse
///   rule), with where its replies came, for [`Session::replies`] — unless
///   the session has a [window](Session::window), which bounds its memory
///   for conversations of any length.
#[derive(Debug)]
pub struct Session {
    dialect: Dialect,
    /// Indexed by [`Direction::index`]: the requests that side sent.
    sides: [Side; 2],
    messages: usize,
    events: EventsState,
    /// How many requests (and invalid messages, and batches) of each side
    /// are remembered; `None`: all of them.
    window: Option<usize>,
    /// What the message last fed settled ([`Session::settled`]).
    settled: Vec<usize>,
    /// Whether a message whose id cannot be read may go unanswered
    /// ([`Session::silent_to_unreadable`]).
    unreadable_silent: bool,
    /// The message last fed answered a request that had no `jsonrpc`
    /// member: a reply without one is answered in kind.
    in_kind: bool,
    /// The message being fed ended its stream without its terminator
    /// ([`Session::feed_unterminated`]).
    tail: bool,
}

#[derive(Debug, Default)]
struct Side {
    /// Every request this side sent (as far as the window reaches), and
    /// the latest of each id by its value.
    ids: Table,
    /// Invalid requests awaiting an error reply with id null.
    nulls: VecDeque<NullSlot>,
    /// Replies still due, over `ids` (the `nulls` with a key are counted there).
    due: usize,
    notifications: usize,
    /// Invalid requests answered with id null so far.
    nulls_answered: usize,
    /// For each -32600 with id null given to an optional slot while
    /// invalid requests with a readable id awaited one too: those
    /// requests' messages. Either may have been what it answered; one of
    /// them left unanswered at the end takes it back.
    lent: Vec<Vec<usize>>,
    /// The batches still remembered; `batches[0]` is batch number
    /// `first_batch`.
    batches: VecDeque<Batch>,
    first_batch: usize,
    /// Messages beyond an implementation limit, which one error reply may
    /// answer as a whole, oldest first.
    refusable: VecDeque<Refusable>,
    /// Bytes that carried no message ([`Session::unframed`]), each of
    /// which may draw one reply with id null.
    unframed: usize,
    /// How many requests were fed as an unterminated tail
    /// ([`Entry::droppable`]).
    tails: usize,
    /// The latest arrays of id-null errors alone that answered a batch
    /// whole, and which one ([`arrays`]).
    arrays: VecDeque<arrays::Given>,
}

/// What a message that is not a reply may draw besides a reply by its id.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// It does not parse: an id-null -32700.
    parse_error: bool,
    /// One reading of the spec answers it with an id-null error and
    /// another with nothing ([`Session::may_go_unanswered`]).
    optional: bool,
    /// It has no `jsonrpc` member: a JSON-RPC 1.0 reader's request, whose
    /// reply has none either.
    versionless: bool,
}

/// A message beyond a limit and what it awaits.
#[derive(Debug)]
struct Refusable {
    message: usize,
    limit: Limit,
    /// The ids of its requests (and of invalid members with a readable id).
    keys: Vec<Key>,
    /// Its invalid members awaiting an id-null reply.
    nulls: usize,
    batch: Option<usize>,
}

/// At most this many messages beyond a limit await a refusal at once.
const REFUSABLE: usize = 256;

impl Side {
    fn batch(&mut self, b: usize) -> Option<&mut Batch> {
        b.checked_sub(self.first_batch)
            .and_then(|i| self.batches.get_mut(i))
    }
}

/// The latest request sent with one id.
#[derive(Debug)]
struct Entry {
    id: Id,
    /// `id`'s value.
    key: Key,
    message: usize,
    member: Option<usize>,
    batch: Option<usize>,
    /// Replies still due: more than one when the id was reused, 0 once
    /// answered or cancelled.
    due: u32,
    /// Invalid, but with a readable id: a reply with id null also answers
    /// it; the code that error should have (-32600, or -32700 for what
    /// does not parse).
    invalid: Option<i64>,
    /// A reply with id null may answer it too: it is invalid, or a reader
    /// may refuse it as invalid (an `rpc.` method).
    null_too: bool,
    /// The request had no `jsonrpc` member ([`Slot::versionless`]).
    versionless: bool,
    /// It came in the unterminated tail of the stream
    /// ([`Session::feed_unterminated`]): its reply may never come.
    droppable: bool,
    /// The id of a line that is not UTF-8, read with U+FFFD
    /// ([`Session::feed_invalid_utf8`]): a reply to it answers that line.
    lossy: bool,
    /// Its id was sent again while it awaited its reply: which request a
    /// reply answers, alone or in a batch, cannot be told.
    reused: bool,
    cancelled: bool,
    /// Where its replies came. The first is kept inline: most get one.
    first: Option<Reply>,
    more: Vec<Reply>,
}

impl Entry {
    fn record(&mut self, reply: Reply, window: Option<usize>) {
        match self.first {
            None => self.first = Some(reply),
            Some(_) if window.is_some_and(|n| self.more.len() + 1 >= n) => {}
            Some(_) => self.more.push(reply),
        }
    }
}

#[derive(Debug)]
struct NullSlot {
    parse_error: bool,
    /// A message one reading answers and another does not
    /// ([`Session::may_go_unanswered`]): an id-null error may refuse it,
    /// or nothing come; it is never unanswered.
    optional: bool,
    batch: Option<usize>,
    /// The entry of an invalid request whose id was readable.
    key: Option<Key>,
    /// The message had no `jsonrpc` member ([`Slot::versionless`]).
    versionless: bool,
    /// Read strictly, it awaits this reply, though another reading lets it
    /// go unanswered (a line that is not UTF-8, read with U+FFFD as a
    /// notification).
    strict: bool,
    message: usize,
    member: Option<usize>,
}

impl NullSlot {
    /// A message that only may draw an id-null -32600 (a reader may refuse
    /// it, or say nothing): never unanswered.
    fn may_draw(
        batch: Option<usize>,
        key: Option<Key>,
        message: usize,
        member: Option<usize>,
    ) -> NullSlot {
        NullSlot {
            versionless: false,
            strict: false,
            parse_error: false,
            optional: true,
            batch,
            key,
            message,
            member,
        }
    }
}

#[derive(Debug)]
struct Batch {
    message: usize,
    notifications: usize,
    /// The ids of its requests.
    keys: Vec<Key>,
    /// Replies arrived as single objects; reported once.
    unwrapped: bool,
}

#[derive(Debug, Default)]
struct EventsState {
    records: usize,
    /// The record number and type of the end record.
    ended: Option<(usize, crate::Text)>,
}

/// Where a reply sits: in a reply array answering `batch`, or alone.
#[derive(Clone, Copy)]
struct ReplyCtx {
    array: bool,
    batch: Option<usize>,
    member: Option<usize>,
    message: usize,
}

impl ReplyCtx {
    fn reply(self) -> Reply {
        Reply {
            message: self.message,
            member: self.member,
        }
    }
}

impl Session {
    /// A session with nothing sent yet.
    pub fn new(dialect: Dialect) -> Session {
        Session {
            dialect,
            sides: Default::default(),
            messages: 0,
            events: EventsState::default(),
            window: None,
            settled: Vec::new(),
            unreadable_silent: false,
            in_kind: false,
            tail: false,
        }
    }

    /// Bounds the session's memory: of each side, only the latest `n`
    /// requests, `n` invalid messages awaiting an id-null reply and `n`
    /// batches are remembered. A request that falls out of the window
    /// unanswered is reported then (`session.unanswered`, saying so); a
    /// reply to one that fell out is a reply to an unknown id; where the
    /// replies to a request came ([`Session::replies`]) is kept for at
    /// most `n` of them. Memory then depends on `n` (and on the length of
    /// ids), never on the length of the conversation.
    pub fn window(mut self, n: usize) -> Session {
        self.window = Some(n.max(1));
        self
    }

    /// The dialect the session checks.
    pub fn dialect(&self) -> &Dialect {
        &self.dialect
    }

    /// Classifies one message sent `from` one side and pairs it with what
    /// came before. The findings are those of [`classify`](crate::classify)
    /// followed by those about pairing. In the `events` dialect only what the
    /// server sends is checked: the profile describes a producer's records,
    /// not its input.
    pub fn feed(&mut self, from: Direction, text: &str) -> Classified {
        let classified = classify(text, &self.dialect);
        self.feed_classified(from, classified)
    }

    /// Tells the session that `from` sent bytes no reader can take as a
    /// message (a damaged Content-Length frame, a body cut short): the
    /// other side may answer them with one reply whose id is null, or not
    /// at all; either is no finding.
    pub fn unframed(&mut self, from: Direction) {
        let side = &mut self.sides[from.index()];
        side.unframed = side.unframed.saturating_add(1);
    }

    /// [`feed`](Session::feed) for a message already
    /// [classified](crate::classify) in this session's dialect, for callers
    /// that look at the classification first (to tell its direction, say).
    pub fn feed_classified(&mut self, from: Direction, mut classified: Classified) -> Classified {
        self.messages += 1;
        self.settled.clear();
        self.in_kind = false;
        let mut out = Vec::new();
        match self.dialect {
            // The profile describes the records a producer writes; what it
            // is sent (a prompt, say) is its own business.
            Dialect::Events(_) if from == Direction::ClientToServer => classified.findings.clear(),
            Dialect::Events(_) => self.event(&classified.kind, &mut out),
            _ => {
                self.pair(from, &classified, &mut out);
                if let Some(limit) = classified.limit {
                    self.refusable(from, &classified.kind, limit);
                }
            }
        }
        self.answered_in_kind(&mut classified);
        classified.findings.append(&mut out);
        classified
    }

    /// The requests the message last fed answered (or, a cancel,
    /// withdrew), by the numbers of their messages: what it pairs with.
    pub fn settled(&self) -> &[usize] {
        &self.settled
    }

    /// The request sent `from` one side with this id (compared by value)
    /// that awaits a reply, by the number of its message (the first fed is
    /// 1): a reply read now would pair with it.
    pub fn awaiting(&self, from: Direction, id: &Id) -> Option<usize> {
        self.sides[from.index()]
            .ids
            .get(&id.key())
            .filter(|e| e.due > 0)
            .map(|e| e.message)
    }

    /// Where the replies to the latest request sent `from` one side with
    /// this id (compared by value) came, in order: none if no reply came or
    /// no such request was sent. Replies to invalid requests without a
    /// readable id are not indexed: they are the id-null replies `feed`
    /// returns.
    pub fn replies(&self, from: Direction, id: &Id) -> impl Iterator<Item = &Reply> {
        let entry = self.sides[from.index()].ids.get(&id.key());
        entry
            .into_iter()
            .flat_map(|e| e.first.iter().chain(&e.more))
    }

    fn pair(&mut self, from: Direction, c: &Classified, out: &mut Vec<Finding>) {
        let message = self.messages;
        let alone = ReplyCtx {
            array: false,
            batch: None,
            member: None,
            message,
        };
        match &c.kind {
            Kind::Batch(kinds) => {
                let requests = kinds.iter().filter(|k| is_request(k)).count();
                let replies = kinds.iter().filter(|k| is_reply(k)).count();
                if requests == 0 && (replies > 0 || from == Direction::ServerToClient) {
                    self.reply_array(from, kinds, out);
                    return;
                }
                let window = self.window;
                let side = &mut self.sides[from.index()];
                side.batches.push_back(Batch {
                    message,
                    notifications: 0,
                    keys: Vec::new(),
                    unwrapped: false,
                });
                if window.is_some_and(|n| side.batches.len() > n) {
                    side.batches.pop_front();
                    side.first_batch += 1;
                }
                let b = side.first_batch + side.batches.len() - 1;
                for (i, kind) in kinds.iter().enumerate() {
                    if is_reply(kind) {
                        let ctx = ReplyCtx {
                            member: Some(i),
                            ..alone
                        };
                        self.reply(from, kind, ctx, out);
                    } else {
                        let slot = Slot {
                            parse_error: false,
                            optional: self.may_go_unanswered(c, kind, Some(i)),
                            versionless: breaks(c, &r::MESSAGE_JSONRPC_VERSION, Some(i)),
                        };
                        self.request(from, kind, slot, Some(b), Some(i), out);
                    }
                }
            }
            kind if is_reply(kind) => self.reply(from, kind, alone, out),
            Kind::Cancel { id } => {
                let side = &mut self.sides[from.index()];
                let key = id.key();
                if let Some(e) = side.ids.get_mut(&key)
                    && e.due > 0
                {
                    side.due -= e.due as usize;
                    e.due = 0;
                    e.cancelled = true;
                    self.settled.push(e.message);
                    // Nor is its id-null error due, if it was invalid.
                    side.nulls.retain(|n| n.key.as_ref() != Some(&key));
                }
            }
            Kind::Invalid {
                shape: Shape::Other,
                ..
            } if from == Direction::ServerToClient => {}
            kind => {
                let slot = Slot {
                    parse_error: c.breaks(r::JSON_PARSE.id),
                    optional: self.may_go_unanswered(c, kind, None),
                    versionless: breaks(c, &r::MESSAGE_JSONRPC_VERSION, None),
                };
                self.request(from, kind, slot, None, None, out);
            }
        }
    }

    /// Registers what a request, notification or invalid message sent `from`
    /// one side awaits.
    fn request(
        &mut self,
        from: Direction,
        kind: &Kind,
        slot: Slot,
        batch: Option<usize>,
        member: Option<usize>,
        out: &mut Vec<Finding>,
    ) {
        let claude = self.dialect == Dialect::Claude;
        let message = self.messages;
        match kind {
            // With `silent_to_unreadable` (Codex), a request whose id is no
            // string or integer is one whose id cannot be read: it is owed
            // nothing, yet a reader that reads it anyway may answer it by
            // that id (an entry the session owes nothing for, a tail's), or
            // refuse it with an id-null error.
            Kind::Request { id, .. }
                if self.unreadable_silent && (id.kind() == IdKind::Null || id.is_fractional()) =>
            {
                self.expect_owed_nothing(from, id, None, slot.versionless, batch, member, out);
                if id.kind() != IdKind::Null {
                    let null = NullSlot::may_draw(batch, None, message, member);
                    self.await_null(from, null, out);
                }
            }
            Kind::Request { id, .. } => {
                self.expect(from, id, None, slot.versionless, batch, member, out);
                // A reserved `rpc.` method may be refused as an invalid
                // request, with id null ([`Session::may_go_unanswered`]).
                let key = id.key();
                let side = &mut self.sides[from.index()];
                if slot.optional
                    && !claude
                    && let Some(e) = side.ids.get_mut(&key)
                {
                    e.null_too = true;
                    let null = NullSlot::may_draw(batch, Some(key), message, member);
                    self.await_null(from, null, out);
                }
            }
            Kind::Notification { .. } => {
                let side = &mut self.sides[from.index()];
                side.notifications += 1;
                if let Some(b) = batch.and_then(|b| side.batch(b)) {
                    b.notifications += 1;
                }
                // Read strictly, an invalid request: it may draw one
                // -32600 with id null (as many as the window holds).
                if (slot.optional || self.tail) && !claude {
                    let null = NullSlot::may_draw(batch, None, message, member);
                    self.await_null(from, null, out);
                }
            }
            // Claude has no id-null error replies: a malformed control
            // request with a readable id still awaits its control response.
            Kind::Invalid {
                shape: Shape::Request,
                id: Some(id),
            } if claude => self.expect(from, id, None, false, batch, member, out),
            Kind::Invalid { .. } if claude => {}
            Kind::Invalid { id, .. } => {
                // With `silent_to_unreadable` (Codex), only a string or an
                // integer is an id: its `RequestId` holds no `1.5`.
                let readable = id.as_ref().filter(|id| {
                    id.kind() != IdKind::Null && !(self.unreadable_silent && id.is_fractional())
                });
                let want = if slot.parse_error { -32700 } else { -32600 };
                let key = readable.map(|id| {
                    self.expect(from, id, Some(want), slot.versionless, batch, member, out);
                    id.key()
                });
                // A reader that reads `1.5` anyway may answer by it, as for a
                // request (above): an entry owed nothing.
                if let Some(id) = id
                    .as_ref()
                    .filter(|id| readable.is_none() && id.is_fractional())
                {
                    let versionless = slot.versionless;
                    self.expect_owed_nothing(from, id, Some(want), versionless, batch, member, out);
                }
                let null = NullSlot {
                    versionless: slot.versionless,
                    strict: false,
                    parse_error: slot.parse_error,
                    optional: (slot.optional && key.is_none()) || self.tail,
                    batch,
                    key,
                    message,
                    member,
                };
                self.await_null(from, null, out);
            }
            Kind::Success { .. }
            | Kind::Error { .. }
            | Kind::Cancel { .. }
            | Kind::Event { .. }
            | Kind::Batch(_) => {}
        }
    }

    /// [`Session::expect`] for a request the session owes nothing for, as
    /// it does a tail's ([`Entry::droppable`]): a reply by its id answers
    /// it, and none is no finding.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn expect_owed_nothing(
        &mut self,
        from: Direction,
        id: &Id,
        invalid: Option<i64>,
        versionless: bool,
        batch: Option<usize>,
        member: Option<usize>,
        out: &mut Vec<Finding>,
    ) {
        let tail = std::mem::replace(&mut self.tail, true);
        self.expect(from, id, invalid, versionless, batch, member, out);
        self.tail = tail;
    }

    /// Records that a request with `id` sent `from` one side awaits a reply;
    /// `invalid`: the code of the id-null error that may answer it instead.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn expect(
        &mut self,
        from: Direction,
        id: &Id,
        invalid: Option<i64>,
        versionless: bool,
        batch: Option<usize>,
        member: Option<usize>,
        out: &mut Vec<Finding>,
    ) {
        let mcp = self.dialect == Dialect::Mcp;
        let message = self.messages;
        let key = id.key();
        let window = self.window;
        let side = &mut self.sides[from.index()];
        if let Some(b) = batch.and_then(|b| side.batch(b)) {
            b.keys.push(key.clone());
        }
        if let Some(n) = window
            && side.ids.len() >= n
        {
            forget_oldest(side, from, n, member, out);
        }
        side.due += 1;
        side.tails += usize::from(self.tail);
        // An id only a line read with U+FFFD, or a tail, may have carried
        // is given up to a request that surely carries it.
        if let Some(e) = side.ids.get_mut(&key)
            && e.due > 0
            && e.droppable
            && !self.tail
        {
            side.due -= e.due as usize;
            e.due = 0;
        }
        let held = match side.ids.get_mut(&key) {
            Some(e) if e.due > 0 => {
                let rule = if mcp {
                    &r::MCP_ID_REUSED
                } else {
                    &r::SESSION_ID_REUSED
                };
                let detail = format!(
                    "id {id} is reused while the request in message {} awaits its reply",
                    e.message
                );
                out.push(Finding::new(rule, member, detail));
                e.due += 1;
                e.reused = true;
                side.ids.push_reuse();
                return;
            }
            Some(e) => {
                if mcp {
                    let detail = format!("id {id} was already used in message {}", e.message);
                    out.push(Finding::new(&r::MCP_ID_REUSED, member, detail));
                }
                true
            }
            None => false,
        };
        let entry = Entry {
            id: id.clone(),
            key,
            message,
            member,
            batch,
            due: 1,
            invalid,
            null_too: invalid.is_some(),
            versionless,
            droppable: self.tail,
            lossy: false,
            reused: false,
            cancelled: false,
            first: None,
            more: Vec::new(),
        };
        if held {
            side.ids.push(entry);
        } else {
            side.ids.push_new(entry);
        }
    }
}

/// Counts one reply to the request under `key`; once none is due, an
/// invalid request no longer awaits its id-null reply either.
fn settle(side: &mut Side, key: &Key) {
    let Some(e) = side.ids.get_mut(key) else {
        return;
    };
    if e.due == 0 {
        return;
    }
    e.due -= 1;
    side.due -= 1;
    if e.due == 0 && e.null_too {
        side.nulls.retain(|n| n.key.as_ref() != Some(key));
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn is_request(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Request { .. }
            | Kind::Notification { .. }
            | Kind::Invalid {
                shape: Shape::Request,
                ..
            }
    )
}

fn is_reply(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Success { .. }
            | Kind::Error { .. }
            | Kind::Invalid {
                shape: Shape::Response,
                ..
            }
    )
}

fn code_text(kind: &Kind) -> String {
    match kind {
        Kind::Error { code: Some(c), .. } => format!("code {c}"),
        Kind::Success { .. } => "a success".into(),
        _ => "no usable code".into(),
    }
}

fn names(list: &[String]) -> String {
    match list {
        [] => "an end record".into(),
        [one] => format!("`{one}`"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|n| format!("`{n}`")).collect();
            format!("{} or `{last}`", init.join(", "))
        }
    }
}
