//! RED: Random Early Detection (Floyd & Jacobson 1993) with the later options: gentle mode
//! (Floyd 2000), the ns-2 "wait" rule, idle-time decay of the average, ECN, and Adaptive RED
//! (Floyd, Gummadi & Shenker 2001). Spec §5.
//!
//! Per arrival (the queue `q` is measured before the packet joins, in packets or bytes):
//! 1. `avg ← (1−w)·avg + w·q`; after an idle period the average first decays as if `m` small
//!    packets had been sent (ns-2/ns-3: `avg·(1−w)^(m+1) + w·q`, `m = ⌊idle/s⌋`; Linux:
//!    `avg·(1−w)^(idle/s)`, s = the mean packet's transmission time at the link rate).
//! 2. Nothing happens while `avg < min_th` or the queue holds at most one unit.
//! 3. Forced drop above `max_th` (`2·max_th` in gentle mode).
//! 4. Otherwise `p_b = max_p·(avg − min_th)/(max_th − min_th)` (gentle: from `max_p` to 1 between
//!    `max_th` and `2·max_th`), uniformized by the count of packets since the last drop:
//!    `p_b/(1 − count·p_b)`, or with the wait rule 0 until `count·p_b ≥ 1`, then `p_b/(2 − count·p_b)`.
//!
//! Profiles: `ns2` (ns-2.1b ns-default.tcl: 5/15 packets, w 0.002, max_p 1/10, wait, limit 50),
//! `ns3` (RedQueueDisc: 5/15, w 0.002, max_p 1/50, wait, gentle, limit 25, hard drops) and
//! `linux` (sch_red as configured by `tc red limit 1M avpkt 1500 min 100K max 300K`: bytes,
//! max_p 0.02, w = 2^−Wlog by tc's burst rule, no wait, no gentle, ECN marks also forced ones).
//! Linux's fixed-point average and idle table are modelled in floating point, and its count is
//! seeded as ns-2 does (sch_red starts one lower after crossing min_th).

use serde::{Deserialize, Serialize};

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, LinkInfo, QueueView, Verdict};
use crate::rng::Rng;
use crate::signal::{congestion_verdict, QueueUnit};
use crate::time::{secs, to_secs, Nanos};
use crate::validate::{check_limit, check_opt, check_prob, check_range};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedProfile {
    Ns2,
    #[default]
    Ns3,
    Linux,
}

/// The JSON form of RED: a profile plus optional overrides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedConfig {
    pub limit: Option<QueueLimit>,
    pub profile: RedProfile,
    /// Thresholds in `queue_unit`; with `adaptive` and no value: Floyd 2001's automatic choice.
    pub min_th: Option<f64>,
    pub max_th: Option<f64>,
    /// EWMA weight of the average; with `adaptive` and no value: `1 − exp(−1/C)`.
    pub w_q: Option<f64>,
    pub max_p: Option<f64>,
    pub gentle: Option<bool>,
    pub wait: Option<bool>,
    pub queue_unit: Option<QueueUnit>,
    /// Scale p by size / mean_pkt_size and count bytes since the last drop.
    pub byte_mode: Option<bool>,
    /// Mean packet size (avpkt), bytes: idle decay and byte mode.
    pub mean_pkt_size: Option<u32>,
    pub ecn: Option<bool>,
    /// Forced (above max) drops stay drops even for ECN-capable packets.
    pub hard_drop: Option<bool>,
    /// Adaptive RED: automatic parameters and max_p adapted every `interval_s`.
    pub adaptive: Option<bool>,
    pub target_delay_s: Option<f64>,
    pub interval_s: Option<f64>,
}

