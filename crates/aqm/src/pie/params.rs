//! PIE configuration: named profiles, optional overrides, validation and resolution.
//!
//! A [`PieConfig`] names a [`PieProfile`]; every other field is an optional override. The
//! profile supplies the defaults (see the table in [`crate::pie`]) and also fixes the
//! behaviours that are not parameters (auto-tune table, decay rule, burst rule, arithmetic).

use serde::{Deserialize, Serialize};

use crate::config::QueueLimit;
use crate::time::{secs, Nanos, NS_PER_SEC};
use crate::validate::check_opt;

/// Which published PIE a run follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PieProfile {
    /// Pan et al., HPSR 2013: 3-step auto-tune, departure-rate delay, burst burnt by `dq_int`.
    Paper,
    /// RFC 8033 (core §4 plus the §5 options).
    #[default]
    Rfc,
    /// Linux `sch_pie` today: Q56 fixed point, 64 ns ticks, tupdate in jiffies.
    Linux,
    /// ns-3 `PieQueueDisc`: RFC law, `u <= p`, DOCSIS-like burst state machine.
    Ns3,
}

/// How PIE measures the queueing delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayMeasure {
    /// Sojourn time of the departing packet (RFC 8033 §4.3 timestamp option).
    Timestamps,
    /// Backlog divided by the measured departure rate (HPSR'13 §III-C, RFC 8033 §5.2).
    RateEstimator,
}

/// The JSON form of a PIE discipline: a profile plus optional overrides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PieConfig {
    pub limit: Option<QueueLimit>,
    pub profile: PieProfile,
    /// Reference queueing delay (QDELAY_REF), seconds.
    pub target_s: Option<f64>,
    /// Update period (T_UPDATE), seconds; `linux` rounds it up to whole jiffies.
    pub tupdate_s: Option<f64>,
    /// Integral gain, Hz; `linux` needs a multiple of 1/16.
    pub alpha_hz: Option<f64>,
    /// Proportional gain, Hz; `linux` needs a multiple of 1/16.
    pub beta_hz: Option<f64>,
    /// Burst allowance (MAX_BURST), seconds; 0 disables it.
    pub max_burst_s: Option<f64>,
    /// Bytes per departure-rate measurement cycle (dq_threshold).
    pub dq_threshold_bytes: Option<u32>,
    /// EWMA weight of a new departure-rate sample (ε of HPSR'13; on the cycle time for `rfc`).
    pub rate_ewma: Option<f64>,
    pub delay: Option<DelayMeasure>,
    /// Mark ECN-capable packets instead of dropping while p is below `mark_ecnth`.
    pub ecn: Option<bool>,
    pub mark_ecnth: Option<f64>,
    /// RFC 8033 §5.4 derandomization (0.85 / 8.5 bounds on the accumulated probability).
    pub derandomize: Option<bool>,
    /// Scale p by packet size (size/mean for paper/rfc/ns3, size/MTU for linux).
    pub byte_mode: Option<bool>,
    /// RFC 8033 §5.5: at most +2 % per update once p ≥ 10 %.
    pub cap_drop_adjustment: Option<bool>,
    /// MEAN_PKTSIZE in bytes (couple-of-packets test and byte mode).
    pub mean_pkt_size: Option<u32>,
    /// Kernel tick rate for the `linux` profile's jiffies (100, 250, 300 or 1000).
    pub hz: Option<u32>,
    /// RFC 8033 §5.3 active/inactive: PIE stays idle until this many bytes are queued, and
    /// idles again once p = 0 with two zero delay samples (App. B). Absent: always active.
    pub active_threshold_bytes: Option<u64>,
}

/// Auto-tuning of the gains by the current probability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoTune {
    /// HPSR'13 §III-B: /8 below 1 %, /2 below 10 %.
    ThreeStep,
    /// RFC 8033 §4.2: /2048, /512, /128, /32, /8, /2 at 1e-6 … 0.1.
    SixLevel,
}

