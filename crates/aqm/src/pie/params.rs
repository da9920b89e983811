//! PIE's parameter table: every parameter, its range and its default in each profile.
//!
//! The profile also fixes the behaviours that are not parameters (auto-tune table, decay rule,
//! burst rule, arithmetic): see the table in [`crate::pie`].

use super::profile::{self, Rules};
use super::reference::TargetPolicy;
use crate::config::QueueLimit;
use crate::schema::{choice_enum, departs, Finish, Range};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC, NS_PER_US};

choice_enum! {
    /// Which published PIE a run follows.
    pub profile enum PieProfile = Rfc {
        /// Pan et al., HPSR 2013: 3-step auto-tune, departure-rate delay, burst burnt by `dq_int`.
        Paper = "paper",
        /// RFC 8033 (core §4 plus the §5 options).
        Rfc = "rfc",
        /// Linux `sch_pie` today: Q56 fixed point, 64 ns ticks, tupdate in jiffies.
        Linux = "linux",
        /// ns-3 `PieQueueDisc`: RFC law, `u <= p`, DOCSIS-like burst state machine.
        Ns3 = "ns3",
    }
}

choice_enum! {
    /// How PIE measures the queueing delay.
    pub enum DelayMeasure {
        /// Sojourn time of the departing packet (RFC 8033 §4.3 timestamp option).
        Timestamps = "timestamps",
        /// Backlog divided by the measured departure rate (HPSR'13 §III-C, RFC 8033 §5.2).
        RateEstimator = "rate_estimator",
    }
}

const MS: Nanos = NS_PER_MS;

/// The accepted delay references, also for a run-time change.
pub const TARGET_RANGE: Range = Range::closed(1e3, 10e9);

/// sch_pie keeps `dq_count << 8` in a u32 (`pie_process_dequeue`): a cycle must end below
/// 2^24 bytes, so the threshold plus one 64 KiB packet stays under it.
pub const LINUX_MAX_DQ_THRESHOLD: u32 = (1 << 24) - (1 << 16);

/// The largest gain the `linux` profile accepts, Hz: sch_pie computes
/// `delta = alpha·(qdelay − target) + beta·(qdelay − qdelay_old)` in s64 with the gains in Q56
/// per 64-ns tick, `units · (MAX_PROB / 15 625 000) >> 4`. With 4096 units (256 Hz) a delay
/// error or change of 0.5 s (7 812 500 ticks) stays just below 2^63; one unit more and it
/// wraps silently. Above 256 Hz the kernel's arithmetic is not a PI law for half-second delays.
pub const LINUX_MAX_GAIN_HZ: f64 = 256.0;

