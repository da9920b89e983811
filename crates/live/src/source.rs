//! The traffic source (in the sender namespace): one thread per flow. A TCP flow connects at
//! its start time from source port `base_port + id` with its congestion control module and
//! writes as fast as the kernel takes data until its stop time, then resets the connection (it
//! leaves, as a simulated flow does). A UDP flow sends fixed-size datagrams on the simulator's
//! own constant-bit-rate schedule ([`sim::udp::UdpSource`]). Every thread ends by the stop time
//! of its flow, so the source is bounded in time whatever the network does.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use aqm::Nanos;
use serde::Serialize;
use sim::udp::UdpSource;

use crate::config::{FlowKind, FlowPlan, LiveConfig};
use crate::sock;
use crate::sys;

/// IPv4 plus UDP headers: a datagram of `packet_size` bytes on the wire carries this less.
const IP_UDP_HEADERS: u32 = 28;
/// How long a blocking call may hold a thread before it looks at the clock again.
const POLL_NS: Nanos = 50_000_000;

#[derive(Serialize, Default, Clone)]
pub struct FlowReport {
    pub id: u32,
    /// Payload bytes handed to the kernel (TCP) or datagrams sent (UDP, as bytes).
    pub bytes_written: u64,
    pub datagrams: u64,
    /// Datagrams the local stack refused (UDP).
    pub send_failures: u64,
    /// From TCP_INFO just before the connection is reset.
    pub retransmits: Option<u64>,
    pub srtt_s: Option<f64>,
    pub rto_s: Option<f64>,
    pub error: Option<String>,
}

#[derive(Serialize, Default)]
pub struct TcpTrace {
    pub sample_t_ns: Vec<Nanos>,
    pub tcp_cwnd: Vec<f64>,
    pub tcp_ssthresh: Vec<f64>,
    pub tcp_srtt_ns: Vec<f64>,
}

#[derive(Serialize)]
pub struct SourceReport {
    pub flows: Vec<FlowReport>,
    pub tcp_trace: TcpTrace,
}

/// A wait until experiment time `t` that gives up early when a stop is requested.
fn wait_until(t0: Nanos, t: Nanos) -> bool {
    while sys::mono_ns() < t0 + t {
        if sys::stop_requested() {
            return false;
        }
        sys::sleep_until((t0 + t).min(sys::mono_ns() + POLL_NS));
    }
    !sys::stop_requested()
}

fn tcp_flow(cfg: &LiveConfig, f: &FlowPlan, cc: &str, fd_slot: &AtomicI32) -> Result<FlowReport, String> {
    let mut rep = FlowReport { id: f.id, ..Default::default() };
    if !wait_until(cfg.t0_ns, f.start_ns) {
        return Ok(rep);
    }
    let n = &cfg.net;
    let fd = sock::bound(libc::SOCK_STREAM, sock::addr(n.sender_ip, n.base_port + f.id as u16))?;
    sock::set_congestion_control(&fd, cc)?;
    if f.dscp != 0 {
        sock::set_tos(&fd, f.dscp << 2)?;
    }
    // The handshake may wait for ARP and a full queue: it gets until the flow's stop time.
    let stop = cfg.t0_ns + f.stop_ns;
    sock::set_timeouts(&fd, stop.saturating_sub(sys::mono_ns()).max(1_000_000))?;
    sock::connect(&fd, sock::addr(n.receiver_ip, n.tcp_port))?;
    sock::set_timeouts(&fd, POLL_NS)?;
    fd_slot.store(fd.as_raw_fd(), Ordering::SeqCst);
    let buf = vec![0x5au8; 64 << 10];
    while sys::mono_ns() < stop && !sys::stop_requested() {
        // SAFETY: `buf` is valid for reads of its length; SO_SNDTIMEO bounds the call.
        let w = unsafe { libc::send(fd.as_raw_fd(), buf.as_ptr() as *const libc::c_void, buf.len(), libc::MSG_NOSIGNAL) };
        if w > 0 {
            rep.bytes_written += w as u64;
        } else if w < 0 {
            let e = std::io::Error::last_os_error();
            if !matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EINTR)) {
                return Err(format!("send: {e}"));
            }
        }
    }
    fd_slot.store(-1, Ordering::SeqCst);
    if let Some(ti) = sock::tcp_info(fd.as_raw_fd()) {
        rep.retransmits = Some(ti.tcpi_total_retrans as u64);
        rep.srtt_s = Some(ti.tcpi_rtt as f64 * 1e-6);
        rep.rto_s = Some(ti.tcpi_rto as f64 * 1e-6);
    }
    sock::abort(fd);
    Ok(rep)
}

