//! TCP Prague (draft-briscoe-iccrg-prague-congestion-control-04; the reference Linux module
//! net/ipv4/tcp_prague.c of the L4STeam kernel): DCTCP's scalable response with
//! RTT-independence, counted per segment from accurate CE feedback, paced, and optionally
//! falling back to a Reno-friendly response when the bottleneck is a Classic ECN AQM.
//!
//! Two variants, where the sources differ:
//! - [`PragueVariant::Linux`], tcp_prague v0.7 (2024): α starts at 0 and is not updated until
//!   the first CE mark, which halves the window instead (prague_alpha_mode = 0:
//!   "half cwnd at 1st mark"); in slow start both that halving and an ECN reduction last only
//!   when the ACK grows nothing and they take the window down by a whole segment
//!   (prague_update_cwnd: tcp_slow_start then resets the fractional window to snd_cwnd, which
//!   neither touched; otherwise snd_cwnd steps down and sets ssthresh), so slow start ends on
//!   a wholly marked ACK; the additive increase is MTU_SYS = 1500 bytes per round trip, not
//!   one segment (`increase * MTU_SYS / tcp_mss_to_mtu`); no Classic ECN fall-back (the module
//!   dropped it after v0.6).
//! - [`PragueVariant::Draft`]: α starts at 1 as DCTCP's (RFC 8257 §3.3, which the draft builds
//!   on) and is updated from the first round; a reduction in slow start ends it; one segment
//!   per round trip; the fall-back on detection of a Classic ECN AQM that RFC 9331 §4.3 asks of
//!   a scalable control, by the delay-variation detector of Briscoe and Ahmed ("TCP Prague
//!   Fall-back on Detection of a Classic ECN AQM", arXiv:1911.00710, v2 algorithm), as
//!   tcp_prague v0.6 implements it (prague_classic_ecn_detection, prague_classic_ecn_fallback
//!   with prague_ecn_fallback = 1). See [`ClassicEcnDetector`].
//!
//! Common to both (tcp_prague's defaults, v0.6 and v0.7 alike): per ACK, in the order of
//! Linux's tcp_ack, the ECN reduction first (tcp_fastretrans_alert → tcp_enter_cwr →
//! prague_enter_cwr, with α as it stands), then prague_cong_control: the window grows on the
//! ACK's segments that were not CE-marked (`acked − ece_delta` in prague_update_cwnd), on every
//! ACK whatever the CA state, the reducing one included, and α is updated last
//! (prague_update_alpha), once per round trip, and once RTT-independent (out of slow start for
//! 4 rounds) only when 25 ms have also passed (prague_should_update_ewma); an ECN reduction of
//! W·α/2 at most once per 25 ms when RTT-independent (prague_enter_cwr), the sender's CWR state
//! still taking its round trip; the increase scaled by (R/25 ms)² below 25 ms
//! (prague_rate_scaled_ai_ack_increase), unscaled above 100 ms (MAX_SCALED_RTT). The
//! fractional window has no floor: it may fall below 2 segments while the window that limits
//! the data in flight stays at 2 (MIN_CWND_RTT in v0.7, MIN_CWND in v0.6).
//!
//! Modelled in floating point: tcp_prague's fractional-window fixed point and its step-wise
//! snd_cwnd moves of one segment per ACK are not (the window, and ssthresh after a
//! reduction, move at once to the fractional window), nor v0.7's rate-based mode for windows
//! of at most 4 MTU_SYS (prague_cwnd_mode = 2) or its pacing below 2 segments; the window in
//! flight is the fractional one rounded down, not up, with that floor of 2.

use serde::{Deserialize, Serialize};

