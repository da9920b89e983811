//! P: the proportional AQM of Hollot et al. (INFOCOM 2001 §III–IV): RED without the averaging
//! filter, the loss probability read from the instantaneous queue at each arrival:
//!
//! `p = min(p_max, slope·(q − q_min))` for `q > q_min`, 0 otherwise.
//!
//! Profile `paper` (INFOCOM'01 Example 1 and §IV-A): slope L_red = 5.8624e-5 per packet from
//! q_min = 100 packets in an 800-packet buffer, so p never exceeds 700·L_red ≈ 0.041 there and
//! the p_max of 1.0 never binds. (The paper's Fig. 7 run, "p_max = 1", needs a steeper slope
//! as well, e.g. 1/700 so that p reaches 1 at the buffer; the catalog states its reading.)

use serde::{Deserialize, Serialize};

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::rng::Rng;
use crate::signal::{random_verdict, QueueUnit};
use crate::time::Nanos;
use crate::validate::{check_limit, check_opt, check_prob};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PProfile {
    #[default]
    Paper,
}

/// The JSON form of P.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PConfig {
    pub limit: Option<QueueLimit>,
    pub profile: PProfile,
    /// Queue (in `queue_unit`) below which nothing is dropped.
    pub q_min: Option<f64>,
    /// Probability per unit of queue above `q_min` (L_red).
    pub slope: Option<f64>,
    pub p_max: Option<f64>,
    pub queue_unit: Option<QueueUnit>,
    pub ecn: Option<bool>,
}

impl PConfig {
    pub fn resolved(&self) -> PConfig {
        PConfig {
            limit: self.limit.or(Some(QueueLimit::Packets(800))),
            profile: self.profile,
            q_min: self.q_min.or(Some(100.0)),
            slope: self.slope.or(Some(5.8624e-5)),
            p_max: self.p_max.or(Some(1.0)),
            queue_unit: self.queue_unit.or(Some(QueueUnit::Packets)),
            ecn: self.ecn.or(Some(false)),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        check_opt("q_min", self.q_min, 0.0, 1e12)?;
        check_opt("slope", self.slope, 0.0, 1.0)?;
        check_prob("p_max", self.p_max)?;
        self.limit.map_or(Ok(()), |l| check_limit("limit", l))
    }

    pub fn build(&self, rng: Rng) -> Proportional {
        let r = self.resolved();
        Proportional {
            q_min: r.q_min.unwrap_or(0.0),
            slope: r.slope.unwrap_or(0.0),
            p_max: r.p_max.unwrap_or(1.0),
            unit: r.queue_unit.unwrap_or_default(),
            ecn: r.ecn.unwrap_or(false),
            rng,
            last_p: 0.0,
        }
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

    #[test]
    fn loss_profile_of_the_paper() {
        let p = PConfig::default().build(Rng::from_seed(1));
        assert_eq!(p.prob_at(100.0), 0.0);
        assert_eq!(p.prob_at(50.0), 0.0);
        assert_eq!(p.prob_at(600.0), 500.0 * 5.8624e-5);
        // INFOCOM'01 §IV-A: at the 800-packet buffer p = 700·L_red ≈ 0.041.
        assert!((p.prob_at(800.0) - 0.0410368).abs() < 1e-12);
        let capped = PConfig { p_max: Some(0.02), ..Default::default() }.build(Rng::from_seed(1));
        assert_eq!(capped.prob_at(800.0), 0.02);
        assert!(PConfig { p_max: Some(2.0), ..Default::default() }.validate().unwrap_err().starts_with("p_max"));
    }
}