fn udp_flow(cfg: &LiveConfig, f: &FlowPlan, rate_bps: u64, ecn: bool) -> Result<FlowReport, String> {
    let mut rep = FlowReport { id: f.id, ..Default::default() };
    let n = &cfg.net;
    let fd: OwnedFd = sock::bound(libc::SOCK_DGRAM, sock::addr(n.sender_ip, n.base_port + f.id as u16))?;
    sock::set_tos(&fd, (f.dscp << 2) | if ecn { 0b10 } else { 0 })?;
    sock::connect(&fd, sock::addr(n.receiver_ip, n.udp_port))?;
    let payload = vec![0xa5u8; (f.packet_size - IP_UDP_HEADERS) as usize];
    // The live source sends ECT(0) (the TOS byte above); its ECN field here only mirrors that.
    let mut cbr = UdpSource::new(rate_bps, f.packet_size, if ecn { aqm::Ecn::Ect0 } else { aqm::Ecn::NotEct });
    // Nominal send times, as the simulator's CBR source keeps them: a late wake-up sends at
    // once and the schedule does not drift.
    let mut t = f.start_ns;
    while t < f.stop_ns {
        if !wait_until(cfg.t0_ns, t) {
            break;
        }
        // SAFETY: `payload` is valid for reads of its length.
        let w = unsafe { libc::send(fd.as_raw_fd(), payload.as_ptr() as *const libc::c_void, payload.len(), 0) };
        if w == payload.len() as isize {
            rep.datagrams += 1;
            rep.bytes_written += w as u64;
        } else {
            rep.send_failures += 1;
        }
        t += cbr.gap();
    }
    Ok(rep)
}

/// TCP state of every flow each trace interval (the simulator's `tcp` trace), from TCP_INFO:
/// cwnd and ssthresh in segments, smoothed RTT in ns; NaN for UDP flows and closed ones.
fn sample_tcp(cfg: &LiveConfig, fds: &[Arc<AtomicI32>]) -> TcpTrace {
    let mut tr = TcpTrace::default();
    let (dt, end) = (cfg.sim.traces.interval_ns, cfg.sim.duration_ns);
    let mut t = 0;
    while t <= end && wait_until(cfg.t0_ns, t) {
        tr.sample_t_ns.push(t);
        for fd in fds {
            let ti = match fd.load(Ordering::SeqCst) {
                -1 => None,
                raw => sock::tcp_info(raw),
            };
            let (c, s, r) = match ti {
                // An ssthresh of 0x7fffffff is the kernel's "infinite" (before the first loss).
                Some(ti) => (ti.tcpi_snd_cwnd as f64, if ti.tcpi_snd_ssthresh >= 0x7fff_ffff { f64::INFINITY } else { ti.tcpi_snd_ssthresh as f64 }, ti.tcpi_rtt as f64 * 1e3),
                None => (f64::NAN, f64::NAN, f64::NAN),
            };
            tr.tcp_cwnd.push(c);
            tr.tcp_ssthresh.push(s);
            tr.tcp_srtt_ns.push(r);
        }
        t += dt;
    }
    tr
}

pub fn run(mut cfg: LiveConfig, out: &Path) -> Result<(), String> {
    sys::set_timer_slack_1ns()?;
    crate::agent::await_start(&mut cfg)?;
    let plans = cfg.flows();
    let fds: Vec<Arc<AtomicI32>> = plans.iter().map(|_| Arc::new(AtomicI32::new(-1))).collect();
    let cfg = Arc::new(cfg);
    let threads: Vec<_> = plans
        .iter()
        .cloned()
        .zip(fds.iter().cloned())
        .map(|(f, slot)| {
            let cfg = Arc::clone(&cfg);
            std::thread::spawn(move || {
                let r = match &f.kind {
                    FlowKind::Tcp { cc, .. } => tcp_flow(&cfg, &f, cc, &slot),
                    FlowKind::Udp { rate_bps, ecn } => udp_flow(&cfg, &f, *rate_bps, *ecn),
                };
                slot.store(-1, Ordering::SeqCst);
                r.unwrap_or_else(|e| FlowReport { id: f.id, error: Some(e), ..Default::default() })
            })
        })
        .collect();
    let tcp_trace = if cfg.sim.traces.tcp { sample_tcp(&cfg, &fds) } else { TcpTrace::default() };
    let flows = threads.into_iter().map(|t| t.join().map_err(|_| "a flow thread panicked".to_string())).collect::<Result<Vec<_>, _>>()?;
    let text = serde_json::to_string(&SourceReport { flows, tcp_trace }).map_err(|e| e.to_string())?;
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))
}