/// How the burst allowance is consumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BurstBurn {
    /// RFC 8033 §4.2 and ns-3: minus T_UPDATE at every update.
    PerUpdate,
    /// HPSR'13 §III-D: minus `dq_int` whenever a departure-rate sample completes.
    PerRateSample,
    /// sch_pie `pie_process_dequeue`: minus the time elapsed between dequeues (timestamp mode)
    /// or the cycle duration (rate mode).
    DequeueTime,
}

/// The fully resolved parameters one PIE instance runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    pub profile: PieProfile,
    pub limit: QueueLimit,
    pub target: Nanos,
    pub tupdate: Nanos,
    pub first_update: Nanos,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Nanos,
    pub dq_threshold: u32,
    pub rate_ewma: f64,
    pub delay: DelayMeasure,
    pub ecn: bool,
    pub mark_ecnth: f64,
    pub derandomize: bool,
    pub byte_mode: bool,
    pub cap: bool,
    pub mean_pkt_size: u32,
    pub hz: u32,
    pub active_threshold: Option<u64>,
    pub autotune: AutoTune,
    pub burst: BurstBurn,
}

impl PieProfile {
    /// The defaults of this profile, every field filled (spec §0, §1.6, §2.2.2, §2.3).
    pub fn defaults(self) -> PieConfig {
        let (limit, target, tupdate, burst, dq, ewma, delay, derand, cap) = match self {
            // HPSR'13 §IV defaults; ε = 1/8 as in the authors' 2014 Linux code (not printed).
            PieProfile::Paper => (1000, 0.020, 0.030, 0.100, 10_000, 0.125, DelayMeasure::RateEstimator, false, false),
            // RFC 8033 §4: 15 ms / 15 ms / 150 ms; §5.2 weight 2^14/2^16 on the cycle time.
            PieProfile::Rfc => (1000, 0.015, 0.015, 0.150, 16_384, 0.25, DelayMeasure::Timestamps, false, true),
            // pie_params_init / pie_vars_init; derandomization and the cap are always on there.
            PieProfile::Linux => (1000, 0.015, 0.015, 0.150, 16_384, 0.125, DelayMeasure::Timestamps, true, true),
            // PieQueueDisc attribute defaults (MaxSize 25p, EWMA 1/2 on the rate).
            PieProfile::Ns3 => (25, 0.015, 0.015, 0.150, 16_384, 0.5, DelayMeasure::Timestamps, false, true),
        };
        PieConfig {
            limit: Some(QueueLimit::Packets(limit)),
            profile: self,
            target_s: Some(target),
            tupdate_s: Some(tupdate),
            alpha_hz: Some(0.125),
            beta_hz: Some(1.25),
            max_burst_s: Some(burst),
            dq_threshold_bytes: Some(dq),
            rate_ewma: Some(ewma),
            delay: Some(delay),
            ecn: Some(false),
            mark_ecnth: Some(0.1),
            derandomize: Some(derand),
            byte_mode: Some(false),
            cap_drop_adjustment: Some(cap),
            mean_pkt_size: Some(1000),
            hz: Some(250),
            active_threshold_bytes: None,
        }
    }
}

impl PieConfig {
    /// Every field filled: overrides where given, the profile's defaults elsewhere.
    pub fn resolved(&self) -> PieConfig {
        let d = self.profile.defaults();
        PieConfig {
            limit: self.limit.or(d.limit),
            profile: self.profile,
            target_s: self.target_s.or(d.target_s),
            tupdate_s: self.tupdate_s.or(d.tupdate_s),
            alpha_hz: self.alpha_hz.or(d.alpha_hz),
            beta_hz: self.beta_hz.or(d.beta_hz),
            max_burst_s: self.max_burst_s.or(d.max_burst_s),
            dq_threshold_bytes: self.dq_threshold_bytes.or(d.dq_threshold_bytes),
            rate_ewma: self.rate_ewma.or(d.rate_ewma),
            delay: self.delay.or(d.delay),
            ecn: self.ecn.or(d.ecn),
            mark_ecnth: self.mark_ecnth.or(d.mark_ecnth),
            derandomize: self.derandomize.or(d.derandomize),
            byte_mode: self.byte_mode.or(d.byte_mode),
            cap_drop_adjustment: self.cap_drop_adjustment.or(d.cap_drop_adjustment),
            mean_pkt_size: self.mean_pkt_size.or(d.mean_pkt_size),
            hz: self.hz.or(d.hz),
            active_threshold_bytes: self.active_threshold_bytes,
        }
    }

