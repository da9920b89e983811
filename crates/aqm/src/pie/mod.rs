//! PIE: Proportional Integral controller Enhanced, in four named profiles.
//!
//! The drop probability `p` is updated every T_update by a PI law on the queueing delay
//! (`p += α(τ − τ_ref) + β(τ − τ_old)`, gains auto-tuned by `p`); arrivals are dropped (or
//! ECN-marked) at random with probability `p`. The delay `τ` is either the sojourn time of the
//! departing packet or backlog / measured departure rate.
//!
//! # Profiles and what differs between them (spec §2.4, extended with HPSR'13)
//!
//! | Aspect | `paper` (HPSR'13) | `rfc` (RFC 8033) | `linux` (sch_pie) | `ns3` (PieQueueDisc) |
//! |---|---|---|---|---|
//! | arithmetic | f64 | f64 | Q56 u64 prob, 64 ns ticks | f64 |
//! | target / T_update | 20 ms / 30 ms | 15 / 15 ms | 15 ms / jiffies (16 ms @HZ=250) | 15 / 15 ms |
//! | first update | T_update | T_update | HZ/2 = 0.5 s | T_update |
//! | auto-tune | /8 < 1 %, /2 < 10 % | 6 levels (/2048 … /2) | same 6 levels by shifts | 6 levels |
//! | no-drop delay test | current τ < ref/2 && p < 0.2 | τ_old < REF/2 && p < 0.2 | current τ < target/2 && p < 0.2 | τ_old (RFC) |
//! | couple-of-packets test | backlog < 2·MTU | bytes ≤ 2·MEAN_PKTSIZE | backlog < 2·MTU | ≤ 2 pkts / ≤ 2·mean bytes |
//! | random compare | u < p | u < p | rnd < p (56 bits) | u ≤ p |
//! | derandomization (default) | off | off (optional) | always on | off |
//! | cap +2 % when p ≥ 10 % (default) | off | on (optional) | always | on |
//! | +2 % if τ > 250 ms | no | no | yes | no |
//! | decay after two zero delays | none | ×0.98 | ×(1 − 1/64), skipped if backlog > 0 | ×0.98 |
//! | burst consumption | −dq_int per rate sample | −T_UPDATE per update | −elapsed dequeue time | −T_update per update |
//! | burst re-arm | p = 0 && both τ < ref/2, tested at each rate sample | same, tested at enqueue | same test at update → full state reset | DOCSIS-like states, 1.5 s |
//! | ECN threshold (mark_ecnth 0.1) | p < th | p < th | p ≤ th | p < th |
//! | byte mode | p·size/mean | p·size/mean | size·(p/MTU) for size ≤ MTU | p·size/mean |
//! | rate EWMA (default) | ε = 1/8 on rate | 0.25 on cycle time | 1/8 on rate, integer | 1/2 on rate |
//! | delay measure (default) | rate estimator | timestamps | timestamps | timestamps |
//! | limit (default) | 1000 p | 1000 p | 1000 p | 25 p |
//!
//! Byte mode, ECN, derandomization, the cap and the delay measure are overridable in every
//! profile, as is RFC 8033 §5.3's active/inactive mode (`active_threshold_bytes`, off by
//! default). All profiles tail-drop at the limit before any early-drop test (Linux order).
//!
//! Note on `linux`: sch_pie only guards its u64 probability against wrap-around, so with the
//! +2 % boost above 250 ms it can grow past 1.0 (the eight spare bits of Q56) and then needs
//! many updates to come back; this is reproduced, and probes report it clamped to 1.

mod law;
pub mod linux;
mod params;
mod rate;
#[cfg(test)]
mod tests;

pub use law::{autotune_divisor, FloatLaw};
pub use params::{AutoTune, BurstBurn, DelayMeasure, PieConfig, PieParams, PieProfile};
pub use rate::{Averaging, RateEstimator};

use self::linux::{ticks, FixedGains, MAX_PROB, TICK_SHIFT};
use crate::packet::Pkt;
use crate::queue::{Aqm, LinkInfo, QueueView, Verdict};
use crate::rng::Rng;
use crate::time::{to_secs, Nanos, NS_PER_SEC};

/// ns-3's DOCSIS-like burst protection states (spec §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ns3Burst {
    NoBurst,
    Protecting,
    /// Quiet updates counted towards BURST_RESET_TIMEOUT.
    InBurst(u32),
}

/// ns-3's BURST_RESET_TIMEOUT.
const NS3_BURST_RESET: Nanos = 3 * NS_PER_SEC / 2;

