//! The TCP sender: slow start and congestion avoidance through a [`Cc`], optionally ended early
//! by [`HyStart`], loss recovery by SACK (RFC 6675, optionally with PRR, RFC 6937) or NewReno
//! (RFC 6582), limited transmit (RFC 3042), the ECN reaction (RFC 3168 §6.1.2), and the
//! retransmission timer (RFC 6298).

use std::collections::{BTreeSet, VecDeque};

use aqm::Nanos;

use super::cc::{Cc, Growth, ReduceFrom};
use super::hystart::{Exit, HyStart};
use super::params::{EcnMode, TcpConfig};
use super::rto::RttEstimator;
use super::scoreboard::Scoreboard;

/// A segment the sender wants transmitted now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub retransmit: bool,
    /// CWR: the first new data after a window reduction (RFC 3168 §6.1.2).
    pub cwr: bool,
}

/// An acknowledgement as the sender reads it.
#[derive(Clone, Copy, Debug)]
pub struct AckIn<'a> {
    pub ack: u64,
    pub sack: &'a [(u64, u64)],
    pub ece: bool,
    pub echo: Nanos,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    cc: Cc,
    /// The slow-start exit detector, when configured.
    hystart: Option<HyStart>,
    sack: bool,
    prr: bool,
    limited_transmit: bool,
    keep_sack_on_rto: bool,
    growth: Growth,
    reduce_from: ReduceFrom,
    ecn: bool,
    timestamps: bool,
    tick: Nanos,
    rwnd: u64,
    dupack_threshold: u64,
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send (moves back to `snd_una` after a timeout: go-back-N).
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub snd_max: u64,
    /// Congestion window and slow-start threshold, in segments.
    pub cwnd: f64,
    pub ssthresh: f64,
    dupacks: u64,
    /// `Some(point)` while in loss recovery: the `snd_max` at loss detection.
    recovery: Option<u64>,
    /// RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4: no new recovery for losses in a window
    /// already reduced (set at each recovery and after a timeout).
    recover: Option<u64>,
    /// NewReno: the timer is reset on the first partial ACK only (the "impatient" variant).
    partial_seen: bool,
    sb: Scoreboard,
    /// RFC 6675 HighRxt: the highest segment retransmitted in this recovery.
    high_rxt: Option<u64>,
    /// Retransmissions of this recovery with the `snd_max` at the time they were sent, oldest
    /// first, to detect a lost retransmission.
    rtx_marks: VecDeque<(u64, u64)>,
    /// Retransmissions found lost, to be sent again (they are out of the pipe meanwhile).
    relost: BTreeSet<u64>,
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    /// No second ECN reaction until an ACK passes this point (one per window).
    ecn_recover: Option<u64>,
    cwr_pending: bool,
    pub rtt: RttEstimator,
    /// The one segment being timed (Karn's algorithm: never a retransmission).
    timed: Option<(u64, Nanos)>,
    /// When the retransmission timer expires, if running.
    pub rto_deadline: Option<Nanos>,
    /// Timeouts in a row without new data acknowledged.
    rto_streak: u32,
    /// Segments in the transfer; `None` for a bulk flow.
    total: Option<u64>,
    /// Whether the application still wants to send (false before start and after stop).
    pub active: bool,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    /// Slow starts ended by HyStart.
    pub hystart_exits: u64,
}

impl TcpSender {
    /// A sender for a validated configuration.
    pub fn new(cfg: &TcpConfig, total_segments: Option<u64>) -> Self {
        TcpSender {
            cc: Cc::new(&cfg.cc).expect("validated congestion control"),
            hystart: cfg.hystart.then(HyStart::default),
            sack: cfg.sack,
            prr: cfg.prr,
            limited_transmit: cfg.limited_transmit,
            keep_sack_on_rto: cfg.keep_sack_on_rto,
            growth: cfg.growth,
            reduce_from: cfg.reduce_from,
            ecn: cfg.ecn != EcnMode::Off,
            timestamps: cfg.timestamps,
            tick: cfg.clock_granularity_ns.max(1),
            rwnd: cfg.rwnd as u64,
            dupack_threshold: cfg.dupack_threshold as u64,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: cfg.initial_cwnd as f64,
            // RFC 5681 §3.1: "arbitrarily high" initially.
            ssthresh: f64::INFINITY,
            dupacks: 0,
            recovery: None,
            recover: None,
            partial_seen: false,
            sb: Scoreboard::default(),
            high_rxt: None,
            rtx_marks: VecDeque::new(),
            relost: BTreeSet::new(),
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            ecn_recover: None,
            cwr_pending: false,
            rtt: RttEstimator::new(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns),
            timed: None,
            rto_deadline: None,
            rto_streak: 0,
            total: total_segments,
            active: false,
            retransmits: 0,
            timeouts: 0,
            fast_recoveries: 0,
            ecn_reductions: 0,
            hystart_exits: 0,
        }
    }

