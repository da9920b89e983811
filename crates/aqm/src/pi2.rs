//! PI²: a plain PI controller on the queueing delay drives a pseudo-probability p′; Classic
//! traffic is dropped (or marked) with probability p′² (De Schepper et al., CoNEXT 2016;
//! spec §4.1, ppv-pi2-fluid-tcp.md §2.1–2.3).
//!
//! Every T_update: `p′ ← clamp(p′ + α·(τ − τ_ref) + β·(τ − τ_old), 0, 1)`. Squaring makes the
//! loop gain independent of the operating point for Reno-like traffic, so none of PIE's
//! heuristics remain: no auto-tune table, no burst allowance, no low-delay bypass, no 2 % cap,
//! no 250 ms boost. Kept, as in both the authors' sch_pi2 and the ns-3 port: no early drop while
//! the queue holds at most two packets, the ×0.98 decay after two zero delay samples, and the
//! reset of the departure-rate estimate once the queue is quiet.
//!
//! Profiles (both: target 20 ms, T_update 30 ms, departure-rate delay over 10 KB cycles with
//! EWMA 1/2, 200 KB buffer, as in WNS3'17 Table 3):
//! - `paper`: α = 0.125 Hz, β = 1.25 Hz as printed in WNS3'17;
//! - `final_code`: α = 0.3125 Hz, β = 3.125 Hz, the ns-3 port's last commit (= sch_pi2's
//!   10/16 and 100/16 Hz on the scalable probability p′·k with k = 2).
//!
//! The squared decision is one draw against p′² (as the ns-3 port; two independent draws
//! against p′, as sch_pi2 does, have the same distribution).

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::pie::{Averaging, CycleRule, DelayMeasure, RateEstimator};
use crate::queue::{Aqm, QueueView, Verdict};
use crate::rng::Rng;
use crate::schema::{choice_enum, departs, Finish, Range};
use crate::signal::random_verdict;
use crate::time::{to_secs, Nanos, NS_PER_MS};

choice_enum! {
    /// Which PI² gains a run uses.
    pub profile enum Pi2Profile = Paper {
        /// α, β as printed in WNS3'17.
        Paper = "paper",
        /// The ns-3 port's last commit.
        FinalCode = "final_code",
    }
}

crate::params! {
    /// PI²: a plain PI controller on the delay drives p′; Classic traffic is dropped with p′².
    config Pi2Config => Pi2Params, profile Pi2Profile,
    doc "PI²: every T_update p′ += alpha·(delay − target) + beta·(delay − previous delay) with no auto-tuning; arrivals are dropped (or marked) with probability p′².",
    source "CoNEXT 2016 (De Schepper et al.) / WNS3 2017 ns-3 PI² / sch_pi2";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Bytes(200_000));
        /// Reference queueing delay.
        target: Nanos [Duration, None, Range::closed(1e3, 10e9)] = (20 * NS_PER_MS);
        /// Update period.
        tupdate: Nanos [Duration, None, Range::closed(1e3, 10e9)] = (30 * NS_PER_MS);
        /// Integral gain.
        alpha: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = { Paper: 0.125, FinalCode: 0.3125 };
        /// Proportional gain.
        beta: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = { Paper: 1.25, FinalCode: 3.125 };
        /// How the queueing delay is measured.
        delay: DelayMeasure [Choice, None, Range::ANY] = (DelayMeasure::RateEstimator);
        /// Bytes per departure-rate measurement cycle.
        dq_threshold: u32 [Bytes, None, Range::closed(1.0, 1e8)] = (10_000);
        /// EWMA weight of a new departure-rate sample.
        rate_ewma: f64 [Float, None, Range::above(0.0, 1.0)] = (0.5);
        /// p′ ×0.98 after two zero delay samples.
        decay: bool [Bool, None, Range::ANY] = (true);
        /// Scale p′² by size / mean_pkt_size, and count the 2-packet bypass in bytes.
        byte_mode: bool [Bool, None, Range::ANY] = (false);
        /// Mean packet size (byte mode).
        mean_pkt_size: u32 [Bytes, None, Range::closed(1.0, 65_535.0)] = (1000);
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool [Bool, None, Range::ANY] = (false);
    }
}

