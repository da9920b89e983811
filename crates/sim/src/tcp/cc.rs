//! Congestion controllers: how the window grows on ACKs and how far it falls on congestion.
//! Loss detection and recovery live in the sender; these only set cwnd and ssthresh.
//!
//! Windows are in segments (f64), times in seconds (f64).

use serde::{Deserialize, Serialize};

use super::prague::{self, AckInfo, Prague, PragueVariant};

/// How growth counts ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Growth {
    /// One increment per ACK whatever it acknowledges (ns-2, ns-3): slow start +1 per ACK,
    /// congestion avoidance +1/cwnd per ACK. Delayed ACKs halve the growth.
    PerAck,
    /// Appropriate byte counting (RFC 3465, Linux): growth per segment acknowledged.
    ByteCounting,
}

/// What a multiplicative decrease multiplies, on fast retransmit, timeout and ECN echo alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReduceFrom {
    /// FlightSize, the data sent and not yet cumulatively acknowledged (snd_max − snd_una):
    /// the letter of RFC 5681 §3.1 eq. (4), RFC 6675 §5 step 4.2 and RFC 9438 §4.6. After a
    /// timeout or a recovery it can be several times the window, so the "reduction" can raise
    /// ssthresh above cwnd; no profile uses it.
    Flight,
    /// The data in the network: ns-3 passes `BytesInFlight()` to `GetSsThresh` on fast
    /// retransmit (TcpSocketBase::EnterRecovery, with the head segment marked lost), on timeout
    /// (ReTxTimeout, the value before the timeout) and on ECE (EnterCwr), and TcpNewReno halves
    /// it. With SACK it is RFC 6675's pipe (ns-3.44 TcpTxBuffer::BytesInFlight: sent − SACKed −
    /// lost + retransmitted); without SACK ns-3.26's RFC 4898 estimate, snd_nxt − snd_una +
    /// retransmissions − duplicate ACKs; while resending after a timeout only what was sent
    /// again (ns-3 marks every segment sent before the timeout lost, TcpTxBuffer::SetSentListLost).
    Pipe,
    /// The window in force, min(cwnd, receiver window): ns-2 halves the window (TcpAgent::
    /// slowdown on window() = min(cwnd_, wnd_)); Linux's Reno and CUBIC `ssthresh` hooks use
    /// snd_cwnd (tcp_reno_ssthresh, cubictcp_recalc_ssthresh) and so do ns-3's TcpCubic,
    /// TcpLinuxReno and TcpDctcp, whose GetSsThresh ignores the bytes in flight it is given.
    Cwnd,
}

/// How CUBIC's Reno-friendly estimate W_est grows (RFC 9438 §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CubicAlpha {
    /// α_cubic = 3(1 − β)/(1 + β) throughout, as ns-3.44's TcpCubic::Update and Linux's
    /// tcp_cubic.c bictcp_update (the tcp_friendliness block) do: both add one segment to their
    /// Reno estimate every cwnd·beta_scale/8 ACKs, beta_scale = 8(1 + β)/(3(1 − β)) in integer
    /// arithmetic (15 for β = 0.7 or 717/1024, so α = 8/15 there), whatever the window. A 2024
    /// netdev patch series proposed RFC 9438's switch for Linux; the tcp_cubic.c sources read
    /// here (v2.6.26, as in NSC, through v6.x) keep the fixed increment.
    Fixed,
    /// RFC 9438 §4.3: α_cubic until W_est reaches cwnd_prior, the window when ssthresh was last
    /// set, then 1 (Reno's own increase). The final RFC compares with cwnd_prior, not W_max as
    /// drafts of rfc8312bis did: with fast convergence W_max is below cwnd_prior, and switching
    /// at W_max would speed CUBIC up exactly when it should yield.
    #[default]
    Rfc9438,
}

/// CUBIC constants of RFC 9438 §4.
pub const CUBIC_C: f64 = 0.4;
pub const CUBIC_BETA: f64 = 0.7;
/// α_cubic of RFC 9438 §4.3: Reno's throughput with CUBIC's β.
pub const CUBIC_ALPHA: f64 = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
/// Until its first congestion event CUBIC grows at least 1/20 segment per segment
/// acknowledged, 5 % per round trip: Linux's bictcp_update caps its ACK count at 20 while
/// last_max_cwnd is 0, and ns-3's TcpCubic does the same (CntClamp = 20). Not in RFC 9438; it
/// only acts when slow start ended without a loss (HyStart), where the curve with K = 0 and
/// W_max = cwnd would otherwise be almost flat for seconds.
pub const CUBIC_NO_MAX_GROWTH: f64 = 1.0 / 20.0;
/// DCTCP's EWMA gain g = 1/16 (RFC 8257 §4.2, Linux dctcp_shift_g = 4).
pub const DCTCP_G: f64 = 1.0 / 16.0;
/// Pacing rate as a multiple of cwnd/srtt in slow start (cwnd < ssthresh/2) and after: Linux's
/// tcp_update_pacing_rate with its sysctls tcp_pacing_ss_ratio = 200, tcp_pacing_ca_ratio = 120.
pub const PACING_RATIOS: (f64, f64) = (2.0, 1.2);

#[derive(Clone, Debug, Default)]
pub struct CubicState {
    /// W_max: the window before the last reduction.
    w_max: f64,
    /// Start of the current congestion-avoidance epoch (s), None until the first CA ACK.
    epoch_start: Option<f64>,
    /// K (s) and the curve's plateau for the epoch.
    k: f64,
    origin: f64,
    /// The Reno-friendly estimate W_est (RFC 9438 §4.3).
    w_est: f64,
    /// cwnd_prior: the window when ssthresh was last set (RFC 9438 §4.3).
    cwnd_prior: f64,
    alpha_rule: CubicAlpha,
}

