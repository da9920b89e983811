//! General topologies: routers joined by duplex links, the dumbbell's bottleneck among them.
//!
//! A scenario with a `network` names its routers, says which two the bottleneck joins and
//! declares the other links, each with a rate, a delay, a discipline per direction, and
//! optionally a rate schedule, an impairment and a device. Every flow group runs between two
//! routers (by default the bottleneck's ends, left to right: the dumbbell), over the fewest
//! hops, through any waypoints it lists; its hosts keep their own access links at both ends.
//! Routes are computed once, when the simulation is built (as for the dumbbell, no per-packet
//! lookup), and ACKs go back over the same links in the other direction.
//!
//! The bottleneck keeps its role: the link whose delay statistics, traces and utilization the
//! summary reports. The other links' queues are reported one by one, named `from->to`.

use std::collections::VecDeque;

use aqm::{LinkInfo, Nanos, QdiscConfig, Rng};
use serde::{Deserialize, Serialize};

use super::impair::{ImpairConfig, Impairment};
use super::link::Capacity;
use super::{Link, LinkId};
use crate::config::{DeviceConfig, RateStep, SimConfig};

/// Random-stream ids of the network links' queues and impairments: declared link k uses
/// `NETWORK_STREAM_BASE + 4k` (forward queue), `+ 1` (reverse queue) and `+ 2` (impairment),
/// apart from the dumbbell's and the access links' streams.
pub const NETWORK_STREAM_BASE: u64 = 1 << 28;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// The routers, by name.
    pub nodes: Vec<String>,
    /// The routers the bottleneck joins; its forward direction runs from the first to the second.
    pub bottleneck: [String; 2],
    /// The links besides the bottleneck.
    pub links: Vec<NetLinkConfig>,
}

/// A duplex link between two routers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetLinkConfig {
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay_ns: Nanos,
    /// The discipline of the `from -> to` direction.
    pub queue: QdiscConfig,
    /// The discipline of the `to -> from` direction.
    pub reverse_queue: QdiscConfig,
    /// Capacity changes, in time order, applied to both directions.
    #[serde(default)]
    pub rate_schedule: Vec<RateStep>,
    /// Loss or outages on the `from -> to` direction, in front of the queue.
    #[serde(default)]
    pub impairment: Option<ImpairConfig>,
    #[serde(default)]
    pub device: DeviceConfig,
}

/// A router graph's duplex links as (node a, node b, link id a->b, link id b->a), the
/// bottleneck first, then the declared links in order: the order breaks ties between paths
/// of equal length.
pub struct Graph {
    nodes: Vec<String>,
    edges: Vec<(usize, usize, LinkId, LinkId)>,
}

impl Graph {
    /// The graph of `net` whose declared links get ids from `first_id` on, two per link (see
    /// [`NetworkConfig::build`]); the bottleneck's are 0 and 1. `net` must be valid.
    pub fn new(net: &NetworkConfig, first_id: LinkId) -> Graph {
        let node = |name: &str| net.nodes.iter().position(|n| n == name).expect("validated router name");
        let mut edges = vec![(node(&net.bottleneck[0]), node(&net.bottleneck[1]), 0, 1)];
        for (k, l) in net.links.iter().enumerate() {
            let id = first_id + 2 * k as LinkId;
            edges.push((node(&l.from), node(&l.to), id, id + 1));
        }
        Graph { nodes: net.nodes.clone(), edges }
    }
}

impl NetworkConfig {
    fn node(&self, name: &str, field: &str) -> Result<usize, String> {
        self.nodes.iter().position(|n| n == name).ok_or_else(|| format!("{field}: no router named '{name}' (routers: {})", self.nodes.join(", ")))
    }

    /// Checks names, ends and every link's values.
    pub fn validate(&self) -> Result<(), String> {
        for (i, n) in self.nodes.iter().enumerate() {
            if n.is_empty() || self.nodes[..i].contains(n) {
                return Err(format!("network.nodes[{i}]: router names must be non-empty and unique, got '{n}'"));
            }
        }
        let (a, b) = (self.node(&self.bottleneck[0], "network.bottleneck")?, self.node(&self.bottleneck[1], "network.bottleneck")?);
        if a == b {
            return Err("network.bottleneck: the bottleneck must join two different routers".into());
        }
        for (i, l) in self.links.iter().enumerate() {
            let p = format!("network.links[{i}]");
            if self.node(&l.from, &format!("{p}.from"))? == self.node(&l.to, &format!("{p}.to"))? {
                return Err(format!("{p}.to: a link must join two different routers"));
            }
            if l.rate_bps == 0 {
                return Err(format!("{p}.rate_bps: must be > 0"));
            }
            for (name, q) in [("queue", &l.queue), ("reverse_queue", &l.reverse_queue)] {
                q.validate().map_err(|e| format!("{p}.{name}.{e}"))?;
            }
            if let Some(imp) = &l.impairment {
                imp.validate().map_err(|e| format!("{p}.impairment.{e}"))?;
            }
            l.device.validate().map_err(|e| format!("{p}.device.{e}"))?;
            let mut last = 0;
            for (k, s) in l.rate_schedule.iter().enumerate() {
                if s.rate_bps == 0 || s.at_ns < last {
                    return Err(format!("{p}.rate_schedule[{k}]: rates must be > 0 and steps in time order"));
                }
                last = s.at_ns;
            }
        }
        Ok(())
    }

