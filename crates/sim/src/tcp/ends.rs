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

    /// What the search reads, which is its purpose: the entries `pred` is called on, for every
    /// split point of queues of every length up to 40 (entry i holds i). Up to 2·EDGE entries,
    /// a scan from the bottom; beyond, entry n − EDGE − 1 first, then the top EDGE entries when
    /// the point lies among them; else entry EDGE, then the bottom EDGE when it lies there;
    /// else a binary search strictly between EDGE and n − EDGE − 1, of at most
    /// ⌈log2(n − 2·EDGE − 2)⌉ + 1 reads.
    #[test]
    fn reads_the_ends_first_and_the_middle_by_halves() {
        for n in 0..40usize {
            let d: VecDeque<usize> = (0..n).collect();
            for point in 0..=n {
                let reads = std::cell::RefCell::new(Vec::new());
                let got = partition_point(&d, |&i| {
                    reads.borrow_mut().push(i);
                    i < point
                });
                assert_eq!(got, point);
                let reads = reads.into_inner();
                let (top, bottom) = (n.saturating_sub(EDGE + 1), EDGE);
                if n <= 2 * EDGE {
                    assert_eq!(reads, (0..(point + 1).min(n)).collect::<Vec<_>>(), "n {n} point {point}");
                } else if point > top {
                    assert_eq!(reads[0], top, "n {n} point {point}");
                    assert_eq!(reads[1..], (top + 1..(point + 1).min(n)).collect::<Vec<_>>(), "n {n} point {point}");
                } else if point <= bottom {
                    assert_eq!(reads[..2], [top, bottom], "n {n} point {point}");
                    assert_eq!(reads[2..], (0..(point + 1).min(bottom)).collect::<Vec<_>>(), "n {n} point {point}");
                } else {
                    assert_eq!(reads[..2], [top, bottom], "n {n} point {point}");
                    let span = (top - bottom - 1) as f64;
                    let most = span.log2().ceil() as usize + 1;
                    assert!(reads[2..].iter().all(|&i| i > bottom && i < top), "n {n} point {point}: {reads:?}");
                    assert!(reads.len() - 2 <= most, "n {n} point {point}: {} reads, at most {most}", reads.len() - 2);
                }
            }
        }
    }
}