crate::params! {
    /// PIE (Pan et al.): a PI controller on the queueing delay drives an early-drop probability.
    config PieConfig => PieParams, profile PieProfile,
    doc "PIE: every T_update the drop probability p moves by alpha·(delay − target) + beta·(delay − previous delay), auto-tuned by p; arrivals are dropped (or ECN-marked) at random with probability p.",
    source "HPSR 2013 (Pan et al.) / RFC 8033 / Linux sch_pie.c + pie.h / ns-3 PieQueueDisc";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = { Paper: QueueLimit::Packets(1000), Rfc: QueueLimit::Packets(1000), Linux: QueueLimit::Packets(1000), Ns3: QueueLimit::Packets(25) };
        /// Reference queueing delay (QDELAY_REF).
        target: Nanos [Duration, None, TARGET_RANGE] = { Paper: 20 * MS, Rfc: 15 * MS, Linux: 15 * MS, Ns3: 15 * MS };
        /// Update period (T_UPDATE); `linux` rounds it up to whole jiffies.
        tupdate: Nanos [Duration, None, Range::closed(1e3, 10e9)] = { Paper: 30 * MS, Rfc: 15 * MS, Linux: 15 * MS, Ns3: 15 * MS };
        /// Integral gain on the delay error; `linux` takes multiples of 1/16 Hz up to 256 Hz.
        alpha: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = (0.125);
        /// Proportional gain on the delay change; `linux` takes multiples of 1/16 Hz up to 256 Hz.
        beta: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = (1.25);
        /// Burst allowance (MAX_BURST); 0 disables it.
        max_burst: Nanos [Duration, None, Range::closed(0.0, 10e9)] = { Paper: 100 * MS, Rfc: 150 * MS, Linux: 150 * MS, Ns3: 150 * MS };
        /// Bytes per departure-rate measurement cycle (dq_threshold); `linux` at most 16 MiB − 64 KiB.
        dq_threshold: u32 [Bytes, None, Range::closed(1.0, 1e8)] = { Paper: 10_000, Rfc: 16_384, Linux: 16_384, Ns3: 16_384 };
        /// EWMA weight of a new departure-rate sample (ε of HPSR'13; on the cycle time for `rfc`; 2^-k for `linux`).
        rate_ewma: f64 [Float, None, Range::above(0.0, 1.0)] = { Paper: 0.125, Rfc: 0.25, Linux: 0.125, Ns3: 0.5 };
        /// How the queueing delay is measured.
        delay: DelayMeasure [Choice, None, Range::ANY] = { Paper: DelayMeasure::RateEstimator, Rfc: DelayMeasure::Timestamps, Linux: DelayMeasure::Timestamps, Ns3: DelayMeasure::Timestamps };
        /// Mark ECN-capable packets instead of dropping them (while p is below `mark_ecnth`).
        ecn: bool [Bool, None, Range::ANY] = (false);
        /// ECN marking threshold on p (RFC 8033 §5.1); unset: mark at any p (HPSR'13 has no threshold).
        mark_ecnth: Option<f64> [Float, None, Range::closed(0.0, 1.0)] = { Paper: None, Rfc: Some(0.1), Linux: Some(0.1), Ns3: Some(0.1) };
        /// RFC 8033 §5.4 derandomization (0.85 / 8.5 bounds on the accumulated probability).
        derandomize: bool [Bool, None, Range::ANY] = { Paper: false, Rfc: false, Linux: true, Ns3: false };
        /// Scale p by packet size (size/mean for paper/rfc/ns3, size/MTU for linux).
        byte_mode: bool [Bool, None, Range::ANY] = (false);
        /// RFC 8033 §5.5: at most +2 % per update once p ≥ 10 %.
        cap_drop_adjustment: bool [Bool, None, Range::ANY] = { Paper: false, Rfc: true, Linux: true, Ns3: true };
        /// MEAN_PKTSIZE (couple-of-packets test and byte mode).
        mean_pkt_size: u32 [Bytes, None, Range::closed(1.0, 65_535.0)] = (1000);
        /// Kernel tick rate of the `linux` profile's jiffies; unset in the other profiles, which do not count jiffies.
        hz: Option<u32> [Int, Some("Hz"), Range::one_of(&[100.0, 250.0, 300.0, 1000.0])] = { Paper: None, Rfc: None, Linux: Some(250), Ns3: None };
        /// RFC 8033 §5.3 active/inactive: PIE stays idle until this many bytes are queued, and idles again once p = 0 with two zero delay samples (App. B); unset: always active.
        active_threshold: Option<u64> [Bytes, None, Range::closed(1.0, 1e12)] = (None);
        /// How the delay reference is set: fixed, lowered as the draining rate rises (drain_rate) or from the link rate (link_speed), after the 2013 PIE slides.
        target_policy: TargetPolicy [Choice, None, Range::ANY] = (TargetPolicy::Fixed);
        /// The queued data the automatic reference stands for: reference = target_bytes / rate (25 000 B: 20 ms at 10 Mb/s, 20 µs at 10 Gb/s).
        target_bytes: u64 [Bytes, None, Range::closed(1.0, 1e12)] = (25_000);
        /// Lowest automatic reference.
        min_target: Nanos [Duration, None, TARGET_RANGE] = (20 * NS_PER_US);
        /// How long the draining rate must hold steady before drain_rate lowers the reference.
        stable_for: Nanos [Duration, None, Range::closed(1e6, 1e12)] = (10 * NS_PER_SEC);
        /// How far from a run's first draining-rate sample the next ones may be and still count as steady.
        stable_band: f64 [Float, None, Range::above(0.0, 1.0)] = (0.1);
    }
}

