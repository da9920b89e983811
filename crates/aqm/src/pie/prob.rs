//! PIE's drop probability in its profile's arithmetic: an `f64` for the paper, RFC and ns-3
//! profiles, sch_pie's Q56 integers for `linux`. One representation per instance, never both;
//! everything PIE asks of its probability goes through here.

use super::law::FloatLaw;
use super::linux::{self, ticks, FixedGains, MAX_PROB};
use crate::rng::Rng;
use crate::time::Nanos;

/// How the random draw compares with p.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// RFC 8033 §4.1 drop_early: drop when u < p.
    Below,
    /// ns-3 `PieQueueDisc::DropEarly`: drop when u <= p.
    AtOrBelow,
}

/// The drop probability and the derandomization accumulator.
#[derive(Clone, Debug)]
pub enum Prob {
    /// A fraction in [0, 1] updated by the float law (HPSR'13, RFC 8033, ns-3).
    /// `draw_resets`: a positive random draw zeroes the derandomization accumulator (RFC 8033
    /// §5.4 drop_early), marked or dropped; ns-3 zeroes it only when the packet is dropped
    /// (PieQueueDisc::DoEnqueue; DropEarly leaves it), so under ECN marking it keeps growing.
    Float { p: f64, accu: f64, law: FloatLaw, target: Nanos, compare: Compare, ecn_th: Option<f64>, draw_resets: bool },
    /// sch_pie: `MAX_PROB = 2^56 − 1` is 1.0; delays in 64-ns ticks.
    Q56 { p: u64, accu: u64, gains: FixedGains, cap: bool, ecn_th: u64 },
}

impl Prob {
    /// The probability as a fraction (the kernel's may exceed 1.0; reported up to 1.0).
    pub fn frac(&self) -> f64 {
        match *self {
            Prob::Float { p, .. } => p,
            Prob::Q56 { p, .. } => linux::to_frac(p.min(MAX_PROB)),
        }
    }

    /// The derandomization accumulator as a fraction.
    pub fn accu_frac(&self) -> f64 {
        match *self {
            Prob::Float { accu, .. } => accu,
            Prob::Q56 { accu, .. } => linux::to_frac(accu),
        }
    }

    pub fn is_zero(&self) -> bool {
        match *self {
            Prob::Float { p, .. } => p == 0.0,
            Prob::Q56 { p, .. } => p == 0,
        }
    }

    /// p < 20 %: with a low delay, the work-conserving bypass of RFC 8033 §4.1.
    pub fn below_fifth(&self) -> bool {
        match *self {
            Prob::Float { p, .. } => p < 0.2,
            Prob::Q56 { p, .. } => p < MAX_PROB / 5,
        }
    }

    /// `d < target/2`, in ticks for `linux` (the kernel halves the target in ticks).
    pub fn below_half_target(&self, d: Nanos) -> bool {
        match *self {
            Prob::Float { target, .. } => 2 * d < target,
            Prob::Q56 { gains, .. } => ticks(d) < gains.target / 2,
        }
    }

    /// ECN marking allowed at this p: RFC 8033 §5.1 `p < mark_ecnth` (no threshold: any p);
    /// `pie_qdisc_enqueue` `prob <= MAX_PROB / 10` (inclusive).
    pub fn ecn_allows(&self) -> bool {
        match *self {
            Prob::Float { p, ecn_th, .. } => ecn_th.is_none_or(|th| p < th),
            Prob::Q56 { p, ecn_th, .. } => p <= ecn_th,
        }
    }

    /// sch_fq_pie's `ecn_prob`: mark while p ≤ pct % (in Q56 `MAX_PROB / 100 · pct`).
    pub fn set_ecn_percent(&mut self, pct: u32) {
        match self {
            Prob::Float { ecn_th, .. } => *ecn_th = Some(pct as f64 / 100.0),
            Prob::Q56 { ecn_th, .. } => *ecn_th = MAX_PROB / 100 * pct as u64,
        }
    }

    pub fn clear_accu(&mut self) {
        match self {
            Prob::Float { accu, .. } => *accu = 0.0,
            Prob::Q56 { accu, .. } => *accu = 0,
        }
    }

    /// p = 0 and no accumulated probability (RFC 8033 §5.3 activation).
    pub fn reset(&mut self) {
        self.clear_accu();
        self.force_zero();
    }

