//! RACK (RFC 8985 §6): the per-segment transmit times and the most recently sent delivered
//! segment that time-based loss detection reads. The sender runs the detection itself
//! (`TcpSender::rack_detect`), since it walks the SACK scoreboard and the retransmissions.

use std::collections::VecDeque;

use aqm::Nanos;

/// RACK's state (RFC 8985 §6.1) and the per-segment transmit times it reads.
#[derive(Clone, Debug, Default)]
pub(super) struct Rack {
    /// Per outstanding segment, indexed by seq − snd_una: the time of its latest transmission
    /// and whether that transmission was a retransmission (§6.1 Segment.xmit_ts and
    /// Segment.retransmitted). A ring, so an ACK costs no allocation once it has grown.
    pub(super) xmit: VecDeque<(Nanos, bool)>,
    /// RACK.xmit_ts and RACK.end_seq (one past the segment; 0: nothing delivered yet).
    pub(super) xmit_ts: Nanos,
    pub(super) end_seq: u64,
    /// RACK.rtt: the RTT of that most recently sent delivered segment.
    pub(super) rtt: Nanos,
    /// RACK.min_RTT: the least unambiguous per-segment RTT seen.
    pub(super) min_rtt: Nanos,
    /// Segments never retransmitted are sent in sequence order, so their transmit times rise
    /// with seq and RACK marks them lost oldest first: the un-SACKed, not retransmitted
    /// segments below this boundary are the lost ones (§6.2 step 5's Segment.lost).
    pub(super) lost_below: u64,
    /// The reordering timer (§6.3), when armed.
    pub(super) deadline: Option<Nanos>,
}

impl Rack {
    /// RFC 8985 §6.2 steps 1-3 (RACK_update) for the newly delivered segments [a, b).
    pub(super) fn delivered(&mut self, now: Nanos, una: u64, a: u64, b: u64) {
        for seq in a..b {
            let (ts, rexmit) = self.xmit[(seq - una) as usize];
            let rtt = now.saturating_sub(ts);
            if rexmit {
                // Step 2: a retransmitted segment acknowledged sooner than the minimum RTT was
                // probably delivered by its original transmission (spurious retransmission):
                // its sample says nothing about the retransmission's fate.
                if rtt < self.min_rtt {
                    continue;
                }
            } else {
                self.min_rtt = self.min_rtt.min(rtt);
            }
            // Step 3: keep the most recently sent delivered segment (RACK_sent_after).
            if ts > self.xmit_ts || (ts == self.xmit_ts && seq + 1 > self.end_seq) {
                self.xmit_ts = ts;
                self.end_seq = seq + 1;
                self.rtt = rtt;
            }
        }
    }

    /// Whether segment `seq`, sent at `ts`, was sent before RACK's segment
    /// (RACK_sent_after(RACK.xmit_ts, RACK.end_seq, ts, seq + 1)).
    pub(super) fn sent_before(&self, ts: Nanos, seq: u64) -> bool {
        ts < self.xmit_ts || (ts == self.xmit_ts && seq + 1 < self.end_seq)
    }
}