/// Whose DCTCP: where its observation window ends (the ACK that updates α, RFC 8257 §3.3;
/// the three differ by one ACK at most per window, and in the first window) and how it
/// computes α and the reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DctcpVariant {
    /// RFC 8257 §3.3 as written, in real numbers. Step 4: an ACK ends the window when it
    /// moves SND.UNA past Window_End (SND.NXT when the window began), i.e. the first ACK of
    /// data sent after the window began. Window_End starts at SND.UNA, so the first ACK ends
    /// the first window.
    #[default]
    Rfc,
    /// Linux's tcp_dctcp. dctcp_update_alpha ends the window once snd_una reaches next_seq
    /// (`!before`), on the ACK that acknowledges the window's last data, one ACK before the
    /// RFC's; dctcp_init sets next_seq = snd_nxt before any data is sent, so here too the
    /// first ACK ends the first window. α is an integer in 1/1024 (DCTCP_MAX_ALPHA): each
    /// window takes α >> 4 off it (all of α once that shift is 0, min_not_zero) and adds
    /// (marked << 6) / acknowledged, rounded down, at most 1024; dctcp_ssthresh reduces the
    /// whole-segment window W to max(W − ((W · α) >> 11), 2).
    Linux,
    /// ns-3's TcpDctcp, in doubles as the RFC: PktsAcked ends the window once m_lastAckedSeq
    /// reaches m_nextSeq, as Linux; but m_nextSeq is first set at the first ACK (to
    /// m_nextTxSequence), so the first window runs until the data sent by then is
    /// acknowledged.
    Ns3,
}

#[derive(Clone, Debug)]
pub struct DctcpState {
    /// α, the estimated fraction of marked bytes; starts at 1 (RFC 8257 §4.2, Linux).
    pub alpha: f64,
    acked: f64,
    marked: f64,
    /// The window being observed ends when snd_una passes (`Rfc`) or reaches this segment.
    window_end: u64,
    variant: DctcpVariant,
    /// ns-3's m_nextSeqFlag: the first window's end has been set (at the first ACK).
    end_set: bool,
}

impl DctcpState {
    fn new() -> Self {
        DctcpState { alpha: 1.0, acked: 0.0, marked: 0.0, window_end: 0, variant: DctcpVariant::Rfc, end_set: false }
    }

    /// Whether an ACK that leaves snd_una at `snd_una` ends the window, by the variant's rule
    /// (see [`DctcpVariant`]); `snd_max` is ns-3's m_nextTxSequence at the first ACK.
    fn window_over(&mut self, snd_una: u64, snd_max: u64) -> bool {
        match self.variant {
            DctcpVariant::Rfc => snd_una > self.window_end,
            DctcpVariant::Linux => snd_una >= self.window_end,
            DctcpVariant::Ns3 => {
                if !self.end_set {
                    self.window_end = snd_max;
                    self.end_set = true;
                }
                snd_una >= self.window_end
            }
        }
    }

    /// The ECN reduction's ssthresh (RFC 8257 §3.3 step 9): cwnd · (1 − α/2), at least 2
    /// segments; Linux's dctcp_ssthresh in its integers (see [`DctcpVariant::Linux`]).
    fn ssthresh(&self, cwnd: f64) -> f64 {
        if self.variant == DctcpVariant::Linux {
            // snd_cwnd counts whole segments; α is a whole number of 1/1024 (linux_alpha).
            let (w, a) = (cwnd as u64, (self.alpha * 1024.0) as u64);
            (w - ((w * a) >> 11)).max(2) as f64
        } else {
            (cwnd * (1.0 - self.alpha / 2.0)).max(2.0)
        }
    }

    /// RFC 8257 §3.3 bookkeeping: segments acknowledged and marked; when `round_over`, α ←
    /// (1 − g)α + g·F and a new observation window starts, ending at `snd_max`.
    fn observe(&mut self, acked: u64, marked: u64, round_over: bool, snd_max: u64) {
        self.acked += acked as f64;
        self.marked += marked as f64;
        if round_over {
            self.alpha = if self.variant == DctcpVariant::Linux {
                linux_alpha(self.alpha, self.acked as u64, self.marked as u64)
            } else {
                let f = if self.acked > 0.0 { self.marked / self.acked } else { 0.0 };
                (1.0 - DCTCP_G) * self.alpha + DCTCP_G * f
            };
            self.acked = 0.0;
            self.marked = 0.0;
            self.window_end = snd_max;
        }
    }
}

/// Linux's dctcp_update_alpha at the end of a window of `acked` segments, `marked` of them CE:
/// α in 1/1024 (`alpha` holds it exactly, a power-of-two fraction), g = 1/16 as a shift of 4.
fn linux_alpha(alpha: f64, acked: u64, marked: u64) -> f64 {
    let a = (alpha * 1024.0) as u64;
    // min_not_zero(a, a >> 4): a >> 4 unless that is 0, then a itself (α falls to 0).
    let mut a = a - if a >> 4 == 0 { a } else { a >> 4 };
    if marked > 0 {
        a = (a + (marked << 6) / acked.max(1)).min(1024);
    }
    a as f64 / 1024.0
}

#[derive(Clone, Debug)]
pub enum Cc {
    Reno,
    Cubic(CubicState),
    Dctcp(DctcpState),
    Ledbat(super::ledbat::LedbatState),
    /// TCP Prague (see [`super::prague`]).
    Prague(Box<Prague>),
}

