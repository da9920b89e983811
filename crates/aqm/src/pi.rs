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

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::rng::Rng;
use crate::schema::{choice_enum, Finish, Range};
use crate::signal::{random_verdict, QueueUnit};
use crate::time::{Nanos, NS_PER_SEC};

choice_enum! {
    /// Which published PI a run follows.
    pub profile enum PiProfile = Paper {
        /// INFOCOM'01 Example 2 and §VI: the continuous design mapped to 160 Hz.
        Paper = "paper",
        /// ns-2 ns-default.tcl `Queue/PI`.
        Ns2 = "ns2",
    }
}

/// INFOCOM'01 Example 2: K_PI and the zero z (rad/s).
const PAPER_K_PI: f64 = 9.6426e-6;
const PAPER_Z: f64 = 0.53;

crate::params! {
    /// PI on the queue length (Hollot, Misra, Towsley & Gong, INFOCOM 2001).
    config PiConfig => PiParams, profile PiProfile,
    doc "PI: every 1/f_s, p += a·(q − q_ref) − b·(q_old − q_ref); give the digital gains a, b or the continuous design k_pi, z (mapped by the bilinear transform at sample_freq).",
    source "INFOCOM 2001 (Hollot et al.) / ns-2 pi.cc";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = { Paper: QueueLimit::Packets(800), Ns2: QueueLimit::Packets(50) };
        /// Digital gain on the current error; with a design (k_pi, z) in force it is derived from it.
        a: f64 [Float, None, Range::closed(0.0, 1.0)] = { Paper: bilinear_gains(PAPER_K_PI, PAPER_Z, 160.0).0, Ns2: 1.822e-5 };
        /// Digital gain on the previous error; derived like `a`.
        b: f64 [Float, None, Range::closed(0.0, 1.0)] = { Paper: bilinear_gains(PAPER_K_PI, PAPER_Z, 160.0).1, Ns2: 1.816e-5 };
        /// Continuous PI gain K_PI (probability per unit of queue per second); unset: a, b given directly.
        k_pi: Option<f64> [Float, None, Range::closed(0.0, 1.0)] = { Paper: Some(PAPER_K_PI), Ns2: None };
        /// Zero of the continuous controller; unset: a, b given directly.
        z: Option<f64> [Float, Some("rad/s"), Range::closed(1e-6, 1e6)] = { Paper: Some(PAPER_Z), Ns2: None };
        /// Sampling frequency f_s.
        sample_freq: f64 [Float, Some("Hz"), Range::closed(0.01, 1e6)] = { Paper: 160.0, Ns2: 170.0 };
        /// Reference queue, in `queue_unit`.
        q_ref: f64 [Float, None, Range::closed(0.0, 1e12)] = { Paper: 200.0, Ns2: 50.0 };
        /// Whether the queue is measured in packets or bytes.
        queue_unit: QueueUnit [Choice, None, Range::ANY] = (QueueUnit::Packets);
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool [Bool, None, Range::ANY] = (false);
    }
}

/// The digital gains of a continuous PI design by the bilinear (Tustin) map (spec §7.3).
pub const fn bilinear_gains(k_pi: f64, z: f64, f_s: f64) -> (f64, f64) {
    let half_t = 0.5 / f_s;
    (k_pi * (1.0 / z + half_t), k_pi * (1.0 / z - half_t))
}

impl Finish<PiConfig> for PiParams {
    /// Gains given as a, b replace the profile's design; a design given as k_pi, z replaces the
    /// profile's a, b; both given must agree by the bilinear map.
    fn finish(&mut self, given: &PiConfig) -> Result<(), String> {
        let gains_given = given.a.is_some() || given.b.is_some();
        let design_given = given.k_pi.is_some() || given.z.is_some();
        if gains_given && !design_given {
            // A lone `a` keeps the profile's `b` (as the profile's design gives it at this f_s).
            if let (Some(k), Some(z)) = (self.k_pi, self.z) {
                let (a, b) = bilinear_gains(k, z, self.sample_freq);
                self.a = given.a.unwrap_or(a);
                self.b = given.b.unwrap_or(b);
            }
            self.k_pi = None;
            self.z = None;
            return Ok(());
        }
        let (Some(k), Some(z)) = (self.k_pi, self.z) else {
            return if design_given { Err("k_pi, z: a design needs both (or give a and b)".into()) } else { Ok(()) };
        };
        let (a, b) = bilinear_gains(k, z, self.sample_freq);
        let agree = |x: Option<f64>, y: f64| x.is_none_or(|x| (x - y).abs() <= 1e-12 * y.abs());
        if !agree(given.a, a) || !agree(given.b, b) {
            return Err("a, b: give either a/b or k_pi/z, or values that agree by the bilinear map".into());
        }
        (self.a, self.b) = (a, b);
        Ok(())
    }
}

