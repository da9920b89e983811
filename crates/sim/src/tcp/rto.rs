//! Round-trip time estimation and the retransmission timeout (RFC 6298).

use aqm::Nanos;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
    rto: Nanos,
    min_rto: Nanos,
    max_rto: Nanos,
    granularity: Nanos,
}

impl RttEstimator {
    pub fn new(initial_rto: Nanos, min_rto: Nanos, max_rto: Nanos, granularity: Nanos) -> Self {
        RttEstimator { srtt: 0.0, rttvar: 0.0, has_sample: false, rto: initial_rto, min_rto, max_rto, granularity }
    }

    /// Feeds one RTT measurement (RFC 6298 §2.2 for the first, §2.3 after).
    pub fn sample(&mut self, r: Nanos) {
        let r = r as f64;
        if self.has_sample {
            // §2.3: RTTVAR first, with the old SRTT; alpha = 1/8, beta = 1/4.
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        } else {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_sample = true;
        }
        let rto = self.srtt + (self.granularity as f64).max(4.0 * self.rttvar);
        // §2.4 lower bound, §2.5 upper bound.
        self.rto = (rto.round() as Nanos).clamp(self.min_rto, self.max_rto);
    }

    /// §5.5: back the timer off by doubling, up to the maximum.
    pub fn back_off(&mut self) {
        self.rto = (self.rto.saturating_mul(2)).min(self.max_rto);
    }

    pub fn rto(&self) -> Nanos {
        self.rto
    }

    /// Smoothed RTT in ns (0 before the first sample).
    pub fn srtt(&self) -> f64 {
        self.srtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Nanos = 1_000_000;

    #[test]
    fn rfc6298_worked_sequence() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS, MS);
        assert_eq!(e.rto(), 1000 * MS);
        // First sample 100 ms: SRTT 100, RTTVAR 50, RTO = 100 + 200 = 300 ms.
        e.sample(100 * MS);
        assert_eq!(e.rto(), 300 * MS);
        // Second 120 ms: RTTVAR = 0.75·50 + 0.25·20 = 42.5; SRTT = 102.5; RTO = 272.5 ms.
        e.sample(120 * MS);
        assert_eq!(e.rto(), 272_500_000);
        e.back_off();
        assert_eq!(e.rto(), 545 * MS);
        // A steady RTT converges to SRTT and the minimum RTO binds.
        for _ in 0..200 {
            e.sample(100 * MS);
        }
        assert_eq!(e.rto(), 200 * MS);
        assert!((e.srtt() - 1e8).abs() < 1.0);
    }

    #[test]
    fn rfc6298_clock_granularity_and_upper_bound() {
        // §2.2: RTO = SRTT + max(G, 4·RTTVAR). A first sample of 100 ms (RTTVAR 50) with a
        // clock of G = 500 ms: 4·RTTVAR = 200 ms is below G, so RTO = 100 + 500 = 600 ms.
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS, 500 * MS);
        e.sample(100 * MS);
        assert_eq!(e.rto(), 600 * MS);
        // §2.5 upper bound: a first sample of 40 s gives 40 + 4·20 = 120 s, held at 60 s; the
        // back-off (§5.5) doubles up to it and no further.
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS, MS);
        e.sample(40_000 * MS);
        assert_eq!(e.rto(), 60_000 * MS);
        e.back_off();
        assert_eq!(e.rto(), 60_000 * MS);
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS, MS);
        for want in [2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000] {
            e.back_off();
            assert_eq!(e.rto(), want * MS);
        }
    }
}