impl RedProfile {
    pub fn defaults(self) -> RedConfig {
        let base = RedConfig {
            profile: self,
            gentle: Some(false),
            wait: Some(true),
            queue_unit: Some(QueueUnit::Packets),
            byte_mode: Some(false),
            ecn: Some(false),
            hard_drop: Some(true),
            adaptive: Some(false),
            target_delay_s: Some(0.005),
            interval_s: Some(0.5),
            ..Default::default()
        };
        match self {
            RedProfile::Ns2 => RedConfig {
                limit: Some(QueueLimit::Packets(50)),
                min_th: Some(5.0),
                max_th: Some(15.0),
                w_q: Some(0.002),
                max_p: Some(0.1),
                mean_pkt_size: Some(500),
                ..base
            },
            RedProfile::Ns3 => RedConfig {
                limit: Some(QueueLimit::Packets(25)),
                min_th: Some(5.0),
                max_th: Some(15.0),
                w_q: Some(0.002),
                max_p: Some(0.02),
                gentle: Some(true),
                mean_pkt_size: Some(500),
                ..base
            },
            RedProfile::Linux => RedConfig {
                limit: Some(QueueLimit::Bytes(1 << 20)),
                min_th: Some(100.0 * 1024.0),
                max_th: Some(300.0 * 1024.0),
                max_p: Some(0.02),
                wait: Some(false),
                queue_unit: Some(QueueUnit::Bytes),
                mean_pkt_size: Some(1500),
                hard_drop: Some(false),
                ..base
            },
        }
    }
}

/// tc's EWMA weight for sch_red (`tc_red_eval_ewma`): the largest `2^−k` with which a burst of
/// `(2·min + max)/(3·avpkt)` packets arriving to an empty queue keeps the average below `min`.
pub fn tc_ewma_weight(min_th: f64, max_th: f64, avpkt: u32) -> Option<f64> {
    let burst = ((2.0 * min_th + max_th) as u64 / (3 * avpkt as u64)) as f64;
    let a = burst + 1.0 - min_th / avpkt as f64;
    if a < 1.0 {
        return None;
    }
    (1..32).map(|k| 0.5f64.powi(k)).find(|&w| a <= (1.0 - (1.0 - w).powf(burst)) / w)
}