/// Prague's reference RTT for RTT-independence (tcp_prague RTT_TARGET, 25 ms): below it a flow
/// grows and reduces as if its RTT were this.
pub const RTT_TARGET: f64 = 0.025;
/// Rounds after slow start before a flow becomes RTT-independent (DEFAULT_RTT_TRANSITION).
pub const RTT_TRANSITION: u32 = 4;
/// Above this RTT the increase is not scaled (MAX_SCALED_RTT, 100 ms).
pub const MAX_SCALED_RTT: f64 = 0.100;
/// DCTCP's EWMA gain g = 1/16 (PRAGUE_SHIFT_G = 4, as RFC 8257 §4.2).
pub const G: f64 = 1.0 / 16.0;
/// The bytes the Linux variant adds per round trip (tcp_prague v0.7 MTU_SYS).
pub const MTU_SYS: f64 = 1500.0;
/// The least window of data in flight, in segments (MIN_CWND_RTT; v0.6 MIN_CWND).
pub const MIN_CWND: u64 = 2;

/// Which source a Prague flow follows where they differ (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PragueVariant {
    #[default]
    Linux,
    Draft,
}

/// The additive increase per round trip, in segments, of a flow of smoothed RTT `srtt` (s)
/// `round` rounds out of slow start: (R/V)² with V = 25 ms once RTT-independent, else 1. A
/// flow of RTT R < V then moves in time as a flow of RTT V would: its window W = W_V·R/V grows
/// R/V² segments per second, and it reduces at most once per V by W·α/2, so its rate W/R is the
/// V-flow's whatever R. Before an RTT sample, Reno's.
pub fn ai_scale(srtt: f64, round: u32) -> f64 {
    if round < RTT_TRANSITION || srtt <= 0.0 || srtt > MAX_SCALED_RTT {
        return 1.0;
    }
    (srtt.min(RTT_TARGET) / RTT_TARGET).powi(2)
}

/// What an ACK tells Prague.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    /// Segments newly acknowledged, and of them reported CE-marked.
    pub acked: u64,
    pub marked: u64,
    pub snd_una: u64,
    /// One past the highest segment sent: the round that starts now ends when snd_una reaches
    /// it (tcp_prague's next_seq = snd_nxt).
    pub snd_max: u64,
    pub now: f64,
    /// The window and ssthresh before this ACK grows anything (segments).
    pub cwnd: f64,
    pub ssthresh: f64,
}

impl AckInfo {
    fn slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

#[derive(Clone, Debug)]
pub struct Prague {
    variant: PragueVariant,
    /// α, the EWMA of the marked fraction.
    pub alpha: f64,
    /// A CE mark was seen (tcp_prague saw_ce: "is there an AQM on the path?").
    saw_ce: bool,
    /// Segments acknowledged and marked since the round began.
    acked: u64,
    marked: u64,
    /// The round ends when snd_una reaches this (tcp_prague next_seq).
    next_seq: u64,
    /// Time of the last α update and of the last ECN reduction (s).
    alpha_stamp: f64,
    cwr_stamp: Option<f64>,
    /// Rounds since the last slow-start exit.
    pub round: u32,
    /// Out of slow start for RTT_TRANSITION rounds (prague_is_rtt_indep), as of the ACK's start.
    rtt_indep: bool,
    /// The additive increase in segments per round trip before RTT scaling: MTU_SYS over the
    /// packet's size in the Linux variant, 1 in the draft's.
    ai_segments: f64,
    /// The Draft variant's Classic ECN AQM detector.
    pub detector: Option<ClassicEcnDetector>,
}

impl Prague {
    /// A flow of `variant` sending packets of `mtu` bytes, headers included (tcp_mss_to_mtu).
    pub fn new(variant: PragueVariant, mtu: u32) -> Self {
        Prague {
            variant,
            alpha: if variant == PragueVariant::Linux { 0.0 } else { 1.0 },
            saw_ce: false,
            acked: 0,
            marked: 0,
            next_seq: 0,
            alpha_stamp: 0.0,
            cwr_stamp: None,
            round: 0,
            rtt_indep: false,
            ai_segments: if variant == PragueVariant::Linux { MTU_SYS / mtu.max(1) as f64 } else { 1.0 },
            detector: (variant == PragueVariant::Draft).then(ClassicEcnDetector::default),
        }
    }

