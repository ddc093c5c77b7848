//! Where the specification reads two ways, the session holds both: an
//! id-null error or silence ([`Session::may_go_unanswered`],
//! [`Session::silent_to_unreadable`]), a line that is not UTF-8 read
//! strictly or with U+FFFD ([`Session::feed_invalid_utf8`]), a reply in
//! kind to a request without `jsonrpc` ([`Session::answered_in_kind`]).

use super::{Direction, NullSlot, Session};
use crate::classify::{Classified, Finding, JSONRPC_ABSENT, Kind, Shape, classify};
use crate::dialect::Dialect;
use crate::id::IdKind;
use crate::rules::{self as r, Rule};

impl Session {
    /// A message whose id cannot be read (it does not parse, or its id is
    /// not a string or a number) may go unanswered, and still may get an
    /// id-null error: for protocols whose errors always carry an id (the
    /// Codex app-server's `RequestId` is a string or an integer), which
    /// have nothing to answer such a message with.
    pub fn silent_to_unreadable(mut self) -> Session {
        self.unreadable_silent = true;
        self
    }

    /// Feeds a line that is not UTF-8, given as `lossy`: its bytes with
    /// every invalid sequence replaced by U+FFFD. Read strictly it does
    /// not parse, and awaits an id-null -32700; a reader that decodes
    /// lossily (RFC 8259 §9 lets a parser accept non-JSON forms) reads
    /// `lossy`, so a reply by the id it has then answers it too (graded
    /// `session.error-code-meaning`, SHOULD), and if it then reads as a
    /// notification, no reply is due; as a batch, an array answering it
    /// stands for the -32700 (what the array leaves out is still reported,
    /// `session.batch-reply-missing`). The kind returned is an invalid
    /// message, with no id.
    pub fn feed_invalid_utf8(&mut self, from: Direction, lossy: &str) -> Classified {
        let read = classify(lossy, &self.dialect);
        if let Kind::Batch(members) = &read.kind
            && !matches!(self.dialect, Dialect::Events(_))
        {
            // Read with U+FFFD, a batch, answered with an array (what it
            // awaits is then due only if the array comes), or strictly,
            // one -32700.
            let detail = format!(
                "the line is not UTF-8; decoded with U+FFFD it is a batch of {}",
                members.len()
            );
            self.tail = true;
            self.feed_classified(from, read);
            self.tail = false;
            let null = NullSlot {
                versionless: false,
                strict: true,
                parse_error: true,
                optional: self.unreadable_silent,
                batch: None,
                key: None,
                message: self.messages,
                member: None,
            };
            let mut findings = vec![Finding::new(&r::JSON_PARSE, None, detail)];
            self.await_null(from, null, &mut findings);
            return Classified {
                kind: Kind::Invalid {
                    shape: Shape::Other,
                    id: None,
                },
                findings,
                limit: None,
            };
        }
        let notification = matches!(read.kind, Kind::Notification { .. });
        let versionless = read.breaks(r::MESSAGE_JSONRPC_VERSION.id);
        let id = match read.kind {
            Kind::Request { id, .. } => Some(id),
            Kind::Invalid {
                shape: Shape::Request,
                id,
            } => id,
            _ => None,
        };
        let detail = match &id {
            Some(id) => {
                format!("the line is not UTF-8; decoded with U+FFFD it is a request with id {id}")
            }
            None if notification => {
                "the line is not UTF-8; decoded with U+FFFD it is a notification".to_owned()
            }
            None => "the line is not UTF-8".to_owned(),
        };
        let strict = Classified {
            kind: Kind::Invalid {
                shape: Shape::Other,
                id: id.clone(),
            },
            findings: vec![Finding::new(&r::JSON_PARSE, None, detail)],
            limit: None,
        };
        self.messages += 1;
        self.settled.clear();
        let mut out = Vec::new();
        if !matches!(self.dialect, Dialect::Events(_)) {
            // Strictly, one -32700, awaited by the line (its id unread);
            // read with U+FFFD, a request whose reply, if it comes, stands
            // for it: an entry the session owes nothing for (a tail's),
            // which takes the -32700's place when answered.
            if let Some(id) = id.as_ref().filter(|id| id.kind() != IdKind::Null) {
                self.expect_owed_nothing(from, id, Some(-32700), versionless, None, None, &mut out);
                if let Some(e) = self.sides[from.index()].ids.get_mut(&id.key()) {
                    e.lossy = true;
                }
            }
            let null = NullSlot {
                versionless,
                strict: true,
                parse_error: true,
                optional: notification || self.unreadable_silent,
                batch: None,
                key: None,
                message: self.messages,
                member: None,
            };
            self.await_null(from, null, &mut out);
        }
        let mut classified = Classified {
            kind: Kind::Invalid {
                shape: Shape::Other,
                id: None,
            },
            ..strict
        };
        classified.findings.append(&mut out);
        classified
    }