impl RedConfig {
    pub fn resolved(&self) -> RedConfig {
        let d = self.profile.defaults();
        let adaptive = self.adaptive.or(d.adaptive);
        let auto = adaptive == Some(true);
        // Adaptive RED picks thresholds and weight from the link unless given (left empty here).
        let pick = |given: Option<f64>, default: Option<f64>| if auto { given } else { given.or(default) };
        let min_th = pick(self.min_th, d.min_th);
        let max_th = pick(self.max_th, d.max_th);
        let mean = self.mean_pkt_size.or(d.mean_pkt_size);
        let w_default = match (self.profile, min_th, max_th, mean) {
            (RedProfile::Linux, Some(lo), Some(hi), Some(m)) => tc_ewma_weight(lo, hi, m),
            _ => d.w_q,
        };
        RedConfig {
            limit: self.limit.or(d.limit),
            profile: self.profile,
            min_th,
            max_th,
            w_q: pick(self.w_q, w_default),
            max_p: self.max_p.or(d.max_p),
            gentle: if auto { self.gentle.or(Some(true)) } else { self.gentle.or(d.gentle) },
            wait: self.wait.or(d.wait),
            queue_unit: self.queue_unit.or(d.queue_unit),
            byte_mode: self.byte_mode.or(d.byte_mode),
            mean_pkt_size: mean,
            ecn: self.ecn.or(d.ecn),
            hard_drop: self.hard_drop.or(d.hard_drop),
            adaptive,
            target_delay_s: self.target_delay_s.or(d.target_delay_s),
            interval_s: self.interval_s.or(d.interval_s),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        check_opt("min_th", self.min_th, 0.0, 1e12)?;
        check_opt("max_th", self.max_th, 0.0, 1e12)?;
        check_opt("w_q", self.w_q, 1e-9, 1.0)?;
        check_prob("max_p", self.max_p)?;
        check_opt("mean_pkt_size", self.mean_pkt_size.map(f64::from), 1.0, 65_535.0)?;
        check_opt("target_delay_s", self.target_delay_s, 1e-6, 10.0)?;
        check_opt("interval_s", self.interval_s, 1e-3, 100.0)?;
        self.limit.map_or(Ok(()), |l| check_limit("limit", l))?;
        let r = self.resolved();
        if let (Some(lo), Some(hi)) = (r.min_th, r.max_th) {
            check_range("max_th", hi, lo + f64::EPSILON * lo.max(1.0), 1e12).map_err(|_| format!("max_th: {hi} must exceed min_th {lo}"))?;
        }
        if r.adaptive != Some(true) && r.w_q.is_none() {
            return Err("w_q: tc's rule found no weight for these thresholds; give w_q in (0, 1]".into());
        }
        Ok(())
    }

    pub fn build(&self, link: LinkInfo, rng: Rng) -> Red {
        let r = self.resolved();
        let mean = r.mean_pkt_size.unwrap_or(500);
        let unit = r.queue_unit.unwrap_or_default();
        // Floyd 2001 automatic parameters from the link capacity C in mean packets per second.
        let c = link.rate_bps as f64 / (8.0 * mean as f64);
        let unit_scale = if unit == QueueUnit::Bytes { mean as f64 } else { 1.0 };
        let min_th = r.min_th.unwrap_or_else(|| (r.target_delay_s.unwrap_or(0.005) * c / 2.0).max(5.0) * unit_scale);
        let max_th = r.max_th.unwrap_or(3.0 * min_th);
        Red {
            min_th,
            max_th,
            w_q: r.w_q.unwrap_or_else(|| 1.0 - (-1.0 / c).exp()),
            max_p: r.max_p.unwrap_or(0.02),
            gentle: r.gentle.unwrap_or(false),
            wait: r.wait.unwrap_or(true),
            unit,
            byte_mode: r.byte_mode.unwrap_or(false),
            mean_pkt_size: mean,
            ecn: r.ecn.unwrap_or(false),
            hard_drop: r.hard_drop.unwrap_or(true),
            adaptive: r.adaptive.unwrap_or(false),
            interval: secs(r.interval_s.unwrap_or(0.5)),
            linux_idle: r.profile == RedProfile::Linux,
            rate_bps: link.rate_bps,
            rng,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            above_min: false,
            idle_since: Some(0),
            last_p: 0.0,
        }
    }
}

/// One RED instance.
#[derive(Clone, Debug)]
pub struct Red {
    min_th: f64,
    max_th: f64,
    w_q: f64,
    max_p: f64,
    gentle: bool,
    wait: bool,
    unit: QueueUnit,
    byte_mode: bool,
    mean_pkt_size: u32,
    ecn: bool,
    hard_drop: bool,
    adaptive: bool,
    interval: Nanos,
    linux_idle: bool,
    rate_bps: u64,
    rng: Rng,
    avg: f64,
    /// Arrivals since the last drop (ns-2 `count`), and their bytes.
    count: u64,
    count_bytes: u64,
    /// The average was at or above min_th at the previous arrival (ns-2 `old`).
    above_min: bool,
    /// Start of the current idle period (the queue went empty), if idle.
    idle_since: Option<Nanos>,
    last_p: f64,
}

impl Red {
    pub fn avg(&self) -> f64 {
        self.avg
    }

    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// Transmission time of a mean packet at the link rate, seconds.
    fn packet_time_s(&self) -> f64 {
        8.0 * self.mean_pkt_size as f64 / self.rate_bps.max(1) as f64
    }

    /// Step 1: the average at an arrival at `now` seeing queue `q`.
    fn update_avg(&mut self, now: Nanos, q: f64) {
        let keep = 1.0 - self.w_q;
        self.avg = match self.idle_since.take() {
            Some(since) => {
                let m = to_secs(now - since) / self.packet_time_s();
                if self.linux_idle {
                    // sch_red red_calc_qavg_from_idle_time (its Stab table, unrounded).
                    self.avg * keep.powf(m)
                } else {
                    // ns-2/ns-3 estimator after idle: m small packets, then this arrival.
                    self.avg * keep.powf(m.floor() + 1.0) + self.w_q * q
                }
            }
            None => keep * self.avg + self.w_q * q,
        };
    }

