//! The flow-queueing disciplines against Linux (v6.x) where an independent audit (2026-11-29)
//! found them apart: sch_fq_codel.c, sch_fq_pie.c, codel_impl.h, sch_pie.c. Each test works the
//! kernel's expected values out by hand; the comments name the kernel function each comes from.

use super::*;
use crate::codel::{linux_control_law, newton_step};
use crate::config::QueueLimit;
use crate::fq_codel::FqCoDelConfig;
use crate::fq_pie::FqPieConfig;
use crate::queue::{ActionKind, DropReason, LinkInfo, QueueDisc};
use crate::rng::Rng;
use crate::schema::Declared;
use crate::time::NS_PER_MS;
use crate::Pkt;

const MS: u64 = NS_PER_MS;
const LINK: LinkInfo = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };

fn ids(out: &[Action], kind: ActionKind) -> Vec<u32> {
    out.iter().filter(|a| a.kind == kind).map(|a| a.pkt.id).collect()
}

/// sch_fq_codel.c `fq_codel_drop`: after dropping `i` packets from the fat flow, the flow's
/// CoDel count goes up by `i`, so that the next step of the drop loop comes sooner (a smaller
/// `1/sqrt(count)`, an earlier `drop_next`).
///
/// One flow, 1000-B non-ECT packets, limit 6, drop_batch 1, quantum 1500, mtu 1500.
/// CoDel clock = ns >> 10: target 4882, interval 97 656.
#[test]
fn fq_codel_overflow_drop_raises_the_flows_codel_count() {
    let mut q = FqCoDelConfig { limit: Some(QueueLimit::Packets(6)), quantum: Some(1500), drop_batch: Some(1), ..Default::default() }
        .resolve()
        .unwrap()
        .build(LINK, Rng::from_seed(5));
    let f = 1;
    let mut out = Vec::new();
    for id in 0..6 {
        assert!(q.enqueue(0, Pkt::new(id, 1000, f), &mut out));
    }
    // t = 10 ms (now 9765): codel_should_drop sets first_above_time = 9765 + 97656 = 107421.
    assert_eq!(q.dequeue(10 * MS, &mut out).map(|p| p.id), Some(0));
    // t = 111 ms (now 108398 > 107421): codel_dequeue enters dropping: drops id 1, delivers id 2;
    // delta = count - lastcount = 0 -> count = 1, rec_inv_sqrt = 0xFFFF,
    // drop_next = 108398 + (97656 * 0xFFFF0000 >> 32) = 108398 + 97654 = 206052.
    assert_eq!(q.dequeue(111 * MS, &mut out).map(|p| p.id), Some(2));
    assert_eq!((q.law_of(f).count(), q.law_of(f).dropping()), (1, true));
    out.clear();
    // t = 112 ms: ids 6..9 arrive; id 9 makes qlen 7 > 6: fq_codel_drop with max_packets 1
    // drops the head (id 3) and does cvars.count += 1 -> count = 2.
    for id in 6..10 {
        q.enqueue(112 * MS, Pkt::new(id, 1000, f), &mut out);
    }
    assert_eq!(ids(&out, ActionKind::Drop(DropReason::Overflow)), vec![3]);
    let count_after_overflow = q.law_of(f).count();
    out.clear();
    // t = 202 ms (now 197265 < drop_next 206052): dropping, not yet due: id 4 delivered.
    assert_eq!(q.dequeue(202 * MS, &mut out).map(|p| p.id), Some(4));
    assert!(out.is_empty());
    // t = 212 ms (now 207031 >= 206052), codel_dequeue's drop loop with the kernel's count:
    //   count 3, Newton(0xFFFF, 3) = 2 -> drop id 5; id 6 still above target with 3000 B left:
    //     drop_next = 206052 + (97656 * (2 << 16) >> 32) = 206054;
    //   count 4, Newton(2, 4) = 2 -> drop id 6; id 7 (2000 B left): drop_next = 206056;
    //   count 5 -> drop id 7; id 8 leaves 1000 B <= mtu: should_drop false, dropping ends.
    // Delivered: id 8; dropped at dequeue: 5, 6, 7.
    // (Without the bump: count 2, Newton(0xFFFF, 2) ~ 0.5, drop_next ~ 206052 + 48 827, so only
    // id 5 is dropped and id 6 delivered.)
    assert_eq!(newton_step(0xFFFF, 3), 2);
    assert_eq!(linux_control_law(206_052, 97_656, 2), 206_054);
    assert_eq!(newton_step(2, 4), 2);
    let got = q.dequeue(212 * MS, &mut out).map(|p| p.id);
    let dropped = ids(&out, ActionKind::Drop(DropReason::Dequeue));
    assert_eq!((count_after_overflow, got, dropped), (2, Some(8), vec![5, 6, 7]), "(count after overflow, delivered, dequeue drops)");
}