    /// Whether `kind` (member `member` of `c`) may go unanswered, though a
    /// strict reader answers it with an id-null error, because the spec
    /// reads both ways:
    ///
    /// * a notification with members §4 does not list
    ///   (`request.other-members`), a reserved `rpc.` method (§4: "reserved
    ///   for rpc-internal methods ... MUST NOT be used for anything else")
    ///   or a member named twice (RFC 8259 §4 leaves duplicate names to the
    ///   parser) may be refused with -32600;
    /// * so may a request of an `rpc.` method, as an invalid request, with
    ///   id null (§5: null "if there was an error in detecting the id in the
    ///   Request object (e.g. Parse error/Invalid Request)"); it is still
    ///   owed a reply, by its id or that one;
    /// * an invalid object with `method` and no `id` member (`"jsonrpc":
    ///   "1.0"`, `"method": 1`, `"params": 42`) is "a Request object
    ///   without an id member", a notification (§4.1), to a reader that
    ///   checks no further, though §7's example answers one with -32600;
    /// * with [`Session::silent_to_unreadable`], a message whose id cannot
    ///   be read.
    pub(super) fn may_go_unanswered(
        &self,
        c: &Classified,
        kind: &Kind,
        member: Option<usize>,
    ) -> bool {
        match kind {
            Kind::Request { .. } => breaks(c, &r::REQUEST_METHOD_RESERVED, member),
            Kind::Notification { .. } => {
                breaks(c, &r::REQUEST_OTHER_MEMBERS, member)
                    || breaks(c, &r::REQUEST_METHOD_RESERVED, member)
                    || breaks(c, &r::MESSAGE_DUPLICATE_MEMBER, member)
            }
            Kind::Invalid {
                shape: Shape::Request,
                id: None,
            } if !breaks(c, &r::REQUEST_ID_TYPE, member) => true,
            Kind::Invalid { id, .. } => {
                self.unreadable_silent
                    && id
                        .as_ref()
                        .is_none_or(|id| id.kind() == IdKind::Null || id.is_fractional())
            }
            _ => false,
        }
    }

    /// Feeds the last message of a stream that ended without its
    /// terminator (an NDJSON line without `\n` before EOF). Writers MUST
    /// end each line, and what a reader does with such a tail is left open
    /// (NDJSON 1.0 says nothing of EOF): it may be read and answered, or
    /// dropped, so nothing it would await is due, though a reply to it
    /// pairs as usual.
    pub fn feed_unterminated(&mut self, from: Direction, text: &str) -> Classified {
        let classified = classify(text, &self.dialect);
        self.tail = true;
        let classified = self.feed_classified(from, classified);
        self.tail = false;
        classified
    }

    /// After a message that answered a request without `jsonrpc`: its own
    /// lack of `jsonrpc` is an answer in kind. JSON-RPC 2.0 §2, "2.0
    /// implementations should consider trying to handle 1.0 objects", and a
    /// 1.0 reply has no `jsonrpc` either.
    pub(super) fn answered_in_kind(&self, classified: &mut Classified) {
        if !self.in_kind {
            return;
        }
        for f in &mut classified.findings {
            if f.rule.id == r::MESSAGE_JSONRPC_VERSION.id && f.detail == JSONRPC_ABSENT {
                f.rule = &r::SESSION_REPLY_IN_KIND;
                f.detail = "`jsonrpc` is absent, as it was in the request it answers".into();
            }
        }
    }
}

/// Whether `c` breaks `rule` (in member `member`, if a batch).
pub(super) fn breaks(c: &Classified, rule: &Rule, member: Option<usize>) -> bool {
    c.findings
        .iter()
        .any(|f| f.rule.id == rule.id && f.member == member)
}