    /// The start of an ACK: the counts of the round and the state the ECN reduction reads.
    pub fn on_ack(&mut self, a: AckInfo) {
        self.rtt_indep = !a.slow_start() && self.round >= RTT_TRANSITION;
        if let Some(d) = &mut self.detector {
            // The detector's gain follows ssthresh (prague_ssthresh at each reduction; Prague's
            // ssthresh tracks its window after one).
            d.set_gain(a.ssthresh);
        }
        self.acked += a.acked;
        self.marked += a.marked;
    }

    /// The window this ACK's ECN response leaves, before its growth, or None if it leaves it
    /// as it is: prague_enter_cwr's reduction when `reduce`, with α before this ACK's update,
    /// then prague_update_cwnd's first-mark halving (Linux), neither with a floor. `a`: the
    /// window as the ACK found it; `grows`: the ACK grows the window afterwards (it has
    /// unmarked segments and the state lets it).
    pub fn respond(&mut self, a: &AckInfo, reduce: bool, grows: bool) -> Option<f64> {
        let first_mark = a.marked > 0 && !self.saw_ce;
        self.saw_ce |= a.marked > 0;
        let mut w = if reduce { self.reduce(a.cwnd) } else { a.cwnd };
        if first_mark && self.variant == PragueVariant::Linux {
            // prague_update_cwnd: frac_cwnd = (frac_cwnd + 1) >> 1.
            w /= 2.0;
        }
        if w >= a.cwnd {
            return None;
        }
        if self.variant == PragueVariant::Linux && a.slow_start() && (grows || w > a.cwnd - 1.0) {
            // v0.7 prague_update_cwnd in slow start: both moved frac_cwnd only. tcp_slow_start
            // grows snd_cwnd and sets frac_cwnd = snd_cwnd << CWND_UNIT; without growth, the
            // adjust step lowers snd_cwnd (and sets ssthresh) only when frac_cwnd rounded up
            // is below it, and the next slow-start ACK resets frac_cwnd again.
            return None;
        }
        Some(w)
    }

    /// The end of an ACK, after its growth (prague_cong_control → prague_update_alpha): α
    /// at the end of a round, the window and ssthresh in `a` as this ACK left them.
    pub fn after_ack(&mut self, a: AckInfo) {
        let rtt_indep = !a.slow_start() && self.round >= RTT_TRANSITION;
        let rtt_elapsed = a.snd_una >= self.next_seq;
        let target_elapsed = a.now - self.alpha_stamp >= RTT_TARGET;
        if rtt_elapsed && (!rtt_indep || target_elapsed) {
            self.end_round(a);
        }
    }

    /// prague_update_alpha and prague_new_round: α ← (1 − g)α + g·F over the round (not before
    /// a first mark in the Linux variant), the detector's round, then a new round.
    fn end_round(&mut self, a: AckInfo) {
        if self.saw_ce || self.variant == PragueVariant::Draft {
            let f = if self.acked > 0 { self.marked as f64 / self.acked as f64 } else { 0.0 };
            self.alpha = ((1.0 - G) * self.alpha + G * f).min(1.0);
            self.alpha_stamp = a.now;
            if let (Some(d), true) = (&mut self.detector, self.saw_ce) {
                d.end_round();
            }
        }
        self.acked = 0;
        self.marked = 0;
        self.next_seq = a.snd_max;
        if !a.slow_start() {
            self.round = self.round.saturating_add(1);
        }
    }

    /// A per-ACK RTT sample (s) for the detector.
    pub fn rtt_sample(&mut self, rtt: f64) {
        if let Some(d) = &mut self.detector {
            d.sample(rtt);
        }
    }

    /// Whether the ECN reduction of a CWR episode the sender enters at `now` (s) applies:
    /// once RTT-independent, at most one per 25 ms (prague_enter_cwr). Records it.
    pub fn reduction_allowed(&mut self, now: f64) -> bool {
        if self.rtt_indep && self.cwr_stamp.is_some_and(|t| now - t < RTT_TARGET) {
            return false;
        }
        self.cwr_stamp = Some(now);
        true
    }

