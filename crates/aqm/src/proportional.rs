//! P: the proportional AQM of Hollot et al. (INFOCOM 2001 §III–IV): RED without the averaging
//! filter, the loss probability read from the instantaneous queue at each arrival:
//!
//! `p = min(p_max, slope·(q − q_min))` for `q > q_min`, 0 otherwise.
//!
//! Profile `paper` (INFOCOM'01 Example 1 and §IV-A): slope L_red = 5.8624e-5 per packet from
//! q_min = 100 packets in an 800-packet buffer, so p never exceeds 700·L_red ≈ 0.041 there and
//! the p_max of 1.0 never binds. (The paper's Fig. 7 run, "p_max = 1", needs a steeper slope
//! as well, e.g. 1/700 so that p reaches 1 at the buffer; the catalog states its reading.)

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::rng::Rng;
use crate::schema::{choice_enum, Finish, Range};
use crate::signal::{random_verdict, QueueUnit};
use crate::time::Nanos;

choice_enum! {
    /// Which published P controller a run follows.
    pub profile enum PProfile = Paper {
        /// INFOCOM'01 Example 1 and §IV-A.
        Paper = "paper",
    }
}

crate::params! {
    /// P: the loss probability read from the instantaneous queue at each arrival.
    config PConfig => PParams, profile PProfile,
    doc "P: p = min(p_max, slope·(q − q_min)) on the instantaneous queue at each arrival (RED without the averaging filter).",
    source "INFOCOM 2001 (Hollot et al.) §III–IV";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(800));
        /// Queue (in `queue_unit`) below which nothing is dropped.
        q_min: f64 [Float, None, Range::closed(0.0, 1e12)] = (100.0);
        /// Probability per unit of queue above `q_min` (L_red).
        slope: f64 [Float, None, Range::closed(0.0, 1.0)] = (5.8624e-5);
        /// Largest drop probability.
        p_max: f64 [Float, None, Range::closed(0.0, 1.0)] = (1.0);
        /// Whether the queue is measured in packets or bytes.
        queue_unit: QueueUnit [Choice, None, Range::ANY] = (QueueUnit::Packets);
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool [Bool, None, Range::ANY] = (false);
    }
}

impl Finish<PConfig> for PParams {}

impl PParams {
    pub fn build(&self, rng: Rng) -> Proportional {
        Proportional { q_min: self.q_min, slope: self.slope, p_max: self.p_max, unit: self.queue_unit, ecn: self.ecn, rng, last_p: 0.0 }
    }
}

/// One P instance.
#[derive(Clone, Debug)]
pub struct Proportional {
    q_min: f64,
    slope: f64,
    p_max: f64,
    unit: QueueUnit,
    ecn: bool,
    rng: Rng,
    /// p at the last arrival, for probes.
    last_p: f64,
}

impl Proportional {
    /// The loss profile at queue `q`.
    pub fn prob_at(&self, q: f64) -> f64 {
        (self.slope * (q - self.q_min)).clamp(0.0, self.p_max)
    }
}

impl Aqm for Proportional {
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        self.last_p = self.prob_at(self.unit.of(q.backlog));
        random_verdict(&mut self.rng, self.last_p, self.ecn, pkt)
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["prob"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.last_p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{Backlog, SingleQueue};
    use crate::schema::Declared;
    use crate::testkit::probe;

    #[test]
    fn loss_profile_of_the_paper() {
        let p = PConfig::default().resolve().unwrap().build(Rng::from_seed(1));
        assert_eq!(p.prob_at(100.0), 0.0);
        assert_eq!(p.prob_at(50.0), 0.0);
        assert_eq!(p.prob_at(600.0), 500.0 * 5.8624e-5);
        // INFOCOM'01 §IV-A: at the 800-packet buffer p = 700·L_red ≈ 0.041.
        assert!((p.prob_at(800.0) - 0.0410368).abs() < 1e-12);
        let capped = PConfig { p_max: Some(0.02), ..Default::default() }.resolve().unwrap().build(Rng::from_seed(1));
        assert_eq!(capped.prob_at(800.0), 0.02);
        assert!(PConfig { p_max: Some(2.0), ..Default::default() }.resolve().unwrap_err().starts_with("p_max"));
    }

    #[test]
    fn prob_probe_reports_the_law_at_the_last_arrival() {
        // The `prob` probe is p at the last arrival: with 600 packets queued under the paper's
        // profile, p = L_red·(600 − q_min) = 500·5.8624e-5 (INFOCOM'01 §III).
        let mut q = SingleQueue::new(PConfig::default().resolve().unwrap().build(Rng::from_seed(1)), QueueLimit::Packets(800));
        let view = QueueView { backlog: Backlog { bytes: 600_000, packets: 600 }, limit: QueueLimit::Packets(800) };
        q.aqm.on_enqueue(0, &Pkt::new(1, 1000, 0), &view);
        assert_eq!(probe(&q, "prob"), 500.0 * 5.8624e-5);
    }
}
