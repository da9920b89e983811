//! A binary min-heap of small `Copy` items, for the scheduler's events.
//!
//! The standard library's heap has no way to replace its top by a new item without first
//! writing the item at the root and then reading it back to sift it down; the scheduler does
//! that once per packet (a delay line's next event takes its head's place), and the read-back
//! of a just-written entry stalled the processor (issue 22: 5 % of the run at 10 Gb/s, store
//! forwarding of narrow stores to a wide load). Here [`MinHeap::replace_top`] carries the new
//! item down the tree and writes it once, where it stays. The pop order is that of the items'
//! `Ord`, so for items with distinct keys (the scheduler's (time, sequence)) it is the order of
//! any correct heap.

pub struct MinHeap<T> {
    v: Vec<T>,
}

impl<T: Copy + Ord> MinHeap<T> {
    pub fn with_capacity(n: usize) -> Self {
        MinHeap { v: Vec::with_capacity(n) }
    }

    /// The least item.
    #[inline]
    pub fn peek(&self) -> Option<&T> {
        self.v.first()
    }

    /// The items, in no particular order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.v.iter()
    }

    #[inline]
    pub fn push(&mut self, item: T) {
        self.v.push(item);
        self.sift_up(self.v.len() - 1, item);
    }

    /// Removes and returns the least item.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let last = self.v.pop()?;
        let Some(&top) = self.v.first() else { return Some(last) };
        // Move the hole left at the root down to a leaf along the lesser children, then let
        // the former last item rise from there: one comparison a level on the way down, and
        // the last item, which is usually late, rises little.
        let n = self.v.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < n {
            if self.v[child + 1] < self.v[child] {
                child += 1;
            }
            self.v[hole] = self.v[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child + 1 == n {
            self.v[hole] = self.v[child];
            hole = child;
        }
        self.sift_up(hole, last);
        Some(top)
    }

    /// Replaces the least item by `item` and returns it (the heap must not be empty).
    #[inline]
    pub fn replace_top(&mut self, item: T) -> T {
        let top = self.v[0];
        let n = self.v.len();
        let mut hole = 0;
        loop {
            let mut child = 2 * hole + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.v[child + 1] < self.v[child] {
                child += 1;
            }
            if self.v[child] >= item {
                break;
            }
            self.v[hole] = self.v[child];
            hole = child;
        }
        self.v[hole] = item;
        top
    }

    /// Places `item` at `hole` or above it, moving greater ancestors down.
    #[inline]
    fn sift_up(&mut self, mut hole: usize, item: T) {
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if self.v[parent] <= item {
                break;
            }
            self.v[hole] = self.v[parent];
            hole = parent;
        }
        self.v[hole] = item;
    }
}

/// Checks shared by the property tests of this heap and of [`crate::radix::RadixHeap`], whose
/// oracle is a vector of the same items.
#[cfg(test)]
pub(crate) mod model {
    /// The heap holds exactly the model's items (sorted here) and offers its least first.
    pub fn holds<'a>(model: &mut [(u64, u64)], peek: Option<&(u64, u64)>, items: impl Iterator<Item = &'a (u64, u64)>) {
        model.sort_unstable();
        assert_eq!(peek, model.first());
        let mut all: Vec<(u64, u64)> = items.copied().collect();
        all.sort_unstable();
        assert_eq!(all, model);
    }

    /// Popping the heap empty gives the model's items in sorted order.
    pub fn drains_in_order(mut model: Vec<(u64, u64)>, mut pop: impl FnMut() -> Option<(u64, u64)>) {
        model.sort_unstable();
        let mut got = Vec::new();
        while let Some(x) = pop() {
            got.push(x);
        }
        assert_eq!(got, model);
    }
}

#[cfg(test)]
mod tests {
    use super::model::{drains_in_order, holds};
    use super::*;

    /// Property: any mix of pushes, pops and top replacements pops the items in sorted order;
    /// the oracle is a sorted vector of the same items (fixed-seed generator).
    #[test]
    fn pops_in_sorted_order() {
        let mut rng = aqm::rng::Rng::from_seed(22);
        for round in 0..300 {
            let mut heap = MinHeap::with_capacity(0);
            let mut model: Vec<(u64, u64)> = Vec::new();
            for id in 0..(round % 60) * 5 {
                let item = (rng.next_u64() % 50, id);
                match rng.next_u64() % 4 {
                    0 | 1 => {
                        heap.push(item);
                        model.push(item);
                    }
                    2 => {
                        model.sort_unstable_by(|a, b| b.cmp(a));
                        assert_eq!(heap.pop(), model.pop());
                    }
                    _ if !model.is_empty() => {
                        model.sort_unstable_by(|a, b| b.cmp(a));
                        assert_eq!(heap.replace_top(item), model.pop().expect("not empty"));
                        model.push(item);
                    }
                    _ => {}
                }
                holds(&mut model, heap.peek(), heap.iter());
            }
            drains_in_order(model, || heap.pop());
        }
    }
}