    /// The window after an ECN reduction from `cwnd`: W·(1 − α/2), α raised to the
    /// fall-back's floor on a Classic ECN bottleneck; no floor on the window (prague_enter_cwr).
    pub fn reduce(&self, cwnd: f64) -> f64 {
        let floor = self.detector.as_ref().map_or(0.0, ClassicEcnDetector::alpha_floor);
        cwnd * (1.0 - self.alpha.max(floor) / 2.0)
    }

    /// The additive increase for `n` unmarked segments acknowledged at window `cwnd`, RTT
    /// `srtt` (s): ai_scale(srtt, round)·n/cwnd segments, times MTU_SYS/mtu in the Linux
    /// variant (v0.7 prague_update_cwnd: `increase * MTU_SYS / tcp_mss_to_mtu`).
    pub fn increase(&self, cwnd: f64, n: f64, srtt: f64) -> f64 {
        ai_scale(srtt, self.round) * self.ai_segments * n / cwnd
    }

    /// Pacing rate as a multiple of cwnd/srtt, in slow start (cwnd < ssthresh/2) and after:
    /// tcp_prague prague_update_pacing_rate keeps 200 % in slow start ("2 MSS back to back for
    /// every received ACK") and 100 % in congestion avoidance.
    pub const PACING_RATIOS: (f64, f64) = (2.0, 1.0);
}

/// Classic ECN AQM detection (Briscoe & Ahmed, arXiv:1911.00710, v2; tcp_prague v0.6
/// prague_classic_ecn_detection). A Classic AQM lets a deep, slowly varying queue build; an
/// L4S AQM keeps a shallow one. Once per round (after a first mark) the score c moves by
///   V·lg(mdev / V0) + D·max(0, lg((srtt − min RTT) / D0)),
/// V = D = 1/2, V0 = 750 µs, D0 = 2 ms, with srtt and mdev from a low-gain estimator of the
/// per-ACK RTT (gain 2^−s, s = ⌊lg ssthresh⌋ + ⌊⌊lg ssthresh⌋/2⌋ + 1 capped at 18; mdev's gain
/// 2^−(s+1)), and is held in [0, C_STICKY]. Above L_STICKY the flow is on a Classic
/// bottleneck by degrees, and its α is floored at 0.625·(min(c, CLASSIC) − L_STICKY): a full
/// Classic score gives a reduction by 0.3125, CUBIC's 1 − β = 0.3. Scores in units of α
/// (tcp_prague stores them scaled by PRAGUE_MAX_ALPHA). Logarithms are exact here; the module
/// takes integer ones with a carried remainder, which estimates the same.
#[derive(Clone, Debug)]
pub struct ClassicEcnDetector {
    pub score: f64,
    srtt: Option<f64>,
    mdev: f64,
    min_rtt: f64,
    /// log2 of the inverse of the srtt gain.
    shift: u32,
}

/// Score limits (tcp_prague v0.6 L_STICKY, CLASSIC_ECN, C_STICKY): 16·V pure L4S, one more
/// for the transition, as much again for pure Classic.
pub const L_STICKY: f64 = 8.0;
pub const CLASSIC: f64 = L_STICKY + 1.0;
pub const C_STICKY: f64 = CLASSIC + L_STICKY;
/// Reference delay variation V0 and queue depth D0 (s); weights V and D.
pub const V0: f64 = 750e-6;
pub const D0: f64 = 2e-3;
const WEIGHT_V: f64 = 0.5;
const WEIGHT_D: f64 = 0.5;
/// The largest gain shift (PRAGUE_MAX_SRTT_BITS), which applies until the first reduction.
const MAX_SHIFT: u32 = 18;

impl Default for ClassicEcnDetector {
    fn default() -> Self {
        // mdev starts at one microsecond (mdev_pace_us = 1 << g_mdev_shift).
        ClassicEcnDetector { score: 0.0, srtt: None, mdev: 1e-6, min_rtt: f64::INFINITY, shift: MAX_SHIFT }
    }
}

impl ClassicEcnDetector {
    /// prague_rtt_estimator: RFC 6298's srtt and mdev with gains 2^−s and 2^−(s+1).
    pub fn sample(&mut self, rtt: f64) {
        self.min_rtt = self.min_rtt.min(rtt);
        let Some(srtt) = &mut self.srtt else {
            self.srtt = Some(rtt);
            return;
        };
        let err = rtt - *srtt;
        *srtt += err * (-(self.shift as f64)).exp2();
        self.mdev += (err.abs() - self.mdev) * (-(self.shift as f64 + 1.0)).exp2();
    }