impl Cc {
    pub fn new(name: &str) -> Option<Cc> {
        match name {
            "newreno" | "reno" => Some(Cc::Reno),
            "cubic" => Some(Cc::Cubic(CubicState::default())),
            "dctcp" => Some(Cc::Dctcp(DctcpState::new())),
            "prague" => Some(Cc::Prague(Box::new(Prague::new(PragueVariant::Linux, 1500)))),
            "ledbat" => Some(Cc::Ledbat(Default::default())),
            _ => None,
        }
    }

    /// CUBIC's Reno-friendly growth rule (other controllers ignore it).
    pub fn with_cubic_alpha(mut self, rule: CubicAlpha) -> Cc {
        if let Cc::Cubic(s) = &mut self {
            s.alpha_rule = rule;
        }
        self
    }

    /// Whose DCTCP (other controllers ignore it).
    pub fn with_dctcp(mut self, variant: DctcpVariant) -> Cc {
        if let Cc::Dctcp(d) = &mut self {
            d.variant = variant;
        }
        self
    }

    /// Which Prague, for packets of `mtu` bytes, headers included (other controllers ignore
    /// it).
    pub fn with_prague(mut self, v: PragueVariant, mtu: u32) -> Cc {
        if let Cc::Prague(p) = &mut self {
            **p = Prague::new(v, mtu);
        }
        self
    }

    /// The multiplicative-decrease factor on loss.
    fn beta(&self) -> f64 {
        match self {
            Cc::Cubic(_) => CUBIC_BETA,
            Cc::Reno | Cc::Dctcp(_) | Cc::Prague(_) | Cc::Ledbat(_) => 0.5,
        }
    }

    /// Grows `cwnd` for an ACK of `acked` new segments outside recovery. `now` and `srtt` in
    /// seconds (CUBIC's clock).
    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: f64, acked: u64, growth: Growth, now: f64, srtt: f64) {
        let n = match growth {
            Growth::PerAck => 1.0,
            Growth::ByteCounting => acked as f64,
        };
        // LEDBAT has no slow start: its delay law runs from the first ACK (see `super::ledbat`).
        if *cwnd < ssthresh && !matches!(self, Cc::Ledbat(_)) {
            // Slow start (RFC 5681 §3.1); byte counting is capped at ssthresh, the rest goes on
            // to congestion avoidance, as Linux does.
            let room = (ssthresh - *cwnd).max(0.0);
            let ss = n.min(room.max(1.0));
            *cwnd += ss;
            if growth == Growth::PerAck || *cwnd < ssthresh {
                return;
            }
            return self.avoid(cwnd, n - ss, now, srtt);
        }
        self.avoid(cwnd, n, now, srtt);
    }

    fn avoid(&mut self, cwnd: &mut f64, n: f64, now: f64, srtt: f64) {
        if n <= 0.0 {
            return;
        }
        match self {
            // RFC 5681 §3.1 eq. (3): one segment per window of ACKs.
            Cc::Reno | Cc::Dctcp(_) => *cwnd += n / *cwnd,
            Cc::Prague(p) => *cwnd += p.increase(*cwnd, n, srtt),
            Cc::Cubic(s) => s.avoid(cwnd, n, now, srtt),
            Cc::Ledbat(l) => l.grow(cwnd, n),
        }
    }

    /// A delay sample (the round trip of the segment an ACK acknowledges, s) at `now` (s):
    /// LEDBAT's signal; other controllers ignore it.
    pub fn on_delay_sample(&mut self, now: f64, delay: f64) {
        match self {
            Cc::Ledbat(l) => l.sample(now, delay),
            Cc::Prague(p) => p.rtt_sample(delay),
            _ => {}
        }
    }

    /// A congestion event (loss or ECE): returns the new ssthresh. `cwnd` is the window before
    /// the reduction and `base` what the decrease multiplies (see [`ReduceFrom`]).
    pub fn ssthresh_on_congestion(&mut self, cwnd: f64, base: f64, ecn: bool) -> f64 {
        match self {
            // RFC 8257 §3.3: an ECN reaction scales cwnd by (1 − α/2); loss halves as Reno.
            // Prague's ECN response is its own (Prague::respond).
            Cc::Dctcp(d) if ecn => d.ssthresh(cwnd),
            Cc::Cubic(s) => {
                // RFC 9438 §4.7 fast convergence.
                s.w_max = if cwnd < s.w_max { cwnd * (1.0 + CUBIC_BETA) / 2.0 } else { cwnd };
                s.cwnd_prior = cwnd;
                s.epoch_start = None;
                (base * CUBIC_BETA).max(2.0)
            }
            _ => (base * self.beta()).max(2.0),
        }
    }

    /// A retransmission timeout: the same ssthresh rule, and CUBIC restarts its epoch from
    /// scratch. RFC 9438 §4.8: the first congestion avoidance after a timeout runs the curve
    /// with K = 0 and W_max (and W_est) at the window it starts from; forgetting W_max here
    /// gives exactly that when the epoch starts, as Linux's bictcp_reset on TCP_CA_Loss does.
    pub fn ssthresh_on_timeout(&mut self, cwnd: f64, base: f64) -> f64 {
        let ssthresh = self.ssthresh_on_congestion(cwnd, base, false);
        if let Cc::Cubic(s) = self {
            s.w_max = 0.0;
        }
        ssthresh
    }

    /// The ECN side of an ACK, before any response to it: DCTCP's bookkeeping (RFC 8257 §3.3:
    /// segments acknowledged and marked; once per window, α ← (1 − g)α + g·F, which Linux's
    /// dctcp_update_alpha does from tcp_in_ack_event, ahead of the reduction), or Prague's
    /// counts (see [`Prague::on_ack`]; its α waits for the end of the ACK).
    pub fn on_ack_ecn(&mut self, a: AckInfo) {
        match self {
            Cc::Dctcp(d) => {
                let over = d.window_over(a.snd_una, a.snd_max);
                d.observe(a.acked, a.marked, over, a.snd_max);
            }
            Cc::Prague(p) => p.on_ack(a),
            _ => {}
        }
    }

    /// The segments of an ACK that grow the window: all of them, but for Prague only those
    /// not reported CE-marked (tcp_prague prague_update_cwnd: acked − ece_delta).
    pub fn growth_credit(&self, acked: u64, marked: u64) -> u64 {
        match self {
            Cc::Prague(_) => acked.saturating_sub(marked),
            _ => acked,
        }
    }

    /// Whether the ECN reduction of a CWR episode the sender enters at `now` (s) applies (the
    /// sender already allows one episode per window, RFC 3168 §6.1.2): Prague's 25 ms rule.
    pub fn ecn_reduction_allowed(&mut self, now: f64) -> bool {
        match self {
            Cc::Prague(p) => p.reduction_allowed(now),
            _ => true,
        }
    }

    /// The least window of data in flight, in segments: Prague's window may fall below 2
    /// while tcp_prague keeps snd_cwnd at 2 (see [`prague::MIN_CWND`]).
    pub fn min_window(&self) -> u64 {
        match self {
            Cc::Prague(_) => prague::MIN_CWND,
            _ => 1,
        }
    }

    /// Pacing rate as a multiple of cwnd/srtt, (slow start, congestion avoidance).
    pub fn pacing_ratios(&self) -> (f64, f64) {
        match self {
            Cc::Prague(_) => Prague::PACING_RATIOS,
            _ => PACING_RATIOS,
        }
    }
}