    /// Every segment of a finite transfer is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.total.is_some_and(|t| self.snd_una >= t)
    }

    /// Segments sent and not yet cumulatively acknowledged (RFC 5681's FlightSize).
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    pub fn in_recovery(&self) -> bool {
        self.recovery.is_some()
    }

    /// Whether data segments carry ECT(0).
    pub fn ecn_capable(&self) -> bool {
        self.ecn
    }

    /// DCTCP's α, for traces.
    pub fn dctcp_alpha(&self) -> Option<f64> {
        self.cc.alpha()
    }

    /// The HyStart detector that ended the current slow start (None: HyStart off, or slow
    /// start not ended by it since the last timeout).
    pub fn hystart_exit(&self) -> Option<Exit> {
        self.hystart.as_ref().and_then(HyStart::found)
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

    fn pipe(&self) -> u64 {
        let pipe = self.sb.pipe(self.snd_una, self.snd_max, self.high_rxt, self.dupack_threshold);
        pipe.saturating_sub(self.relost.len() as u64)
    }

    /// A retransmission is lost when DupThresh segments sent after it have been SACKed while
    /// it has not (the test of Linux's tcp_mark_lost_retrans, before RACK): it goes back to be
    /// sent again, instead of waiting for the retransmission timer.
    fn detect_lost_retransmissions(&mut self) {
        let highest = self.sb.highest_sacked_end();
        while let Some(&(seq, sent_after)) = self.rtx_marks.front() {
            if highest < sent_after + self.dupack_threshold {
                break;
            }
            self.rtx_marks.pop_front();
            if seq >= self.snd_una && !self.sb.is_sacked(seq) {
                self.relost.insert(seq);
            }
        }
        let una = self.snd_una;
        self.relost.retain(|&s| s >= una);
    }

    /// Leaves loss recovery: retransmission bookkeeping is per recovery.
    fn end_recovery(&mut self) {
        self.recovery = None;
        self.high_rxt = None;
        self.rtx_marks.clear();
        self.relost.clear();
    }

    /// An acknowledgement arrived.
    pub fn on_ack(&mut self, now: Nanos, a: &AckIn, out: &mut Vec<Segment>) {
        if !self.active || a.ack > self.snd_max {
            return;
        }
        let newly_acked = a.ack.saturating_sub(self.snd_una);
        let sacked_before = self.sb.sacked();
        let mut newly_sacked = 0;
        if self.sack {
            let floor = a.ack.max(self.snd_una);
            for &(s, e) in a.sack {
                newly_sacked += self.sb.add(s.max(floor), e.min(self.snd_max));
            }
        }
        if newly_acked > 0 {
            self.take_rtt_sample(now, a.ack, a.echo);
            self.sb.advance(a.ack);
            if let Some(h) = &mut self.hystart {
                // Before the window grows on this ACK, as Linux calls pkts_acked before
                // cong_avoid: an exit makes cwnd = ssthresh, so the ACK grows it in congestion
                // avoidance. The echoed send time gives the RTT at full resolution (Linux uses
                // its own microsecond transmit stamps here, not the RTO's clock).
                let slow_start = self.recovery.is_none() && self.cwnd < self.ssthresh;
                if h.on_ack(now, now.saturating_sub(a.echo), a.ack, self.snd_max, self.cwnd, slow_start).is_some() {
                    self.ssthresh = self.cwnd;
                    self.hystart_exits += 1;
                }
            }
        }
        // RFC 6937 DeliveredData: the cumulative advance plus the change in SACKed data.
        let delivered = (newly_acked + self.sb.sacked()).saturating_sub(sacked_before);
        self.cc.on_ack_ecn(newly_acked, a.ece, a.ack, self.snd_max);
        // The ACK that brings a reduction grows nothing (Linux's CWR state).
        let reduced = a.ece && self.ecn && self.on_ece(a.ack);
        if newly_acked > 0 {
            self.on_new_ack(now, a.ack, if reduced { 0 } else { newly_acked }, delivered, out);
        } else if self.snd_max > self.snd_una && a.ack == self.snd_una && (!self.sack || newly_sacked > 0) {
            // A duplicate ACK: without SACK any repeat of snd_una with data outstanding;
            // with SACK one that reports new data (RFC 6675 §2).
            self.on_dupack(now, delivered, out);
        }
        self.send_allowed(now, out);
    }

    fn take_rtt_sample(&mut self, now: Nanos, ack: u64, echo: Nanos) {
        // Both clocks in ticks of the granularity, as ns-2's tcpTick_ does.
        let ticks = |t: Nanos| t / self.tick * self.tick;
        let sent = if self.timestamps {
            // RFC 7323 §4.1: every ACK of new data gives a sample from its echoed timestamp.
            Some(echo)
        } else {
            self.timed.filter(|&(seq, _)| ack > seq).map(|(_, t)| t)
        };
        if let Some(sent) = sent {
            self.rtt.sample(ticks(now) - ticks(sent));
            self.timed = None;
        }
    }

    /// RFC 3168 §6.1.2: react to ECE as to a loss, once per window, without retransmitting.
    /// Returns whether the window was reduced.
    fn on_ece(&mut self, ack: u64) -> bool {
        if self.recovery.is_some() || self.ecn_recover.is_some_and(|r| ack <= r) {
            return false;
        }
        self.ecn_reductions += 1;
        self.ssthresh = self.cc.ssthresh_on_congestion(self.cwnd, self.flight() as f64, self.reduce_from, true);
        self.cwnd = self.ssthresh.min(self.cwnd);
        self.note_reduction();
        true
    }

    /// Any reduction: one per window, and CWR on the next new data when ECN is on.
    fn note_reduction(&mut self) {
        self.ecn_recover = Some(self.snd_max);
        self.cwr_pending = self.ecn;
    }

    fn on_new_ack(&mut self, now: Nanos, ack: u64, newly_acked: u64, delivered: u64, out: &mut Vec<Segment>) {
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        self.rto_streak = 0;
        match self.recovery {
            Some(point) if ack >= point => {
                // Full acknowledgement: recovery ends. RFC 6675 and RFC 6937 set cwnd to
                // ssthresh; RFC 6582 §3.2 step 3 to min(ssthresh, FlightSize + 1).
                self.end_recovery();
                self.cwnd = if self.sack { self.ssthresh } else { self.ssthresh.min(self.flight() as f64 + 1.0) };
                self.restart_timer(now);
            }
            Some(_) if self.sack => {
                // RFC 6298 §5.3: new data acknowledged restarts the timer.
                self.restart_timer(now);
                self.detect_lost_retransmissions();
                if self.prr {
                    self.prr_update(delivered);
                }
            }
            Some(_) => {
                // RFC 6582 §3.2 step 3, partial acknowledgement: retransmit the next hole,
                // deflate by the amount acknowledged and add back one segment.
                self.retransmit(self.snd_una, out);
                self.cwnd = (self.cwnd - newly_acked as f64 + 1.0).max(1.0);
                if !self.partial_seen {
                    self.partial_seen = true;
                    self.restart_timer(now);
                }
            }
            None => {
                if newly_acked > 0 {
                    let srtt_s = self.rtt.srtt() * 1e-9;
                    self.cc.on_ack(&mut self.cwnd, self.ssthresh, newly_acked, self.growth, now as f64 * 1e-9, srtt_s);
                }
                self.restart_timer(now);
            }
        }
        if self.snd_una >= self.snd_max {
            // RFC 6298 §5.2: all outstanding data acknowledged: stop the timer.
            self.rto_deadline = None;
        }
    }

    fn on_dupack(&mut self, now: Nanos, delivered: u64, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        if self.recovery.is_some() {
            if !self.sack {
                // RFC 6582 §3.2 step 4: inflate by one segment per further duplicate.
                self.cwnd += 1.0;
                return;
            }
            self.detect_lost_retransmissions();
            if self.prr {
                self.prr_update(delivered);
            }
            return;
        }
        let lost = self.sack && self.sb.is_lost(self.snd_una, self.dupack_threshold);
        if self.dupacks < self.dupack_threshold && !lost {
            return;
        }
        if self.recover.is_some_and(|r| self.snd_una < r) {
            return;
        }
        self.enter_recovery(now, delivered, out);
    }

    fn enter_recovery(&mut self, now: Nanos, delivered: u64, out: &mut Vec<Segment>) {
        self.fast_recoveries += 1;
        let flight = self.flight();
        self.ssthresh = self.cc.ssthresh_on_congestion(self.cwnd, flight as f64, self.reduce_from, false);
        self.recovery = Some(self.snd_max);
        self.recover = Some(self.snd_max);
        self.partial_seen = false;
        self.note_reduction();
        // Fast retransmit of the first segment presumed lost (RFC 6675 §5 step 4.3).
        self.retransmit(self.snd_una, out);
        if self.sack {
            self.high_rxt = Some(self.snd_una);
            self.rtx_marks.push_back((self.snd_una, self.snd_max));
            self.cwnd = self.ssthresh;
            if self.prr {
                self.recover_fs = flight;
                self.prr_delivered = 0;
                self.prr_out = 1;
                self.prr_update(delivered);
            }
        } else {
            self.cwnd = self.ssthresh + self.dupack_threshold as f64;
        }
        self.restart_timer(now);
    }

    /// RFC 6937 §3: the window for this ACK, proportional while the pipe is above ssthresh,
    /// slow-start reduction bound (PRR-SSRB) once it is below.
    fn prr_update(&mut self, delivered: u64) {
        self.prr_delivered += delivered;
        let pipe = self.pipe() as f64;
        let sndcnt = if pipe > self.ssthresh {
            (self.prr_delivered as f64 * self.ssthresh / self.recover_fs.max(1) as f64).ceil() - self.prr_out as f64
        } else {
            let limit = (self.prr_delivered.saturating_sub(self.prr_out)).max(delivered) as f64 + 1.0;
            (self.ssthresh - pipe).min(limit)
        };
        self.cwnd = pipe + sndcnt.max(0.0);
    }

    /// The retransmission timer fired at `now` (the caller checked `rto_deadline`).
    pub fn on_timeout(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.rto_deadline = None;
        if !self.active || self.snd_una >= self.snd_max {
            return;
        }
        self.timeouts += 1;
        // RFC 5681 §3.1 eq. (4) and a loss window of one segment; RFC 6298 §5.5. When the
        // timer expires again for a segment it already retransmitted, ssthresh is held
        // (RFC 5681 §3.1; ns-2 instead halves the restarted window again, down to 2).
        if self.rto_streak == 0 {
            self.ssthresh = self.cc.ssthresh_on_timeout(self.cwnd, self.flight() as f64, self.reduce_from);
        }
        self.rto_streak += 1;
        self.cwnd = 1.0;
        if let Some(h) = &mut self.hystart {
            // Linux's cubictcp_state on TCP_CA_Loss: the next slow start runs HyStart afresh.
            h.on_timeout(now, self.snd_max);
        }
        self.rtt.back_off();
        self.end_recovery();
        // RFC 6582 §4: duplicate ACKs for data sent before the timeout start no fast
        // retransmit. RFC 2018 §8 distrusts SACK state after a timeout; Linux keeps it.
        self.recover = Some(self.snd_max);
        if !self.keep_sack_on_rto {
            self.sb.clear();
        }
        self.dupacks = 0;
        self.timed = None;
        self.note_reduction();
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
        out.push(Segment { seq, retransmit: true, cwr: false });
    }

    fn send_new(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        let seq = self.snd_nxt;
        out.push(Segment { seq, retransmit: false, cwr: std::mem::take(&mut self.cwr_pending) });
        if self.timed.is_none() {
            self.timed = Some((seq, now));
        }
        self.snd_nxt += 1;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    fn restart_timer(&mut self, now: Nanos) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    fn end(&self) -> u64 {
        self.total.unwrap_or(u64::MAX)
    }

    /// Sends what the window allows.
    fn send_allowed(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        if !self.active {
            return;
        }
        if self.sack && self.recovery.is_some() {
            self.send_in_recovery(now, out);
        } else {
            let mut window = (self.cwnd.floor() as u64).max(1);
            if self.limited_transmit && self.recovery.is_none() {
                // RFC 3042: each of the first two duplicate ACKs lets one new segment out.
                window += self.dupacks.min(2);
            }
            let window = window.min(self.rwnd);
            while self.snd_nxt < self.end() && self.window_used() < window {
                if self.snd_nxt < self.snd_max {
                    // Go-back-N after a timeout, over what the receiver has not SACKed.
                    let seq = self.snd_nxt;
                    if !self.sb.is_sacked(seq) {
                        self.retransmit(seq, out);
                    }
                    self.snd_nxt += 1;
                } else {
                    self.send_new(now, out);
                }
            }
        }
        if self.rto_deadline.is_none() && self.snd_max > self.snd_una {
            self.restart_timer(now);
        }
    }

    /// Segments counted against the window: the flight, except that while resending after a
    /// timeout the SACKed segments below the resend point are known to be delivered.
    fn window_used(&self) -> u64 {
        let flight = self.snd_nxt - self.snd_una;
        if self.snd_nxt < self.snd_max {
            flight - self.sb.sacked_in(self.snd_una, self.snd_nxt)
        } else {
            flight
        }
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 segment, send NextSeg.
    fn send_in_recovery(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        let mut pipe = self.pipe() as f64;
        while self.cwnd - pipe >= 1.0 {
            let lost_end = self.sb.lost_below(self.dupack_threshold);
            let from = self.snd_una.max(self.high_rxt.map_or(0, |h| h + 1));
            let hole = self.sb.next_unsacked(from, self.snd_max);
            match hole {
                // A retransmission found lost goes first.
                _ if !self.relost.is_empty() => {
                    let h = self.relost.pop_first().expect("non-empty");
                    self.retransmit(h, out);
                    self.rtx_marks.push_back((h, self.snd_max));
                }
                // Rule 1: the first lost segment above HighRxt.
                Some(h) if h < lost_end => {
                    self.retransmit(h, out);
                    self.high_rxt = Some(h);
                    self.rtx_marks.push_back((h, self.snd_max));
                }
                // Rule 2: new data, if the receiver window allows.
                _ if self.snd_max < self.end() && self.snd_max - self.snd_una < self.rwnd => {
                    self.send_new(now, out);
                }
                // Rule 3: an un-SACKed segment below the highest SACKed one.
                Some(h) if h < self.sb.highest_sacked_end() => {
                    self.retransmit(h, out);
                    self.high_rxt = Some(h);
                    self.rtx_marks.push_back((h, self.snd_max));
                }
                _ => break,
            }
            pipe += 1.0;
            self.prr_out += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::params::TcpConfig;
    const MS: Nanos = 1_000_000;

    /// ns-2 Sack1 without SACK: plain NewReno, per-ACK growth, 1 ms tick.
    fn newreno() -> TcpConfig {
        TcpConfig { sack: false, clock_granularity_ns: MS, initial_rto_ns: 1000 * MS, ..TcpConfig::profile("ns2-sack").unwrap() }
    }

    fn ack(a: u64) -> AckIn<'static> {
        AckIn { ack: a, sack: &[], ece: false, echo: 0 }
    }

    fn seqs(v: &[Segment]) -> Vec<u64> {
        v.iter().map(|s| s.seq).collect()
    }

    /// A sender that has sent segments 0..w at time 0 with cwnd = ssthresh = w.
    fn with_window(cfg: &TcpConfig, w: u64) -> (TcpSender, Vec<Segment>) {
        let mut s = TcpSender::new(cfg, None);
        s.cwnd = w as f64;
        s.ssthresh = w as f64;
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len() as u64, w);
        out.clear();
        (s, out)
    }

    #[test]
    fn slow_start_doubles_per_round() {
        let mut s = TcpSender::new(&newreno(), None);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(seqs(&out), vec![0, 1]);
        out.clear();
        s.on_ack(100 * MS, &ack(1), &mut out);
        assert_eq!(seqs(&out), vec![2, 3]);
        out.clear();
        s.on_ack(100 * MS, &ack(2), &mut out);
        assert_eq!(seqs(&out), vec![4, 5]);
        assert_eq!(s.cwnd, 4.0);
        // First RTT sample (segment 0, 100 ms) gives RTO = 100 + 4·50 = 300 ms.
        assert_eq!(s.rtt.rto(), 300 * MS);
        assert_eq!(s.rto_deadline, Some(400 * MS));
    }

    #[test]
    fn newreno_fast_retransmit_and_partial_ack() {
        let cfg = TcpConfig { reduce_from: ReduceFrom::Flight, ..newreno() };
        let (mut s, mut out) = with_window(&cfg, 10);
        // Segments 0 and 3 are lost: 1, 2 arrive and produce duplicate ACKs for 0, then 4..9.
        s.on_ack(MS, &ack(0), &mut out);
        s.on_ack(MS, &ack(0), &mut out);
        assert!(out.is_empty());
        s.on_ack(MS, &ack(0), &mut out);
        // Third dup ACK: ssthresh = flight 10 / 2 = 5, retransmit 0, cwnd = 5 + 3 = 8.
        assert_eq!(out, vec![Segment { seq: 0, retransmit: true, cwr: false }]);
        assert_eq!((s.ssthresh, s.cwnd), (5.0, 8.0));
        out.clear();
        // Three more dups inflate to 11 > flight 10: segment 10 goes out.
        for _ in 0..3 {
            s.on_ack(MS, &ack(0), &mut out);
        }
        assert_eq!(seqs(&out), vec![10]);
        out.clear();
        // Partial ACK up to 3: retransmit 3; cwnd = 11 − 3 + 1 = 9, which with a flight of
        // 11 − 3 = 8 also lets new segment 11 out.
        s.on_ack(2 * MS, &ack(3), &mut out);
        assert_eq!(seqs(&out), vec![3, 11]);
        assert!(out[0].retransmit && !out[1].retransmit);
        assert_eq!(s.cwnd, 9.0);
        out.clear();
        // Full ACK (covers snd_max at detection, 10): exit with min(ssthresh 5, flight 2 + 1).
        s.on_ack(3 * MS, &ack(10), &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd, 3.0);
        assert_eq!((s.fast_recoveries, s.retransmits), (1, 2));
    }

    #[test]
    fn ns2_halves_the_window_not_the_flight() {
        let (mut s, mut out) = with_window(&newreno(), 10);
        s.cwnd = 16.0; // window larger than the flight of 10
        for _ in 0..3 {
            s.on_ack(MS, &ack(0), &mut out);
        }
        assert_eq!(s.ssthresh, 8.0);
    }

    #[test]
    fn timeout_goes_back_n_with_loss_window() {
        let mut s = TcpSender::new(&newreno(), Some(4));
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        let d = s.rto_deadline.unwrap();
        assert_eq!(d, 1000 * MS);
        s.on_timeout(d, &mut out);
        assert_eq!(out, vec![Segment { seq: 0, retransmit: true, cwr: false }]);
        assert_eq!((s.cwnd, s.ssthresh, s.timeouts), (1.0, 2.0, 1));
        // Backed off to 2 s.
        assert_eq!(s.rto_deadline, Some(d + 2000 * MS));
        // The retransmission is lost too: back off again, ssthresh held (RFC 5681 §3.1).
        s.on_timeout(d + 2000 * MS, &mut out);
        assert_eq!((s.cwnd, s.ssthresh, s.timeouts), (1.0, 2.0, 2));
        assert_eq!(s.rto_deadline, Some(d + 6000 * MS));
        out.clear();
        s.on_ack(d + 2010 * MS, &ack(2), &mut out);
        s.on_ack(d + 2020 * MS, &ack(4), &mut out);
        assert!(s.is_complete());
        assert_eq!(s.rto_deadline, None);
    }

    #[test]
    fn after_a_timeout_sacked_segments_are_not_resent_when_kept() {
        for keep in [true, false] {
            let cfg = TcpConfig { keep_sack_on_rto: keep, reduce_from: ReduceFrom::Flight, ..newreno() };
            let cfg = TcpConfig { sack: true, ..cfg };
            let (mut s, mut out) = with_window(&cfg, 6);
            // 0 and 1 lost; 2..=5 SACKed (too few dup ACKs to recover: the timer fires).
            s.on_ack(MS, &AckIn { ack: 0, sack: &[(2, 4)], ece: false, echo: 0 }, &mut out);
            s.on_ack(MS, &AckIn { ack: 0, sack: &[(2, 6)], ece: false, echo: 0 }, &mut out);
            out.clear();
            s.cwnd = 1.0; // as the timeout leaves it; then the loss window grows per ACK
            let d = s.rto_deadline.unwrap();
            s.on_timeout(d, &mut out);
            assert_eq!(seqs(&out), vec![0]);
            out.clear();
            s.on_ack(d + MS, &ack(1), &mut out);
            // Slow start: cwnd 2. Kept scoreboard: only 1 is missing below snd_max, then new data.
            let want: Vec<u64> = if keep { vec![1, 6] } else { vec![1, 2] };
            assert_eq!(seqs(&out), want, "keep_sack_on_rto = {keep}");
        }
    }

    fn sack_cfg(prr: bool) -> TcpConfig {
        TcpConfig { prr, reduce_from: ReduceFrom::Flight, clock_granularity_ns: MS, ..TcpConfig::profile("ns2-sack").unwrap() }
    }

    #[test]
    fn sack_recovers_two_holes_in_one_round_trip() {
        let (mut s, mut out) = with_window(&sack_cfg(false), 10);
        // Segments 2 and 5 are lost. ACKs: 1, 2, then dup ACKs SACKing 3, 4, 6, 7, 8, 9.
        s.on_ack(MS, &ack(1), &mut out);
        s.on_ack(MS, &ack(2), &mut out);
        out.clear();
        let blocks = [(3, 4), (3, 5), (3, 5)];
        s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[blocks[0]], ece: false, echo: 0 }, &mut out);
        s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[blocks[1]], ece: false, echo: 0 }, &mut out);
        assert!(!s.in_recovery());
        s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[(6, 7), (3, 5)], ece: false, echo: 0 }, &mut out);
        // Third dup ACK with 3 SACKed above 2: recovery. The two new ACKs grew cwnd past 10 and
        // let segments 10 and 11 out, so the flight is 12 − 2 = 10: ssthresh = cwnd = 5, and
        // the fast retransmit of 2.
        assert!(s.in_recovery());
        assert_eq!(s.ssthresh, 5.0);
        assert_eq!(out[0], Segment { seq: 2, retransmit: true, cwr: false });
        out.clear();
        // SACK of 7: only 6 and 7 lie above 5, so it is not yet lost (pipe 6 > cwnd 5).
        s.on_ack(3 * MS, &AckIn { ack: 2, sack: &[(6, 8), (3, 5)], ece: false, echo: 0 }, &mut out);
        // SACK of 8: 5 is lost; pipe = 5 un-SACKed − 2 lost + 1 retransmitted = 4 < cwnd 5,
        // so NextSeg rule 1 retransmits 5.
        s.on_ack(3 * MS, &AckIn { ack: 2, sack: &[(6, 9), (3, 5)], ece: false, echo: 0 }, &mut out);
        let all: Vec<u64> = out.iter().filter(|s| s.retransmit).map(|s| s.seq).collect();
        assert_eq!(all, vec![5]);
        out.clear();
        // A cumulative ACK to 10 is partial (the recovery point is 12) ...
        s.on_ack(5 * MS, &ack(10), &mut out);
        assert!(s.in_recovery());
        // ... and one to 12 ends recovery with cwnd = ssthresh.
        s.on_ack(5 * MS, &ack(12), &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd, 5.0);
        assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 2));
    }

    #[test]
    fn a_lost_retransmission_is_sent_again_without_a_timeout() {
        let (mut s, mut out) = with_window(&sack_cfg(false), 10);
        // Segment 0 lost: dup ACKs SACK 1, 2, 3 and recovery retransmits 0 (snd_max 10).
        for k in 1..=3u64 {
            s.on_ack(MS, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, echo: 0 }, &mut out);
        }
        assert_eq!(out.iter().filter(|s| s.retransmit).map(|s| s.seq).collect::<Vec<_>>(), vec![0]);
        out.clear();
        // The rest of the window is SACKed and the pipe lets new segments 10.. out.
        for k in 4..=9u64 {
            s.on_ack(2 * MS, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, echo: 0 }, &mut out);
        }
        let new: Vec<u64> = out.iter().filter(|s| !s.retransmit).map(|s| s.seq).collect();
        assert!(new.len() >= 3, "{new:?}");
        out.clear();
        // The retransmission of 0 is lost too; three segments sent after it (10, 11, 12) are
        // SACKed while 0 is not: it is sent again at once, no timeout.
        s.on_ack(3 * MS, &AckIn { ack: 0, sack: &[(1, 13)], ece: false, echo: 0 }, &mut out);
        assert_eq!(out.iter().filter(|s| s.retransmit).map(|s| s.seq).collect::<Vec<_>>(), vec![0]);
        assert_eq!(s.timeouts, 0);
        assert!(s.in_recovery());
    }

    #[test]
    fn prr_spreads_the_reduction_over_the_round_trip() {
        // 20 in flight, segment 0 lost, every later ACK SACKs one more segment.
        let (mut s, mut out) = with_window(&sack_cfg(true), 20);
        let mut sent_per_ack = Vec::new();
        for k in 1..=19u64 {
            s.on_ack(MS, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, echo: 0 }, &mut out);
            sent_per_ack.push(out.iter().filter(|s| !s.retransmit).count());
            out.clear();
        }
        // RFC 6937 by hand: recovery starts at the 3rd ACK (ssthresh 10, RecoverFS 20, the fast
        // retransmit counted in prr_out, pipe 17). While pipe > ssthresh a new segment goes out
        // when ceil(prr_delivered·10/20) − prr_out turns positive, i.e. for every second
        // delivery (ACKs 5, 7, 9, 11, 13); the pipe reaches ssthresh at ACK 15, after which
        // PRR-SSRB sends one segment per delivery to hold it there.
        assert_eq!(s.ssthresh, 10.0);
        assert_eq!(sent_per_ack, vec![0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn limited_transmit_sends_on_the_first_two_dupacks() {
        let cfg = TcpConfig { limited_transmit: true, ..newreno() };
        let (mut s, mut out) = with_window(&cfg, 4);
        s.on_ack(MS, &ack(0), &mut out);
        assert_eq!(seqs(&out), vec![4]);
        s.on_ack(MS, &ack(0), &mut out);
        assert_eq!(seqs(&out), vec![4, 5]);
        s.on_ack(MS, &ack(0), &mut out);
        // The third enters recovery: retransmission, no further limited transmit.
        assert_eq!(out.last().unwrap(), &Segment { seq: 0, retransmit: true, cwr: false });
    }

    #[test]
    fn ece_reduces_once_per_window_without_retransmitting() {
        let cfg = TcpConfig { ecn: EcnMode::Classic, reduce_from: ReduceFrom::Flight, ..newreno() };
        let (mut s, mut out) = with_window(&cfg, 10);
        s.on_ack(MS, &AckIn { ack: 1, sack: &[], ece: true, echo: 0 }, &mut out);
        // Halved from the flight of 10 (the ACK was read after the cut), no retransmission;
        // the first new segment carries CWR.
        assert_eq!((s.ssthresh, s.cwnd, s.ecn_reductions, s.retransmits), (5.0, 5.0, 1, 0));
        out.clear();
        s.on_ack(2 * MS, &AckIn { ack: 6, sack: &[], ece: true, echo: 0 }, &mut out);
        assert_eq!(s.ecn_reductions, 1, "a second ECE in the same window is ignored");
        assert!(out[0].cwr && out.iter().skip(1).all(|s| !s.cwr));
        // Past the window (snd_max was 10 at the cut), ECE reduces again.
        s.on_ack(3 * MS, &AckIn { ack: 11, sack: &[], ece: true, echo: 0 }, &mut out);
        assert_eq!(s.ecn_reductions, 2);
    }

    /// An ideal path for HyStart: one ACK per segment, the ACK of segment `s` sent at `sent`
    /// arriving at `arrive(s, sent, arrival of the previous ACK)`. The sender starts at 0 and
    /// the first `n` ACKs are taken in order; returns the sender and, per ACK, (arrival,
    /// cwnd before it, ssthresh after it).
    fn drive(cfg: &TcpConfig, n: usize, arrive: impl Fn(u64, Nanos, Nanos) -> Nanos) -> (TcpSender, Vec<(Nanos, f64, f64)>) {
        let mut s = TcpSender::new(cfg, None);
        let mut out = Vec::new();
        let (mut sent, mut arrival): (Vec<Nanos>, Vec<Nanos>) = (Vec::new(), Vec::new());
        let mut log = Vec::new();
        let mut now = 0;
        s.start(now, &mut out);
        for k in 0..=n {
            for seg in out.drain(..) {
                assert!(!seg.retransmit && seg.seq as usize == sent.len());
                let prev = arrival.last().copied().unwrap_or(0);
                sent.push(now);
                arrival.push(arrive(seg.seq, now, prev).max(prev));
            }
            if k == n {
                break;
            }
            now = arrival[k];
            let cwnd = s.cwnd;
            s.on_ack(now, &AckIn { ack: k as u64 + 1, sack: &[], ece: false, echo: sent[k] }, &mut out);
            log.push((now, cwnd, s.ssthresh));
        }
        (s, log)
    }

    /// Linux's TCP with HyStart on or off and an initial window `iw`.
    fn hystart_cfg(on: bool, iw: u32) -> TcpConfig {
        TcpConfig { hystart: on, initial_cwnd: iw, ..TcpConfig::profile("linux").unwrap() }
    }

    /// The first ACK (1-based) after which ssthresh is finite, with that ssthresh.
    fn first_exit(log: &[(Nanos, f64, f64)]) -> Option<(usize, f64)> {
        log.iter().position(|l| l.2.is_finite()).map(|i| (i + 1, log[i].2))
    }

    #[test]
    fn hystart_delay_exit_in_the_round_whose_rtt_rises() {
        // IW 16, 100 ms RTT, every burst's ACKs arriving together (no train). With one
        // segment per ACK and +1 per ACK the rounds are: ACKs 1-16 (segments 0-15, end_seq
        // 16), ACKs 17-48 (end_seq 48), ACKs 49-112. From segment 48 on, the RTT is 100 ms +
        // η (12.5 ms) + 1 ns: the third round's ninth ACK, ACK 57, exits, with ssthresh = cwnd
        // = 16 + 56 = 72 before that ACK grows it.
        let eta = 12_500_000;
        let path = |rise: Nanos| move |s: u64, sent: Nanos, _: Nanos| sent + 100 * MS + if s >= 48 { rise } else { 0 };
        let (s, log) = drive(&hystart_cfg(true, 16), 300, path(eta + 1));
        assert_eq!(first_exit(&log), Some((57, 72.0)));
        assert_eq!(log[56].1, 72.0, "ssthresh is the window before the exit ACK");
        assert_eq!((s.hystart_exits, s.hystart_exit()), (1, Some(Exit::Delay)));
        assert_eq!(s.timeouts + s.fast_recoveries, 0);
        // A rise of exactly η is not enough (Linux compares strictly): slow start goes on.
        let (s, log) = drive(&hystart_cfg(true, 16), 300, path(eta));
        assert_eq!((first_exit(&log), s.hystart_exits), (None, 0));
        assert_eq!(s.cwnd, 16.0 + 300.0);
        // Off: the same path never leaves slow start.
        let (s, log) = drive(&hystart_cfg(false, 16), 300, path(eta + 1));
        assert_eq!((first_exit(&log), s.hystart_exit()), (None, None));
    }

    #[test]
    fn hystart_ack_train_exit_past_half_the_min_rtt() {
        // A bottleneck of one segment per ms and 100 ms base RTT: each ACK comes 1 ms after the
        // previous one or 100 ms after its segment left. Rounds as above; the third (ACKs
        // 49-112) starts at 300 ms with a continuous train, and its ACK at 351 ms, the first
        // past delay_min/2 = 50 ms, exits: ACK 100, cwnd 16 + 99 = 115. The round minimum
        // stays at the 100 ms base, so the delay detector is quiet.
        let path = |_: u64, sent: Nanos, prev: Nanos| (sent + 100 * MS).max(prev + MS);
        let (s, log) = drive(&hystart_cfg(true, 16), 300, path);
        assert_eq!(first_exit(&log), Some((100, 115.0)));
        assert_eq!(log[99].0, 351 * MS);
        assert_eq!(s.hystart_exit(), Some(Exit::AckTrain));
        let (_, log) = drive(&hystart_cfg(false, 16), 300, path);
        assert_eq!(first_exit(&log), None);
    }

    #[test]
    fn hystart_waits_for_sixteen_segments() {
        // IW 2 over a 10 ms path with a bottleneck of one segment per ms: delay_min/2 = 5 ms,
        // and the third round's ACKs (7-14, at 30-37 ms) already form a 7 ms train, which
        // would end slow start at ACK 13 with cwnd 14. HyStart waits for cwnd 16 (ACK 15, at
        // 40 ms, opens its first round) and exits on that round's train at 46 ms: ACK 21,
        // cwnd 1 + 21 = 22.
        let path = |_: u64, sent: Nanos, prev: Nanos| (sent + 10 * MS).max(prev + MS);
        let (s, log) = drive(&hystart_cfg(true, 2), 100, path);
        assert_eq!(log[6..14].iter().map(|l| l.0 / MS).collect::<Vec<_>>(), (30..38).collect::<Vec<_>>());
        assert_eq!((log[12].1, log[14].1), (14.0, 16.0));
        assert_eq!(first_exit(&log), Some((21, 22.0)));
        assert_eq!(log[20].0, 46 * MS);
        assert_eq!(s.hystart_exit(), Some(Exit::AckTrain));
    }

    #[test]
    fn a_timeout_rearms_hystart() {
        let path = |s: u64, sent: Nanos, _: Nanos| sent + 100 * MS + if s >= 48 { 20 * MS } else { 0 };
        let (mut s, log) = drive(&hystart_cfg(true, 16), 100, path);
        assert_eq!(first_exit(&log), Some((57, 72.0)));
        let mut out = Vec::new();
        let t = log.last().unwrap().0 + s.rtt.rto();
        s.on_timeout(t, &mut out);
        assert_eq!((s.cwnd, s.hystart_exit(), s.hystart_exits), (1.0, None, 1));
        let h = s.hystart.as_ref().unwrap();
        assert_eq!((h.delay_min(), h.round_end()), (0, s.snd_max));
    }

    #[test]
    fn timestamps_sample_every_ack_and_ticks_quantize() {
        let cfg = TcpConfig { timestamps: true, clock_granularity_ns: 10 * MS, ..newreno() };
        let mut s = TcpSender::new(&cfg, None);
        let mut out = Vec::new();
        s.start(0, &mut out);
        // Sent at 0, acknowledged at 104 ms: 10 ticks of 10 ms = 100 ms; RTO = 100 + 200 = 300.
        s.on_ack(104 * MS, &AckIn { ack: 1, sack: &[], ece: false, echo: 0 }, &mut out);
        assert_eq!(s.rtt.rto(), 300 * MS);
        assert_eq!(s.rtt.srtt(), 100e6);
    }
}
