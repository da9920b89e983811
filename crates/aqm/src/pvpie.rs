//! PVPIE: Packet Value-aware PIE (Laki, Gombos, Nádas, Turányi, "Take your own share of the
//! PIE", ANRW'17).
//!
//! Two stages (paper §3, Fig. 2):
//! 1. A PI controller on the queueing delay gives a drop probability every T, eq. (1):
//!    `p(t) = p(t−T) + α(D_q(t) − τ) + β(D_q(t) − D_q(t−T))`, clamped to [0, 1], without
//!    PIE's auto-tuning ("has not been used in this paper").
//! 2. The Congestion Threshold Value, eq. (2): `V(t) = eCDF⁻¹_[t−γT, t](p(t))`, the p-quantile
//!    of the PV codes of the packets that *arrived* in the last γ periods; V = 0 (all pass)
//!    when fewer than 1/p packets arrived. Until the next update every arrival with a PV code
//!    below V is dropped, or CE-marked when ECN is on and the packet is ECN-capable. Queued
//!    packets are never dropped; service is FIFO.
//!
//! The eCDF is a sliding histogram over the 256 codes (spec §1.6 "recommended"): one histogram
//! per period in a ring of γ slots plus their running sum. An arrival costs one increment; an
//! update costs a scan and a subtraction of 256 bins; memory does not depend on the packet rate.
//! The quantile is the standard percent-point function `min{v : F̂(v) ≥ p}` over packet counts.
//!
//! Defaults and their sources: α = 0.125 Hz, β = 1.25 Hz, T = 32 ms (paper §4, "taken from
//! [10]"); τ = 40 ms (Table 1, all scenarios but 4, which use 20 ms); γ = 1 (Table 1; 10 in
//! 4b); limit 1000 packets (not given in the paper; the PIE profiles' default). The delay D_q
//! is the sojourn time of the last departure, 0 once the queue is empty (the paper says "the
//! actual queuing delay"; the timestamp method of RFC 8033 §4.3). Not applied, because the
//! paper's filter does not mention them: PIE's burst allowance and its no-drop guards.
//!
//! Probes: `prob` (p), `ctv` (the filter as a PV code), `qdelay_s` (D_q), `window_packets`
//! (arrivals counted in the window, which restarts its newest period at each update) and
//! `filtered` (arrivals dropped or marked by the filter so far).

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::ppv::PV_CODES;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::schema::{Finish, NoProfile, Range};
use crate::time::{to_secs, Nanos, NS_PER_MS};

crate::params! {
    /// PVPIE: a PIE controller turned into a Packet Value threshold.
    config PvPieConfig => PvPieParams, profile NoProfile,
    doc "PVPIE: a PI law on the queueing delay gives p every T; arrivals whose Packet Value code is below the p-quantile of the codes that arrived in the last gamma periods are dropped (or marked).",
    source "ANRW 2017 (Laki, Gombos, Nádas, Turányi) eqs. (1), (2)";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(1000));
        /// Delay target τ.
        target: Nanos [Duration, None, Range::closed(1e3, 10e9)] = (40 * NS_PER_MS);
        /// Update period T.
        tupdate: Nanos [Duration, None, Range::closed(1e3, 10e9)] = (32 * NS_PER_MS);
        /// Gain on the delay error.
        alpha: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = (0.125);
        /// Gain on the delay change.
        beta: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = (1.25);
        /// eCDF window in update periods.
        gamma: u32 [Int, Some("periods"), Range::closed(1.0, 10_000.0)] = (1);
        /// CE-mark ECN-capable packets below the threshold instead of dropping them.
        ecn: bool [Bool, None, Range::ANY] = (false);
    }
}

impl Finish<PvPieConfig> for PvPieParams {}

impl PvPieParams {
    pub fn build(&self) -> PvPie {
        PvPie {
            target_s: to_secs(self.target),
            tupdate: self.tupdate,
            alpha: self.alpha,
            beta: self.beta,
            ecn: self.ecn,
            window: SlidingHistogram::new(self.gamma as usize),
            prob: 0.0,
            ctv: 0,
            qdelay: 0,
            qdelay_old: 0,
            filtered: 0,
        }
    }
}

