//! A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) of small `Copy` items, for the flows'
//! events: a monotone priority queue, whose pops never go back in time.
//!
//! The least items wait in a small binary heap, the *low* heap: those at or below the *last
//! key*, the key of the least item when the low heap was last refilled. Every other item sits
//! in the bucket numbered by the highest bit in which its key differs from the last key (1 to
//! 64). When the low heap empties, the lowest non-empty bucket is spread: its least key becomes
//! the last key, its items with that key go into the low heap and the others into the buckets
//! below. An item moves to a lower bucket each time it is moved, so at most 64 times, and each
//! move is a read of the bucket being spread (in order) and a push at a bucket's end: no
//! comparisons that the processor cannot predict, where a binary heap's pop makes one per level
//! (issue 22: at 10,000 flows the flows' events number about 12,000, and a binary heap's pops
//! cost some 300 cycles each).
//!
//! An item pushed at or below the last key (an event due before every other flow's, or the
//! set-up's pushes into an empty heap, whose first push sets the last key) goes into the low
//! heap, which stays small while the simulation runs. The items pop in the order of their
//! `Ord`, as from any correct heap, provided the radix key is the first part of that order.

use crate::heap::MinHeap;

/// An item's radix key: the leading part of its order.
pub trait RadixKey {
    fn radix_key(&self) -> u64;
}

pub struct RadixHeap<T> {
    /// The items at or below the last key; empty only when the whole heap is.
    low: MinHeap<T>,
    last: u64,
    /// Bit `i` set when `buckets[i]` holds items.
    occupied: u64,
    /// Bucket `i + 1`: keys above the last key whose highest bit apart from it is bit `i`.
    buckets: [Vec<T>; 64],
}

impl<T: Copy + Ord + RadixKey> Default for RadixHeap<T> {
    fn default() -> Self {
        RadixHeap { low: MinHeap::with_capacity(0), last: 0, occupied: 0, buckets: std::array::from_fn(|_| Vec::new()) }
    }
}

impl<T: Copy + Ord + RadixKey> RadixHeap<T> {
    /// The index in `buckets` of a key above the last key.
    #[inline]
    fn bucket(&self, key: u64) -> usize {
        63 - (key ^ self.last).leading_zeros() as usize
    }

    /// The least item.
    #[inline]
    pub fn peek(&self) -> Option<&T> {
        self.low.peek()
    }

    /// The items, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.low.iter().chain(self.buckets.iter().flatten())
    }

    /// Inlined so that the item goes from registers to its bucket: passed through memory, its
    /// narrow stores and the copy's wide loads stall the processor (store forwarding).
    #[inline(always)]
    pub fn push(&mut self, item: T) {
        let key = item.radix_key();
        if key <= self.last || self.low.peek().is_none() {
            self.push_low(item);
        } else {
            let b = self.bucket(key);
            self.buckets[b].push(item);
            self.occupied |= 1 << b;
        }
    }

    /// Into the low heap; the first item of an empty heap sets the last key. Out of line: the
    /// scheduler's pushes are later than every other flow's event almost always.
    #[cold]
    #[inline(never)]
    fn push_low(&mut self, item: T) {
        if self.low.peek().is_none() {
            self.last = item.radix_key();
        }
        self.low.push(item);
    }

    /// Removes and returns the least item.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let top = self.low.pop()?;
        if self.low.peek().is_none() && self.occupied != 0 {
            self.spread();
        }
        Some(top)
    }

    /// Refills the empty low heap from the lowest non-empty bucket, spreading the rest of it
    /// over the buckets below, relative to its least key. Out of line and cold, so that a pop
    /// that spreads nothing stays a few instructions where it is inlined.
    #[cold]
    #[inline(never)]
    fn spread(&mut self) {
        let b = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1 << b);
        // Taken out and put back empty, so that the bucket keeps its allocation: none of its
        // items goes back into it.
        let mut items = std::mem::take(&mut self.buckets[b]);
        self.last = items.iter().map(|x| x.radix_key()).min().expect("an occupied bucket");
        for &item in &items {
            let key = item.radix_key();
            if key == self.last {
                self.low.push(item);
            } else {
                let to = self.bucket(key);
                self.buckets[to].push(item);
                self.occupied |= 1 << to;
            }
        }
        items.clear();
        self.buckets[b] = items;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::model::{drains_in_order, holds};

    impl RadixKey for (u64, u64) {
        fn radix_key(&self) -> u64 {
            self.0
        }
    }

    /// Property: pushes (equal keys, and now and then keys at or below the last one popped,
    /// included), mixed with pops, pop the items in sorted order; the oracle is a sorted vector
    /// of the same items (fixed-seed generator).
    #[test]
    fn pops_in_sorted_order() {
        let mut rng = aqm::rng::Rng::from_seed(22);
        for round in 0..300 {
            let mut heap = RadixHeap::default();
            let mut model: Vec<(u64, u64)> = Vec::new();
            // Keys from a few apart to 2^40 apart, from 0 or from high in the 64-bit range.
            let mut now = [0, 7, 1 << 33, 1 << 62][round % 4];
            let span = [3, 50, 1 << 20, 1 << 40][(round / 4) % 4];
            for id in 0..(round % 60) * 5 {
                if rng.next_u64().is_multiple_of(3) {
                    model.sort_unstable_by(|a, b| b.cmp(a));
                    let want = model.pop();
                    assert_eq!(heap.pop(), want);
                    if let Some((t, _)) = want {
                        now = t;
                    }
                } else {
                    // One push in ten goes at or a little below the last key popped.
                    let at = if rng.next_u64().is_multiple_of(10) { now.saturating_sub(rng.next_u64() % 3) } else { now + rng.next_u64() % span };
                    // The second part ascending with the pushes (as the scheduler's sequence
                    // numbers) in half the rounds, descending in the others.
                    let item = (at, if round % 2 == 0 { id as u64 } else { u64::MAX - id as u64 });
                    heap.push(item);
                    model.push(item);
                }
                holds(&mut model, heap.peek(), heap.iter());
            }
            drains_in_order(model, || heap.pop());
        }
    }
}