impl Finish<PieConfig> for PieParams {
    /// The integer edges of the `linux` profile, and `hz` only where it means something; a
    /// parameter this configuration never reads is refused unless at its default (a resolved
    /// record holds every field).
    fn finish(&mut self, given: &PieConfig) -> Result<(), String> {
        if self.hz.is_some() != (self.profile == PieProfile::Linux) {
            return Err(format!("hz: only the linux profile counts time in jiffies (profile is {})", self.profile.name()));
        }
        self.refuse_unread(given)?;
        if self.profile != PieProfile::Linux {
            return Ok(());
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            let units = v * 16.0;
            if (units - units.round()).abs() > 1e-9 || v > LINUX_MAX_GAIN_HZ {
                return Err(format!("{name}: linux takes multiples of 1/16 Hz in [0 Hz, {LINUX_MAX_GAIN_HZ} Hz] (sch_pie's s64 step wraps above), got {v} Hz"));
            }
        }
        let shift = -self.rate_ewma.log2();
        if (shift - shift.round()).abs() > 1e-12 || shift.round() > 31.0 {
            return Err(format!("rate_ewma: linux takes 2^-k for k in 0..=31, got {}", self.rate_ewma));
        }
        if self.dq_threshold > LINUX_MAX_DQ_THRESHOLD {
            return Err(format!("dq_threshold: linux keeps dq_count << 8 in 32 bits: at most {LINUX_MAX_DQ_THRESHOLD}B, got {}B", self.dq_threshold));
        }
        Ok(())
    }
}

impl PieParams {
    /// The parameters given away from their default where this configuration never reads them.
    /// fq_pie resolves its per-queue PIE without `mark_ecnth` (it sets the threshold itself,
    /// from `ecn_prob`, whatever `ecn` says), so that rule applies to a PIE of its own.
    fn refuse_unread(&self, given: &PieConfig) -> Result<(), String> {
        let d = PieConfig::defaults(self.profile);
        let name = self.profile.name();
        // pie/mod.rs `departed`: the estimator runs in rate mode, or for HPSR'13's burst rule,
        // which spends the allowance per rate sample even with timestamps.
        if self.delay == DelayMeasure::Timestamps && !profile::burst(self).needs_rate_samples() {
            if departs(&given.dq_threshold, &d.dq_threshold) {
                return Err(format!("dq_threshold: applies only with delay = \"rate_estimator\" or the paper profile (it sizes the departure-rate cycles; with timestamps the {name} profile measures the delay per packet)"));
            }
            if departs(&given.rate_ewma, &d.rate_ewma) {
                return Err(format!("rate_ewma: applies only with delay = \"rate_estimator\" or the paper profile (it averages the departure rate; with timestamps the {name} profile measures the delay per packet)"));
            }
        }
        if !Rules::of(self.profile).reads_mean_pkt_size(self.byte_mode) && departs(&given.mean_pkt_size, &d.mean_pkt_size) {
            return Err(if self.profile == PieProfile::Linux {
                "mean_pkt_size: applies only with the paper, rfc or ns3 profile (linux, as sch_pie, tests 2·MTU and scales by the MTU)".into()
            } else {
                format!("mean_pkt_size: applies only with byte_mode = true in the {name} profile (without it the couple-of-packets test counts {})", if self.profile == PieProfile::Ns3 { "packets" } else { "2·MTU" })
            });
        }
        if !self.ecn && departs(&given.mark_ecnth, &d.mark_ecnth) {
            return Err("mark_ecnth: applies only with ecn = true (without ECN every early signal is a drop)".into());
        }
        if self.target_policy == TargetPolicy::Fixed {
            if departs(&given.target_bytes, &d.target_bytes) {
                return Err("target_bytes: applies only with target_policy = \"link_speed\" or \"drain_rate\" (the fixed policy keeps the configured target)".into());
            }
            if departs(&given.min_target, &d.min_target) {
                return Err("min_target: applies only with target_policy = \"link_speed\" or \"drain_rate\" (the fixed policy keeps the configured target)".into());
            }
        }
        if self.target_policy != TargetPolicy::DrainRate {
            let policy = self.target_policy.name();
            if departs(&given.stable_for, &d.stable_for) {
                return Err(format!("stable_for: applies only with target_policy = \"drain_rate\" (it times the steady draining rate; {policy} never measures one)"));
            }
            if departs(&given.stable_band, &d.stable_band) {
                return Err(format!("stable_band: applies only with target_policy = \"drain_rate\" (it bounds the steady draining rate; {policy} never measures one)"));
            }
        }
        Ok(())
    }
}

