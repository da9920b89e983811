//! A flow: one sender host and one receiver host, their endpoints, schedule and counters.
//! A TCP flow runs one connection at a time: one for a bulk or single transfer, a new one for
//! each object of an HTTP-like session.

use std::num::NonZeroU64;

use aqm::{Nanos, Rng};
use serde::Serialize;

use crate::config::App;
use crate::tcp::receiver::MAX_SACK_BLOCKS;
use crate::tcp::state::{Deadline, SenderStats};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::udp::UdpSource;

/// C layout: the tag first, then the variant's fields in order (the receiver, then the sender),
/// which [`Flow`]'s layout relies on. The variants differ in size (a TCP pair is 672 bytes, a
/// UDP source 32) on purpose: every flow sits in one fixed-size record of the flows' table,
/// and boxing the TCP pair would add a pointer chase to every packet (issue 22).
#[repr(C)]
#[allow(clippy::large_enum_variant)]
pub enum Endpoint {
    Tcp { rx: TcpReceiver, tx: TcpSender },
    Udp(UdpSource),
}

impl Endpoint {
    /// The tag (a C `int`, padded to the variants' alignment) and a TCP receiver.
    const TAG_AND_RECEIVER_BYTES: usize = 8 + size_of::<TcpReceiver>();
}

/// Per-flow counters. Packet counts are of data packets unless named `acks_*`. C layout: the
/// counters every packet adds to come first, up to `goodput_bytes` (see [`Flow`]). In the
/// simulator a flow record's `dropped` and `acks_dropped` stay 0: its drops are counted apart
/// ([`DropCounts`]) and added by `Simulation::flow_counts`.
#[derive(Clone, Debug, Default, Serialize)]
#[repr(C)]
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

/// One flow's state, laid out for the many-flow case (C layout, aligned to a cache line; issue
/// 22). At 10,000 flows the flows' records outgrow the second-level cache and each distinct
/// line a packet touches is a miss, so what a packet reads is packed into few lines:
/// - lines 0 and 1: the connection's small fields, then the counters, whose first 80 bytes
///   (those every packet adds to, up to `goodput_bytes`) end line 1;
/// - line 2: the rarer counters and fields read once per connection;
/// - line 3: the endpoint's tag and the start of the receiver, line 4 the rest of it; a data
///   segment's delivery reads lines 0, 1, 3 and 4;
/// - lines 5 on: the sender, whose fields every ACK reads come first ([`TcpSender`]); an
///   ACK's delivery reads lines 0, 1, 3 and the sender's first nine (lines 5 to 13).
///
/// The fields' order and sizes place them so (the tests check the offsets).
#[repr(C, align(64))]
pub struct Flow {
    /// The current connection's id.
    pub conn: u32,
    pub packet_size: u32,
    /// Generation and time of the live retransmission-timer event (older ones are stale).
    pub timer_gen: u32,
    /// IP and transport header bytes of a data packet (TCP options included where the profile
    /// counts them, see `TcpConfig::data_header_bytes`; at most a few hundred).
    pub header_bytes: u16,
    /// DiffServ code point of the flow's data packets.
    pub dscp: u8,
    /// The current connection's transfer is complete.
    pub conn_done: bool,
    /// The forwarding plan's steps where the flow's data and its ACKs set off (see
    /// [`crate::net::plan`]).
    pub first_steps: [u32; 2],
    /// Size of the flow's ACKs by the number of SACK blocks they carry (headers and options).
    pub ack_len: [u16; MAX_SACK_BLOCKS + 1],
    /// Time of the live retransmission-timer event (see `timer_gen`).
    pub timer_at: Deadline,
    /// The current connection's payload size (None: bulk; a transfer is at least a byte).
    pub conn_bytes: Option<NonZeroU64>,
    pub stats: FlowStats,
    pub group: u32,
    pub start_ns: Nanos,
    pub access_delay_ns: Nanos,
    pub receiver_delay_ns: Nanos,
    /// One-way propagation delay between the flow's routers (the bottleneck's on the dumbbell).
    pub path_delay_ns: Nanos,
    pub endpoint: Endpoint,
    pub stop_ns: Option<Nanos>,
    pub app: App,
    /// The current connection's start time.
    pub conn_start_ns: Nanos,
    /// Completion time of the flow's first finite transfer.
    pub completed_ns: Option<Nanos>,
    /// The flow's own random stream (object sizes, think times).
    pub rng: Rng,
}

/// A flow's packets dropped (at any queue or by an impairment), kept in a table of their own
/// beside the flows' records: 16 bytes a flow, so that at 10,000 flows the table (160 KB) stays
/// in the second-level cache, where a drop counted in the flow's 1,024-byte record missed it
/// (drops are about one packet in seven there; counting them apart made that run 10 % faster,
/// issue 22).
#[derive(Clone, Copy, Debug, Default)]
pub struct DropCounts {
    pub data: u64,
    pub acks: u64,
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
    /// Hints the CPU to fetch what a delivery to this flow reads first: the connection's fields
    /// and the counters (lines 0 and 1), the endpoint's tag and the receiver (lines 3 and 4),
    /// as one run of lines 0 to 4 (see [`crate::prefetch`]): at 10,000 flows, fetching the
    /// same lines but line 2 cost 10–20 % more cycles a packet than the one run (issue 22;
    /// docs/speed.md). An ACK's sender lines follow a step later ([`Flow::prefetch_sender`]).
    #[inline]
    pub fn prefetch(&self) {
        crate::prefetch::lines(self, std::mem::offset_of!(Flow, endpoint) + Endpoint::TAG_AND_RECEIVER_BYTES);
    }

