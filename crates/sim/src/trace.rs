//! What a run records: always-on summary counters (fixed size) and opt-in columnar traces.

use aqm::Nanos;

use crate::config::TraceConfig;

/// Sub-buckets per power of two: values are kept to within 1/256 (0.4 %) relative error.
const SUB_BITS: u32 = 8;
const SUB: u64 = 1 << SUB_BITS;

/// A log-linear histogram of nanosecond values (the HDR-histogram idea): exact below 256 ns,
/// then 256 buckets per octave. Fixed memory (about 115 KB), O(1) per value.
#[derive(Clone, Debug)]
pub struct DelayHistogram {
    counts: Vec<u64>,
    pub n: u64,
    pub sum_ns: u128,
    pub max_ns: u64,
}

impl Default for DelayHistogram {
    fn default() -> Self {
        DelayHistogram { counts: vec![0; Self::bucket(u64::MAX) + 1], n: 0, sum_ns: 0, max_ns: 0 }
    }
}

impl DelayHistogram {
    fn bucket(v: u64) -> usize {
        if v < SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // e >= SUB_BITS
        let sub = (v >> (e - SUB_BITS)) & (SUB - 1);
        ((e - SUB_BITS + 1) as u64 * SUB + sub) as usize
    }

    /// Lower bound and width of bucket `b`.
    fn bounds(b: usize) -> (u64, u64) {
        let b = b as u64;
        if b < SUB {
            return (b, 1);
        }
        let e = b / SUB - 1 + SUB_BITS as u64;
        let sub = b % SUB;
        let width = 1u64 << (e - SUB_BITS as u64);
        ((1u64 << e) + sub * width, width)
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[Self::bucket(v)] += 1;
        self.n += 1;
        self.sum_ns += v as u128;
        self.max_ns = self.max_ns.max(v);
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.sum_ns as f64 / self.n as f64 }
    }

    /// The q-quantile (0 ≤ q ≤ 1), as the midpoint of the bucket holding it (never above the
    /// largest value recorded).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = Self::bounds(b);
                let mid = if w == 1 { lo as f64 } else { lo as f64 + (w as f64 - 1.0) / 2.0 };
                return mid.min(self.max_ns as f64);
            }
        }
        self.max_ns as f64
    }

    /// Non-empty buckets as (lower bound, width, count), for CDF plots.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(b, &c)| {
            let (lo, w) = Self::bounds(b);
            (lo, w, c)
        })
    }
}

/// Drop and mark reasons as stored in the `drops` trace.
pub const EVENT_DROP_OVERFLOW: u8 = 0;
pub const EVENT_DROP_EARLY: u8 = 1;
pub const EVENT_DROP_DEQUEUE: u8 = 2;
pub const EVENT_MARK: u8 = 3;
/// Lost to a link impairment (random loss or an outage) before reaching the queue.
pub const EVENT_DROP_IMPAIRMENT: u8 = 4;

/// TCP events in the `tcp_event` trace.
pub const TCP_EVENT_RETRANSMIT: u8 = 0;
pub const TCP_EVENT_TIMEOUT: u8 = 1;
pub const TCP_EVENT_RECOVERY: u8 = 2;
pub const TCP_EVENT_ECN: u8 = 3;

/// Opt-in traces, as columns. Periodic traces share `sample_t`; matrices are row-major
/// (one row per sample, one column per flow or per probe variable).
#[derive(Default)]
pub struct Traces {
    pub cfg: Option<TraceConfig>,
    pub sample_t: Vec<Nanos>,
    pub queue_bytes: Vec<u64>,
    pub queue_packets: Vec<u32>,
    /// Sojourn of the most recent departure at each sample, 0 while the queue is empty (what
    /// Linux PIE's timestamp mode reads as qdelay): one packet's wait, not an average.
    pub last_sojourn_ns: Vec<u64>,
    /// Mean sojourn (enqueue to transmission start) of the packets that started transmission
    /// since the previous sample; NaN when none did. The queueing delay packets experienced,
    /// per interval: what the catalog's time series use.
    pub sojourn_mean_ns: Vec<f64>,
    pub link_rate_bps: Vec<u64>,
    pub sojourn_t: Vec<Nanos>,
    /// Link sojourn: discipline enqueue to the start of transmission.
    pub sojourn_ns: Vec<u64>,
    /// The same packet's sojourn in the discipline alone (enqueue to dequeue, ns-3's
    /// `SojournTime`): shorter than `sojourn_ns` by its wait in the device queue, if any.
    pub sojourn_qdisc_ns: Vec<u64>,
    pub sojourn_flow: Vec<u32>,
    pub flow_bytes: Vec<u64>,
    pub drop_t: Vec<Nanos>,
    pub drop_flow: Vec<u32>,
    pub drop_kind: Vec<u8>,
    pub drop_link: Vec<u32>,
    pub probe_names: Vec<&'static str>,
    pub probe: Vec<f64>,
    pub tcp_cwnd: Vec<f64>,
    pub tcp_ssthresh: Vec<f64>,
    pub tcp_srtt_ns: Vec<f64>,
    pub tcp_event_t: Vec<Nanos>,
    pub tcp_event_flow: Vec<u32>,
    pub tcp_event_kind: Vec<u8>,
}

/// The mean of an interval's (sum, count) of sojourns in ns, NaN for an interval without
/// departures; resets the pair for the next interval.
pub fn interval_mean(acc: &mut (u64, u64)) -> f64 {
    let (sum, n) = std::mem::take(acc);
    if n == 0 { f64::NAN } else { sum as f64 / n as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_mean_is_the_mean_then_resets_and_is_nan_when_nothing_left() {
        let mut acc = (0, 0);
        for sojourn in [10, 20, 60] {
            acc.0 += sojourn;
            acc.1 += 1;
        }
        assert_eq!(interval_mean(&mut acc), 30.0);
        assert_eq!(acc, (0, 0));
        assert!(interval_mean(&mut acc).is_nan());
    }

    #[test]
    fn histogram_buckets_are_contiguous_and_precise() {
        for b in 0..2000 {
            let (lo, w) = DelayHistogram::bounds(b);
            let (next, _) = DelayHistogram::bounds(b + 1);
            assert_eq!(lo + w, next, "bucket {b}");
            assert_eq!(DelayHistogram::bucket(lo), b);
            assert_eq!(DelayHistogram::bucket(lo + w - 1), b);
        }
        let mut h = DelayHistogram::default();
        for v in 1..=1000u64 {
            h.record(v * 1_000_000); // 1..1000 ms
        }
        assert_eq!(h.mean(), 500.5e6);
        // The median is 500 ms; the bucket midpoint is within 1/256 of it.
        let med = h.quantile(0.5);
        assert!((med - 500e6).abs() / 500e6 < 1.0 / 256.0, "{med}");
        assert_eq!(h.max_ns, 1_000_000_000);
        assert_eq!(h.buckets().map(|(_, _, c)| c).sum::<u64>(), 1000);
    }
}
