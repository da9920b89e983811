//! FQ-CoDel (RFC 8290, Linux `sch_fq_codel`): flow queueing ([`crate::fq`]) with a CoDel
//! instance per queue, run at dequeue against the whole qdisc's backlog (as sch_fq_codel passes
//! it), and fat-flow dropping when the packet limit is exceeded.
//!
//! Defaults (sch_fq_codel `fq_codel_init`): limit 10 240 packets, 1024 queues, quantum = the
//! link MTU, drop_batch 64, CoDel profile `linux` with target 5 ms, interval 100 ms and ECN on.
//! The 32 MiB memory limit is not modelled.

use serde::{Deserialize, Serialize};

use crate::codel::{CoDel, CoDelConfig, CoDelProfile};
use crate::config::QueueLimit;
use crate::fq::{check_fq, check_per_queue, FairQueue, Overlimit};
use crate::queue::LinkInfo;
use crate::rng::Rng;
use crate::validate::check_opt;

/// The JSON form of FQ-CoDel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FqCoDelConfig {
    pub limit: Option<QueueLimit>,
    /// Number of flow queues (1..=65536).
    pub flows: Option<u32>,
    /// DRR quantum in bytes (default: the link MTU).
    pub quantum_bytes: Option<u32>,
    /// Most packets dropped from the fattest queue per overflow.
    pub drop_batch: Option<u32>,
    /// The per-queue CoDel (its `limit` is not used).
    pub codel: Option<CoDelConfig>,
}

impl FqCoDelConfig {
    fn codel_config(&self) -> CoDelConfig {
        self.codel.clone().unwrap_or(CoDelConfig { profile: CoDelProfile::Linux, ecn: Some(true), ..Default::default() })
    }

    pub fn resolved(&self) -> FqCoDelConfig {
        FqCoDelConfig {
            limit: self.limit.or(Some(QueueLimit::Packets(10_240))),
            flows: self.flows.or(Some(1024)),
            quantum_bytes: self.quantum_bytes,
            drop_batch: self.drop_batch.or(Some(64)),
            codel: Some(CoDelConfig { limit: None, ..self.codel_config().resolved() }),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        check_fq(self.limit, self.flows, self.quantum_bytes)?;
        check_opt("drop_batch", self.drop_batch.map(f64::from), 1.0, 65_536.0)?;
        let codel = self.codel_config();
        check_per_queue("codel", codel.limit.is_some(), codel.validate())
    }

    pub fn build(&self, link: LinkInfo, mut rng: Rng) -> FairQueue<CoDel> {
        let r = self.resolved();
        let codel = self.codel_config();
        let limit = r.limit.unwrap_or(QueueLimit::Packets(10_240));
        let overlimit = Overlimit::DropFromFattest(r.drop_batch.unwrap_or(64));
        FairQueue::new(r.flows.unwrap_or(1024), |_| codel.build(link), r.quantum_bytes.unwrap_or(link.mtu), limit, overlimit, true, rng.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{ActionKind, DropReason, QueueDisc};
    use crate::Pkt;

    const LINK: LinkInfo = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };

    fn fq(limit: u32, quantum: u32) -> FairQueue<CoDel> {
        FqCoDelConfig { limit: Some(QueueLimit::Packets(limit)), quantum_bytes: Some(quantum), ..Default::default() }.build(LINK, Rng::from_seed(5))
    }

    #[test]
    fn overflow_drops_half_of_the_fattest_flow() {
        // spec §8.4 case 2: limit 4; 3 packets of A, 1 of B; a 5th (B) → A loses 2 from its head.
        let mut q = fq(4, 1500);
        assert_ne!(q.bucket(1), q.bucket(2));
        let mut out = Vec::new();
        for (i, flow) in [1, 1, 1, 2, 2].into_iter().enumerate() {
            assert!(q.enqueue(0, Pkt::new(i as u32, 1000, flow), &mut out));
        }
        assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(0, ActionKind::Drop(DropReason::Overflow)), (1, ActionKind::Drop(DropReason::Overflow))]);
        assert_eq!((q.backlog_of(1).packets, q.backlog_of(2).packets, q.backlog().packets), (1, 2, 3));
        // A jumbo arrival of a third flow makes its own queue the fattest: it is the one dropped.
        let mut q = fq(2, 1500);
        assert!(q.bucket(3) != q.bucket(1) && q.bucket(3) != q.bucket(2));
        out.clear();
        q.enqueue(0, Pkt::new(0, 100, 1), &mut out);
        q.enqueue(0, Pkt::new(1, 100, 2), &mut out);
        assert!(!q.enqueue(0, Pkt::new(2, 9000, 3), &mut out));
        assert_eq!((out.len(), out[0].pkt.id, q.backlog().packets), (1, 2, 2));
    }

    #[test]
    fn deficits_follow_drr() {
        // spec §8.4 case 3: quantum 90, 120-byte packets, two backlogged flows.
        let mut q = fq(1000, 90);
        let mut out = Vec::new();
        for i in 0..10 {
            q.enqueue(0, Pkt::new(i, 120, 1), &mut out);
            q.enqueue(0, Pkt::new(100 + i, 120, 2), &mut out);
        }
        assert_eq!((q.deficit_of(1), q.deficit_of(2)), (90, 90));
        let mut seen = Vec::new();
        for _ in 0..5 {
            let p = q.dequeue(0, &mut out).unwrap();
            seen.push((p.flow, q.deficit_of(1), q.deficit_of(2)));
        }
        // A: 90 → −30; B: 90 → −30 (A refilled to 60, moved to old); A: 60 → −60 (B refilled to
        // 60); B: 60 → −60 (A refilled to 30); A: 30 → −90 (B refilled to 30).
        assert_eq!(seen, vec![(1, -30, 90), (2, 60, -30), (1, -60, 60), (2, 30, -60), (1, -90, 30)]);
    }

    #[test]
    fn new_flow_goes_first() {
        let mut q = fq(1000, 1500);
        let mut out = Vec::new();
        for i in 0..20 {
            q.enqueue(0, Pkt::new(i, 1500, 1), &mut out);
        }
        // Flow 1 spends its first quantum and moves to the old list.
        q.dequeue(0, &mut out);
        q.dequeue(0, &mut out);
        q.enqueue(0, Pkt::new(99, 200, 3), &mut out);
        assert_eq!(q.dequeue(0, &mut out).map(|p| p.id), Some(99));
        assert_eq!(q.dequeue(0, &mut out).map(|p| p.flow), Some(1));
    }

    #[test]
    fn byte_fairness_within_one_quantum() {
        // Two backlogged flows, 1500-B and 300-B packets: served bytes differ by at most one
        // quantum plus one packet at every point.
        let mut q = fq(10_000, 1500);
        let mut out = Vec::new();
        for i in 0..500 {
            q.enqueue(0, Pkt::new(i, 1500, 1), &mut out);
        }
        for i in 0..2500 {
            q.enqueue(0, Pkt::new(1000 + i, 300, 2), &mut out);
        }
        let (mut a, mut b) = (0i64, 0i64);
        for _ in 0..1500 {
            let p = q.dequeue(0, &mut out).unwrap();
            if p.flow == 1 {
                a += p.len as i64;
            } else {
                b += p.len as i64;
            }
            assert!((a - b).abs() <= 1500 + 1500, "{a} vs {b}");
        }
        assert!(a > 100_000 && b > 100_000);
    }
}