impl Finish<Pi2Config> for Pi2Params {
    /// A parameter this configuration never reads is refused unless at its default (a resolved
    /// record holds every field).
    fn finish(&mut self, given: &Pi2Config) -> Result<(), String> {
        let d = Pi2Config::defaults(self.profile);
        // `on_dequeue` feeds the estimator only in rate mode; `on_update` reads it only then.
        if self.delay == DelayMeasure::Timestamps {
            if departs(&given.dq_threshold, &d.dq_threshold) {
                return Err("dq_threshold: applies only with delay = \"rate_estimator\" (it sizes the departure-rate cycles; with timestamps the delay is measured per packet)".into());
            }
            if departs(&given.rate_ewma, &d.rate_ewma) {
                return Err("rate_ewma: applies only with delay = \"rate_estimator\" (it averages the departure rate; with timestamps the delay is measured per packet)".into());
            }
        }
        if !self.byte_mode && departs(&given.mean_pkt_size, &d.mean_pkt_size) {
            return Err("mean_pkt_size: applies only with byte_mode = true (without it the 2-packet bypass counts packets and p′² is not scaled by size)".into());
        }
        Ok(())
    }
}

/// PI²'s control law, unclamped: `p′ + α·(τ − τ_ref) + β·(τ − τ_old)`, delays in seconds
/// (shared with the Classic controller of [`crate::dualpi2`]).
pub fn pi_law(p_prime: f64, alpha: f64, beta: f64, target_s: f64, qdelay_s: f64, qdelay_old_s: f64) -> f64 {
    p_prime + alpha * (qdelay_s - target_s) + beta * (qdelay_s - qdelay_old_s)
}

impl Pi2Params {
    pub fn build(&self, rng: Rng) -> Pi2 {
        Pi2 {
            alpha: self.alpha,
            beta: self.beta,
            target: self.target,
            tupdate: self.tupdate,
            delay: self.delay,
            decay: self.decay,
            byte_mode: self.byte_mode,
            mean_pkt_size: self.mean_pkt_size,
            ecn: self.ecn,
            est: RateEstimator::new(Averaging::Rate(self.rate_ewma), self.dq_threshold, CycleRule::Linux),
            rng,
            p_prime: 0.0,
            qdelay: 0,
            qdelay_old: 0,
        }
    }
}

/// One PI² instance.
#[derive(Clone, Debug)]
pub struct Pi2 {
    alpha: f64,
    beta: f64,
    target: Nanos,
    tupdate: Nanos,
    delay: DelayMeasure,
    decay: bool,
    byte_mode: bool,
    mean_pkt_size: u32,
    ecn: bool,
    est: RateEstimator,
    rng: Rng,
    p_prime: f64,
    qdelay: Nanos,
    qdelay_old: Nanos,
}

impl Pi2 {
    /// The controlled pseudo-probability p′.
    pub fn p_prime(&self) -> f64 {
        self.p_prime
    }

    /// The Classic drop/mark probability p′².
    pub fn prob(&self) -> f64 {
        self.p_prime * self.p_prime
    }

    /// The PI law on delays in seconds.
    pub fn step(&mut self, qdelay_s: f64, qdelay_old_s: f64) {
        let mut p = pi_law(self.p_prime, self.alpha, self.beta, to_secs(self.target), qdelay_s, qdelay_old_s);
        if self.decay && qdelay_s == 0.0 && qdelay_old_s == 0.0 {
            p *= 0.98;
        }
        self.p_prime = p.clamp(0.0, 1.0);
    }
}

