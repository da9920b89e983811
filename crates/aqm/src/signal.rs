//! Pieces shared by the early-drop laws (PI, P, PI², RED): the queue measure they control and
//! the drop-or-mark choice once a packet has been picked.

use crate::packet::Pkt;
use crate::queue::{Backlog, Verdict};
use crate::rng::Rng;
use crate::schema::choice_enum;

choice_enum! {
    /// The unit a queue-length controller works in.
    pub enum QueueUnit {
        Packets = "packets",
        Bytes = "bytes",
    }
}

impl QueueUnit {
    /// The backlog in this unit.
    pub fn of(self, b: Backlog) -> f64 {
        match self {
            QueueUnit::Packets => b.packets as f64,
            QueueUnit::Bytes => b.bytes as f64,
        }
    }
}

/// A picked packet is CE-marked when ECN is on and the packet is ECN-capable (RFC 3168 §5),
/// dropped otherwise.
pub fn congestion_verdict(ecn: bool, pkt: &Pkt) -> Verdict {
    if ecn && pkt.ecn.is_capable() {
        Verdict::Mark
    } else {
        Verdict::Drop
    }
}

/// Picks the packet with probability `p` (u ~ U[0,1), picked when u < p) and signals it.
pub fn random_verdict(rng: &mut Rng, p: f64, ecn: bool, pkt: &Pkt) -> Verdict {
    if p > 0.0 && rng.uniform() < p {
        congestion_verdict(ecn, pkt)
    } else {
        Verdict::Accept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;

    #[test]
    fn marks_only_capable_packets_and_never_picks_at_zero() {
        let mut pkt = Pkt::new(1, 100, 0);
        assert_eq!(congestion_verdict(true, &pkt), Verdict::Drop);
        pkt.ecn = Ecn::Ect1;
        assert_eq!(congestion_verdict(true, &pkt), Verdict::Mark);
        assert_eq!(congestion_verdict(false, &pkt), Verdict::Drop);
        let mut rng = Rng::from_seed(3);
        assert!((0..1000).all(|_| random_verdict(&mut rng, 0.0, false, &pkt) == Verdict::Accept));
        assert!((0..1000).all(|_| random_verdict(&mut rng, 1.0, false, &pkt) == Verdict::Drop));
        assert_eq!(QueueUnit::Bytes.of(Backlog { bytes: 3000, packets: 2 }), 3000.0);
    }
}
