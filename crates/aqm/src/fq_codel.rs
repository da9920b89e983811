//! FQ-CoDel (RFC 8290): flow queueing ([`crate::fq`]) with a CoDel instance per queue run at
//! dequeue, and fat-flow dropping when the packet limit is exceeded.
//!
//! Profiles, differing in what a queue's CoDel takes for its minimum-backlog test:
//! - `linux` (sch_fq_codel, v4.7 to v6.x): `codel_dequeue` is handed the whole qdisc's backlog
//!   (`sch->qstats.backlog`), so a thin flow's packet can be dropped while other flows fill the
//!   qdisc; an overflow raises the fat flow's CoDel count by the packets it dropped
//!   (`fq_codel_drop`); the quantum is at least 256 B; CoDel profile `linux`.
//! - `ns3` (FqCoDelQueueDisc, ns-3.44): each flow is a CoDelQueueDisc whose `MinBytes` test
//!   (1500 B) sees its own queue only; CoDel profile `ns3`.
//!
//! Defaults (sch_fq_codel `fq_codel_init`, the same in ns-3): limit 10 240 packets, 1024
//! queues, quantum = the link MTU, drop_batch 64, target 5 ms, interval 100 ms, ECN on. The
//! 32 MiB memory limit and ns-3's set-associative hash are not modelled.

use crate::codel::{CoDel, CoDelConfig, CoDelParams, CoDelProfile};
use crate::config::QueueLimit;
use crate::fq::{FairQueue, Overlimit};
use crate::queue::LinkInfo;
use crate::rng::Rng;
use crate::schema::{choice_enum, Finish, Range};

choice_enum! {
    /// Which FQ-CoDel a run follows.
    pub profile enum FqCoDelProfile = Linux {
        /// sch_fq_codel: a queue's CoDel sees the whole qdisc's backlog.
        Linux = "linux",
        /// ns-3 FqCoDelQueueDisc: a queue's CoDel sees its own backlog.
        Ns3 = "ns3",
    }
}

crate::params! {
    /// FQ-CoDel: DRR flow queueing with a CoDel per queue.
    config FqCoDelConfig => FqCoDelParams, profile FqCoDelProfile,
    doc "FQ-CoDel: flows hashed into queues served by deficit round robin (new flows first), a CoDel per queue run at dequeue, and the fattest queue's head dropped when the packet limit is exceeded.",
    source "RFC 8290 / Linux sch_fq_codel.c / ns-3 FqCoDelQueueDisc";
    fields {
        /// Hard limit of the whole discipline, packets or bytes.
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(10_240));
        /// Number of flow queues.
        flows: u32 [Int, None, Range::closed(1.0, 65_536.0)] = (1024);
        /// DRR quantum; unset: the link MTU.
        quantum: Option<u32> [Bytes, None, Range::closed(1.0, 1_048_576.0)] = (None);
        /// Most packets dropped from the fattest queue per overflow (drop_batch_size).
        drop_batch: u32 [Int, None, Range::closed(1.0, 65_536.0)] = (64);
    }
    nested {
        /// The per-queue CoDel (its limit is the discipline's).
        codel: CoDelConfig => CoDelParams [Some("codel")] = {
            Linux: Some(CoDelConfig { profile: Some(CoDelProfile::Linux), ecn: Some(true), ..Default::default() }),
            Ns3: Some(CoDelConfig { profile: Some(CoDelProfile::Ns3), ecn: Some(true), ..Default::default() }),
        };
    }
}

/// sch_fq_codel's smallest quantum.
const LINUX_MIN_QUANTUM: u32 = 256;

impl Finish<FqCoDelConfig> for FqCoDelParams {
    fn finish(&mut self, given: &FqCoDelConfig) -> Result<(), String> {
        // The per-queue law's view counts against the whole discipline's limit: the inner table
        // may only repeat it (as a resolved record does).
        if given.codel.as_ref().and_then(|c| c.limit).is_some_and(|l| l != self.limit) {
            return Err("codel.limit: set the limit on the fair queue itself".into());
        }
        self.codel.limit = self.limit;
        // sch_fq_codel raises a smaller quantum to 256 B without a word (`fq_codel_change`).
        if self.profile == FqCoDelProfile::Linux && self.quantum.is_some_and(|q| q < LINUX_MIN_QUANTUM) {
            return Err(format!("quantum: {} B is below the linux profile's {LINUX_MIN_QUANTUM} B (sch_fq_codel raises a smaller quantum to it)", self.quantum.unwrap_or_default()));
        }
        Ok(())
    }
}