    /// prague_update_rtt_scaling: the gain follows ssthresh (in segments).
    pub fn set_gain(&mut self, ssthresh: f64) {
        let lg = if ssthresh >= 1.0 { ssthresh.min(u32::MAX as f64).log2().floor() as u32 } else { 0 };
        self.shift = (lg + lg / 2 + 1).min(MAX_SHIFT);
    }

    /// The score's move once per round.
    pub fn end_round(&mut self) {
        let Some(srtt) = self.srtt else { return };
        let mut c = self.score + WEIGHT_V * (self.mdev / V0).log2();
        if srtt > self.min_rtt {
            // Queue build-up only moves the score toward Classic.
            c += WEIGHT_D * ((srtt - self.min_rtt) / D0).log2().max(0.0);
        }
        self.score = c.clamp(0.0, C_STICKY);
    }

    /// The least α a reduction uses (prague_classic_ecn_fallback): 0 below L_STICKY.
    pub fn alpha_floor(&self) -> f64 {
        if self.score <= L_STICKY {
            return 0.0;
        }
        0.625 * (self.score.min(CLASSIC) - L_STICKY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ACK; in slow start the window is below an infinite ssthresh, out of it at 1.
    fn ack(acked: u64, marked: u64, snd_una: u64, snd_max: u64, now: f64, slow_start: bool) -> AckInfo {
        let ssthresh = if slow_start { f64::INFINITY } else { 1.0 };
        AckInfo { acked, marked, snd_una, snd_max, now, cwnd: 20.0, ssthresh }
    }

    /// One ACK through Prague's steps without an ECN reduction and without growth: the window
    /// its response leaves, if it changes it.
    fn step(p: &mut Prague, a: AckInfo) -> Option<f64> {
        p.on_ack(a);
        let w = p.respond(&a, false, false);
        p.after_ack(a);
        w
    }

    #[test]
    fn increase_scale_by_hand() {
        // R = 5 ms, V = 25 ms: (1/5)² = 0.04, once 4 rounds out of slow start; unscaled before,
        // at or above V, and above 100 ms.
        assert!((ai_scale(0.005, 4) - 0.04).abs() < 1e-15);
        assert_eq!([ai_scale(0.005, 3), ai_scale(0.030, 9), ai_scale(0.2, 9), ai_scale(0.0, 9)], [1.0; 4]);
    }

    #[test]
    fn linux_first_mark_halves_then_alpha_runs_from_zero() {
        let mut p = Prague::new(PragueVariant::Linux, 1500);
        // A round of 10 segments unmarked in slow start: the round ends at snd_una ≥ 0 at once
        // (next_seq 0), α stays 0 before any mark, the round count does not move in slow start.
        assert_eq!(step(&mut p, ack(10, 0, 10, 20, 0.0, true)), None);
        assert_eq!((p.alpha, p.round), (0.0, 0));
        // The first mark on an ACK that grows nothing halves the window (cwnd 20 → 10) and α is
        // not touched yet.
        assert_eq!(step(&mut p, ack(2, 1, 12, 24, 0.01, true)), Some(10.0));
        assert_eq!(p.alpha, 0.0);
        // The round (ending at snd_una 20) closes: F = 1 marked of 10 acked since the last
        // close (2 + 8) → α = 0 + 0.1/16. Out of slow start now: round 1.
        step(&mut p, ack(8, 0, 20, 30, 0.02, false));
        assert!((p.alpha - 0.1 / 16.0).abs() < 1e-15, "{}", p.alpha);
        assert_eq!(p.round, 1);
        // A second mark does not halve again.
        assert_eq!(step(&mut p, ack(1, 1, 21, 31, 0.021, false)), None);
    }

    #[test]
    fn reduction_has_no_floor() {
        // prague_enter_cwr: frac_cwnd −= α·frac_cwnd/2, nothing more: W = 2.5, α = 1 → 1.25.
        let mut p = Prague::new(PragueVariant::Linux, 1500);
        p.alpha = 1.0;
        assert_eq!(p.reduce(2.5), 1.25);
    }

    #[test]
    fn draft_alpha_starts_at_one_and_updates_from_the_first_round() {
        let mut p = Prague::new(PragueVariant::Draft, 1500);
        assert_eq!(step(&mut p, ack(10, 5, 10, 20, 0.0, true)), None);
        assert_eq!(p.alpha, 15.0 / 16.0 + 0.5 / 16.0);
    }

    #[test]
    fn rtt_independent_rounds_wait_for_25_ms_and_reductions_too() {
        let mut p = Prague::new(PragueVariant::Draft, 1500);
        // Four rounds out of slow start, 125 ms apart (times exact in binary): rounds 1..4, the
        // last α update at 375 ms.
        for k in 0..4u64 {
            step(&mut p, ack(10, 0, 10 * (k + 1), 10 * (k + 2), 0.125 * k as f64, false));
        }
        assert_eq!(p.round, 4);
        let a = p.alpha;
        // Now RTT-independent: the next round has passed 23.4 ms later, but α waits until 25 ms
        // after its last update: none then, one at 31.25 ms, over both ACKs (F = 10/20).
        step(&mut p, ack(10, 10, 50, 60, 0.375 + 0.0234375, false));
        assert_eq!(p.alpha, a);
        step(&mut p, ack(10, 0, 60, 70, 0.375 + 0.03125, false));
        assert_eq!(p.alpha, (1.0 - G) * a + G * 0.5);
        // Reductions: one, then none for 25 ms (23.4 ms later: refused; 31.25 ms: allowed).
        assert!(p.reduction_allowed(1.0));
        assert!(!p.reduction_allowed(1.0234375));
        assert!(p.reduction_allowed(1.03125));
        // W·(1 − α/2) with the detector's score at 0 (no floor).
        assert_eq!(p.reduce(64.0), 64.0 * (1.0 - p.alpha / 2.0));
    }

    #[test]
    fn the_25_ms_reduction_limit_waits_for_rtt_independence() {
        // prague_enter_cwr rate-limits reductions to one per RTT_TARGET only once the flow is
        // RTT-independent (prague_is_rtt_indep: out of slow start for RTT_TRANSITION = 4
        // rounds). Out of slow start but at round 0, two reductions 10 ms apart both apply.
        let mut p = Prague::new(PragueVariant::Draft, 1500);
        p.on_ack(ack(1, 0, 1, 20, 1.0, false));
        assert_eq!(p.round, 0);
        assert!(p.reduction_allowed(1.0));
        assert!(p.reduction_allowed(1.01));
        // In slow start, even past round 4, neither is refused.
        p.round = 9;
        p.on_ack(ack(1, 0, 2, 20, 1.02, true));
        assert!(p.reduction_allowed(1.02));
        assert!(p.reduction_allowed(1.03));
    }

    #[test]
    fn linux_slow_start_reduction_of_a_whole_segment_lowers_the_window() {
        // v0.7 prague_update_cwnd in slow start on an ACK that grows nothing: snd_cwnd steps
        // down when the fractional window rounded up is below it. snd_cwnd 16, α = 1/8: the
        // reduction leaves 16·(1 − 1/16) = 15, and ⌈15⌉ = 15 < 16, so it applies.
        let a = AckInfo { acked: 1, marked: 0, snd_una: 1, snd_max: 20, now: 0.0, cwnd: 16.0, ssthresh: f64::INFINITY };
        let mut p = Prague::new(PragueVariant::Linux, 1500);
        p.alpha = 0.125;
        assert_eq!(p.respond(&a, true, false), Some(15.0));
        // α = 1/16 leaves 15.5: ⌈15.5⌉ = 16 is not below snd_cwnd, nothing moves.
        p.alpha = 0.0625;
        assert_eq!(p.respond(&a, true, false), None);
    }

    #[test]
    fn a_round_with_nothing_acknowledged_decays_alpha() {
        // prague_update_alpha: F is the marked fraction of the round, 0 when no segment was
        // marked (nothing acknowledged, nothing marked): α ← (1 − g)·α = 15/16 from the Draft's 1.
        let mut p = Prague::new(PragueVariant::Draft, 1500);
        step(&mut p, ack(0, 0, 0, 10, 0.0, false));
        assert_eq!(p.alpha, 15.0 / 16.0);
    }

    #[test]
    fn a_reduction_exactly_25_ms_after_the_last_applies() {
        // prague_enter_cwr skips a reduction only while less than RTT_TARGET has passed since
        // the last one: at exactly 25 ms it applies. (0.025 − 0.0 is RTT_TARGET exactly.)
        let mut p = Prague::new(PragueVariant::Draft, 1500);
        p.round = RTT_TRANSITION;
        p.on_ack(ack(1, 0, 1, 20, 0.0, false));
        assert!(p.reduction_allowed(0.0));
        assert!(p.reduction_allowed(RTT_TARGET));
    }

    #[test]
    fn detector_score_by_hand() {
        let mut d = ClassicEcnDetector::default();
        // ssthresh 100: ⌊lg 100⌋ = 6, shift 6 + 3 + 1 = 10; ssthresh 1e6: 19 + 9 + 1 → capped 18.
        d.set_gain(100.0);
        assert_eq!(d.shift, 10);
        // First sample 20 ms sets srtt; a second of 24 ms moves srtt by 4 ms/1024 and mdev by
        // (4 ms − 1 µs)/2048.
        d.sample(0.020);
        d.sample(0.024);
        let srtt = 0.020 + 0.004 / 1024.0;
        let mdev = 1e-6 + (0.004 - 1e-6) / 2048.0;
        assert!((d.srtt.unwrap() - srtt).abs() < 1e-15 && (d.mdev - mdev).abs() < 1e-15);
        // A round: 0.5·lg(mdev/750 µs) (negative: small variation) plus 0.5·lg((srtt − 20 ms)/2 ms)
        // clipped at 0 (3.9 µs of queue is below D0): the score stays clamped at 0.
        d.end_round();
        assert_eq!(d.score, 0.0);
        // mdev of 6 ms (8·V0) and a 16 ms queue (8·D0): +1.5 + 1.5 per round.
        d.mdev = 8.0 * V0;
        d.srtt = Some(0.020 + 8.0 * D0);
        d.end_round();
        assert!((d.score - 3.0).abs() < 1e-12);
        for _ in 0..2 {
            d.end_round();
        }
        assert!((d.score - 9.0).abs() < 1e-12);
        // Score 9 (full Classic): α floored at 0.625; at 8.5, at 0.3125; at or below 8, none.
        assert_eq!(d.alpha_floor(), 0.625);
        d.score = 8.5;
        assert_eq!(d.alpha_floor(), 0.3125);
        d.score = 8.0;
        assert_eq!(d.alpha_floor(), 0.0);
        // Held within [0, 17].
        d.score = 16.0;
        d.end_round();
        assert_eq!(d.score, C_STICKY);
    }
}
