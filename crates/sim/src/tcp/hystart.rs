//! HyStart, the hybrid slow start of Ha and Rhee ("Taming the elephants: new TCP slow start",
//! Computer Networks 2011), as Linux's tcp_cubic runs it by default: hystart = 1,
//! hystart_detect = 3 (both detectors), hystart_low_window = 16, hystart_ack_delta_us = 2000,
//! HYSTART_MIN_SAMPLES = 8, delay threshold clamp(delay_min/8, 4 ms, 16 ms).
//!
//! Slow start doubles the window each round trip until a loss, and the last doubling overshoots
//! the path by up to a whole window: with a deep buffer that is hundreds of drops in one round.
//! HyStart ends slow start (ssthresh = cwnd) when one of two signs says the pipe is full:
//!
//! - **ACK train:** the ACKs of a round arrive back to back (each within 2 ms of the previous
//!   one) for longer than half the minimum RTT. A train that long means the round's data left
//!   the bottleneck at its rate for delay_min/2, i.e. the window is at least half the BDP, and
//!   it doubles in the round.
//! - **Delay:** the smallest RTT among the round's samples, once it has 8, exceeds the
//!   connection's minimum RTT by η = clamp(delay_min/8, 4 ms, 16 ms): a queue is building.
//!
//! The variant is Linux's since 5.8 (net/ipv4/tcp_cubic.c, hystart_update and cubictcp_acked),
//! with these readings:
//! - rounds start in `hystart_update` when snd_una passes the end_seq recorded at the last round
//!   start, so the ACK that opens a round is its first sample;
//! - the delay test keeps the round's minimum over all its samples (not only the first 8, as
//!   before 5.8) and compares strictly: curr_rtt > delay_min + η (RFC 9406's HyStart++ uses ≥;
//!   in nanoseconds the two differ only at equality);
//! - the train threshold is delay_min/2, Linux's for a socket that is not paced (a paced one
//!   uses the whole delay_min; the simulator does not pace). Linux 5.8+ adds a TSO/GRO cushion
//!   of at most 1 ms before halving (hystart_ack_delay); the simulator has no segmentation
//!   offload, so it is left out;
//! - the RTT sample is the one of the segment the ACK echoes: the simulator's packets carry their
//!   send time, as Linux's per-segment transmit stamps do, whether or not the timestamp option
//!   is on;
//! - Linux tests only cwnd < ssthresh, so it can also fire while PRR holds cwnd below ssthresh
//!   in fast recovery; here the detectors run only outside loss recovery (RFC 9406 §4.2 speaks of
//!   slow start only). The minimum RTT is still learnt from every ACK of new data;
//! - Linux withholds RTT samples from delay_min during the first second of a CUBIC epoch (after
//!   a reduction). That can only matter to a slow start resumed after a recovery without a
//!   timeout (NewReno's exit to cwnd < ssthresh), and it is not modelled.
//!
//! What the simulator shows (and a Linux sender without pacing shares): a round starts when the
//! ACK of the first segment sent after the previous round's start arrives, which is near the
//! tail of the previous round's ACK burst. Slow start sends two segments per segment
//! acknowledged, so the bottleneck queue grows through each burst, and the first samples of a
//! round carry that queue: once the burst's own queue exceeds η, the delay detector fires,
//! near the BDP, usually before the train detector, whose train is cut at the end of the burst.
//! (One flow, 100 Mb/s, 50 ms, BDP 625 packets: exit at cwnd 528 by the delay detector.)
//!
//! A retransmission timeout resets it all (Linux's cubictcp_state on TCP_CA_Loss: bictcp_reset
//! forgets delay_min and `found`, bictcp_hystart_reset starts a round), so the slow start after
//! a timeout runs HyStart again.
//!
//! Everything is a handful of integer compares per ACK, with no allocation.

use aqm::Nanos;

const MS: Nanos = 1_000_000;