/// One PIE instance: parameters, state and its random stream.
#[derive(Clone, Debug)]
pub struct Pie {
    p: PieParams,
    law: FloatLaw,
    gains: FixedGains,
    ecn_th_fixed: u64,
    mtu: u32,
    rng: Rng,
    /// Drop probability (float profiles).
    prob: f64,
    /// Derandomization accumulator (float profiles).
    accu: f64,
    /// Drop probability in Q56 (`linux`).
    prob_fixed: u64,
    accu_fixed: u64,
    /// Current and previous delay samples (multiples of 64 ns in `linux`).
    qdelay: Nanos,
    qdelay_old: Nanos,
    burst: Nanos,
    /// sch_pie `dq_tstamp` in ticks (timestamp mode).
    last_dequeue: Option<u64>,
    est: RateEstimator,
    ns3_burst: Ns3Burst,
    /// RFC 8033 §5.3: false while idle (only with an active threshold).
    active: bool,
}

impl Pie {
    pub fn new(p: PieParams, link: LinkInfo, rng: Rng) -> Self {
        let fixed = p.profile == PieProfile::Linux;
        let law = FloatLaw {
            alpha: p.alpha,
            beta: p.beta,
            target_s: to_secs(p.target),
            autotune: p.autotune,
            cap: p.cap,
            decay: matches!(p.profile, PieProfile::Rfc | PieProfile::Ns3),
        };
        let averaging = match p.profile {
            PieProfile::Linux => Averaging::Fixed((-p.rate_ewma.log2()).round() as u32),
            PieProfile::Rfc => Averaging::CycleTime(p.rate_ewma),
            PieProfile::Paper | PieProfile::Ns3 => Averaging::Rate(p.rate_ewma),
        };
        let est = RateEstimator::new(averaging, p.dq_threshold, p.profile != PieProfile::Rfc);
        let (burst, ns3_burst) = match p.profile {
            // ns-3 arms the allowance at the first early-drop test (DropEarly).
            PieProfile::Ns3 => (0, Ns3Burst::NoBurst),
            _ => (p.max_burst, Ns3Burst::NoBurst),
        };
        Pie {
            gains: FixedGains::new(p.alpha, p.beta, p.target),
            ecn_th_fixed: if fixed { linux::q56(p.mark_ecnth) } else { 0 },
            law,
            mtu: link.mtu,
            rng,
            prob: 0.0,
            accu: 0.0,
            prob_fixed: 0,
            accu_fixed: 0,
            qdelay: 0,
            qdelay_old: 0,
            burst,
            last_dequeue: None,
            est,
            ns3_burst,
            active: p.active_threshold.is_none(),
            p,
        }
    }

    /// sch_fq_pie's `ecn_prob`: mark while p ≤ pct % (in Q56 `MAX_PROB / 100 · pct`).
    pub fn with_ecn_percent(mut self, pct: u32) -> Self {
        self.p.mark_ecnth = pct as f64 / 100.0;
        self.ecn_th_fixed = MAX_PROB / 100 * pct as u64;
        self
    }

    pub fn params(&self) -> &PieParams {
        &self.p
    }

    fn fixed(&self) -> bool {
        self.p.profile == PieProfile::Linux
    }

    /// The drop probability as a fraction (the kernel's may exceed 1.0; reported up to 1.0).
    pub fn prob(&self) -> f64 {
        if self.fixed() {
            linux::to_frac(self.prob_fixed.min(MAX_PROB))
        } else {
            self.prob
        }
    }

    /// The derandomization accumulator as a fraction.
    pub fn accu_prob(&self) -> f64 {
        if self.fixed() {
            linux::to_frac(self.accu_fixed)
        } else {
            self.accu
        }
    }

    pub fn qdelay(&self) -> Nanos {
        self.qdelay
    }

    pub fn burst_allowance(&self) -> Nanos {
        self.burst
    }

    fn prob_is_zero(&self) -> bool {
        if self.fixed() {
            self.prob_fixed == 0
        } else {
            self.prob == 0.0
        }
    }

    /// `d < target/2`, in ticks for `linux` (integer halving as the kernel does).
    fn below_half_target(&self, d: Nanos) -> bool {
        if self.fixed() {
            ticks(d) < self.gains.target / 2
        } else {
            2 * d < self.p.target
        }
    }

    fn prob_below_fifth(&self) -> bool {
        if self.fixed() {
            self.prob_fixed < MAX_PROB / 5
        } else {
            self.prob < 0.2
        }
    }

    fn ecn_allowed(&self) -> bool {
        if self.fixed() {
            // sch_pie_qdisc_enqueue: prob <= MAX_PROB / 10 (inclusive).
            self.prob_fixed <= self.ecn_th_fixed
        } else {
            // RFC 8033 §5.1: drop_prob < mark_ecnth.
            self.prob < self.p.mark_ecnth
        }
    }