    /// Range checks; the error names the field and the accepted range.
    pub fn validate(&self) -> Result<(), String> {
        check_opt("target_s", self.target_s, 1e-6, 10.0)?;
        check_opt("tupdate_s", self.tupdate_s, 1e-6, 10.0)?;
        check_opt("alpha_hz", self.alpha_hz, 0.0, 1e6)?;
        check_opt("beta_hz", self.beta_hz, 0.0, 1e6)?;
        check_opt("max_burst_s", self.max_burst_s, 0.0, 10.0)?;
        check_opt("dq_threshold_bytes", self.dq_threshold_bytes.map(f64::from), 1.0, 1e8)?;
        check_opt("rate_ewma", self.rate_ewma, 1e-6, 1.0)?;
        check_opt("mark_ecnth", self.mark_ecnth, 0.0, 1.0)?;
        check_opt("mean_pkt_size", self.mean_pkt_size.map(f64::from), 1.0, 65_535.0)?;
        if let Some(limit) = self.limit {
            crate::validate::check_limit("limit", limit)?;
        }
        if let Some(hz) = self.hz {
            if ![100, 250, 300, 1000].contains(&hz) {
                return Err(format!("hz: {hz} is not a kernel tick rate (100, 250, 300 or 1000)"));
            }
        }
        if self.profile == PieProfile::Linux {
            for (name, v) in [("alpha_hz", self.alpha_hz), ("beta_hz", self.beta_hz)] {
                if let Some(v) = v {
                    let units = v * 16.0;
                    if (units - units.round()).abs() > 1e-9 || units > u32::MAX as f64 {
                        return Err(format!("{name}: linux takes multiples of 1/16 Hz in [0, 2^32/16), got {v}"));
                    }
                }
            }
            if let Some(w) = self.rate_ewma {
                let shift = -w.log2();
                if (shift - shift.round()).abs() > 1e-12 || shift.round() > 31.0 {
                    return Err(format!("rate_ewma: linux takes 2^-k for k in 0..=31, got {w}"));
                }
            }
        }
        Ok(())
    }

    /// The parameters one instance runs with (call on a validated config).
    pub fn params(&self) -> PieParams {
        let r = self.resolved();
        let profile = r.profile;
        let hz = r.hz.unwrap_or(250);
        let tupdate_s = r.tupdate_s.unwrap_or(0.015);
        let (tupdate, first_update) = match profile {
            // sch_pie stores tupdate with usecs_to_jiffies (rounds up) and first fires at HZ/2.
            PieProfile::Linux => (linux_jiffies_ns(secs(tupdate_s), hz), NS_PER_SEC / 2),
            _ => (secs(tupdate_s), secs(tupdate_s)),
        };
        PieParams {
            profile,
            limit: r.limit.unwrap_or(QueueLimit::Packets(1000)),
            target: secs(r.target_s.unwrap_or(0.015)),
            tupdate,
            first_update,
            alpha: r.alpha_hz.unwrap_or(0.125),
            beta: r.beta_hz.unwrap_or(1.25),
            max_burst: secs(r.max_burst_s.unwrap_or(0.0)),
            dq_threshold: r.dq_threshold_bytes.unwrap_or(16_384),
            rate_ewma: r.rate_ewma.unwrap_or(0.125),
            delay: r.delay.unwrap_or(DelayMeasure::Timestamps),
            ecn: r.ecn.unwrap_or(false),
            mark_ecnth: r.mark_ecnth.unwrap_or(0.1),
            derandomize: r.derandomize.unwrap_or(false),
            byte_mode: r.byte_mode.unwrap_or(false),
            cap: r.cap_drop_adjustment.unwrap_or(false),
            mean_pkt_size: r.mean_pkt_size.unwrap_or(1000),
            hz,
            active_threshold: r.active_threshold_bytes,
            autotune: if profile == PieProfile::Paper { AutoTune::ThreeStep } else { AutoTune::SixLevel },
            burst: match profile {
                PieProfile::Paper => BurstBurn::PerRateSample,
                PieProfile::Linux => BurstBurn::DequeueTime,
                PieProfile::Rfc | PieProfile::Ns3 => BurstBurn::PerUpdate,
            },
        }
    }
}

