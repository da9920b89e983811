//! FQ-PIE with Linux `sch_fq_pie` semantics (spec §3.1): flow queueing ([`crate::fq`]) with a
//! full PIE instance per queue, the arriving packet dropped at the limit, the 2-MTU test on the
//! queue's own backlog, every queue's probability updated by one timer, and ECN marking while
//! the queue's p ≤ `ecn_prob` %.
//!
//! Defaults: limit 10 240 packets, 1024 queues, quantum = the link MTU, ecn_prob 10 %, PIE
//! profile `linux` (any PIE profile may be named in `pie`).

use serde::{Deserialize, Serialize};

use crate::config::QueueLimit;
use crate::fq::{check_fq, check_per_queue, FairQueue, Overlimit};
use crate::pie::{Pie, PieConfig, PieProfile};
use crate::queue::LinkInfo;
use crate::rng::Rng;
use crate::validate::check_opt;

/// The JSON form of FQ-PIE.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FqPieConfig {
    pub limit: Option<QueueLimit>,
    /// Number of flow queues (1..=65536).
    pub flows: Option<u32>,
    /// DRR quantum in bytes (default: the link MTU).
    pub quantum_bytes: Option<u32>,
    /// Mark instead of drop while p ≤ this many percent (with `pie.ecn`); replaces
    /// `pie.mark_ecnth`.
    pub ecn_prob: Option<u32>,
    /// The per-queue PIE: profile and overrides (its `limit` is not used).
    pub pie: Option<PieConfig>,
}

impl FqPieConfig {
    fn pie_config(&self) -> PieConfig {
        self.pie.clone().unwrap_or(PieConfig { profile: PieProfile::Linux, ..Default::default() })
    }

    pub fn resolved(&self) -> FqPieConfig {
        FqPieConfig {
            limit: self.limit.or(Some(QueueLimit::Packets(10_240))),
            flows: self.flows.or(Some(1024)),
            quantum_bytes: self.quantum_bytes,
            ecn_prob: self.ecn_prob.or(Some(10)),
            pie: Some(PieConfig { limit: None, ..self.pie_config().resolved() }),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        check_fq(self.limit, self.flows, self.quantum_bytes)?;
        check_opt("ecn_prob", self.ecn_prob.map(f64::from), 0.0, 100.0)?;
        let pie = self.pie_config();
        check_per_queue("pie", pie.limit.is_some(), pie.validate())
    }

    pub fn build(&self, link: LinkInfo, mut rng: Rng) -> FairQueue<Pie> {
        let r = self.resolved();
        let params = self.pie_config().params();
        let pct = r.ecn_prob.unwrap_or(10);
        let salt = rng.next_u64();
        let law = |_| Pie::new(params.clone(), link, Rng::from_seed(rng.next_u64())).with_ecn_percent(pct);
        let limit = r.limit.unwrap_or(QueueLimit::Packets(10_240));
        FairQueue::new(r.flows.unwrap_or(1024), law, r.quantum_bytes.unwrap_or(link.mtu), limit, Overlimit::DropArrival, false, salt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QdiscConfig;
    use crate::queue::{ActionKind, DropReason, Qdisc, QueueDisc};
    use crate::time::NS_PER_MS;
    use crate::Pkt;

    const LINK: LinkInfo = LinkInfo { rate_bps: 8_000_000, mtu: 1500 };

    #[test]
    fn arrival_is_dropped_at_the_limit() {
        let mut q = FqPieConfig { limit: Some(QueueLimit::Packets(4)), ..Default::default() }.build(LINK, Rng::from_seed(1));
        let mut out = Vec::new();
        for (i, flow) in [1, 1, 1, 2].into_iter().enumerate() {
            assert!(q.enqueue(0, Pkt::new(i as u32, 1000, flow), &mut out));
        }
        assert!(!q.enqueue(0, Pkt::new(9, 1000, 2), &mut out));
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].pkt.id, out[0].kind), (9, ActionKind::Drop(DropReason::Overflow)));
        assert_eq!(q.backlog().packets, 4);
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
