//! The traffic sink (in the receiver namespace): accepts the TCP flows and receives the UDP
//! ones, and counts payload bytes per flow (the flow is the peer's source port less the base
//! port): in total, from the warm-up on, and per trace interval. It stops at the experiment's
//! end: bytes that arrive later do not count, as a simulated run stops at its duration.

use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use aqm::Nanos;
use serde::Serialize;

use crate::config::LiveConfig;
use crate::sock;
use crate::sys;

const POLL_NS: Nanos = 50_000_000;

/// Per-flow byte counters shared by the reader threads.
struct Counters {
    total: Vec<AtomicU64>,
    measured: Vec<AtomicU64>,
}

#[derive(Serialize)]
pub struct SinkReport {
    /// Payload bytes received per flow, all run long and from the warm-up on.
    pub goodput_bytes: Vec<u64>,
    pub goodput_measured_bytes: Vec<u64>,
    /// Payload bytes per flow received in each trace interval (row-major, one row per
    /// sample), if flow byte traces are on.
    pub sample_t_ns: Vec<Nanos>,
    pub goodput_trace: Vec<u64>,
    /// Connections or datagrams from ports of no configured flow.
    pub unknown_peers: u64,
}

struct Sink {
    t0: Nanos,
    end: Nanos,
    warmup: Nanos,
    base_port: u16,
    counts: Counters,
    unknown: AtomicU64,
}

impl Sink {
    fn running(&self) -> bool {
        sys::mono_ns() < self.t0 + self.end && !sys::stop_requested()
    }

    fn flow_of(&self, port: u16) -> Option<usize> {
        let i = port.wrapping_sub(self.base_port) as usize;
        (i < self.counts.total.len()).then_some(i)
    }

    fn add(&self, flow: usize, n: u64) {
        self.counts.total[flow].fetch_add(n, Ordering::Relaxed);
        if sys::mono_ns() >= self.t0 + self.warmup {
            self.counts.measured[flow].fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Reads one TCP connection until the end.
    fn read_tcp(&self, fd: OwnedFd, flow: usize) {
        let mut buf = vec![0u8; 256 << 10];
        while self.running() {
            // SAFETY: `buf` is valid for writes of its length; SO_RCVTIMEO bounds the call.
            let n = unsafe { libc::recv(std::os::fd::AsRawFd::as_raw_fd(&fd), buf.as_mut_ptr() as *mut libc::c_void, buf.len(), 0) };
            match n {
                0 => break,
                n if n > 0 => self.add(flow, n as u64),
                _ => {
                    let e = std::io::Error::last_os_error().raw_os_error();
                    if !matches!(e, Some(libc::EAGAIN) | Some(libc::EINTR)) {
                        break;
                    }
                }
            }
        }
    }

    fn accept_loop(self: &Arc<Self>, listener: OwnedFd) -> Vec<std::thread::JoinHandle<()>> {
        let mut readers = Vec::new();
        while self.running() {
            let Some((conn, port)) = sock::accept(&listener) else { continue };
            let Some(flow) = self.flow_of(port) else {
                self.unknown.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            if sock::set_timeouts(&conn, POLL_NS).is_err() {
                continue;
            }
            let me = Arc::clone(self);
            readers.push(std::thread::spawn(move || me.read_tcp(conn, flow)));
        }
        readers
    }

    fn udp_loop(&self, fd: OwnedFd) {
        let mut buf = vec![0u8; 65536];
        while self.running() {
            match sock::recv_from(&fd, &mut buf) {
                Some((n, port)) => match self.flow_of(port) {
                    Some(flow) => self.add(flow, n as u64),
                    None => {
                        self.unknown.fetch_add(1, Ordering::Relaxed);
                    }
                },
                None => continue,
            }
        }
    }

    fn snapshot(v: &[AtomicU64]) -> Vec<u64> {
        v.iter().map(|a| a.load(Ordering::Relaxed)).collect()
    }
}

pub fn run(mut cfg: LiveConfig, out: &Path) -> Result<(), String> {
    sys::set_timer_slack_1ns()?;
    let n = cfg.flows().len();
    let net = cfg.net.clone();
    let listener = sock::bound(libc::SOCK_STREAM, sock::addr(net.receiver_ip, net.tcp_port))?;
    sock::set_timeouts(&listener, POLL_NS)?;
    sock::listen(&listener)?;
    let udp = sock::bound(libc::SOCK_DGRAM, sock::addr(net.receiver_ip, net.udp_port))?;
    sock::set_timeouts(&udp, POLL_NS)?;
    crate::agent::await_start(&mut cfg)?;
    let sink = Arc::new(Sink {
        t0: cfg.t0_ns,
        end: cfg.sim.duration_ns,
        warmup: cfg.sim.warmup_ns,
        base_port: net.base_port,
        counts: Counters { total: (0..n).map(|_| AtomicU64::new(0)).collect(), measured: (0..n).map(|_| AtomicU64::new(0)).collect() },
        unknown: AtomicU64::new(0),
    });
    let acceptor = {
        let s = Arc::clone(&sink);
        std::thread::spawn(move || s.accept_loop(listener))
    };
    let udp_reader = {
        let s = Arc::clone(&sink);
        std::thread::spawn(move || s.udp_loop(udp))
    };
    // Per-interval goodput, on the router's sampling grid.
    let (mut sample_t_ns, mut trace) = (Vec::new(), Vec::new());
    let mut last = vec![0u64; n];
    if cfg.sim.traces.flow_bytes {
        let mut t = 0;
        while t <= sink.end {
            sys::sleep_until(sink.t0 + t);
            if sys::stop_requested() {
                break;
            }
            let now = Sink::snapshot(&sink.counts.total);
            trace.extend(now.iter().zip(&last).map(|(a, b)| a - b));
            sample_t_ns.push(t);
            last = now;
            t += cfg.sim.traces.interval_ns;
        }
    }
    let readers = acceptor.join().map_err(|_| "the accept thread panicked")?;
    udp_reader.join().map_err(|_| "the UDP thread panicked")?;
    for r in readers {
        r.join().map_err(|_| "a reader thread panicked")?;
    }
    let report = SinkReport {
        goodput_bytes: Sink::snapshot(&sink.counts.total),
        goodput_measured_bytes: Sink::snapshot(&sink.counts.measured),
        sample_t_ns,
        goodput_trace: trace,
        unknown_peers: sink.unknown.load(Ordering::Relaxed),
    };
    let text = serde_json::to_string(&report).map_err(|e| e.to_string())?;
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))
}