/// Counts of PV codes over the last `slots` periods: a ring of per-period histograms and
/// their running sum.
#[derive(Clone, Debug)]
pub struct SlidingHistogram {
    /// `slots` rows of 256 bins, row `current` filling now.
    ring: Vec<u32>,
    current: usize,
    slots: usize,
    total: Vec<u64>,
    count: u64,
}

impl SlidingHistogram {
    pub fn new(slots: usize) -> Self {
        SlidingHistogram { ring: vec![0; slots * PV_CODES], current: 0, slots, total: vec![0; PV_CODES], count: 0 }
    }

    /// One arrival with code `c` in the current period.
    #[inline]
    pub fn add(&mut self, c: u8) {
        self.ring[self.current * PV_CODES + c as usize] += 1;
        self.total[c as usize] += 1;
        self.count += 1;
    }

    /// Packets in the window.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The p-quantile `min{v : N(≤ v) ≥ p·n}` of the window, or 0 when `n·p < 1` (fewer than
    /// 1/p packets, PVPIE §3) or p = 0.
    pub fn quantile(&self, p: f64) -> u8 {
        let n = self.count as f64;
        if p <= 0.0 || n * p < 1.0 {
            return 0;
        }
        let need = p * n;
        let mut cum = 0u64;
        for (v, &k) in self.total.iter().enumerate() {
            cum += k;
            if cum as f64 >= need {
                return v as u8;
            }
        }
        (PV_CODES - 1) as u8
    }

    /// Ends the current period: the oldest period leaves the window and its row starts afresh.
    pub fn advance(&mut self) {
        self.current = (self.current + 1) % self.slots;
        let row = &mut self.ring[self.current * PV_CODES..(self.current + 1) * PV_CODES];
        for (t, k) in self.total.iter_mut().zip(row.iter_mut()) {
            *t -= *k as u64;
            self.count -= *k as u64;
            *k = 0;
        }
    }
}

/// One PVPIE instance.
#[derive(Clone, Debug)]
pub struct PvPie {
    target_s: f64,
    tupdate: Nanos,
    alpha: f64,
    beta: f64,
    ecn: bool,
    window: SlidingHistogram,
    prob: f64,
    /// The filter: arrivals with a code below it are dropped or marked.
    ctv: u8,
    qdelay: Nanos,
    qdelay_old: Nanos,
    /// Arrivals dropped or marked by the filter.
    filtered: u64,
}

impl PvPie {
    pub fn prob(&self) -> f64 {
        self.prob
    }

    pub fn ctv(&self) -> u8 {
        self.ctv
    }
}

