//! The SACK scoreboard of RFC 6675, over segment numbers.
//!
//! SACKed segments above the cumulative ACK are kept as disjoint ranges, so no query walks the
//! window: counts and lookups are binary searches over the ranges, an insertion shifts the
//! ranges on its shorter side, and only `for_each_gap` visits ranges (those it reports). A
//! segment is *lost* (IsLost, §4) when at least DupThresh SACKed segments lie above it, which
//! makes the lost segments exactly the un-SACKed ones below the DupThresh-th highest SACKed
//! segment (found from the top, a range per DupThresh segment at most).

use std::collections::VecDeque;

use super::ends::partition_point;

/// A SACKed range [start, start + len) and the count of SACKed segments in the ranges before
/// it, as a stamp: the count is `before - base` of the scoreboard (see [`Scoreboard::base`]).
/// Counts within a window fit 32 bits, as the receive window does (`TcpConfig::rwnd`), and
/// 16 bytes a range keep a binary search on fewer cache lines.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u64,
    len: u32,
    before: u32,
}

impl Span {
    fn new(start: u64, end: u64, before: u32) -> Self {
        let len = u32::try_from(end - start).expect("a SACKed range lies within the receive window (32 bits)");
        Span { start, len, before }
    }

    fn end(&self) -> u64 {
        self.start + self.len as u64
    }
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges, disjoint, non-adjacent and in order, found by binary search. A window
    /// has few holes, so shifting the ranges beside an insertion costs less than a tree's node
    /// walks and allocations (issue 22: a B-tree took a sixth of the time at 10 Gb/s). A
    /// double-ended queue, because the cumulative ACK drops ranges from the front (a vector
    /// moved the whole window down each time: 8 % of the run with 10 flows at 1 Gb/s); it is
    /// let go when it empties, so an idle flow holds none.
    ranges: VecDeque<Span>,
    /// What the stamps count from: a range's prefix count is `before - base` (wrapping). A
    /// change in the middle adds to the stamps on its shorter side, and moving `base` stands
    /// for adding to every stamp; so counting the SACKed segments below a point is a binary
    /// search, where a sum over the ranges took a quarter of that run.
    base: u32,
    /// Segments covered by `ranges`.
    sacked: u64,
}

