//! Searching the sorted ranges of a scoreboard or of out-of-order data, where most searches
//! land near one end: new SACK blocks and arrivals at the top, the cumulative ACK and the
//! retransmissions that fill holes at the bottom.

use std::collections::VecDeque;

/// Entries looked at, at each end, before a binary search of the rest: 4 of 16 bytes, a cache
/// line or two.
const EDGE: usize = 4;

/// The index of the first entry for which `pred` is false (`pred` holds on a prefix), as
/// `VecDeque::partition_point` gives it, but found from the ends first: a binary search reads
/// the middle entries first, whose lines are cold in a flow's state untouched for a round
/// trip, while the ends' were read by the operations before (issue 22).
#[inline]
pub fn partition_point<T>(d: &VecDeque<T>, pred: impl Fn(&T) -> bool) -> usize {
    let n = d.len();
    if n <= 2 * EDGE {
        return d.iter().position(|x| !pred(x)).unwrap_or(n);
    }
    if pred(&d[n - EDGE - 1]) {
        return (n - EDGE..n).find(|&i| !pred(&d[i])).unwrap_or(n);
    }
    if !pred(&d[EDGE]) {
        return (0..EDGE).find(|&i| !pred(&d[i])).unwrap_or(EDGE);
    }
    // `pred` holds at EDGE and fails at n - EDGE - 1: the point lies between.
    let (mut lo, mut hi) = (EDGE + 1, n - EDGE - 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(&d[mid]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the standard library's search, for every split point of queues of every
    /// length up to 40, wrapped around the buffer's end or not.
    #[test]
    fn finds_what_the_standard_search_finds() {
        for n in 0..40u64 {
            for wrap in [false, true] {
                let mut d: VecDeque<u64> = VecDeque::with_capacity(64);
                if wrap {
                    // Push and pop so that the contents start near the buffer's end.
                    (0..50).for_each(|x| d.push_back(x));
                    d.drain(..50);
                }
                (0..n).for_each(|x| d.push_back(10 * x));
                for split in 0..=10 * n + 10 {
                    assert_eq!(partition_point(&d, |&x| x < split), d.partition_point(|&x| x < split), "n {n} split {split}");
                }
            }
        }
    }
}
