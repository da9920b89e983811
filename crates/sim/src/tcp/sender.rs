//! The NewReno sender.

use aqm::Nanos;

use super::rto::RttEstimator;
use crate::config::TcpConfig;

/// A segment the sender wants transmitted now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub retransmit: bool,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send (moves back to `snd_una` after a timeout: go-back-N).
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub snd_max: u64,
    /// Congestion window and slow-start threshold, in segments.
    pub cwnd: f64,
    pub ssthresh: f64,
    rwnd: u64,
    dupacks: u32,
    dupack_threshold: u32,
    /// `Some(recover)` while in fast recovery: the `snd_max` at loss detection (RFC 6582).
    recovery: Option<u64>,
    /// RFC 6582 §3.2 step 1: fast retransmit is not entered again for losses of segments
    /// sent before this point (set at each recovery and after a timeout).
    recover: Option<u64>,
    /// Whether the current recovery has seen a partial ACK (the timer is reset only on the first).
    partial_seen: bool,
    pub rtt: RttEstimator,
    /// The one segment being timed (Karn's algorithm: never a retransmission).
    timed: Option<(u64, Nanos)>,
    /// When the retransmission timer expires, if running.
    pub rto_deadline: Option<Nanos>,
    /// Segments in the transfer; `None` for a bulk flow.
    total: Option<u64>,
    /// Whether the application still wants to send (false before start and after stop).
    pub active: bool,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
}

impl TcpSender {
    pub fn new(cfg: &TcpConfig, total_segments: Option<u64>) -> Self {
        TcpSender {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: cfg.initial_cwnd as f64,
            // RFC 5681 §3.1: "arbitrarily high" initially.
            ssthresh: f64::INFINITY,
            rwnd: cfg.rwnd as u64,
            dupacks: 0,
            dupack_threshold: cfg.dupack_threshold,
            recovery: None,
            recover: None,
            partial_seen: false,
            rtt: RttEstimator::new(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns),
            timed: None,
            rto_deadline: None,
            total: total_segments,
            active: false,
            retransmits: 0,
            timeouts: 0,
            fast_recoveries: 0,
        }
    }