impl Scoreboard {
    pub fn clear(&mut self) {
        *self = Scoreboard::default();
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Segments currently marked SACKed.
    pub fn sacked(&self) -> u64 {
        self.sacked
    }

    /// Index of the first range ending after `seq` (every range before it lies below `seq`).
    fn first_ending_after(&self, seq: u64) -> usize {
        partition_point(&self.ranges, |r| r.end() <= seq)
    }

    /// The last range starting at or below `seq`.
    fn last_starting_by(&self, seq: u64) -> Option<Span> {
        let i = partition_point(&self.ranges, |r| r.start <= seq);
        i.checked_sub(1).map(|i| self.ranges[i])
    }

    /// SACKed segments in the ranges before index `i` (in all of them when `i` is the count).
    fn count_before(&self, i: usize) -> u64 {
        self.ranges.get(i).map_or(self.sacked, |r| r.before.wrapping_sub(self.base) as u64)
    }

    /// The stamp of a range preceded by `count` SACKed segments.
    fn stamp(&self, count: u64) -> u32 {
        debug_assert!(count <= u32::MAX as u64, "SACKed counts lie within the receive window (32 bits)");
        (count as u32).wrapping_add(self.base)
    }

    /// SACKed segments below `seq`. The window's edges, where most queries fall (SND.UNA,
    /// SND.MAX), are answered without a search.
    fn sacked_below(&self, seq: u64) -> u64 {
        match (self.ranges.front(), self.ranges.back()) {
            (Some(first), _) if seq <= first.start => return 0,
            (_, Some(last)) if seq >= last.end() => return self.sacked,
            (None, _) => return 0,
            _ => {}
        }
        let i = self.first_ending_after(seq);
        let inside = self.ranges.get(i).map_or(0, |r| seq.saturating_sub(r.start));
        self.count_before(i) + inside
    }

    /// Adds `n` to the prefix counts of the ranges from index `i` on: to their stamps, or,
    /// when fewer ranges lie before `i`, by taking `n` from those stamps and from `base`.
    fn add_to_counts_from(&mut self, i: usize, n: u64) {
        if n == 0 {
            return;
        }
        debug_assert!(n <= u32::MAX as u64, "SACKed counts lie within the receive window (32 bits)");
        let n = n as u32;
        if self.ranges.len() - i <= i {
            self.ranges.range_mut(i..).for_each(|r| r.before = r.before.wrapping_add(n));
        } else {
            self.ranges.range_mut(..i).for_each(|r| r.before = r.before.wrapping_sub(n));
            self.base = self.base.wrapping_sub(n);
        }
    }

    /// Marks [start, end) SACKed; returns how many segments were newly SACKed.
    pub fn add(&mut self, mut start: u64, mut end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        // Most blocks lie at the top: the first block reports the segment that arrived last
        // (RFC 2018 §4), which extends the highest range or opens one above it. Nothing lies
        // above that range, so no search and no count changes.
        let top = self.ranges.back().map(|r| (r.start, r.end()));
        if top.is_none_or(|(_, top_end)| start > top_end) {
            let before = self.stamp(self.sacked);
            self.ranges.push_back(Span::new(start, end, before));
            self.sacked += end - start;
            return end - start;
        }
        if let Some((top_start, top_end)) = top.filter(|&(top_start, _)| start >= top_start) {
            let added = end.saturating_sub(top_end);
            if added > 0 {
                let last = self.ranges.len() - 1;
                self.ranges[last] = Span::new(top_start, end, self.ranges[last].before);
                self.sacked += added;
            }
            return added;
        }
        // The ranges that overlap or touch [start, end): those ending at or after its start
        // and starting at or before its end, adjacent in the order.
        let lo = partition_point(&self.ranges, |r| r.end() < start);
        let hi = partition_point(&self.ranges, |r| r.start <= end);
        let added = if lo < hi {
            let first = self.ranges[lo];
            start = start.min(first.start);
            end = end.max(self.ranges[hi - 1].end());
            let covered = self.count_before(hi) - self.count_before(lo);
            self.ranges[lo] = Span::new(start, end, first.before);
            self.ranges.drain(lo + 1..hi);
            (end - start) - covered
        } else {
            let before = self.stamp(self.count_before(lo));
            self.ranges.insert(lo, Span::new(start, end, before));
            end - start
        };
        self.add_to_counts_from(lo + 1, added);
        self.sacked += added;
        added
    }

    /// Forgets everything below the cumulative ACK `una`.
    pub fn advance(&mut self, una: u64) {
        let below = partition_point(&self.ranges, |r| r.start < una);
        if below == 0 {
            return;
        }
        // Only the last of them can reach above `una` (the ranges are disjoint).
        let last = self.ranges[below - 1];
        let gone = self.count_before(below - 1) + (last.end().min(una) - last.start);
        let keep_from = if last.end() > una {
            // Its stamp takes in the part cut off, so the counts above it stay right.
            self.ranges[below - 1] = Span::new(una, last.end(), last.before.wrapping_add((una - last.start) as u32));
            below - 1
        } else {
            below
        };
        self.ranges.drain(..keep_from);
        self.sacked -= gone;
        match self.ranges.front() {
            Some(first) => self.base = first.before,
            None => self.clear(),
        }
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        self.last_starting_by(seq).is_some_and(|r| seq < r.end())
    }

    /// SACKed segments in [a, b).
    pub fn sacked_in(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        self.sacked_below(b) - self.sacked_below(a)
    }

    /// The boundary below which un-SACKed segments are lost: the start of the DupThresh-th
    /// highest SACKed segment (0 when fewer are SACKed: nothing is lost).
    pub fn lost_below(&self, dup_thresh: u64) -> u64 {
        let mut need = dup_thresh;
        for r in self.ranges.iter().rev() {
            let n = r.len as u64;
            if n >= need {
                return r.end() - need;
            }
            need -= n;
        }
        0
    }

    /// RFC 6675 §4 IsLost(seq).
    pub fn is_lost(&self, seq: u64, dup_thresh: u64) -> bool {
        seq < self.lost_below(dup_thresh) && !self.is_sacked(seq)
    }

    /// RFC 6675 §4 SetPipe over [una, max): un-SACKed segments not deemed lost, plus those
    /// retransmitted (all un-SACKed segments up to and including `high_rxt`).
    ///
    /// Every SACKed range lies in [una, max), and the lost segments are the un-SACKed ones below
    /// the boundary L, so the segments in flight are those of [L, max) minus the SACKed ones
    /// there: counts, not a walk over the holes of a large window.
    pub fn pipe(&self, una: u64, max: u64, high_rxt: Option<u64>, dup_thresh: u64) -> u64 {
        self.pipe_lost_below(una, max, high_rxt, self.lost_below(dup_thresh))
    }

    /// [`Self::pipe`] with the lost boundary given (RACK's, RFC 8985, instead of DupThresh's):
    /// the un-SACKed segments below `lost_below` are lost unless retransmitted.
    pub fn pipe_lost_below(&self, una: u64, max: u64, high_rxt: Option<u64>, lost_below: u64) -> u64 {
        let lost_end = lost_below.clamp(una, max);
        let in_net = (max - lost_end) - self.sacked_in(lost_end, max);
        let rxt = high_rxt.map_or(0, |h| {
            let end = (h + 1).clamp(una, max);
            (end - una) - self.sacked_in(una, end)
        });
        in_net + rxt
    }

    /// The first un-SACKed segment at or above `from` and below `max`.
    pub fn next_unsacked(&self, from: u64, max: u64) -> Option<u64> {
        let mut s = from;
        if let Some(r) = self.last_starting_by(s) {
            s = s.max(r.end());
        }
        (s < max).then_some(s)
    }

    /// Calls `f(a, b)` for every maximal un-SACKed run [a, b) within [from, to), in order.
    /// Visits only the SACKed ranges that meet [from, to).
    pub fn for_each_gap(&self, from: u64, to: u64, mut f: impl FnMut(u64, u64)) {
        if from >= to {
            return;
        }
        let mut pos = from;
        for r in self.ranges.range(self.first_ending_after(from)..).take_while(|r| r.start < to) {
            if r.start > pos {
                f(pos, r.start);
            }
            pos = pos.max(r.end());
            if pos >= to {
                return;
            }
        }
        f(pos, to);
    }

    /// The highest un-SACKed segment in [una, max), if any.
    pub fn highest_unsacked(&self, una: u64, max: u64) -> Option<u64> {
        if una >= max {
            return None;
        }
        let i = partition_point(&self.ranges, |r| r.start < max);
        match i.checked_sub(1).map(|i| self.ranges[i]) {
            // Ranges are non-adjacent, so the segment below the one ending at max is un-SACKed.
            Some(r) if r.end() >= max => (r.start > una).then(|| r.start - 1),
            _ => Some(max - 1),
        }
    }

    /// The highest SACKed segment + 1 (0 when nothing is SACKed).
    pub fn highest_sacked_end(&self) -> u64 {
        self.ranges.back().map_or(0, Span::end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_ranges_and_counts() {
        let mut sb = Scoreboard::default();
        assert_eq!(sb.add(5, 7), 2);
        assert_eq!(sb.add(9, 10), 1);
        assert_eq!(sb.add(7, 9), 2); // joins both neighbours
        assert_eq!(sb.add(6, 8), 0);
        assert_eq!(sb.sacked(), 5);
        assert!(sb.is_sacked(5) && sb.is_sacked(9) && !sb.is_sacked(10) && !sb.is_sacked(4));
        sb.advance(7);
        assert_eq!(sb.sacked(), 3);
        assert!(!sb.is_sacked(6) && sb.is_sacked(7));
    }

    #[test]
    fn rfc6675_loss_and_pipe() {
        // Window 0..10 sent; 1, 2 lost; 3..=9 SACKed except 6.
        let mut sb = Scoreboard::default();
        sb.add(3, 6);
        sb.add(7, 10);
        // The 3rd-highest SACKed segment is 7: un-SACKed segments below 7 are lost (0, 1, 2, 6).
        assert_eq!(sb.lost_below(3), 7);
        assert!(sb.is_lost(0, 3) && sb.is_lost(6, 3) && !sb.is_lost(4, 3));
        // Pipe: un-SACKed 0, 1, 2, 6 are all lost, none retransmitted: 0 in flight.
        assert_eq!(sb.pipe(0, 10, None, 3), 0);
        // Retransmitting 0 and 1 (HighRxt = 1) puts two back in the pipe.
        assert_eq!(sb.pipe(0, 10, Some(1), 3), 2);
        // Sending new segments 10, 11 adds them (not lost: nothing SACKed above).
        assert_eq!(sb.pipe(0, 12, Some(1), 3), 4);
        assert_eq!(sb.next_unsacked(2, 12), Some(2));
        assert_eq!(sb.next_unsacked(3, 12), Some(6));
        assert_eq!(sb.next_unsacked(7, 10), None);
        // With only two segments SACKed nothing is lost yet.
        let mut two = Scoreboard::default();
        two.add(4, 6);
        assert_eq!(two.lost_below(3), 0);
        assert_eq!(two.pipe(0, 6, None, 3), 4);
    }

    #[test]
    fn gaps_are_the_unsacked_runs() {
        let mut sb = Scoreboard::default();
        sb.add(3, 6);
        sb.add(7, 10);
        let gaps = |a, b| {
            let mut v = Vec::new();
            sb.for_each_gap(a, b, |x, y| v.push((x, y)));
            v
        };
        assert_eq!(gaps(0, 12), vec![(0, 3), (6, 7), (10, 12)]);
        assert_eq!(gaps(4, 8), vec![(6, 7)]);
        assert_eq!(gaps(3, 6), vec![]);
        assert_eq!(gaps(5, 5), vec![]);
        assert_eq!(sb.pipe_lost_below(0, 10, None, sb.lost_below(3)), sb.pipe(0, 10, None, 3));
        // Highest un-SACKed: 10 SACKed up to the end leaves 6; a gap at the top is itself.
        assert_eq!((sb.highest_unsacked(0, 10), sb.highest_unsacked(0, 12)), (Some(6), Some(11)));
        assert_eq!((sb.highest_unsacked(7, 10), sb.highest_unsacked(3, 3)), (None, None));
    }

    /// Property: every query agrees with RFC 6675's per-segment definitions (§4: IsLost,
    /// SetPipe) computed over a plain set of SACKed segments, through random SACK blocks and
    /// cumulative ACKs (fixed-seed generator). The set is the independent oracle: it holds
    /// segments, not ranges, stamps or counts.
    #[test]
    fn agrees_with_the_per_segment_definitions() {
        use std::collections::BTreeSet;
        let mut rng = aqm::rng::Rng::from_seed(6675);
        let mut rand = move |n: u64| rng.next_u64() % n;
        for _ in 0..40 {
            let (mut sb, mut set) = (Scoreboard::default(), BTreeSet::new());
            let (mut una, mut max) = (0u64, 60u64);
            for _ in 0..300 {
                let r = rand(100);
                if r < 20 {
                    una = (una + rand(12)).min(max);
                    sb.advance(una);
                    set.retain(|&s| s >= una);
                } else if r == 20 {
                    // A timeout that forgets the scoreboard (RFC 6675 §5.1 allows it).
                    sb.clear();
                    set.clear();
                } else {
                    // Mostly short blocks; now and then one spanning much of the window.
                    let len = if rand(10) == 0 { 1 + rand(max - una + 1) } else { 1 + rand(6) };
                    let a = una + rand(max - una + 1);
                    let b = (a + len).min(max);
                    let new = (a..b).filter(|s| !set.contains(s)).count() as u64;
                    assert_eq!(sb.add(a, b), new);
                    set.extend(a..b);
                }
                max += rand(4);
                let n = set.len() as u64;
                assert_eq!(sb.sacked(), n);
                assert_eq!(sb.is_empty(), n == 0);
                let (a, b) = (una + rand(max - una + 1), una + rand(max - una + 1));
                assert_eq!(sb.sacked_in(a, b), set.range(a..b.max(a)).count() as u64);
                let thresh = 1 + rand(4);
                // IsLost: at least DupThresh SACKed segments above an un-SACKed one.
                let lost = |s: u64| !set.contains(&s) && set.range(s + 1..).count() as u64 >= thresh;
                let high_rxt = (rand(2) == 0).then(|| una + rand(max - una + 1));
                let pipe = (una..max)
                    .map(|s| u64::from(!set.contains(&s) && !lost(s)) + u64::from(!set.contains(&s) && high_rxt.is_some_and(|h| s <= h)))
                    .sum::<u64>();
                assert_eq!(sb.pipe(una, max, high_rxt, thresh), pipe);
                // With a boundary given (RACK's), anywhere, even outside the window.
                let bound = rand(max + 10);
                let pipe_at = (una..max)
                    .map(|s| u64::from(!set.contains(&s) && s >= bound) + u64::from(!set.contains(&s) && high_rxt.is_some_and(|h| s <= h)))
                    .sum::<u64>();
                assert_eq!(sb.pipe_lost_below(una, max, high_rxt, bound), pipe_at);
                let s = una + rand(max - una + 1);
                assert_eq!((sb.is_sacked(s), sb.is_lost(s, thresh)), (set.contains(&s), lost(s)));
                assert_eq!(sb.next_unsacked(s, max), (s..max).find(|x| !set.contains(x)));
                assert_eq!(sb.highest_unsacked(una, max), (una..max).rev().find(|x| !set.contains(x)));
                assert_eq!(sb.highest_sacked_end(), set.last().map_or(0, |l| l + 1));
                let mut gaps = Vec::new();
                sb.for_each_gap(una, max, |g, h| gaps.extend(g..h));
                assert_eq!(gaps, (una..max).filter(|x| !set.contains(x)).collect::<Vec<_>>());
            }
        }
    }
}
