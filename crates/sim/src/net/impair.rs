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

    /// Bernoulli losses and marks over 100 000 packets, for a rare, a moderate and an even
    /// probability and five seeds each: the count of hits within 5 binomial sd of n·p
    /// (sd = sqrt(n p (1 − p)): 14.1, 68.9 and 158.1), the band fixed before any run. With
    /// `mark_instead` an ECN-capable packet is marked and never dropped, a not-ECT one is
    /// dropped and never marked, by the same draw; without it, every hit is a drop.
    #[test]
    fn bernoulli_losses_and_marks_are_binomial_over_seeds() {
        let n = 100_000u64;
        for p in [0.002, 0.05, 0.5] {
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            for seed in 1..=5 {
                let imp = |mark_instead| Impairment::new(ImpairConfig { loss: LossModel::Bernoulli { p }, mark_instead, outages: vec![] }, Rng::from_seed(seed));
                let tally = |mut imp: Impairment, ecn: &dyn Fn(u64) -> Ecn| {
                    let mut c = [0u64; 3];
                    for i in 0..n {
                        c[imp.judge(i, ecn(i)) as usize] += 1;
                    }
                    c
                };
                let within = |k: u64, what: &str| assert!((k as f64 - n as f64 * p).abs() < 5.0 * sd, "p {p}, seed {seed}, {what}: {k}");
                // [pass, mark, drop]
                let marks = tally(imp(true), &|_| Ecn::Ect0);
                assert_eq!(marks[2], 0);
                within(marks[1], "marks of ECT packets");
                let drops = tally(imp(true), &|_| Ecn::NotEct);
                assert_eq!(drops[1], 0);
                within(drops[2], "drops of not-ECT packets");
                // The same stream of draws either way: the packets hit are the same ones.
                assert_eq!(marks[1], drops[2]);
                let plain = tally(imp(false), &|i| if i % 2 == 0 { Ecn::Ect1 } else { Ecn::NotEct });
                assert_eq!((plain[1], plain[2]), (0, drops[2]), "without mark_instead ECN changes nothing");
                // A mixed stream: marks and drops split the hits, each about half.
                let mixed = tally(imp(true), &|i| if i % 2 == 0 { Ecn::Ect1 } else { Ecn::NotEct });
                assert_eq!(mixed[1] + mixed[2], drops[2]);
                let half_sd = (n as f64 / 2.0 * p * (1.0 - p)).sqrt();
                for k in [mixed[1], mixed[2]] {
                    assert!((k as f64 - n as f64 / 2.0 * p).abs() < 5.0 * half_sd, "p {p}, seed {seed}: mixed {mixed:?}");
                }
            }
        }
    }

    #[test]
    fn certain_and_impossible_losses() {
        // p = 1 loses every packet, p = 0 none (uniform draws lie in [0, 1)).
        for (p, want) in [(1.0, Fate::Drop), (0.0, Fate::Pass)] {
            let mut imp = Impairment::new(ImpairConfig { loss: LossModel::Bernoulli { p }, mark_instead: false, outages: vec![] }, Rng::from_seed(3));
            assert!((0..10_000).all(|i| imp.judge(i, Ecn::NotEct) == want), "p = {p}");
        }
        let mut none = Impairment::new(ImpairConfig { loss: LossModel::None, mark_instead: true, outages: vec![] }, Rng::from_seed(3));
        assert!((0..1000).all(|i| none.judge(i, Ecn::Ect0) == Fate::Pass));
    }

    #[test]
    fn outages_lose_everything_in_from_to_and_only_there() {
        // Two outages, [100, 200) and [300, 301): the packets at 100, 199 and 300 are lost, those
        // at 99, 200, 299 and 301 pass; marking does not apply to an outage.
        let cfg = ImpairConfig { loss: LossModel::None, mark_instead: true, outages: vec![(100, 200), (300, 301)] };
        let mut imp = Impairment::new(cfg, Rng::from_seed(1));
        let fates: Vec<Fate> = [99, 100, 199, 200, 299, 300, 301].iter().map(|&t| imp.judge(t, Ecn::Ect0)).collect();
        assert_eq!(fates, [Fate::Pass, Fate::Drop, Fate::Drop, Fate::Pass, Fate::Pass, Fate::Drop, Fate::Pass]);
    }

    #[test]
    fn bad_settings_are_refused() {
        let cfg = |loss, outages| ImpairConfig { loss, mark_instead: false, outages };
        for p in [-0.1, 1.5, f64::NAN] {
            assert_eq!(cfg(LossModel::Bernoulli { p }, vec![]).validate().unwrap_err(), format!("loss.p: {p} is outside [0, 1]"));
        }
        for p in [0.0, 0.5, 1.0] {
            assert_eq!(cfg(LossModel::Bernoulli { p }, vec![]).validate(), Ok(()));
        }
        assert_eq!(cfg(LossModel::Periodic { every: 0 }, vec![]).validate().unwrap_err(), "loss.every: must be >= 1");
        assert_eq!(cfg(LossModel::Periodic { every: 1 }, vec![(5, 6)]).validate(), Ok(()));
        for bad in [(5, 5), (6, 5)] {
            assert_eq!(cfg(LossModel::None, vec![(0, 1), bad]).validate().unwrap_err(), "outages: each interval needs from < to");
        }
    }
}