/// A period in nanoseconds rounded up to whole jiffies (`usecs_to_jiffies`), back in nanoseconds.
pub fn linux_jiffies_ns(period: Nanos, hz: u32) -> Nanos {
    let us = period.div_ceil(NS_PER_US);
    let jiffies = (us * hz as u64).div_ceil(1_000_000);
    jiffies * NS_PER_SEC / hz as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Declared;

    fn resolve(json: &str) -> Result<PieParams, String> {
        serde_json::from_str::<PieConfig>(json).map_err(|e| e.to_string())?.resolve()
    }

    #[test]
    fn jiffies_round_up_as_the_kernel_does() {
        // spec §2.2.1: 15 ms is 15 jiffies at HZ=1000, 4 (16 ms) at HZ=250, 2 (20 ms) at HZ=100.
        assert_eq!(linux_jiffies_ns(15 * NS_PER_MS, 1000), 15 * NS_PER_MS);
        assert_eq!(linux_jiffies_ns(15 * NS_PER_MS, 250), 16 * NS_PER_MS);
        assert_eq!(linux_jiffies_ns(15 * NS_PER_MS, 100), 20 * NS_PER_MS);
    }

    #[test]
    fn profile_defaults_and_overrides() {
        // spec §0: the defaults of each profile.
        let n = resolve(r#"{"profile":"ns3","target":20000000}"#).unwrap();
        assert_eq!((n.target, n.tupdate, n.limit), (20 * MS, 15 * MS, QueueLimit::Packets(25)));
        assert_eq!((n.rate_ewma, n.cap_drop_adjustment, n.derandomize), (0.5, true, false));
        let h = resolve(r#"{"profile":"paper"}"#).unwrap();
        assert_eq!((h.target, h.tupdate, h.max_burst, h.dq_threshold, h.delay), (20 * MS, 30 * MS, 100 * MS, 10_000, DelayMeasure::RateEstimator));
        let r = resolve("{}").unwrap();
        assert_eq!((r.profile, r.rate_ewma, r.max_burst, r.active_threshold), (PieProfile::Rfc, 0.25, 150 * MS, None));
    }

    #[test]
    fn validation_names_the_users_field_in_user_units() {
        assert_eq!(resolve(r#"{"target":0}"#).unwrap_err(), "target: 0ns is outside the accepted range [1us, 10s]");
        assert_eq!(resolve(r#"{"mark_ecnth":1.5}"#).unwrap_err(), "mark_ecnth: 1.5 is outside the accepted range [0, 1]");
        assert!(resolve(r#"{"profile":"linux","alpha":0.1}"#).unwrap_err().starts_with("alpha: linux takes multiples of 1/16 Hz"));
        assert!(resolve(r#"{"profile":"linux","alpha":0.1875}"#).is_ok());
        assert!(resolve(r#"{"profile":"linux","hz":123}"#).unwrap_err().starts_with("hz: 123 Hz is outside"));
        assert!(resolve(r#"{"profile":"rfc","hz":1000}"#).unwrap_err().starts_with("hz: only the linux profile"));
        assert!(resolve(r#"{"profile":"linux","delay":"rate_estimator","rate_ewma":0.3}"#).unwrap_err().starts_with("rate_ewma: linux takes 2^-k"));
        assert!(resolve(r#"{"target_s":0.02}"#).unwrap_err().starts_with("unknown field `target_s`"));
    }

    #[test]
    fn linux_integer_edges_are_refused_not_wrapped() {
        // The largest gain: 256 Hz passes, 256 + 1/16 Hz (4097 units) is refused.
        assert!(resolve(r#"{"profile":"linux","alpha":256,"beta":256}"#).is_ok());
        assert!(resolve(r#"{"profile":"linux","beta":256.0625}"#).unwrap_err().starts_with("beta: linux takes multiples of 1/16 Hz in [0 Hz, 256 Hz]"));
        // Why 256 Hz: (units · (MAX_PROB/TPS)) >> 4 per tick times 7 812 500 ticks (0.5 s).
        let per_tick = (u64::MAX >> 8) / 15_625_000;
        assert!(((4096u128 * per_tick as u128) >> 4) * 7_812_500 < 1 << 63);
        assert!(((4097u128 * per_tick as u128) >> 4) * 7_812_500 >= 1 << 63);
        // dq_threshold (read in rate mode): a cycle's count << 8 must stay below 2^32.
        assert!(resolve(r#"{"profile":"linux","delay":"rate_estimator","dq_threshold":16711680}"#).is_ok());
        assert!(resolve(r#"{"profile":"linux","delay":"rate_estimator","dq_threshold":16777216}"#).unwrap_err().starts_with("dq_threshold: linux keeps dq_count << 8 in 32 bits"));
        assert!(((LINUX_MAX_DQ_THRESHOLD as u64 + 65_535) << 8) < 1 << 32);
        // The float profiles have no such edge.
        assert!(resolve(r#"{"profile":"rfc","delay":"rate_estimator","dq_threshold":16777216,"alpha":300}"#).is_ok());
    }
}
