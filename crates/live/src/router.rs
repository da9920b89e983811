//! The router process: two [`Port`]s, the [`Engine`] between them, and a loop that sleeps
//! until the next nominal event or the next frame.
//!
//! The loop reads each frame with the time it was read, runs every event due before that
//! time, then hands the frame to the engine: the discipline sees arrivals and departures in
//! one monotone order. It sleeps in ppoll(2) with 1 ns of timer slack (or busy-polls when the
//! next event is closer than `spin_ns`), and records how late each frame is sent relative to
//! its nominal time: that lateness is the price of a userspace router, reported, never hidden.

use std::path::Path;

use aqm::Nanos;
use serde::Serialize;
use serde_json::{json, Map, Value};
use sim::flow::FlowStats;
use sim::summary::Summary;
use sim::trace::{DelayHistogram, Traces};

use crate::config::LiveConfig;
use crate::engine::{Engine, FORWARD, REVERSE};
use crate::frames::MAX_FRAME;
use crate::port::Port;
use crate::record::{HistogramColumns, Percentiles};
use crate::sys;

/// What the router writes when it stops.
#[derive(Serialize)]
pub struct RouterReport {
    pub summary: Summary,
    pub traces: Map<String, Value>,
    pub delay_histogram: HistogramColumns,
    pub router: RouterStats,
}

/// The router's own figures: how exact its timing was and what it cost.
#[derive(Serialize)]
pub struct RouterStats {
    /// Time each frame was sent after its nominal time.
    pub send_lateness: Percentiles,
    pub cpu_s: f64,
    pub wall_s: f64,
    /// Frames dropped by the kernel at the router's sockets (buffer full): 0 in a sound run.
    pub kernel_rx_drops: u64,
    /// Frames the kernel refused to send.
    pub send_errors: u64,
    /// Frames longer than the router accepts (a sign of segmentation offload left on).
    pub oversize_frames: u64,
    pub bypassed_frames: u64,
    pub ce_delivered: u64,
    /// Counters of traffic that belongs to no configured flow (ping, ARP).
    pub unclassified: FlowStats,
    pub interrupted: bool,
    pub realtime: bool,
}

fn traces_json(t: &Traces) -> Map<String, Value> {
    let v = json!({
        "sample_t_ns": t.sample_t, "queue_bytes": t.queue_bytes, "queue_packets": t.queue_packets,
        "last_sojourn_ns": t.last_sojourn_ns, "sojourn_mean_ns": t.sojourn_mean_ns, "link_rate_bps": t.link_rate_bps,
        "sojourn_t_ns": t.sojourn_t, "sojourn_ns": t.sojourn_ns,
        "sojourn_qdisc_ns": t.sojourn_qdisc_ns, "sojourn_flow": t.sojourn_flow,
        "flow_bytes": t.flow_bytes, "drop_t_ns": t.drop_t, "drop_flow": t.drop_flow,
        "drop_kind": t.drop_kind, "drop_link": t.drop_link, "probe_names": t.probe_names, "probe": t.probe,
    });
    match v {
        Value::Object(m) => m,
        _ => unreachable!("a json object"),
    }
}

/// Runs the router of `cfg` until the experiment's end (or SIGINT/SIGTERM) and writes its
/// report to `out`. Takes part in the start handshake once both ports are open.
pub fn run(mut cfg: LiveConfig, out: &Path) -> Result<(), String> {
    sys::set_timer_slack_1ns()?;
    let realtime = match cfg.router.rt_priority {
        Some(p) => sys::set_realtime(p).map(|_| true)?,
        None => false,
    };
    let ports = [Port::open(&cfg.router.sender_port)?, Port::open(&cfg.router.receiver_port)?];
    crate::agent::await_start(&mut cfg)?;

    let (t0, end, spin) = (cfg.t0_ns, cfg.sim.duration_ns, cfg.router.spin_ns);
    let mut engine = Engine::new(cfg);
    while sys::mono_ns() < t0 && !sys::stop_requested() {
        sys::sleep_until(t0);
    }
    let (cpu0, wall0) = (sys::cpu_seconds(), sys::mono_ns());
    let now_rel = || sys::mono_ns().saturating_sub(t0);
    let mut lateness = DelayHistogram::default();
    let (mut send_errors, mut oversize) = (0u64, 0u64);
    // Frames leave forward traffic on the receivers' side, reverse traffic on the senders'.
    let mut send = |dir: usize, frame: &[u8], nominal: Nanos| {
        let port = if dir == FORWARD { &ports[1] } else { &ports[0] };
        if !port.send(frame) {
            send_errors += 1;
        }
        lateness.record(sys::mono_ns().saturating_sub(t0 + nominal));
    };
    let mut pfd = [ports[0].fd(), ports[1].fd()].map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
    // Which ports to read: after a ppoll, those it found readable; after a busy-poll or a
    // timeout, both (a read that finds nothing costs one system call).
    let mut readable = [true, true];
    let mut interrupted = false;
    loop {
        if sys::stop_requested() {
            interrupted = true;
            break;
        }
        if now_rel() >= end {
            break;
        }
        for (p, dir) in [(0, FORWARD), (1, REVERSE)] {
            if !readable[p] {
                continue;
            }
            // Drain the port: until a read finds nothing.
            loop {
                let id = engine.frames.alloc();
                let Some(n) = ports[p].recv(engine.frames.data_mut(id)) else {
                    engine.frames.release(id);
                    break;
                };
                if n > MAX_FRAME {
                    oversize += 1;
                    engine.frames.release(id);
                    continue;
                }
                let t = now_rel().min(end);
                engine.advance(t, &mut send);
                engine.arrive(dir, t, id);
            }
        }
        let now = now_rel();
        engine.advance(now.min(end), &mut send);
        let next = engine.next_event_at().unwrap_or(end).min(end);
        if next > now + spin {
            let wait = sys::timespec(next - now - spin);
            // SAFETY: `pfd` holds two valid pollfd entries; a null sigmask keeps the mask.
            let n = unsafe { libc::ppoll(pfd.as_mut_ptr(), pfd.len() as libc::nfds_t, &wait, std::ptr::null()) };
            readable = if n > 0 { pfd.map(|p| p.revents & libc::POLLIN != 0) } else { [n < 0; 2] };
        } else {
            readable = [true, true];
        }
    }
    let stop_at = if interrupted { now_rel().min(end) } else { end };
    engine.advance(stop_at, &mut send);
    let kernel_rx_drops = ports.into_iter().map(|mut p| {
        p.update_kernel_drops();
        p.kernel_drops
    }).sum();
    let n = engine.plans().len();
    let report = RouterReport {
        summary: engine.summary(stop_at),
        traces: traces_json(&engine.rec.traces),
        delay_histogram: (&engine.rec.delay_hist).into(),
        router: RouterStats {
            send_lateness: (&lateness).into(),
            cpu_s: sys::cpu_seconds() - cpu0,
            wall_s: (sys::mono_ns() - wall0) as f64 * 1e-9,
            kernel_rx_drops,
            send_errors,
            oversize_frames: oversize,
            bypassed_frames: engine.rec.bypassed,
            ce_delivered: engine.rec.ce_delivered,
            unclassified: engine.rec.stats[n].clone(),
            interrupted,
            realtime,
        },
    };
    let text = serde_json::to_string(&report).map_err(|e| e.to_string())?;
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))
}
