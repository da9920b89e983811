//! Step marking: the switch side of DCTCP (RFC 8257 §3.1). An arriving packet is CE-marked
//! when the instantaneous queue already holds more than K packets; a packet that cannot
//! carry CE is dropped instead (RFC 3168 §5). No randomness, no averaging.

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::schema::{Finish, NoProfile, Range};
use crate::time::Nanos;

crate::params! {
    /// DCTCP step marking at K packets.
    config StepConfig => StepParams, profile NoProfile,
    doc "Step marking: CE-mark an arrival when the instantaneous queue already holds more than K packets (drop it if it cannot carry CE).",
    source "RFC 8257 §3.1 (DCTCP)";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(1000));
        /// Marking threshold K (RFC 8257 §3.1 suggests K > C·RTT/7).
        k: u32 [Int, Some("packets"), Range::closed(0.0, 1e9)] = (20);
    }
}

impl Finish<StepConfig> for StepParams {}

impl StepParams {
    pub fn build(&self) -> Step {
        Step { k: self.k, marked: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Step {
    k: u32,
    marked: u64,
}

impl Aqm for Step {
    fn on_enqueue(&mut self, _now: Nanos, _pkt: &Pkt, q: &QueueView) -> Verdict {
        if q.backlog.packets > self.k {
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
    use crate::schema::Declared;

    #[test]
    fn marks_above_k_and_drops_what_cannot_be_marked() {
        let mut q = SingleQueue::new(StepParams { k: 2, ..StepConfig::default().resolve().unwrap() }.build(), QueueLimit::Packets(10));
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
        // The probe counts the arrivals over K, each a mark asked for (the Not-ECT one dropped).
        assert_eq!(crate::testkit::probe(&q, "marked"), 2.0);
    }
}
