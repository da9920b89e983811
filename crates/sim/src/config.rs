//! The fully resolved scenario the simulator runs: integers in nanoseconds, bits per second
//! and bytes. User-facing parsing ("10Mbps", "20ms") and defaults live in the Python front end,
//! which writes this form; unknown fields are still rejected here.

use aqm::{Nanos, QdiscConfig};

use crate::net::HEADER_BYTES;

pub use crate::net::graph::{NetLinkConfig, NetworkConfig};
pub use crate::net::impair::{ImpairConfig, LossModel};
pub use crate::tcp::TcpConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Seed of the run; every component derives its own stream from it.
    pub seed: u64,
    /// The run stops at this simulated time.
    pub duration_ns: Nanos,
    /// Metrics (utilization, throughput, delay statistics) ignore what happens before this time.
    pub warmup_ns: Nanos,
    pub bottleneck: BottleneckConfig,
    pub access: AccessConfig,
    pub flows: Vec<FlowGroup>,
    pub traces: TraceConfig,
    /// Routers and links besides the bottleneck (see [`crate::net::graph`]); none: the dumbbell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkConfig>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BottleneckConfig {
    pub rate_bps: u64,
    /// One-way propagation delay of the bottleneck link.
    pub delay_ns: Nanos,
    /// Largest packet on the link, in bytes (some AQMs use it).
    pub mtu: u32,
    /// The discipline of the forward (data) direction: the AQM under study.
    pub queue: QdiscConfig,
    /// The discipline of the reverse (ACK) direction.
    pub reverse_queue: QdiscConfig,
    /// Capacity changes, in time order, applied to both directions.
    pub rate_schedule: Vec<RateStep>,
    /// Run-time changes of the forward discipline's delay reference (`target`), in time order;
    /// empty for none. The discipline must accept them ([`aqm::QueueDisc::set_param`]).
    #[serde(default)]
    pub target_schedule: Vec<TargetStep>,
    /// Loss or outages on the forward direction, in front of the queue.
    pub impairment: Option<ImpairConfig>,
    /// The network devices at both ends of the bottleneck (both directions).
    #[serde(default)]
    pub device: DeviceConfig,
}

/// What a link's network device adds below the discipline. The defaults (no overhead, no
/// device queue) make a link an ideal transmitter fed straight from its discipline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// Link-layer bytes added to every packet on the wire, counted in its serialization time
    /// but not by the discipline: 2 for PPP as ns-3's PointToPointNetDevice frames it, 38 for
    /// Ethernet (14 header + 4 FCS + 8 preamble and delimiter + 12 inter-frame gap).
    #[serde(default)]
    pub overhead_bytes: u32,
    /// Packets the device holds between the discipline and the wire (ns-3's TxQueue on a
    /// NetDevice, a NIC's transmit ring); 0 for none. The discipline is dequeued while the
    /// device has room, as ns-3's traffic-control layer does under flow control.
    #[serde(default)]
    pub queue_packets: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateStep {
    pub at_ns: Nanos,
    pub rate_bps: u64,
}

/// A change of the bottleneck discipline's delay reference during a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetStep {
    pub at_ns: Nanos,
    pub target_ns: Nanos,
}

/// The links between hosts and routers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessConfig {
    /// Access link rate; `None` makes access links pure propagation delays (no serialization,
    /// no queue), the usual idealisation of a dumbbell whose only constraint is the bottleneck.
    pub rate_bps: Option<u64>,
    /// The discipline of rate-limited access links.
    pub queue: QdiscConfig,
    /// The network devices of rate-limited access links.
    #[serde(default)]
    pub device: DeviceConfig,
}

/// A random or fixed quantity, drawn once per flow from that flow's own stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    Fixed(u64),
    /// Uniform over [lo, hi].
    Uniform { lo: u64, hi: u64 },
    /// One value per flow of the group, in order.
    Each(Vec<u64>),
}

