//! The TCP receiver: cumulative ACKs with SACK blocks (RFC 2018), delayed ACKs (RFC 5681 §4.2)
//! and the ECN echo (RFC 3168 §6.1.3, DCTCP's exact echo of RFC 8257 §3.2, or the CE packet
//! counter of Accurate ECN, RFC 9768).

use std::collections::VecDeque;

use aqm::Nanos;

use super::ends::partition_point;

use super::params::EcnMode;

/// The initial value of the CE packet counter (RFC 9768 §3.2.2.1: r.cep and s.cep start at 5,
/// so that a zeroed ACE field is not mistaken for one).
pub const ACE_INIT: u32 = 5;

/// SACK blocks an ACK carries at most (RFC 2018 §3: three when timestamps are in use).
pub const MAX_SACK_BLOCKS: usize = 3;

/// An acknowledgement to send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckOut {
    pub ack: u64,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub n_sack: u8,
    pub ece: bool,
    /// Accurate ECN's ACE field: the count of CE-marked packets received, modulo 8 (RFC 9768
    /// §3.2.2.1: r.cep, which starts at 5).
    pub ace: u8,
    /// Echoed timestamp (RFC 7323 TSecr): the send time of the segment that set TS.Recent.
    pub echo: Nanos,
}

#[derive(Clone, Debug)]
pub struct ReceiverParams {
    pub sack: bool,
    /// ACK every n-th in-order segment (1: every segment; 2: delayed ACKs).
    pub ack_every: u32,
    pub delack_timeout: Nanos,
    pub ecn: EcnMode,
}

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    params: ReceiverParams,
    /// Next in-order segment expected.
    pub rcv_nxt: u64,
    /// Out-of-order data as disjoint, non-adjacent ranges [start, end) above `rcv_nxt`, in
    /// order: a segment mostly lands at the top (new data) or fills the lowest hole, the two
    /// ends of a double-ended queue, where a B-tree's node walks and allocations cost 4 % of
    /// the run at 10 Gb/s (issue 22). Let go when it empties, so an idle receiver holds none.
    ooo: VecDeque<(u64, u64)>,
    /// In-order segments received but not yet acknowledged.
    unacked: u32,
    /// When a held-back ACK must go out.
    pub delack_deadline: Option<Nanos>,
    /// Classic ECN: ECE is sent on every ACK until a CWR arrives.
    ece_latched: bool,
    /// DCTCP and AccECN: the CE state of the last segment.
    last_ce: bool,
    /// AccECN: CE-marked packets received (r.cep), and of them since the last ACK.
    cep: u32,
    ce_unacked: u32,
    ts_recent: Nanos,
}

impl TcpReceiver {
    pub fn new(params: ReceiverParams) -> Self {
        TcpReceiver {
            params,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            unacked: 0,
            delack_deadline: None,
            ece_latched: false,
            last_ce: false,
            cep: ACE_INIT,
            ce_unacked: 0,
            ts_recent: 0,
        }
    }