    /// The base probability p_b at the current average (Floyd 1993 §4; gentle per Floyd 2000).
    pub fn base_prob(&self) -> f64 {
        let p = if self.avg >= self.max_th {
            if self.gentle {
                self.max_p + (1.0 - self.max_p) * (self.avg - self.max_th) / self.max_th
            } else {
                1.0
            }
        } else {
            self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
        };
        p.clamp(0.0, 1.0)
    }

    /// Uniformization by the count since the last drop (ns-2 `modify_p`), then byte scaling.
    pub fn uniformized(&self, p_b: f64, len: u32) -> f64 {
        let count = if self.byte_mode { (self.count_bytes / self.mean_pkt_size as u64) as f64 } else { self.count as f64 };
        let c = count * p_b;
        let mut p = if self.wait {
            if c < 1.0 {
                0.0
            } else if c < 2.0 {
                p_b / (2.0 - c)
            } else {
                1.0
            }
        } else if c < 1.0 {
            p_b / (1.0 - c)
        } else {
            1.0
        };
        if self.byte_mode && p < 1.0 {
            p = p * len as f64 / self.mean_pkt_size as f64;
        }
        p.min(1.0)
    }

    fn forced(&self) -> bool {
        let top = if self.gentle { 2.0 * self.max_th } else { self.max_th };
        self.avg >= top
    }

    fn reset_count(&mut self) {
        self.count = 0;
        self.count_bytes = 0;
    }

    /// Adaptive RED (Floyd, Gummadi & Shenker 2001): keep avg in the middle of [min, max].
    pub fn adapt(&mut self) {
        let part = 0.4 * (self.max_th - self.min_th);
        if self.avg > self.max_th - part && self.max_p <= 0.5 {
            self.max_p += (self.max_p / 4.0).min(0.01);
        } else if self.avg < self.min_th + part && self.max_p >= 0.01 {
            self.max_p *= 0.9;
        }
    }
}

impl Aqm for Red {
    fn on_enqueue(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        let queued = self.unit.of(q.backlog);
        self.update_avg(now, queued);
        self.count += 1;
        self.count_bytes += pkt.len as u64;
        self.last_p = 0.0;
        if self.avg < self.min_th || queued <= 1.0 {
            self.above_min = false;
            return Verdict::Accept;
        }
        if self.forced() {
            self.reset_count();
            self.last_p = 1.0;
            return if self.hard_drop { Verdict::Drop } else { congestion_verdict(self.ecn, pkt) };
        }
        if !self.above_min {
            // First arrival above min_th: start counting from here (ns-2 `old == 0`).
            self.above_min = true;
            self.count = 1;
            self.count_bytes = pkt.len as u64;
            return Verdict::Accept;
        }
        self.last_p = self.uniformized(self.base_prob(), pkt.len);
        if self.rng.uniform() < self.last_p {
            self.reset_count();
            return congestion_verdict(self.ecn, pkt);
        }
        Verdict::Accept
    }

    fn on_dequeue(&mut self, now: Nanos, _pkt: &Pkt, q: &QueueView) -> Verdict {
        if q.backlog.packets == 0 {
            self.idle_since = Some(now);
        }
        Verdict::Accept
    }

    fn update_interval(&self) -> Option<Nanos> {
        self.adaptive.then_some(self.interval)
    }

    fn on_update(&mut self, _now: Nanos, _q: &QueueView) {
        self.adapt();
    }

    fn set_link_rate(&mut self, rate_bps: u64) {
        self.rate_bps = rate_bps;
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["avg", "count", "max_p", "prob"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.avg, self.count as f64, self.max_p, self.last_p]);
    }
}

#[cfg(test)]
mod tests;