    /// Every time in the network's links, by field, for the simulator's range check.
    pub fn times(&self) -> Vec<(String, Nanos)> {
        let mut t = Vec::new();
        for (i, l) in self.links.iter().enumerate() {
            t.push((format!("network.links[{i}].delay_ns"), l.delay_ns));
            t.extend(l.rate_schedule.iter().enumerate().map(|(k, s)| (format!("network.links[{i}].rate_schedule[{k}].at_ns"), s.at_ns)));
            if let Some(imp) = &l.impairment {
                t.extend(imp.outages.iter().flat_map(|&(a, z)| [(format!("network.links[{i}].impairment.outages"), a), (format!("network.links[{i}].impairment.outages"), z)]));
            }
        }
        t
    }

    /// Builds the declared links at the end of `links` (after the dumbbell's, whose ids and
    /// random streams stay as they were) and returns the graph to route over.
    pub fn build(&self, cfg: &SimConfig, links: &mut Vec<Link>) -> Graph {
        let mtu = cfg.bottleneck.mtu;
        let first_id = links.len() as LinkId;
        for (k, l) in self.links.iter().enumerate() {
            let info = LinkInfo { rate_bps: l.rate_bps, mtu };
            let stream = NETWORK_STREAM_BASE + 4 * k as u64;
            let dir = |name: String, q: &QdiscConfig, s: u64| {
                let qdisc = q.build(info, Rng::stream(cfg.seed, s));
                Link::new(name, Some(l.rate_bps), l.delay_ns, Some(qdisc)).with_device(&l.device).with_capacity(Capacity::of(q, mtu))
            };
            let mut fwd = dir(format!("{}->{}", l.from, l.to), &l.queue, stream);
            fwd.impairment = l.impairment.clone().map(|c| Impairment::new(c, Rng::stream(cfg.seed, stream + 2)));
            links.push(fwd);
            links.push(dir(format!("{}->{}", l.to, l.from), &l.reverse_queue, stream + 1));
        }
        Graph::new(self, first_id)
    }

    /// One-way propagation delay along the route through `routers` (see [`Graph::route`]),
    /// the bottleneck's delay being `bottleneck_delay_ns`: what a group's base RTT adds to its
    /// access links (the Python front end derives access delays from RTTs with it).
    pub fn route_delay(&self, bottleneck_delay_ns: Nanos, routers: &[String]) -> Result<Nanos, String> {
        self.validate()?;
        let (data, _) = Graph::new(self, 2).route(routers, "route")?;
        Ok(data.iter().map(|&id| if id < 2 { bottleneck_delay_ns } else { self.links[(id as usize - 2) / 2].delay_ns }).sum())
    }
}

impl Graph {
    /// The links (a->b direction) of a fewest-hop path from router `a` to `b`, by breadth-first
    /// search visiting links in declaration order; None if `b` cannot be reached.
    fn shortest(&self, a: usize, b: usize) -> Option<Vec<LinkId>> {
        let mut came: Vec<Option<(usize, LinkId)>> = vec![None; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        seen[a] = true;
        let mut todo = VecDeque::from([a]);
        while let Some(n) = todo.pop_front() {
            for &(x, y, xy, yx) in &self.edges {
                for (from, to, id) in [(x, y, xy), (y, x, yx)] {
                    if from == n && !seen[to] {
                        seen[to] = true;
                        came[to] = Some((n, id));
                        todo.push_back(to);
                    }
                }
            }
        }
        let mut path = Vec::new();
        let mut n = b;
        while n != a {
            let (prev, id) = came[n]?;
            path.push(id);
            n = prev;
        }
        path.reverse();
        Some(path)
    }

    /// The other direction of link `id`.
    fn reverse_of(&self, id: LinkId) -> LinkId {
        self.edges.iter().find_map(|&(_, _, xy, yx)| if xy == id { Some(yx) } else if yx == id { Some(xy) } else { None }).expect("a network link")
    }

    /// A group's data route through its routers (first to last, through the others in order),
    /// and the route of its ACKs back.
    pub fn route(&self, routers: &[String], field: &str) -> Result<(Vec<LinkId>, Vec<LinkId>), String> {
        let idx: Vec<usize> = routers
            .iter()
            .map(|r| self.nodes.iter().position(|n| n == r).ok_or_else(|| format!("{field}: no router named '{r}' (routers: {})", self.nodes.join(", "))))
            .collect::<Result<_, _>>()?;
        if idx.len() < 2 {
            return Err(format!("{field}: give at least the first and the last router"));
        }
        let mut data = Vec::new();
        for w in idx.windows(2) {
            if w[0] == w[1] {
                return Err(format!("{field}: '{}' follows itself", self.nodes[w[0]]));
            }
            data.extend(self.shortest(w[0], w[1]).ok_or_else(|| format!("{field}: no path from '{}' to '{}'", self.nodes[w[0]], self.nodes[w[1]]))?);
        }
        let acks = data.iter().rev().map(|&id| self.reverse_of(id)).collect();
        Ok((data, acks))
    }
}