/// HyStart stays idle below this window, in segments (Linux hystart_low_window).
pub const LOW_WINDOW: f64 = 16.0;
/// RTT samples of a round before the delay test may fire (Linux HYSTART_MIN_SAMPLES).
pub const MIN_SAMPLES: u32 = 8;
/// Bounds of the delay threshold η = delay_min/8 (Linux HYSTART_DELAY_MIN, HYSTART_DELAY_MAX).
pub const DELAY_THRESH_MIN: Nanos = 4 * MS;
pub const DELAY_THRESH_MAX: Nanos = 16 * MS;
/// The largest gap between two ACKs that still continues a train (Linux hystart_ack_delta_us).
pub const ACK_DELTA: Nanos = 2 * MS;

/// Which detector ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    /// The detector that ended this slow start: idle until the next timeout (Linux ca->found).
    found: Option<Exit>,
    /// The smallest RTT sample of the connection since the last timeout; 0 before the first.
    delay_min: Nanos,
    /// When the current round started, and the last ACK that continued its train.
    round_start: Nanos,
    last_ack: Nanos,
    /// The round ends when snd_una passes this segment (snd_max at the round's start).
    end_seq: u64,
    /// The round's smallest RTT sample (`Nanos::MAX` before its first) and how many it has.
    curr_rtt: Nanos,
    sample_cnt: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        // Linux's cubictcp_init: a round starting at the connection's start, with nothing sent.
        let mut h = HyStart { found: None, delay_min: 0, round_start: 0, last_ack: 0, end_seq: 0, curr_rtt: Nanos::MAX, sample_cnt: 0 };
        h.start_round(0, 0);
        h
    }
}

impl HyStart {
    /// Linux's bictcp_hystart_reset.
    fn start_round(&mut self, now: Nanos, snd_max: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_max;
        self.curr_rtt = Nanos::MAX;
        self.sample_cnt = 0;
    }

    /// A retransmission timeout: forget the minimum RTT and any exit found, and start a round.
    pub fn on_timeout(&mut self, now: Nanos, snd_max: u64) {
        self.found = None;
        self.delay_min = 0;
        self.start_round(now, snd_max);
    }

    /// The detector that ended slow start since the last timeout, if any.
    pub fn found(&self) -> Option<Exit> {
        self.found
    }

    /// The smallest RTT seen since the last timeout (0 before the first sample).
    pub fn delay_min(&self) -> Nanos {
        self.delay_min
    }

    /// The current round ends when snd_una passes this segment.
    pub fn round_end(&self) -> u64 {
        self.end_seq
    }