impl Aqm for PvPie {
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Pkt, _q: &QueueView) -> Verdict {
        // Every arrival counts toward the PV distribution, whatever becomes of it (§3: "the
        // Packet Value distribution of incoming packets").
        self.window.add(pkt.pv);
        if pkt.pv >= self.ctv {
            return Verdict::Accept;
        }
        self.filtered += 1;
        // A mark asked of a packet that cannot carry CE becomes a drop (RFC 3168 §5).
        if self.ecn {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }

    /// The filter acts at arrival only, so the queue empties only by departures, and the one
    /// that empties it sets the delay to 0.
    fn on_dequeue(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        self.qdelay = if q.backlog.packets == 0 { 0 } else { now - pkt.enqueued_at };
        Verdict::Accept
    }

    fn update_interval(&self) -> Option<Nanos> {
        Some(self.tupdate)
    }

    fn on_update(&mut self, _now: Nanos, _q: &QueueView) {
        let (d, d_old) = (to_secs(self.qdelay), to_secs(self.qdelay_old));
        // Eq. (1).
        self.prob = (self.prob + self.alpha * (d - self.target_s) + self.beta * (d - d_old)).clamp(0.0, 1.0);
        self.qdelay_old = self.qdelay;
        // Eq. (2) over [t − γT, t], then the window slides by one period.
        self.ctv = self.window.quantile(self.prob);
        self.window.advance();
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["prob", "ctv", "qdelay_s", "window_packets", "filtered"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.prob, self.ctv as f64, to_secs(self.qdelay), self.window.count() as f64, self.filtered as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::{ActionKind, DropReason, QueueDisc, SingleQueue};
    use crate::schema::Declared;
    use crate::time::NS_PER_MS;

    fn pkt(id: u32, code: u8) -> Pkt {
        Pkt { pv: code, ..Pkt::new(id, 1000, 0) }
    }

    #[test]
    fn defaults_are_the_papers() {
        let r = PvPieConfig::default().resolve().unwrap();
        assert_eq!((r.target, r.tupdate, r.alpha, r.beta, r.gamma, r.ecn), (40 * NS_PER_MS, 32 * NS_PER_MS, 0.125, 1.25, 1, false));
        assert!(PvPieConfig { gamma: Some(0), ..Default::default() }.resolve().unwrap_err().starts_with("gamma"));
    }

    #[test]
    fn quantile_of_a_tiny_window() {
        // Ten arrivals: codes 10 ×2, 20 ×3, 30 ×4, 40 ×1. Cumulative counts 2, 5, 9, 10.
        let mut h = SlidingHistogram::new(2);
        for (c, k) in [(10, 2), (20, 3), (30, 4), (40, 1)] {
            (0..k).for_each(|_| h.add(c));
        }
        // p = 0.2: need 2 → 10 (N(≤10) = 2). p = 0.25: need 2.5 → 20. p = 0.5: need 5 → 20.
        // p = 0.51: need 5.1 → 30. p = 0.9: need 9 → 30. p = 0.95: need 9.5 → 40. p = 1 → 40.
        for (p, want) in [(0.2, 10), (0.25, 20), (0.5, 20), (0.51, 30), (0.9, 30), (0.95, 40), (1.0, 40)] {
            assert_eq!(h.quantile(p), want, "p = {p}");
        }
        // Fewer than 1/p packets: 10 packets resolve p = 0.1 (n·p = 1) but not p = 0.09.
        assert_eq!(h.quantile(0.1), 10);
        assert_eq!(h.quantile(0.09), 0);
        assert_eq!(h.quantile(0.0), 0);
        // The window slides: after one period the ten are still in (γ = 2), after two gone.
        h.advance();
        h.add(50);
        assert_eq!((h.count(), h.quantile(1.0)), (11, 50));
        h.advance();
        assert_eq!((h.count(), h.quantile(1.0)), (1, 50));
        h.advance();
        assert_eq!((h.count(), h.quantile(1.0)), (0, 0));
    }

    fn queue(gamma: u32, ecn: bool) -> SingleQueue<PvPie> {
        let p = PvPieConfig { gamma: Some(gamma), ecn: Some(ecn), ..Default::default() }.resolve().unwrap();
        SingleQueue::new(p.build(), p.limit)
    }

    /// A γ = 1 queue brought to a threshold of code 4 by hand-worked numbers: 20 arrivals at
    /// t = 0 with codes 0..20 (no filter yet), two departures at 160 ms (D_q = 160 ms, 18
    /// left), then the update at T = 32 ms: p = 0 + 0.125·(0.16 − 0.04) + 1.25·(0.16 − 0) =
    /// 0.215; 20 packets ≥ 1/0.215, need 0.215·20 = 4.3 → the 5th smallest code, 4.
    fn at_threshold_4(ecn: bool) -> SingleQueue<PvPie> {
        let mut q = queue(1, ecn);
        let mut out = Vec::new();
        for i in 0..20u32 {
            assert!(q.enqueue(0, pkt(i, i as u8), &mut out));
        }
        assert_eq!(q.dequeue(160 * NS_PER_MS, &mut out).map(|p| p.id), Some(0));
        assert_eq!(q.dequeue(160 * NS_PER_MS, &mut out).map(|p| p.id), Some(1));
        assert!(out.is_empty());
        q.update(32 * NS_PER_MS);
        assert!((q.aqm.prob() - 0.215).abs() < 1e-12);
        assert_eq!(q.aqm.ctv(), 4);
        q
    }

    #[test]
    fn filter_drops_below_the_threshold_at_arrival_and_never_queued_packets() {
        let mut q = at_threshold_4(false);
        let mut out = Vec::new();
        let t = 32 * NS_PER_MS;
        // Arrivals below 4 are dropped at arrival; 4 and above are queued.
        assert!(!q.enqueue(t + 1, pkt(100, 3), &mut out));
        assert!(q.enqueue(t + 2, pkt(101, 4), &mut out));
        assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(100, ActionKind::Drop(DropReason::Early))]);
        // The queued packets with codes 2 and 3 (ids 2, 3) stay and leave in FIFO order.
        let rest: Vec<u32> = std::iter::from_fn(|| q.dequeue(t + 3, &mut out).map(|p| p.id)).collect();
        assert_eq!(rest[..3], [2, 3, 4]);
        assert_eq!(*rest.last().unwrap(), 101);
        assert_eq!(rest.len(), 19);
        assert_eq!(out.len(), 1);
        // Next update: the queue is empty (D = 0): p = 0.215 + 0.125·(−0.04) + 1.25·(−0.16)
        // = 0.01. The window [T, 2T] holds 2 arrivals < 1/0.01: the filter opens.
        q.update(2 * t);
        assert!((q.aqm.prob() - 0.01).abs() < 1e-12);
        assert_eq!(q.aqm.ctv(), 0);
        assert!(q.enqueue(2 * t + 1, pkt(102, 0), &mut out));
        let mut v = Vec::new();
        q.probe(&mut v);
        assert_eq!(q.probe_names(), vec!["prob", "ctv", "qdelay_s", "window_packets", "filtered"]);
        assert_eq!(v[1..], [0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn ecn_capable_packets_below_the_threshold_are_marked() {
        let mut q = at_threshold_4(true);
        let mut out = Vec::new();
        assert!(q.enqueue(33 * NS_PER_MS, Pkt { ecn: Ecn::Ect0, ..pkt(200, 1) }, &mut out));
        assert!(!q.enqueue(33 * NS_PER_MS, pkt(201, 1), &mut out));
        let kinds: Vec<_> = out.iter().map(|a| (a.pkt.id, a.kind)).collect();
        assert_eq!(kinds, vec![(200, ActionKind::Mark), (201, ActionKind::Drop(DropReason::Early))]);
    }

    #[test]
    fn the_law_runs_every_t_on_the_departing_packets_sojourn() {
        // PVPIE §3 runs eq. (1) every T (32 ms) on the queueing delay, measured as PIE's
        // timestamps do: the sojourn of the packet leaving (departure less arrival time), 0
        // once it leaves the queue empty.
        let mut q = queue(1, false);
        assert_eq!(q.next_update_at(), Some(32 * NS_PER_MS));
        let mut out = Vec::new();
        for i in 0..2 {
            q.enqueue(10 * NS_PER_MS, pkt(i, 50), &mut out);
        }
        q.dequeue(25 * NS_PER_MS, &mut out);
        assert_eq!(crate::testkit::probe(&q, "qdelay_s"), 0.015);
        q.update(32 * NS_PER_MS);
        assert_eq!(q.next_update_at(), Some(64 * NS_PER_MS));
        // p = 0.125·(0.015 − 0.04) + 1.25·0.015 = 0.015625.
        assert!((q.aqm.prob() - 0.015625).abs() < 1e-15);
        q.dequeue(40 * NS_PER_MS, &mut out);
        assert_eq!(crate::testkit::probe(&q, "qdelay_s"), 0.0);
    }

    #[test]
    fn window_of_gamma_periods() {
        // γ = 3: the threshold at the third update still sees the first period's arrivals.
        let mut q = queue(3, false);
        let mut out = Vec::new();
        let t = 32 * NS_PER_MS;
        for i in 0..10u32 {
            q.enqueue(0, pkt(i, 50), &mut out);
        }
        // A standing 1 s delay keeps p at 1 after the first update.
        q.dequeue(NS_PER_MS * 1000, &mut out);
        for k in 1..=3 {
            q.update(k * t);
            assert_eq!((q.aqm.prob(), q.aqm.ctv()), (1.0, 50), "update {k}");
        }
        q.update(4 * t);
        assert_eq!(q.aqm.ctv(), 0, "the 10 arrivals have left the window");
    }
}
