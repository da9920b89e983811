//! Step marking: the switch side of DCTCP (RFC 8257 §3.1). An arriving packet is CE-marked
//! when the instantaneous queue already holds more than K packets; a packet that cannot
//! carry CE is dropped instead (RFC 3168 §5). No randomness, no averaging.

use serde::{Deserialize, Serialize};

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::time::Nanos;
use crate::validate::{check_limit, check_opt};

/// The JSON form of step marking.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StepConfig {
    pub limit: Option<QueueLimit>,
    /// Marking threshold K, in packets (RFC 8257 §3.1 suggests K > C·RTT/7).
    pub k_packets: Option<f64>,
}

impl StepConfig {
    pub fn resolved(&self) -> StepConfig {
        StepConfig { limit: self.limit.or(Some(QueueLimit::Packets(1000))), k_packets: self.k_packets.or(Some(20.0)) }
    }

    pub fn validate(&self) -> Result<(), String> {
        check_opt("k_packets", self.k_packets, 0.0, 1e9)?;
        self.limit.map_or(Ok(()), |l| check_limit("limit", l))
    }

    pub fn build(&self) -> Step {
        Step { k: self.resolved().k_packets.unwrap_or(20.0), marked: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Step {
    k: f64,
    marked: u64,
}

impl Aqm for Step {
    fn on_enqueue(&mut self, _now: Nanos, _pkt: &Pkt, q: &QueueView) -> Verdict {
        if q.backlog.packets as f64 > self.k {
            self.marked += 1;
            Verdict::Mark
        } else {
            Verdict::Accept
        }
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["marked"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.marked as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::{ActionKind, QueueDisc, SingleQueue};

    #[test]
    fn marks_above_k_and_drops_what_cannot_be_marked() {
        let mut q = SingleQueue::new(StepConfig { k_packets: Some(2.0), ..Default::default() }.build(), QueueLimit::Packets(10));
        let mut out = Vec::new();
        let ect = |id| Pkt { ecn: Ecn::Ect0, ..Pkt::new(id, 1000, 0) };
        for id in 0..3 {
            assert!(q.enqueue(0, ect(id), &mut out));
        }
        assert!(out.is_empty(), "queue of 0, 1, 2 packets is not above K = 2");
        assert!(q.enqueue(0, ect(3), &mut out));
        assert_eq!(out[0].kind, ActionKind::Mark);
        // Not-ECT above K: dropped.
        assert!(!q.enqueue(0, Pkt::new(4, 1000, 0), &mut out));
        assert_eq!(q.backlog().packets, 4);
    }
}
