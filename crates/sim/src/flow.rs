//! A flow: one sender host and one receiver host, their endpoints, schedule and counters.
//! A TCP flow runs one connection at a time: one for a bulk or single transfer, a new one for
//! each object of an HTTP-like session.

use aqm::{Nanos, Rng};
use serde::Serialize;

use crate::config::App;
use crate::tcp::receiver::MAX_SACK_BLOCKS;
use crate::tcp::state::SenderStats;
use crate::tcp::{TcpReceiver, TcpSender};
use crate::udp::UdpSource;

pub enum Endpoint {
    Tcp { tx: TcpSender, rx: TcpReceiver },
    Udp(UdpSource),
}

/// Per-flow counters. Packet counts are of data packets unless named `acks_*`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowStats {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    /// Data packets that arrived with CE set (marked at any queue).
    pub marked: u64,
    pub acks_sent: u64,
    pub acks_delivered: u64,
    pub acks_dropped: u64,
    /// Wire bytes of data delivered to the receiver.
    pub bytes_delivered: u64,
    /// The same, counting only deliveries at or after the warm-up time.
    pub bytes_measured: u64,
    /// Payload delivered in order to the application, over all connections.
    pub goodput_bytes: u64,
    /// The sender's counts: the live connection's are kept by its sender and added by
    /// [`Flow::counts`]; these fields hold those of the flow's earlier connections.
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    /// Congestion responses that left ssthresh or cwnd above the window in force before them
    /// (0 with the window and SACK-pipe rules; see `TcpSender::audit_response`).
    pub window_raising_responses: u64,
    /// Finite transfers completed.
    pub transfers: u64,
}

/// One flow's state. The fields every packet reads come first and in this order (C layout,
/// aligned to a cache line): the connection's small fields, the counters, then the endpoint,
/// whose tag sits right after them. At many flows each distinct cache line a packet touches
/// is a miss; the start of this record is a few adjacent lines (issue 22).
#[repr(C, align(64))]
pub struct Flow {
    /// The current connection's id.
    pub conn: u32,
    pub packet_size: u32,
    /// IP and transport header bytes of a data packet (TCP options included where the profile
    /// counts them, see `TcpConfig::data_header_bytes`).
    pub header_bytes: u32,
    /// Generation and time of the live retransmission-timer event (older ones are stale).
    pub timer_gen: u32,
    /// The forwarding plan's steps where the flow's data and its ACKs set off (see
    /// [`crate::net::plan`]).
    pub first_steps: [u32; 2],
    /// Size of the flow's ACKs by the number of SACK blocks they carry.
    pub ack_len: [u32; MAX_SACK_BLOCKS + 1],
    /// DiffServ code point of the flow's data packets.
    pub dscp: u8,
    /// The current connection's transfer is complete.
    pub conn_done: bool,
    pub timer_at: Option<Nanos>,
    /// The current connection's payload size (None: bulk).
    pub conn_bytes: Option<u64>,
    pub stats: FlowStats,
    pub endpoint: Endpoint,
    pub group: u32,
    pub start_ns: Nanos,
    pub stop_ns: Option<Nanos>,
    pub access_delay_ns: Nanos,
    pub receiver_delay_ns: Nanos,
    /// One-way propagation delay between the flow's routers (the bottleneck's on the dumbbell).
    pub path_delay_ns: Nanos,
    pub app: App,
    /// The current connection's start time.
    pub conn_start_ns: Nanos,
    /// Completion time of the flow's first finite transfer.
    pub completed_ns: Option<Nanos>,
    /// The flow's own random stream (object sizes, think times).
    pub rng: Rng,
}

impl FlowStats {
    /// Adds a sender's counts (a connection that is closing).
    pub fn add_sender(&mut self, s: &SenderStats) {
        self.retransmits += s.retransmits;
        self.timeouts += s.timeouts;
        self.fast_recoveries += s.fast_recoveries;
        self.ecn_reductions += s.ecn_reductions;
        self.window_raising_responses += s.window_raising_responses;
    }
}

impl Flow {
    /// Hints the CPU to fetch what a delivery to this flow reads first: the record's first line
    /// (the connection's fields) and the counters (see [`crate::prefetch`]). Fetching all of
    /// the receiver or the sender too cost more than it saved (issue 22: measured at 10 Gb/s
    /// and at 10,000 flows); an ACK's sender lines follow a step later ([`Flow::prefetch_sender`]).
    #[inline]
    pub fn prefetch(&self) {
        crate::prefetch::head(self);
        crate::prefetch::record(&self.stats);
    }

    /// Hints the CPU to fetch what an ACK's delivery reads of the sender: its leading fields
    /// (see [`TcpSender`]). Reads the endpoint's tag, so [`Flow::prefetch`] should have run a
    /// little earlier. (Fetching the receiver ahead of data measured no faster.)
    #[inline]
    pub fn prefetch_sender(&self) {
        if let Endpoint::Tcp { tx, .. } = &self.endpoint {
            crate::prefetch::lines(tx, TcpSender::ACK_READS_BYTES);
        }
    }

    /// The flow's counters over all its connections, the live one included.
    pub fn counts(&self) -> FlowStats {
        let mut c = self.stats.clone();
        if let Endpoint::Tcp { tx, .. } = &self.endpoint {
            c.add_sender(&tx.stats);
        }
        c
    }

    /// Payload bytes in a full segment.
    pub fn payload(&self) -> u32 {
        self.packet_size - self.header_bytes
    }

    /// Wire length of segment `seq` of the current connection: full, except the tail of a
    /// finite transfer.
    pub fn segment_len(&self, seq: u64) -> u32 {
        let payload = self.payload() as u64;
        match self.conn_bytes {
            Some(total) => (total.saturating_sub(seq * payload).min(payload) as u32) + self.header_bytes,
            None => self.packet_size,
        }
    }

    /// Segments in a transfer of `bytes` (None: bulk).
    pub fn segments(&self, bytes: Option<u64>) -> Option<u64> {
        bytes.map(|b| b.div_ceil(self.payload() as u64))
    }

    /// Payload bytes carried by `n` in-order segments of the current connection.
    pub fn payload_of(&self, first: u64, n: u64) -> u64 {
        (first..first + n).map(|s| (self.segment_len(s) - self.header_bytes) as u64).sum()
    }

    pub fn is_tcp(&self) -> bool {
        matches!(self.endpoint, Endpoint::Tcp { .. })
    }
}