    /// Takes segment `seq` (sent at `ts`, with CE and CWR as given); appends ACKs to send now.
    /// Returns how many segments became deliverable in order.
    pub fn on_segment(&mut self, now: Nanos, seq: u64, ts: Nanos, ce: bool, cwr: bool, out: &mut Vec<AckOut>) -> u64 {
        let mut ack_at_once = false;
        match self.params.ecn {
            EcnMode::Off => {}
            EcnMode::Classic => {
                // RFC 3168 §6.1.3: CWR ends the echo, unless this very packet is CE again.
                if cwr {
                    self.ece_latched = false;
                }
                self.ece_latched |= ce;
            }
            EcnMode::Dctcp => {
                // RFC 8257 §3.2: when the CE state changes, first acknowledge what arrived
                // under the old state, so the sender sees exactly which bytes were marked.
                if ce != self.last_ce && self.unacked > 0 {
                    self.ack_now(out);
                }
                self.last_ce = ce;
            }
            EcnMode::AccEcn => {
                // RFC 9768 §3.2.2.5.1: a change-triggered ACK when a CE packet follows a
                // non-CE one, and an increment-triggered ACK once n = 2 CE marks have arrived
                // since the last ACK (with data to acknowledge). Either keeps the 3-bit
                // counter from wrapping between ACKs.
                if ce {
                    self.cep = self.cep.wrapping_add(1);
                    self.ce_unacked += 1;
                    ack_at_once = !self.last_ce || self.ce_unacked >= 2;
                }
                self.last_ce = ce;
            }
        }
        if seq < self.rcv_nxt {
            // A duplicate: acknowledge at once (RFC 5681 §4.2) so the sender learns.
            self.ack_now(out);
            return 0;
        }
        if seq > self.rcv_nxt {
            self.insert_ooo(seq);
            // Out-of-order data: an immediate duplicate ACK (RFC 5681 §4.2).
            self.ack_with_sack(seq, out);
            return 0;
        }
        if self.unacked == 0 {
            // RFC 7323 §4.3: TS.Recent follows the first segment after the last ACK sent.
            self.ts_recent = ts;
        }
        let before = self.rcv_nxt;
        self.rcv_nxt += 1;
        let filled_hole = match self.ooo.front() {
            Some(&(s, e)) if s == self.rcv_nxt => {
                self.ooo.pop_front();
                if self.ooo.is_empty() {
                    self.ooo = VecDeque::new();
                }
                self.rcv_nxt = e;
                true
            }
            _ => false,
        };
        self.unacked += 1;
        if filled_hole || !self.ooo.is_empty() || self.unacked >= self.params.ack_every || ack_at_once {
            // A segment that fills (part of) a hole is acknowledged at once (RFC 5681 §4.2).
            self.ack_now(out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.params.delack_timeout);
        }
        self.rcv_nxt - before
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: Nanos, out: &mut Vec<AckOut>) {
        if self.delack_deadline.is_some_and(|d| d <= now) && self.unacked > 0 {
            self.ack_now(out);
        }
    }

    /// Index of the last range starting at or below `seq`, if any.
    fn ooo_by(&self, seq: u64) -> Option<usize> {
        partition_point(&self.ooo, |&(s, _)| s <= seq).checked_sub(1)
    }

    fn insert_ooo(&mut self, seq: u64) {
        let below = self.ooo_by(seq);
        let next = below.map_or(0, |i| i + 1);
        let joins_below = match below.map(|i| self.ooo[i].1) {
            Some(end) if end > seq => return, // already held
            Some(end) => end == seq,
            None => false,
        };
        let joins_next = self.ooo.get(next).is_some_and(|&(s, _)| s == seq + 1);
        match (below, joins_below, joins_next) {
            (Some(i), true, true) => {
                self.ooo[i].1 = self.ooo[next].1;
                self.ooo.remove(next);
            }
            (Some(i), true, false) => self.ooo[i].1 = seq + 1,
            (_, false, true) => self.ooo[next].0 = seq,
            _ => self.ooo.insert(next, (seq, seq + 1)),
        }
    }

    fn ece(&self) -> bool {
        match self.params.ecn {
            EcnMode::Off => false,
            EcnMode::Classic => self.ece_latched,
            EcnMode::Dctcp => self.last_ce,
            // ECE is one bit of the ACE field under AccECN (RFC 9768 §3.2.2): see `ace`.
            EcnMode::AccEcn => false,
        }
    }

    fn ack_now(&mut self, out: &mut Vec<AckOut>) {
        let latest = self.ooo.back().map(|&(s, _)| s);
        self.emit(latest, out);
    }

    fn ack_with_sack(&mut self, latest: u64, out: &mut Vec<AckOut>) {
        self.emit(Some(latest), out);
    }

