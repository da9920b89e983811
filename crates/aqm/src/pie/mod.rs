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
//! | delay once a departure empties the queue (timestamps) | 0 | 0 (see below) | 0 | 0 |
//! | departure-rate cycle | starter counted, restart at ≥ threshold | App. B: starter not counted, back-to-back | starter counted, restart at ≥ | starter counted, restart at > |
//! | derandomization (default) | off | off (optional) | always on | off |
//! | derandomization reset | on a positive draw | on a positive draw (§5.4) | on a positive draw | on a drop only, not a mark (`PieQueueDisc::DoEnqueue`) |
//! | cap +2 % when p ≥ 10 % (default) | off | on (optional) | always | on |
//! | +2 % if τ > 250 ms | no | no | yes | no |
//! | decay after two zero delays | none | ×0.98 | ×(1 − 1/64), skipped if backlog > 0 | ×0.98 |
//! | burst consumption | −dq_int per rate sample | −T_UPDATE per update | −elapsed dequeue time | −T_update per update |
//! | burst re-arm | p = 0 && both τ < ref/2, tested at each rate sample | same, tested at enqueue | same test at update → full state reset | NO_BURST after > ⌊1.5 s/T⌋ quiet updates in a row |
//! | quiet reset at update | none | none | `pie_vars_init` (burst, accu, estimator) | estimate dropped, even mid-cycle |
//! | ECN threshold (mark_ecnth) | none: mark at any p | p < 0.1 | p ≤ 0.1 | p < 0.1 |
//! | byte mode | p·size/mean | p·size/mean | size·(p/MTU) for size ≤ MTU | p·size/mean |
//! | rate EWMA (default) | ε = 1/8 on rate | 0.25 on cycle time | 1/8 on rate, integer | 1/2 on rate |
//! | delay measure (default) | rate estimator | timestamps | timestamps | timestamps |
//! | limit (default) | 1000 p | 1000 p | 1000 p | 25 p |
//!
//! Byte mode, ECN, derandomization, the cap and the delay measure are overridable in every
//! profile, as is RFC 8033 §5.3's active/inactive mode (`active_threshold`, off by
//! default). All profiles tail-drop at the limit before any early-drop test (Linux order).
//!
//! Note on `linux`: sch_pie only guards its u64 probability against wrap-around, so with the
//! +2 % boost above 250 ms it can grow past 1.0 (the eight spare bits of Q56) and then needs
//! many updates to come back; this is reproduced, and probes report it clamped to 1. Its
//! rate-mode delay is computed from a u32 backlog shifted left by 8 in 32 bits, which wraps once
//! 16 MiB are queued; that is reproduced too.
//!
//! Idle queue in `rfc`: RFC 8033's decay (§4.2, ×0.98 once `current_qdelay` and `qdelay_old`
//! are both 0) presumes that an idle queue has a zero delay. With the departure-rate estimator
//! (§5.2 and App. B) it has: `current_qdelay = queue bytes × avg_dq_time / DQ_THRESHOLD` is 0
//! for an empty queue. App. A's timestamp option reads the sojourn of the last departure and
//! says nothing of an empty queue; taking that sojourn until traffic resumes would keep p
//! frozen for as long as the queue stays idle (the decay could never run). Both reference
//! implementations of the timestamp option, sch_pie (`pie_process_dequeue`) and ns-3
//! (`PieQueueDisc::DoDequeue`), set the delay to 0 when a departure leaves the queue empty; so
//! does every profile here. The HPSR'13 `paper` profile measures by departure rate by default,
//! where an empty queue also means a zero delay.
//!
//! ECN in `paper`: HPSR'13 and the 2013 slides mark ECN-capable packets whatever p (no
//! `mark_ecnth`); RFC 8033 §5.1 added the 10 % threshold.

