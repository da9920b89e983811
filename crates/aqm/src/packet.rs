//! What a queue sees of a packet.

use crate::time::Nanos;

/// The two ECN bits of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

impl Ecn {
    /// The field's two bits as they sit in the IP header (RFC 3168 §5: ECT(1) 01, ECT(0) 10,
    /// CE 11).
    pub fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0,
            Ecn::Ect1 => 1,
            Ecn::Ect0 => 2,
            Ecn::Ce => 3,
        }
    }

    /// True when the sender declared the packet ECN-capable (ECT(0), ECT(1) or already CE).
    pub fn is_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }
}

/// A packet as a queueing discipline sees it: 24 bytes, copied freely.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pkt {
    /// The owner's handle (the simulator's arena index, or a live packet's slot); opaque here.
    pub id: u32,
    /// Length on the wire, in bytes.
    pub len: u32,
    /// Flow identifier (the simulator's flow id, or a 5-tuple hash on live traffic).
    pub flow: u32,
    /// ECN field; a queue that marks sets it to [`Ecn::Ce`].
    pub ecn: Ecn,
    /// Per-Packet Value code (8 bits, 30·log10(V)); 0 when the packet carries none.
    pub pv: u8,
    /// DiffServ code point (RFC 2474), 0..=63; classifiers may select on it.
    pub dscp: u8,
    /// Time the packet entered the queue, set by the queue on enqueue.
    pub enqueued_at: Nanos,
}

// The size the per-packet paths copy (and the docs state).
const _: () = assert!(std::mem::size_of::<Pkt>() == 24);

impl Pkt {
    pub fn new(id: u32, len: u32, flow: u32) -> Self {
        Pkt { id, len, flow, ecn: Ecn::NotEct, pv: 0, dscp: 0, enqueued_at: 0 }
    }
}