/// A period in nanoseconds rounded up to whole jiffies (`usecs_to_jiffies`), back in nanoseconds.
pub fn linux_jiffies_ns(period: Nanos, hz: u32) -> Nanos {
    let us = period.div_ceil(1_000);
    let jiffies = (us * hz as u64).div_ceil(1_000_000);
    jiffies * NS_PER_SEC / hz as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    #[test]
    fn jiffies_round_up_as_the_kernel_does() {
        // spec §2.2.1: 15 ms is 15 jiffies at HZ=1000, 4 (16 ms) at HZ=250, 2 (20 ms) at HZ=100.
        assert_eq!(linux_jiffies_ns(15 * NS_PER_MS, 1000), 15 * NS_PER_MS);
        assert_eq!(linux_jiffies_ns(15 * NS_PER_MS, 250), 16 * NS_PER_MS);
        assert_eq!(linux_jiffies_ns(15 * NS_PER_MS, 100), 20 * NS_PER_MS);
    }

    #[test]
    fn profile_defaults_and_overrides() {
        let c = PieConfig { profile: PieProfile::Ns3, target_s: Some(0.02), ..Default::default() };
        let p = c.params();
        assert_eq!((p.target, p.tupdate, p.limit), (20 * NS_PER_MS, 15 * NS_PER_MS, QueueLimit::Packets(25)));
        assert_eq!((p.rate_ewma, p.cap, p.derandomize), (0.5, true, false));
        let l = PieConfig { profile: PieProfile::Linux, ..Default::default() }.params();
        assert_eq!((l.tupdate, l.first_update, l.derandomize), (16 * NS_PER_MS, 500 * NS_PER_MS, true));
        let h = PieConfig { profile: PieProfile::Paper, ..Default::default() }.params();
        assert_eq!((h.target, h.tupdate, h.max_burst, h.dq_threshold), (20 * NS_PER_MS, 30 * NS_PER_MS, 100 * NS_PER_MS, 10_000));
        assert_eq!((h.autotune, h.burst, h.delay), (AutoTune::ThreeStep, BurstBurn::PerRateSample, DelayMeasure::RateEstimator));
    }

    #[test]
    fn validation_names_the_field() {
        let bad = PieConfig { target_s: Some(-1.0), ..Default::default() };
        assert!(bad.validate().unwrap_err().starts_with("target_s"));
        let lin = PieConfig { profile: PieProfile::Linux, alpha_hz: Some(0.1), ..Default::default() };
        assert!(lin.validate().unwrap_err().starts_with("alpha_hz"));
        let ok = PieConfig { profile: PieProfile::Linux, alpha_hz: Some(0.1875), ..Default::default() };
        assert_eq!(ok.validate(), Ok(()));
        let hz = PieConfig { hz: Some(123), ..Default::default() };
        assert!(hz.validate().unwrap_err().starts_with("hz"));
        let ewma = PieConfig { profile: PieProfile::Linux, rate_ewma: Some(0.3), ..Default::default() };
        assert!(ewma.validate().unwrap_err().starts_with("rate_ewma"));
    }
}
