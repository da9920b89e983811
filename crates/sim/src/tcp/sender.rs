//! The TCP sender: slow start and congestion avoidance through a [`Cc`], optionally ended early
//! by [`HyStart`], loss recovery by SACK (RFC 6675, optionally with PRR, RFC 6937) or NewReno
//! (RFC 6582), limited transmit (RFC 3042), the ECN reaction (RFC 3168 §6.1.2), and the
//! retransmission timer (RFC 6298), and optionally RACK-TLP loss detection (RFC 8985) in place
//! of the DupThresh rule.
//!
//! The phase the sender is in is a [`CaState`] (Linux's tcp_ca_state); its timers are one
//! [`Timers`]; the arithmetic of SACK recovery (NextSeg, PRR) lives in [`super::recovery`] and
//! RACK-TLP's in [`super::rack`].

use aqm::Nanos;

use super::cc::{Cc, Growth, ReduceFrom};
use super::prague::AckInfo;
use super::hystart::{Exit, HyStart};
use super::params::{EcnCwr, EcnMode, PrrDelivered, PrrSsrb, RecoverFs, TcpConfig};
use super::rack::{self, Rack};
use super::recovery::{next_seg, Delivery, NextSeg, NextSegInput, Prr, Retransmissions};
use super::rto::RttEstimator;
use super::scoreboard::Scoreboard;
use super::state::{CaState, Deadline, Recovery, Reducing, Repair, SackRecovery, SenderStats, Timer, Timers};

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
    /// Accurate ECN's ACE field (RFC 9768), read when the connection uses it.
    pub ace: u8,
    pub echo: Nanos,
}

/// The settings the sender reads, fixed for a connection.
#[derive(Clone, Copy, Debug)]
struct Params {
    sack: bool,
    prr: bool,
    limited_transmit: bool,
    keep_sack_on_rto: bool,
    lost_retransmit: bool,
    rescue_retransmit: bool,
    keep_high_rxt: bool,
    growth: Growth,
    reduce_from: ReduceFrom,
    ecn: bool,
    ecn_cwr: EcnCwr,
    prr_delivered: PrrDelivered,
    prr_recover_fs: RecoverFs,
    prr_ssrb: PrrSsrb,
    /// Payload bytes per segment.
    mss: u32,
    /// How the receiver feeds CE back.
    feedback: EcnMode,
    pace: bool,
    /// The ECN field of data when ECN is on.
    ect: aqm::Ecn,
    timestamps: bool,
    /// RTT samples are measured in ticks of this size (RFC 6298 §2's G).
    tick: Nanos,
    /// The receiver window, in segments (the smallest of the configured bounds).
    rwnd: u64,
    dupack_threshold: u64,
}

/// The fields every ACK reads come first and together (C layout): the sequence state and the
/// window, the settings, the RTT estimator, the timers, the pointers to the optional parts,
/// the scoreboard's header, the recovery state, what losses read and the controller's state
/// ([`TcpSender::ACK_READS_BYTES`]); the counters come last. At many flows each distinct cache
/// line an ACK touches is a miss (issue 22), and [`crate::flow::Flow`] starts the record on a
/// line of its own.
#[derive(Clone, Debug)]
#[repr(C)]
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
    /// Duplicate ACKs since the last new ACK (Linux's Disorder state when outside recovery).
    dupacks: u64,
    /// Pacing: the earliest time the next segment may leave (Linux's tcp_wstamp_ns).
    pace_next: Nanos,
    /// Whether the application still wants to send (false before start and after stop).
    pub active: bool,
    /// Set CWR on the next new segment (RFC 3168 §6.1.2), after a reduction with ECN on.
    cwr_pending: bool,
    /// AccECN: the CE packet count the sender has accounted for, modulo 8 (RFC 9768 s.cep).
    s_ace: u8,
    p: Params,
    /// The one segment being timed (Karn's algorithm: never a retransmission).
    timed: Option<(u64, Nanos)>,
    /// Segments in the transfer; `None` for a bulk flow.
    total: Option<u64>,
    pub rtt: RttEstimator,
    pub timers: Timers,
    /// The slow-start exit detector, when configured.
    hystart: Option<Box<HyStart>>,
    /// RACK-TLP (RFC 8985), when configured (with SACK).
    rack: Option<Box<Rack>>,
    sb: Scoreboard,
    ca: CaState,
    /// RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4: no new recovery for losses in a window
    /// already reduced (snd_max at the last recovery or timeout; Linux's high_seq).
    recover: Option<u64>,
    /// Without RACK: the DupThresh loss boundary (the scoreboard's lost_below) when losses were
    /// last detected, to tell the segments an ACK newly marks lost.
    lost_seen: u64,
    /// With `keep_high_rxt`: the highest segment retransmitted since the last timeout, by a
    /// SACK recovery's NextSeg (its HighRxt when it ended) or the resending after a timeout.
    /// Every segment up to it not yet acknowledged or SACKed has been retransmitted since, as
    /// both resend holes in order from SND.UNA: ns-3.44's TcpTxItem::m_retrans flags.
    rtx_mark: Option<u64>,
    cc: Cc,
    pub stats: SenderStats,
}

impl TcpSender {
    /// How many leading bytes of the record every ACK reads: up to the end of the controller's
    /// state (see the type's notes), one run of lines to fetch ahead.
    pub const ACK_READS_BYTES: usize = std::mem::offset_of!(TcpSender, cc) + size_of::<Cc>();

