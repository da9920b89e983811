//! Departure-rate estimation over measurement cycles of `dq_threshold` bytes
//! (HPSR'13 §III-C, RFC 8033 §5.2 / App. B, sch_pie `pie_process_dequeue`).
//!
//! A cycle starts at a dequeue that leaves at least `threshold` bytes queued; every departing
//! byte is counted; once `threshold` bytes have left, the cycle's duration gives one sample.

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

#[derive(Clone, Debug)]
pub struct RateEstimator {
    avg_kind: Averaging,
    threshold: u64,
    /// Start the next cycle at once when enough is still queued (HPSR'13, Linux, ns-3), or wait
    /// for the next dequeue (RFC 8033 App. B ends the cycle).
    restart_at_once: bool,
    in_cycle: bool,
    start: Nanos,
    count: u64,
    /// Rate (bytes/s) or cycle time (s) depending on `avg_kind`; 0 = no estimate yet.
    avg: f64,
    avg_fixed: u32,
}

impl RateEstimator {
    pub fn new(avg_kind: Averaging, threshold: u32, restart_at_once: bool) -> Self {
        RateEstimator { avg_kind, threshold: threshold as u64, restart_at_once, in_cycle: false, start: 0, count: 0, avg: 0.0, avg_fixed: 0 }
    }

    /// Forget everything (sch_pie `pie_vars_init`, ns-3 quiet reset).
    pub fn reset(&mut self) {
        self.in_cycle = false;
        self.avg = 0.0;
        self.avg_fixed = 0;
    }

    pub fn in_cycle(&self) -> bool {
        self.in_cycle
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

    /// A packet of `len` bytes left at `now`, leaving `backlog` bytes. Returns the duration of
    /// the cycle (ns) when this departure completed one.
    pub fn on_dequeue(&mut self, now: Nanos, len: u32, backlog: u64) -> Option<Nanos> {
        let clock = self.clock(now);
        if !self.in_cycle && backlog >= self.threshold {
            self.in_cycle = true;
            self.start = clock;
            self.count = 0;
        }
        if !self.in_cycle {
            return None;
        }
        self.count += len as u64;
        if self.count < self.threshold {
            return None;
        }
        let dt = clock - self.start;
        if dt == 0 {
            // No time has passed: keep counting (sch_pie returns without a sample).
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
        if self.restart_at_once && backlog >= self.threshold {
            self.count = 0;
            self.start = clock;
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
            // qdelay = (backlog << 8) / avg_dq_rate ticks.
            Averaging::Fixed(_) => ((backlog << RATE_SHIFT) / self.avg_fixed as u64) << TICK_SHIFT,
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
        let mut e = RateEstimator::new(Averaging::Rate(0.125), 10_000, true);
        let cycles = drain(&mut e, 40, NS_PER_MS);
        assert_eq!(cycles, vec![9 * NS_PER_MS, 10 * NS_PER_MS, 10 * NS_PER_MS, 10 * NS_PER_MS]);
        let first = 10_000.0 / 0.009;
        let avg = (0..3).fold(first, |a, _| 0.875 * a + 0.125 * 1e6);
        assert!((e.rate_bytes_per_s() - avg).abs() < 1e-6);
        // 20 000 B queued: delay = 20 000 / avg (the last cycle ended with 0 B left: no restart).
        assert_eq!(e.delay(20_000), (20_000.0 / avg * 1e9).round() as Nanos);
    }

    #[test]
    fn rfc_averages_the_cycle_time_and_waits_for_the_next_dequeue() {
        let mut e = RateEstimator::new(Averaging::CycleTime(0.25), 16_384, false);
        // 17 packets of 1000 B complete the first cycle (16 ms after its first dequeue).
        let cycles = drain(&mut e, 60, NS_PER_MS);
        // Each next cycle starts at the following dequeue (17 packets, 16 ms); after the third
        // only 9 000 B remain, below the threshold.
        assert_eq!(cycles, vec![16 * NS_PER_MS; 3]);
        // Little's law with rate 16 384 B / 16 ms: 16 384 bytes take 16 ms.
        assert_eq!(e.delay(16_384), 16 * NS_PER_MS);
    }

    #[test]
    fn linux_fixed_point_rate() {
        let mut e = RateEstimator::new(Averaging::Fixed(3), 16_384, true);
        drain(&mut e, 18, 64_000);
        // The cycle starts with 17 000 B left; 17 000 B leave in 16 gaps of 1000 ticks: (17 000 << 8) / 16 000 = 272 (bytes/tick << 8).
        assert_eq!(e.avg_fixed, 272);
        // delay of 16 384 B: (16 384 << 8) / 272 = 15 420 ticks.
        assert_eq!(e.delay(16_384), 15_420 << 6);
        assert_eq!(e.rate_bytes_per_s(), ((272u64 * TICKS_PER_SEC) >> 8) as f64);
        e.reset();
        assert_eq!(e.delay(16_384), 0);
    }
}