    /// η, the RTT increase that ends slow start, for the current minimum RTT.
    pub fn delay_threshold(&self) -> Nanos {
        (self.delay_min / 8).clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX)
    }

    /// An ACK of new data arrived at `now` with RTT sample `rtt`; `snd_una` is its cumulative
    /// point, `snd_max` the highest segment sent so far plus one, `cwnd` the window before this
    /// ACK grows it, and `slow_start` whether the sender is in slow start outside recovery.
    /// Returns the detector that fired if slow start must end here: the caller sets
    /// ssthresh = cwnd, so this ACK already grows the window in congestion avoidance.
    #[inline]
    pub fn on_ack(&mut self, now: Nanos, rtt: Nanos, snd_una: u64, snd_max: u64, cwnd: f64, slow_start: bool) -> Option<Exit> {
        // cubictcp_acked: a zero sample counts as the clock's smallest step.
        let delay = rtt.max(1);
        if self.delay_min == 0 || delay < self.delay_min {
            self.delay_min = delay;
        }
        if self.found.is_some() || !slow_start || cwnd < LOW_WINDOW {
            return None;
        }
        // hystart_update from here on.
        if snd_una > self.end_seq {
            self.start_round(now, snd_max);
        }
        // The ACK train: it continues while ACKs come within ACK_DELTA of the previous one; a
        // longer gap ends it for the rest of the round (last_ack stays behind).
        if now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            if now.saturating_sub(self.round_start) > self.delay_min / 2 {
                self.found = Some(Exit::AckTrain);
                return self.found;
            }
        }
        // The delay increase: the round's minimum RTT, tested from the ninth sample on.
        self.curr_rtt = self.curr_rtt.min(delay);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt > self.delay_min + self.delay_threshold() {
            self.found = Some(Exit::Delay);
            return self.found;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` ACKs of one segment each, the first opening a round, `gap` apart from `t0`, all with
    /// RTT `rtt`; returns the index of the ACK that ended slow start, if any.
    fn acks(h: &mut HyStart, una0: u64, t0: Nanos, gap: Nanos, n: u64, rtt: Nanos, cwnd: f64) -> Option<(u64, Exit)> {
        for i in 0..n {
            if let Some(e) = h.on_ack(t0 + i * gap, rtt, una0 + i, una0 + 1000, cwnd, true) {
                return Some((i, e));
            }
        }
        None
    }

    /// A HyStart that has learnt a 50 ms minimum RTT in a round of 100 ACKs 3 ms apart (too
    /// far apart for a train; never an RTT increase). The next round opens with the first ACK
    /// past segment 1001 (snd_max at the round's start).
    fn learnt_50ms() -> HyStart {
        let mut h = HyStart::default();
        assert_eq!(acks(&mut h, 1, 0, 3 * MS, 100, 50 * MS, 20.0), None);
        assert_eq!((h.delay_min(), h.end_seq), (50 * MS, 1001));
        h
    }

    #[test]
    fn thresholds_are_linux_defaults() {
        let mut h = HyStart::default();
        // η = delay_min/8, clamped to [4 ms, 16 ms].
        for (min_rtt, eta) in [(10 * MS, 4 * MS), (50 * MS, 6_250_000), (200 * MS, 16 * MS)] {
            h.on_timeout(0, 0);
            h.on_ack(0, min_rtt, 1, 1, 2.0, true);
            assert_eq!(h.delay_threshold(), eta, "min RTT {min_rtt}");
        }
    }

    #[test]
    fn an_rtt_increase_above_eta_exits_at_the_ninth_sample_of_the_round() {
        // η = 6.25 ms at 50 ms. A round whose RTTs are 56.25 ms exactly does not exit (Linux
        // compares strictly); 1 ns more exits at its ninth ACK, after the 8 samples.
        let mut h = learnt_50ms();
        assert_eq!(acks(&mut h, 1002, 400 * MS, 3 * MS, 2000, 56_250_000, 20.0), None);
        let mut h = learnt_50ms();
        assert_eq!(acks(&mut h, 1002, 400 * MS, 3 * MS, 2000, 56_250_001, 20.0), Some((8, Exit::Delay)));
        // Once found, it stays quiet until a timeout.
        assert_eq!(acks(&mut h, 3001, 900 * MS, 3 * MS, 100, 90 * MS, 20.0), None);
    }

    #[test]
    fn the_round_minimum_decides_not_single_samples() {
        // One sample at the base RTT in the round keeps the round's minimum low: no exit,
        // however high the others; the next round (past segment 2002) starts afresh.
        let mut h = learnt_50ms();
        assert_eq!(h.on_ack(400 * MS, 80 * MS, 1002, 2002, 20.0, true), None);
        assert_eq!(h.on_ack(403 * MS, 50 * MS, 1003, 2002, 20.0, true), None);
        assert_eq!(acks(&mut h, 1004, 406 * MS, 3 * MS, 999, 80 * MS, 20.0), None);
        assert_eq!(h.end_seq, 2002);
        assert_eq!(acks(&mut h, 2003, 4000 * MS, 3 * MS, 9, 80 * MS, 20.0), Some((8, Exit::Delay)));
    }

    #[test]
    fn an_ack_train_longer_than_half_the_min_rtt_exits() {
        // ACKs 1 ms apart from the round's start at 400 ms: the one 25 ms in is not past
        // delay_min/2 = 25 ms, the one at 26 ms is. (Equal RTTs: the delay test stays quiet.)
        let mut h = learnt_50ms();
        assert_eq!(acks(&mut h, 1002, 400 * MS, MS, 100, 50 * MS, 20.0), Some((26, Exit::AckTrain)));
        // ACKs exactly 2 ms apart still make a train (Linux: gap <= hystart_ack_delta).
        let mut h = learnt_50ms();
        assert_eq!(acks(&mut h, 1002, 400 * MS, 2 * MS, 100, 50 * MS, 20.0), Some((13, Exit::AckTrain)));
        // 1 ns more and the second ACK already breaks the train: no exit.
        let mut h = learnt_50ms();
        assert_eq!(acks(&mut h, 1002, 400 * MS, 2 * MS + 1, 999, 50 * MS, 20.0), None);
    }

    #[test]
    fn a_broken_train_stays_broken_for_the_round() {
        // 10 ACKs 1 ms apart, a 3 ms gap, then ACKs 1 ms apart again: the gap leaves last_ack
        // behind, so no later ACK of the round continues the train.
        let mut h = learnt_50ms();
        assert_eq!(acks(&mut h, 1002, 400 * MS, MS, 10, 50 * MS, 20.0), None);
        assert_eq!(acks(&mut h, 1012, 412 * MS, MS, 989, 50 * MS, 20.0), None);
        // The next round's train exits again.
        assert_eq!(acks(&mut h, 2003, 2000 * MS, MS, 100, 50 * MS, 20.0), Some((26, Exit::AckTrain)));
    }

    #[test]
    fn nothing_below_sixteen_segments_or_outside_slow_start() {
        let mut h = learnt_50ms();
        // cwnd 15.99: neither detector runs, even for a long train of high RTTs.
        assert_eq!(acks(&mut h, 1002, 400 * MS, MS, 999, 90 * MS, 15.99), None);
        // Nor outside slow start, though the minimum RTT is still learnt.
        for i in 0..999 {
            assert_eq!(h.on_ack(2000 * MS + i * MS, 40 * MS, 2000 + i, 4000, 20.0, false), None);
        }
        assert_eq!(h.delay_min(), 40 * MS);
        // At 16 the train is detected; the round started at 4 s, delay_min/2 is now 20 ms.
        assert_eq!(acks(&mut h, 4001, 4000 * MS, MS, 100, 40 * MS, 16.0), Some((21, Exit::AckTrain)));
    }

    #[test]
    fn a_timeout_forgets_the_exit_and_the_minimum_rtt() {
        let mut h = learnt_50ms();
        assert!(acks(&mut h, 1002, 400 * MS, MS, 100, 50 * MS, 20.0).is_some());
        assert_eq!(h.found(), Some(Exit::AckTrain));
        h.on_timeout(1000 * MS, 5000);
        assert_eq!((h.found(), h.delay_min()), (None, 0));
        // The slow start after the timeout learns 100 ms. Its first round is the one recorded at
        // the timeout (to segment 5000); the ACK past it opens the next, to 5001 + 1000.
        assert_eq!(acks(&mut h, 4000, 2000 * MS, 3 * MS, 1001, 100 * MS, 20.0), None);
        assert_eq!((h.delay_min(), h.end_seq), (100 * MS, 5000));
        assert_eq!(acks(&mut h, 5001, 5100 * MS, 3 * MS, 10, 100 * MS, 20.0), None);
        assert_eq!(h.end_seq, 6001);
        // The round after that exits on its train, past delay_min/2 = 50 ms.
        assert_eq!(acks(&mut h, 6002, 6000 * MS, MS, 100, 100 * MS, 20.0), Some((51, Exit::AckTrain)));
    }
}