    /// Every segment of a finite transfer is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.total.is_some_and(|t| self.snd_una >= t)
    }

    /// Segments sent and not yet acknowledged (RFC 5681's FlightSize, in segments).
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    pub fn in_recovery(&self) -> bool {
        self.recovery.is_some()
    }

    /// The application starts: send what the window allows.
    pub fn start(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.active = true;
        self.send_allowed(now, out);
    }

    /// The application leaves: nothing more is sent, the timer stops.
    pub fn stop(&mut self) {
        self.active = false;
        self.rto_deadline = None;
    }

    /// An acknowledgement arrived: `ack` is the next segment the receiver expects, `echo` the
    /// send time of the segment that triggered it.
    pub fn on_ack(&mut self, now: Nanos, ack: u64, out: &mut Vec<Segment>) {
        if !self.active {
            return;
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, out);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack(now, out);
        }
        self.send_allowed(now, out);
    }

    fn on_new_ack(&mut self, now: Nanos, ack: u64, out: &mut Vec<Segment>) {
        let newly = (ack - self.snd_una) as f64;
        if let Some((seq, sent)) = self.timed {
            if ack > seq {
                self.rtt.sample(now - sent);
                self.timed = None;
            }
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        match self.recovery {
            Some(recover) if ack >= recover => {
                // RFC 6582 §3.2 step 3, full acknowledgement: deflate to
                // min(ssthresh, FlightSize + 1 segment).
                self.recovery = None;
                self.cwnd = self.ssthresh.min(self.flight() as f64 + 1.0);
                self.restart_timer(now);
            }
            Some(_) => {
                // Step 3, partial acknowledgement: retransmit the next hole, deflate by the
                // amount acknowledged and add back one segment; reset the timer on the first
                // partial ACK only (the "impatient" variant).
                self.retransmit(self.snd_una, out);
                self.cwnd = (self.cwnd - newly + 1.0).max(1.0);
                if !self.partial_seen {
                    self.partial_seen = true;
                    self.restart_timer(now);
                }
            }
            None => {
                if self.cwnd < self.ssthresh {
                    // RFC 5681 §3.1 slow start: at most one segment per ACK.
                    self.cwnd += newly.min(1.0);
                } else {
                    // RFC 5681 §3.1 congestion avoidance, equation (3).
                    self.cwnd += 1.0 / self.cwnd;
                }
                self.restart_timer(now);
            }
        }
        if self.snd_una >= self.snd_max {
            // §5.2: all outstanding data acknowledged: stop the timer.
            self.rto_deadline = None;
        }
    }

    fn on_dupack(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        if self.recovery.is_some() {
            // RFC 6582 §3.2 step 4: inflate by one segment per further duplicate.
            self.cwnd += 1.0;
            return;
        }
        if self.dupacks != self.dupack_threshold {
            return;
        }
        // RFC 6582 §3.2 step 2: skip if the ACK does not cover more than `recover`.
        if self.recover.is_some_and(|r| self.snd_una < r) {
            return;
        }
        self.fast_recoveries += 1;
        self.ssthresh = (self.flight() as f64 / 2.0).max(2.0);
        self.recovery = Some(self.snd_max);
        self.recover = Some(self.snd_max);
        self.partial_seen = false;
        self.retransmit(self.snd_una, out);
        self.cwnd = self.ssthresh + self.dupack_threshold as f64;
        self.restart_timer(now);
    }

    /// The retransmission timer fired at `now` (the caller checked `rto_deadline`).
    pub fn on_timeout(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.rto_deadline = None;
        if !self.active || self.snd_una >= self.snd_max {
            return;
        }
        self.timeouts += 1;
        // RFC 5681 §3.1 equation (4) and loss window of one segment; RFC 6298 §5.5–5.6.
        self.ssthresh = (self.flight() as f64 / 2.0).max(2.0);
        self.cwnd = 1.0;
        self.rtt.back_off();
        self.recovery = None;
        // RFC 6582 §4: duplicate ACKs for data sent before the timeout must not start a
        // fast retransmit.
        self.recover = Some(self.snd_max);
        self.dupacks = 0;
        self.timed = None;
        self.snd_nxt = self.snd_una;
        self.send_allowed(now, out);
        if self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
    }

    fn retransmit(&mut self, seq: u64, out: &mut Vec<Segment>) {
        self.retransmits += 1;
        // Karn: a segment timed across a retransmission gives an ambiguous sample.
        if self.timed.is_some_and(|(s, _)| s >= seq) {
            self.timed = None;
        }
        out.push(Segment { seq, retransmit: true });
    }

    fn restart_timer(&mut self, now: Nanos) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// Sends new (or, after a timeout, re-sent) segments while the window allows.
    fn send_allowed(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        if !self.active {
            return;
        }
        let window = (self.cwnd.floor() as u64).min(self.rwnd).max(1);
        let end = self.total.unwrap_or(u64::MAX);
        while self.snd_nxt < end && self.snd_nxt - self.snd_una < window {
            let seq = self.snd_nxt;
            let retransmit = seq < self.snd_max;
            if retransmit {
                self.retransmit(seq, out);
            } else {
                out.push(Segment { seq, retransmit: false });
                if self.timed.is_none() {
                    self.timed = Some((seq, now));
                }
            }
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            if self.rto_deadline.is_none() {
                self.restart_timer(now);
            }
        }
    }

    /// Sent segments that the receiver has not acknowledged; exposed for traces.
    pub fn outstanding(&self) -> u64 {
        self.flight()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Nanos = 1_000_000;

    fn cfg() -> TcpConfig {
        TcpConfig {
            cc: "newreno".into(),
            initial_cwnd: 2,
            rwnd: 1000,
            min_rto_ns: 200 * MS,
            initial_rto_ns: 1000 * MS,
            max_rto_ns: 60_000 * MS,
            clock_granularity_ns: MS,
            dupack_threshold: 3,
            transfer_bytes: None,
        }
    }

    fn seqs(v: &[Segment]) -> Vec<u64> {
        v.iter().map(|s| s.seq).collect()
    }

    #[test]
    fn slow_start_doubles_per_round() {
        let mut s = TcpSender::new(&cfg(), None);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(seqs(&out), vec![0, 1]);
        out.clear();
        s.on_ack(100 * MS, 1, &mut out);
        assert_eq!(seqs(&out), vec![2, 3]);
        out.clear();
        s.on_ack(100 * MS, 2, &mut out);
        assert_eq!(seqs(&out), vec![4, 5]);
        assert_eq!(s.cwnd, 4.0);
        // First RTT sample (segment 0, 100 ms) gives RTO = 100 + 4·50 = 300 ms.
        assert_eq!(s.rtt.rto(), 300 * MS);
        assert_eq!(s.rto_deadline, Some(400 * MS));
    }

    #[test]
    fn fast_retransmit_and_newreno_partial_ack() {
        let mut s = TcpSender::new(&cfg(), None);
        s.cwnd = 10.0;
        s.ssthresh = 10.0;
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 10);
        out.clear();
        // Segments 0 and 3 are lost: 1, 2 arrive and produce dup ACKs for 0, then 4..9 too.
        for _ in 0..2 {
            s.on_ack(MS, 0, &mut out);
        }
        assert!(out.is_empty());
        s.on_ack(MS, 0, &mut out);
        // Third dup ACK: ssthresh = 10/2 = 5, retransmit 0, cwnd = 5 + 3 = 8.
        assert_eq!(out, vec![Segment { seq: 0, retransmit: true }]);
        assert_eq!((s.ssthresh, s.cwnd), (5.0, 8.0));
        out.clear();
        // Three more dups inflate to 11 > flight 10: segment 10 goes out.
        for _ in 0..3 {
            s.on_ack(MS, 0, &mut out);
        }
        assert_eq!(seqs(&out), vec![10]);
        out.clear();
        // Partial ACK up to 3: retransmit 3; cwnd = 11 - 3 + 1 = 9.
        s.on_ack(2 * MS, 3, &mut out);
        assert_eq!(out[0], Segment { seq: 3, retransmit: true });
        assert_eq!(s.cwnd, 9.0);
        assert!(s.in_recovery());
        // cwnd 9 against a flight of 11 - 3 = 8 also lets new segment 11 out.
        assert_eq!(seqs(&out), vec![3, 11]);
        out.clear();
        // Full ACK (covers snd_max at detection, 10): exit with min(ssthresh 5, flight 2 + 1).
        s.on_ack(3 * MS, 10, &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd, 3.0);
        assert_eq!(s.fast_recoveries, 1);
    }

    #[test]
    fn timeout_goes_back_n_with_loss_window() {
        let mut s = TcpSender::new(&cfg(), Some(4));
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        let d = s.rto_deadline.unwrap();
        assert_eq!(d, 1000 * MS);
        s.on_timeout(d, &mut out);
        assert_eq!(out, vec![Segment { seq: 0, retransmit: true }]);
        assert_eq!((s.cwnd, s.ssthresh, s.timeouts), (1.0, 2.0, 1));
        // Backed off to 2 s.
        assert_eq!(s.rto_deadline, Some(d + 2000 * MS));
        out.clear();
        s.on_ack(d + 10 * MS, 2, &mut out);
        s.on_ack(d + 20 * MS, 4, &mut out);
        assert!(s.is_complete());
        assert_eq!(s.rto_deadline, None);
    }
}
