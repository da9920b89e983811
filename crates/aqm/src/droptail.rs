//! DropTail: no control law; the queue's hard limit is the only reason to drop.

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, QueueView, Verdict};
use crate::schema::{Finish, NoProfile, Range};
use crate::time::Nanos;

crate::params! {
    /// DropTail: a FIFO that drops arrivals at its limit.
    config DropTailConfig => DropTailParams, profile NoProfile,
    doc "DropTail: a FIFO that drops arrivals at its packet or byte limit; no control law.",
    source "the null control of every AQM comparison";
    fields {
        /// Hard limit of the queue.
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(1000));
    }
}

impl Finish<DropTailConfig> for DropTailParams {}

impl DropTailConfig {
    /// A DropTail queue of `limit`.
    pub fn with_limit(limit: QueueLimit) -> Self {
        DropTailConfig { limit: Some(limit), ..Default::default() }
    }
}

/// The empty control law: every packet is accepted, and [`crate::SingleQueue`] tail-drops at the limit.
#[derive(Clone, Debug, Default)]
pub struct DropTail;

impl Aqm for DropTail {
    fn on_enqueue(&mut self, _now: Nanos, _pkt: &Pkt, _q: &QueueView) -> Verdict {
        Verdict::Accept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{ActionKind, DropReason, QueueDisc, SingleQueue};

    fn pkt(id: u32, len: u32) -> Pkt {
        Pkt::new(id, len, 0)
    }

    #[test]
    fn packet_limit_tail_drops_the_arrival() {
        let mut q = SingleQueue::new(DropTail, QueueLimit::Packets(2));
        let mut out = Vec::new();
        assert!(q.enqueue(0, pkt(1, 1000), &mut out));
        assert!(q.enqueue(5, pkt(2, 1000), &mut out));
        assert!(!q.enqueue(6, pkt(3, 1000), &mut out));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].pkt.id, 3);
        assert_eq!(out[0].kind, ActionKind::Drop(DropReason::Overflow));
        let first = q.dequeue(10, &mut out).unwrap();
        assert_eq!((first.id, first.enqueued_at), (1, 0));
        assert_eq!(q.backlog().bytes, 1000);
        assert!(q.enqueue(11, pkt(4, 1000), &mut out));
        assert_eq!(q.dequeue(12, &mut out).unwrap().id, 2);
        assert_eq!(q.dequeue(13, &mut out).unwrap().id, 4);
        assert!(q.dequeue(14, &mut out).is_none());
        assert_eq!(q.backlog(), Default::default());
    }

    /// The hint names the packet a FIFO sends next: the head, by arrival order.
    #[test]
    fn the_next_hint_is_the_fifo_head() {
        let mut q = SingleQueue::new(DropTail, QueueLimit::Packets(3));
        let mut out = Vec::new();
        assert_eq!(q.next_hint(), None);
        q.enqueue(0, pkt(7, 1000), &mut out);
        q.enqueue(1, pkt(9, 1000), &mut out);
        assert_eq!(q.next_hint(), Some(7));
        q.dequeue(2, &mut out);
        assert_eq!(q.next_hint(), Some(9));
        q.dequeue(3, &mut out);
        assert_eq!(q.next_hint(), None);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut q = SingleQueue::new(DropTail, QueueLimit::Bytes(2500));
        let mut out = Vec::new();
        assert!(q.enqueue(0, pkt(1, 1000), &mut out));
        assert!(q.enqueue(0, pkt(2, 1000), &mut out));
        // 2000 + 1000 > 2500: dropped; a 500-byte packet still fits exactly.
        assert!(!q.enqueue(0, pkt(3, 1000), &mut out));
        assert!(q.enqueue(0, pkt(4, 500), &mut out));
        assert_eq!(q.backlog().bytes, 2500);
        assert_eq!(q.next_update_at(), None);
    }
}
