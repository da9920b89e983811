//! Per-packet cost of each discipline, measured by criterion: one arrival and one departure per
//! iteration on a standing queue of 100 packets (so the early-drop test is really evaluated),
//! and PIE's enqueue decision alone at p = 10 % (the random draw is taken).
//! `cargo bench -p aqmlab-aqm-bench` prints the time per iteration for each.

use std::hint::black_box;

use aqm::pie::{Pie, PieConfig, PieProfile};
use aqm::schema::Declared;
use aqm::{Aqm, Backlog, LinkInfo, Nanos, Pkt, Qdisc, QdiscConfig, QueueDisc, QueueLimit, QueueView, Rng};
use criterion::{criterion_group, criterion_main, Criterion};

const LINK: LinkInfo = LinkInfo { rate_bps: 100_000_000, mtu: 1500 };

const DISCIPLINES: [(&str, &str); 11] = [
    ("drop_tail", r#"{"type":"drop_tail","limit":{"packets":1000}}"#),
    ("pie/rfc", r#"{"type":"pie","profile":"rfc"}"#),
    ("pie/linux", r#"{"type":"pie","profile":"linux"}"#),
    ("pie/paper", r#"{"type":"pie","profile":"paper"}"#),
    ("pi", r#"{"type":"pi"}"#),
    ("p", r#"{"type":"p"}"#),
    ("pi2", r#"{"type":"pi2","limit":{"packets":1000}}"#),
    ("red", r#"{"type":"red","limit":{"packets":1000}}"#),
    ("codel", r#"{"type":"codel"}"#),
    ("fq_pie", r#"{"type":"fq_pie"}"#),
    ("fq_codel", r#"{"type":"fq_codel"}"#),
];

/// A discipline with 100 packets standing in its queue.
fn standing(json: &str) -> Qdisc {
    let cfg: QdiscConfig = serde_json::from_str(json).expect("config");
    cfg.validate().expect("valid");
    let mut q = cfg.build(LINK, Rng::from_seed(1));
    let mut out = Vec::new();
    for i in 0..100 {
        q.enqueue(0, Pkt::new(i, 1000, i % 8), &mut out);
    }
    q
}

fn enqueue_dequeue(c: &mut Criterion) {
    let mut group = c.benchmark_group("enqueue+dequeue");
    for (name, json) in DISCIPLINES {
        let mut q = standing(json);
        let mut out = Vec::with_capacity(1024);
        let mut now: Nanos = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                // One pair per simulated microsecond, with the periodic updates falling due.
                now += 1_000;
                while q.next_update_at().is_some_and(|t| t <= now) {
                    q.update(now);
                }
                out.clear();
                let id = (now / 1_000) as u32;
                black_box(q.enqueue(now, Pkt::new(id, 1000, id % 8), &mut out));
                black_box(q.dequeue(now, &mut out));
            })
        });
    }
    group.finish();
}

fn pie_decision(c: &mut Criterion) {
    let mut group = c.benchmark_group("pie enqueue decision");
    for profile in [PieProfile::Rfc, PieProfile::Linux, PieProfile::Paper] {
        let params = PieConfig { profile: Some(profile), max_burst: Some(0), ..Default::default() }.resolve().expect("valid");
        let mut pie = Pie::new(&params, LINK, Rng::from_seed(1));
        let view = QueueView { backlog: Backlog { bytes: 100_000, packets: 100 }, limit: QueueLimit::Packets(1000) };
        // Drive p up with a large delay: a few updates at 200 ms.
        let pkt = Pkt::new(0, 1000, 0);
        for k in 1..=40 {
            pie.on_dequeue(k * 15_000_000, &Pkt { enqueued_at: k * 15_000_000 - 200_000_000, ..pkt }, &view);
            pie.on_update(k * 15_000_000, &view);
        }
        let mut now = 0;
        group.bench_function(format!("{profile:?}"), |b| {
            b.iter(|| {
                now += 1;
                black_box(pie.on_enqueue(now, black_box(&pkt), black_box(&view)))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, enqueue_dequeue, pie_decision);
criterion_main!(benches);