impl PiParams {
    pub fn build(&self, rng: Rng) -> Pi {
        Pi {
            a: self.a,
            b: self.b,
            q_ref: self.q_ref,
            unit: self.queue_unit,
            ecn: self.ecn,
            period: (NS_PER_SEC as f64 / self.sample_freq).round() as Nanos,
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
    use crate::config::QdiscConfig;
    use crate::packet::Ecn;
    use crate::queue::LinkInfo;
    use crate::schema::Declared;
    use crate::testkit::{probe, run, Traffic};

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
        let mut pi = PiConfig { profile: Some(PiProfile::Ns2), ..Default::default() }.resolve().unwrap().build(Rng::from_seed(1));
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
        let r = PiConfig::default().resolve().unwrap();
        let (a, b) = bilinear_gains(9.6426e-6, 0.53, 160.0);
        assert_eq!((r.a, r.b, r.q_ref, r.limit, r.k_pi), (a, b, 200.0, QueueLimit::Packets(800), Some(9.6426e-6)));
        // A design override on the ns2 profile replaces its a, b.
        let d = PiConfig { profile: Some(PiProfile::Ns2), k_pi: Some(1e-5), z: Some(1.0), ..Default::default() }.resolve().unwrap();
        assert_eq!((d.a, d.b), (1e-5 * (1.0 + 0.5 / 170.0), 1e-5 * (1.0 - 0.5 / 170.0)));
        // A lone `a` on the paper profile keeps the designed `b`, and drops the design.
        let lone = PiConfig { a: Some(2e-5), ..Default::default() }.resolve().unwrap();
        assert_eq!((lone.a, lone.b, lone.k_pi, lone.z), (2e-5, b, None, None));
        let clash = PiConfig { a: Some(0.1), k_pi: Some(1e-5), ..Default::default() };
        assert!(clash.resolve().unwrap_err().starts_with("a, b"));
        let half = PiConfig { profile: Some(PiProfile::Ns2), k_pi: Some(1e-5), ..Default::default() };
        assert!(half.resolve().unwrap_err().starts_with("k_pi, z"));
        assert!(PiConfig { sample_freq: Some(0.0), ..Default::default() }.resolve().unwrap_err().starts_with("sample_freq: 0 Hz is outside"));
    }

    #[test]
    fn gains_given_with_a_design_must_match_its_bilinear_map() {
        // spec §7.3: a and b given beside k_pi, z are accepted only as the map's own values; an
        // `a` off in its seventh digit is another controller and is refused.
        let (a, _) = bilinear_gains(9.6426e-6, 0.53, 160.0);
        let given = |a| PiConfig { a: Some(a), k_pi: Some(9.6426e-6), z: Some(0.53), ..Default::default() }.resolve();
        assert_eq!(given(a).map(|r| r.a), Ok(a));
        assert!(given(a * (1.0 + 1e-6)).unwrap_err().starts_with("a, b"));
    }

    #[test]
    fn the_law_runs_every_sample_period_on_the_held_queue() {
        // 300 packets at t = 0 and no departures: the paper's profile samples q = 300 every
        // 1/160 s, 160 times up to 1 s. INFOCOM'01 eq. 9 from p = 0, q_old = 0, q_ref = 200:
        // p[1] = 100a + 200b, then + (a − b)·100 at each of the 159 later samples.
        let mut q = QdiscConfig::Pi(PiConfig::default()).build(LinkInfo { rate_bps: 10_000_000, mtu: 1500 }, Rng::from_seed(1));
        let t = Traffic { start: 0, enq_every: 0, enq_count: 300, len: 1000, ecn: Ecn::NotEct, deq_every: 10 * NS_PER_SEC, until: NS_PER_SEC };
        let n = run(&mut q, &t, |_, _, _| {});
        assert_eq!((n.early, n.overflow), (0, 0), "p is 0 until the first sample");
        let (a, b) = bilinear_gains(9.6426e-6, 0.53, 160.0);
        let want = 100.0 * a + 200.0 * b + 159.0 * 100.0 * (a - b);
        assert!((probe(&q, "prob") - want).abs() < 1e-15, "{} vs {want}", probe(&q, "prob"));
        assert_eq!(probe(&q, "q_old"), 300.0);
    }
}