/// A group of identical flows (same transport, same schedule).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    pub name: String,
    pub count: u32,
    pub transport: Transport,
    /// One-way delay of each sender's access link (both directions), in ns.
    pub access_delay_ns: Dist,
    /// One-way delay of each receiver's access link (both directions), in ns.
    pub receiver_delay_ns: Nanos,
    /// Start time of each flow, in ns.
    pub start_ns: Dist,
    /// Time the group's flows stop sending (they leave the experiment), if any.
    pub stop_ns: Option<Nanos>,
    /// Size of a full data packet on the wire, in bytes (headers included).
    pub packet_size: u32,
    /// The application (TCP groups; UDP sources are constant-bit-rate).
    pub app: App,
    /// DiffServ code point of the group's data packets (0..=63).
    #[serde(default)]
    pub dscp: u8,
    /// Per Packet Value marking of the group's data packets (see [`crate::ppv`]).
    #[serde(default)]
    pub marker: Option<crate::ppv::MarkerConfig>,
    /// The routers the group's data crosses, first to last, on fewest-hop paths between them
    /// (needs a `network`); none: the bottleneck's ends, left to right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Transport {
    Tcp(TcpConfig),
    Udp(UdpConfig),
}

/// What the application above a TCP connection asks it to send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum App {
    /// Unlimited data from start to stop (FTP-like).
    Bulk,
    /// One transfer of `bytes` of payload at the flow's start.
    Transfer { bytes: u64 },
    /// HTTP-like sessions: objects of random size one after another, each on a new connection
    /// (slow start anew), separated by exponential think times.
    Sessions { size: SizeDist, think_mean_ns: Nanos },
    /// Open-loop load: transfers arrive as a Poisson process of `rate_per_s` between the
    /// group's start and stop, each on a host pair of its own.
    Poisson { rate_per_s: f64, size: SizeDist },
}

/// Payload sizes of finite transfers, in bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    Fixed(u64),
    Exponential { mean: f64 },
    /// Pareto with the given mean and shape (> 1): heavy-tailed web objects.
    Pareto { mean: f64, shape: f64 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpConfig {
    /// Constant bit rate on the wire.
    pub rate_bps: u64,
    /// Send datagrams ECN-capable, so an ECN-enabled AQM marks rather than drops them.
    pub ecn: bool,
    /// Which ECN-capable codepoint (ECT(1): the L4S identifier). Absent from older files: ECT(0).
    #[serde(default)]
    pub ect: crate::tcp::params::Ect,
}

/// What to record. Every trace is off unless asked for, and costs nothing when off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Sampling interval of the periodic traces (queue, flow bytes, probe, tcp).
    pub interval_ns: Nanos,
    /// Bottleneck backlog and queue delay every interval.
    pub queue: bool,
    /// Per-packet bottleneck sojourn times.
    pub sojourn: bool,
    /// Record every n-th departure's sojourn (1 = all).
    pub sojourn_every: u32,
    /// Per-flow delivered bytes per interval.
    pub flow_bytes: bool,
    /// Every drop and ECN mark, with time, flow and reason.
    pub drops: bool,
    /// The bottleneck AQM's internal variables every interval.
    pub probe: bool,
    /// Per-flow TCP state (cwnd, ssthresh, srtt) every interval.
    pub tcp: bool,
    /// Capture points written as pcap files (see [`crate::pcap::POINTS`]); none by default.
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Bytes of each frame kept in the captures.
    #[serde(default = "default_snaplen")]
    pub pcap_snaplen: u32,
    /// Capture only in [from, to) (None: the whole run).
    #[serde(default)]
    pub pcap_window_ns: Option<[Nanos; 2]>,
    /// Keep every n-th packet of each capture point (1 = all).
    #[serde(default = "one")]
    pub pcap_every: u32,
}

fn default_snaplen() -> u32 {
    128
}

fn one() -> u32 {
    1
}

impl TraceConfig {
    /// Whether any periodic trace needs the sampling timer.
    pub fn any_periodic(&self) -> bool {
        self.queue || self.flow_bytes || self.probe || self.tcp
    }
}

