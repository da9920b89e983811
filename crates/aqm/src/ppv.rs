//! Per Packet Value (PPV): the 8-bit PV code and the PPV baseline scheduler.
//!
//! # PV code (spec §1.4, PVPIE paper §4)
//! A Packet Value V > 0 travels as the 8-bit code `round(30·log10 V)`, clamped to 0…255, and
//! decodes as `10^(code/30)`: 30 codes per decade (a step of 10^(1/30) ≈ 1.08), values 1 to
//! 10^8.5. The code is monotone in V, so queues compare and histogram codes, never values.
//! Code 0 doubles as "no PV": an unmarked packet ranks with the least valuable.
//!
//! # PPV scheduler (Globecom'16 as summarised in PVPIE §2; spec §1.5)
//! One FIFO with a hard limit. When an arrival does not fit, the scheduler compares the arrival's
//! PV with the smallest PV in the buffer: if the arrival is smaller it is dropped, otherwise
//! the oldest queued packet of the smallest PV is dropped from wherever it sits, and the test
//! repeats until the arrival fits. Service is FIFO.
//!
//! No linear scan: a 256-bit map of the codes present finds the smallest in four word tests;
//! each code keeps the FIFO positions of its live packets in arrival order, so the victim is
//! found in O(1). The victim is reported dropped at once (its handle is released) and flagged
//! in the FIFO (lazy deletion); the flagged slot is skipped silently when it reaches the head.
//! Not modelled: the reference code's CE-marking of ECT victims and its CTV feedback to markers.

use std::collections::VecDeque;

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Action, ActionKind, Backlog, DropReason, QueueDisc, QueueView};
use crate::schema::{Finish, NoProfile, Range};
use crate::time::Nanos;

/// Number of distinct PV codes.
pub const PV_CODES: usize = 256;

/// The 8-bit code of value `v`: `round(30·log10 v)` clamped to 0…255 (v ≤ 1, NaN: 0).
pub fn encode(v: f64) -> u8 {
    if v.is_nan() || v <= 1.0 {
        return 0;
    }
    (30.0 * v.log10()).round().min(255.0) as u8
}

/// The value a code stands for: `10^(code/30)`.
pub fn decode(code: u8) -> f64 {
    10f64.powf(code as f64 / 30.0)
}

crate::params! {
    /// The PPV scheduler: drop the smallest Packet Value when full.
    config PpvConfig => PpvParams, profile NoProfile,
    doc "PPV: one FIFO; when an arrival does not fit, the packet with the smallest Packet Value (the arrival or the oldest queued one) is dropped, repeatedly, until it fits.",
    source "Globecom 2016 (Nádas et al.) as summarised in ANRW 2017 §2";
    fields {
        /// Hard limit of the queue.
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(1000));
    }
}

impl Finish<PpvConfig> for PpvParams {}

impl PpvParams {
    pub fn build(&self) -> PpvQueue {
        PpvQueue::new(self.limit)
    }
}

/// A set of PV codes as a 256-bit map.
#[derive(Clone, Copy, Debug, Default)]
struct CodeSet([u64; 4]);

impl CodeSet {
    fn insert(&mut self, c: u8) {
        self.0[c as usize >> 6] |= 1 << (c & 63);
    }

    fn remove(&mut self, c: u8) {
        self.0[c as usize >> 6] &= !(1 << (c & 63));
    }

    fn min(&self) -> Option<u8> {
        self.0.iter().enumerate().find(|(_, w)| **w != 0).map(|(i, w)| (i as u32 * 64 + w.trailing_zeros()) as u8)
    }
}

/// The PPV baseline scheduler: drop the smallest PV, from the middle of the queue if need be.
#[derive(Clone, Debug)]
pub struct PpvQueue {
    limit: QueueLimit,
    /// Every packet still in the buffer, in arrival order, with its "dropped" flag.
    fifo: VecDeque<(Pkt, bool)>,
    /// Sequence number of `fifo[0]`; packet `s` sits at `fifo[s - head_seq]`.
    head_seq: u64,
    /// Per code, the sequence numbers of its live (not dropped) packets, oldest first.
    by_code: Vec<VecDeque<u64>>,
    present: CodeSet,
    /// Live packets only (dropped ones waiting to be skipped are not counted).
    live: Backlog,
    dropped: u64,
}

