//! FQ-PIE with Linux `sch_fq_pie` semantics (spec §3.1): flow queueing ([`crate::fq`]) with a
//! full PIE instance per queue, the arriving packet dropped at the limit, the 2-MTU test on the
//! queue's own backlog, every queue's probability updated by one timer (with a `linux` PIE, at
//! most 2048 queues a run and the rest from the next jiffy on, as `fq_pie_timer` does), and
//! ECN marking while the queue's p ≤ `ecn_prob` %.
//!
//! Defaults: limit 10 240 packets, 1024 queues, quantum = the link MTU, ecn_prob 10 %, PIE
//! profile `linux` (any PIE profile may be named in `pie`).

use crate::config::QueueLimit;
use crate::fq::{FairQueue, Overlimit};
use crate::pie::{Pie, PieConfig, PieParams, PieProfile};
use crate::queue::LinkInfo;
use crate::rng::Rng;
use crate::schema::{departs, Declared, Finish, NoProfile, Range};
use crate::time::NS_PER_SEC;

crate::params! {
    /// FQ-PIE with sch_fq_pie semantics: a PIE per flow queue.
    config FqPieConfig => FqPieParams, profile NoProfile,
    doc "FQ-PIE: flows hashed into queues served by deficit round robin (new flows first), a full PIE per queue (drop at enqueue, one timer updating every queue, 2048 a run with a linux PIE), the arriving packet dropped at the limit.",
    source "Linux sch_fq_pie.c (RFC 8033 per flow queue)";
    fields {
        /// Hard limit of the whole discipline, packets or bytes.
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(10_240));
        /// Number of flow queues.
        flows: u32 [Int, None, Range::closed(1.0, 65_536.0)] = (1024);
        /// DRR quantum; unset: the link MTU.
        quantum: Option<u32> [Bytes, None, Range::closed(1.0, 1_048_576.0)] = (None);
        /// Mark instead of drop while a queue's p is at most this (with `pie.ecn`); replaces `pie.mark_ecnth`.
        ecn_prob: u32 [Int, Some("%"), Range::closed(0.0, 100.0)] = (10);
    }
    nested {
        /// The per-queue PIE (its limit is the discipline's).
        pie: FqPieLaw => PieParams [Some("pie")] = (Some(FqPieLaw(PieConfig { profile: Some(PieProfile::Linux), ..Default::default() })));
    }
}

/// The per-queue PIE table: a PIE table as a scenario writes it, resolved as fq_pie's law.
/// sch_fq_pie sets the marking threshold from `ecn_prob` whatever the inner `ecn` says, so the
/// inner `mark_ecnth` is fq_pie's to check ([`FqPieParams`]' finish), not the inner PIE's: a
/// resolved record (threshold written out, ECN off) loads again.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct FqPieLaw(pub PieConfig);

impl Declared for FqPieLaw {
    type Params = PieParams;

    fn resolve(&self) -> Result<PieParams, String> {
        PieConfig { mark_ecnth: None, ..self.0.clone() }.resolve()
    }

    fn overlay(&self, base: &Self) -> Self {
        FqPieLaw(self.0.overlay(&base.0))
    }
}

impl Finish<FqPieConfig> for FqPieParams {
    fn finish(&mut self, given: &FqPieConfig) -> Result<(), String> {
        // The per-queue law's view counts against the whole discipline's limit, and sch_fq_pie
        // marks while p <= ecn_prob %: the inner table may only repeat these (as a resolved
        // record does).
        if !self.pie.ecn && departs(&given.ecn_prob, &FqPieConfig::defaults(NoProfile::Default).ecn_prob) {
            return Err("ecn_prob: applies only with pie.ecn = true (without ECN every early signal is a drop)".into());
        }
        let threshold = self.ecn_prob as f64 / 100.0;
        let inner = given.pie.as_ref().map(|law| &law.0);
        if inner.and_then(|c| c.limit).is_some_and(|l| l != self.limit) {
            return Err("pie.limit: set the limit on the fair queue itself".into());
        }
        if inner.and_then(|c| c.mark_ecnth).is_some_and(|th| th != threshold) {
            return Err("pie.mark_ecnth: fq_pie sets the marking threshold with ecn_prob".into());
        }
        self.pie.limit = self.limit;
        self.pie.mark_ecnth = Some(threshold);
        Ok(())
    }
}