impl SimConfig {
    /// Parses and validates the JSON form (see [`SimConfig::parse_json`], [`SimConfig::validate`]).
    pub fn from_json(json: &str) -> Result<SimConfig, String> {
        let cfg = Self::parse_json(json)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Parses the JSON form without validating it. A value of the wrong type, or beyond its
    /// integer type (`mtu = 1e12` for a u32), is reported with its field's path.
    pub fn parse_json(json: &str) -> Result<SimConfig, String> {
        let de = &mut serde_json::Deserializer::from_str(json);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let msg = e.into_inner().to_string();
            // serde_json appends the position in the JSON text, which the user never wrote.
            let msg = msg.split(" at line ").next().unwrap_or_default().to_string();
            if path == "." { msg } else { format!("{path}: {msg}") }
        })
    }

    /// Checks what serde cannot: ranges, consistency, and that the run fits the limits on
    /// events and memory ([`crate::estimate`]). Errors name the field and the accepted range.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_values()?;
        crate::estimate::Estimate::of(self).check(self)
    }

    /// Time order, and each change accepted by the discipline: tried on a throwaway copy of it,
    /// so that a discipline without a run-time `target` fails here rather than mid-run.
    fn validate_target_schedule(&self) -> Result<(), String> {
        let b = &self.bottleneck;
        let mut probe = None;
        for (i, s) in b.target_schedule.iter().enumerate() {
            if i > 0 && s.at_ns < b.target_schedule[i - 1].at_ns {
                return Err(format!("bottleneck.target_schedule[{i}].at_ns: steps must be in time order"));
            }
            let q = probe.get_or_insert_with(|| {
                b.queue.build(aqm::LinkInfo { rate_bps: b.rate_bps, mtu: b.mtu }, aqm::Rng::from_seed(0))
            });
            aqm::QueueDisc::set_param(q, 0, "target", &serde_json::json!(s.target_ns))
                .map_err(|e| format!("bottleneck.target_schedule[{i}].{e}"))?;
        }
        Ok(())
    }

    /// Every time in the configuration, by field, for the range check.
    fn times(&self) -> Vec<(String, Nanos)> {
        let b = &self.bottleneck;
        let mut t = vec![
            ("duration_ns".to_string(), self.duration_ns),
            ("bottleneck.delay_ns".to_string(), b.delay_ns),
            ("traces.interval_ns".to_string(), self.traces.interval_ns),
        ];
        t.extend(b.rate_schedule.iter().enumerate().map(|(i, s)| (format!("bottleneck.rate_schedule[{i}].at_ns"), s.at_ns)));
        t.extend(b.target_schedule.iter().enumerate().map(|(i, s)| (format!("bottleneck.target_schedule[{i}].at_ns"), s.at_ns)));
        if let Some(imp) = &b.impairment {
            t.extend(imp.outages.iter().enumerate().flat_map(|(i, &(a, z))| [(format!("bottleneck.impairment.outages[{i}]"), a), (format!("bottleneck.impairment.outages[{i}]"), z)]));
        }
        for (i, g) in self.flows.iter().enumerate() {
            for (name, d) in [("access_delay_ns", &g.access_delay_ns), ("start_ns", &g.start_ns)] {
                let vals = match d {
                    Dist::Fixed(v) => vec![*v],
                    Dist::Uniform { lo, hi } => vec![*lo, *hi],
                    Dist::Each(v) => v.clone(),
                };
                t.extend(vals.into_iter().map(|v| (format!("flows[{i}].{name}"), v)));
            }
            t.push((format!("flows[{i}].receiver_delay_ns"), g.receiver_delay_ns));
            t.extend(g.stop_ns.map(|s| (format!("flows[{i}].stop_ns"), s)));
            if let App::Sessions { think_mean_ns, .. } = g.app {
                t.push((format!("flows[{i}].app.think_mean_ns"), think_mean_ns));
            }
            if let Transport::Tcp(c) = &g.transport {
                for (name, v) in [
                    ("min_rto_ns", c.min_rto_ns),
                    ("initial_rto_ns", c.initial_rto_ns),
                    ("max_rto_ns", c.max_rto_ns),
                    ("clock_granularity_ns", c.clock_granularity_ns),
                    ("delack_timeout_ns", c.delack_timeout_ns),
                ] {
                    t.push((format!("flows[{i}].transport.{name}"), v));
                }
            }
        }
        t.extend(self.network.iter().flat_map(|n| n.times()));
        t
    }

    /// Every check of [`SimConfig::validate`] but the limits on the run's cost.
    pub fn validate_values(&self) -> Result<(), String> {
        for (field, v) in self.times() {
            if v > MAX_TIME_NS {
                return Err(format!("{field}: {v} ns is outside the accepted range [0, {MAX_TIME_NS}] ns (2^50 ns, about 13 days)"));
            }
        }
        let b = &self.bottleneck;
        if !(HEADER_BYTES + 1..=MAX_MTU).contains(&b.mtu) {
            return Err(format!("bottleneck.mtu: {} is outside the accepted range [{}, {MAX_MTU}] bytes", b.mtu, HEADER_BYTES + 1));
        }
        if b.rate_bps == 0 {
            return Err("bottleneck.rate_bps: must be > 0".into());
        }
        if self.duration_ns == 0 {
            return Err("duration_ns: must be > 0".into());
        }
        if self.warmup_ns >= self.duration_ns {
            return Err("warmup_ns: must be below duration_ns".into());
        }
        for (name, q) in [("bottleneck.queue", &b.queue), ("bottleneck.reverse_queue", &b.reverse_queue), ("access.queue", &self.access.queue)] {
            q.validate().map_err(|e| format!("{name}.{e}"))?;
        }
        if let Some(imp) = &b.impairment {
            imp.validate().map_err(|e| format!("bottleneck.impairment.{e}"))?;
        }
        let mut last = 0;
        for (i, s) in b.rate_schedule.iter().enumerate() {
            if s.rate_bps == 0 {
                return Err(format!("bottleneck.rate_schedule[{i}].rate_bps: must be > 0"));
            }
            if s.at_ns < last {
                return Err(format!("bottleneck.rate_schedule[{i}].at_ns: steps must be in time order"));
            }
            last = s.at_ns;
        }
        self.validate_target_schedule()?;
        if self.access.rate_bps == Some(0) {
            return Err("access.rate_bps: must be > 0 (or absent for no serialization)".into());
        }
        b.device.validate().map_err(|e| format!("bottleneck.device.{e}"))?;
        self.access.device.validate().map_err(|e| format!("access.device.{e}"))?;
        if self.access.rate_bps.is_none() && self.access.device != DeviceConfig::default() {
            return Err("access.device: access links without a rate are pure delays, with no device to frame or queue packets: set access.rate_bps".into());
        }
        if self.traces.interval_ns == 0 || self.traces.sojourn_every == 0 {
            return Err("traces: interval_ns and sojourn_every must be > 0".into());
        }
        crate::pcap::Pcap::validate(&self.traces)?;
        if let Some(net) = &self.network {
            net.validate()?;
        }
        for (i, g) in self.flows.iter().enumerate() {
            g.validate().map_err(|e| format!("flows[{i}].{e}"))?;
            match (&self.network, &g.route) {
                (None, Some(_)) => return Err(format!("flows[{i}].route: routes need a network (routers and links)")),
                (Some(net), Some(r)) => drop(crate::net::graph::Graph::new(net, 2).route(r, &format!("flows[{i}].route"))?),
                _ => {}
            }
            if g.packet_size > b.mtu {
                return Err(format!("flows[{i}].packet_size: {} exceeds bottleneck.mtu {}", g.packet_size, b.mtu));
            }
        }
        Ok(())
    }

    pub fn total_flows(&self) -> usize {
        self.flows.iter().map(|g| g.count as usize).sum()
    }
}