    fn clear_accu(&mut self) {
        self.accu = 0.0;
        self.accu_fixed = 0;
    }

    /// The work-conserving "couple of packets" test (spec §2.4 row 2); `q` excludes the arrival.
    fn few_packets(&self, q: &QueueView) -> bool {
        let b = q.backlog;
        let mean = self.p.mean_pkt_size as u64;
        match self.p.profile {
            PieProfile::Rfc => b.bytes <= 2 * mean,
            PieProfile::Linux | PieProfile::Paper => b.bytes < 2 * self.mtu as u64,
            PieProfile::Ns3 if self.p.byte_mode => b.bytes <= 2 * mean,
            PieProfile::Ns3 => b.packets <= 2,
        }
    }

    /// The early-drop test for an arrival (RFC 8033 §4.1 drop_early, sch_pie pie_drop_early).
    fn drop_early(&mut self, pkt: &Pkt, q: &QueueView) -> bool {
        // A burst allowance left: no random drop (HPSR'13 §III-D, RFC 8033 §4.4).
        if self.burst > 0 {
            return false;
        }
        if self.p.profile == PieProfile::Ns3 && self.ns3_burst == Ns3Burst::NoBurst {
            // ns-3 DropEarly arms the allowance here; this packet is still judged below.
            self.ns3_burst = Ns3Burst::Protecting;
            self.burst = self.p.max_burst;
        }
        // Low delay and low p: no drop. sch_pie and the HPSR-era code test the current delay,
        // RFC 8033 and ns-3 the previous sample.
        let d = match self.p.profile {
            PieProfile::Linux | PieProfile::Paper => self.qdelay,
            PieProfile::Rfc | PieProfile::Ns3 => self.qdelay_old,
        };
        if self.below_half_target(d) && self.prob_below_fifth() {
            return false;
        }
        if self.few_packets(q) {
            return false;
        }
        if self.fixed() {
            return linux::decide(self.prob_fixed, &mut self.accu_fixed, pkt.len, self.mtu, self.p.byte_mode, self.p.derandomize, &mut self.rng);
        }
        let local = if self.p.byte_mode { self.prob * pkt.len as f64 / self.p.mean_pkt_size as f64 } else { self.prob };
        if self.p.derandomize {
            // RFC 8033 §5.4: accumulate p; never drop below 0.85, always drop from 8.5.
            if local == 0.0 {
                self.accu = 0.0;
            } else {
                self.accu += local;
            }
            if self.accu < 0.85 {
                return false;
            }
            if self.accu >= 8.5 {
                return true;
            }
        }
        let u = self.rng.uniform();
        // ns-3 drops when u <= p, the RFC when u < p.
        let drop = if self.p.profile == PieProfile::Ns3 { u <= local } else { u < local };
        if drop {
            self.accu = 0.0;
        }
        drop
    }

    /// Departure bookkeeping: sojourn time, rate cycles, burst consumption.
    fn departed(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) {
        let left = q.backlog.bytes;
        if self.p.delay == DelayMeasure::Timestamps {
            let sojourn = if self.fixed() { (ticks(now) - ticks(pkt.enqueued_at)) << TICK_SHIFT } else { now - pkt.enqueued_at };
            // sch_pie and ns-3 report 0 once the queue is empty; the RFC keeps the sojourn.
            let zero_when_empty = matches!(self.p.profile, PieProfile::Linux | PieProfile::Ns3);
            self.qdelay = if zero_when_empty && left == 0 { 0 } else { sojourn };
            if self.p.burst == BurstBurn::DequeueTime {
                // sch_pie: burn the time since the previous dequeue.
                let t = ticks(now);
                let dtime = self.last_dequeue.map_or(0, |last| t - last);
                self.last_dequeue = Some(t);
                self.burst = self.burst.saturating_sub(dtime << TICK_SHIFT);
            }
        }
        let cycles_needed = self.p.delay == DelayMeasure::RateEstimator || self.p.burst == BurstBurn::PerRateSample;
        if cycles_needed {
            if let Some(dq_int) = self.est.on_dequeue(now, pkt.len, left) {
                let burns = match self.p.burst {
                    BurstBurn::PerRateSample => true,
                    BurstBurn::DequeueTime => self.p.delay == DelayMeasure::RateEstimator,
                    BurstBurn::PerUpdate => false,
                };
                if burns {
                    self.burst = self.burst.saturating_sub(dq_int);
                }
                // HPSR'13 §III-D step 3, at each rate update: re-arm once congestion is gone.
                if self.p.profile == PieProfile::Paper && self.quiet() {
                    self.burst = self.p.max_burst;
                }
            }
        }
    }