    /// p = 0 (ns-3 `CalculateP` while a burst allowance lasts).
    pub fn force_zero(&mut self) {
        match self {
            Prob::Float { p, .. } => *p = 0.0,
            Prob::Q56 { p, .. } => *p = 0,
        }
    }

    /// A new delay reference, from the next update on.
    pub fn set_target(&mut self, to: Nanos) {
        match self {
            Prob::Float { law, target, .. } => {
                law.target_s = to as f64 / 1e9;
                *target = to;
            }
            Prob::Q56 { gains, .. } => gains.target = ticks(to),
        }
    }

    /// The delay reference in force, ns (a multiple of 64 ns for `linux`).
    pub fn target(&self) -> Nanos {
        match *self {
            Prob::Float { target, .. } => target,
            Prob::Q56 { gains, .. } => gains.target << super::linux::TICK_SHIFT,
        }
    }

    /// One periodic update from the two delay samples (ns) and the backlog (bytes).
    pub fn update(&mut self, qdelay: Nanos, qdelay_old: Nanos, backlog: u64) {
        match self {
            Prob::Float { p, law, .. } => *p = law.update(*p, qdelay as f64 / 1e9, qdelay_old as f64 / 1e9),
            Prob::Q56 { p, gains, cap, .. } => *p = linux::update(*p, ticks(qdelay), ticks(qdelay_old), backlog, gains, *cap),
        }
    }

    /// The random part of the early-drop test once the bypass tests have passed: byte scaling
    /// (`len / scale_bytes` for the float profiles, `len · (p / mtu)` for sch_pie),
    /// derandomization (RFC 8033 §5.4) and the draw. Returns true to drop.
    pub fn decide(&mut self, len: u32, byte_mode: bool, scale_bytes: u32, derandomize: bool, rng: &mut Rng) -> bool {
        match self {
            Prob::Q56 { p, accu, .. } => linux::decide(*p, accu, len, scale_bytes, byte_mode, derandomize, rng),
            Prob::Float { p, accu, compare, draw_resets, .. } => {
                let local = if byte_mode { *p * len as f64 / scale_bytes as f64 } else { *p };
                if derandomize {
                    // RFC 8033 §5.4: accumulate p; never drop below 0.85, always drop from 8.5.
                    if local == 0.0 {
                        *accu = 0.0;
                    } else {
                        *accu += local;
                    }
                    if *accu < 0.85 {
                        return false;
                    }
                    if *accu >= 8.5 {
                        return true;
                    }
                }
                let u = rng.uniform();
                let drop = match compare {
                    Compare::Below => u < local,
                    Compare::AtOrBelow => u <= local,
                };
                if drop && *draw_resets {
                    *accu = 0.0;
                }
                drop
            }
        }
    }

