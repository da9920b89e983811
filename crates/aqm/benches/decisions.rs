//! Per-packet cost of each discipline: one arrival and one departure per iteration on a standing
//! queue (so the early-drop test is really evaluated), and PIE's enqueue decision alone.

use std::hint::black_box;
use std::time::Instant;

use aqm::pie::{Pie, PieConfig, PieProfile};
use aqm::{Aqm, Backlog, LinkInfo, Pkt, QdiscConfig, QueueDisc, QueueLimit, QueueView, Rng};

const LINK: LinkInfo = LinkInfo { rate_bps: 100_000_000, mtu: 1500 };
const ITERS: u64 = 2_000_000;

/// ns per enqueue + dequeue pair with 100 packets standing in the queue, 1 µs per iteration.
fn pair_cost(json: &str) -> f64 {
    let cfg: QdiscConfig = serde_json::from_str(json).expect("config");
    cfg.validate().expect("valid");
    let mut q = cfg.build(LINK, Rng::from_seed(1));
    let mut out = Vec::with_capacity(1024);
    for i in 0..100 {
        q.enqueue(0, Pkt::new(i, 1000, i % 8), &mut out);
    }
    let start = Instant::now();
    for i in 0..ITERS {
        let now = 1_000 * (i + 1);
        while q.next_update_at().is_some_and(|t| t <= now) {
            q.update(now);
        }
        out.clear();
        black_box(q.enqueue(now, Pkt::new(i as u32, 1000, (i % 8) as u32), &mut out));
        black_box(q.dequeue(now, &mut out));
    }
    start.elapsed().as_nanos() as f64 / ITERS as f64
}

/// ns per PIE enqueue decision alone, at p = 10 % (the random draw is taken).
fn pie_decision(profile: PieProfile) -> f64 {
    let mut pie = Pie::new(PieConfig { profile, max_burst_s: Some(0.0), ..Default::default() }.params(), LINK, Rng::from_seed(1));
    let view = QueueView { backlog: Backlog { bytes: 100_000, packets: 100 }, limit: QueueLimit::Packets(1000) };
    // Drive p up with a large delay: a few updates at 200 ms.
    let pkt = Pkt::new(0, 1000, 0);
    for k in 1..=40 {
        pie.on_dequeue(k * 15_000_000, &Pkt { enqueued_at: k * 15_000_000 - 200_000_000, ..pkt }, &view);
        pie.on_update(k * 15_000_000, &view);
    }
    let start = Instant::now();
    for i in 0..ITERS {
        black_box(pie.on_enqueue(i, black_box(&pkt), black_box(&view)));
    }
    start.elapsed().as_nanos() as f64 / ITERS as f64
}

fn main() {
    println!("{:<60} {:>10}", "discipline (enqueue + dequeue, 100 packets standing)", "ns/pair");
    for json in [
        r#"{"type":"drop_tail","limit":{"packets":1000}}"#,
        r#"{"type":"pie","profile":"rfc"}"#,
        r#"{"type":"pie","profile":"linux"}"#,
        r#"{"type":"pie","profile":"paper"}"#,
        r#"{"type":"pi"}"#,
        r#"{"type":"p"}"#,
        r#"{"type":"pi2","limit":{"packets":1000}}"#,
        r#"{"type":"red","limit":{"packets":1000}}"#,
        r#"{"type":"codel"}"#,
        r#"{"type":"fq_pie"}"#,
        r#"{"type":"fq_codel"}"#,
    ] {
        println!("{json:<60} {:>10.1}", pair_cost(json));
    }
    for profile in [PieProfile::Rfc, PieProfile::Linux] {
        println!("{:<60} {:>10.1}", format!("PIE enqueue decision alone ({profile:?})"), pie_decision(profile));
    }
}