/// sch_fq_codel.c `fq_codel_change`: `quantum = max(256U, TCA_FQ_CODEL_QUANTUM)`, silently; the
/// linux profile refuses a smaller one instead. `fq_codel_init` takes psched_mtu clamped to
/// [256, 1 << 20] as the default, so a 200-B link MTU gives a new flow 256 B of credit
/// (`fq_codel_enqueue`: deficit = q->quantum).
#[test]
fn fq_codel_linux_quantum_is_at_least_256() {
    let err = FqCoDelConfig { quantum: Some(100), ..Default::default() }.resolve().unwrap_err();
    assert_eq!(err, "quantum: 100 B is below the linux profile's 256 B (sch_fq_codel raises a smaller quantum to it)");
    // 256 B itself is what the kernel keeps: the bound is not a refusal.
    assert_eq!(FqCoDelConfig { quantum: Some(256), ..Default::default() }.resolve().map(|p| p.quantum), Ok(Some(256)));
    let small = LinkInfo { rate_bps: 10_000_000, mtu: 200 };
    let mut q = FqCoDelConfig::default().resolve().unwrap().build(small, Rng::from_seed(5));
    let mut out = Vec::new();
    q.enqueue(0, Pkt::new(0, 100, 1), &mut out);
    assert_eq!(q.deficit_of(1), 256);
}

/// sch_fq_pie.c `fq_pie_timer`: at most 2048 flows get `pie_calculate_probability` per run
/// (`flows_cursor`); when flows remain, the timer is re-armed at `jiffies + 0` (the next tick),
/// and only after the last chunk at `jiffies + tupdate`.
///
/// flows 4096, quantum 1000, HZ 250 (tupdate 15 ms -> 4 jiffies = 16 ms, one jiffy = 4 ms).
#[test]
fn fq_pie_timer_updates_at_most_2048_queues_per_run() {
    let link = LinkInfo { rate_bps: 8_000_000, mtu: 1500 };
    let mut q = FqPieConfig { flows: Some(4096), quantum: Some(1000), ..Default::default() }.resolve().unwrap().build(link, Rng::from_seed(3));
    let hi = (1..).find(|&f| q.bucket(f) >= 2048).unwrap();
    let lo = (1..).find(|&f| q.bucket(f) < 2048).unwrap();
    let mut out = Vec::new();
    for (id, f) in [(0, hi), (1, hi), (2, hi), (3, lo), (4, lo), (5, lo)] {
        assert!(q.enqueue(0, Pkt::new(id, 1000, f), &mut out));
    }
    // One departure per flow at 100 ms: pie_process_dequeue sets each flow's qdelay = 100 ms
    // (its own backlog, 2000 B, is not 0).
    assert_eq!(q.dequeue(100 * MS, &mut out).map(|p| p.flow), Some(hi));
    assert_eq!(q.dequeue(100 * MS, &mut out).map(|p| p.flow), Some(lo));
    // fq_pie_init: first run at jiffies + HZ/2.
    assert_eq!(q.next_update_at(), Some(500 * MS));
    q.update(500 * MS);
    // First run: flows 0..2047 only. lo's p rises (qdelay 100 ms > target 15 ms); hi's is untouched.
    let (p_lo, p_hi_first) = (q.law_of(lo).prob(), q.law_of(hi).prob());
    // flows_cursor < flows_cnt -> next = 0: the rest runs at the next tick, not a tupdate later.
    let second = q.next_update_at().unwrap();
    assert!(p_lo > 0.0);
    assert_eq!((p_hi_first, second), (0.0, 504 * MS), "(hi's p after the first run, second run one jiffy later)");
    // The second run takes flows 2048..4095, hi's among them, and the cursor wraps: the next
    // run is a tupdate (4 jiffies) after it, with flows 0..2047 again.
    q.update(second);
    assert!(q.law_of(hi).prob() > 0.0);
    assert_eq!(q.law_of(lo).prob(), p_lo, "lo's queue waits for the next cycle");
    assert_eq!(q.next_update_at(), Some(504 * MS + 16 * MS));
}