impl PpvQueue {
    pub fn new(limit: QueueLimit) -> Self {
        PpvQueue {
            limit,
            fifo: VecDeque::new(),
            head_seq: 0,
            by_code: (0..PV_CODES).map(|_| VecDeque::new()).collect(),
            present: CodeSet::default(),
            live: Backlog::default(),
            dropped: 0,
        }
    }

    /// The smallest PV code queued, if any.
    pub fn min_code(&self) -> Option<u8> {
        self.present.min()
    }

    /// Drops the oldest live packet of code `c` from the middle of the queue.
    fn drop_oldest_of(&mut self, c: u8, out: &mut Vec<Action>) {
        let q = &mut self.by_code[c as usize];
        let seq = q.pop_front().expect("a present code has live packets");
        if q.is_empty() {
            self.present.remove(c);
        }
        let slot = &mut self.fifo[(seq - self.head_seq) as usize];
        slot.1 = true;
        let pkt = slot.0;
        self.live.bytes -= pkt.len as u64;
        self.live.packets -= 1;
        self.dropped += 1;
        out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Overflow) });
    }
}

impl QueueDisc for PpvQueue {
    fn enqueue(&mut self, now: Nanos, mut pkt: Pkt, out: &mut Vec<Action>) -> bool {
        loop {
            let view = QueueView { backlog: self.live, limit: self.limit };
            if !view.would_overflow(pkt.len) {
                break;
            }
            match self.present.min() {
                // PVPIE §2: an arrival below every queued PV is the one to go; an arrival too
                // large for an empty buffer cannot be admitted either.
                Some(m) if pkt.pv >= m => self.drop_oldest_of(m, out),
                _ => {
                    self.dropped += 1;
                    out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Overflow) });
                    return false;
                }
            }
        }
        pkt.enqueued_at = now;
        let seq = self.head_seq + self.fifo.len() as u64;
        self.fifo.push_back((pkt, false));
        self.by_code[pkt.pv as usize].push_back(seq);
        self.present.insert(pkt.pv);
        self.live.bytes += pkt.len as u64;
        self.live.packets += 1;
        true
    }

    fn dequeue(&mut self, _now: Nanos, _out: &mut Vec<Action>) -> Option<Pkt> {
        while let Some((pkt, gone)) = self.fifo.pop_front() {
            let seq = self.head_seq;
            self.head_seq += 1;
            if gone {
                continue;
            }
            let q = &mut self.by_code[pkt.pv as usize];
            debug_assert_eq!(q.front(), Some(&seq), "FIFO and per-code order agree");
            q.pop_front();
            if q.is_empty() {
                self.present.remove(pkt.pv);
            }
            self.live.bytes -= pkt.len as u64;
            self.live.packets -= 1;
            return Some(pkt);
        }
        None
    }

    fn next_update_at(&self) -> Option<Nanos> {
        None
    }

    fn update(&mut self, _now: Nanos) {}

    fn backlog(&self) -> Backlog {
        self.live
    }

    fn set_link_rate(&mut self, _rate_bps: u64) {}

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["min_pv", "dropped"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.present.min().map_or(0.0, f64::from));
        out.push(self.dropped as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Declared;

    fn pv(id: u32, code: u8) -> Pkt {
        Pkt { pv: code, ..Pkt::new(id, 1000, 0) }
    }

    #[test]
    fn encoding_is_thirty_codes_per_decade() {
        // 30·log10: 10 → 30, 100 → 60, 2 → 9.03 → 9, 1e8 → 240; 10^8.5 is the top code.
        let cases = [(10.0, 30), (100.0, 60), (2.0, 9), (1e8, 240), (10f64.powf(8.5), 255), (1e12, 255), (1.0, 0), (0.5, 0), (0.0, 0), (f64::NAN, 0)];
        for (v, code) in cases {
            assert_eq!(encode(v), code, "V = {v}");
        }
        // Round trip: every code decodes to a value that encodes back to it.
        for c in 0..=255u8 {
            assert_eq!(encode(decode(c)), c);
        }
        assert_eq!(decode(0), 1.0);
        assert_eq!(decode(30), 10.0);
        // Rounding boundary: 30·log10(V) = 44.5 exactly rounds up, just below rounds down.
        assert_eq!(encode(10f64.powf(44.5 / 30.0) * (1.0 + 1e-12)), 45);
        assert_eq!(encode(10f64.powf(44.5 / 30.0) * (1.0 - 1e-12)), 44);
    }

    #[test]
    fn full_queue_drops_the_smallest_value_from_the_middle() {
        let mut q = PpvConfig { limit: Some(QueueLimit::Packets(4)), ..Default::default() }.resolve().unwrap().build();
        let mut out = Vec::new();
        // Queue (head first): ids 0..4 with codes 50, 20, 80, 20.
        for (id, c) in [(0, 50), (1, 20), (2, 80), (3, 20)] {
            assert!(q.enqueue(0, pv(id, c), &mut out));
        }
        assert_eq!(q.min_code(), Some(20));
        // Arrival of code 60: the oldest code-20 packet (id 1) goes, from the middle.
        assert!(q.enqueue(1, pv(4, 60), &mut out));
        // Arrival of code 20 equals the minimum: the queued one (id 3) goes (PVPIE §2: only an
        // arrival strictly below the minimum is itself dropped).
        assert!(q.enqueue(2, pv(5, 20), &mut out));
        // Arrival of code 10 is below the minimum 20: dropped itself.
        assert!(!q.enqueue(3, pv(6, 10), &mut out));
        // Arrival of code 90: the remaining code-20 packet (id 5) goes, then the minimum is 50.
        assert!(q.enqueue(4, pv(7, 90), &mut out));
        assert_eq!(out.iter().map(|a| a.pkt.id).collect::<Vec<_>>(), vec![1, 3, 6, 5]);
        assert!(out.iter().all(|a| a.kind == ActionKind::Drop(DropReason::Overflow)));
        assert_eq!(q.min_code(), Some(50));
        assert_eq!(q.backlog(), Backlog { bytes: 4000, packets: 4 });
        // FIFO service of the survivors, skipping the flagged slots.
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(5, &mut out).map(|p| p.id)).collect();
        assert_eq!(order, vec![0, 2, 4, 7]);
        assert_eq!(q.backlog(), Backlog::default());
        assert_eq!(q.min_code(), None);
        let mut probes = Vec::new();
        q.probe(&mut probes);
        assert_eq!(probes, vec![0.0, 4.0]);
    }

    #[test]
    fn byte_limit_drops_as_many_small_values_as_needed_and_conserves_packets() {
        let mut q = PpvQueue::new(QueueLimit::Bytes(3000));
        let mut out = Vec::new();
        let small = |id, code| Pkt { pv: code, ..Pkt::new(id, 500, 0) };
        for (id, c) in [(0, 5), (1, 7), (2, 5), (3, 9)] {
            assert!(q.enqueue(0, small(id, c), &mut out));
        }
        assert!(q.enqueue(0, pv(4, 9), &mut out)); // 3000 B: exactly full
        // A 1500 B arrival of code 8 needs 1500 B: ids 0 and 2 (code 5) then id 1 (code 7) go.
        assert!(q.enqueue(1, Pkt { pv: 8, ..Pkt::new(5, 1500, 0) }, &mut out));
        assert_eq!(out.iter().map(|a| a.pkt.id).collect::<Vec<_>>(), vec![0, 2, 1]);
        assert_eq!(q.backlog(), Backlog { bytes: 3000, packets: 3 });
        // Conservation under a long random-looking overload: arrivals = served + dropped.
        let mut served = 0u64;
        for i in 0..10_000u32 {
            let code = (i.wrapping_mul(2_654_435_761) >> 24) as u8;
            q.enqueue(i as Nanos, Pkt { pv: code, ..Pkt::new(100 + i, 500 + (i % 3) * 400, 0) }, &mut out);
            if i % 3 == 0 {
                served += q.dequeue(i as Nanos, &mut out).is_some() as u64;
            }
        }
        served += std::iter::from_fn(|| q.dequeue(20_000, &mut out)).count() as u64;
        assert_eq!(served + out.len() as u64, 10_006);
        assert_eq!(q.fifo.len(), 0);
    }
}
