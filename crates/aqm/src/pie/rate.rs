//! Departure-rate estimation over measurement cycles of `dq_threshold` bytes
//! (HPSR'13 §III-C, RFC 8033 §5.2 / App. B, sch_pie `pie_process_dequeue`).
//!
//! A cycle starts at a dequeue that leaves at least `threshold` bytes queued; departing bytes
//! are counted; once `threshold` bytes have left, the cycle's duration gives one sample. Which
//! departure is the first counted, and when the next cycle starts, differ ([`CycleRule`]).

use super::linux::{ticks, RATE_SHIFT, TICKS_PER_SEC, TICK_SHIFT};
use crate::time::{to_secs, Nanos, NS_PER_SEC};

/// What is averaged, and in which arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Averaging {
    /// EWMA with weight `w` on the rate in bytes/s (HPSR'13 ε, ns-3 1/2).
    Rate(f64),
    /// EWMA with weight `w` on the cycle duration (RFC 8033 §5.2: w = 2^14/2^16).
    CycleTime(f64),
    /// sch_pie: bytes per tick << 8 in a u32, `avg - avg>>k + sample>>k`.
    Fixed(u32),
}

/// When a measurement cycle starts and which departures it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleRule {
    /// sch_pie `pie_process_dequeue` (and the HPSR-era code it comes from): the departure that
    /// starts a cycle is counted in it; a completed cycle restarts at once while the backlog is
    /// at least the threshold.
    Linux,
    /// ns-3 `PieQueueDisc::DoDequeue`: as Linux, but a completed cycle restarts only while the
    /// backlog exceeds the threshold.
    Ns3,
    /// RFC 8033 App. B: a departure first counts towards the running cycle (ending it at the
    /// threshold), then starts one if none runs and enough is queued; so the departure that
    /// starts a cycle is not in it, and a cycle that ends with enough queued is followed at once.
    Rfc,
}

#[derive(Clone, Debug)]
pub struct RateEstimator {
    avg_kind: Averaging,
    threshold: u64,
    rule: CycleRule,
    in_cycle: bool,
    start: Nanos,
    /// Bytes counted in the running cycle (wrapping: ns-3 sets it to DQCOUNT_INVALID = 2^64 − 1
    /// when it drops the estimate in a running cycle).
    count: u64,
    /// Rate (bytes/s) or cycle time (s) depending on `avg_kind`; 0 = no estimate yet.
    avg: f64,
    avg_fixed: u32,
}

impl RateEstimator {
    pub fn new(avg_kind: Averaging, threshold: u32, rule: CycleRule) -> Self {
        RateEstimator { avg_kind, threshold: threshold as u64, rule, in_cycle: false, start: 0, count: 0, avg: 0.0, avg_fixed: 0 }
    }

    /// What is averaged, for the tests of the profiles' choices.
    #[cfg(test)]
    pub fn averaging(&self) -> Averaging {
        self.avg_kind
    }

    /// Forget everything (sch_pie `pie_vars_init`, RFC 8033 §5.3 activation).
    pub fn reset(&mut self) {
        self.in_cycle = false;
        self.avg = 0.0;
        self.avg_fixed = 0;
    }

    /// ns-3 `CalculateP` once the queue is quiet: `m_avgDqRate = 0` and
    /// `m_dqCount = DQCOUNT_INVALID`, `m_inMeasurement` untouched, so a running cycle goes on
    /// with its start time and a count wrapped to `len − 1` at the next departure.
    pub fn ns3_drop_estimate(&mut self) {
        self.avg = 0.0;
        self.avg_fixed = 0;
        self.count = u64::MAX;
    }

    pub fn has_estimate(&self) -> bool {
        self.avg > 0.0 || self.avg_fixed > 0
    }

    fn clock(&self, now: Nanos) -> Nanos {
        match self.avg_kind {
            Averaging::Fixed(_) => ticks(now),
            _ => now,
        }
    }

    fn start_cycle(&mut self, clock: Nanos) {
        self.in_cycle = true;
        self.start = clock;
        self.count = 0;
    }

