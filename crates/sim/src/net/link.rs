//! Links: rate, propagation delay, the discipline in front of them, the network device below
//! it (link-layer overhead, device queue) and exact serialization.

use std::collections::VecDeque;

use aqm::{Nanos, Pkt, QdiscConfig, QueueDisc, QueueLimit, Qdisc};
use serde::Serialize;

use super::impair::Impairment;
use crate::config::DeviceConfig;

/// A one-way link. With a rate, packets queue in its discipline and are serialized one at a
/// time; without one it is a pure propagation delay (an idealised access link).
///
/// What only a link with a rate needs (its discipline, device, transmitter and counters) is a
/// [`Port`] behind a pointer, which a pure-delay link does without: an ideal-access dumbbell
/// has four such links per flow, and they would otherwise cost a port's ~880 bytes each
/// (issue 22: a million flows in under 2 GB). The port's fields read through the link
/// (`Deref`); a pure-delay link reads those of an idle port.
pub struct Link {
    pub name: String,
    pub rate_bps: Option<u64>,
    pub delay_ns: Nanos,
    /// The reported queue it belongs to (see [`crate::queues`]).
    pub report: u32,
    port: Option<Box<Port>>,
}

/// The queueing side of a link with a rate.
pub struct Port {
    pub qdisc: Option<Qdisc>,
    /// Loss or outages in front of the queue, if configured.
    pub impairment: Option<Impairment>,
    /// Link-layer bytes framing every packet on the wire.
    pub overhead_bytes: u32,
    /// Packets handed down by the discipline, waiting for the transmitter (None: the
    /// discipline feeds the transmitter directly).
    pub device: Option<DeviceQueue>,
    /// Time the packet being serialized finishes.
    pub busy_until: Nanos,
    /// A `TxDone` event is pending for `busy_until`.
    pub txdone_pending: bool,
    /// Remainder of (bits · 10⁹) mod rate carried between packets, so that the long-run
    /// serialization rate is exact even when a packet time is not a whole number of ns.
    rem: u64,
    /// IP bytes and packets that started transmission at or after the warm-up time.
    pub tx_bytes_measured: u64,
    pub tx_packets_measured: u64,
    pub tx_packets: u64,
    /// What happened at this link's queue, counted by the simulator (not by the discipline);
    /// its `departures` are filled in by [`Link::queue_counts`].
    pub counts: QueueCounts,
    /// The most its discipline may hold, from the configuration (see [`Capacity::of`]).
    pub capacity: Capacity,
}

impl Port {
    /// Nothing queued, sent or configured: what a pure-delay link reads.
    const IDLE: Port = Port {
        qdisc: None,
        impairment: None,
        overhead_bytes: 0,
        device: None,
        busy_until: 0,
        txdone_pending: false,
        rem: 0,
        tx_bytes_measured: 0,
        tx_packets_measured: 0,
        tx_packets: 0,
        counts: QueueCounts::ZERO,
        capacity: Capacity::UNBOUNDED,
    };
}

static IDLE_PORT: Port = Port::IDLE;

impl std::ops::Deref for Link {
    type Target = Port;
    #[inline]
    fn deref(&self) -> &Port {
        self.port.as_deref().unwrap_or(&IDLE_PORT)
    }
}

impl std::ops::DerefMut for Link {
    /// A pure-delay link that is written to gets a port of its own, so a write is never lost
    /// (the simulator writes only to links with a rate).
    #[inline]
    fn deref_mut(&mut self) -> &mut Port {
        self.port.get_or_insert_with(|| Box::new(Port::IDLE))
    }
}

/// The device queue under a discipline (ns-3's NetDevice TxQueue, a NIC ring).
pub struct DeviceQueue {
    /// Packets it holds at most, besides the one being serialized.
    pub capacity: u32,
    /// Waiting packets and the time each left the discipline.
    pub fifo: VecDeque<(Pkt, Nanos)>,
}

