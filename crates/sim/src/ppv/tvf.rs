//! Throughput-Value Functions (PPV concept; PVPIE §2, Fig. 1).
//!
//! A TVF V(x) is the operator's policy for one flow: the traffic up to throughput x gets a Packet
//! Value of V(x) or higher. Here a TVF is a list of (rate in bit/s, value) knots joined by
//! straight lines in log-log (piecewise power law, as the ELTE ns-3 marker reads its points
//! files, spec §1.2). Two knots at the same rate make a vertical segment: a rate cap that
//! holds over a range of congestion levels. Values must fall from knot to knot.
//!
//! # The Gold, Silver and Background TVFs (a policy-equivalent construction, spec §1.2)
//! The paper states the policy of Fig. 1 in words; the curves themselves are not printed in a
//! readable form. Only the rates the classes get at a common threshold matter, so we take a
//! reference Gold curve V_G(g) = 10^11 / g (one decade of value per decade of rate, from
//! 1 kb/s at V = 10^8, code 240, to 10 Gb/s at V = 10, code 30) and express each class through
//! the Gold rate at the same value: V_c(x) = V_G(k_c(x)·x), with k_c piecewise constant:
//!
//! | class | k below the knee | knee | k above the knee |
//! |---|---|---|---|
//! | Gold | 1 | — | 1 |
//! | Silver | 2 | 1 Mb/s | 4 |
//! | Background | 8 | 100 kb/s | 40 |
//!
//! At a threshold where Gold gets g: Silver gets g/2 and Background g/8 while Background is
//! below 100 kb/s (Silver = 4 × Background, Gold = 2 × Silver: region I of the paper); then
//! Background holds at 100 kb/s (its vertical segment, from V_G(0.8 Mb/s) to V_G(4 Mb/s)) while
//! Silver grows to 1 Mb/s with Gold = 2 × Silver; Silver then holds at 1 Mb/s (vertical from
//! V_G(2 Mb/s) to V_G(4 Mb/s)) until Gold reaches 4 Mb/s (region II); beyond, Silver = g/4
//! and Background = g/40 (Silver = 10 × Background, Gold = 4 × Silver: region III).

use serde::{Deserialize, Serialize};

/// The reference Gold curve's domain and scale: V_G(g) = GOLD_SCALE / g on [GOLD_MIN, GOLD_MAX].
const GOLD_SCALE: f64 = 1e11;
const GOLD_MIN_BPS: f64 = 1e3;
const GOLD_MAX_BPS: f64 = 1e10;

/// A TVF as written in a scenario: a named class of the paper's Fig. 1, or knots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TvfConfig {
    Gold,
    Silver,
    Background,
    /// (rate bit/s, value) pairs, rates non-decreasing and values strictly decreasing.
    Knots(Vec<(f64, f64)>),
}

impl TvfConfig {
    pub fn build(&self) -> Result<Tvf, String> {
        match self {
            TvfConfig::Gold => Ok(Tvf::policy_class(&[], 1.0)),
            TvfConfig::Silver => Ok(Tvf::policy_class(&[(1e6, 2.0)], 4.0)),
            TvfConfig::Background => Ok(Tvf::policy_class(&[(1e5, 8.0)], 40.0)),
            TvfConfig::Knots(k) => Tvf::new(k.clone()),
        }
    }
}

/// A piecewise log-log Throughput-Value Function.
#[derive(Clone, Debug, PartialEq)]
pub struct Tvf {
    knots: Vec<(f64, f64)>,
}

impl Tvf {
    /// Checks the knots: at least two, positive and finite, rates non-decreasing, values
    /// strictly decreasing.
    pub fn new(knots: Vec<(f64, f64)>) -> Result<Self, String> {
        if knots.len() < 2 {
            return Err(format!("knots: at least two (rate, value) pairs are needed, got {}", knots.len()));
        }
        for (i, &(r, v)) in knots.iter().enumerate() {
            if !(r > 0.0 && r.is_finite() && v > 0.0 && v.is_finite()) {
                return Err(format!("knots[{i}]: rate and value must be positive and finite, got ({r}, {v})"));
            }
        }
        for (i, w) in knots.windows(2).enumerate() {
            if w[1].0 < w[0].0 || w[1].1 >= w[0].1 {
                return Err(format!("knots[{}]: rates must not decrease and values must decrease", i + 1));
            }
        }
        Ok(Tvf { knots })
    }

    /// The class whose rate at any value is the reference Gold rate divided by k, where k is
    /// `pieces[i].1` below the rate `pieces[i].0` and `last_k` above the last knee (module doc).
    fn policy_class(pieces: &[(f64, f64)], last_k: f64) -> Tvf {
        let gold = |g: f64| GOLD_SCALE / g;
        let first_k = pieces.first().map_or(last_k, |p| p.1);
        let mut knots = vec![(GOLD_MIN_BPS / first_k, gold(GOLD_MIN_BPS))];
        for (i, &(knee, k)) in pieces.iter().enumerate() {
            let next_k = pieces.get(i + 1).map_or(last_k, |p| p.1);
            knots.push((knee, gold(k * knee)));
            knots.push((knee, gold(next_k * knee)));
        }
        knots.push((GOLD_MAX_BPS / last_k, gold(GOLD_MAX_BPS)));
        Tvf { knots }
    }

