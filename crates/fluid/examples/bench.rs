//! `cargo run --release -p aqmlab-fluid --example bench [CONFIGS] [THREADS]`: the batch of
//! `aqmlab.analysis.fluid.bench_fluid` (PIE, 10 Mb/s of 1000-B packets, 100 ms, N from 5 to
//! 100, 100 s in 1-ms steps, records every 100 ms); prints wall time and nanoseconds of one
//! thread per configuration-step.

use std::time::Instant;

use fluid::{Aqm, Kind, Model};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("a number"));
    let size = args.next().unwrap_or(10_000);
    let threads = args.next().unwrap_or(1);
    let v = |x: f64| vec![x; size];
    let model = Model {
        capacity: v(1250.0),
        n_flows: (0..size)
            .map(|i| 5.0 + 95.0 * i as f64 / (size.max(2) - 1) as f64)
            .collect(),
        tp: v(0.1),
        buffer: v(1000.0),
        max_window: v(1e6),
        capacity_events: vec![],
        flows_events: vec![],
        aqm: Aqm {
            kind: Kind::Pie,
            params: vec![v(0.125), v(1.25), v(0.02), v(0.03)],
            autotune: vec![(0.01, 0.125), (0.1, 0.5)],
            gentle: false,
        },
        dt: 1e-3,
        n_steps: 100_000,
        record_stride: 100,
        history_len: 902,
    };
    let t0 = Instant::now();
    let s = model.integrate(threads);
    let wall = t0.elapsed().as_secs_f64();
    let steps = (size * (model.n_steps + 1)) as f64;
    println!(
        "{size} configurations x 100 s on {threads} thread(s): {wall:.3} s wall, {:.2} ns per configuration-step per thread (q[last] = {:.3})",
        wall * threads as f64 * 1e9 / steps,
        s.q[s.q.len() - 1]
    );
}
