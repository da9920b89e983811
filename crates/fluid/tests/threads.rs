//! The result does not depend on how many threads integrate the batch, nor on where a
//! configuration falls in its block of lanes: each configuration alone gives its own row.

use fluid::{Aqm, Event, Kind, Model};

fn model(n_flows: Vec<f64>) -> Model {
    let size = n_flows.len();
    let v = |x: f64| vec![x; size];
    Model {
        capacity: v(1250.0),
        tp: (0..size).map(|i| 0.05 + 0.01 * i as f64).collect(),
        n_flows,
        buffer: v(400.0),
        max_window: v(1e6),
        capacity_events: vec![Event {
            t: 2.0,
            values: v(700.0),
        }],
        flows_events: vec![],
        aqm: Aqm {
            kind: Kind::Pi2,
            params: vec![v(0.16), v(3.2), v(0.015), v(0.016)],
            autotune: vec![],
            gentle: false,
        },
        dt: 1e-3,
        n_steps: 5000,
        record_stride: 10,
        history_len: 1000,
    }
}

#[test]
fn threads_and_blocks_do_not_change_results() {
    let n: Vec<f64> = (0..19).map(|i| 2.0 + 3.0 * i as f64).collect();
    let m = model(n.clone());
    m.check().unwrap();
    let one = m.integrate(1);
    for threads in [2, 3, 7] {
        let other = m.integrate(threads);
        assert_eq!(one.q, other.q, "{threads} threads");
        assert_eq!(one.w, other.w, "{threads} threads");
        assert_eq!(one.p, other.p, "{threads} threads");
    }
    // Configuration 11 alone (a batch of one, so lane 0 of a block) gives row 11 of the batch.
    let mut single = model(vec![n[11]]);
    single.tp = vec![m.tp[11]];
    let s = single.integrate(1);
    let rows = one.n_records;
    assert_eq!(&one.q[11 * rows..12 * rows], &s.q[..]);
    assert!(s.q.iter().any(|&q| q > 0.0));
}

#[test]
fn mismatched_lengths_are_refused() {
    let mut m = model(vec![5.0, 10.0]);
    m.buffer.pop();
    assert!(m.check().unwrap_err().contains("buffer"));
}