impl CubicState {
    /// RFC 9438 §4.2–4.4 congestion avoidance for `n` acknowledged segments (or ACKs).
    fn avoid(&mut self, cwnd: &mut f64, n: f64, now: f64, srtt: f64) {
        let start = *self.epoch_start.get_or_insert_with(|| {
            // A new epoch: K from W_max and the window we start from (§4.2 eq. 2).
            if *cwnd < self.w_max {
                self.k = ((self.w_max - *cwnd) / CUBIC_C).cbrt();
                self.origin = self.w_max;
            } else {
                self.k = 0.0;
                self.origin = *cwnd;
            }
            self.w_est = *cwnd;
            now
        });
        let t = now - start;
        let w_cubic = |t: f64| CUBIC_C * (t - self.k).powi(3) + self.origin;
        // §4.3: W_est grows like Reno scaled by α_cubic (see CubicAlpha).
        let alpha = match self.alpha_rule {
            CubicAlpha::Rfc9438 if self.w_est >= self.cwnd_prior => 1.0,
            _ => CUBIC_ALPHA,
        };
        self.w_est += alpha * n / *cwnd;
        let grown = if w_cubic(t) < self.w_est {
            // Reno-friendly region.
            self.w_est
        } else {
            // §4.4: aim at W_cubic one RTT ahead, clamped to [cwnd, 1.5 cwnd].
            let target = w_cubic(t + srtt).clamp(*cwnd, 1.5 * *cwnd);
            *cwnd + (target - *cwnd) / *cwnd * n
        };
        let floor = if self.w_max == 0.0 { *cwnd + CUBIC_NO_MAX_GROWTH * n } else { 0.0 };
        *cwnd = grown.max(floor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reno_growth_per_ack_and_byte_counting() {
        let mut cc = Cc::new("newreno").unwrap();
        let mut w = 10.0;
        // Slow start below ssthresh 20: +1 per ACK whatever it acks (per-ACK growth)...
        cc.on_ack(&mut w, 20.0, 2, Growth::PerAck, 0.0, 0.1);
        assert_eq!(w, 11.0);
        // ...or +2 for two segments with byte counting.
        cc.on_ack(&mut w, 20.0, 2, Growth::ByteCounting, 0.0, 0.1);
        assert_eq!(w, 13.0);
        // Byte counting across ssthresh: 7 to reach 20, then 1/20 of the rest.
        cc.on_ack(&mut w, 20.0, 8, Growth::ByteCounting, 0.0, 0.1);
        assert_eq!(w, 20.05);
        // Congestion avoidance: +1/cwnd per ACK.
        let mut v = 20.0;
        cc.on_ack(&mut v, 10.0, 1, Growth::PerAck, 0.0, 0.1);
        assert_eq!(v, 20.05);
        assert_eq!(cc.ssthresh_on_congestion(40.0, 30.0, false), 15.0);
        assert_eq!(cc.ssthresh_on_congestion(40.0, 40.0, false), 20.0);
        assert_eq!(cc.ssthresh_on_congestion(3.0, 3.0, false), 2.0);
    }

    #[test]
    fn byte_counting_hands_what_slow_start_leaves_to_congestion_avoidance() {
        // An ACK of 3 segments at cwnd 9 with ssthresh 9.5 (a halved fractional window): slow
        // start takes one whole segment (it never adds less than one, so cwnd passes
        // ssthresh to 10), and the 2 segments left grow the window as congestion avoidance
        // does, 1/cwnd each (RFC 5681 eq. 3, counted per segment by RFC 3465): none of the
        // acknowledged segments is lost to growth.
        let mut cc = Cc::new("newreno").unwrap();
        let mut w = 9.0;
        cc.on_ack(&mut w, 9.5, 3, Growth::ByteCounting, 0.0, 0.1);
        assert_eq!(w, 10.0 + 2.0 / 10.0);
    }

    #[test]
    fn cubic_curve_k_and_fast_convergence() {
        let mut cc = Cc::new("cubic").unwrap();
        // Loss at cwnd 100: W_max 100, ssthresh 70.
        assert_eq!(cc.ssthresh_on_congestion(100.0, 100.0, false), 70.0);
        let mut w = 70.0;
        // First CA ACK at t = 10 s starts the epoch: K = cbrt(30 / 0.4) = 4.217 s. At t = 0
        // the curve equals cwnd (70) while W_est has just grown by α_cubic/cwnd: Reno-friendly.
        cc.on_ack(&mut w, 70.0, 1, Growth::ByteCounting, 10.0, 0.1);
        let Cc::Cubic(s) = &cc else { unreachable!() };
        let k = s.k;
        assert!((k - 75f64.cbrt()).abs() < 1e-12);
        let alpha = 3.0 * 0.3 / 1.7;
        assert!((w - (70.0 + alpha / 70.0)).abs() < 1e-12, "{w}");
        // Two seconds in, the curve (95.6) is above W_est: grow toward W_cubic(t + RTT).
        let w1 = w;
        cc.on_ack(&mut w, 70.0, 1, Growth::ByteCounting, 12.0, 0.1);
        let want = w1 + (CUBIC_C * (2.1 - k).powi(3) + 100.0 - w1) / w1;
        assert!((w - want).abs() < 1e-9, "{w} vs {want}");
        // Far past K the curve exceeds W_max; the step is capped at 1.5 cwnd per window.
        let mut w2 = w;
        cc.on_ack(&mut w2, 70.0, 1, Growth::ByteCounting, 30.0, 0.1);
        assert!((w2 - (w + 0.5)).abs() < 1e-9);
        // Fast convergence: a loss below the previous W_max remembers (1 + β)/2 of cwnd.
        cc.ssthresh_on_congestion(80.0, 80.0, false);
        let Cc::Cubic(s) = &cc else { unreachable!() };
        assert!((s.w_max - 80.0 * 0.85).abs() < 1e-12);
    }

    #[test]
    fn cubic_growth_counts_every_segment_an_ack_acknowledges() {
        // RFC 9438 §4.3 and §4.4 per segment acknowledged (byte counting): an ACK of 2 adds
        // 2·α_cubic/cwnd to W_est, and 2·(target − cwnd)/cwnd toward the curve. The loss and
        // times of cubic_curve_k_and_fast_convergence: W_max 100, cwnd 70, K = cbrt(30/0.4).
        let mut cc = Cc::new("cubic").unwrap();
        cc.ssthresh_on_congestion(100.0, 100.0, false);
        let mut w = 70.0;
        // t = 0 of the epoch: the curve is at 70, below W_est: the Reno-friendly region.
        cc.on_ack(&mut w, 70.0, 2, Growth::ByteCounting, 10.0, 0.1);
        assert_eq!(w, 70.0 + CUBIC_ALPHA * 2.0 / 70.0);
        // Two seconds in, the curve leads: the step toward W_cubic(t + RTT) counts twice.
        let w1 = w;
        cc.on_ack(&mut w, 70.0, 2, Growth::ByteCounting, 12.0, 0.1);
        let target = CUBIC_C * (2.1 - 75f64.cbrt()).powi(3) + 100.0;
        // 1e-9: K and the curve are computed in a different order here.
        assert!((w - (w1 + (target - w1) / w1 * 2.0)).abs() < 1e-9, "{w}");
        // Before any congestion event, the 1/20-per-segment floor: 2/20 for an ACK of 2.
        let mut cc = Cc::new("cubic").unwrap();
        let mut w = 100.0;
        cc.on_ack(&mut w, 100.0, 2, Growth::ByteCounting, 5.0, 0.05);
        assert_eq!(w, 100.0 + CUBIC_NO_MAX_GROWTH * 2.0);
    }

    #[test]
    fn cubic_fast_convergence_only_below_the_previous_w_max() {
        // RFC 9438 §4.7: W_max shrinks to cwnd·(1 + β)/2 only when cwnd is strictly below the
        // W_max remembered; a second loss at the same window of 100 remembers 100 again, and
        // ssthresh is β·100 = 70 both times, below the window in force.
        let mut cc = Cc::new("cubic").unwrap();
        for _ in 0..2 {
            let ssthresh = cc.ssthresh_on_congestion(100.0, 100.0, false);
            assert_eq!(ssthresh, 70.0);
            assert!(ssthresh <= 100.0);
            let Cc::Cubic(s) = &cc else { unreachable!() };
            assert_eq!(s.w_max, 100.0);
        }
    }

    #[test]
    fn cubic_grows_five_percent_per_round_trip_before_its_first_congestion_event() {
        // Slow start ended at 100 segments without a loss (HyStart): W_max is 0, the epoch's
        // curve starts flat at cwnd (K = 0) and W_est grows 1/cwnd per segment; the floor of
        // Linux and ns-3 gives 1/20 per segment instead.
        let mut cc = Cc::new("cubic").unwrap();
        let mut w = 100.0;
        cc.on_ack(&mut w, 100.0, 1, Growth::ByteCounting, 5.0, 0.05);
        assert_eq!(w, 100.05);
        // The first congestion event sets W_max and ends the floor: back to RFC 9438 growth.
        cc.ssthresh_on_congestion(w, w, false);
        let mut w = 70.0;
        cc.on_ack(&mut w, 70.0, 1, Growth::ByteCounting, 6.0, 0.05);
        assert!((w - (70.0 + 3.0 * 0.3 / 1.7 / 70.0)).abs() < 1e-12, "{w}");
    }

    #[test]
    fn cubic_after_a_timeout_starts_its_curve_at_the_current_window() {
        // A loss at 100 remembers W_max = 100; a timeout at 80 then forgets it (RFC 9438
        // §4.8): ssthresh 56, and the epoch that starts at cwnd 60 has K = 0 and its plateau
        // at 60, where the loss alone would have aimed back at W_max = 68 (fast convergence).
        let mut cc = Cc::new("cubic").unwrap();
        cc.ssthresh_on_congestion(100.0, 100.0, false);
        assert_eq!(cc.ssthresh_on_timeout(80.0, 80.0), 56.0);
        let mut w = 60.0;
        cc.on_ack(&mut w, 56.0, 1, Growth::ByteCounting, 3.0, 0.1);
        let Cc::Cubic(s) = &cc else { unreachable!() };
        assert_eq!((s.k, s.origin, s.w_max), (0.0, 60.0, 0.0));
        // W_est started at 60 and grew by α_cubic/60: RFC 9438 §4.3 keeps α_cubic until W_est
        // reaches cwnd_prior, the window of 80 when the timeout set ssthresh. The 5 % floor is
        // larger.
        assert_eq!(s.w_est, 60.0 + CUBIC_ALPHA / 60.0);
        assert_eq!(w, 60.0 + CUBIC_NO_MAX_GROWTH);
    }

    #[test]
    fn reno_estimate_alpha_past_the_prior_window_fixed_or_rfc9438() {
        // A loss at 100 (W_max = cwnd_prior = 100), then an epoch that starts at cwnd 100: W_est
        // starts at 100 = cwnd_prior. RFC 9438 §4.3 switches to α = 1 there; ns-3.44's TcpCubic
        // and Linux's tcp_cubic keep α_cubic = 3·0.3/1.7.
        for (rule, alpha) in [(CubicAlpha::Rfc9438, 1.0), (CubicAlpha::Fixed, CUBIC_ALPHA)] {
            let mut cc = Cc::new("cubic").unwrap().with_cubic_alpha(rule);
            cc.ssthresh_on_congestion(100.0, 100.0, false);
            let mut w = 100.0;
            cc.on_ack(&mut w, 70.0, 1, Growth::ByteCounting, 1.0, 0.1);
            let Cc::Cubic(s) = &cc else { unreachable!() };
            assert_eq!(s.w_est, 100.0 + alpha / 100.0, "{rule:?}");
        }
        // Fast convergence: a second loss at 80 remembers W_max = 68 but cwnd_prior = 80. An epoch
        // from 70 has W_est = 70 past W_max and short of cwnd_prior: α_cubic still (RFC 9438
        // §4.3 compares with cwnd_prior).
        let mut cc = Cc::new("cubic").unwrap();
        cc.ssthresh_on_congestion(100.0, 100.0, false);
        cc.ssthresh_on_congestion(80.0, 80.0, false);
        let mut w = 70.0;
        cc.on_ack(&mut w, 56.0, 1, Growth::ByteCounting, 1.0, 0.1);
        let Cc::Cubic(s) = &cc else { unreachable!() };
        assert!((s.w_max - 68.0).abs() < 1e-12);
        assert_eq!(s.w_est, 70.0 + CUBIC_ALPHA / 70.0);
    }

    #[test]
    fn cubic_reno_friendly_region_rules_at_short_rtts() {
        // After a loss at 10 segments with a 50 ms RTT, Reno's estimate grows by
        // α_cubic / RTT = 10.6 segments per second while the curve starts at slope
        // 3·C·K² = 4.6 per second (K = 1.96 s): the window follows W_est.
        let mut cc = Cc::new("cubic").unwrap();
        cc.ssthresh_on_congestion(10.0, 10.0, false);
        let mut w = 7.0;
        let mut t = 0.0;
        for _ in 0..70 {
            cc.on_ack(&mut w, 7.0, 1, Growth::ByteCounting, t, 0.05);
            t += 0.05 / w;
        }
        let Cc::Cubic(s) = &cc else { unreachable!() };
        assert_eq!(w, s.w_est, "the window follows W_est in the Reno-friendly region");
        assert!(CUBIC_C * (t - s.k).powi(3) + s.origin < w);
        assert!(w > 10.0, "{w}");
    }

    #[test]
    fn ledbat_backs_off_on_the_delay_samples_it_is_given() {
        // RFC 6817 §2.4.2 through the controller: a base delay of 40 ms, then CURRENT_FILTER
        // samples of 240 ms make the queueing delay 200 ms, twice TARGET: off_target = −1, so an
        // ACK of one segment at cwnd 10 takes GAIN · 1/10 off (LEDBAT has no slow start, so
        // ssthresh plays no part). Without the samples the law would not run at all.
        let mut cc = Cc::new("ledbat").unwrap();
        cc.on_delay_sample(0.0, 0.040);
        for k in 1..=crate::tcp::ledbat::CURRENT_FILTER {
            cc.on_delay_sample(k as f64, 0.240);
        }
        let mut w = 10.0;
        cc.on_ack(&mut w, f64::INFINITY, 1, Growth::ByteCounting, 5.0, 0.24);
        // 1e-12: the delays are decimal fractions, inexact in binary.
        assert!((w - (10.0 - 1.0 / 10.0)).abs() < 1e-12, "{w}");
    }

    #[test]
    fn prague_detector_hears_the_delay_samples() {
        // The Draft Prague's Classic ECN detector runs on the per-ACK RTT samples. With its gain
        // at 1/2 (set_gain(1): shift ⌊lg 1⌋ + 0 + 1), samples of 20 then 100 ms give srtt 60 ms
        // and mdev 1 µs + (80 ms − 1 µs)/4, min RTT 20 ms; a round then moves the score by
        // ½·lg(mdev/V0) + ½·lg((srtt − min RTT)/D0) (see prague::ClassicEcnDetector).
        let mut cc = Cc::new("prague").unwrap().with_prague(PragueVariant::Draft, 1500);
        let Cc::Prague(p) = &mut cc else { unreachable!() };
        p.detector.as_mut().unwrap().set_gain(1.0);
        cc.on_delay_sample(0.0, 0.020);
        cc.on_delay_sample(0.1, 0.100);
        let Cc::Prague(p) = &mut cc else { unreachable!() };
        let d = p.detector.as_mut().unwrap();
        d.end_round();
        let mdev = 1e-6 + (0.080 - 1e-6) / 4.0;
        let want = 0.5 * (mdev / prague::V0).log2() + 0.5 * (0.040 / prague::D0).log2();
        // 1e-9: the delays are decimal fractions, inexact in binary, and go through logarithms.
        assert!((d.score - want).abs() < 1e-9, "{} vs {want}", d.score);
    }

    #[test]
    fn prague_paces_at_its_own_ratios() {
        // tcp_prague's prague_update_pacing_rate: 200 % of cwnd/srtt in slow start and 100 %
        // after, where Linux's other controllers take tcp_pacing_ca_ratio's 120 %.
        assert_eq!(Cc::new("prague").unwrap().pacing_ratios(), (2.0, 1.0));
        assert_eq!(Cc::new("cubic").unwrap().pacing_ratios(), (2.0, 1.2));
    }

    fn alpha(cc: &Cc) -> Option<f64> {
        match cc {
            Cc::Dctcp(d) => Some(d.alpha),
            _ => None,
        }
    }

    /// Puts DCTCP's α where a test's trace starts.
    fn set_alpha(cc: &mut Cc, alpha: f64) {
        if let Cc::Dctcp(d) = cc {
            d.alpha = alpha;
        }
    }

    /// The ECN side of an ACK as DCTCP reads it (the window fields are Prague's).
    fn ack(acked: u64, marked: u64, snd_una: u64, snd_max: u64) -> AckInfo {
        AckInfo { acked, marked, snd_una, snd_max, now: 0.0, cwnd: 10.0, ssthresh: 5.0 }
    }

    #[test]
    fn dctcp_alpha_ewma_and_reduction() {
        let mut cc = Cc::new("dctcp").unwrap();
        // First window (ends at 0): 10 segments acked, all marked: α = 15/16 + 1/16 = 1.
        cc.on_ack_ecn(ack(10, 10, 1, 10));
        assert_eq!(alpha(&cc), Some(1.0));
        // Next window, half marked: α = 15/16 + 0.5/16.
        cc.on_ack_ecn(ack(5, 5, 5, 20));
        cc.on_ack_ecn(ack(5, 0, 11, 20));
        assert_eq!(alpha(&cc), Some(15.0 / 16.0 + 0.5 / 16.0));
        let a = alpha(&cc).unwrap();
        assert_eq!(cc.ssthresh_on_congestion(40.0, 40.0, true), 40.0 * (1.0 - a / 2.0));
        // Loss still halves.
        assert_eq!(cc.ssthresh_on_congestion(40.0, 40.0, false), 20.0);
    }

    #[test]
    fn dctcp_alpha_decays_by_one_minus_g_per_unmarked_window() {
        // RFC 8257 §3.3 with g = 1/16 and α starting at 1: two windows without a mark give
        // α = 15/16, then (15/16)² = 225/256 (the old α is multiplied by 1 − g every window).
        let mut cc = Cc::new("dctcp").unwrap();
        // The first window ends at once (at segment 0); the next at snd_max 10.
        cc.on_ack_ecn(ack(1, 0, 1, 10));
        assert_eq!(alpha(&cc), Some(15.0 / 16.0));
        cc.on_ack_ecn(ack(10, 0, 11, 20));
        assert_eq!(alpha(&cc), Some(225.0 / 256.0));
        // §3.3's reduction, cwnd · (1 − α/2) = 40 · 287/512, below the window of 40 in force.
        let ssthresh = cc.ssthresh_on_congestion(40.0, 40.0, true);
        assert_eq!(ssthresh, 40.0 * 287.0 / 512.0);
        assert!(ssthresh <= 40.0);
    }

    #[test]
    fn dctcp_window_ends_only_past_the_data_sent_when_it_began() {
        // RFC 8257 §3.3 step 4: an ACK at or below Window_End (SND.NXT when the window began)
        // leaves the window open; only one beyond it closes it. The first window closes at once
        // (Window_End 0) with α = 15/16 and the next ends past 10: the ACK up to 10, 9 of its 9
        // segments marked, does not close it; the ACK of 11 does, with F = 9/10.
        let mut cc = Cc::new("dctcp").unwrap();
        cc.on_ack_ecn(ack(1, 0, 1, 10));
        cc.on_ack_ecn(ack(9, 9, 10, 20));
        assert_eq!(alpha(&cc), Some(15.0 / 16.0));
        cc.on_ack_ecn(ack(1, 0, 11, 20));
        assert_eq!(alpha(&cc), Some((1.0 - DCTCP_G) * (15.0 / 16.0) + DCTCP_G * (9.0 / 10.0)));
    }

    #[test]
    fn dctcp_window_ends_one_ack_earlier_in_linux_and_ns3() {
        // The trace of dctcp_window_ends_only_past_the_data_sent_when_it_began under the other
        // two rules. Linux (dctcp_update_alpha: !before(snd_una, next_seq)): the first ACK
        // ends the first window (next_seq was snd_nxt = snd_una before any data), α = 15/16,
        // and the ACK up to 10 reaches the next end (10): F = 9/9, α = (15/16)² + 1/16 =
        // 241/256. The ACK of 11 then leaves the new window (ending at 20) open.
        let mut linux = Cc::new("dctcp").unwrap().with_dctcp(DctcpVariant::Linux);
        linux.on_ack_ecn(ack(1, 0, 1, 10));
        assert_eq!(alpha(&linux), Some(15.0 / 16.0));
        linux.on_ack_ecn(ack(9, 9, 10, 20));
        assert_eq!(alpha(&linux), Some(241.0 / 256.0));
        linux.on_ack_ecn(ack(1, 0, 11, 20));
        assert_eq!(alpha(&linux), Some(241.0 / 256.0));
        // ns-3 (TcpDctcp::PktsAcked): the first ACK sets m_nextSeq to what was sent (10) and
        // does not reach it, so α stays 1; the ACK up to 10 ends the window of 10 segments, 9
        // marked: α = 15/16 + (9/10)/16.
        let mut ns3 = Cc::new("dctcp").unwrap().with_dctcp(DctcpVariant::Ns3);
        ns3.on_ack_ecn(ack(1, 0, 1, 10));
        assert_eq!(alpha(&ns3), Some(1.0));
        ns3.on_ack_ecn(ack(9, 9, 10, 20));
        assert_eq!(alpha(&ns3), Some((1.0 - DCTCP_G) + DCTCP_G * (9.0 / 10.0)));
    }

    #[test]
    fn linux_dctcp_keeps_alpha_in_1024ths_and_reduces_whole_segments() {
        // tcp_dctcp's integers (dctcp_update_alpha, dctcp_ssthresh), worked by hand. The first
        // window (1 segment, unmarked): 1024 − (1024 >> 4) = 960. The next, 1 of 3 marked:
        // 960 − 60 + (1 << 6) / 3 = 900 + 21 = 921 (the RFC's reals: 0.8999, not 921/1024).
        let mut cc = Cc::new("dctcp").unwrap().with_dctcp(DctcpVariant::Linux);
        cc.on_ack_ecn(ack(1, 0, 1, 10));
        cc.on_ack_ecn(ack(3, 1, 10, 20));
        assert_eq!(alpha(&cc), Some(921.0 / 1024.0));
        // dctcp_ssthresh on snd_cwnd = 10 (a window of 10.7 in whole segments):
        // 10 − ((10 · 921) >> 11) = 10 − 4 = 6, where cwnd · (1 − α/2) would give 5.89.
        assert_eq!(cc.ssthresh_on_congestion(10.7, 10.7, true), 6.0);
        // A window of 2 at α = 1: 2 − (2048 >> 11) = 1, floored at 2.
        set_alpha(&mut cc, 1.0);
        assert_eq!(cc.ssthresh_on_congestion(2.0, 2.0, true), 2.0);
        // α below 16/1024: α >> 4 is 0, so min_not_zero takes all of α: 15 → 0 after an
        // unmarked window (the reals would keep 15 · 15/16).
        set_alpha(&mut cc, 15.0 / 1024.0);
        cc.on_ack_ecn(ack(10, 0, 20, 30));
        assert_eq!(alpha(&cc), Some(0.0));
        // Sparse marks then hold it at 0 or 1: a window of 137 with 2 marks adds
        // (2 << 6) / 137 = 0; one with 3 adds 192 / 137 = 1, and the next such window takes
        // that 1 off (min_not_zero(1, 0)) before adding 1 again.
        cc.on_ack_ecn(ack(137, 2, 157, 300));
        assert_eq!(alpha(&cc), Some(0.0));
        cc.on_ack_ecn(ack(143, 3, 300, 450));
        assert_eq!(alpha(&cc), Some(1.0 / 1024.0));
        cc.on_ack_ecn(ack(150, 3, 450, 600));
        assert_eq!(alpha(&cc), Some(1.0 / 1024.0));
        // A fully marked window adds (n << 6) / n = 64 (1 − 1 + 64) and α is capped at 1024.
        cc.on_ack_ecn(ack(10, 10, 600, 610));
        assert_eq!(alpha(&cc), Some(64.0 / 1024.0));
        set_alpha(&mut cc, 1.0);
        cc.on_ack_ecn(ack(10, 10, 620, 630));
        assert_eq!(alpha(&cc), Some(1.0));
    }

    #[test]
    fn dctcp_window_that_acknowledged_nothing_counts_as_unmarked() {
        // F is the marked fraction of what the window acknowledged; a window that acknowledged
        // nothing saw no mark, so α only decays (Linux dctcp_update_alpha adds nothing without
        // CE and divides by max(1, delivered)), and never becomes 0/0.
        let mut cc = Cc::new("dctcp").unwrap();
        cc.on_ack_ecn(ack(0, 0, 1, 1));
        assert_eq!(alpha(&cc), Some(15.0 / 16.0));
    }
}
