//! Per Packet Value at the edge: TVFs, markers, and the desired shares of a policy.
//!
//! A *policy flow* is what one TVF governs (PVPIE §4): a user's N_tcp.c TCP connections
//! together, or one UDP source. A flow group with a `marker` is cut into policy flows of
//! `connections_per_flow` consecutive connections (the whole group when absent); each policy
//! flow owns one marker, shared by all its connections, which stamps the PV code on every data
//! packet they send (retransmissions included). ACKs carry no PV.
//!
//! The desired outcome of a policy (PVPIE Figs. 5, 8, 15 "Desired") is the threshold value at
//! which the active policy flows' demands fill the link: Σ_i min(demand_i, X_i(CTV)) = C, with
//! X_i the inverse TVF; a TCP flow demands without limit, a UDP source its sending rate.

pub mod marker;
pub mod tvf;

use aqm::{Nanos, Rng};
use serde::{Deserialize, Serialize};

use crate::config::{FlowGroup, SimConfig, Transport};
use crate::flow::Flow;
use crate::net::dumbbell::GROUP_STREAM_BASE;
pub use marker::{Marker, MarkerKind};
pub use tvf::{Tvf, TvfConfig};

/// Random streams of the markers: policy flow k uses `MARKER_STREAM_BASE + k`.
pub const MARKER_STREAM_BASE: u64 = GROUP_STREAM_BASE + (1 << 30);

/// The marking policy of a flow group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerConfig {
    pub tvf: TvfConfig,
    pub kind: MarkerKind,
    /// Connections per policy flow (N_tcp.c); absent: the whole group is one policy flow.
    pub connections_per_flow: Option<u32>,
}

impl MarkerConfig {
    /// Checks the TVF, the marker and that the group divides into whole policy flows.
    pub fn validate(&self, group: &FlowGroup) -> Result<(), String> {
        self.tvf.build().map_err(|e| format!("tvf.{e}"))?;
        self.kind.validate().map_err(|e| format!("kind.{e}"))?;
        match self.connections_per_flow {
            Some(0) => Err("connections_per_flow: must be >= 1".into()),
            Some(n) if !group.count.is_multiple_of(n) => Err(format!("connections_per_flow: {n} does not divide count = {}", group.count)),
            _ => Ok(()),
        }
    }
}

/// One policy flow: its marker, its TVF, and what it demands.
#[derive(Clone, Debug)]
struct PolicyFlow {
    marker: Marker,
    tvf: Tvf,
    /// (start, stop) of each member connection.
    members: Vec<(Nanos, Option<Nanos>)>,
    /// Per member: the UDP sending rate in bit/s, or `None` for TCP (unlimited demand).
    udp_rate_bps: Option<f64>,
}

impl PolicyFlow {
    /// What the flow would send at `now` if nothing were dropped (0 when no member is active).
    fn demand(&self, now: Nanos) -> f64 {
        let active = self.members.iter().filter(|(start, stop)| *start <= now && stop.is_none_or(|s| now < s)).count();
        match (active, self.udp_rate_bps) {
            (0, _) => 0.0,
            (_, None) => f64::INFINITY,
            (n, Some(r)) => n as f64 * r,
        }
    }
}

/// The markers of a simulation, and the map from connection to policy flow.
#[derive(Clone, Debug, Default)]
pub struct PolicyMarkers {
    /// Per connection (simulator flow): its policy flow, if its group is marked. Empty when no
    /// group is: then marking reads nothing per packet (at many flows a lookup here is a cache
    /// miss per packet sent).
    of_flow: Vec<Option<u32>>,
    flows: Vec<PolicyFlow>,
}

impl PolicyMarkers {
    /// Builds one marker per policy flow of every marked group (`cfg` is validated).
    pub fn new(cfg: &SimConfig, flows: &[Flow]) -> Self {
        let mut m = PolicyMarkers { of_flow: Vec::with_capacity(flows.len()), flows: Vec::new() };
        // (group, index of the group's first policy flow, connections seen in the group).
        let mut current: Option<(u32, usize, u32)> = None;
        for f in flows {
            let group = &cfg.flows[f.group as usize];
            let Some(mc) = &group.marker else {
                m.of_flow.push(None);
                continue;
            };
            let (base, seen) = match current {
                Some((g, base, seen)) if g == f.group => (base, seen),
                _ => (m.flows.len(), 0),
            };
            current = Some((f.group, base, seen + 1));
            // Absent: one policy flow for the whole group (also for a Poisson group's arrivals).
            let per = mc.connections_per_flow.unwrap_or(u32::MAX);
            let k = base + (seen / per) as usize;
            if k == m.flows.len() {
                let tvf = mc.tvf.build().expect("validated TVF");
                let rng = Rng::stream(cfg.seed, MARKER_STREAM_BASE + k as u64);
                let udp_rate_bps = match &group.transport {
                    Transport::Udp(u) => Some(u.rate_bps as f64),
                    Transport::Tcp(_) => None,
                };
                m.flows.push(PolicyFlow { marker: Marker::new(&mc.kind, &tvf, rng), tvf, members: Vec::new(), udp_rate_bps });
            }
            m.flows[k].members.push((f.start_ns, f.stop_ns));
            m.of_flow.push(Some(k as u32));
        }
        if m.flows.is_empty() {
            m.of_flow = Vec::new();
        }
        m
    }

