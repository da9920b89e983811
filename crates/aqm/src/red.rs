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
//! `ns3` (RedQueueDisc: 5/15, w 0.002, max_p 1/50, wait, gentle, limit 25, hard drops),
//! `linux` (sch_red as configured by `tc red limit 1M avpkt 1500 min 100K max 300K`: bytes,
//! max_p 0.02, w = 2^−Wlog by tc's burst rule, no wait, no gentle, ECN marks also forced ones)
//! and `ared` (ns-3 with ARED = true: thresholds and weight from the link, gentle, max_p
//! adapted every 0.5 s).
//! Linux's fixed-point average and idle table are modelled in floating point, and its count is
//! seeded as ns-2 does (sch_red starts one lower after crossing min_th).

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, LinkInfo, QueueView, Verdict};
use crate::rng::Rng;
use crate::schema::{choice_enum, departs, Finish, Range};
use crate::signal::{congestion_verdict, QueueUnit};
use crate::time::{to_secs, Nanos, NS_PER_MS};

choice_enum! {
    /// Which RED a run follows.
    pub profile enum RedProfile = Ns3 {
        /// ns-2.1b ns-default.tcl.
        Ns2 = "ns2",
        /// ns-3 RedQueueDisc.
        Ns3 = "ns3",
        /// sch_red as `tc red limit 1M avpkt 1500 min 100K max 300K` configures it.
        Linux = "linux",
        /// Adaptive RED (Floyd, Gummadi & Shenker 2001) as ns-3 runs it with ARED = true:
        /// thresholds and weight from the link, max_p adapted every interval.
        Ared = "ared",
    }
}