    /// Hints the CPU to fetch what an ACK's delivery reads of the sender: its leading fields
    /// (see [`TcpSender`]), lines 5 on. Reads the endpoint's tag, so [`Flow::prefetch`] should
    /// have run a little earlier.
    #[inline]
    pub fn prefetch_sender(&self) {
        if let Endpoint::Tcp { tx, .. } = &self.endpoint {
            crate::prefetch::lines(tx, TcpSender::ACK_READS_BYTES);
        }
    }

    /// Hints the CPU to fetch what a retransmission-timer event reads: the timer's generation
    /// (line 0), the endpoint's tag (line 3) and the sender's timers. The last address is where
    /// a TCP endpoint keeps them (the endpoint in C layout: the tag, the receiver, then the
    /// sender), computed without reading the tag, which is not fetched yet.
    #[inline]
    pub fn prefetch_timer(&self) {
        let endpoint = (&self.endpoint as *const Endpoint).cast::<u8>();
        crate::prefetch::address((self as *const Flow).cast());
        crate::prefetch::address(endpoint);
        crate::prefetch::address(endpoint.wrapping_add(Endpoint::TAG_AND_RECEIVER_BYTES + std::mem::offset_of!(TcpSender, timers)));
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
        self.packet_size - u32::from(self.header_bytes)
    }

    /// Wire length of segment `seq` of the current connection: full, except the tail of a
    /// finite transfer.
    pub fn segment_len(&self, seq: u64) -> u32 {
        let payload = self.payload() as u64;
        match self.conn_bytes {
            Some(total) => (total.get().saturating_sub(seq * payload).min(payload) as u32) + u32::from(self.header_bytes),
            None => self.packet_size,
        }
    }

    /// Segments in a transfer of `bytes` (None: bulk).
    pub fn segments(&self, bytes: Option<u64>) -> Option<u64> {
        bytes.map(|b| b.div_ceil(self.payload() as u64))
    }

    /// Payload bytes carried by `n` in-order segments of the current connection.
    pub fn payload_of(&self, first: u64, n: u64) -> u64 {
        (first..first + n).map(|s| (self.segment_len(s) - u32::from(self.header_bytes)) as u64).sum()
    }

    pub fn is_tcp(&self) -> bool {
        matches!(self.endpoint, Endpoint::Tcp { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::params::TcpConfig;
    use crate::tcp::ReceiverParams;

    const LINE: usize = 64;

    /// The layout the type's notes describe (issue 22), from the offsets the compiler chose:
    /// what every packet reads in lines 0 and 1, the endpoint's tag and the receiver in lines
    /// 3 and 4, the sender from the start of line 5. A field added in the wrong place moves
    /// one of them and fails here, rather than silently costing a cache miss per packet.
    #[test]
    fn hot_fields_sit_in_the_cache_lines_the_layout_names() {
        use std::mem::offset_of;
        assert_eq!(align_of::<Flow>(), LINE);
        let counters_end = offset_of!(Flow, stats) + offset_of!(FlowStats, retransmits);
        assert!(offset_of!(Flow, timer_at) < LINE && offset_of!(Flow, conn_bytes) < LINE);
        assert_eq!(counters_end, 2 * LINE, "the counters every packet adds to end line 1");
        let endpoint = offset_of!(Flow, endpoint);
        assert_eq!(endpoint / LINE, 3, "the endpoint's tag is in line 3");

        // Where the receiver and the sender sit inside a TCP endpoint (offset_of! does not
        // reach into an enum's variants): measured on a value.
        let cfg = TcpConfig::profile("ns2-sack").expect("a profile");
        let e = Endpoint::Tcp {
            rx: TcpReceiver::new(ReceiverParams { sack: true, ack_every: 1, delack_timeout: 0, ecn: cfg.ecn }),
            tx: TcpSender::new(&cfg, None, 1000),
        };
        let Endpoint::Tcp { rx, tx } = &e else { unreachable!() };
        let at = |p: usize| endpoint + p - (&e as *const Endpoint as usize);
        let (rx_at, tx_at) = (at(rx as *const TcpReceiver as usize), at(tx as *const TcpSender as usize));
        assert_eq!(rx_at + size_of::<TcpReceiver>(), endpoint + Endpoint::TAG_AND_RECEIVER_BYTES);
        assert_eq!((rx_at + size_of::<TcpReceiver>() - 1) / LINE, 4, "the receiver ends in line 4");
        assert_eq!(tx_at, 5 * LINE, "the sender starts line 5");
        assert_eq!((tx_at + TcpSender::ACK_READS_BYTES - 1) / LINE, 13, "an ACK reads the sender's lines 5 to 13");
        // A regression pin of the size the docs quote (docs/speed.md, README): 16 lines.
        assert_eq!(size_of::<Flow>(), 16 * LINE);
    }
}