    /// Whether any group is marked.
    pub fn any(&self) -> bool {
        !self.flows.is_empty()
    }

    /// Number of policy flows.
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// The policy flow of simulator flow `flow`, if marked.
    pub fn policy_flow_of(&self, flow: usize) -> Option<usize> {
        self.of_flow.get(flow).copied().flatten().map(|k| k as usize)
    }

    /// The PV code of a data packet of `len` bytes that flow `flow` sends at `now` (0: unmarked).
    #[inline]
    pub fn mark(&mut self, flow: usize, now: Nanos, len: u32) -> u8 {
        match self.of_flow.get(flow).copied().flatten() {
            Some(k) => self.flows[k as usize].marker.mark(now, len),
            None => 0,
        }
    }

    /// The desired threshold and per-policy-flow rates at `now` on a link of `capacity_bps`.
    pub fn desired(&self, now: Nanos, capacity_bps: f64) -> Desired {
        let classes: Vec<(&Tvf, f64)> = self.flows.iter().map(|f| (&f.tvf, f.demand(now))).collect();
        desired(&classes, capacity_bps)
    }

    /// Probe columns the simulator adds to the bottleneck's when groups are marked.
    pub fn probe_names(&self) -> Vec<&'static str> {
        if self.any() {
            vec!["desired_ctv"]
        } else {
            Vec::new()
        }
    }

    pub fn probe(&self, now: Nanos, capacity_bps: f64, out: &mut Vec<f64>) {
        if self.any() {
            out.push(self.desired(now, capacity_bps).ctv_code);
        }
    }
}

/// The desired outcome of a policy on one link.
#[derive(Clone, Debug, PartialEq)]
pub struct Desired {
    /// The threshold as a continuous code, 30·log10(CTV); 0 when every demand fits.
    pub ctv_code: f64,
    /// Each class's throughput at that threshold, bit/s, capped by its demand.
    pub rates_bps: Vec<f64>,
}

/// The threshold at which classes `(TVF, demand bit/s)` fill `capacity_bps`, found by bisection
/// on the continuous code in [0, 255] (the total rate falls as the threshold rises).
pub fn desired(classes: &[(&Tvf, f64)], capacity_bps: f64) -> Desired {
    let total = |code: f64| -> f64 { classes.iter().map(|(t, d)| t.rate(10f64.powf(code / 30.0)).min(*d)).sum() };
    let ctv_code = if total(0.0) <= capacity_bps {
        0.0
    } else if total(255.0) >= capacity_bps {
        255.0
    } else {
        let (mut lo, mut hi) = (0.0, 255.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if total(mid) > capacity_bps {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    };
    let v = 10f64.powf(ctv_code / 30.0);
    Desired { ctv_code, rates_bps: classes.iter().map(|(t, d)| t.rate(v).min(*d)).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desired_shares_fill_the_link_by_the_policy() {
        let (g, s, b) = (TvfConfig::Gold.build().unwrap(), TvfConfig::Silver.build().unwrap(), TvfConfig::Background.build().unwrap());
        // One Gold and one Silver TCP flow on 100 Mb/s: region III, Gold = 4 × Silver → 80 / 20.
        let d = desired(&[(&g, f64::INFINITY), (&s, f64::INFINITY)], 100e6);
        assert!((d.rates_bps[0] - 80e6).abs() < 1.0 && (d.rates_bps[1] - 20e6).abs() < 1.0, "{d:?}");
        // The threshold is Gold's value at 80 Mb/s: 30·log10(1e11 / 8e7) = 92.909…
        assert!((d.ctv_code - 30.0 * (1e11f64 / 8e7).log10()).abs() < 1e-6);
        // PVPIE scenario 4: 5 Gold TCP flows and 2 Silver UDP flows of 6 Mb/s on 10 Mb/s. The
        // paper's desired split: 1.67 Mb/s per Gold flow, 0.83 Mb/s per Silver flow. Region I
        // (Silver below 1 Mb/s, Gold = 2 × Silver): 5·2x + 2·x = 10 Mb/s → x = 0.8333 Mb/s.
        let mut classes = vec![(&g, f64::INFINITY); 5];
        classes.extend([(&s, 6e6), (&s, 6e6)]);
        let d = desired(&classes, 10e6);
        assert!((d.rates_bps[0] - 10e6 / 6.0).abs() < 1.0 && (d.rates_bps[6] - 10e6 / 12.0).abs() < 1.0, "{d:?}");
        // Background UDP of 30 Mb/s ×3 with one Gold and one Silver TCP on 100 Mb/s: region III,
        // G = 4S = 40B with 40B + 10B + 3B = 100 Mb/s.
        let d = desired(&[(&g, f64::INFINITY), (&s, f64::INFINITY), (&b, 30e6), (&b, 30e6), (&b, 30e6)], 100e6);
        let bg = 100e6 / 53.0;
        assert!((d.rates_bps[0] - 40.0 * bg).abs() < 1.0 && (d.rates_bps[2] - bg).abs() < 1.0, "{d:?}");
        // Demands that fit: no threshold.
        let d = desired(&[(&b, 30e6)], 100e6);
        assert_eq!((d.ctv_code, d.rates_bps[0]), (0.0, 30e6));
    }
}