/// The largest time anywhere in a configuration (2^50 ns, about 13 days), so that no sum of
/// times, delays and timer back-offs can overflow the 64-bit clock.
pub const MAX_TIME_NS: Nanos = 1 << 50;
/// The largest packet: the IPv4 total-length field.
pub const MAX_MTU: u32 = 65_535;
/// The largest transfer (1 PB), so that byte and segment counts stay exact.
pub const MAX_TRANSFER_BYTES: u64 = 1 << 50;

impl DeviceConfig {
    /// The largest link-layer overhead accepted, in bytes per packet.
    pub const MAX_OVERHEAD_BYTES: u32 = 65_535;

    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.overhead_bytes > Self::MAX_OVERHEAD_BYTES {
            return Err(format!("overhead_bytes: {} is outside the accepted range [0, {}]", self.overhead_bytes, Self::MAX_OVERHEAD_BYTES));
        }
        Ok(())
    }
}

impl FlowGroup {
    fn validate(&self) -> Result<(), String> {
        if self.count == 0 {
            return Err("count: must be >= 1".into());
        }
        if self.dscp > 63 {
            return Err(format!("dscp: {} is outside the accepted range [0, 63]", self.dscp));
        }
        let header = match &self.transport {
            Transport::Tcp(t) => t.data_header_bytes(),
            Transport::Udp(_) => crate::net::HEADER_BYTES,
        };
        if self.packet_size < header + 1 {
            return Err(format!("packet_size: must exceed the {header}-byte header"));
        }
        for (name, d) in [("access_delay_ns", &self.access_delay_ns), ("start_ns", &self.start_ns)] {
            match d {
                Dist::Uniform { lo, hi } if lo > hi => return Err(format!("{name}: lo must be <= hi")),
                Dist::Each(v) if v.len() != self.count as usize => {
                    return Err(format!("{name}: {} values given for {} flows", v.len(), self.count))
                }
                _ => {}
            }
        }
        match &self.transport {
            Transport::Tcp(t) => t.validate().map_err(|e| format!("transport.{e}"))?,
            Transport::Udp(u) => {
                if u.rate_bps == 0 {
                    return Err("transport.rate_bps: must be > 0".into());
                }
                if self.app != App::Bulk {
                    return Err("app: UDP sources are constant-bit-rate: only 'bulk' applies".into());
                }
            }
        }
        match &self.app {
            App::Transfer { bytes: 0 } => return Err("app.bytes: must be > 0".into()),
            App::Transfer { bytes } if *bytes > MAX_TRANSFER_BYTES => {
                return Err(format!("app.bytes: {bytes} is outside the accepted range [1, {MAX_TRANSFER_BYTES}]"))
            }
            App::Sessions { size, .. } | App::Poisson { size, .. } => size.validate().map_err(|e| format!("app.size.{e}"))?,
            _ => {}
        }
        if let Some(m) = &self.marker {
            m.validate(self).map_err(|e| format!("marker.{e}"))?;
        }
        if let App::Poisson { rate_per_s, .. } = self.app {
            if !(rate_per_s > 0.0 && rate_per_s.is_finite()) {
                return Err("app.rate_per_s: must be a positive number".into());
            }
            if self.stop_ns.is_none() || !matches!(self.start_ns, Dist::Fixed(_)) || self.count != 1 {
                return Err("app: Poisson arrivals need a fixed start, a stop time and count = 1".into());
            }
        }
        Ok(())
    }
}