//!
//! # Layout
//! The arithmetic ([`prob`]: f64 or Q56) is shared by every rule; each rule that differs by
//! profile is one small unit: the burst allowance ([`burst`]), the departure-rate estimator
//! ([`rate`]), the bypass, couple-of-packets, empty-queue and quiet-reset rules ([`profile`]).
//! This module only drives them on PIE's three events.

mod burst;
#[cfg(test)]
mod fidelity_tests;
mod law;
pub mod linux;
mod params;
mod prob;
mod profile;
mod rate;
mod reference;
#[cfg(test)]
mod tests;

pub use burst::{Burst, Ns3State};
pub use law::{autotune_divisor, FloatLaw};
pub use params::{linux_jiffies_ns, DelayMeasure, PieConfig, PieParams, PieProfile, LINUX_MAX_DQ_THRESHOLD, LINUX_MAX_GAIN_HZ, TARGET_RANGE};
pub use prob::{Compare, Prob};
pub use rate::{Averaging, CycleRule, RateEstimator};
pub use reference::{Reference, TargetPolicy};

use self::linux::{ticks, TICK_SHIFT};
use self::profile::{BypassDelay, QuietReset, Rules};
use crate::packet::Pkt;
use crate::queue::{Aqm, LinkInfo, QueueView, Verdict};
use crate::rng::Rng;
use crate::schema::{check_value, Kind};
use crate::time::{to_secs, Nanos, NS_PER_SEC};

/// Auto-tuning of the gains by the current probability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoTune {
    /// HPSR'13 §III-B: /8 below 1 %, /2 below 10 %.
    ThreeStep,
    /// RFC 8033 §4.2: /2048, /512, /128, /32, /8, /2 at 1e-6 … 0.1.
    SixLevel,
}

/// One PIE instance: parameters, the profile's rules, state and its random stream.
#[derive(Clone, Debug)]
pub struct Pie {
    p: PieParams,
    rules: Rules,
    /// The update period as it runs (whole jiffies for `linux`) and the first update's time
    /// (sch_pie first fires HZ/2 after init).
    tupdate: Nanos,
    first_update: Nanos,
    mtu: u32,
    rng: Rng,
    prob: Prob,
    /// Current and previous delay samples (multiples of 64 ns in `linux`).
    qdelay: Nanos,
    qdelay_old: Nanos,
    burst: Burst,
    est: RateEstimator,
    /// The delay reference's policy (fixed unless set otherwise).
    reference: Reference,
    /// RFC 8033 §5.3: false while idle (only with an active threshold).
    active: bool,
}

impl Pie {
    pub fn new(p: &PieParams, link: LinkInfo, rng: Rng) -> Self {
        let (tupdate, first_update) = match p.hz {
            // sch_pie stores tupdate with usecs_to_jiffies (rounds up) and first fires at HZ/2.
            Some(hz) => (linux_jiffies_ns(p.tupdate, hz), NS_PER_SEC / 2),
            None => (p.tupdate, p.tupdate),
        };
        let reference = Reference::new(p.target_policy, p.target_bytes, p.min_target, p.target, p.stable_band, p.stable_for);
        let mut prob = profile::prob(p);
        if let Some(t) = reference.for_link(link.rate_bps) {
            prob.set_target(t);
        }
        Pie {
            rules: Rules::of(p.profile),
            reference,
            tupdate,
            first_update,
            mtu: link.mtu,
            rng,
            prob,
            qdelay: 0,
            qdelay_old: 0,
            burst: profile::burst(p),
            est: profile::estimator(p),
            active: p.active_threshold.is_none(),
            p: p.clone(),
        }
    }

    /// sch_fq_pie's `ecn_prob`: mark while p ≤ pct % (the law's own threshold; the parameters'
    /// `mark_ecnth` was read when the law was built).
    pub fn with_ecn_percent(mut self, pct: u32) -> Self {
        self.prob.set_ecn_percent(pct);
        self
    }

