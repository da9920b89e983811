//! Link impairments: random or periodic loss and outages, applied to packets as they reach a
//! link, in front of its queue. They model a lossy path (for TCP response-function tests) and
//! failures; they are not an AQM. Optionally an ECN-capable packet is CE-marked instead of
//! dropped, so the same loss law can be applied as marks.

use aqm::{Ecn, Nanos, Rng};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LossModel {
    None,
    /// Each packet independently with probability `p`.
    Bernoulli { p: f64 },
    /// Every `every`-th packet (the deterministic loss of the square-root law's derivation).
    Periodic { every: u64 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpairConfig {
    pub loss: LossModel,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub mark_instead: bool,
    /// Intervals [from, to) in ns during which every packet is lost.
    pub outages: Vec<(Nanos, Nanos)>,
}

impl ImpairConfig {
    pub fn validate(&self) -> Result<(), String> {
        match self.loss {
            LossModel::Bernoulli { p } if !(0.0..=1.0).contains(&p) => return Err(format!("loss.p: {p} is outside [0, 1]")),
            LossModel::Periodic { every: 0 } => return Err("loss.every: must be >= 1".into()),
            _ => {}
        }
        if self.outages.iter().any(|&(a, b)| a >= b) {
            return Err("outages: each interval needs from < to".into());
        }
        Ok(())
    }
}

/// What happens to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Pass,
    Mark,
    Drop,
}

#[derive(Clone, Debug)]
pub struct Impairment {
    cfg: ImpairConfig,
    rng: Rng,
    seen: u64,
}

impl Impairment {
    pub fn new(cfg: ImpairConfig, rng: Rng) -> Self {
        Impairment { cfg, rng, seen: 0 }
    }

    /// Judges a packet reaching the link at `now`.
    pub fn judge(&mut self, now: Nanos, ecn: Ecn) -> Fate {
        if self.cfg.outages.iter().any(|&(a, b)| (a..b).contains(&now)) {
            return Fate::Drop;
        }
        self.seen += 1;
        let hit = match self.cfg.loss {
            LossModel::None => false,
            LossModel::Bernoulli { p } => self.rng.uniform() < p,
            LossModel::Periodic { every } => self.seen.is_multiple_of(every),
        };
        match (hit, self.cfg.mark_instead && ecn.is_capable()) {
            (false, _) => Fate::Pass,
            (true, true) => Fate::Mark,
            (true, false) => Fate::Drop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_outage_and_marking() {
        let cfg = ImpairConfig { loss: LossModel::Periodic { every: 3 }, mark_instead: true, outages: vec![(100, 200)] };
        let mut imp = Impairment::new(cfg, Rng::from_seed(1));
        let fates: Vec<Fate> = (0..6).map(|_| imp.judge(0, Ecn::NotEct)).collect();
        assert_eq!(fates, [Fate::Pass, Fate::Pass, Fate::Drop, Fate::Pass, Fate::Pass, Fate::Drop]);
        assert_eq!((0..3).map(|_| imp.judge(0, Ecn::Ect0)).last(), Some(Fate::Mark));
        assert_eq!(imp.judge(150, Ecn::Ect0), Fate::Drop);
        assert_eq!(imp.judge(200, Ecn::Ect0), Fate::Pass);
    }

    #[test]
    fn bernoulli_rate() {
        let cfg = ImpairConfig { loss: LossModel::Bernoulli { p: 0.01 }, mark_instead: false, outages: vec![] };
        let mut imp = Impairment::new(cfg, Rng::from_seed(9));
        let n = 200_000;
        let drops = (0..n).filter(|_| imp.judge(0, Ecn::NotEct) == Fate::Drop).count();
        // Binomial sd = sqrt(n p (1 − p)) = 44.5: a 5-sigma band around 2000.
        assert!((drops as f64 - 2000.0).abs() < 5.0 * 44.5, "{drops}");
    }
}
