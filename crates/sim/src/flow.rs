//! A flow: its endpoints, its schedule and its counters.

use aqm::Nanos;
use serde::Serialize;

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
}

pub struct Flow {
    pub group: u32,
    pub start_ns: Nanos,
    pub stop_ns: Option<Nanos>,
    pub access_delay_ns: Nanos,
    pub receiver_delay_ns: Nanos,
    pub packet_size: u32,
    pub transfer_bytes: Option<u64>,
    pub endpoint: Endpoint,
    pub stats: FlowStats,
    /// When a finite transfer was fully acknowledged.
    pub completed_ns: Option<Nanos>,
    /// Generation and time of the live retransmission-timer event (older ones are stale).
    pub timer_gen: u32,
    pub timer_at: Option<Nanos>,
}

impl Flow {
    /// Payload bytes in a full segment.
    pub fn payload(&self) -> u32 {
        self.packet_size - crate::net::HEADER_BYTES
    }

    /// Wire length of segment `seq`: full, except the tail of a finite transfer.
    pub fn segment_len(&self, seq: u64) -> u32 {
        let payload = self.payload() as u64;
        match self.transfer_bytes {
            Some(total) => {
                let rest = total - seq * payload;
                (rest.min(payload) as u32) + crate::net::HEADER_BYTES
            }
            None => self.packet_size,
        }
    }

    /// Segments in a finite transfer.
    pub fn total_segments(payload: u32, transfer_bytes: Option<u64>) -> Option<u64> {
        transfer_bytes.map(|b| b.div_ceil(payload as u64))
    }

    /// Payload bytes the receiver got in order.
    pub fn goodput_bytes(&self) -> u64 {
        match &self.endpoint {
            Endpoint::Tcp { rx, .. } => {
                let b = rx.rcv_nxt * self.payload() as u64;
                self.transfer_bytes.map_or(b, |t| b.min(t))
            }
            Endpoint::Udp(_) => self.stats.delivered * self.payload() as u64,
        }
    }

    pub fn is_tcp(&self) -> bool {
        matches!(self.endpoint, Endpoint::Tcp { .. })
    }
}
