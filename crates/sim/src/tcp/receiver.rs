//! The TCP receiver: cumulative ACK of every arriving segment (no delayed ACK).

use std::collections::BTreeSet;

#[derive(Clone, Debug, Default)]
pub struct TcpReceiver {
    /// Next in-order segment expected.
    pub rcv_nxt: u64,
    /// Segments above `rcv_nxt` already received.
    out_of_order: BTreeSet<u64>,
}

impl TcpReceiver {
    /// Takes segment `seq`; returns how many segments became deliverable in order, and the
    /// cumulative acknowledgement to send (RFC 5681 §4.2: an immediate ACK for every
    /// segment, a duplicate one for out-of-order data).
    pub fn on_segment(&mut self, seq: u64) -> (u64, u64) {
        if seq < self.rcv_nxt {
            return (0, self.rcv_nxt);
        }
        if seq > self.rcv_nxt {
            self.out_of_order.insert(seq);
            return (0, self.rcv_nxt);
        }
        let before = self.rcv_nxt;
        self.rcv_nxt += 1;
        while self.out_of_order.remove(&self.rcv_nxt) {
            self.rcv_nxt += 1;
        }
        (self.rcv_nxt - before, self.rcv_nxt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acks_cumulatively_and_fills_holes() {
        let mut r = TcpReceiver::default();
        assert_eq!(r.on_segment(0), (1, 1));
        assert_eq!(r.on_segment(2), (0, 1));
        assert_eq!(r.on_segment(3), (0, 1));
        assert_eq!(r.on_segment(1), (3, 4));
        assert_eq!(r.on_segment(1), (0, 4));
    }
}