    /// RFC 8033 §5.3: becoming active resets the controller and re-arms the burst allowance.
    fn activate(&mut self) {
        self.active = true;
        self.prob = 0.0;
        self.prob_fixed = 0;
        self.clear_accu();
        self.qdelay_old = 0;
        self.burst = self.p.max_burst;
        self.est.reset();
    }

    /// p = 0 and both delay samples below half the target: no congestion.
    fn quiet(&self) -> bool {
        self.prob_is_zero() && self.below_half_target(self.qdelay) && self.below_half_target(self.qdelay_old)
    }

    /// After the law: re-arm or reset when congestion is gone (spec §2.4 "burst re-arm").
    fn after_update(&mut self) {
        let quiet = self.quiet();
        match self.p.profile {
            // sch_pie pie_calculate_probability → pie_vars_init (needs a rate in rate mode).
            PieProfile::Linux if quiet && (self.p.delay == DelayMeasure::Timestamps || self.est.has_estimate()) => {
                self.burst = self.p.max_burst;
                self.accu_fixed = 0;
                self.last_dequeue = None;
                self.est.reset();
            }
            PieProfile::Ns3 => {
                if quiet && !self.est.in_cycle() {
                    self.est.reset();
                }
                let reset_after = NS3_BURST_RESET.div_ceil(self.p.tupdate) as u32;
                self.ns3_burst = match self.ns3_burst {
                    Ns3Burst::Protecting if quiet && self.burst == 0 => Ns3Burst::InBurst(0),
                    Ns3Burst::InBurst(n) if n + 1 >= reset_after => Ns3Burst::NoBurst,
                    Ns3Burst::InBurst(n) => Ns3Burst::InBurst(n + 1),
                    s => s,
                };
            }
            _ => {}
        }
    }
}

impl Aqm for Pie {
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        // Tail drop first, before any early-drop test (sch_pie, ns-3, HPSR-era code).
        if q.would_overflow(pkt.len) {
            self.clear_accu();
            return Verdict::Drop;
        }
        if !self.active {
            if q.backlog.bytes < self.p.active_threshold.unwrap_or(0) {
                return Verdict::Accept;
            }
            self.activate();
        }
        // RFC 8033 App. A re-arms the burst allowance at enqueue, before the drop test.
        if self.p.profile == PieProfile::Rfc && self.quiet() {
            self.burst = self.p.max_burst;
        }
        if !self.drop_early(pkt, q) {
            return Verdict::Accept;
        }
        if self.p.ecn && pkt.ecn.is_capable() && self.ecn_allowed() {
            return Verdict::Mark;
        }
        self.clear_accu();
        Verdict::Drop
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        self.departed(now, pkt, q);
        Verdict::Accept
    }

    fn update_interval(&self) -> Option<Nanos> {
        Some(self.p.tupdate)
    }

    fn first_update_at(&self) -> Option<Nanos> {
        Some(self.p.first_update)
    }

    fn on_update(&mut self, _now: Nanos, q: &QueueView) {
        if !self.active {
            return;
        }
        let backlog = q.backlog.bytes;
        if self.p.delay == DelayMeasure::RateEstimator {
            self.qdelay_old = self.qdelay;
            self.qdelay = self.est.delay(backlog);
        }
        if self.fixed() {
            self.prob_fixed = linux::update(self.prob_fixed, ticks(self.qdelay), ticks(self.qdelay_old), backlog, &self.gains, self.p.cap);
        } else if self.p.profile == PieProfile::Ns3 && self.burst > 0 {
            // ns-3 CalculateP: no probability while the allowance lasts.
            self.prob = 0.0;
        } else {
            self.prob = self.law.update(self.prob, to_secs(self.qdelay), to_secs(self.qdelay_old));
        }
        if self.p.burst == BurstBurn::PerUpdate {
            // RFC 8033 §4.2 step 8.
            self.burst = self.burst.saturating_sub(self.p.tupdate);
        }
        self.after_update();
        if self.p.delay == DelayMeasure::Timestamps {
            self.qdelay_old = self.qdelay;
        }
        // RFC 8033 App. B: back to inactive once p = 0 and both delay samples are 0.
        if self.p.active_threshold.is_some() && self.prob_is_zero() && self.qdelay == 0 && self.qdelay_old == 0 {
            self.active = false;
        }
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["prob", "qdelay_s", "burst_allowance_s", "avg_dq_rate_Bps", "accu_prob"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.prob(), to_secs(self.qdelay), to_secs(self.burst), self.est.rate_bytes_per_s(), self.accu_prob()]);
    }
}