crate::params! {
    /// RED, gentle RED and Adaptive RED.
    config RedConfig => RedParams, profile RedProfile,
    doc "RED: an EWMA of the queue at each arrival; between min_th and max_th arrivals are dropped (or marked) with a probability rising to max_p, uniformized by the count since the last drop.",
    source "Floyd & Jacobson 1993 / Floyd 2000 (gentle) / Floyd, Gummadi & Shenker 2001 (adaptive) / ns-2 red.cc / ns-3 RedQueueDisc / Linux sch_red + red.h";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = { Ns2: QueueLimit::Packets(50), Ns3: QueueLimit::Packets(25), Linux: QueueLimit::Bytes(1 << 20), Ared: QueueLimit::Packets(25) };
        /// Lower threshold of the average, in `queue_unit`; unset: Floyd 2001's max(5, target_delay·C/2) from the link.
        min_th: Option<f64> [Float, None, Range::closed(0.0, 1e12)] = { Ns2: Some(5.0), Ns3: Some(5.0), Linux: Some(102_400.0), Ared: None };
        /// Upper threshold of the average, in `queue_unit`; unset: 3·min_th.
        max_th: Option<f64> [Float, None, Range::closed(0.0, 1e12)] = { Ns2: Some(15.0), Ns3: Some(15.0), Linux: Some(307_200.0), Ared: None };
        /// EWMA weight of the average; unset: tc's rule from the thresholds (linux) or 1 − exp(−1/C) with C the link capacity in mean packets per second.
        w_q: Option<f64> [Float, None, Range::closed(1e-9, 1.0)] = { Ns2: Some(0.002), Ns3: Some(0.002), Linux: None, Ared: None };
        /// Drop probability at max_th.
        max_p: f64 [Float, None, Range::closed(0.0, 1.0)] = { Ns2: 0.1, Ns3: 0.02, Linux: 0.02, Ared: 0.02 };
        /// Gentle mode (Floyd 2000): p rises from max_p to 1 between max_th and 2·max_th.
        gentle: bool [Bool, None, Range::ANY] = { Ns2: false, Ns3: true, Linux: false, Ared: true };
        /// The ns-2 wait rule (no drop until count·p_b ≥ 1).
        wait: bool [Bool, None, Range::ANY] = { Ns2: true, Ns3: true, Linux: false, Ared: true };
        /// Whether the queue is measured in packets or bytes.
        queue_unit: QueueUnit [Choice, None, Range::ANY] = { Ns2: QueueUnit::Packets, Ns3: QueueUnit::Packets, Linux: QueueUnit::Bytes, Ared: QueueUnit::Packets };
        /// Scale p by size / mean_pkt_size and count bytes since the last drop.
        byte_mode: bool [Bool, None, Range::ANY] = (false);
        /// Mean packet size (avpkt): idle decay and byte mode.
        mean_pkt_size: u32 [Bytes, None, Range::closed(1.0, 65_535.0)] = { Ns2: 500, Ns3: 500, Linux: 1500, Ared: 500 };
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool [Bool, None, Range::ANY] = (false);
        /// Forced (above max) drops stay drops even for ECN-capable packets.
        hard_drop: bool [Bool, None, Range::ANY] = { Ns2: true, Ns3: true, Linux: false, Ared: true };
        /// Adapt max_p every `interval` (Adaptive RED).
        adaptive: bool [Bool, None, Range::ANY] = { Ns2: false, Ns3: false, Linux: false, Ared: true };
        /// Adaptive RED's target delay (automatic thresholds).
        target_delay: Nanos [Duration, None, Range::closed(1e3, 10e9)] = (5 * NS_PER_MS);
        /// Adaptive RED's adaptation interval.
        interval: Nanos [Duration, None, Range::closed(1e6, 100e9)] = (500 * NS_PER_MS);
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

impl Finish<RedConfig> for RedParams {
    /// The thresholds must be ordered; `linux` takes its weight by tc's rule where unset; a
    /// parameter this configuration never reads is refused unless at its default (a resolved
    /// record holds every field).
    fn finish(&mut self, given: &RedConfig) -> Result<(), String> {
        let d = RedConfig::defaults(self.profile);
        if !self.adaptive && departs(&given.interval, &d.interval) {
            return Err("interval: applies only with adaptive = true (only Adaptive RED has an update timer)".into());
        }
        if let Some(min_th) = self.min_th {
            if departs(&given.target_delay, &d.target_delay) {
                return Err(format!("target_delay: applies only with min_th unset, as in the ared profile (it sizes the automatic min_th; here min_th is {min_th})"));
            }
        }
        if !self.ecn && departs(&given.hard_drop, &d.hard_drop) {
            return Err("hard_drop: applies only with ecn = true (without ECN a forced signal is a drop either way)".into());
        }
        if let (Some(lo), Some(hi)) = (self.min_th, self.max_th) {
            if hi <= lo {
                return Err(format!("max_th: {hi} must exceed min_th {lo}"));
            }
        }
        if self.profile == RedProfile::Linux && self.w_q.is_none() {
            let (Some(lo), Some(hi)) = (self.min_th, self.max_th) else {
                return Err("w_q: tc's rule needs min_th and max_th; give them or give w_q".into());
            };
            let w = tc_ewma_weight(lo, hi, self.mean_pkt_size).ok_or("w_q: tc's rule found no weight for these thresholds; give w_q in [1e-9, 1]")?;
            self.w_q = Some(w);
        }
        Ok(())
    }
}

impl RedParams {
    pub fn build(&self, link: LinkInfo, rng: Rng) -> Red {
        let mean = self.mean_pkt_size;
        let unit = self.queue_unit;
        // Floyd 2001 automatic parameters from the link capacity C in mean packets per second.
        let c = link.rate_bps as f64 / (8.0 * mean as f64);
        let unit_scale = if unit == QueueUnit::Bytes { mean as f64 } else { 1.0 };
        let min_th = self.min_th.unwrap_or_else(|| (to_secs(self.target_delay) * c / 2.0).max(5.0) * unit_scale);
        Red {
            min_th,
            max_th: self.max_th.unwrap_or(3.0 * min_th),
            w_q: self.w_q.unwrap_or_else(|| 1.0 - (-1.0 / c).exp()),
            max_p: self.max_p,
            gentle: self.gentle,
            wait: self.wait,
            unit,
            byte_mode: self.byte_mode,
            mean_pkt_size: mean,
            ecn: self.ecn,
            hard_drop: self.hard_drop,
            adaptive: self.adaptive,
            interval: self.interval,
            linux_idle: self.profile == RedProfile::Linux,
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
