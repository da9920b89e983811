//! HyStart in a whole simulation: one CUBIC flow filling an empty path. Without HyStart, slow
//! start ends only with the loss it causes; with it, before any.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{Dist, TcpConfig, Transport};
use sim::flow::Endpoint;
use sim::tcp::hystart::Exit;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;

/// What one run showed over its first `secs` seconds.
#[derive(Debug)]
struct Start {
    /// When ssthresh first became finite (slow start ended), to the millisecond, and its value.
    exit_ms: Option<u64>,
    exit_window: f64,
    first_drop_ms: Option<u64>,
    dropped: u64,
    timeouts: u64,
    hystart: Option<Exit>,
    utilization: f64,
}

/// One flow of Linux's TCP (CUBIC), HyStart on or off, starting at 0 over a 100 Mb/s, 50 ms
/// path (BDP 625 packets of 1000 B) with a DropTail buffer of two BDPs (1250 packets).
fn one_flow(hystart: bool, secs: u64) -> Start {
    let mut c = tcp_dumbbell(1, 100_000_000, 50 * MS, QueueLimit::Packets(1250), secs * NS_PER_SEC);
    c.seed = 1;
    c.flows[0].start_ns = Dist::Fixed(0);
    c.flows[0].transport = Transport::Tcp(TcpConfig { hystart, ..TcpConfig::profile("linux").unwrap() });
    let mut sim = simulation(c).unwrap();
    let mut s = Start { exit_ms: None, exit_window: 0.0, first_drop_ms: None, dropped: 0, timeouts: 0, hystart: None, utilization: 0.0 };
    for ms in 1..=secs * 1000 {
        sim.run_until(ms * MS);
        let f = &sim.flows[0];
        let Endpoint::Tcp { tx, .. } = &f.endpoint else { unreachable!("a TCP flow") };
        if s.exit_ms.is_none() && tx.ssthresh.is_finite() {
            s.exit_ms = Some(ms);
            s.exit_window = tx.ssthresh;
        }
        let counts = sim.flow_counts(0);
        if s.first_drop_ms.is_none() && counts.dropped > 0 {
            s.first_drop_ms = Some(ms);
        }
        (s.dropped, s.timeouts, s.hystart) = (counts.dropped, counts.timeouts, tx.hystart_exit());
    }
    s.utilization = sim.summary().utilization;
    s
}

#[test]
fn hystart_ends_slow_start_before_the_first_loss() {
    let (bdp, buffer) = (625.0, 1250.0);
    let on = one_flow(true, 5);
    let off = one_flow(false, 5);
    eprintln!("HyStart on:  {on:?}\nHyStart off: {off:?}");

    // Without HyStart, the classic overshoot: slow start runs until the queue overflows, and
    // it ends only when the loss is detected, a round trip later, by which time the window
    // has doubled past BDP + buffer (1875): the first drop comes before the end of slow start,
    // and that round loses about a window's worth of packets (measured: first drop in the
    // 463rd ms, ssthresh 2628 set in the 601st, 4478 drops in 5 s, no timeout thanks to SACK
    // and PRR).
    let (drop_off, exit_off) = (off.first_drop_ms.expect("slow start overflows the buffer"), off.exit_ms.unwrap());
    assert!(drop_off < exit_off, "{off:?}");
    assert!(off.exit_window > bdp + buffer, "{off:?}");
    assert!(off.dropped as f64 > bdp, "{off:?}");
    assert_eq!(off.hystart, None);

    // With HyStart, slow start ends before any drop (measured: in the 318th ms with cwnd 528,
    // by the delay detector, which sees the queue each slow-start burst builds pass η =
    // 6.25 ms). The exit window lies below BDP + buffer, or the buffer would have overflowed
    // first; and HyStart aims at the BDP: below half of it, the link would idle for more than
    // half of every round trip until CUBIC caught up. CUBIC then grows 5 % per round trip (no
    // W_max yet, Linux's rule), so the first loss comes only once that growth has filled the
    // buffer, seconds later (measured: 2530th ms, 94 drops in 5 s against 4478).
    assert_eq!(on.hystart, Some(Exit::Delay), "{on:?}");
    assert_eq!((on.timeouts, off.timeouts), (0, 0));
    let exit_on = on.exit_ms.unwrap();
    assert!(exit_on < drop_off, "HyStart ends slow start before the overflow: {on:?}");
    assert!((bdp / 2.0..=bdp + buffer).contains(&on.exit_window), "{on:?}");
    // 5 % per 50 ms round trip from 528 reaches BDP + buffer after ln(1875/528)/ln(1.05) = 26
    // round trips, 1.3 s; more with the queue's own delay in each round trip.
    let first_drop_on = on.first_drop_ms.unwrap_or(u64::MAX);
    assert!(first_drop_on > exit_on + 1300, "{on:?}");
    assert!(on.dropped * 10 < off.dropped, "{on:?} {off:?}");
    // Both fill the link (measured 0.944 with HyStart, 0.95 without).
    assert!(on.utilization > 0.9 && off.utilization > 0.9, "{on:?} {off:?}");
}