impl DeviceQueue {
    /// The device can take another packet from the discipline.
    #[inline]
    pub fn has_room(&self) -> bool {
        self.fifo.len() < self.capacity as usize
    }
}

/// Per-queue counters, kept by the simulator from what it hands the discipline and what the
/// discipline reports: arrivals = departures + drops at the discipline + resident.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QueueCounts {
    /// Packets offered to the discipline (after any impairment).
    pub arrivals: u64,
    /// Packets the discipline released to the device or the wire.
    pub departures: u64,
    /// Tail drops at the discipline's limit.
    pub drops_overflow: u64,
    /// Early drops by the control law on arrival.
    pub drops_early: u64,
    /// Drops by the control law at the head of the queue.
    pub drops_dequeue: u64,
    /// CE marks.
    pub marks: u64,
    /// Packets lost to the link's impairment before reaching the queue.
    pub drops_impairment: u64,
    /// ACKs among all drops above.
    pub acks_dropped: u64,
    /// Packets and bytes in the discipline now, by the simulator's own count.
    pub resident_packets: u64,
    pub resident_bytes: u64,
}

impl QueueCounts {
    pub const ZERO: QueueCounts = QueueCounts {
        arrivals: 0,
        departures: 0,
        drops_overflow: 0,
        drops_early: 0,
        drops_dequeue: 0,
        marks: 0,
        drops_impairment: 0,
        acks_dropped: 0,
        resident_packets: 0,
        resident_bytes: 0,
    };

    /// Drops of every kind.
    pub fn drops(&self) -> u64 {
        self.drops_overflow + self.drops_early + self.drops_dequeue + self.drops_impairment
    }

    /// Adds `o`'s counts (and resident state) to these.
    pub fn add(&mut self, o: &QueueCounts) {
        self.arrivals += o.arrivals;
        self.departures += o.departures;
        self.drops_overflow += o.drops_overflow;
        self.drops_early += o.drops_early;
        self.drops_dequeue += o.drops_dequeue;
        self.marks += o.marks;
        self.drops_impairment += o.drops_impairment;
        self.acks_dropped += o.acks_dropped;
        self.resident_packets += o.resident_packets;
        self.resident_bytes += o.resident_bytes;
    }

    /// What was counted since `start` (counts taken earlier from the same queue); what the
    /// queue holds is these counts' own, at the later time.
    pub fn since(&self, start: &QueueCounts) -> QueueCounts {
        QueueCounts {
            arrivals: self.arrivals - start.arrivals,
            departures: self.departures - start.departures,
            drops_overflow: self.drops_overflow - start.drops_overflow,
            drops_early: self.drops_early - start.drops_early,
            drops_dequeue: self.drops_dequeue - start.drops_dequeue,
            marks: self.marks - start.marks,
            drops_impairment: self.drops_impairment - start.drops_impairment,
            acks_dropped: self.acks_dropped - start.acks_dropped,
            ..*self
        }
    }
}

/// Upper bounds on what a discipline holds; `u64::MAX` where there is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    pub packets: u64,
    pub bytes: u64,
}

impl Capacity {
    pub const UNBOUNDED: Capacity = Capacity { packets: u64::MAX, bytes: u64::MAX };

    /// The bounds a discipline configured by `q` must respect, read from the configuration's
    /// resolved JSON form (its `limit`; for a strict-priority pair `high_limit` plus the inner
    /// discipline's), so that the check does not trust the discipline's own code. A packet
    /// limit of n also bounds the bytes by n·mtu; a byte limit of b the packets by b (every
    /// packet has at least one byte).
    pub fn of(q: &QdiscConfig, mtu: u32) -> Capacity {
        let resolved = q.resolve().expect("a validated discipline resolves");
        let v = serde_json::to_value(resolved).expect("a discipline's configuration serializes");
        Self::of_json(&v, mtu as u64)
    }

