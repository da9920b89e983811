//! What every live agent (router, traffic source, traffic sink) reads: the simulator's resolved
//! scenario, unchanged, plus where and when the run happens.
//!
//! The per-flow schedule (start times, stop, extra one-way delay) is not sent separately: each
//! agent draws it from the scenario with the simulator's own [`sim::endpoints::build_flows`],
//! so a live run starts its flows at exactly the times a simulated run of the same seed does.

use std::net::Ipv4Addr;

use aqm::Nanos;
use serde::{Deserialize, Serialize};
use sim::config::{SimConfig, Transport};
use sim::tcp::params::EcnMode;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveConfig {
    /// The resolved scenario, as `aqmlab run` hands it to the simulator.
    pub sim: SimConfig,
    /// CLOCK_MONOTONIC time (ns) of the experiment's time 0, shared by all agents: not in the
    /// file, but handed to each agent once all are ready ([`crate::agent::await_start`]).
    #[serde(default, skip_serializing)]
    pub t0_ns: Nanos,
    pub net: NetConfig,
    pub router: RouterOptions,
    /// Every agent stops by itself this long after the experiment's end, whatever happens.
    pub grace_ns: Nanos,
}

/// Addresses and ports of the testbed.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    pub sender_ip: Ipv4Addr,
    pub receiver_ip: Ipv4Addr,
    /// Flow i's sender binds source port `base_port + i`: the router classifies by it.
    pub base_port: u16,
    pub tcp_port: u16,
    pub udp_port: u16,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterOptions {
    /// Interface towards the senders (data enters here) and towards the receivers.
    pub sender_port: String,
    pub receiver_port: String,
    /// SCHED_FIFO priority (1..=99) for the router, if wanted.
    pub rt_priority: Option<u8>,
    /// When the next event is this close (ns), busy-poll instead of sleeping.
    pub spin_ns: Nanos,
}

/// One flow of the run, as every agent sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowPlan {
    pub id: u32,
    pub group: u32,
    pub start_ns: Nanos,
    pub stop_ns: Nanos,
    /// One-way delay the router adds to this flow on top of the bottleneck's (the simulated
    /// sender access and receiver links, moved behind the queue).
    pub extra_delay_ns: Nanos,
    pub packet_size: u32,
    pub dscp: u8,
    pub kind: FlowKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// Kernel TCP with this congestion control module; `ecn`: ask for ECN (RFC 3168).
    Tcp { cc: String, ecn: bool },
    /// Constant bit rate: `packet_size` bytes of IP packet every `packet_size·8/rate` s.
    Udp { rate_bps: u64, ecn: bool },
}

impl LiveConfig {
    pub fn from_json(text: &str) -> Result<Self, String> {
        let cfg: LiveConfig = serde_json::from_str(text).map_err(|e| format!("live config: {e}"))?;
        cfg.sim.validate()?;
        Ok(cfg)
    }

    /// The flows in the simulator's order, with the simulator's draws.
    pub fn flows(&self) -> Vec<FlowPlan> {
        let end = self.sim.duration_ns;
        sim::endpoints::build_flows(&self.sim)
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let group = &self.sim.flows[f.group as usize];
                let kind = match &group.transport {
                    Transport::Tcp(t) => FlowKind::Tcp { cc: kernel_cc(&t.cc), ecn: t.ecn != EcnMode::Off },
                    Transport::Udp(u) => FlowKind::Udp { rate_bps: u.rate_bps, ecn: u.ecn },
                };
                FlowPlan {
                    id: i as u32,
                    group: f.group,
                    start_ns: f.start_ns,
                    stop_ns: f.stop_ns.unwrap_or(end).min(end),
                    extra_delay_ns: f.access_delay_ns + f.receiver_delay_ns,
                    packet_size: f.packet_size,
                    dscp: f.dscp,
                    kind,
                }
            })
            .collect()
    }
}

/// The Linux module implementing a simulated congestion control (Linux calls NewReno "reno").
pub fn kernel_cc(cc: &str) -> String {
    if cc == "newreno" { "reno".into() } else { cc.into() }
}