    pub fn knots(&self) -> &[(f64, f64)] {
        &self.knots
    }

    /// V(x): the top value below the first knot, 0 beyond the last (outside the policy).
    /// On a vertical segment the upper value applies.
    pub fn value(&self, rate_bps: f64) -> f64 {
        let k = &self.knots;
        if rate_bps <= k[0].0 {
            return k[0].1;
        }
        match k.windows(2).find(|w| rate_bps <= w[1].0 && w[0].0 < w[1].0) {
            Some(w) => log_interp(rate_bps, w[0].0, w[1].0, w[0].1, w[1].1),
            None => 0.0,
        }
    }

    /// X(v) = sup{x : V(x) ≥ v}: the throughput a flow keeps when every packet below value v
    /// is dropped (0 above the top value, the domain's end below the lowest value).
    pub fn rate(&self, value: f64) -> f64 {
        let k = &self.knots;
        let last = k[k.len() - 1];
        if value > k[0].1 {
            return 0.0;
        }
        if value <= last.1 {
            return last.0;
        }
        let w = k.windows(2).find(|w| value > w[1].1).expect("value lies between the first and last knot");
        if w[0].0 == w[1].0 {
            return w[0].0;
        }
        log_interp(value, w[0].1, w[1].1, w[0].0, w[1].0)
    }
}

/// y at x on the straight log-log line through (x0, y0) and (x1, y1).
fn log_interp(x: f64, x0: f64, x1: f64, y0: f64, y1: f64) -> f64 {
    let f = (x / x0).ln() / (x1 / x0).ln();
    y0 * (y1 / y0).powf(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn policy_ratios_of_fig_1_at_several_thresholds() {
        let (g, s, b) = (TvfConfig::Gold.build().unwrap(), TvfConfig::Silver.build().unwrap(), TvfConfig::Background.build().unwrap());
        // (Gold rate defining the threshold, expected Silver, expected Background), bit/s.
        let cases = [
            (40e3, 20e3, 5e3),     // region I: S = 4·B, G = 2·S
            (400e3, 200e3, 50e3),  // region I
            (800e3, 400e3, 100e3), // Background reaches 100 kb/s
            (1.6e6, 0.8e6, 100e3), // Background capped, G = 2·S
            (3e6, 1e6, 100e3),     // region II: both capped
            (4e6, 1e6, 100e3),     // the caps end at Gold = 4 Mb/s
            (20e6, 5e6, 500e3),    // region III: S = 10·B, G = 4·S
            (100e6, 25e6, 2.5e6),  // region III
        ];
        for (gold, silver, bg) in cases {
            let v = g.value(gold);
            assert!(close(g.rate(v), gold), "gold {gold}");
            assert!(close(s.rate(v), silver), "silver at gold {gold}: {}", s.rate(v));
            assert!(close(b.rate(v), bg), "background at gold {gold}: {}", b.rate(v));
        }
    }

    #[test]
    fn knots_interpolate_in_log_log_and_are_checked() {
        // From (1 kb/s, 1000) to (100 kb/s, 10): V(10 kb/s) = 100 exactly on the line.
        let t = Tvf::new(vec![(1e3, 1e3), (1e5, 10.0)]).unwrap();
        assert!(close(t.value(1e4), 100.0));
        assert_eq!(t.value(500.0), 1e3);
        assert_eq!(t.value(2e5), 0.0);
        assert!(close(t.rate(100.0), 1e4));
        assert_eq!((t.rate(2e3), t.rate(5.0)), (0.0, 1e5));
        // A vertical segment: the cap holds for every value inside it.
        let cap = Tvf::new(vec![(1e3, 1e3), (1e4, 100.0), (1e4, 20.0), (1e5, 2.0)]).unwrap();
        assert_eq!((cap.rate(50.0), cap.value(1e4)), (1e4, 100.0));
        assert!(Tvf::new(vec![(1e3, 1.0)]).unwrap_err().starts_with("knots"));
        assert!(Tvf::new(vec![(1e3, 10.0), (1e4, 10.0)]).unwrap_err().starts_with("knots[1]"));
        assert!(Tvf::new(vec![(1e3, 10.0), (1e2, 1.0)]).unwrap_err().starts_with("knots[1]"));
        assert!(Tvf::new(vec![(0.0, 10.0), (1e2, 1.0)]).unwrap_err().starts_with("knots[0]"));
    }

    #[test]
    fn named_classes_span_the_code_range() {
        // Gold: codes 240 (1 kb/s) to 30 (10 Gb/s), one code per 10^(1/30) of rate.
        let g = TvfConfig::Gold.build().unwrap();
        assert_eq!(aqm::ppv::encode(g.value(1e3)), 240);
        assert_eq!(aqm::ppv::encode(g.value(1e10)), 30);
        assert_eq!(aqm::ppv::encode(g.value(1e6)), 150);
        let s = TvfConfig::Silver.build().unwrap();
        assert_eq!(s.knots(), &[(500.0, 1e8), (1e6, 5e4), (1e6, 2.5e4), (2.5e9, 10.0)]);
    }
}