    fn of_json(v: &serde_json::Value, mtu: u64) -> Capacity {
        let limit = |key: &str| -> Option<Capacity> {
            let l: QueueLimit = serde_json::from_value(v.get(key)?.clone()).ok()?;
            Some(match l {
                QueueLimit::Packets(n) => Capacity { packets: n as u64, bytes: n as u64 * mtu },
                QueueLimit::Bytes(b) => Capacity { packets: b, bytes: b },
            })
        };
        match (limit("limit"), limit("high_limit"), v.get("low")) {
            (Some(c), _, _) => c,
            (None, Some(high), Some(low)) => {
                let low = Self::of_json(low, mtu);
                Capacity { packets: high.packets.saturating_add(low.packets), bytes: high.bytes.saturating_add(low.bytes) }
            }
            _ => Capacity::UNBOUNDED,
        }
    }

    /// Whether `packets` and `bytes` fit.
    #[inline]
    pub fn holds(&self, packets: u64, bytes: u64) -> bool {
        packets <= self.packets && bytes <= self.bytes
    }
}

impl Link {
    pub fn new(name: String, rate_bps: Option<u64>, delay_ns: Nanos, qdisc: Option<Qdisc>) -> Self {
        let port = rate_bps.is_some().then(|| Box::new(Port { qdisc, ..Port::IDLE }));
        Link { name, rate_bps, delay_ns, report: crate::queues::NO_QUEUE, port }
    }

    /// Records the discipline's configured bounds, which the invariant checks hold it to
    /// (none on a pure-delay link, which queues nothing).
    pub fn with_capacity(mut self, capacity: Capacity) -> Self {
        if let Some(p) = self.port.as_deref_mut() {
            p.capacity = capacity;
        }
        self
    }

    /// Gives the link its network device: framing overhead and an optional device queue (a
    /// pure-delay link serializes nothing, so it has none).
    pub fn with_device(mut self, d: &DeviceConfig) -> Self {
        if let Some(p) = self.port.as_deref_mut() {
            p.overhead_bytes = d.overhead_bytes;
            p.device = (d.queue_packets > 0).then(|| DeviceQueue { capacity: d.queue_packets, fifo: VecDeque::new() });
        }
        self
    }

    /// Serialization time of a `len`-byte packet at the current rate, in ns: its bytes plus
    /// the link-layer overhead (ns-3's `DataRate::CalculateBytesTxTime` of the framed packet).
    #[inline]
    pub fn serialize(&mut self, len: u32) -> Nanos {
        let rate = self.rate_bps.expect("serialize on a pure-delay link");
        let bits = (len + self.overhead_bytes) as u64 * 8;
        // A 64-bit division whenever the numerator fits (any packet under ~2 GB): the same
        // quotient and remainder as the 128-bit one, at a fraction of its cost.
        if let Some(num) = bits.checked_mul(1_000_000_000).and_then(|n| n.checked_add(self.rem)) {
            self.rem = num % rate;
            return num / rate;
        }
        let num = bits as u128 * 1_000_000_000 + self.rem as u128;
        self.rem = (num % rate as u128) as u64;
        (num / rate as u128) as Nanos
    }