    /// The drop probability as a fraction (the kernel's may exceed 1.0; reported up to 1.0).
    pub fn prob(&self) -> f64 {
        self.prob.frac()
    }

    /// The derandomization accumulator as a fraction.
    pub fn accu_prob(&self) -> f64 {
        self.prob.accu_frac()
    }

    pub fn qdelay(&self) -> Nanos {
        self.qdelay
    }

    pub fn burst_allowance(&self) -> Nanos {
        self.burst.left()
    }

    /// The delay reference in force (the configured target unless a policy or a run-time
    /// change moved it).
    pub fn target(&self) -> Nanos {
        self.prob.target()
    }

    /// A run-time change of the delay reference (the slides' "delay reference can be tuned
    /// dynamically"): used from the next update at or after `now`; it also becomes the upper
    /// bound of an automatic policy. The error names the field and the accepted range.
    pub fn set_target(&mut self, _now: Nanos, target: Nanos) -> Result<(), String> {
        check_value("target", Kind::Duration, None, &TARGET_RANGE, &target)?;
        self.p.target = target;
        self.prob.set_target(target);
        self.reference.rebase(target);
        Ok(())
    }

    /// p = 0 and both delay samples below half the target: no congestion.
    fn quiet(&self) -> bool {
        self.prob.is_zero() && self.prob.below_half_target(self.qdelay) && self.prob.below_half_target(self.qdelay_old)
    }

    /// The early-drop test for an arrival (RFC 8033 §4.1 drop_early, sch_pie pie_drop_early).
    fn drop_early(&mut self, pkt: &Pkt, q: &QueueView) -> bool {
        // A burst allowance left: no random drop (HPSR'13 §III-D, RFC 8033 §4.4).
        if self.burst.skips_drop_test(self.p.max_burst) {
            return false;
        }
        let d = match self.rules.bypass_delay {
            BypassDelay::Current => self.qdelay,
            BypassDelay::Previous => self.qdelay_old,
        };
        if self.prob.below_half_target(d) && self.prob.below_fifth() {
            return false;
        }
        if self.rules.few_packets.holds(q.backlog, self.mtu, self.p.mean_pkt_size, self.p.byte_mode) {
            return false;
        }
        let scale = if self.rules.scale_by_mtu { self.mtu } else { self.p.mean_pkt_size };
        self.prob.decide(pkt.len, self.p.byte_mode, scale, self.p.derandomize, &mut self.rng)
    }

    /// Departure bookkeeping: sojourn time, rate cycles, burst consumption.
    fn departed(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) {
        let left = q.backlog.bytes;
        self.reference.at_dequeue(pkt.len, left);
        let rate_mode = self.p.delay == DelayMeasure::RateEstimator;
        if !rate_mode {
            let sojourn = if self.rules.tick_clock { (ticks(now) - ticks(pkt.enqueued_at)) << TICK_SHIFT } else { now - pkt.enqueued_at };
            // sch_pie, ns-3 (and this module's reading of RFC 8033): 0 once the queue is empty.
            self.qdelay = if left == 0 { 0 } else { sojourn };
            self.burst.at_timestamped_dequeue(now);
        }
        if rate_mode || self.burst.needs_rate_samples() {
            if let Some(dq_int) = self.est.on_dequeue(now, pkt.len, left) {
                let quiet = self.quiet();
                self.burst.at_rate_sample(dq_int, quiet, self.p.max_burst, rate_mode);
            }
        }
    }

    /// RFC 8033 §5.3: becoming active resets the controller and re-arms the burst allowance.
    fn activate(&mut self) {
        self.active = true;
        self.prob.reset();
        self.qdelay_old = 0;
        self.burst.arm(self.p.max_burst);
        self.est.reset();
    }

