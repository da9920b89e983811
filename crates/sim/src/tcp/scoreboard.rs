//! The SACK scoreboard of RFC 6675, over segment numbers.
//!
//! SACKed segments above the cumulative ACK are kept as disjoint ranges, so every query is
//! O(number of holes), never O(window): a segment is *lost* (IsLost, §4) when at least
//! DupThresh SACKed segments lie above it, which makes the lost segments exactly the
//! un-SACKed ones below the DupThresh-th highest SACKed segment.

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges [start, end), disjoint, non-adjacent and in order, found by binary search.
    /// A window has few holes, so shifting the ranges above an insertion costs less than a
    /// tree's node walks and allocations (issue 22: a B-tree took a sixth of the time at
    /// 10 Gb/s); the vector is let go when it empties, so an idle flow holds none.
    ranges: Vec<(u64, u64)>,
    /// Segments covered by `ranges`.
    sacked: u64,
}

impl Scoreboard {
    pub fn clear(&mut self) {
        self.ranges = Vec::new();
        self.sacked = 0;
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
        self.ranges.partition_point(|&(_, e)| e <= seq)
    }

    /// The last range starting at or below `seq`.
    fn last_starting_by(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|&(s, _)| s <= seq);
        i.checked_sub(1).map(|i| self.ranges[i])
    }

    /// Marks [start, end) SACKed; returns how many segments were newly SACKed.
    pub fn add(&mut self, mut start: u64, mut end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let before = self.sacked;
        // The ranges that overlap or touch [start, end): those ending at or after its start
        // and starting at or before its end, adjacent in the order.
        let lo = self.ranges.partition_point(|&(_, e)| e < start);
        let hi = self.ranges.partition_point(|&(s, _)| s <= end);
        if lo < hi {
            start = start.min(self.ranges[lo].0);
            end = end.max(self.ranges[hi - 1].1);
            self.sacked -= self.ranges[lo..hi].iter().map(|&(s, e)| e - s).sum::<u64>();
            self.ranges[lo] = (start, end);
            self.ranges.drain(lo + 1..hi);
        } else {
            self.ranges.insert(lo, (start, end));
        }
        self.sacked += end - start;
        self.sacked - before
    }

    /// Forgets everything below the cumulative ACK `una`.
    pub fn advance(&mut self, una: u64) {
        let below = self.ranges.partition_point(|&(s, _)| s < una);
        if below == 0 {
            return;
        }
        self.sacked -= self.ranges[..below].iter().map(|&(s, e)| e - s).sum::<u64>();
        // Only the last of them can reach above `una` (the ranges are disjoint).
        let (_, e) = self.ranges[below - 1];
        let keep_from = if e > una {
            self.ranges[below - 1] = (una, e);
            self.sacked += e - una;
            below - 1
        } else {
            below
        };
        self.ranges.drain(..keep_from);
        if self.ranges.is_empty() {
            self.ranges = Vec::new();
        }
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        self.last_starting_by(seq).is_some_and(|(_, e)| seq < e)
    }

    /// SACKed segments in [a, b).
    pub fn sacked_in(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        self.ranges[self.first_ending_after(a)..].iter().take_while(|&&(s, _)| s < b).map(|&(s, e)| e.min(b) - s.max(a)).sum()
    }

    /// The boundary below which un-SACKed segments are lost: the start of the DupThresh-th
    /// highest SACKed segment (0 when fewer are SACKed: nothing is lost).
    pub fn lost_below(&self, dup_thresh: u64) -> u64 {
        let mut need = dup_thresh;
        for &(s, e) in self.ranges.iter().rev() {
            let n = e - s;
            if n >= need {
                return e - need;
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
    /// there: only the few ranges above L are visited, not every hole of a large window.
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
            // SACKed below `end`, counted from whichever end of the window is nearer.
            let sacked_below = if end - una <= max - end { self.sacked_in(una, end) } else { self.sacked - self.sacked_in(end, max) };
            (end - una) - sacked_below
        });
        in_net + rxt
    }

    /// The first un-SACKed segment at or above `from` and below `max`.
    pub fn next_unsacked(&self, from: u64, max: u64) -> Option<u64> {
        let mut s = from;
        if let Some((_, e)) = self.last_starting_by(s) {
            s = s.max(e);
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
        for &(s, e) in self.ranges[self.first_ending_after(from)..].iter().take_while(|&&(s, _)| s < to) {
            if s > pos {
                f(pos, s);
            }
            pos = pos.max(e);
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
        let i = self.ranges.partition_point(|&(s, _)| s < max);
        match i.checked_sub(1).map(|i| self.ranges[i]) {
            // Ranges are non-adjacent, so the segment below the one ending at max is un-SACKed.
            Some((s, e)) if e >= max => (s > una).then(|| s - 1),
            _ => Some(max - 1),
        }
    }

    /// The highest SACKed segment + 1 (0 when nothing is SACKed).
    pub fn highest_sacked_end(&self) -> u64 {
        self.ranges.last().map_or(0, |&(_, e)| e)
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
}