    /// The Q56 probability (tests against the kernel's integers).
    #[cfg(test)]
    pub fn q56(&self) -> Option<u64> {
        match *self {
            Prob::Q56 { p, .. } => Some(p),
            Prob::Float { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pie::AutoTune;
    use crate::time::NS_PER_MS;

    fn float(compare: Compare) -> Prob {
        let law = FloatLaw { alpha: 0.125, beta: 1.25, target_s: 0.015, autotune: AutoTune::SixLevel, cap: true, decay: true };
        Prob::Float { p: 0.0, accu: 0.0, law, target: 15 * NS_PER_MS, compare, ecn_th: Some(0.1), draw_resets: true }
    }

    #[test]
    fn ns3_keeps_the_accumulator_across_a_positive_draw() {
        // p = 0.5 with derandomization: 0.5 < 0.85 (no drop), then 1.0 reaches the draw, which
        // at p = 0.5 answers yes or no; after a yes RFC 8033 §5.4 restarts from 0, ns-3's
        // DropEarly does not (PieQueueDisc::DoEnqueue zeroes it when it drops, not when it marks).
        let mut rng = Rng::from_seed(3);
        for (draw_resets, after) in [(true, 0.0), (false, 1.0)] {
            let mut prob = float(Compare::Below);
            if let Prob::Float { p, draw_resets: d, .. } = &mut prob {
                *p = 0.5;
                *d = draw_resets;
            }
            assert!(!prob.decide(1000, false, 1000, true, &mut rng));
            let mut yes = false;
            while !yes {
                prob.clear_accu();
                prob.decide(1000, false, 1000, true, &mut rng);
                yes = prob.decide(1000, false, 1000, true, &mut rng);
            }
            assert_eq!(prob.accu_frac(), after, "draw_resets = {draw_resets}");
        }
    }

    #[test]
    fn ns3_drops_at_u_equal_p_and_the_rfc_does_not() {
        // p = 1: both drop. p = 0: RFC 8033 `u < p` never drops; ns-3's `u <= p` drops only at u = 0,
        // which a 53-bit draw gives with probability 2^-53: not in 10 000 draws.
        let mut rng = Rng::from_seed(5);
        for (compare, p, drops) in [(Compare::Below, 1.0, 10_000), (Compare::AtOrBelow, 1.0, 10_000), (Compare::Below, 0.0, 0), (Compare::AtOrBelow, 0.0, 0)] {
            let mut prob = float(compare);
            if let Prob::Float { p: pp, .. } = &mut prob {
                *pp = p;
            }
            let n = (0..10_000).filter(|_| prob.decide(1000, false, 1000, false, &mut rng)).count();
            assert_eq!(n, drops, "{compare:?} at p = {p}");
        }
    }

    #[test]
    fn thresholds_in_each_arithmetic() {
        let mut f = float(Compare::Below);
        // RFC 8033 §5.1: p < 0.1 marks, p = 0.1 does not; sch_pie marks at p = MAX_PROB / 10.
        if let Prob::Float { p, .. } = &mut f {
            *p = 0.1;
        }
        assert!(!f.ecn_allows());
        f.set_ecn_percent(20);
        assert!(f.ecn_allows());
        let mut q = Prob::Q56 { p: MAX_PROB / 10, accu: 0, gains: FixedGains::new(0.125, 1.25, 15 * NS_PER_MS), cap: true, ecn_th: MAX_PROB / 10 };
        assert!(q.ecn_allows() && q.below_fifth());
        // The bypass needs p strictly below 20 % (RFC 8033 §4.1 `drop_prob_ < 0.2`; sch_pie
        // `prob < MAX_PROB / 5`).
        if let Prob::Q56 { p, .. } = &mut q {
            *p = MAX_PROB / 5;
        }
        assert!(!q.below_fifth());
        if let Prob::Q56 { p, .. } = &mut q {
            *p = MAX_PROB / 5 - 1;
        }
        assert!(q.below_fifth());
        for (v, below) in [(0.1, true), (0.2 - 1e-12, true), (0.2, false), (0.5, false)] {
            if let Prob::Float { p, .. } = &mut f {
                *p = v;
            }
            assert_eq!(f.below_fifth(), below, "p = {v}");
        }
        // Half the target, in ticks: 15 ms = 234 375 ticks, half (integer) 117 187. 7.5 ms and
        // 7 499 968 ns are both 117 187 ticks: not below; 7 499 967 ns is 117 186: below.
        assert!(!q.below_half_target(7_500_000) && !q.below_half_target(7_499_968) && q.below_half_target(7_499_967));
        assert!(!f.below_half_target(7_500_000) && f.below_half_target(7_499_999));
        q.reset();
        assert!(q.is_zero());
    }

    #[test]
    fn an_ecn_percentage_sets_the_marking_bound_in_each_arithmetic() {
        // sch_fq_pie marks while `prob <= MAX_PROB / 100 * ecn_prob`: at 20 %, exactly 20 % in
        // Q56 still marks and one unit more does not. The float law keeps its strict `p < th`.
        let mut q = Prob::Q56 { p: MAX_PROB / 100 * 20, accu: 0, gains: FixedGains::new(0.125, 1.25, 15 * NS_PER_MS), cap: true, ecn_th: 0 };
        q.set_ecn_percent(20);
        assert!(q.ecn_allows());
        if let Prob::Q56 { p, .. } = &mut q {
            *p += 1;
        }
        assert!(!q.ecn_allows());
        let mut f = float(Compare::Below);
        f.set_ecn_percent(20);
        for (v, allows) in [(0.15, true), (0.2 - 1e-12, true), (0.2, false), (0.25, false)] {
            if let Prob::Float { p, .. } = &mut f {
                *p = v;
            }
            assert_eq!(f.ecn_allows(), allows, "p = {v}");
        }
    }
}