impl FqCoDelParams {
    pub fn build(&self, link: LinkInfo, mut rng: Rng) -> FairQueue<CoDel> {
        let overlimit = Overlimit::DropFromFattest(self.drop_batch);
        let linux = self.profile == FqCoDelProfile::Linux;
        // fq_codel_init: the quantum defaults to psched_mtu clamped to [256 B, 1 MiB].
        let quantum = self.quantum.unwrap_or(if linux { link.mtu.clamp(LINUX_MIN_QUANTUM, 1 << 20) } else { link.mtu });
        let fq = FairQueue::new(self.flows, |_| self.codel.build(link), quantum, self.limit, overlimit, linux, rng.next_u64());
        if linux {
            fq.with_overflow_feedback()
        } else {
            fq
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{ActionKind, DropReason, QueueDisc};
    use crate::schema::Declared;
    use crate::Pkt;

    const LINK: LinkInfo = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };

    fn fq(limit: u32, quantum: u32) -> FairQueue<CoDel> {
        fq_limited(QueueLimit::Packets(limit), quantum)
    }

    fn fq_limited(limit: QueueLimit, quantum: u32) -> FairQueue<CoDel> {
        FqCoDelConfig { limit: Some(limit), quantum: Some(quantum), ..Default::default() }.resolve().unwrap().build(LINK, Rng::from_seed(5))
    }

    #[test]
    fn overflow_drops_half_of_the_fattest_flow() {
        // spec §8.4 case 2: limit 4; 3 packets of A, 1 of B; a 5th (B) → A loses 2 from its head.
        // A byte limit of 4000 B works the same on 1000-B packets: sch_fq_codel drops only once
        // the usage exceeds the limit (its memory_limit test is strict, like qlen > limit).
        let mut out = Vec::new();
        for limit in [QueueLimit::Packets(4), QueueLimit::Bytes(4000)] {
            let mut q = fq_limited(limit, 1500);
            assert_ne!(q.bucket(1), q.bucket(2));
            out.clear();
            for (i, flow) in [1, 1, 1, 2, 2].into_iter().enumerate() {
                assert!(q.enqueue(0, Pkt::new(i as u32, 1000, flow), &mut out));
                assert_eq!(out.is_empty(), i < 4, "{limit:?}: drops after arrival {i}");
            }
            assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(0, ActionKind::Drop(DropReason::Overflow)), (1, ActionKind::Drop(DropReason::Overflow))]);
            assert_eq!((q.backlog_of(1).packets, q.backlog_of(2).packets, q.backlog().packets), (1, 2, 3));
        }
        // A jumbo arrival of a third flow makes its own queue the fattest: it is the one dropped.
        let mut q = fq(2, 1500);
        assert!(q.bucket(3) != q.bucket(1) && q.bucket(3) != q.bucket(2));
        out.clear();
        q.enqueue(0, Pkt::new(0, 100, 1), &mut out);
        q.enqueue(0, Pkt::new(1, 100, 2), &mut out);
        assert!(!q.enqueue(0, Pkt::new(2, 9000, 3), &mut out));
        assert_eq!((out.len(), out[0].pkt.id, q.backlog().packets), (1, 2, 2));
    }

    /// Found by the fuzzer (a run that never ended): with one-byte packets the fattest queue
    /// holds one byte, half of which is nothing, and a drop loop that tests before dropping
    /// dropped nothing while the queue stayed over its limit. Linux's fq_codel_drop tests after
    /// each drop (a do-while), so an overflow always drops at least one packet.
    #[test]
    fn an_overflow_of_one_byte_packets_drops_one() {
        let mut q = fq(2, 1500);
        let mut out = Vec::new();
        for (i, flow) in [1, 2].into_iter().enumerate() {
            assert!(q.enqueue(0, Pkt::new(i as u32, 1, flow), &mut out));
        }
        // The third packet puts the queue over its limit of 2: one packet goes, from the head of
        // the fattest queue (a tie of one byte each, broken towards the lower index).
        q.enqueue(0, Pkt::new(2, 1, 3), &mut out);
        assert_eq!((out.len(), out[0].kind, q.backlog().packets), (1, ActionKind::Drop(DropReason::Overflow), 2));
    }

    #[test]
    fn deficits_follow_drr() {
        // spec §8.4 case 3: quantum 90, 120-byte packets, two backlogged flows. The DRR is the
        // profiles' common part; the ns3 one takes a quantum under sch_fq_codel's 256 B.
        let mut q = FqCoDelConfig { profile: Some(FqCoDelProfile::Ns3), limit: Some(QueueLimit::Packets(1000)), quantum: Some(90), ..Default::default() }
            .resolve()
            .unwrap()
            .build(LINK, Rng::from_seed(5));
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
    fn an_emptied_new_flow_waits_in_the_old_list() {
        // RFC 8290 §4.2 (sch_fq_codel_dequeue): a queue from the new list found empty moves to
        // the tail of the old list while that list is non-empty, so it cannot come back as a new
        // flow at once. Quantum 1500; flow 1 sends 500-B packets, flow 3 one 200-B packet.
        let mut q = fq(1000, 1500);
        let mut out = Vec::new();
        for i in 0..20 {
            q.enqueue(0, Pkt::new(i, 500, 1), &mut out);
        }
        // Flow 1 spends its 1500 B, is refilled and moved to the old list, and sends again (1000 left).
        for _ in 0..4 {
            assert_eq!(q.dequeue(0, &mut out).map(|p| p.flow), Some(1));
        }
        q.enqueue(0, Pkt::new(99, 200, 3), &mut out);
        assert_eq!(q.dequeue(0, &mut out).map(|p| p.id), Some(99));
        // Flow 3 is found empty and joins the old list behind flow 1, which is served (500 left).
        assert_eq!(q.dequeue(0, &mut out).map(|p| p.flow), Some(1));
        // Flow 3's next packet finds its queue still listed: no new-flow priority, flow 1 goes
        // on until its credit is spent, then flow 3.
        q.enqueue(0, Pkt::new(100, 200, 3), &mut out);
        assert_eq!(q.dequeue(0, &mut out).map(|p| p.flow), Some(1));
        assert_eq!(q.dequeue(0, &mut out).map(|p| p.id), Some(100));
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

    #[test]
    fn minimum_backlog_per_flow_queue_in_ns3_of_the_whole_qdisc_in_linux() {
        // sch_fq_codel hands codel_dequeue the qdisc's backlog; ns-3's FqCoDelQueueDisc runs a
        // CoDelQueueDisc per flow, whose MinBytes test sees its own queue. Flow A: 2 packets,
        // flow B: 100, all at t = 0, 1000 B each. A's first leaves at 10 ms (sojourn above
        // target; Linux: 101 000 B remain, first_above_time = 110 ms; ns-3: 1000 B < 1500, no
        // timer). A's second leaves at 210 ms: Linux, with 100 000 B of B queued, drops it and
        // serves B; ns-3, A's queue then empty, delivers it.
        for (profile, delivered_flow, drops) in [("linux", 2, 1), ("ns3", 1, 0)] {
            let cfg: crate::config::QdiscConfig = serde_json::from_str(&format!(r#"{{"type":"fq_codel","profile":"{profile}","quantum":3000}}"#)).unwrap();
            let mut q = cfg.build(LINK, Rng::from_seed(5));
            let mut out = Vec::new();
            q.enqueue(0, Pkt::new(0, 1000, 1), &mut out);
            q.enqueue(0, Pkt::new(1, 1000, 1), &mut out);
            for i in 0..100 {
                q.enqueue(0, Pkt::new(100 + i, 1000, 2), &mut out);
            }
            assert_eq!(q.dequeue(10_000_000, &mut out).map(|p| p.flow), Some(1));
            assert_eq!(q.dequeue(210_000_000, &mut out).map(|p| p.flow), Some(delivered_flow), "{profile}");
            assert_eq!(out.iter().filter(|a| a.kind == ActionKind::Drop(DropReason::Dequeue)).count(), drops, "{profile}");
        }
    }
}