impl FqPieParams {
    pub fn build(&self, link: LinkInfo, mut rng: Rng) -> FairQueue<Pie> {
        let salt = rng.next_u64();
        let law = |_| Pie::new(&self.pie, link, Rng::from_seed(rng.next_u64())).with_ecn_percent(self.ecn_prob);
        let fq = FairQueue::new(self.flows, law, self.quantum.unwrap_or(link.mtu), self.limit, Overlimit::DropArrival, false, salt);
        match self.pie.hz {
            // fq_pie_timer: 2048 flows a run, the rest from the next jiffy on.
            Some(hz) => fq.with_timer_chunks(2048, NS_PER_SEC / hz as u64),
            None => fq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QdiscConfig;
    use crate::pie::TargetPolicy;
    use crate::queue::{ActionKind, DropReason, Qdisc, QueueDisc};
    use crate::schema::Declared;
    use crate::time::NS_PER_MS;
    use crate::Pkt;

    const LINK: LinkInfo = LinkInfo { rate_bps: 8_000_000, mtu: 1500 };

    #[test]
    fn arrival_is_dropped_at_the_limit() {
        // The limit counts the whole discipline, not the arrival's queue: a byte limit of 4000 B
        // on 1000-B packets behaves as 4 packets.
        for limit in [QueueLimit::Packets(4), QueueLimit::Bytes(4000)] {
            let mut q = FqPieConfig { limit: Some(limit), ..Default::default() }.resolve().unwrap().build(LINK, Rng::from_seed(1));
            let mut out = Vec::new();
            for (i, flow) in [1, 1, 1, 2].into_iter().enumerate() {
                assert!(q.enqueue(0, Pkt::new(i as u32, 1000, flow), &mut out), "{limit:?}: arrival {i}");
            }
            assert!(!q.enqueue(0, Pkt::new(9, 1000, 2), &mut out));
            assert_eq!(out.len(), 1);
            assert_eq!((out[0].pkt.id, out[0].kind), (9, ActionKind::Drop(DropReason::Overflow)));
            assert_eq!(q.backlog().packets, 4);
        }
    }

    #[test]
    fn a_new_link_rate_reaches_every_queues_pie() {
        // A PIE whose target follows the link speed (pie::reference: 25 000 B of queue, 2 ms at
        // 100 Mb/s, floored at 20 µs at 10 Gb/s): a rate change reaches the PIE of every queue.
        let pie = PieConfig { profile: Some(PieProfile::Paper), target_policy: Some(TargetPolicy::LinkSpeed), ..Default::default() };
        let cfg = FqPieConfig { flows: Some(4), pie: Some(FqPieLaw(pie)), ..Default::default() };
        let mut q = cfg.resolve().unwrap().build(LinkInfo { rate_bps: 100_000_000, mtu: 1500 }, Rng::from_seed(1));
        let flows: Vec<u32> = (0..4).map(|b| (0..).find(|&f| q.bucket(f) == b).unwrap()).collect();
        assert!(flows.iter().all(|&f| q.law_of(f).target() == 2 * NS_PER_MS));
        q.set_link_rate(10_000_000_000);
        assert!(flows.iter().all(|&f| q.law_of(f).target() == 20_000));
    }

    #[test]
    fn per_flow_pie_isolates_a_thin_flow() {
        // Flow 1 offers 2 MB/s, flow 2 one packet per 10 ms, into a 1 MB/s link (one 1000-B
        // dequeue per ms). Flow 1's PIE must raise its own p; flow 2 stays unpunished.
        let cfg = QdiscConfig::FqPie(FqPieConfig::default());
        cfg.validate().unwrap();
        let mut q = cfg.build(LINK, Rng::from_seed(3));
        let mut out = Vec::new();
        let mut thin_drops = 0;
        for ms in 1..=3000u64 {
            let now = ms * NS_PER_MS;
            while q.next_update_at().is_some_and(|t| t <= now) {
                let t = q.next_update_at().unwrap_or(now);
                q.update(t);
            }
            for k in 0..2 {
                q.enqueue(now, Pkt::new((ms * 2 + k) as u32, 1000, 1), &mut out);
            }
            if ms % 10 == 0 {
                let before = out.len();
                q.enqueue(now, Pkt::new(0, 1000, 2), &mut out);
                thin_drops += (out.len() > before) as u32;
            }
            q.dequeue(now, &mut out);
        }
        let Qdisc::FqPie(fq) = &q else { unreachable!() };
        assert_ne!(fq.bucket(1), fq.bucket(2), "flows must not collide in this test");
        assert!(fq.law_of(1).prob() > 0.1, "fat flow p = {}", fq.law_of(1).prob());
        assert_eq!(fq.law_of(2).prob(), 0.0);
        assert_eq!(thin_drops, 0);
        assert!(out.iter().any(|a| a.kind == ActionKind::Drop(DropReason::Early) && a.pkt.flow == 1));
    }
}
