//! PI: the Proportional-Integral AQM of Hollot, Misra, Towsley and Gong (INFOCOM 2001).
//!
//! Every `1/f_s` the queue length `q` (packets or bytes) is sampled and the drop probability
//! updated by the digital PI law (INFOCOM'01 §V, eq. 9; ns-2 `Queue/PI`):
//!
//! `p[k] = a·(q[k] − q_ref) − b·(q[k−1] − q_ref) + p[k−1]`, clamped to [0, 1].
//!
//! Arrivals are dropped (or ECN-marked) with probability `p`. The gains come either as `a, b`
//! or as the continuous design `C(s) = K_PI·(s/z + 1)/s` mapped by the bilinear transform
//! (spec §7.3): `a = K_PI·(1/z + T/2)`, `b = K_PI·(1/z − T/2)`, `T = 1/f_s`.
//!
//! Profiles: `paper` (K_PI 9.6426e-6, z 0.53 rad/s, f_s 160 Hz, q_ref 200 packets, 800-packet
//! buffer: INFOCOM'01 Example 2 and §VI) and `ns2` (ns-default.tcl: a 1.822e-5, b 1.816e-5,
//! sampled at 170 Hz although designed for 160 Hz, q_ref 50, limit 50).

use serde::{Deserialize, Serialize};

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::rng::Rng;
use crate::signal::{random_verdict, QueueUnit};
use crate::time::{Nanos, NS_PER_SEC};
use crate::validate::{check_limit, check_opt};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PiProfile {
    #[default]
    Paper,
    Ns2,
}

/// The JSON form of PI: a profile plus optional overrides. Give either `a`/`b` or
/// `k_pi`/`z_rad_s` (with `sample_hz`), not both unless they agree.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PiConfig {
    pub limit: Option<QueueLimit>,
    pub profile: PiProfile,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// Continuous PI gain K_PI (probability per unit of queue per second).
    pub k_pi: Option<f64>,
    /// Zero of the continuous controller, rad/s.
    pub z_rad_s: Option<f64>,
    /// Sampling frequency f_s, Hz.
    pub sample_hz: Option<f64>,
    /// Reference queue, in `queue_unit`.
    pub q_ref: Option<f64>,
    pub queue_unit: Option<QueueUnit>,
    pub ecn: Option<bool>,
}

/// INFOCOM'01 Example 2: K_PI and the zero z (rad/s).
const PAPER_K_PI: f64 = 9.6426e-6;
const PAPER_Z: f64 = 0.53;

/// The digital gains of a continuous PI design by the bilinear (Tustin) map (spec §7.3).
pub fn bilinear_gains(k_pi: f64, z: f64, f_s: f64) -> (f64, f64) {
    let half_t = 0.5 / f_s;
    (k_pi * (1.0 / z + half_t), k_pi * (1.0 / z - half_t))
}

impl PiProfile {
    pub fn defaults(self) -> PiConfig {
        match self {
            PiProfile::Paper => PiConfig {
                limit: Some(QueueLimit::Packets(800)),
                profile: self,
                k_pi: Some(PAPER_K_PI),
                z_rad_s: Some(PAPER_Z),
                sample_hz: Some(160.0),
                q_ref: Some(200.0),
                queue_unit: Some(QueueUnit::Packets),
                ecn: Some(false),
                ..Default::default()
            },
            PiProfile::Ns2 => PiConfig {
                limit: Some(QueueLimit::Packets(50)),
                profile: self,
                a: Some(1.822e-5),
                b: Some(1.816e-5),
                sample_hz: Some(170.0),
                q_ref: Some(50.0),
                queue_unit: Some(QueueUnit::Packets),
                ecn: Some(false),
                ..Default::default()
            },
        }
    }
}

impl PiConfig {
    fn design_given(&self) -> bool {
        self.k_pi.is_some() || self.z_rad_s.is_some()
    }

