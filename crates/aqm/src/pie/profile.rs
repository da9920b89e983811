//! What each PIE profile does differently, one small rule per aspect, each citing its source.
//! The arithmetic lives in [`super::prob`], the burst allowance in [`super::burst`], the
//! departure-rate estimator in [`super::rate`]; this module picks, per profile, which variant of
//! each rule runs.

use super::burst::{Burst, Ns3State};
use super::law::FloatLaw;
use super::linux::FixedGains;
use super::prob::{Compare, Prob};
use super::rate::{Averaging, CycleRule, RateEstimator};
use super::{AutoTune, PieParams, PieProfile};
use crate::queue::Backlog;
use crate::time::Nanos;

/// Which delay sample the low-delay bypass of the drop test looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BypassDelay {
    /// sch_pie `pie_drop_early` (and the HPSR-era code): the current `qdelay`.
    Current,
    /// RFC 8033 §4.1 drop_early and ns-3 `DropEarly`: `qdelay_old`.
    Previous,
}

/// The work-conserving "couple of packets" test (spec §2.4 row 2), on the backlog before the
/// arrival joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FewPackets {
    /// sch_pie: `backlog < 2·mtu`.
    BelowTwoMtu,
    /// RFC 8033 §4.1: `queue_.byte_length() <= 2 * MEAN_PKTSIZE`.
    AtMostTwoMean,
    /// ns-3 `DropEarly`: `<= 2` packets, or `<= 2·MeanPktSize` bytes in byte mode.
    Ns3,
}

impl FewPackets {
    pub fn holds(self, b: Backlog, mtu: u32, mean: u32, byte_mode: bool) -> bool {
        match self {
            FewPackets::BelowTwoMtu => b.bytes < 2 * mtu as u64,
            FewPackets::AtMostTwoMean => b.bytes <= 2 * mean as u64,
            FewPackets::Ns3 if byte_mode => b.bytes <= 2 * mean as u64,
            FewPackets::Ns3 => b.packets <= 2,
        }
    }
}

/// What the update does once congestion is gone (p = 0, both delays below half the target).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuietReset {
    /// Nothing beyond the burst policy's own re-arming.
    None,
    /// sch_pie `pie_calculate_probability` → `pie_vars_init` (in rate mode only once a rate
    /// estimate exists): burst allowance, accumulator and estimator restarted.
    LinuxVarsInit,
    /// ns-3 `CalculateP` (if an estimate exists, i.e. not `missingInitFlag`): the rate estimate
    /// is dropped, even in a running measurement cycle.
    Ns3Estimator,
}

/// The per-profile rules of one PIE instance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    pub bypass_delay: BypassDelay,
    pub few_packets: FewPackets,
    pub quiet_reset: QuietReset,
    /// sch_pie measures sojourn times on its 64-ns psched clock.
    pub tick_clock: bool,
    /// sch_pie's byte mode scales by the MTU, the others by the mean packet size.
    pub scale_by_mtu: bool,
}

impl Rules {
    pub fn of(profile: PieProfile) -> Rules {
        match profile {
            PieProfile::Paper => Rules {
                bypass_delay: BypassDelay::Current,
                few_packets: FewPackets::BelowTwoMtu,
                quiet_reset: QuietReset::None,
                tick_clock: false,
                scale_by_mtu: false,
            },
            PieProfile::Rfc => Rules {
                bypass_delay: BypassDelay::Previous,
                few_packets: FewPackets::AtMostTwoMean,
                quiet_reset: QuietReset::None,
                tick_clock: false,
                scale_by_mtu: false,
            },
            PieProfile::Linux => Rules {
                bypass_delay: BypassDelay::Current,
                few_packets: FewPackets::BelowTwoMtu,
                quiet_reset: QuietReset::LinuxVarsInit,
                tick_clock: true,
                scale_by_mtu: true,
            },
            PieProfile::Ns3 => Rules {
                bypass_delay: BypassDelay::Previous,
                few_packets: FewPackets::Ns3,
                quiet_reset: QuietReset::Ns3Estimator,
                tick_clock: false,
                scale_by_mtu: false,
            },
        }
    }
}

