//! Arrays of id-null errors alone name no batch they answer. One goes to
//! the batch it answers whole that a reader most likely sent it for
//! ([`Session::reply_array`]), and is remembered with how many errors
//! that batch awaited and could draw. Which batch it really answered may
//! show only later: a server that answers its batches out of order sends
//! an array that fits none of the batches still open, or leaves a batch
//! open at the end that an earlier array fits. The arrays are then paired
//! again over the conversation, as a bipartite matching does: along a
//! chain of remembered arrays, each taking a batch the next one answered
//! and answers whole as well, to a batch still open, or, at the end, away
//! from one that only may draw its errors. So no order in which a correct
//! reader sends its arrays is misread.
//!
//! An array moved along such a chain is graded by its size: what its
//! members said was graded when it first came.

use std::collections::VecDeque;

use super::reply::Whole;
use super::{Direction, IdKind, Kind, Session, Side};

/// How many arrays a side remembers: a search visits each at most once,
/// trying each against the others.
pub(super) const REMEMBERED: usize = 64;

/// An array of id-null errors that answered a batch whole.
#[derive(Debug)]
pub(super) struct Given {
    kinds: Vec<Kind>,
    place: Place,
}

/// A batch answered whole, and how many id-null errors answer it: at
/// least what it awaited, at most what it could draw.
#[derive(Debug, Clone, Copy)]
struct Place {
    batch: usize,
    low: usize,
    high: usize,
}

impl Place {
    fn of(w: &Whole) -> Place {
        Place {
            batch: w.batch,
            low: w.awaited,
            high: w.may,
        }
    }

    fn takes(&self, n: usize) -> bool {
        self.low <= n && n <= self.high
    }
}

/// Whether `kinds` are errors with id null (or none) and nothing else.
fn id_null_errors(kinds: &[Kind]) -> bool {
    !kinds.is_empty()
        && kinds.iter().all(|k| {
            matches!(k, Kind::Error { .. }) && k.id().is_none_or(|id| id.kind() == IdKind::Null)
        })
}

/// The batch still open that `n` id-null errors answer whole, as an
/// array goes to one ([`Side::best_whole`]).
fn open_for(side: &Side, n: usize) -> Option<Place> {
    side.best_whole(n).as_ref().map(Place::of)
}

/// Remembers `given`, forgetting the oldest beyond [`REMEMBERED`].
fn remember(arrays: &mut VecDeque<Given>, given: Given) {
    if arrays.len() >= REMEMBERED {
        arrays.pop_front();
    }
    arrays.push_back(given);
}

/// A chain of remembered arrays (their indexes) for `n` errors that fit
/// no open batch: the first one's batch takes `n`, each next one's batch
/// takes the size of the one before, and the last one's size answers an
/// open batch whole (returned).
fn to_open(side: &Side, n: usize, seen: &mut [bool]) -> Option<(Vec<usize>, Place)> {
    for (i, given) in side.arrays.iter().enumerate().rev() {
        if seen[i] || !given.place.takes(n) {
            continue;
        }
        seen[i] = true;
        let m = given.kinds.len();
        if let Some(open) = open_for(side, m) {
            return Some((vec![i], open));
        }
        if let Some((mut chain, open)) = to_open(side, m, seen) {
            chain.insert(0, i);
            return Some((chain, open));
        }
    }
    None
}

/// A chain of remembered arrays that frees `place`: none if its batch
/// only may draw its errors; else the first one takes it, and its own
/// place is freed in turn.
fn freeing(side: &Side, place: Place, seen: &mut [bool]) -> Option<Vec<usize>> {
    if place.low == 0 {
        return Some(Vec::new());
    }
    for (j, given) in side.arrays.iter().enumerate().rev() {
        if seen[j] || !place.takes(given.kinds.len()) {
            continue;
        }
        seen[j] = true;
        if let Some(mut chain) = freeing(side, given.place, seen) {
            chain.insert(0, j);
            return Some(chain);
        }
    }
    None
}

impl Session {
    /// Remembers an array that answered batch `batch` whole as `whole`,
    /// if it holds id-null errors alone.
    pub(super) fn remember_array(
        &mut self,
        requester: Direction,
        kinds: &[Kind],
        batch: usize,
        whole: Whole,
    ) {
        if !id_null_errors(kinds) || whole.batch != batch {
            return;
        }
        remember(
            &mut self.sides[requester.index()].arrays,
            Given {
                kinds: kinds.to_vec(),
                place: Place::of(&whole),
            },
        );
    }

    /// An array of id-null errors alone, sent to `requester`, that answers
    /// no open batch whole: if it answers one an earlier array was given,
    /// and that array (or one down a chain of them) answers an open batch
    /// whole, that one moves there and this one takes its batch (true).
    pub(super) fn repair(&mut self, requester: Direction, kinds: &[Kind]) -> bool {
        if !id_null_errors(kinds) {
            return false;
        }
        let side = &self.sides[requester.index()];
        let mut seen = vec![false; side.arrays.len()];
        let Some((chain, open)) = to_open(side, kinds.len(), &mut seen) else {
            return false;
        };
        let last = chain[chain.len() - 1];
        let moved = side.arrays[last].kinds.clone();
        // Graded when it came; its move says nothing new.
        let mut graded = Vec::new();
        self.settle_array(requester.reverse(), &moved, Some(open.batch), &mut graded);
        let arrays = &mut self.sides[requester.index()].arrays;
        let mut place = open;
        for &i in chain.iter().rev() {
            std::mem::swap(&mut arrays[i].place, &mut place);
        }
        remember(
            arrays,
            Given {
                kinds: kinds.to_vec(),
                place,
            },
        );
        true
    }

    /// At the end, each batch sent by `requester` still awaiting id-null
    /// errors takes a remembered array that answers it whole, if the
    /// array's own batch then goes to another (down a chain) and the last
    /// one left without an array only may draw its errors.
    pub(super) fn repair_at_close(&mut self, requester: Direction) {
        loop {
            let side = &self.sides[requester.index()];
            let Some((batch, taken, chain)) = side.null_batches().into_iter().find_map(|b| {
                side.arrays.iter().enumerate().rev().find_map(|(i, given)| {
                    let fit = side.answers_whole(b, given.kinds.len())?;
                    if fit.awaited == 0 {
                        return None;
                    }
                    let mut seen = vec![false; side.arrays.len()];
                    seen[i] = true;
                    let chain = freeing(side, given.place, &mut seen)?;
                    Some((fit, i, chain))
                })
            }) else {
                return;
            };
            let moved = side.arrays[taken].kinds.clone();
            let mut graded = Vec::new();
            self.settle_array(requester.reverse(), &moved, Some(batch.batch), &mut graded);
            let arrays = &mut self.sides[requester.index()].arrays;
            let mut place = Place::of(&batch);
            for &i in std::iter::once(&taken).chain(&chain) {
                std::mem::swap(&mut arrays[i].place, &mut place);
            }
        }
    }
}