    /// Every field filled; `a`, `b` computed by the bilinear map when a design (K_PI, z) is in
    /// force, which is kept in the result so the record shows where `a`, `b` came from.
    pub fn resolved(&self) -> PiConfig {
        let d = self.profile.defaults();
        let f_s = self.sample_hz.or(d.sample_hz).unwrap_or(160.0);
        let (design_k, design_z) = (PAPER_K_PI, PAPER_Z);
        let default_ab = match (d.k_pi, d.z_rad_s) {
            (Some(k), Some(z)) => bilinear_gains(k, z, f_s),
            _ => (d.a.unwrap_or(0.0), d.b.unwrap_or(0.0)),
        };
        let design = if self.design_given() {
            Some((self.k_pi.or(d.k_pi).unwrap_or(design_k), self.z_rad_s.or(d.z_rad_s).unwrap_or(design_z)))
        } else if self.a.is_none() && self.b.is_none() {
            d.k_pi.zip(d.z_rad_s)
        } else {
            None
        };
        let (a, b) = match design {
            Some((k, z)) => bilinear_gains(k, z, f_s),
            None => (self.a.unwrap_or(default_ab.0), self.b.unwrap_or(default_ab.1)),
        };
        PiConfig {
            limit: self.limit.or(d.limit),
            profile: self.profile,
            a: Some(a),
            b: Some(b),
            k_pi: design.map(|(k, _)| k),
            z_rad_s: design.map(|(_, z)| z),
            sample_hz: Some(f_s),
            q_ref: self.q_ref.or(d.q_ref),
            queue_unit: self.queue_unit.or(d.queue_unit),
            ecn: self.ecn.or(d.ecn),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        check_opt("a", self.a, 0.0, 1.0)?;
        check_opt("b", self.b, 0.0, 1.0)?;
        check_opt("k_pi", self.k_pi, 0.0, 1.0)?;
        check_opt("z_rad_s", self.z_rad_s, 1e-6, 1e6)?;
        check_opt("sample_hz", self.sample_hz, 0.01, 1e6)?;
        check_opt("q_ref", self.q_ref, 0.0, 1e12)?;
        if let Some(limit) = self.limit {
            check_limit("limit", limit)?;
        }
        if self.design_given() && (self.a.is_some() || self.b.is_some()) {
            let r = PiConfig { a: None, b: None, ..self.clone() }.resolved();
            let agree = |x: Option<f64>, y: Option<f64>| match (x, y) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * y.abs(),
                _ => true,
            };
            if !agree(self.a, r.a) || !agree(self.b, r.b) {
                return Err("a, b: give either a/b or k_pi/z_rad_s, or values that agree by the bilinear map".into());
            }
        }
        Ok(())
    }

    pub fn build(&self, rng: Rng) -> Pi {
        let r = self.resolved();
        let f_s = r.sample_hz.unwrap_or(160.0);
        Pi {
            a: r.a.unwrap_or(0.0),
            b: r.b.unwrap_or(0.0),
            q_ref: r.q_ref.unwrap_or(0.0),
            unit: r.queue_unit.unwrap_or_default(),
            ecn: r.ecn.unwrap_or(false),
            period: (NS_PER_SEC as f64 / f_s).round() as Nanos,
            rng,
            prob: 0.0,
            q_old: 0.0,
        }
    }
}

/// One PI instance.
#[derive(Clone, Debug)]
pub struct Pi {
    a: f64,
    b: f64,
    q_ref: f64,
    unit: QueueUnit,
    ecn: bool,
    period: Nanos,
    rng: Rng,
    prob: f64,
    q_old: f64,
}

impl Pi {
    /// `p[k] = a·(q − q_ref) − b·(q_old − q_ref) + p[k−1]`, clamped (note the minus: spec §9.15).
    pub fn step(&mut self, q: f64) {
        self.prob = (self.a * (q - self.q_ref) - self.b * (self.q_old - self.q_ref) + self.prob).clamp(0.0, 1.0);
        self.q_old = q;
    }

    pub fn prob(&self) -> f64 {
        self.prob
    }
}