    /// A packet of `len` bytes left at `now`, leaving `backlog` bytes. Returns the duration of
    /// the cycle (ns) when this departure completed one.
    pub fn on_dequeue(&mut self, now: Nanos, len: u32, backlog: u64) -> Option<Nanos> {
        let clock = self.clock(now);
        let counts_starter = self.rule != CycleRule::Rfc;
        if counts_starter && !self.in_cycle && backlog >= self.threshold {
            self.start_cycle(clock);
        }
        let sample = if self.in_cycle { self.count(clock, len, backlog) } else { None };
        if !counts_starter && !self.in_cycle && backlog >= self.threshold {
            self.start_cycle(clock);
        }
        sample
    }

    /// Counts a departure in the running cycle; at the threshold, takes the sample and ends or
    /// restarts the cycle by the rule.
    fn count(&mut self, clock: Nanos, len: u32, backlog: u64) -> Option<Nanos> {
        self.count = self.count.wrapping_add(len as u64);
        if self.count < self.threshold {
            return None;
        }
        let dt = match self.avg_kind {
            // sch_pie keeps dtime in a u32 of ticks.
            Averaging::Fixed(_) => (clock - self.start) as u32 as u64,
            _ => clock - self.start,
        };
        if dt == 0 {
            // No time has passed: keep counting (sch_pie returns without a sample; the RFC and
            // ns-3 would divide by zero).
            return None;
        }
        let dt_ns = match self.avg_kind {
            Averaging::Rate(w) => {
                let rate = self.count as f64 / to_secs(dt);
                self.avg = if self.avg == 0.0 { rate } else { (1.0 - w) * self.avg + w * rate };
                dt
            }
            Averaging::CycleTime(w) => {
                let t = to_secs(dt);
                self.avg = if self.avg == 0.0 { t } else { w * t + (1.0 - w) * self.avg };
                dt
            }
            Averaging::Fixed(shift) => {
                // u32 bytes << 8 divided by the u64 tick count, as in the kernel.
                let sample = (((self.count as u32) << RATE_SHIFT) as u64 / dt) as u32;
                self.avg_fixed = if self.avg_fixed == 0 { sample } else { self.avg_fixed - (self.avg_fixed >> shift) + (sample >> shift) };
                dt << TICK_SHIFT
            }
        };
        let restart = match self.rule {
            CycleRule::Linux => backlog >= self.threshold,
            CycleRule::Ns3 => backlog > self.threshold,
            // App. B ends the cycle; the caller's start test runs next.
            CycleRule::Rfc => false,
        };
        if restart {
            self.start_cycle(clock);
        } else {
            self.in_cycle = false;
        }
        Some(dt_ns)
    }

    /// Little's law: the delay of `backlog` bytes at the averaged rate, in ns (0 without estimate).
    pub fn delay(&self, backlog: u64) -> Nanos {
        match self.avg_kind {
            _ if !self.has_estimate() => 0,
            Averaging::Rate(_) => (backlog as f64 / self.avg * NS_PER_SEC as f64).round() as Nanos,
            Averaging::CycleTime(_) => (backlog as f64 * self.avg / self.threshold as f64 * NS_PER_SEC as f64).round() as Nanos,
            // qdelay = (backlog << 8) / avg_dq_rate ticks, in the kernel's u32: the backlog is
            // a u32 and the shift wraps once 16 MiB are queued (pie_calculate_probability).
            Averaging::Fixed(_) => (((backlog as u32) << RATE_SHIFT) / self.avg_fixed) as u64 * (1 << TICK_SHIFT),
        }
    }