    /// Builds the ACK: cumulative point, ECE, echo and up to three SACK blocks, the first
    /// holding the most recent arrival (RFC 2018 §4), the others the highest ranges.
    fn emit(&mut self, latest: Option<u64>, out: &mut Vec<AckOut>) {
        let ace = (self.cep % 8) as u8;
        let mut a = AckOut { ack: self.rcv_nxt, ece: self.ece(), ace, echo: self.ts_recent, ..AckOut::default() };
        self.ce_unacked = 0;
        if self.params.sack && !self.ooo.is_empty() {
            // `latest` is always held: the segment just received out of order, or the start of
            // the highest range.
            let first = latest.and_then(|l| self.ooo_by(l).map(|i| self.ooo[i]));
            debug_assert!(first.is_none_or(|(_, e)| latest.is_some_and(|l| l < e)), "the latest arrival is held");
            let mut n = 0;
            if let Some(b) = first {
                a.sack[0] = b;
                n = 1;
            }
            for &(s, e) in self.ooo.iter().rev() {
                if n == MAX_SACK_BLOCKS {
                    break;
                }
                if Some((s, e)) != first {
                    a.sack[n] = (s, e);
                    n += 1;
                }
            }
            a.n_sack = n as u8;
        }
        self.unacked = 0;
        self.delack_deadline = None;
        out.push(a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(ack_every: u32, ecn: EcnMode) -> TcpReceiver {
        TcpReceiver::new(ReceiverParams { sack: true, ack_every, delack_timeout: 200, ecn })
    }

    #[test]
    fn cumulative_acks_and_sack_blocks() {
        let mut r = rx(1, EcnMode::Off);
        let mut out = Vec::new();
        assert_eq!(r.on_segment(0, 0, 0, false, false, &mut out), 1);
        assert_eq!(out.pop().unwrap().ack, 1);
        r.on_segment(1, 2, 0, false, false, &mut out);
        r.on_segment(2, 5, 0, false, false, &mut out);
        r.on_segment(3, 3, 0, false, false, &mut out);
        let a = out.pop().unwrap();
        // Most recent block first (3 joined 2 into [2, 4)), then the highest others.
        assert_eq!((a.ack, a.n_sack, a.sack[0], a.sack[1]), (1, 2, (2, 4), (5, 6)));
        // Filling the hole at 1 jumps to 4 and acknowledges at once.
        assert_eq!(r.on_segment(4, 1, 0, false, false, &mut out), 3);
        let a = out.pop().unwrap();
        assert_eq!((a.ack, a.n_sack, a.sack[0]), (4, 1, (5, 6)));
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_timeout() {
        let mut r = rx(2, EcnMode::Off);
        let mut out = Vec::new();
        r.on_segment(0, 0, 7, false, false, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack_deadline, Some(200));
        r.on_segment(10, 1, 9, false, false, &mut out);
        let a = out.pop().unwrap();
        // The echo is the first held segment's timestamp (RFC 7323 §4.3).
        assert_eq!((a.ack, a.echo), (2, 7));
        r.on_segment(20, 2, 11, false, false, &mut out);
        r.on_delack_timer(219, &mut out);
        assert!(out.is_empty());
        r.on_delack_timer(220, &mut out);
        assert_eq!(out.pop().unwrap().ack, 3);
        // Out of order: immediate.
        r.on_segment(30, 5, 0, false, false, &mut out);
        assert_eq!(out.pop().unwrap().ack, 3);
    }

    #[test]
    fn classic_ece_latches_until_cwr() {
        let mut r = rx(1, EcnMode::Classic);
        let mut out = Vec::new();
        r.on_segment(0, 0, 0, true, false, &mut out);
        r.on_segment(0, 1, 0, false, false, &mut out);
        assert!(out.iter().all(|a| a.ece));
        out.clear();
        r.on_segment(0, 2, 0, false, true, &mut out);
        assert!(!out.pop().unwrap().ece);
    }

    #[test]
    fn accecn_counts_ce_packets_and_acks_on_change_and_on_two_marks() {
        // An ACK every 8 segments, so that only the AccECN rules send the ACKs below.
        let mut r = rx(8, EcnMode::AccEcn);
        let mut out = Vec::new();
        r.on_segment(0, 0, 0, false, false, &mut out);
        r.on_segment(1, 1, 0, false, false, &mut out);
        assert!(out.is_empty());
        // A CE after a non-CE: acknowledged at once (change-triggered), ACE 5 + 1.
        r.on_segment(2, 2, 0, true, false, &mut out);
        assert_eq!(out.iter().map(|a| (a.ack, a.ace, a.ece)).collect::<Vec<_>>(), vec![(3, 6, false)]);
        // CE, CE: the first waits (no change, one mark since the ACK), the second is the second
        // mark (increment-triggered): ACE 8 mod 8 = 0, covering both.
        r.on_segment(3, 3, 0, true, false, &mut out);
        assert_eq!(out.len(), 1);
        r.on_segment(4, 4, 0, true, false, &mut out);
        assert_eq!((out[1].ack, out[1].ace), (5, 0));
        // Back to unmarked: no ACK for a CE → not-CE change; the ACK ratio resumes.
        r.on_segment(5, 5, 0, false, false, &mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn dctcp_echo_is_exact_and_flushes_on_change() {
        let mut r = rx(2, EcnMode::Dctcp);
        let mut out = Vec::new();
        r.on_segment(0, 0, 0, false, false, &mut out);
        assert!(out.is_empty());
        // CE arrives: the held unmarked segment is acknowledged first without ECE.
        r.on_segment(1, 1, 0, true, false, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].ack, out[0].ece), (1, false));
        r.on_segment(2, 2, 0, true, false, &mut out);
        assert_eq!((out[1].ack, out[1].ece), (3, true));
    }

    #[test]
    fn dctcp_change_with_nothing_held_sends_no_extra_ack() {
        // RFC 8257 §3.2's immediate ACK on a CE change acknowledges the packets received under
        // the old state; Linux (dctcp_ece_ack_update) sends it only while a delayed ACK is
        // pending. With every segment acknowledged at once nothing is held, so a CE arrival
        // gets its own ACK only (ack 2, ECE), and no duplicate ACK of 1 before it.
        let mut r = rx(1, EcnMode::Dctcp);
        let mut out = Vec::new();
        r.on_segment(0, 0, 0, false, false, &mut out);
        r.on_segment(1, 1, 0, true, false, &mut out);
        assert_eq!(out.iter().map(|a| (a.ack, a.ece)).collect::<Vec<_>>(), vec![(1, false), (2, true)]);
    }

    #[test]
    fn without_sack_an_out_of_order_segment_gets_a_plain_duplicate_ack() {
        // RFC 2018 §2 and §4: SACK options go only on a connection that agreed to SACK; without
        // it, segment 2 arriving after 0 gets the immediate duplicate ACK of RFC 5681 §4.2
        // (ack 1) with no SACK block.
        let mut r = TcpReceiver::new(ReceiverParams { sack: false, ack_every: 1, delack_timeout: 200, ecn: EcnMode::Off });
        let mut out = Vec::new();
        r.on_segment(0, 0, 0, false, false, &mut out);
        r.on_segment(1, 2, 0, false, false, &mut out);
        let a = out.pop().unwrap();
        assert_eq!((a.ack, a.n_sack), (1, 0));
    }

    /// Property: through random arrivals (duplicates, in order, out of order), every ACK holds
    /// what a plain set of the received segments implies: the cumulative point is the lowest
    /// missing segment; the first SACK block is the run holding the segment just received
    /// when it came out of order, else the highest run; the others are the highest remaining
    /// runs (RFC 2018 §4), three blocks in all at most (fixed-seed generator).
    #[test]
    fn acks_agree_with_the_set_of_received_segments() {
        use std::collections::BTreeSet;
        let mut rng = aqm::rng::Rng::from_seed(2018);
        for round in 0..100 {
            // Every segment acknowledged, or every second in-order one (delayed ACKs): the
            // ACKs that do go out must agree all the same.
            let ack_every = 1 + round % 2;
            let (mut r, mut got, mut out) = (rx(ack_every, EcnMode::Off), BTreeSet::new(), Vec::new());
            for _ in 0..200 {
                let nxt = (0..).find(|x| !got.contains(x)).expect("a missing segment");
                let seq = (nxt + rng.next_u64() % 30).saturating_sub(3);
                assert_eq!(r.on_segment(0, seq, 0, false, false, &mut out), if seq == nxt { 1 + (nxt + 1..).take_while(|x| got.contains(x)).count() as u64 } else { 0 });
                got.insert(seq);
                let Some(a) = out.pop() else {
                    // Held back: only an in-order segment that filled no hole, with nothing
                    // out of order, can be (RFC 5681 §4.2).
                    assert!(ack_every > 1 && seq == nxt && got.range(nxt + 1..).next().is_none());
                    continue;
                };
                let ack = (0..).find(|x| !got.contains(x)).expect("a missing segment");
                // Maximal runs above the cumulative point, highest first.
                let mut runs: Vec<(u64, u64)> = Vec::new();
                for &x in got.range(ack..) {
                    match runs.last_mut() {
                        Some(run) if run.1 == x => run.1 = x + 1,
                        _ => runs.push((x, x + 1)),
                    }
                }
                runs.reverse();
                let first = runs.iter().copied().find(|&(s, e)| seq > nxt && s <= seq && seq < e).or(runs.first().copied());
                let blocks: Vec<(u64, u64)> = first.into_iter().chain(runs.iter().copied().filter(|&b| Some(b) != first)).take(MAX_SACK_BLOCKS).collect();
                assert_eq!((a.ack, &a.sack[..a.n_sack as usize]), (ack, &blocks[..]));
            }
        }
    }
}
