//! Packets and the arena that holds them.
//!
//! Packets carry no payload bytes, only what the protocols and queues read. They live in an
//! arena and are named by a `u32` index, which is what queues and events carry; freed slots
//! are reused, so memory is bounded by the number of packets in flight, not by simulated time.

use aqm::{Ecn, Nanos};

use crate::tcp::receiver::{AckOut, MAX_SACK_BLOCKS};

/// Bytes of IP and TCP/UDP headers in every packet (20 + 20, no options).
pub const HEADER_BYTES: u32 = 40;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A TCP segment or a UDP datagram carrying `seq`.
    Data,
    /// A TCP acknowledgement of everything below `seq`.
    Ack,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: u32,
    pub len: u32,
    pub kind: Kind,
    /// Where the packet stands on its route: its step in the forwarding plan (see
    /// [`crate::net::plan`]). Data follows the flow's forward route, ACKs its reverse one.
    pub step: u32,
    pub ecn: Ecn,
    /// Data: segment number. Ack: cumulative acknowledgement (next segment expected).
    pub seq: u64,
    /// Data: time the segment was sent. Ack: the echoed send time of the segment that
    /// triggered it (the RFC 7323 timestamp option, used for RTT samples).
    pub ts: Nanos,
    /// Per-Packet Value code carried in the header (0 when unused).
    pub pv: u8,
    /// DiffServ code point of the flow (RFC 2474).
    pub dscp: u8,
    /// TCP flags: ECE on ACKs, CWR on data (RFC 3168 §6.1).
    pub ece: bool,
    pub cwr: bool,
    /// Accurate ECN's ACE field on ACKs (RFC 9768): CE packets received, modulo 8.
    pub ace: u8,
    /// Which connection of the flow this belongs to (a flow running successive transfers opens
    /// a new connection for each; stragglers of an old one are ignored).
    pub conn: u32,
    /// SACK blocks an ACK carries (RFC 2018); the blocks themselves wait beside the packet in
    /// the [`Arena`], so that a packet record fits one cache line (issue 22).
    pub n_sack: u8,
}

// The forwarding path reads a packet record per event, mostly a cache miss at high rates: one
// line per record, not two.
const _: () = assert!(std::mem::size_of::<Packet>() <= 64);

impl Packet {
    pub fn data(flow: u32, len: u32, seq: u64, now: Nanos) -> Self {
        Packet {
            flow,
            len,
            kind: Kind::Data,
            step: 0,
            ecn: Ecn::NotEct,
            seq,
            ts: now,
            pv: 0,
            dscp: 0,
            ece: false,
            cwr: false,
            ace: 0,
            conn: 0,
            n_sack: 0,
        }
    }

    /// An ACK carrying the receiver's acknowledgement `a`.
    pub fn ack(flow: u32, conn: u32, a: &AckOut) -> Self {
        Packet {
            len: HEADER_BYTES,
            kind: Kind::Ack,
            seq: a.ack,
            ts: a.echo,
            ece: a.ece,
            ace: a.ace,
            conn,
            n_sack: a.n_sack,
            ..Packet::data(flow, HEADER_BYTES, 0, 0)
        }
    }
}

/// Packets in flight, by index, and the SACK blocks of each (read only for ACKs that carry
/// some: the per-packet path touches the packet records alone).
#[derive(Default)]
pub struct Arena {
    slots: Vec<Packet>,
    /// A slot's SACK blocks as offsets from its cumulative ACK (`seq`): blocks lie above it
    /// and within the window, whose size fits 32 bits (`TcpConfig::rwnd`). Half the bytes of
    /// absolute sequence numbers, for a table as long as the packets in flight (issue 22).
    sacks: Vec<[(u32, u32); MAX_SACK_BLOCKS]>,
    free: Vec<u32>,
}