impl Rules {
    /// Whether MEAN_PKTSIZE is read at all: by RFC 8033's couple-of-packets test always, by
    /// ns-3's only in byte mode, and by the byte-mode scaling of the profiles that do not scale
    /// by the MTU (sch_pie tests 2·MTU and scales by the MTU: never).
    pub fn reads_mean_pkt_size(&self, byte_mode: bool) -> bool {
        self.few_packets == FewPackets::AtMostTwoMean || (byte_mode && (self.few_packets == FewPackets::Ns3 || !self.scale_by_mtu))
    }
}

/// The probability in the profile's arithmetic, with its update law.
pub fn prob(p: &PieParams) -> Prob {
    if p.profile == PieProfile::Linux {
        return Prob::Q56 { p: 0, accu: 0, gains: FixedGains::new(p.alpha, p.beta, p.target), cap: p.cap_drop_adjustment, ecn_th: p.mark_ecnth.map_or(u64::MAX, super::linux::q56) };
    }
    let law = FloatLaw {
        alpha: p.alpha,
        beta: p.beta,
        target_s: p.target as f64 / 1e9,
        // HPSR'13 §III-B's three steps; RFC 8033 §4.2's six levels (ns-3 too).
        autotune: if p.profile == PieProfile::Paper { AutoTune::ThreeStep } else { AutoTune::SixLevel },
        cap: p.cap_drop_adjustment,
        // RFC 8033 §4.2 decay ×0.98 after two zero delays (ns-3 CalculateP too); not in HPSR'13.
        decay: p.profile != PieProfile::Paper,
    };
    let compare = if p.profile == PieProfile::Ns3 { Compare::AtOrBelow } else { Compare::Below };
    let draw_resets = p.profile != PieProfile::Ns3;
    Prob::Float { p: 0.0, accu: 0.0, law, target: p.target, compare, ecn_th: p.mark_ecnth, draw_resets }
}

/// The departure-rate estimator in the profile's averaging.
pub fn estimator(p: &PieParams) -> RateEstimator {
    let averaging = match p.profile {
        // sch_pie: `avg - avg/8 + sample/8` on bytes per tick << 8.
        PieProfile::Linux => Averaging::Fixed((-p.rate_ewma.log2()).round() as u32),
        // RFC 8033 §5.2: weight 2^14/2^16 on the cycle's duration.
        PieProfile::Rfc => Averaging::CycleTime(p.rate_ewma),
        PieProfile::Paper | PieProfile::Ns3 => Averaging::Rate(p.rate_ewma),
    };
    let rule = match p.profile {
        // The HPSR-era code is the 2014 sch_pie, whose cycle rule sch_pie still has.
        PieProfile::Paper | PieProfile::Linux => CycleRule::Linux,
        PieProfile::Rfc => CycleRule::Rfc,
        PieProfile::Ns3 => CycleRule::Ns3,
    };
    RateEstimator::new(averaging, p.dq_threshold, rule)
}

