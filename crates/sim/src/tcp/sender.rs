//! The TCP sender: slow start and congestion avoidance through a [`Cc`], optionally ended early
//! by [`HyStart`], loss recovery by SACK (RFC 6675, optionally with PRR, RFC 6937) or NewReno
//! (RFC 6582), limited transmit (RFC 3042), the ECN reaction (RFC 3168 §6.1.2), and the
//! retransmission timer (RFC 6298), and optionally RACK-TLP loss detection (RFC 8985) in place
//! of the DupThresh rule.

use std::collections::{BTreeSet, VecDeque};

use aqm::Nanos;

use super::cc::{Cc, Growth, ReduceFrom};
use super::hystart::{Exit, HyStart};
use super::params::{EcnMode, TcpConfig};
use super::rack::Rack;
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
    /// Retransmissions of this recovery with the `snd_max` and the time at which they were
    /// sent, oldest first, to detect a lost retransmission.
    rtx_marks: VecDeque<(u64, u64, Nanos)>,
    /// RACK-TLP (RFC 8985), when configured (with SACK).
    rack: Option<Rack>,
    /// The tail loss probe timer (RFC 8985 §7.2), when armed.
    pub tlp_deadline: Option<Nanos>,
    /// §7.4: the `snd_max` when a probe was sent, until its ACK (one probe per tail).
    tlp_high_seq: Option<u64>,
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
    /// Tail loss probes sent (RFC 8985 §7).
    pub tlp_probes: u64,
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
            rack: (cfg.rack && cfg.sack).then(|| Rack { min_rtt: Nanos::MAX, ..Rack::default() }),
            tlp_deadline: None,
            tlp_high_seq: None,
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
            tlp_probes: 0,
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
        self.schedule_probe(now, true);
    }

    /// The application leaves: nothing more is sent, the timer stops.
    pub fn stop(&mut self) {
        self.active = false;
        self.rto_deadline = None;
        self.tlp_deadline = None;
        if let Some(r) = &mut self.rack {
            r.deadline = None;
        }
    }

    /// The earliest of the sender's timers (retransmission, RACK reordering, tail loss probe):
    /// like Linux, the simulator runs them as one timer per connection.
    pub fn next_timer(&self) -> Option<Nanos> {
        let reo = self.rack.as_ref().and_then(|r| r.deadline);
        [self.rto_deadline, reo, self.tlp_deadline].into_iter().flatten().min()
    }

    /// The timer fired at `now` (the caller checked `next_timer`): runs whichever is due.
    pub fn on_timer(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        if self.rack.as_ref().and_then(|r| r.deadline).is_some_and(|d| d <= now) {
            self.on_reordering_timeout(now, out);
        } else if self.tlp_deadline.is_some_and(|d| d <= now) {
            self.on_probe_timeout(now, out);
        } else if self.rto_deadline.is_some_and(|d| d <= now) {
            self.on_timeout(now, out);
        }
    }

    /// The boundary below which un-SACKed segments are lost: RACK's (RFC 8985) or the
    /// DupThresh rule's (RFC 6675 IsLost).
    fn lost_end(&self) -> u64 {
        match &self.rack {
            Some(r) => r.lost_below,
            None => self.sb.lost_below(self.dupack_threshold),
        }
    }

    fn pipe(&self) -> u64 {
        let pipe = match &self.rack {
            Some(r) => self.sb.pipe_lost_below(self.snd_una, self.snd_max, self.high_rxt, r.lost_below),
            None => self.sb.pipe(self.snd_una, self.snd_max, self.high_rxt, self.dupack_threshold),
        };
        pipe.saturating_sub(self.relost.len() as u64)
    }

    /// Marks losses during recovery: RACK's rule with RACK on (it finds lost retransmissions
    /// too, RFC 8985 §2.2), otherwise DupThresh's with Linux's pre-RACK lost-retransmission test.
    fn detect_losses(&mut self, now: Nanos) {
        if self.rack.is_some() {
            self.rack_detect(now);
        } else {
            self.detect_lost_retransmissions();
        }
    }

    /// RFC 8985 §6.2 step 4 (RACK_update_reo_wnd without reordering seen: RACK.reord stays
    /// false, as the simulated paths never reorder) and step 5 (RACK_detect_loss): every
    /// un-SACKed segment not yet lost and sent before RACK's segment is lost once RACK.rtt +
    /// reo_wnd has passed since it was sent; for the others the reordering timer is armed at
    /// the latest such deadline (§6.2: `timeout = max(remaining, timeout)`). Returns whether a
    /// segment was newly marked lost.
    fn rack_detect(&mut self, now: Nanos) -> bool {
        let Some(r) = &mut self.rack else { return false };
        r.deadline = None;
        if r.end_seq == 0 {
            return false;
        }
        // Step 4: no reordering window in recovery or once DupThresh segments are SACKed.
        // min(min_RTT/4, SRTT); before any SRTT (no handshake here) min_RTT/4 alone.
        let srtt = self.rtt.srtt() as Nanos;
        let reo_wnd = if self.recovery.is_some() || self.sb.sacked() >= self.dupack_threshold {
            0
        } else if srtt > 0 {
            (r.min_rtt / 4).min(srtt)
        } else {
            r.min_rtt / 4
        };
        let una = self.snd_una;
        let mut marked = false;
        let mut timeout: Nanos = 0;
        // Segments sent once: in sequence order, so in transmit order; the due ones are a prefix.
        let mut pos = r.lost_below.max(una);
        let mut prefix = true;
        while let Some(seq) = self.sb.next_unsacked(pos, self.snd_max) {
            let (ts, rexmit) = r.xmit[(seq - una) as usize];
            pos = seq + 1;
            if rexmit {
                // Retransmissions are judged below, in the order they were sent.
                if prefix {
                    r.lost_below = pos;
                }
                continue;
            }
            if !r.sent_before(ts, seq) {
                break;
            }
            let due = ts + r.rtt + reo_wnd;
            if due <= now && prefix {
                r.lost_below = pos;
                marked = true;
            } else {
                prefix = false;
                timeout = timeout.max(due.saturating_sub(now));
            }
        }
        // Retransmissions of this recovery, oldest first (§2.2: a lost retransmission is found
        // the same way, without waiting for the RTO).
        let mut i = 0;
        while let Some(&(seq, _, ts)) = self.rtx_marks.get(i) {
            if seq < una || self.sb.is_sacked(seq) || r.xmit[(seq - una) as usize] != (ts, true) {
                // Delivered, or sent again since.
                self.rtx_marks.remove(i);
                continue;
            }
            if !r.sent_before(ts, seq) {
                break;
            }
            let due = ts + r.rtt + reo_wnd;
            if due <= now {
                self.rtx_marks.remove(i);
                self.relost.insert(seq);
                marked = true;
            } else {
                timeout = timeout.max(due - now);
                i += 1;
            }
        }
        self.relost.retain(|&s| s >= una);
        if timeout > 0 {
            r.deadline = Some(now + timeout);
        }
        marked
    }

    /// RACK out of recovery: whether a loss it detects starts fast recovery (RFC 8985 §6.2
    /// replaces the DupThresh trigger; RFC 6675 §5 step 4's once-per-window rule still holds).
    fn rack_starts_recovery(&mut self, now: Nanos) -> bool {
        if self.recover.is_some_and(|r| self.snd_una < r) {
            if let Some(r) = &mut self.rack {
                r.deadline = None;
            }
            return false;
        }
        self.rack_detect(now)
    }

    /// RFC 8985 §7.2: (re)arms the probe timeout after new data went out or new data was
    /// acknowledged, when SACK and RACK are on, data is in flight, nothing is SACKed, no
    /// recovery (fast or after a timeout) is under way and no probe is outstanding; otherwise
    /// disarms it. PTO = 2·SRTT, plus WCDelAckT = 200 ms when one segment is in flight (its
    /// ACK may be delayed), and never later than the RTO.
    fn schedule_probe(&mut self, now: Nanos, progress: bool) {
        let allowed = self.rack.is_some()
            && self.active
            && self.snd_max > self.snd_una
            && self.sb.is_empty()
            && self.recovery.is_none()
            && self.rto_streak == 0
            && self.snd_nxt == self.snd_max
            && self.tlp_high_seq.is_none();
        if !allowed {
            self.tlp_deadline = None;
            return;
        }
        if !progress && self.tlp_deadline.is_some() {
            return;
        }
        let srtt = self.rtt.srtt();
        let mut pto = if srtt > 0.0 { (2.0 * srtt).round() as Nanos } else { 1_000_000_000 };
        if srtt > 0.0 && self.flight() == 1 {
            pto += 200_000_000;
        }
        let at = now + pto;
        self.tlp_deadline = Some(self.rto_deadline.map_or(at, |r| at.min(r)));
    }

    /// RFC 8985 §7.3: the probe timeout fired: send one new segment if the application and
    /// the receiver window allow (the congestion window does not apply), else retransmit the
    /// highest segment sent; cwnd is not changed. The RTO is then re-armed, not the PTO: one
    /// probe per tail. Its ACK, or the SACK of it, lets RACK find a lost tail.
    fn on_probe_timeout(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.tlp_deadline = None;
        if !self.active || self.snd_una >= self.snd_max || self.recovery.is_some() || self.tlp_high_seq.is_some() {
            return;
        }
        self.tlp_probes += 1;
        if self.snd_nxt == self.snd_max && self.snd_max < self.end() && self.snd_max - self.snd_una < self.rwnd {
            self.send_new(now, out);
        } else {
            self.retransmit(now, self.snd_max - 1, out);
        }
        self.tlp_high_seq = Some(self.snd_max);
        self.restart_timer(now);
    }

    /// RFC 8985 §6.3: the reordering timer fired; run detection again.
    fn on_reordering_timeout(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        if let Some(r) = &mut self.rack {
            r.deadline = None;
        }
        if !self.active || self.snd_una >= self.snd_max {
            return;
        }
        if self.recovery.is_some() {
            self.rack_detect(now);
        } else if self.rack_starts_recovery(now) {
            self.enter_recovery(now, 0, out);
        }
        self.send_allowed(now, out);
    }

    /// A retransmission is lost when DupThresh segments sent after it have been SACKed while
    /// it has not (the test of Linux's tcp_mark_lost_retrans, before RACK): it goes back to be
    /// sent again, instead of waiting for the retransmission timer.
    fn detect_lost_retransmissions(&mut self) {
        let highest = self.sb.highest_sacked_end();
        while let Some(&(seq, sent_after, _)) = self.rtx_marks.front() {
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
        if let Some(r) = &mut self.rack {
            // Lost marks not yet repaired are found again by the next detection.
            r.lost_below = self.snd_una;
        }
    }

    /// An acknowledgement arrived.
    pub fn on_ack(&mut self, now: Nanos, a: &AckIn, out: &mut Vec<Segment>) {
        if !self.active || a.ack > self.snd_max {
            return;
        }
        let newly_acked = a.ack.saturating_sub(self.snd_una);
        if let Some(r) = &mut self.rack {
            // RFC 8985 §6.2 steps 1-3 over the newly delivered segments: the un-SACKed ones the
            // cumulative ACK covers and the not yet SACKed parts of the SACK blocks.
            let (una, max) = (self.snd_una, self.snd_max);
            let floor = a.ack.max(una);
            self.sb.for_each_gap(una, a.ack, |x, y| r.delivered(now, una, x, y));
            for &(s, e) in a.sack {
                self.sb.for_each_gap(s.max(floor), e.min(max), |x, y| r.delivered(now, una, x, y));
            }
        }
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
        let sent_new = self.snd_max;
        self.send_allowed(now, out);
        if self.rack.is_some() {
            // §7.4: the probe's episode ends with the ACK that covers it.
            if self.tlp_high_seq.is_some_and(|h| a.ack >= h) {
                self.tlp_high_seq = None;
            }
            self.schedule_probe(now, newly_acked > 0 || self.snd_max > sent_new);
        }
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
        if let Some(r) = &mut self.rack {
            r.xmit.drain(..(ack - self.snd_una) as usize);
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        self.rto_streak = 0;
        let recovery = self.recovery;
        match recovery {
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
                self.detect_losses(now);
                if self.prr {
                    self.prr_update(delivered);
                }
            }
            Some(_) => {
                // RFC 6582 §3.2 step 3, partial acknowledgement: retransmit the next hole,
                // deflate by the amount acknowledged and add back one segment.
                self.retransmit(now, self.snd_una, out);
                self.cwnd = (self.cwnd - newly_acked as f64 + 1.0).max(1.0);
                if !self.partial_seen {
                    self.partial_seen = true;
                    self.restart_timer(now);
                }
            }
            None if self.rack.is_some() && self.rack_starts_recovery(now) => {
                // RACK finds a loss on an ACK that also advances: recovery instead of growth.
                self.enter_recovery(now, delivered, out);
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
            self.detect_losses(now);
            if self.prr {
                self.prr_update(delivered);
            }
            return;
        }
        if self.rack.is_some() {
            // RFC 8985 replaces the DupThresh rule (Linux tcp_recovery = 1).
            if self.rack_starts_recovery(now) {
                self.enter_recovery(now, delivered, out);
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
        self.retransmit(now, self.snd_una, out);
        if self.sack {
            self.high_rxt = Some(self.snd_una);
            self.rtx_marks.push_back((self.snd_una, self.snd_max, now));
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
        self.tlp_deadline = None;
        self.tlp_high_seq = None;
        if let Some(r) = &mut self.rack {
            r.deadline = None;
        }
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

    fn retransmit(&mut self, now: Nanos, seq: u64, out: &mut Vec<Segment>) {
        self.retransmits += 1;
        if let Some(r) = &mut self.rack {
            r.xmit[(seq - self.snd_una) as usize] = (now, true);
        }
        // Karn: a segment timed across a retransmission gives an ambiguous sample.
        if self.timed.is_some_and(|(s, _)| s >= seq) {
            self.timed = None;
        }
        out.push(Segment { seq, retransmit: true, cwr: false });
    }

    fn send_new(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        let seq = self.snd_nxt;
        if let Some(r) = &mut self.rack {
            match r.xmit.get_mut((seq - self.snd_una) as usize) {
                Some(x) => *x = (now, false),
                None => r.xmit.push_back((now, false)),
            }
        }
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
                        self.retransmit(now, seq, out);
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
            let lost_end = self.lost_end();
            let from = self.snd_una.max(self.high_rxt.map_or(0, |h| h + 1));
            let hole = self.sb.next_unsacked(from, self.snd_max);
            match hole {
                // A retransmission found lost goes first.
                _ if !self.relost.is_empty() => {
                    let h = self.relost.pop_first().expect("non-empty");
                    self.retransmit(now, h, out);
                    self.rtx_marks.push_back((h, self.snd_max, now));
                }
                // Rule 1: the first lost segment above HighRxt.
                Some(h) if h < lost_end => {
                    self.retransmit(now, h, out);
                    self.high_rxt = Some(h);
                    self.rtx_marks.push_back((h, self.snd_max, now));
                }
                // Rule 2: new data, if the receiver window allows.
                _ if self.snd_max < self.end() && self.snd_max - self.snd_una < self.rwnd => {
                    self.send_new(now, out);
                }
                // Rule 3: an un-SACKed segment below the highest SACKed one.
                Some(h) if h < self.sb.highest_sacked_end() => {
                    self.retransmit(now, h, out);
                    self.high_rxt = Some(h);
                    self.rtx_marks.push_back((h, self.snd_max, now));
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

    /// Linux's TCP (CUBIC, SACK, PRR, limited transmit, timestamps) with RACK-TLP on or off.
    fn rack_cfg(on: bool) -> TcpConfig {
        TcpConfig { rack: on, hystart: false, ..TcpConfig::profile("linux").unwrap() }
    }

    fn sack_ack(a: u64, sack: &[(u64, u64)], echo: Nanos) -> AckIn<'_> {
        AckIn { ack: a, sack, ece: false, echo }
    }

    /// Segments 0..10 sent at 0 over a 100 ms path, one ACK per ms from 100 ms; segment 8,
    /// the second-to-last of the burst, is lost. Returns the sender after the ACKs of 0..=7
    /// and the first SACK (of 9, at 109 ms), with the new segments sent meanwhile and when.
    fn loss_among_the_last_two(rack: bool) -> (TcpSender, Vec<(u64, Nanos)>) {
        let (mut s, mut out) = with_window(&rack_cfg(rack), 10);
        let mut sent = Vec::new();
        for k in 0..8u64 {
            s.on_ack((100 + k) * MS, &sack_ack(k + 1, &[], 0), &mut out);
            sent.extend(out.drain(..).map(|seg| (seg.seq, (100 + k) * MS)));
        }
        s.on_ack(109 * MS, &sack_ack(8, &[(9, 10)], 0), &mut out);
        sent.extend(out.drain(..).map(|seg| (seg.seq, 109 * MS)));
        assert!(sent.iter().all(|&(q, _)| q >= 10), "only new data so far: {sent:?}");
        assert!(!s.in_recovery());
        (s, sent)
    }

    #[test]
    fn rack_starts_recovery_a_quarter_min_rtt_after_the_first_sack() {
        // RFC 8985 §6.2: segment 9 (sent at 0, like 8 but later in sequence) is delivered at
        // 109 ms, so RACK.rtt = 109 ms; one SACKed segment is below DupThresh, so reo_wnd =
        // min_RTT/4 = 25 ms (min_RTT 100 ms from segment 0). Segment 8 is lost at 0 + 109 +
        // 25 = 134 ms, the first SACK's arrival + min_RTT/4: the reordering timer.
        let (mut s, _) = loss_among_the_last_two(true);
        assert_eq!(s.next_timer(), Some(134 * MS));
        assert!(s.rto_deadline.unwrap() > 134 * MS && s.tlp_deadline.is_none());
        let mut out = Vec::new();
        s.on_timer(134 * MS, &mut out);
        assert!(s.in_recovery());
        assert_eq!(out[0], Segment { seq: 8, retransmit: true, cwr: false });
        assert_eq!((s.fast_recoveries, s.timeouts), (1, 0));
    }

    #[test]
    fn dupthresh_starts_that_recovery_a_round_trip_later() {
        // Without RACK the burst yields a single duplicate ACK (109 ms); the next two come
        // from the new segments the ACKs of 0..=7 let out (at 100 and 101 ms, ACKed at 200 and
        // 201 ms): recovery at 201 ms, 67 ms after RACK's 134 ms.
        let (mut s, sent) = loss_among_the_last_two(false);
        assert_eq!(s.next_timer(), s.rto_deadline);
        let mut out = Vec::new();
        let mut start = None;
        assert_eq!(sent[..3], [(10, 100 * MS), (11, 101 * MS), (12, 102 * MS)]);
        for &(q, t) in &sent {
            s.on_ack(t + 100 * MS, &sack_ack(8, &[(9, 10), (10, q + 1)], t), &mut out);
            if s.in_recovery() {
                start = Some((q, t + 100 * MS));
                break;
            }
        }
        assert_eq!(start, Some((11, 201 * MS)));
        assert_eq!(out.iter().find(|g| g.retransmit).map(|g| g.seq), Some(8));
    }

    #[test]
    fn rack_marks_a_hole_lost_at_once_below_dupthresh_sacked_segments() {
        // Segment 0 is delivered at 100 ms (min_RTT = SRTT = 100 ms), segment 1 is lost and
        // 2, 3, 4 are SACKed at 102, 103, 104 ms. The first two SACKs arm the reordering timer
        // (0 + 102 + 25, then 0 + 103 + 25 ms); with the third, three SACKed segments reach
        // DupThresh, reo_wnd is 0 (§6.2 step 4) and 1 is lost at once.
        let (mut s, mut out) = with_window(&rack_cfg(true), 10);
        s.on_ack(100 * MS, &sack_ack(1, &[], 0), &mut out);
        s.on_ack(102 * MS, &sack_ack(1, &[(2, 3)], 0), &mut out);
        assert_eq!(s.next_timer(), Some(127 * MS));
        s.on_ack(103 * MS, &sack_ack(1, &[(2, 4)], 0), &mut out);
        assert_eq!(s.next_timer(), Some(128 * MS));
        assert!(!s.in_recovery());
        out.clear();
        s.on_ack(104 * MS, &sack_ack(1, &[(2, 5)], 0), &mut out);
        assert!(s.in_recovery());
        assert_eq!(out[0], Segment { seq: 1, retransmit: true, cwr: false });
        // Only 1 is lost: segments 5..9, sent at 0 like 4 but later in sequence, are not before
        // RACK's segment (4), so they stay in flight and the timer is off.
        assert_eq!(s.rack.as_ref().unwrap().lost_below, 2);
        assert_eq!(s.next_timer(), s.rto_deadline);
    }

    #[test]
    fn rack_finds_a_lost_retransmission_without_a_timeout() {
        for rack in [true, false] {
            let (mut s, mut out) = with_window(&rack_cfg(rack), 10);
            // Segment 0 lost: recovery on the third SACK (103 ms) retransmits it.
            for k in 1..=3u64 {
                s.on_ack((100 + k) * MS, &sack_ack(0, &[(1, 1 + k)], 0), &mut out);
            }
            assert_eq!(out.iter().filter(|g| g.retransmit).map(|g| g.seq).collect::<Vec<_>>(), vec![0]);
            out.clear();
            // The rest of the window is SACKed; PRR lets new segments out from 104 ms on.
            let mut sent = Vec::new();
            for k in 4..=9u64 {
                s.on_ack((100 + k) * MS, &sack_ack(0, &[(1, 1 + k)], 0), &mut out);
                sent.extend(out.drain(..).map(|g| (g.seq, (100 + k) * MS)));
            }
            assert!(sent.iter().all(|&(q, _)| q >= 10) && sent.len() >= 3, "{sent:?}");
            // The retransmission of 0 (sent at 103 ms) is lost too. The ACK of the first new
            // segment (sent at 104 ms or later) arrives 100 ms after it: RACK.rtt = 100 ms,
            // reo_wnd = 0 in recovery, and 103 + 100 <= now, so 0 is lost again (RFC 8985
            // §2.2) and resent on this very ACK. The pre-RACK rule needs three such SACKs.
            let (q, t) = sent[0];
            s.on_ack(t + 100 * MS, &sack_ack(0, &[(1, q + 1)], t), &mut out);
            let resent: Vec<u64> = out.iter().filter(|g| g.retransmit).map(|g| g.seq).collect();
            assert_eq!(resent, if rack { vec![0] } else { vec![] }, "rack {rack}");
            assert_eq!(s.timeouts, 0);
            assert!(s.in_recovery());
        }
    }

    #[test]
    fn tlp_probes_a_lost_tail_at_two_srtt_instead_of_the_rto() {
        // A 10-segment transfer over a 50 ms path; the last two segments are lost. The ACKs
        // of 0..=7 arrive at 50..57 ms; then two segments are in flight and nothing is SACKed:
        // the probe timeout is 2·SRTT after the last ACK (RFC 8985 §7.2), well before the RTO
        // (at least the 200 ms RTO_MIN).
        let mut s = TcpSender::new(&rack_cfg(true), Some(10));
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 10);
        out.clear();
        for k in 0..8u64 {
            s.on_ack((50 + k) * MS, &sack_ack(k + 1, &[], 0), &mut out);
        }
        assert!(out.is_empty());
        let pto = 57 * MS + (2.0 * s.rtt.srtt()).round() as Nanos;
        assert!(pto < 57 * MS + 120 * MS, "2·SRTT is about 107 ms: {pto}");
        assert_eq!(s.tlp_deadline, Some(pto));
        assert_eq!(s.next_timer(), Some(pto));
        assert!(s.rto_deadline.unwrap() >= 57 * MS + 200 * MS);
        // No new data: the probe resends the highest segment, 9; cwnd is untouched.
        let cwnd = s.cwnd;
        s.on_timer(pto, &mut out);
        assert_eq!(out, vec![Segment { seq: 9, retransmit: true, cwr: false }]);
        assert_eq!((s.tlp_probes, s.timeouts, s.cwnd), (1, 0, cwnd));
        assert_eq!(s.tlp_deadline, None, "one probe per tail");
        out.clear();
        // Its SACK shows 8, sent before it, lost: recovery resends 8 at once (reo_wnd is
        // min_RTT/4 = 12.5 ms, long passed since 8 was sent).
        s.on_ack(pto + 50 * MS, &sack_ack(8, &[(9, 10)], pto), &mut out);
        assert!(s.in_recovery());
        assert_eq!(out, vec![Segment { seq: 8, retransmit: true, cwr: false }]);
        s.on_ack(pto + 100 * MS, &sack_ack(10, &[], pto + 50 * MS), &mut out);
        assert!(s.is_complete());
        assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 2));
        // Without RACK-TLP the tail waits for the RTO.
        let mut s = TcpSender::new(&rack_cfg(false), Some(10));
        s.start(0, &mut out);
        for k in 0..8u64 {
            s.on_ack((50 + k) * MS, &sack_ack(k + 1, &[], 0), &mut out);
        }
        assert_eq!(s.next_timer(), s.rto_deadline);
        assert_eq!(s.tlp_deadline, None);
    }

    #[test]
    fn rack_skips_a_retransmission_acknowledged_faster_than_the_min_rtt() {
        // RFC 8985 §6.2 step 2: in the lost-retransmission case above, an ACK of the
        // retransmission of 0 sooner than min_RTT after it was sent is taken as the original's
        // (spurious retransmission): it does not move RACK to 103 ms.
        let (mut s, mut out) = with_window(&rack_cfg(true), 10);
        for k in 1..=3u64 {
            s.on_ack((100 + k) * MS, &sack_ack(0, &[(1, 1 + k)], 0), &mut out);
        }
        let r = s.rack.as_ref().unwrap();
        assert_eq!((r.xmit_ts, r.end_seq, r.min_rtt), (0, 4, 101 * MS));
        s.on_ack(110 * MS, &sack_ack(10, &[], 0), &mut out);
        let r = s.rack.as_ref().unwrap();
        assert_eq!((r.xmit_ts, r.end_seq), (0, 10), "the 7 ms sample of the retransmission is skipped");
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