    /// Changes the rate; a packet already being serialized finishes at the old rate.
    pub fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = Some(rate_bps);
        self.rem = 0;
        if let Some(q) = self.qdisc.as_mut() {
            q.set_link_rate(rate_bps);
        }
    }

    /// Packets waiting in the device queue.
    pub fn device_backlog(&self) -> usize {
        self.device.as_ref().map_or(0, |d| d.fifo.len())
    }

    /// The queue's counts, with its departures: what the transmitter sent plus what waits in
    /// the device queue (counted there, not by the discipline).
    pub fn queue_counts(&self) -> QueueCounts {
        QueueCounts { departures: self.tx_packets + self.device_backlog() as u64, ..self.counts }
    }

    /// Bytes on the wire (link-layer overhead included) that started transmission at or
    /// after the warm-up time: what occupied the link.
    pub fn wire_bytes_measured(&self) -> u64 {
        self.tx_bytes_measured + self.overhead_bytes as u64 * self.tx_packets_measured
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_in_the_long_run() {
        // 500 B at 15 Mb/s is 266 666.67 ns: three packets take exactly 800 000 ns.
        let mut l = Link::new("x".into(), Some(15_000_000), 0, None);
        let t: Vec<Nanos> = (0..3).map(|_| l.serialize(500)).collect();
        assert_eq!(t, vec![266_666, 266_667, 266_667]);
        let mut g = Link::new("g".into(), Some(10_000_000), 0, None);
        assert_eq!(g.serialize(1000), 800_000);
        g.set_rate(1_000_000_000);
        assert_eq!(g.serialize(1500), 12_000);
    }

    /// The rounding rule, from the physics rather than from the code: a link sending back to
    /// back at R bit/s ends its k-th packet S_k / R s after it began, S_k being the bits of
    /// packets 1..=k with their framing. A clock of whole ns that is never ahead of that
    /// instant and never a whole ns behind it reads ⌊S_k·10⁹ / R⌋, so packet k takes
    /// ⌊S_k·10⁹/R⌋ − ⌊S_(k−1)·10⁹/R⌋ ns: its exact time rounded down or up. Worked here in
    /// u128, over random sizes, rates that divide 10⁹ and rates that do not, with and without
    /// framing.
    fn floored_cumulative(bits: u128, rate: u64) -> u128 {
        bits * 1_000_000_000 / rate as u128
    }

    #[test]
    fn each_packet_ends_at_the_floored_cumulative_time_of_the_bits_sent() {
        let mut rng = aqm::Rng::from_seed(5);
        for (rate, overhead) in [(15_000_000, 0), (7_000_000, 38), (999_999_937, 2), (3, 5), (1, 0), (40_000_000_000, 0)] {
            let dev = DeviceConfig { overhead_bytes: overhead, queue_packets: 0 };
            let mut l = Link::new("x".into(), Some(rate), 0, None).with_device(&dev);
            let (mut bits, mut total) = (0u128, 0u128);
            for k in 0..2000 {
                let len = 40 + (rng.next_u64() % 1461) as u32;
                let before = floored_cumulative(bits, rate);
                bits += (len + overhead) as u128 * 8;
                let want = floored_cumulative(bits, rate) - before;
                let t = l.serialize(len) as u128;
                assert_eq!(t, want, "rate {rate}, overhead {overhead}, packet {k} of {len} B");
                // Within one ns of the exact time, B·8 / R s.
                let exact_ns = (len + overhead) as f64 * 8e9 / rate as f64;
                assert!((t as f64 - exact_ns).abs() < 1.0 + 1e-9 * exact_ns, "{t} vs {exact_ns}");
                total += t;
            }
            assert_eq!(total, floored_cumulative(bits, rate), "rate {rate}: the run's time");
        }
    }

    #[test]
    fn a_packet_past_64_bit_arithmetic_keeps_the_rule() {
        // 3·10⁹ B is 2.4·10¹⁰ bits: 2.4·10¹⁹ bit·ns, past u64's 1.8·10¹⁹. At 7 bit/s,
        // 2.4·10¹⁹ = 7 · 3 428 571 428 571 428 571 + 3: the first takes the quotient and leaves 3,
        // the second (2.4·10¹⁹ + 3 = 7 · 3 428 571 428 571 428 571 + 6) the same and leaves 6, the
        // third (2.4·10¹⁹ + 6 = 7 · 3 428 571 428 571 428 572 + 2) one ns more and leaves 2; a
        // 1-byte packet then takes (8·10⁹ + 2) / 7 = 1 142 857 143 rem 1 (the 64-bit path
        // carrying the 128-bit one's remainder).
        let mut l = Link::new("slow".into(), Some(7), 0, None);
        let t: Vec<Nanos> = (0..3).map(|_| l.serialize(3_000_000_000)).collect();
        assert_eq!(t, vec![3_428_571_428_571_428_571, 3_428_571_428_571_428_571, 3_428_571_428_571_428_572]);
        assert_eq!(l.serialize(1), 1_142_857_143);
        // The four sum to ⌊(7.2·10¹⁹ + 8·10⁹) / 7⌋.
        let sum: u128 = t.iter().map(|&x| x as u128).sum::<u128>() + 1_142_857_143;
        assert_eq!(sum, floored_cumulative(3 * 24_000_000_000 + 8, 7));
        // Same with framing at a rate that is not a divisor: the general rule.
        let dev = DeviceConfig { overhead_bytes: 38, queue_packets: 0 };
        let mut f = Link::new("framed".into(), Some(999_999_937), 0, None).with_device(&dev);
        let mut bits = 0u128;
        for len in [3_000_000_000u32, 1500, 4_000_000_000, 40, 2_500_000_000] {
            let before = floored_cumulative(bits, 999_999_937);
            bits += (len as u128 + 38) * 8;
            assert_eq!(f.serialize(len) as u128, floored_cumulative(bits, 999_999_937) - before, "{len} B");
        }
    }

    #[test]
    fn a_rate_change_restarts_the_carried_remainder() {
        // 500 B at 15 Mb/s: 4·10¹² bit·ns = 15·10⁶ · 266 666 + 10⁷, so 266 666 ns and a
        // remainder of 10⁷ carried. Set to the same rate, the link starts a new run: the next
        // packet takes 266 666 ns again, not the 266 667 the carry would give.
        let mut l = Link::new("x".into(), Some(15_000_000), 0, None);
        assert_eq!(l.serialize(500), 266_666);
        l.set_rate(15_000_000);
        assert_eq!(l.rate_bps, Some(15_000_000));
        assert_eq!(l.serialize(500), 266_666);
        assert_eq!(l.serialize(500), 266_667);
        // A new rate: 1000 B at 3 Mb/s is 2 666 666.67 ns, rounded down as a run's first packet.
        l.set_rate(3_000_000);
        assert_eq!(l.serialize(1000), 2_666_666);
    }

    #[test]
    fn overhead_is_serialized_with_the_packet() {
        // Ethernet framing: 1500 + 38 bytes at 1 Gb/s is 1538·8 ns = 12 304 ns, the figure of
        // 81 274 full frames per second on gigabit Ethernet (10⁹ / 12 304).
        let eth = DeviceConfig { overhead_bytes: 38, queue_packets: 0 };
        let mut l = Link::new("e".into(), Some(1_000_000_000), 0, None).with_device(&eth);
        assert_eq!(l.serialize(1500), 12_304);
        assert!(l.device.is_none());
        // PPP: 1000 + 2 bytes at 10 Mb/s is 8016 bits, 801.6 us: five packets 4.008 ms exactly.
        let ppp = DeviceConfig { overhead_bytes: 2, queue_packets: 1 };
        let mut p = Link::new("p".into(), Some(10_000_000), 0, None).with_device(&ppp);
        assert_eq!((0..5).map(|_| p.serialize(1000)).sum::<Nanos>(), 4_008_000);
        assert_eq!(p.device.as_ref().map(|d| d.capacity), Some(1));
    }

    #[test]
    fn capacity_is_read_from_the_configuration() {
        let q = |json: &str| Capacity::of(&serde_json::from_str::<QdiscConfig>(json).unwrap(), 1500);
        assert_eq!(q(r#"{"type":"drop_tail","limit":{"packets":100}}"#), Capacity { packets: 100, bytes: 150_000 });
        assert_eq!(q(r#"{"type":"pie","limit":{"bytes":200000}}"#), Capacity { packets: 200_000, bytes: 200_000 });
        // Defaults filled in by resolution: fq_codel's 10 240 packets.
        assert_eq!(q(r#"{"type":"fq_codel"}"#).packets, 10_240);
        // Strict priority: the priority FIFO's 100 default packets plus the inner queue's.
        let sp = q(r#"{"type":"strict_priority","high_flows":[1],"low":{"type":"drop_tail","limit":{"packets":10}}}"#);
        assert_eq!(sp, Capacity { packets: 110, bytes: 110 * 1500 });
    }
}