/// The burst allowance at creation: ns-3 arms it at the first drop test, the others start full.
pub fn burst(p: &PieParams) -> Burst {
    let left: Nanos = p.max_burst;
    match p.profile {
        PieProfile::Paper => Burst::Paper { left },
        PieProfile::Rfc => Burst::Rfc { left },
        PieProfile::Linux => Burst::Linux { left, last_dequeue: None },
        PieProfile::Ns3 => Burst::Ns3 { left: 0, state: Ns3State::NoBurst },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(packets: u32, bytes: u64) -> Backlog {
        Backlog { bytes, packets }
    }

    #[test]
    fn couple_of_packets_per_source() {
        // sch_pie: strictly below 2 MTU (3000 B at MTU 1500).
        assert!(FewPackets::BelowTwoMtu.holds(b(2, 2999), 1500, 1000, false));
        assert!(!FewPackets::BelowTwoMtu.holds(b(2, 3000), 1500, 1000, false));
        // RFC 8033: at most 2·MEAN_PKTSIZE bytes, whatever the packet count.
        assert!(FewPackets::AtMostTwoMean.holds(b(20, 2000), 1500, 1000, false));
        assert!(!FewPackets::AtMostTwoMean.holds(b(1, 2001), 1500, 1000, false));
        // ns-3: at most 2 packets in packet mode, at most 2·mean bytes in byte mode.
        assert!(FewPackets::Ns3.holds(b(2, 9000), 1500, 1000, false));
        assert!(!FewPackets::Ns3.holds(b(3, 300), 1500, 1000, false));
        assert!(FewPackets::Ns3.holds(b(3, 2000), 1500, 1000, true));
    }

    #[test]
    fn each_profile_picks_its_sources_rules() {
        let r = Rules::of(PieProfile::Linux);
        assert_eq!((r.bypass_delay, r.few_packets, r.quiet_reset), (BypassDelay::Current, FewPackets::BelowTwoMtu, QuietReset::LinuxVarsInit));
        let n = Rules::of(PieProfile::Ns3);
        assert_eq!((n.bypass_delay, n.few_packets, n.quiet_reset), (BypassDelay::Previous, FewPackets::Ns3, QuietReset::Ns3Estimator));
        let f = Rules::of(PieProfile::Rfc);
        assert_eq!((f.bypass_delay, f.few_packets), (BypassDelay::Previous, FewPackets::AtMostTwoMean));
        // MEAN_PKTSIZE: rfc always, paper and ns3 in byte mode, linux never.
        let reads = |p| [false, true].map(|byte_mode| Rules::of(p).reads_mean_pkt_size(byte_mode));
        assert_eq!(reads(PieProfile::Rfc), [true, true]);
        assert_eq!((reads(PieProfile::Paper), reads(PieProfile::Ns3)), ([false, true], [false, true]));
        assert_eq!(reads(PieProfile::Linux), [false, false]);
    }

    const MS: Nanos = crate::time::NS_PER_MS;

    fn resolved(profile: &str, extra: &str) -> PieParams {
        use crate::schema::Declared;
        let c: super::super::PieConfig = serde_json::from_str(&format!(r#"{{"profile":"{profile}"{extra}}}"#)).unwrap();
        c.resolve().unwrap()
    }

    #[test]
    fn each_float_profile_scales_and_decays_as_its_source() {
        // One update from p = 0 with delays 30 ms (now) and 20 ms (before): α(30 ms − target) +
        // β·10 ms. HPSR'13 §III-B divides below p = 0.01 by 8 (three steps); RFC 8033 §4.2 and
        // ns-3 below 1e-6 by 2048 (six levels). Paper (target 20 ms): (0.00125 + 0.0125) / 8;
        // RFC and ns-3 (15 ms): (0.001875 + 0.0125) / 2048.
        for (profile, want) in [("paper", 0.01375 / 8.0), ("rfc", 0.014375 / 2048.0), ("ns3", 0.014375 / 2048.0)] {
            let mut p = prob(&resolved(profile, ""));
            p.update(30 * MS, 20 * MS, 50_000);
            assert!((p.frac() - want).abs() < 1e-15, "{profile}: {}", p.frac());
        }
        // Two zero delays at p = 0.5: RFC 8033 §4.2 (and ns-3's CalculateP) decay by 0.98 after
        // the law's α·(0 − target) step; HPSR'13 has no decay.
        for (profile, want) in [("paper", 0.5 - 0.125 * 0.020), ("rfc", (0.5 - 0.125 * 0.015) * 0.98), ("ns3", (0.5 - 0.125 * 0.015) * 0.98)] {
            let mut p = prob(&resolved(profile, ""));
            if let Prob::Float { p: v, .. } = &mut p {
                *v = 0.5;
            }
            p.update(0, 0, 50_000);
            assert!((p.frac() - want).abs() < 1e-15, "{profile}: {}", p.frac());
        }
    }

    #[test]
    fn each_float_profile_draws_as_its_source() {
        // ns-3's DropEarly keeps a packet only when the draw exceeds p (so it drops at u ≤ p) and
        // leaves its accumulator alone on a drop; RFC 8033 §4.1 and HPSR'13 drop at u < p, and a
        // drop resets the derandomization accumulator (§5.4).
        for (profile, compare, resets) in [("paper", Compare::Below, true), ("rfc", Compare::Below, true), ("ns3", Compare::AtOrBelow, false)] {
            let Prob::Float { compare: c, draw_resets, .. } = prob(&resolved(profile, "")) else { panic!("{profile}: a float law") };
            assert_eq!((c, draw_resets), (compare, resets), "{profile}");
        }
    }

    #[test]
    fn linux_averages_the_rate_with_its_shift() {
        // sch_pie: avg - avg>>3 + sample>>3, the EWMA weight 1/8 = 2^-3 as a shift of 3.
        let e = estimator(&resolved("linux", r#","delay":"rate_estimator","rate_ewma":0.125"#));
        assert_eq!(e.averaging(), Averaging::Fixed(3));
    }

}
