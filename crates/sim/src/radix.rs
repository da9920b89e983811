//! A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) of small `Copy` items, for the flows'
//! events: a monotone priority queue, whose items never come before the last one popped.
//!
//! An item sits in the bucket numbered by the highest bit in which its key differs from the
//! last key popped (bucket 0: keys at or below it). Popping takes from bucket 0; when bucket 0
//! empties, the lowest non-empty bucket is spread over the buckets below it, relative to its
//! least key, which becomes the new last key. An item moves to a lower bucket each time it is
//! moved, so at most 64 times, and each move is a read of the bucket being spread (in order)
//! and a push at a bucket's end: no comparisons that the processor cannot predict, where a
//! binary heap's pop makes one per level (issue 22: at 10,000 flows the flows' heap holds
//! about 12,000 items and its pops cost some 300 cycles each).
//!
//! Bucket 0 is kept in the items' `Ord` order (greatest first, so the least is popped from the
//! end); it holds the items whose key equals the last key and any that came in below it. So
//! the items pop in the order of their `Ord`, as from any correct heap, provided the radix key
//! is the first part of that order.

/// An item's radix key: the leading part of its order.
pub trait RadixKey {
    fn radix_key(&self) -> u64;
}

pub struct RadixHeap<T> {
    /// The last key popped (or the first pushed into an empty heap).
    last: u64,
    len: usize,
    /// Bit `b - 1` set when bucket `b` (1 to 64) holds items.
    occupied: u64,
    /// Bucket 0 is empty only when the heap is. Held inline, so that the least item (bucket
    /// 0's end) is one load from the heap, as a binary heap's first item is.
    buckets: [Vec<T>; 65],
}

impl<T: Copy + Ord + RadixKey> Default for RadixHeap<T> {
    fn default() -> Self {
        RadixHeap { last: 0, len: 0, occupied: 0, buckets: std::array::from_fn(|_| Vec::new()) }
    }
}

impl<T: Copy + Ord + RadixKey> RadixHeap<T> {
    /// The bucket of `key` relative to the last key popped.
    #[inline]
    fn bucket(&self, key: u64) -> usize {
        if key <= self.last {
            0
        } else {
            64 - (key ^ self.last).leading_zeros() as usize
        }
    }

    /// The least item.
    #[inline]
    pub fn peek(&self) -> Option<&T> {
        self.buckets[0].last()
    }

    /// The items, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.buckets.iter().flatten()
    }

    /// Inlined so that the item goes from registers to its bucket: passed through memory, its
    /// narrow stores and the copy's wide loads stall the processor (store forwarding).
    #[inline(always)]
    pub fn push(&mut self, item: T) {
        if self.len == 0 {
            self.last = item.radix_key();
        }
        self.len += 1;
        let b = self.bucket(item.radix_key());
        if b == 0 {
            self.insert_low(item);
        } else {
            self.buckets[b].push(item);
            self.occupied |= 1 << (b - 1);
        }
    }

    /// Puts `item` into bucket 0 at its place (greatest first). It mostly goes first: an item
    /// pushed for the current time has the greatest sequence number. Out of line: a push at or
    /// below the last key popped is rare (an event for the current instant).
    #[inline]
    fn insert_low(&mut self, item: T) {
        let low = &mut self.buckets[0];
        let at = low.partition_point(|x| *x > item);
        low.insert(at, item);
    }

    /// Removes and returns the least item.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let top = self.buckets[0].pop()?;
        self.len -= 1;
        if self.buckets[0].is_empty() && self.occupied != 0 {
            self.spread();
        }
        Some(top)
    }

    /// Spreads the lowest non-empty bucket over the buckets below it, relative to its least key.
    #[cold]
    #[inline(never)]
    fn spread(&mut self) {
        let b = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= !(1 << (b - 1));
        // Taken out and put back empty, so that the bucket keeps its allocation: none of its
        // items goes back into it.
        let mut items = std::mem::take(&mut self.buckets[b]);
        self.last = items.iter().map(|x| x.radix_key()).min().expect("an occupied bucket");
        for &item in &items {
            let to = self.bucket(item.radix_key());
            self.buckets[to].push(item);
            if to != 0 {
                self.occupied |= 1 << (to - 1);
            }
        }
        let low = &mut self.buckets[0];
        if low.len() > 1 {
            low.sort_unstable_by(|a, b| b.cmp(a));
        }
        items.clear();
        self.buckets[b] = items;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                model.sort_unstable();
                assert_eq!(heap.peek(), model.first());
                let mut all: Vec<(u64, u64)> = heap.iter().copied().collect();
                all.sort_unstable();
                assert_eq!(all, model);
            }
            while let Some(x) = heap.pop() {
                assert_eq!(x, model.remove(0));
            }
            assert!(model.is_empty());
        }
    }
}