impl Aqm for Pi2 {
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        let b = q.backlog;
        let mean = self.mean_pkt_size as u64;
        let few = if self.byte_mode { b.bytes <= 2 * mean } else { b.packets <= 2 };
        if few {
            return Verdict::Accept;
        }
        let scale = if self.byte_mode { pkt.len as f64 / mean as f64 } else { 1.0 };
        let p = self.prob() * scale;
        random_verdict(&mut self.rng, p, self.ecn, pkt)
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        match self.delay {
            DelayMeasure::Timestamps => self.qdelay = if q.backlog.packets == 0 { 0 } else { now - pkt.enqueued_at },
            DelayMeasure::RateEstimator => {
                self.est.on_dequeue(now, pkt.len, q.backlog.bytes);
            }
        }
        Verdict::Accept
    }

    fn update_interval(&self) -> Option<Nanos> {
        Some(self.tupdate)
    }

    fn on_update(&mut self, _now: Nanos, q: &QueueView) {
        if self.delay == DelayMeasure::RateEstimator {
            self.qdelay_old = self.qdelay;
            self.qdelay = self.est.delay(q.backlog.bytes);
        }
        self.step(to_secs(self.qdelay), to_secs(self.qdelay_old));
        let quiet = 2 * self.qdelay < self.target && 2 * self.qdelay_old < self.target && self.p_prime == 0.0;
        if quiet && self.est.has_estimate() {
            // The ns-3 port restarts the rate estimate once the queue is quiet.
            self.est.reset();
        }
        if self.delay == DelayMeasure::Timestamps {
            self.qdelay_old = self.qdelay;
        }
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["p_prime", "prob", "qdelay_s", "avg_dq_rate_Bps"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.p_prime, self.prob(), to_secs(self.qdelay), self.est.rate_bytes_per_s()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QdiscConfig;
    use crate::packet::Ecn;
    use crate::queue::{Backlog, LinkInfo};
    use crate::schema::Declared;
    use crate::testkit::{probe, run, Traffic};

    fn view(packets: u32) -> QueueView {
        view_of(packets as u64 * 1000, packets)
    }

    fn view_of(bytes: u64, packets: u32) -> QueueView {
        QueueView { backlog: Backlog { bytes, packets }, limit: QueueLimit::Packets(1000) }
    }

    /// The share of `n` arrivals of `pkt` dropped early in front of the queue `v`.
    fn drop_freq(a: &mut Pi2, pkt: &Pkt, v: &QueueView, n: u32) -> f64 {
        (0..n).filter(|_| a.on_enqueue(0, pkt, v) == Verdict::Drop).count() as f64 / n as f64
    }

    fn byte_mode() -> Pi2 {
        Pi2Config { byte_mode: Some(true), ..Default::default() }.resolve().unwrap().build(Rng::from_seed(9))
    }

    #[test]
    fn plain_pi_law_with_both_gain_sets() {
        // τ = 40 ms, τ_old = 30 ms, ref 20 ms: Δp′ = α·0.02 + β·0.01, no auto-tune at any p′.
        for (profile, want) in [(Pi2Profile::Paper, 0.125 * 0.02 + 1.25 * 0.01), (Pi2Profile::FinalCode, 0.3125 * 0.02 + 3.125 * 0.01)] {
            let mut a = Pi2Config { profile: Some(profile), ..Default::default() }.resolve().unwrap().build(Rng::from_seed(1));
            a.step(0.040, 0.030);
            assert!((a.p_prime() - want).abs() < 1e-16, "{profile:?}");
            // The same step at p′ = 0.5 (PIE would scale it by its table; PI² does not).
            a.p_prime = 0.5;
            a.step(0.040, 0.030);
            assert!((a.p_prime() - (0.5 + want)).abs() < 1e-15);
        }
    }

    #[test]
    fn squaring_decay_and_clamp() {
        let mut a = Pi2Config::default().resolve().unwrap().build(Rng::from_seed(1));
        a.p_prime = 0.3;
        assert_eq!(a.prob(), 0.3 * 0.3);
        // Two zero delays: (0.3 − 0.125·0.02)·0.98.
        a.step(0.0, 0.0);
        assert!((a.p_prime() - (0.3 - 0.0025) * 0.98).abs() < 1e-16);
        a.step(5.0, 0.0);
        assert_eq!(a.p_prime(), 1.0);
    }

    #[test]
    fn drop_frequency_is_p_prime_squared() {
        let mut a = Pi2Config::default().resolve().unwrap().build(Rng::from_seed(9));
        a.p_prime = 0.3;
        let pkt = Pkt::new(1, 1000, 0);
        // Binomial(2e5, 0.09): sd = sqrt(n·p·(1−p))/n = 6.4e-4; 5 sigma band.
        let freq = drop_freq(&mut a, &pkt, &view(10), 200_000);
        assert!((freq - 0.09).abs() < 0.0032, "{freq}");
        // At most two packets queued: never dropped.
        assert!((0..1000).all(|_| a.on_enqueue(0, &pkt, &view(2)) == Verdict::Accept));
    }

    #[test]
    fn decay_needs_both_delay_samples_at_zero() {
        // ns-3 PI² / sch_pi2: ×0.98 only when the current and the previous delay are both 0;
        // one zero sample is the plain law. p′ = 0.3, paper gains, ref 20 ms.
        for (now, old, want) in [(0.0, 0.010, 0.3 - 0.125 * 0.02 - 1.25 * 0.01), (0.010, 0.0, 0.3 - 0.125 * 0.01 + 1.25 * 0.01)] {
            let mut a = Pi2Config::default().resolve().unwrap().build(Rng::from_seed(1));
            a.p_prime = 0.3;
            a.step(now, old);
            assert!((a.p_prime() - want).abs() < 1e-15, "τ {now}, τ_old {old}: {}", a.p_prime());
        }
    }

    #[test]
    fn byte_mode_bypass_counts_two_mean_packets_of_bytes() {
        // ns-3 PI² (as ns-3 PIE's DropEarly) in byte mode: no early drop while the queue holds
        // at most 2·mean_pkt_size bytes, however many packets. At p′ = 1 (and a packet of the
        // mean size) every arrival past that is dropped.
        let mut a = byte_mode();
        a.p_prime = 1.0;
        let pkt = Pkt::new(1, 1000, 0);
        assert!((0..100).all(|_| a.on_enqueue(0, &pkt, &view_of(2000, 40)) == Verdict::Accept));
        assert!((0..100).all(|_| a.on_enqueue(0, &pkt, &view_of(2001, 1)) == Verdict::Drop));
    }

    #[test]
    fn byte_mode_scales_p_by_size_over_the_mean() {
        // ns-3 PI² byte mode: p = p′²·size/mean_pkt_size. p′ = 0.3, a 500-B packet, mean 1000 B:
        // p = 0.09·0.5 = 0.045. Binomial(2e4, 0.045): sd = sqrt(p(1−p)/n) = 1.47e-3; 5 sigma band.
        let mut a = byte_mode();
        a.p_prime = 0.3;
        let freq = drop_freq(&mut a, &Pkt::new(1, 500, 0), &view(10), 20_000);
        assert!((freq - 0.045).abs() < 0.0074, "{freq}");
    }

    #[test]
    fn timestamped_sojourn_drives_the_periodic_update() {
        // delay = "timestamps": the delay is the sojourn of the last departure (0 once the queue
        // is empty, as sch_pie's timestamp mode), read by the update every T_update = 30 ms and
        // kept as τ_old for the next. 10 packets at 2 ms, departures every 7 ms, paper gains:
        // - 30 ms: the last departure (28 ms) waited 26 ms; from p′ = 0, τ_old = 0:
        //   p′ = 0.125·(0.026 − 0.020) + 1.25·0.026 = 0.03325;
        // - 60 ms: the last departure (56 ms) waited 54 ms; τ_old = 26 ms:
        //   p′ = 0.03325 + 0.125·(0.054 − 0.020) + 1.25·(0.054 − 0.026) = 0.0725.
        for (until_ms, delivered, qdelay, p_prime) in [(30, 4, 0.026, 0.03325), (60, 8, 0.054, 0.0725)] {
            let cfg = Pi2Config { delay: Some(DelayMeasure::Timestamps), ..Default::default() };
            let mut q = QdiscConfig::Pi2(cfg).build(LinkInfo { rate_bps: 10_000_000, mtu: 1500 }, Rng::from_seed(1));
            let t = Traffic { start: 2 * NS_PER_MS, enq_every: 0, enq_count: 10, len: 1000, ecn: Ecn::NotEct, deq_every: 7 * NS_PER_MS, until: until_ms * NS_PER_MS };
            let n = run(&mut q, &t, |_, _, _| {});
            assert_eq!((n.delivered, n.early), (delivered, 0));
            assert!((probe(&q, "qdelay_s") - qdelay).abs() < 1e-15, "{until_ms} ms");
            assert!((probe(&q, "p_prime") - p_prime).abs() < 1e-15, "{until_ms} ms: {}", probe(&q, "p_prime"));
        }
    }

    #[test]
    fn rate_estimate_restarts_only_when_both_delays_are_under_half_the_target_at_zero_p() {
        // The ns-3 port (as ns-3 PIE's CalculateP) drops the departure-rate estimate when, after
        // the update, τ < τ_ref/2, τ_old < τ_ref/2 and p′ = 0. Five 2000-B departures 2.5 ms
        // apart above dq_threshold complete one 10 000-B cycle in 10 ms (the departure opening
        // the cycle counts, as in sch_pie): 1e6 B/s, so B bytes queued read as τ = B µs. In
        // every case p′ stays 0 (α·(τ − 20 ms) + β·(τ − τ_old) ≤ 0).
        for (old_ns, backlog, kept) in [
            // One of the two at exactly τ_ref/2 = 10 ms, which is not under it.
            (9_999_000, 10_000, true),
            (10_000_000, 9_999, true),
            (9_999_000, 9_999, false),
        ] {
            let mut a = Pi2Config::default().resolve().unwrap().build(Rng::from_seed(1));
            for k in 0..5 {
                a.on_dequeue(k * 2_500_000, &Pkt::new(k as u32, 2000, 0), &view_of(20_000, 10));
            }
            assert_eq!(a.est.rate_bytes_per_s(), 1e6);
            a.qdelay = old_ns;
            a.on_update(0, &view_of(backlog, 10));
            assert_eq!((a.qdelay, a.p_prime()), (backlog * 1000, 0.0));
            assert_eq!(a.est.rate_bytes_per_s(), if kept { 1e6 } else { 0.0 }, "τ_old {old_ns} ns, backlog {backlog} B");
        }
    }
}