impl Aqm for Pi {
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Pkt, _q: &QueueView) -> Verdict {
        random_verdict(&mut self.rng, self.prob, self.ecn, pkt)
    }

    fn update_interval(&self) -> Option<Nanos> {
        Some(self.period)
    }

    fn on_update(&mut self, _now: Nanos, q: &QueueView) {
        self.step(self.unit.of(q.backlog));
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["prob", "q_old"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.prob, self.q_old]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bilinear_map_reproduces_the_papers_a_and_b() {
        // spec §7.3: K_PI 9.6426e-6, z 0.53, f_s 160 → a = K(1/z + T/2), b = K(1/z − T/2).
        let (a, b) = bilinear_gains(9.6426e-6, 0.53, 160.0);
        let inv_z = 1.0 / 0.53;
        assert_eq!(a, 9.6426e-6 * (inv_z + 0.003125));
        assert_eq!(b, 9.6426e-6 * (inv_z - 0.003125));
        assert!((a - 1.82237e-5).abs() < 5e-10 && (b - 1.81635e-5).abs() < 5e-10, "{a} {b}");
        // Printed to four digits in INFOCOM'01 §VI.
        assert_eq!(((a * 1e8).round(), (b * 1e8).round()), (1822.0, 1816.0));
        // a − b = K·T exactly as the map says.
        assert!((a - b - 9.6426e-6 / 160.0).abs() < 1e-20);
    }

    #[test]
    fn law_hand_worked() {
        let mut pi = PiConfig { profile: PiProfile::Ns2, ..Default::default() }.build(Rng::from_seed(1));
        assert_eq!(pi.period, 5_882_353); // 1/170 s rounded to ns
        // q = 150, q_old = 0, q_ref 50: p = 1.822e-5·100 − 1.816e-5·(−50) = 2.730e-3.
        pi.step(150.0);
        assert!((pi.prob() - (1.822e-5 * 100.0 + 1.816e-5 * 50.0)).abs() < 1e-18);
        // Same queue again: + (a − b)·100 = 6e-8·100 = 6e-6 (the integral action).
        let before = pi.prob();
        pi.step(150.0);
        assert!((pi.prob() - before - 6e-6).abs() < 1e-16);
        // An empty queue: first −50a − 100b, then −(a − b)·50 = −3e-6 per sample until clamped at 0.
        let before = pi.prob();
        pi.step(0.0);
        assert!((pi.prob() - (before - 50.0 * 1.822e-5 - 100.0 * 1.816e-5)).abs() < 1e-16);
        for _ in 0..3 {
            pi.step(0.0);
        }
        assert_eq!(pi.prob(), 0.0);
        pi.step(1e9);
        assert_eq!(pi.prob(), 1.0);
    }

    #[test]
    fn resolution_and_validation() {
        let r = PiConfig::default().resolved();
        let (a, b) = bilinear_gains(9.6426e-6, 0.53, 160.0);
        assert_eq!((r.a, r.b, r.q_ref, r.limit), (Some(a), Some(b), Some(200.0), Some(QueueLimit::Packets(800))));
        assert_eq!(r.validate(), Ok(()));
        // A design override on the ns2 profile replaces its a, b.
        let d = PiConfig { profile: PiProfile::Ns2, k_pi: Some(1e-5), z_rad_s: Some(1.0), ..Default::default() }.resolved();
        assert_eq!((d.a, d.b), (Some(1e-5 * (1.0 + 0.5 / 170.0)), Some(1e-5 * (1.0 - 0.5 / 170.0))));
        // A lone `a` on the paper profile keeps the designed `b`.
        let lone = PiConfig { a: Some(2e-5), ..Default::default() }.resolved();
        assert_eq!((lone.a, lone.b, lone.k_pi), (Some(2e-5), Some(b), None));
        let clash = PiConfig { a: Some(0.1), k_pi: Some(1e-5), ..Default::default() };
        assert!(clash.validate().unwrap_err().starts_with("a, b"));
        assert!(PiConfig { sample_hz: Some(0.0), ..Default::default() }.validate().unwrap_err().starts_with("sample_hz"));
    }
}