impl SizeDist {
    fn validate(&self) -> Result<(), String> {
        let max = MAX_TRANSFER_BYTES as f64;
        match *self {
            SizeDist::Fixed(0) => Err("fixed: must be > 0".into()),
            SizeDist::Fixed(b) if b > MAX_TRANSFER_BYTES => Err(format!("fixed: {b} is outside the accepted range [1, {MAX_TRANSFER_BYTES}]")),
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } if mean > max => {
                Err(format!("mean: {mean} is outside the accepted range [1, {MAX_TRANSFER_BYTES}] bytes"))
            }
            SizeDist::Exponential { mean } if !(mean >= 1.0 && mean.is_finite()) => Err("mean: must be >= 1 byte".into()),
            SizeDist::Pareto { mean, shape } if !(mean >= 1.0 && mean.is_finite() && shape > 1.0 && shape.is_finite()) => {
                Err("pareto: mean must be >= 1 byte and shape > 1 (a finite mean)".into())
            }
            _ => Ok(()),
        }
    }

    /// One size in bytes (at least 1).
    pub fn draw(&self, rng: &mut aqm::Rng) -> u64 {
        let x = match *self {
            SizeDist::Fixed(b) => return b,
            SizeDist::Exponential { mean } => rng.exponential(mean),
            // Scale x_m = mean·(shape − 1)/shape; inverse transform x_m·U^(−1/shape).
            SizeDist::Pareto { mean, shape } => mean * (shape - 1.0) / shape * (1.0 - rng.uniform()).powf(-1.0 / shape),
        };
        (x.round() as u64).max(1)
    }
}