impl Arena {
    /// Stores packet `p` and its `sack` blocks (`p.n_sack` of them).
    #[inline]
    pub fn alloc(&mut self, p: Packet, sack: &[(u64, u64)]) -> u32 {
        debug_assert_eq!(sack.len(), p.n_sack as usize);
        let i = if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            self.sacks.push([(0, 0); MAX_SACK_BLOCKS]);
            (self.slots.len() - 1) as u32
        };
        // Data packets carry none: nothing to write on their path.
        let offset = |x: u64| u32::try_from(x - p.seq).expect("a SACK block lies within the window above the ACK (32 bits)");
        for (slot, &(start, end)) in self.sacks[i as usize].iter_mut().zip(sack) {
            *slot = (offset(start), offset(end));
        }
        i
    }

    /// The SACK blocks packet `id` carries, as a fixed-size array whose first `n_sack` blocks
    /// are valid (read only when there are some).
    #[inline]
    pub fn sack_blocks(&self, id: u32) -> [(u64, u64); MAX_SACK_BLOCKS] {
        let p = &self.slots[id as usize];
        let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
        if p.n_sack > 0 {
            for (b, &(start, end)) in blocks.iter_mut().zip(&self.sacks[id as usize]) {
                *b = (p.seq + start as u64, p.seq + end as u64);
            }
        }
        blocks
    }

    #[inline]
    pub fn free(&mut self, id: u32) {
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Asks the CPU to bring packet `id`'s record (and with `sack` its SACK blocks, which only
    /// a delivery reads) into the cache ahead of their use: a packet that has crossed a long link is cold by the time it
    /// arrives, and the events before it hide the memory latency. A hint only; no effect on
    /// results.
    #[inline]
    pub fn prefetch(&self, id: u32, sack: bool) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::prefetch::record(p);
        }
        if let Some(s) = self.sacks.get(id as usize).filter(|_| sack) {
            crate::prefetch::record(s);
        }
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Calls `f` on every live packet, found slot by slot (independently of `live`, which
    /// trusts the free list to hold each freed slot once).
    pub fn for_each_live(&self, mut f: impl FnMut(&Packet)) {
        let mut free = vec![false; self.slots.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        self.slots.iter().zip(&free).filter(|(_, &dead)| !dead).for_each(|(p, _)| f(p));
    }

    /// Slots ever allocated (the high-water mark of packets in flight).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ACK packet carries everything the receiver put in it: the cumulative ACK, the echoed
    /// timestamp, ECE, Accurate ECN's ACE counter (RFC 9768: which starts at 5, so 0 would be a
    /// change of 3 CE marks to the sender), the connection and the SACK blocks, at 40 bytes.
    #[test]
    fn an_ack_carries_the_receivers_fields() {
        let mut sack = [(0, 0); MAX_SACK_BLOCKS];
        sack[0] = (120, 125);
        sack[1] = (130, 131);
        let out = AckOut { ack: 100, sack, n_sack: 2, ece: true, ace: 5, echo: 7_000 };
        let p = Packet::ack(3, 9, &out);
        assert_eq!((p.flow, p.conn, p.kind, p.len), (3, 9, Kind::Ack, HEADER_BYTES));
        assert_eq!((p.seq, p.ts, p.ece, p.ace, p.n_sack, p.cwr), (100, 7_000, true, 5, 2, false));
        let mut a = Arena::default();
        let id = a.alloc(p, &sack[..2]);
        assert_eq!(a.sack_blocks(id)[..2], sack[..2]);
    }

    #[test]
    fn arena_reuses_freed_slots() {
        let mut a = Arena::default();
        let x = a.alloc(Packet::data(1, 1000, 0, 0), &[]);
        let y = a.alloc(Packet::data(1, 1000, 1, 0), &[]);
        a.free(x);
        let z = a.alloc(Packet::data(2, 500, 7, 3), &[]);
        assert_eq!(z, x);
        assert_eq!(a.get(z).seq, 7);
        assert_eq!(a.get(y).seq, 1);
        assert_eq!((a.live(), a.capacity()), (2, 2));
        let mut seen = Vec::new();
        a.for_each_live(|p| seen.push(p.seq));
        assert_eq!(seen, vec![7, 1]);
        // A slot freed twice: the free list now undercounts the live packets.
        a.free(y);
        a.free(y);
        let mut n = 0;
        a.for_each_live(|_| n += 1);
        assert_eq!((a.live(), n), (0, 1));
    }
}

