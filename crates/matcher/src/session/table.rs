//! The requests of one side, by id and in the order sent.
//!
//! A queue of the requests, and a hash table of places in it rather than a
//! map holding the requests: the queue is written at its back and read at
//! both ends, so it stays in cache, and the table's buckets are 8 bytes (a
//! window of 50 000 requests: 1 MiB, where a map of whole entries took 20
//! MiB and a cache miss on every request). An id's place is found by
//! comparing the key of the entry there; the oldest request's place is
//! found by its number, without reading any entry.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use hashbrown::HashTable;

use super::Entry;
use crate::id::Key;

/// Every request a side sent, as far as a window reaches: the latest
/// request of each id is found by its id; all of them in the order sent.
#[derive(Debug, Default)]
pub(super) struct Table {
    /// The place of each id's latest request, counted from the first
    /// request ever sent (place `base` is `queue[0]`). Every place here
    /// holds an entry.
    places: HashTable<u64>,
    /// The requests in the order sent. `None`: a request whose entry is
    /// another's (its id was reused while still awaited), or one replaced
    /// by a later request with its id.
    queue: VecDeque<Option<Entry>>,
    base: u64,
}

/// The entry at `place`, if it holds one (none if it was forgotten).
fn at(queue: &VecDeque<Option<Entry>>, base: u64, place: u64) -> Option<&Entry> {
    queue.get(place.checked_sub(base)? as usize)?.as_ref()
}

fn hash(key: &Key) -> u64 {
    let mut h = FxHasher::default();
    key.hash(&mut h);
    h.finish()
}

impl Table {
    fn place(&self, key: &Key) -> Option<u64> {
        let (queue, base) = (&self.queue, self.base);
        let same = |&p: &u64| at(queue, base, p).is_some_and(|e| e.key == *key);
        self.places.find(hash(key), same).copied()
    }

    /// The latest request sent with this id.
    pub(super) fn get(&self, key: &Key) -> Option<&Entry> {
        at(&self.queue, self.base, self.place(key)?)
    }

    pub(super) fn get_mut(&mut self, key: &Key) -> Option<&mut Entry> {
        let place = self.place(key)?;
        self.queue
            .get_mut(place.checked_sub(self.base)? as usize)?
            .as_mut()
    }

    pub(super) fn contains_key(&self, key: &Key) -> bool {
        self.place(key).is_some()
    }

    /// Every request still held, oldest first.
    pub(super) fn values(&self) -> impl Iterator<Item = &Entry> {
        self.queue.iter().flatten()
    }

    /// Every request still held, oldest first.
    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.queue.iter_mut().flatten()
    }

    /// How many requests are held, counting those whose entry is another's.
    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    /// A request sent with `entry.key`: the latest with that id from now on.
    pub(super) fn push(&mut self, entry: Entry) {
        let place = self.base + self.queue.len() as u64;
        let (queue, base) = (&mut self.queue, self.base);
        let same = |&p: &u64| at(queue, base, p).is_some_and(|e| e.key == entry.key);
        let Some(old) = self.places.find_mut(hash(&entry.key), same) else {
            return self.push_new(entry);
        };
        // The earlier request with this id is replaced: its place is empty.
        if let Some(slot) = queue.get_mut(old.saturating_sub(base) as usize) {
            *slot = None;
        }
        *old = place;
        queue.push_back(Some(entry));
    }

    /// A request with an id no request held has: [`Table::push`] without
    /// looking for one.
    pub(super) fn push_new(&mut self, entry: Entry) {
        let place = self.base + self.queue.len() as u64;
        let (queue, base) = (&self.queue, self.base);
        let rehash = |&p: &u64| at(queue, base, p).map_or(0, |e| hash(&e.key));
        self.places.insert_unique(hash(&entry.key), place, rehash);
        self.queue.push_back(Some(entry));
    }

    /// A request whose entry is the latest with its id (a reuse while it
    /// was awaited): it takes a place in the order, and nothing else.
    pub(super) fn push_reuse(&mut self) {
        self.queue.push_back(None);
    }

    /// Forgets the oldest request: its entry, if it is one.
    pub(super) fn pop_oldest(&mut self) -> Option<Option<Entry>> {
        let oldest = self.base;
        let slot = self.queue.pop_front()?;
        self.base += 1;
        if let Some(e) = &slot
            && let Ok(found) = self.places.find_entry(hash(&e.key), |&p| p == oldest)
        {
            found.remove();
        }
        Some(slot)
    }
}

/// Ids are short and hash-flooding is not a threat to a test tool, so a
/// multiply-rotate hash replaces SipHash, which costs more than the rest of
/// pairing.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // hashbrown picks buckets by the low bits and tags by the top 7; a
        // multiply leaves the low bits poorly mixed, so finish as murmur3 does.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}