    /// A sender for a validated configuration, sending segments of `payload` bytes (which size
    /// the window bounds given in bytes).
    pub fn new(cfg: &TcpConfig, total_segments: Option<u64>, payload: u32) -> Self {
        TcpSender {
            p: Params {
                sack: cfg.sack,
                prr: cfg.prr,
                limited_transmit: cfg.limited_transmit,
                keep_sack_on_rto: cfg.keep_sack_on_rto,
                lost_retransmit: cfg.lost_retransmit,
                rescue_retransmit: cfg.rescue_retransmit,
                keep_high_rxt: cfg.keep_high_rxt,
                growth: cfg.growth,
                reduce_from: cfg.reduce_from,
                ecn: cfg.ecn != EcnMode::Off,
                ecn_cwr: cfg.ecn_cwr,
                prr_delivered: cfg.prr_delivered,
                prr_recover_fs: cfg.prr_recover_fs,
                prr_ssrb: cfg.prr_ssrb,
                mss: payload,
                feedback: cfg.ecn,
                pace: cfg.pacing,
                ect: cfg.ect.codepoint(),
                timestamps: cfg.timestamps,
                tick: cfg.clock_granularity_ns.max(1),
                rwnd: cfg.window_segments(payload),
                dupack_threshold: cfg.dupack_threshold as u64,
            },
            cc: Cc::new(&cfg.cc).expect("validated congestion control").with_cubic_alpha(cfg.cubic_alpha).with_dctcp(cfg.dctcp).with_prague(cfg.prague, payload + cfg.data_header_bytes()),
            hystart: cfg.hystart.then(Box::default),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: cfg.initial_cwnd as f64,
            // RFC 5681 §3.1: "arbitrarily high" initially.
            ssthresh: f64::INFINITY,
            dupacks: 0,
            recover: None,
            ca: CaState::Open,
            sb: Scoreboard::default(),
            rtx_mark: None,
            rack: (cfg.rack && cfg.sack).then(Box::default),
            lost_seen: 0,
            cwr_pending: false,
            s_ace: (super::receiver::ACE_INIT % 8) as u8,
            pace_next: 0,
            rtt: RttEstimator::new(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns),
            timed: None,
            timers: Timers::default(),
            total: total_segments,
            active: false,
            stats: SenderStats::default(),
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
        self.ca.in_recovery()
    }

    /// Whether data segments are ECN-capable.
    pub fn ecn_capable(&self) -> bool {
        self.p.ecn
    }

    /// The ECN field of data segments: the configured ECT codepoint, or Not-ECT.
    pub fn ecn_field(&self) -> aqm::Ecn {
        if self.p.ecn {
            self.p.ect
        } else {
            aqm::Ecn::NotEct
        }
    }

    /// The HyStart detector that ended the current slow start (None: HyStart off, or slow
    /// start not ended by it since the last timeout).
    pub fn hystart_exit(&self) -> Option<Exit> {
        self.hystart.as_deref().and_then(HyStart::found)
    }

    /// The application starts: send what the window allows.
    pub fn start(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.active = true;
        self.send_allowed(now, out);
        self.schedule_probe(now, true);
    }

    /// The application leaves: nothing more is sent, the timers stop.
    pub fn stop(&mut self) {
        self.active = false;
        self.timers.clear();
    }

    /// The earliest of the sender's timers (retransmission, RACK reordering, tail loss probe):
    /// like Linux, the simulator runs them as one timer per connection.
    pub fn next_timer(&self) -> Option<Nanos> {
        self.timers.next()
    }

    /// The timer fired at `now` (the caller checked `next_timer`): runs whichever is due.
    pub fn on_timer(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        match self.timers.due(now) {
            Some(Timer::Reorder) => self.on_reordering_timeout(now, out),
            Some(Timer::Probe) => self.on_probe_timeout(now, out),
            Some(Timer::Rto) => self.on_timeout(now, out),
            Some(Timer::Pace) => {
                self.timers.pace = Deadline::NONE;
                self.send_allowed(now, out);
            }
            None => {}
        }
    }

    /// The boundary below which un-SACKed segments are lost: RACK's (RFC 8985) or the
    /// DupThresh rule's (RFC 6675 IsLost).
    fn lost_end(&self) -> u64 {
        match &self.rack {
            Some(r) => r.lost_below,
            None => self.sb.lost_below(self.p.dupack_threshold),
        }
    }

    /// RFC 6675 §4 SetPipe, less the retransmissions found lost and not yet sent again.
    /// Outside a recovery, with `keep_high_rxt`, the segments retransmitted since the last
    /// timeout count as HighRxt's do (ns-3.44's BytesInFlight adds every flagged segment).
    fn pipe(&self) -> u64 {
        let (high_rxt, relost) = self.ca.sack_recovery().map_or((self.rtx_mark, 0), |r| (Some(r.high_rxt), r.rtx.relost()));
        let pipe = match &self.rack {
            Some(r) => self.sb.pipe_lost_below(self.snd_una, self.snd_max, high_rxt, r.lost_below),
            None => self.sb.pipe(self.snd_una, self.snd_max, high_rxt, self.p.dupack_threshold),
        };
        pipe.saturating_sub(relost as u64)
    }

    /// Marks losses during recovery: RACK's rule with RACK on (it finds lost retransmissions
    /// too, RFC 8985 §2.2), otherwise DupThresh's (the scoreboard's IsLost), with Linux's
    /// pre-RACK lost-retransmission test when configured.
    /// Returns whether a segment was newly marked lost (Linux's rs->losses > 0): by RACK, by
    /// the DupThresh boundary passing an un-SACKed segment (looked for only where PRR-SSRB
    /// reads it, [`PrrSsrb::Linux`]), or a retransmission found lost.
    fn detect_losses(&mut self, now: Nanos) -> bool {
        if self.rack.is_some() {
            return self.rack_detect(now);
        }
        let mut newly = false;
        if self.p.prr_ssrb == PrrSsrb::Linux {
            let end = self.sb.lost_below(self.p.dupack_threshold);
            let from = self.lost_seen.max(self.snd_una);
            newly = end > from && self.sb.sacked_in(from, end) < end - from;
            self.lost_seen = self.lost_seen.max(end);
        }
        if self.p.lost_retransmit {
            if let Some(r) = self.ca.sack_recovery_mut() {
                newly |= r.rtx.detect_lost_by_dupthresh(&self.sb, self.p.dupack_threshold, self.snd_una);
            }
        }
        newly
    }

    /// Runs RACK's detection (RFC 8985 §6.2 steps 4-5) and arms its reordering timer. Returns
    /// whether a segment was newly marked lost.
    fn rack_detect(&mut self, now: Nanos) -> bool {
        let Some(r) = &mut self.rack else { return false };
        let no_window = self.ca.in_recovery() || self.sb.sacked() >= self.p.dupack_threshold;
        let reo_wnd = r.reo_wnd(no_window, self.rtt.srtt() as Nanos);
        let rtx = self.ca.sack_recovery_mut().map(|s| &mut s.rtx);
        let d = r.detect(now, self.snd_una, self.snd_max, &self.sb, reo_wnd, rtx);
        self.timers.reorder = d.deadline.into();
        d.marked
    }

    /// RACK out of recovery: whether a loss it detects starts fast recovery (RFC 8985 §6.2
    /// replaces the DupThresh trigger; RFC 6675 §5 step 4's once-per-window rule still holds).
    fn rack_starts_recovery(&mut self, now: Nanos) -> bool {
        if self.recover.is_some_and(|r| self.snd_una < r) {
            self.timers.reorder = Deadline::NONE;
            return false;
        }
        self.rack_detect(now)
    }

    /// RFC 8985 §7.2: (re)arms the probe timeout after new data went out or new data was
    /// acknowledged, when SACK and RACK are on, data is in flight, nothing is SACKed, no
    /// recovery (fast or after a timeout) is under way and no probe is outstanding; otherwise
    /// disarms it. It is never later than the RTO.
    fn schedule_probe(&mut self, now: Nanos, progress: bool) {
        let allowed = self.rack.as_ref().is_some_and(|r| r.probe_high_seq.is_none())
            && self.active
            && self.snd_max > self.snd_una
            && self.sb.is_empty()
            && matches!(self.ca, CaState::Open | CaState::Cwr { .. })
            && self.snd_nxt == self.snd_max;
        if !allowed {
            self.timers.probe = Deadline::NONE;
            return;
        }
        if !progress && self.timers.probe.is_set() {
            return;
        }
        let at = now + rack::probe_timeout(self.rtt.srtt(), self.flight());
        self.timers.probe = Deadline::at(self.timers.rto.get().map_or(at, |r| at.min(r)));
    }

    /// RFC 8985 §7.3: the probe timeout fired: send one new segment if the application and
    /// the receiver window allow (the congestion window does not apply), else retransmit the
    /// highest segment sent; cwnd is not changed. The RTO is then re-armed, not the PTO: one
    /// probe per tail. Its ACK, or the SACK of it, lets RACK find a lost tail.
    fn on_probe_timeout(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.timers.probe = Deadline::NONE;
        let probing = self.rack.as_ref().is_some_and(|r| r.probe_high_seq.is_some());
        if !self.active || self.snd_una >= self.snd_max || self.ca.in_recovery() || probing {
            return;
        }
        self.stats.tlp_probes += 1;
        if self.snd_nxt == self.snd_max && self.snd_max < self.end() && self.snd_max - self.snd_una < self.p.rwnd {
            self.send_new(now, out);
        } else {
            self.retransmit(now, self.snd_max - 1, out);
        }
        if let Some(r) = &mut self.rack {
            r.probe_high_seq = Some(self.snd_max);
        }
        self.restart_timer(now);
    }

    /// RFC 8985 §6.3: the reordering timer fired; run detection again.
    fn on_reordering_timeout(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.timers.reorder = Deadline::NONE;
        if !self.active || self.snd_una >= self.snd_max {
            return;
        }
        if self.ca.in_recovery() {
            self.rack_detect(now);
        } else if self.rack_starts_recovery(now) {
            self.enter_recovery(now, Delivery::default(), out);
        }
        self.send_allowed(now, out);
    }

    /// Leaves the recovery or timeout phase: what was marked lost and not yet repaired is found
    /// again by the next detection.
    fn forget_losses(&mut self) {
        if let Some(r) = &mut self.rack {
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
            let tsecr = self.p.timestamps.then_some(a.echo);
            r.on_ack(now, self.snd_una, self.snd_max, a, tsecr, &self.sb);
        }
        let sacked_before = self.sb.sacked();
        let mut newly_sacked = 0;
        if self.p.sack {
            let floor = a.ack.max(self.snd_una);
            for &(s, e) in a.sack {
                newly_sacked += self.sb.add(s.max(floor), e.min(self.snd_max));
            }
        }
        if newly_acked > 0 {
            self.take_rtt_sample(now, a.ack, a.echo);
            self.cc.on_delay_sample(now as f64 * 1e-9, now.saturating_sub(a.echo) as f64 * 1e-9);
            self.sb.advance(a.ack);
            if let Some(h) = &mut self.hystart {
                // Before the window grows on this ACK, as Linux calls pkts_acked before
                // cong_avoid: an exit makes cwnd = ssthresh, so the ACK grows it in congestion
                // avoidance. The echoed send time gives the RTT at full resolution (Linux uses
                // its own microsecond transmit stamps here, not the RTO's clock).
                let slow_start = !self.ca.in_recovery() && self.cwnd < self.ssthresh;
                if h.on_ack(now, now.saturating_sub(a.echo), a.ack, self.snd_max, self.cwnd, slow_start).is_some() {
                    self.ssthresh = self.cwnd;
                    self.stats.hystart_exits += 1;
                }
            }
        }
        // RFC 6937 DeliveredData: the cumulative advance plus the change in SACKed data.
        let delivered = Delivery {
            segments: (newly_acked + self.sb.sacked()).saturating_sub(sacked_before),
            advanced: newly_acked > 0,
            sacked: newly_sacked > 0,
            // Set where losses are detected, in recovery.
            newly_lost: false,
        };
        let now_s = now as f64 * 1e-9;
        let (marked, congested) = self.ce_feedback(a, newly_acked);
        let info = AckInfo { acked: newly_acked, marked, snd_una: a.ack, snd_max: self.snd_max, now: now_s, cwnd: self.cwnd, ssthresh: self.ssthresh };
        self.cc.on_ack_ecn(info);
        // RFC 3168 §6.1.2: once per window, never in loss recovery. The window enters CWR even
        // when the controller declines the reduction (Prague's 25 ms rule: tcp_enter_cwr sets
        // TCP_CA_CWR before prague_enter_cwr returns early).
        let echo = congested && self.ca.ece_allowed(a.ack);
        let reduce = echo && self.cc.ecn_reduction_allowed(now_s);
        let credit = self.cc.growth_credit(newly_acked, marked);
        if matches!(self.cc, Cc::Prague(_)) {
            self.prague_ack(now, info, credit, echo, reduce, delivered, out);
        } else if newly_acked > 0 {
            // The ACK that brings a reduction grows nothing (Linux's CWR state). The reduction
            // follows the cumulative advance, as ns-3.44's ReceivedAck discards the acknowledged
            // data (DiscardUpTo) before it reads the echo: EnterCwr's BytesInFlight excludes it.
            // A recovery this ACK starts (RACK) takes the place of the ECN reduction.
            self.on_new_ack(now, a.ack, if reduce { 0 } else { credit }, delivered, out);
            if echo && self.ca.ece_allowed(a.ack) {
                let ssthresh = self.ecn_ssthresh(reduce);
                self.on_ece(ssthresh, delivered);
            }
        } else if echo {
            let ssthresh = self.ecn_ssthresh(reduce);
            self.on_ece(ssthresh, delivered);
        }
        if newly_acked == 0
            && self.snd_max > self.snd_una
            && a.ack == self.snd_una
            && (!self.p.sack || newly_sacked > 0)
        {
            // A duplicate ACK: without SACK any repeat of snd_una with data outstanding;
            // with SACK one that reports new data (RFC 6675 §2).
            self.on_dupack(now, delivered, out);
        }
        let sent_new = self.snd_max;
        self.send_allowed(now, out);
        if let Some(r) = &mut self.rack {
            // §7.4: the probe's episode ends with the ACK that covers it.
            if r.probe_high_seq.is_some_and(|h| a.ack >= h) {
                r.probe_high_seq = None;
            }
            self.schedule_probe(now, newly_acked > 0 || self.snd_max > sent_new);
        }
    }

    fn take_rtt_sample(&mut self, now: Nanos, ack: u64, echo: Nanos) {
        // Both clocks in ticks of the granularity, as ns-2's tcpTick_ does.
        let tick = self.p.tick;
        let ticks = |t: Nanos| t / tick * tick;
        let sent = if self.p.timestamps {
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

    /// What the ACK says about CE marks: the segments reported marked (AccECN: the ACE
    /// counter's advance, RFC 9768 §3.2.2.5; DCTCP's echo: all those acknowledged when ECE is
    /// set) and whether it signals congestion at all (ECE, or a counter that moved).
    fn ce_feedback(&mut self, a: &AckIn, newly_acked: u64) -> (u64, bool) {
        match self.p.feedback {
            EcnMode::Off => (0, false),
            EcnMode::Classic | EcnMode::Dctcp => (if a.ece { newly_acked } else { 0 }, a.ece),
            EcnMode::AccEcn => {
                // Modulo 8: the receiver acknowledges before a third mark (see the receiver),
                // so the counter cannot wrap unseen between two ACKs that arrive in order.
                let delta = a.ace.wrapping_sub(self.s_ace) & 7;
                self.s_ace = a.ace;
                (delta as u64, delta > 0)
            }
        }
    }

    /// tcp_prague's ACK, in the order of Linux's tcp_ack: tcp_fastretrans_alert first (a CWR
    /// exit, a recovery RACK starts, or tcp_enter_cwr, whose prague_enter_cwr reduces with α
    /// as it stands), then tcp_cong_control → prague_cong_control: prague_update_cwnd (the
    /// first-mark halving, then the growth on the unmarked segments, `credit`, on every ACK
    /// whatever the CA state, the reducing one included) and prague_update_alpha last.
    #[allow(clippy::too_many_arguments)]
    fn prague_ack(&mut self, now: Nanos, info: AckInfo, credit: u64, echo: bool, reduce: bool, delivered: Delivery, out: &mut Vec<Segment>) {
        let may_grow = info.acked > 0 && self.on_new_ack(now, info.snd_una, 0, delivered, out);
        // A recovery this ACK starts (RACK) takes the place of the ECN reduction.
        let echo = echo && self.ca.ece_allowed(info.snd_una);
        // With `ecn_cwr` hold or prr (not tcp_prague's), the CWR phase grows nothing.
        let grows = credit > 0 && may_grow && (!echo || self.p.ecn_cwr == EcnCwr::Grow);
        let found = AckInfo { cwnd: self.cwnd, ssthresh: self.ssthresh, ..info };
        let Cc::Prague(p) = &mut self.cc else { unreachable!("called for Prague") };
        let window = p.respond(&found, reduce && echo, grows);
        if echo {
            self.on_ece(window, delivered);
        } else if let Some(w) = window {
            // The first mark's halving on an ACK that starts no CWR phase.
            let before = self.cwnd;
            self.cwnd = w;
            self.ssthresh = w;
            self.audit_response(before, true, w);
        }
        if grows {
            self.grow(now, credit);
        }
        if let Cc::Prague(p) = &mut self.cc {
            p.after_ack(AckInfo { cwnd: self.cwnd, ssthresh: self.ssthresh, ..info });
        }
    }

    /// The ssthresh of an ECN reduction when the controller makes one (`reduce`).
    fn ecn_ssthresh(&mut self, reduce: bool) -> Option<f64> {
        reduce.then(|| {
            let base = self.reduction_base(false);
            self.cc.ssthresh_on_congestion(self.cwnd, base, true)
        })
    }

    /// RFC 3168 §6.1.2: react to ECE as to a loss, without retransmitting (the caller checked
    /// that the echo may act): the window enters CWR, and is reduced to `ssthresh` when there
    /// is one (the controller may decline: see the caller). `delivered`: segments this ACK
    /// delivered (PRR's first step, with [`EcnCwr::Prr`]).
    fn on_ece(&mut self, ssthresh: Option<f64>, delivered: Delivery) {
        let Some(ssthresh) = ssthresh else {
            self.ca = CaState::Cwr { until: self.snd_max, reducing: None };
            self.cwr_pending = self.p.ecn;
            return;
        };
        self.stats.ecn_reductions += 1;
        let before = self.cwnd;
        self.ssthresh = ssthresh;
        let reducing = match self.p.ecn_cwr {
            EcnCwr::Grow => None,
            EcnCwr::Hold => Some(Reducing::Hold),
            EcnCwr::Prr => {
                let pipe = self.pipe();
                let recover_fs = match self.p.prr_recover_fs {
                    RecoverFs::Flight | RecoverFs::Pipe => pipe,
                    RecoverFs::Cwnd => before as u64,
                };
                let mut prr = Prr::start_cwr(recover_fs, self.p.prr_delivered, self.p.mss).with_ssrb(self.p.prr_ssrb);
                // ns-3.44 EnterCwr → TcpPrrRecovery::EnterRecovery: DoRecovery with isDupAck.
                self.cwnd = prr.on_ack(delivered, true, pipe as f64, self.ssthresh);
                Some(Reducing::Prr(prr))
            }
        };
        let prr = matches!(reducing, Some(Reducing::Prr(_)));
        if !prr {
            self.cwnd = self.ssthresh.min(self.cwnd);
        }
        // PRR's pipe + sndcnt is not a larger window (see enter_recovery); the response's
        // window is ssthresh.
        let set = if prr { self.ssthresh } else { self.cwnd };
        self.audit_response(before, true, set);
        self.ca = CaState::Cwr { until: self.snd_max, reducing };
        self.cwr_pending = self.p.ecn;
    }

    /// New data acknowledged up to `ack`; the window grows on `newly_acked` segments where the
    /// state lets it. Returns whether it does (Open or CWR without a reduction rule, and no
    /// recovery started).
    fn on_new_ack(&mut self, now: Nanos, ack: u64, newly_acked: u64, delivered: Delivery, out: &mut Vec<Segment>) -> bool {
        let mut may_grow = false;
        if let Some(r) = &mut self.rack {
            r.acked(ack - self.snd_una);
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        if let CaState::Loss { until, .. } = self.ca {
            // New data acknowledged ends the timeout phase; the reduced window stays reduced.
            self.ca = CaState::Cwr { until, reducing: None };
        }
        let ca = std::mem::take(&mut self.ca);
        match ca {
            CaState::Recovery(rec) if ack >= rec.point => {
                // Full acknowledgement: recovery ends. RFC 6675 and RFC 6937 set cwnd to
                // ssthresh; RFC 6582 §3.2 step 3 (option 1) to min(ssthresh, max(FlightSize,
                // SMSS) + SMSS).
                if let Repair::Sack(r) = &rec.repair {
                    if self.p.keep_high_rxt {
                        self.rtx_mark = Some(r.high_rxt);
                    }
                }
                self.ca = CaState::Cwr { until: rec.point, reducing: None };
                self.forget_losses();
                let flight = self.flight().max(1) as f64;
                self.cwnd = if self.p.sack { self.ssthresh } else { self.ssthresh.min(flight + 1.0) };
                self.restart_timer(now);
            }
            CaState::Recovery(Recovery { point, repair: Repair::Sack(r) }) => {
                self.ca = CaState::Recovery(Recovery { point, repair: Repair::Sack(r) });
                // RFC 6298 §5.3: new data acknowledged restarts the timer.
                self.restart_timer(now);
                let newly_lost = self.detect_losses(now);
                // ns-3.44 ProcessAck: DupAck's DoRecovery (isDupAck) when the ACK also SACKs new
                // data, then the partial-ACK branch's.
                self.prr_update(Delivery { newly_lost, ..delivered }, delivered.sacked);
            }
            CaState::Recovery(Recovery { point, repair: Repair::NewReno { partial_seen } }) => {
                self.ca = CaState::Recovery(Recovery { point, repair: Repair::NewReno { partial_seen: true } });
                // RFC 6582 §3.2 step 3, partial acknowledgement: retransmit the next hole,
                // deflate by the amount acknowledged and add back one segment.
                self.retransmit(now, self.snd_una, out);
                self.cwnd = (self.cwnd - newly_acked as f64 + 1.0).max(1.0);
                if !partial_seen {
                    self.restart_timer(now);
                }
            }
            CaState::Cwr { until, reducing: Some(mut reducing) } => {
                // An ECN reduction under way: no growth (ns-3.44 ProcessAck's CA_CWR branch
                // calls DoRecovery, not IncreaseWindow; Linux tcp_cong_control likewise);
                // with PRR, the window follows the deliveries of ACKs that advance (ns-3 leaves
                // duplicate ACKs in CA_CWR out of PRR).
                if let Reducing::Prr(prr) = &mut reducing {
                    self.cwnd = prr.on_ack(delivered, false, self.pipe() as f64, self.ssthresh);
                }
                self.ca = CaState::Cwr { until, reducing: Some(reducing) };
                self.restart_timer(now);
            }
            other => {
                self.ca = other;
                if self.rack.is_some() && self.rack_starts_recovery(now) {
                    // RACK finds a loss on an ACK that also advances: recovery instead of growth.
                    self.enter_recovery(now, delivered, out);
                } else {
                    may_grow = true;
                    if newly_acked > 0 {
                        self.grow(now, newly_acked);
                    }
                    self.restart_timer(now);
                }
            }
        }
        if let CaState::Cwr { until, reducing } = self.ca {
            if self.snd_una > until {
                if reducing.is_some() {
                    // ns-3.44 ProcessAck: cwnd = ssthresh on leaving CA_CWR (RFC 6937 §3 at
                    // the end of a reduction).
                    self.cwnd = self.ssthresh;
                }
                self.ca = CaState::Open;
            }
        }
        if self.snd_una >= self.snd_max {
            // RFC 6298 §5.2: all outstanding data acknowledged: stop the timer.
            self.timers.rto = Deadline::NONE;
        }
        may_grow
    }

    /// The controller grows the window for `segments` acknowledged outside recovery.
    fn grow(&mut self, now: Nanos, segments: u64) {
        let srtt_s = self.rtt.srtt() * 1e-9;
        self.cc.on_ack(&mut self.cwnd, self.ssthresh, segments, self.p.growth, now as f64 * 1e-9, srtt_s);
    }

    fn on_dupack(&mut self, now: Nanos, delivered: Delivery, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        if self.ca.in_recovery() {
            if !self.p.sack {
                // RFC 6582 §3.2 step 4: inflate by one segment per further duplicate.
                self.cwnd += 1.0;
                return;
            }
            let newly_lost = self.detect_losses(now);
            // ns-3.44 DupAck in CA_RECOVERY: DoRecovery with isDupAck.
            self.prr_update(Delivery { newly_lost, ..delivered }, true);
            return;
        }
        if self.rack.is_some() {
            // RFC 8985 replaces the DupThresh rule (Linux tcp_recovery = 1).
            if self.rack_starts_recovery(now) {
                self.enter_recovery(now, delivered, out);
            }
            return;
        }
        let lost = self.p.sack && self.sb.is_lost(self.snd_una, self.p.dupack_threshold);
        if self.dupacks < self.p.dupack_threshold && !lost {
            return;
        }
        if self.recover.is_some_and(|r| self.snd_una < r) {
            return;
        }
        self.enter_recovery(now, delivered, out);
    }

    fn enter_recovery(&mut self, now: Nanos, delivered: Delivery, out: &mut Vec<Segment>) {
        self.stats.fast_recoveries += 1;
        let before = self.cwnd;
        let recover_fs = match self.p.prr_recover_fs {
            RecoverFs::Flight => self.flight(),
            RecoverFs::Pipe => self.in_network(true),
            // Linux's snd_cwnd counts whole segments.
            RecoverFs::Cwnd => self.cwnd as u64,
        };
        let base = self.reduction_base(true);
        self.ssthresh = self.cc.ssthresh_on_congestion(self.cwnd, base, false);
        let point = self.snd_max;
        self.recover = Some(point);
        if self.p.prr_ssrb == PrrSsrb::Linux {
            // What is lost at the start is not news to the ACKs that follow (read only by
            // detect_losses for Linux's PRR-SSRB).
            self.lost_seen = self.sb.lost_below(self.p.dupack_threshold);
        }
        self.cwr_pending = self.p.ecn;
        let repair = if self.p.sack {
            let mut rtx = Retransmissions::default();
            rtx.record(self.snd_una, self.snd_max, now);
            let prr = self.p.prr.then(|| Prr::start(recover_fs, self.p.prr_delivered, self.p.mss).with_ssrb(self.p.prr_ssrb));
            // With `keep_high_rxt`, the segments the previous recovery resent stay resent (ns-3.44:
            // NextSeg passes over m_retrans); the fast retransmission resends the head anyway
            // (EnterRecovery's SendDataPacket at SND.UNA, whatever its flag).
            let high_rxt = self.snd_una.max(self.rtx_mark.unwrap_or(0));
            Repair::Sack(SackRecovery { high_rxt, rtx, prr, rescued: false })
        } else {
            Repair::NewReno { partial_seen: false }
        };
        self.ca = CaState::Recovery(Recovery { point, repair });
        // Fast retransmit of the first segment presumed lost (RFC 6675 §5 step 4.3).
        self.retransmit(now, self.snd_una, out);
        if self.p.sack {
            self.cwnd = self.ssthresh;
            // ns-3.44 TcpPrrRecovery::EnterRecovery: DoRecovery with isDupAck.
            self.prr_update(delivered, true);
            // PRR's cwnd is pipe + sndcnt (RFC 6937 §3): above the old window while more than it
            // is still in flight (after an ECN reduction, say), it counts segments in the
            // network and sends in proportion to deliveries, not a larger window. The window
            // the response sets is ssthresh.
            let set = if self.p.prr { self.ssthresh } else { self.cwnd };
            self.audit_response(before, true, set);
        } else {
            self.cwnd = self.ssthresh + self.p.dupack_threshold as f64;
            // The inflation by DupThresh counts segments that left the network (RFC 6582 §3.2
            // step 2), not a larger window.
            self.audit_response(before, true, self.ssthresh);
        }
        self.restart_timer(now);
    }

    /// What a multiplicative decrease multiplies, by the configured rule (see [`ReduceFrom`]);
    /// `fast_retransmit`: the head segment counts as lost, as ns-3's EnterRecovery marks it.
    fn reduction_base(&self, fast_retransmit: bool) -> f64 {
        match self.p.reduce_from {
            ReduceFrom::Flight => self.flight() as f64,
            ReduceFrom::Cwnd => self.cwnd.min(self.p.rwnd as f64),
            ReduceFrom::Pipe => self.in_network(fast_retransmit) as f64,
        }
    }

    /// ns-3's BytesInFlight(), in segments (see [`ReduceFrom::Pipe`]).
    fn in_network(&self, head_lost: bool) -> u64 {
        if self.snd_nxt < self.snd_max {
            // Resending after a timeout: what was sent before it is lost, what was sent again
            // and not SACKed is in the network.
            return self.window_used();
        }
        if !self.p.sack {
            // ns-3.26 TcpSocketBase::BytesInFlight: RFC 4898's PipeSize, FlightSize +
            // (retransmissions − duplicate ACKs); a NewReno recovery has one retransmission out.
            let rtx = u64::from(self.ca.in_recovery());
            return (self.snd_nxt - self.snd_una + rtx).saturating_sub(self.dupacks);
        }
        let pipe = self.pipe();
        let una_in_pipe = self.snd_una >= self.lost_end() && !self.sb.is_sacked(self.snd_una);
        if head_lost && una_in_pipe {
            // ns-3.44 EnterRecovery: MarkHeadAsLost when fewer than DupThresh segments above it
            // are SACKed.
            pipe.saturating_sub(1)
        } else {
            pipe
        }
    }

    /// Whether this sender's reduction rule guarantees that a congestion response never raises
    /// the window: the window itself does, and so does the SACK pipe (never above the data
    /// sent in the current window); FlightSize and ns-3.26's RFC 4898 estimate do not.
    pub fn reduction_bounds_window(&self) -> bool {
        match self.p.reduce_from {
            ReduceFrom::Cwnd => true,
            ReduceFrom::Pipe => self.p.sack,
            ReduceFrom::Flight => false,
        }
    }

    /// The invariant of a congestion response, counted in every run: it never leaves ssthresh
    /// (when it sets it) or cwnd above the window in force before it, or above RFC 5681 eq.
    /// (4)'s floor of 2 segments when that window was smaller. Windows are compared as they act,
    /// capped by the receiver window. Computed from the values before and after, whatever rule
    /// produced them.
    fn audit_response(&mut self, cwnd_before: f64, ssthresh_set: bool, cwnd_after: f64) {
        let rwnd = self.p.rwnd as f64;
        let bound = cwnd_before.min(rwnd).max(2.0) + 1e-9;
        if (ssthresh_set && self.ssthresh.min(rwnd) > bound) || cwnd_after.min(rwnd) > bound {
            self.stats.window_raising_responses += 1;
        }
    }

    /// With PRR on, sets cwnd from RFC 6937 for what the ACK `delivered` (`dup_call`: see
    /// [`Prr::on_ack`]).
    fn prr_update(&mut self, delivered: Delivery, dup_call: bool) {
        let pipe = self.pipe() as f64;
        let ssthresh = self.ssthresh;
        if let Some(prr) = self.ca.sack_recovery_mut().and_then(|r| r.prr.as_mut()) {
            self.cwnd = prr.on_ack(delivered, dup_call, pipe, ssthresh);
        }
    }

    /// The retransmission timer fired at `now` (the caller checked the deadline).
    pub fn on_timeout(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        self.timers.clear();
        if let Some(r) = &mut self.rack {
            r.probe_high_seq = None;
        }
        if !self.active || self.snd_una >= self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        // RFC 5681 §3.1 eq. (4) and a loss window of one segment; RFC 6298 §5.5. When the
        // timer expires again for a segment it already retransmitted, ssthresh is held
        // (RFC 5681 §3.1; ns-2 instead halves the restarted window again, down to 2).
        let timeouts = self.ca.timeouts_in_a_row();
        let before = self.cwnd;
        if timeouts == 0 {
            let base = self.reduction_base(false);
            self.ssthresh = self.cc.ssthresh_on_timeout(self.cwnd, base);
        }
        self.cwnd = 1.0;
        self.audit_response(before, timeouts == 0, self.cwnd);
        if let Some(h) = &mut self.hystart {
            // Linux's cubictcp_state on TCP_CA_Loss: the next slow start runs HyStart afresh.
            h.on_timeout(now, self.snd_max);
        }
        self.rtt.back_off();
        // The recovery under way, if any, ends (RFC 6675 §5.1).
        self.ca = CaState::Loss { timeouts: timeouts + 1, until: self.snd_max };
        self.forget_losses();
        // RFC 6582 §4: duplicate ACKs for data sent before the timeout start no fast
        // retransmit. RFC 2018 §8 distrusts SACK state after a timeout; Linux keeps it.
        self.recover = Some(self.snd_max);
        if !self.p.keep_sack_on_rto {
            self.sb.clear();
        }
        // ns-3.44 TcpTxBuffer::SetSentListLost clears every retransmitted flag.
        self.rtx_mark = None;
        self.dupacks = 0;
        self.timed = None;
        self.cwr_pending = self.p.ecn;
        self.snd_nxt = self.snd_una;
        // With data outstanding, send_allowed re-arms the timer the clear above stopped.
        self.send_allowed(now, out);
    }

    fn retransmit(&mut self, now: Nanos, seq: u64, out: &mut Vec<Segment>) {
        self.stats.retransmits += 1;
        if let Some(r) = &mut self.rack {
            r.retransmitted(seq - self.snd_una, now);
        }
        // Karn: a segment timed across a retransmission gives an ambiguous sample.
        if self.timed.is_some_and(|(s, _)| s >= seq) {
            self.timed = None;
        }
        out.push(Segment { seq, retransmit: true, cwr: false });
        self.paced(now);
    }

    fn send_new(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        let seq = self.snd_nxt;
        if let Some(r) = &mut self.rack {
            r.sent_new(seq - self.snd_una, now);
        }
        out.push(Segment { seq, retransmit: false, cwr: std::mem::take(&mut self.cwr_pending) });
        self.paced(now);
        if self.timed.is_none() {
            self.timed = Some((seq, now));
        }
        self.snd_nxt += 1;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        // What the scoreboard and the SACK blocks in flight store in 32 bits relies on this:
        // new data never goes past the receive window, a 32-bit count of segments.
        debug_assert!(self.snd_max - self.snd_una <= self.p.rwnd, "outstanding data beyond the receive window");
    }

    /// The pacing interval between segments (ns): srtt / (ratio · max(cwnd, in flight)), the
    /// ratio of the controller (see [`Cc::pacing_ratios`]) by slow start (cwnd < ssthresh/2)
    /// or not, as Linux's tcp_update_pacing_rate. None when pacing is off or before the first
    /// RTT sample (Linux's rate is then unbounded).
    fn pacing_interval(&self) -> Option<f64> {
        let srtt = self.rtt.srtt();
        if !self.p.pace || srtt <= 0.0 {
            return None;
        }
        let (ss, ca) = self.cc.pacing_ratios();
        let ratio = if self.cwnd < self.ssthresh / 2.0 { ss } else { ca };
        Some(srtt / (ratio * self.cwnd.max(self.flight() as f64)))
    }

    /// Whether pacing lets a segment leave at `now`; if not, arms the pacing timer.
    fn pacing_allows(&mut self, now: Nanos) -> bool {
        if self.pacing_interval().is_none() || now >= self.pace_next {
            return true;
        }
        self.timers.pace = Deadline::at(self.pace_next);
        false
    }

    /// A segment left at `now`: the next may leave one interval later (EDT: the departure
    /// stamp advances from the later of now and the previous stamp).
    fn paced(&mut self, now: Nanos) {
        if let Some(gap) = self.pacing_interval() {
            self.pace_next = self.pace_next.max(now) + gap.round() as Nanos;
        }
    }

    fn restart_timer(&mut self, now: Nanos) {
        self.timers.rto = Deadline::at(now + self.rtt.rto());
    }

    fn end(&self) -> u64 {
        self.total.unwrap_or(u64::MAX)
    }

    /// Sends what the window allows.
    fn send_allowed(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        if !self.active {
            return;
        }
        if self.ca.sack_recovery().is_some() {
            self.send_in_recovery(now, out);
        } else {
            // The cast truncates toward zero and saturates (negatives and NaN to 0), so for
            // every f64 it gives the integer that floor-then-cast gives, without calling the
            // software `floor` of the baseline x86-64 target (1.6 % of a 100-flow run, perf).
            let mut window = (self.cwnd as u64).max(self.cc.min_window());
            if self.p.limited_transmit && !self.ca.in_recovery() {
                // RFC 3042: each of the first two duplicate ACKs lets one new segment out.
                window += self.dupacks.min(2);
            }
            let window = window.min(self.p.rwnd);
            while self.snd_nxt < self.end() && self.window_used() < window && self.pacing_allows(now) {
                if self.snd_nxt < self.snd_max {
                    // Go-back-N after a timeout, over what the receiver has not SACKed.
                    let seq = self.snd_nxt;
                    if !self.sb.is_sacked(seq) {
                        self.retransmit(now, seq, out);
                        if self.p.keep_high_rxt {
                            self.rtx_mark = Some(seq);
                        }
                    }
                    self.snd_nxt += 1;
                } else {
                    self.send_new(now, out);
                }
                if let CaState::Cwr { reducing: Some(Reducing::Prr(prr)), .. } = &mut self.ca {
                    // ns-3.44 SendDataPacket: UpdateBytesSent in CA_CWR (RFC 6937 prr_out).
                    prr.sent();
                }
            }
        }
        if !self.timers.rto.is_set() && self.snd_max > self.snd_una {
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

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 segment, send NextSeg().
    fn send_in_recovery(&mut self, now: Nanos, out: &mut Vec<Segment>) {
        let mut pipe = self.pipe() as f64;
        while self.cwnd - pipe >= 1.0 && self.pacing_allows(now) {
            let Some(r) = self.ca.sack_recovery() else { return };
            let input = NextSegInput {
                una: self.snd_una,
                snd_max: self.snd_max,
                high_rxt: r.high_rxt,
                lost_end: self.lost_end(),
                new_allowed: self.snd_max < self.end() && self.snd_max - self.snd_una < self.p.rwnd,
                relost: r.rtx.relost() > 0,
                rescue: self.p.rescue_retransmit && !r.rescued,
            };
            let (seq, new_high_rxt) = match next_seg(&self.sb, &input) {
                Some(NextSeg::Relost) => {
                    let r = self.ca.sack_recovery_mut().expect("in SACK recovery");
                    (r.rtx.take_relost(), false)
                }
                Some(NextSeg::Lost(h) | NextSeg::Unsacked(h)) => (Some(h), true),
                Some(NextSeg::Rescue(h)) => {
                    // RFC 6675 rule 4: RescueRxt = RecoveryPoint; HighRxt is not updated.
                    self.ca.sack_recovery_mut().expect("in SACK recovery").rescued = true;
                    (Some(h), false)
                }
                Some(NextSeg::New) => (None, false),
                None => break,
            };
            match seq {
                Some(h) => {
                    self.retransmit(now, h, out);
                    let snd_max = self.snd_max;
                    let r = self.ca.sack_recovery_mut().expect("in SACK recovery");
                    if new_high_rxt {
                        r.high_rxt = h;
                    }
                    r.rtx.record(h, snd_max, now);
                }
                None => self.send_new(now, out),
            }
            pipe += 1.0;
            if let Some(prr) = self.ca.sack_recovery_mut().and_then(|r| r.prr.as_mut()) {
                prr.sent();
            }
        }
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