    /// The averaged departure rate in bytes/s, for probes.
    pub fn rate_bytes_per_s(&self) -> f64 {
        match self.avg_kind {
            _ if !self.has_estimate() => 0.0,
            Averaging::Rate(_) => self.avg,
            Averaging::CycleTime(_) => self.threshold as f64 / self.avg,
            Averaging::Fixed(_) => ((self.avg_fixed as u64 * TICKS_PER_SEC) >> RATE_SHIFT) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    /// Drains 1000-byte packets one per `gap` ns from a backlog of `n` packets.
    fn drain(e: &mut RateEstimator, n: u64, gap: Nanos) -> Vec<Nanos> {
        (1..=n).filter_map(|k| e.on_dequeue(k * gap, 1000, (n - k) * 1000)).collect()
    }

    #[test]
    fn paper_cycles_of_10kb_at_one_mbyte_per_second() {
        // 1000 B per ms = 1e6 B/s; the cycle starts at the first dequeue (which is counted), so
        // 10 packets complete it 9 ms later: sample 10 000 B / 9 ms; then cycles of 10 ms.
        let mut e = RateEstimator::new(Averaging::Rate(0.125), 10_000, CycleRule::Linux);
        let cycles = drain(&mut e, 40, NS_PER_MS);
        assert_eq!(cycles, vec![9 * NS_PER_MS, 10 * NS_PER_MS, 10 * NS_PER_MS, 10 * NS_PER_MS]);
        let first = 10_000.0 / 0.009;
        let avg = (0..3).fold(first, |a, _| 0.875 * a + 0.125 * 1e6);
        assert!((e.rate_bytes_per_s() - avg).abs() < 1e-6);
        // 20 000 B queued: delay = 20 000 / avg (the last cycle ended with 0 B left: no restart).
        assert_eq!(e.delay(20_000), (20_000.0 / avg * 1e9).round() as Nanos);
    }

    #[test]
    fn rfc_averages_the_cycle_time_of_back_to_back_cycles() {
        let mut e = RateEstimator::new(Averaging::CycleTime(0.25), 16_384, CycleRule::Rfc);
        // RFC 8033 App. B: the cycle starts at the first dequeue (1 ms) and counts from the
        // second: 17 packets reach 17 000 B at 18 ms; a cycle starts at once at 18 ms (42 KB
        // left), the next at 35 ms; after the third only 8 000 B remain.
        let cycles = drain(&mut e, 60, NS_PER_MS);
        assert_eq!(cycles, vec![17 * NS_PER_MS; 3]);
        // Little's law with rate DQ_THRESHOLD / avg_dq_time: 16 384 bytes take 17 ms.
        assert_eq!(e.delay(16_384), 17 * NS_PER_MS);
    }

    #[test]
    fn rfc_takes_the_first_cycle_time_as_it_is_then_averages() {
        // RFC 8033 App. B: avg_dq_time starts as the first cycle's time, then moves a quarter
        // (DQ_THRESHOLD / 2^16) of the way to each new one. The first cycle takes 17 ms as
        // above; packets then leave 2 ms apart, so the second takes 34 ms: 0.25·34 + 0.75·17 =
        // 21.25 ms, the delay of DQ_THRESHOLD bytes by Little's law.
        let mut e = RateEstimator::new(Averaging::CycleTime(0.25), 16_384, CycleRule::Rfc);
        assert_eq!(e.rate_bytes_per_s(), 0.0, "no estimate yet: 0, not DQ_THRESHOLD / 0");
        let at = |k: u64| if k <= 18 { k * NS_PER_MS } else { (18 + 2 * (k - 18)) * NS_PER_MS };
        let cycles: Vec<Nanos> = (1..=35).filter_map(|k| e.on_dequeue(at(k), 1000, (60 - k) * 1000)).collect();
        assert_eq!(cycles, vec![17 * NS_PER_MS, 34 * NS_PER_MS]);
        assert_eq!(e.delay(16_384), 21_250_000);
        assert!((e.rate_bytes_per_s() - 16_384.0 / 0.02125).abs() < 1e-6);
    }

    #[test]
    fn ns3_restarts_only_above_the_threshold_and_keeps_a_cycle_through_a_reset() {
        // 1024-B packets: the first cycle ends at 16 ms leaving exactly 16 384 B: ns-3 stops.
        let mut e = RateEstimator::new(Averaging::Rate(0.5), 16_384, CycleRule::Ns3);
        let drain_1k = |e: &mut RateEstimator| (1..=32u64).filter_map(|k| e.on_dequeue(k * NS_PER_MS, 1024, (32 - k) * 1024)).collect::<Vec<_>>();
        assert_eq!(drain_1k(&mut e), vec![15 * NS_PER_MS]);
        let mut l = RateEstimator::new(Averaging::Rate(0.5), 16_384, CycleRule::Linux);
        assert_eq!(drain_1k(&mut l), vec![15 * NS_PER_MS, 16 * NS_PER_MS]);
        // A reset in a running cycle: the count restarts from 2^64 − 1, so the next 1000-B
        // departure leaves 999 counted, and the cycle keeps its start.
        let mut r = RateEstimator::new(Averaging::Rate(0.5), 16_384, CycleRule::Ns3);
        r.on_dequeue(NS_PER_MS, 1000, 20_000);
        assert!(r.in_cycle && r.count == 1000);
        r.ns3_drop_estimate();
        r.on_dequeue(2 * NS_PER_MS, 1000, 19_000);
        assert_eq!((r.count, r.start, r.has_estimate()), (999, NS_PER_MS, false));
    }

    #[test]
    fn linux_fixed_point_rate() {
        let mut e = RateEstimator::new(Averaging::Fixed(3), 16_384, CycleRule::Linux);
        drain(&mut e, 18, 64_000);
        // The cycle starts with 17 000 B left; 17 000 B leave in 16 gaps of 1000 ticks: (17 000 << 8) / 16 000 = 272 (bytes/tick << 8).
        assert_eq!(e.avg_fixed, 272);
        // delay of 16 384 B: (16 384 << 8) / 272 = 15 420 ticks.
        assert_eq!(e.delay(16_384), 15_420 << 6);
        assert_eq!(e.rate_bytes_per_s(), ((272u64 * TICKS_PER_SEC) >> 8) as f64);
        // 16 MiB + 1000 B: (16 778 216 << 8) wraps in u32 to 256 000; / 272 = 941 ticks.
        assert_eq!(e.delay((16 << 20) + 1000), 941 << 6);
        e.reset();
        assert_eq!(e.delay(16_384), 0);
    }

    #[test]
    fn linux_fixed_point_average_of_two_cycles() {
        // sch_pie: the first sample is taken as it is, later ones as avg - avg>>3 + sample>>3.
        // 60 packets of 1000 B queued; the first 17 leave 1000 ticks apart (272, as above) with
        // 43 000 B left, so a cycle restarts at once (17 000 ticks); the next 17 leave 2000
        // ticks apart and end it at 51 000: (17 000 << 8) / 34 000 = 128; 272 - 34 + 16 = 254.
        let mut e = RateEstimator::new(Averaging::Fixed(3), 16_384, CycleRule::Linux);
        let at = |k: u64| if k <= 17 { k * 1000 } else { 17_000 + (k - 17) * 2000 };
        let samples: Vec<Nanos> = (1..=34).filter_map(|k| e.on_dequeue(at(k) << TICK_SHIFT, 1000, (60 - k) * 1000)).collect();
        assert_eq!(samples, vec![16_000 << TICK_SHIFT, 34_000 << TICK_SHIFT]);
        assert_eq!(e.avg_fixed, 254);
    }

    #[test]
    fn linux_cycle_time_wraps_in_a_u32_of_ticks() {
        // sch_pie holds the cycle's duration (dtime) in a u32 of 64-ns ticks: a cycle lasting
        // 2^32 + 16 000 ticks (about 275 s, a stalled link) counts as 16 000, so the sample is
        // the one of the first test, not a rate of almost 0.
        let mut e = RateEstimator::new(Averaging::Fixed(3), 16_384, CycleRule::Linux);
        for k in 1..=17u64 {
            let t = if k < 17 { k * 1000 } else { 17_000 + (1 << 32) };
            e.on_dequeue(t << TICK_SHIFT, 1000, (18 - k) * 1000);
        }
        assert_eq!(e.avg_fixed, 272);
    }
}