    /// After the law: reset what the profile resets once congestion is gone.
    fn after_update(&mut self) {
        let quiet = self.quiet();
        match self.rules.quiet_reset {
            QuietReset::LinuxVarsInit if quiet && (self.p.delay == DelayMeasure::Timestamps || self.est.has_estimate()) => {
                self.burst.restart(self.p.max_burst);
                self.prob.clear_accu();
                self.est.reset();
            }
            QuietReset::Ns3Estimator if quiet && (self.p.delay == DelayMeasure::Timestamps || self.est.has_estimate()) => self.est.ns3_drop_estimate(),
            _ => {}
        }
        self.burst.ns3_after_update(quiet, self.tupdate);
    }
}

impl Aqm for Pie {
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        // Tail drop first, before any early-drop test (sch_pie, ns-3, HPSR-era code).
        if q.would_overflow(pkt.len) {
            self.prob.clear_accu();
            return Verdict::Drop;
        }
        if !self.active {
            if q.backlog.bytes < self.p.active_threshold.unwrap_or(0) {
                return Verdict::Accept;
            }
            self.activate();
        }
        let quiet = self.quiet();
        self.burst.at_enqueue(quiet, self.p.max_burst);
        if !self.drop_early(pkt, q) {
            return Verdict::Accept;
        }
        if self.p.ecn && pkt.ecn.is_capable() && self.prob.ecn_allows() {
            return Verdict::Mark;
        }
        self.prob.clear_accu();
        Verdict::Drop
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        self.departed(now, pkt, q);
        Verdict::Accept
    }

    fn update_interval(&self) -> Option<Nanos> {
        Some(self.tupdate)
    }

    fn first_update_at(&self) -> Option<Nanos> {
        Some(self.first_update)
    }

    fn on_update(&mut self, now: Nanos, q: &QueueView) {
        if let Some(lower) = self.reference.at_update(now, self.tupdate, q.backlog.bytes, self.prob.target()) {
            self.prob.set_target(lower);
        }
        if !self.active {
            return;
        }
        let backlog = q.backlog.bytes;
        if self.p.delay == DelayMeasure::RateEstimator {
            self.qdelay_old = self.qdelay;
            self.qdelay = self.est.delay(backlog);
        }
        if self.burst.forces_zero_prob() {
            self.prob.force_zero();
        } else {
            self.prob.update(self.qdelay, self.qdelay_old, backlog);
        }
        self.burst.at_update(self.tupdate);
        self.after_update();
        if self.p.delay == DelayMeasure::Timestamps {
            self.qdelay_old = self.qdelay;
        }
        // RFC 8033 App. B: back to inactive once p = 0 and both delay samples are 0.
        if self.p.active_threshold.is_some() && self.prob.is_zero() && self.qdelay == 0 && self.qdelay_old == 0 {
            self.active = false;
        }
    }

    fn set_link_rate(&mut self, rate_bps: u64) {
        if let Some(t) = self.reference.for_link(rate_bps) {
            self.prob.set_target(t);
        }
    }

    fn set_param(&mut self, now: Nanos, name: &str, value: &serde_json::Value) -> Result<(), String> {
        match (name, value.as_u64()) {
            ("target", Some(ns)) => self.set_target(now, ns),
            ("target", None) => Err(format!("target: expected integer nanoseconds, got {value}")),
            _ => Err(format!("{name}: not changeable at run time (PIE changes: target)")),
        }
    }

    /// With an automatic delay reference, its value is probed too.
    fn probe_names(&self) -> Vec<&'static str> {
        let mut names = vec!["prob", "qdelay_s", "burst_allowance_s", "avg_dq_rate_Bps", "accu_prob"];
        if self.p.target_policy != TargetPolicy::Fixed {
            names.push("target_s");
        }
        names
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.prob(), to_secs(self.qdelay), to_secs(self.burst.left()), self.est.rate_bytes_per_s(), self.accu_prob()]);
        if self.p.target_policy != TargetPolicy::Fixed {
            out.push(to_secs(self.prob.target()));
        }
    }
}
