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

#[cfg(test)]
mod tests {
    use aqm::{Ecn, Pkt, Qdisc, QueueDisc, QueueLimit};

    use super::*;
    use crate::bench::tcp_dumbbell;
    use crate::net::impair::{Fate, LossModel};

    const MS: Nanos = 1_000_000;

    fn link(from: &str, to: &str, delay_ns: Nanos) -> NetLinkConfig {
        let q = QdiscConfig::drop_tail(QueueLimit::Packets(100));
        NetLinkConfig { from: from.into(), to: to.into(), rate_bps: 10_000_000, delay_ns, queue: q.clone(), reverse_queue: q, rate_schedule: vec![], impairment: None, device: DeviceConfig::default() }
    }

    /// R0 =bottleneck= R1 -3 ms- R2 -7 ms- R3, and a spur declared from R4 to R1 (11 ms).
    fn chain() -> NetworkConfig {
        NetworkConfig {
            nodes: ["R0", "R1", "R2", "R3", "R4"].map(String::from).to_vec(),
            bottleneck: ["R0".into(), "R1".into()],
            links: vec![link("R1", "R2", 3 * MS), link("R2", "R3", 7 * MS), link("R4", "R1", 11 * MS)],
        }
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn route_delay_adds_the_one_way_delays_along_the_route() {
        let net = chain();
        let d = |r: &[&str]| net.route_delay(5 * MS, &names(r)).unwrap();
        // The bottleneck's 5 ms, then 3 and 7 ms; the same links backwards (their other
        // directions) take the same.
        assert_eq!(d(&["R0", "R3"]), 15 * MS);
        assert_eq!(d(&["R3", "R0"]), 15 * MS);
        assert_eq!(d(&["R1", "R0"]), 5 * MS);
        assert_eq!(d(&["R1", "R2"]), 3 * MS);
        assert_eq!(d(&["R2", "R1"]), 3 * MS);
        // R0 to R4 crosses the spur against its declaration (R1 -> R4).
        assert_eq!(d(&["R0", "R4"]), 16 * MS);
        // Through a waypoint and back: R1 -> R3 (3 + 7), R3 -> R4 (7 + 3 + 11).
        assert_eq!(d(&["R1", "R3", "R4"]), 31 * MS);
        assert!(net.route_delay(5 * MS, &names(&["R0", "R9"])).unwrap_err().contains("no router named 'R9'"));
        let mut bad = chain();
        bad.links[0].rate_bps = 0;
        assert_eq!(bad.route_delay(5 * MS, &names(&["R0", "R3"])), Err("network.links[0].rate_bps: must be > 0".into()));
    }

    #[test]
    fn routes_take_the_fewest_hops_and_acks_return_over_the_same_links() {
        let net = chain();
        let g = Graph::new(&net, 2);
        // The routers each link id joins, from the numbering the graph is documented to use: the
        // bottleneck's directions 0 (R0 -> R1) and 1, then declared link k's from -> to at
        // 2 + 2k and to -> from at 3 + 2k.
        let ends = |id: LinkId| -> (&str, &str) {
            match id {
                0 => ("R0", "R1"),
                1 => ("R1", "R0"),
                _ => {
                    let l = &net.links[(id as usize - 2) / 2];
                    if id.is_multiple_of(2) { (&l.from, &l.to) } else { (&l.to, &l.from) }
                }
            }
        };
        let walk = |path: &[LinkId], from: &str, to: &str| {
            let mut at = from;
            for &id in path {
                let (x, y) = ends(id);
                assert_eq!(x, at, "{path:?} from {from}");
                at = y;
            }
            assert_eq!(at, to, "{path:?} from {from}");
        };
        for (routers, hops) in [(&["R0", "R3"][..], 3), (&["R3", "R0"], 3), (&["R0", "R4"], 2), (&["R4", "R2"], 2), (&["R2", "R4"], 2), (&["R1", "R0"], 1), (&["R0", "R3", "R4"], 6)] {
            let (data, acks) = g.route(&names(routers), "route").unwrap();
            let (a, b) = (routers[0], routers[routers.len() - 1]);
            assert_eq!(data.len(), hops, "{routers:?}: {data:?}");
            walk(&data, a, b);
            walk(&acks, b, a);
            // Each ACK link is a data link's other direction, in the reverse order.
            assert_eq!(acks.len(), data.len());
            for (d, k) in data.iter().rev().zip(&acks) {
                let (x, y) = ends(*d);
                assert_eq!(ends(*k), (y, x), "{routers:?}: data {data:?}, acks {acks:?}");
            }
        }
        assert_eq!(g.route(&names(&["R0", "R0"]), "f"), Err("f: 'R0' follows itself".into()));
        assert_eq!(g.route(&names(&["R0"]), "f"), Err("f: give at least the first and the last router".into()));
    }

    #[test]
    fn networks_are_validated_field_by_field() {
        assert_eq!(chain().validate(), Ok(()));
        let err = |edit: &dyn Fn(&mut NetworkConfig)| {
            let mut n = chain();
            edit(&mut n);
            n.validate().unwrap_err()
        };
        assert_eq!(err(&|n| n.nodes[3] = "R1".into()), "network.nodes[3]: router names must be non-empty and unique, got 'R1'");
        assert_eq!(err(&|n| n.nodes[4] = String::new()), "network.nodes[4]: router names must be non-empty and unique, got ''");
        assert!(err(&|n| n.bottleneck[1] = "X".into()).starts_with("network.bottleneck: no router named 'X' (routers: R0, R1, R2, R3, R4)"));
        assert_eq!(err(&|n| n.bottleneck[1] = "R0".into()), "network.bottleneck: the bottleneck must join two different routers");
        assert!(err(&|n| n.links[0].from = "Q".into()).starts_with("network.links[0].from: no router named 'Q'"));
        assert!(err(&|n| n.links[0].to = "Q".into()).starts_with("network.links[0].to: no router named 'Q'"));
        assert_eq!(err(&|n| n.links[1].to = "R2".into()), "network.links[1].to: a link must join two different routers");
        assert_eq!(err(&|n| n.links[2].rate_bps = 0), "network.links[2].rate_bps: must be > 0");
        assert!(err(&|n| n.links[2].reverse_queue = QdiscConfig::drop_tail(QueueLimit::Packets(0))).starts_with("network.links[2].reverse_queue."));
        let p2 = ImpairConfig { loss: LossModel::Bernoulli { p: 2.0 }, mark_instead: false, outages: vec![] };
        assert_eq!(err(&|n| n.links[0].impairment = Some(p2.clone())), "network.links[0].impairment.loss.p: 2 is outside [0, 1]");
        assert!(err(&|n| n.links[1].device.overhead_bytes = 70_000).starts_with("network.links[1].device."));
        // A rate schedule: rates above 0, times that never go back (two steps at one time are
        // in order; the later one applies).
        let step = |at_ns, rate_bps| RateStep { at_ns, rate_bps };
        let schedule = |s: Vec<RateStep>| {
            let mut n = chain();
            n.links[1].rate_schedule = s;
            n.validate()
        };
        assert_eq!(schedule(vec![step(1, 5), step(1, 6), step(2, 7)]), Ok(()));
        let bad = |i: usize| Err(format!("network.links[1].rate_schedule[{i}]: rates must be > 0 and steps in time order"));
        assert_eq!(schedule(vec![step(2, 5), step(1, 6)]), bad(1));
        assert_eq!(schedule(vec![step(2, 5), step(3, 0)]), bad(1));
        assert_eq!(schedule(vec![step(0, 0)]), bad(0));
    }

    #[test]
    fn every_time_of_the_links_is_named_for_the_range_check() {
        let mut n = chain();
        n.links[1].rate_schedule = vec![RateStep { at_ns: 4, rate_bps: 1 }, RateStep { at_ns: 9, rate_bps: 2 }];
        n.links[2].impairment = Some(ImpairConfig { loss: LossModel::None, mark_instead: false, outages: vec![(20, 30)] });
        let want: Vec<(String, Nanos)> = [
            ("network.links[0].delay_ns", 3 * MS),
            ("network.links[1].delay_ns", 7 * MS),
            ("network.links[1].rate_schedule[0].at_ns", 4),
            ("network.links[1].rate_schedule[1].at_ns", 9),
            ("network.links[2].delay_ns", 11 * MS),
            ("network.links[2].impairment.outages", 20),
            ("network.links[2].impairment.outages", 30),
        ]
        .iter()
        .map(|&(f, t)| (f.to_string(), t))
        .collect();
        assert_eq!(n.times(), want);
        // The scenario refuses a time past 2^50 ns by that name.
        let too_late = crate::config::MAX_TIME_NS + 1;
        for (edit, field) in [
            (&(|n: &mut NetworkConfig| n.links[2].delay_ns = too_late) as &dyn Fn(&mut NetworkConfig), "network.links[2].delay_ns"),
            (&|n: &mut NetworkConfig| n.links[1].rate_schedule[1].at_ns = too_late, "network.links[1].rate_schedule[1].at_ns"),
            (&|n: &mut NetworkConfig| n.links[2].impairment.as_mut().unwrap().outages[0].1 = too_late, "network.links[2].impairment.outages"),
        ] {
            let mut c = tcp_dumbbell(1, 10_000_000, 40 * MS, QueueLimit::Packets(100), 1_000 * MS);
            let mut net = n.clone();
            edit(&mut net);
            c.network = Some(net);
            let e = c.validate().unwrap_err();
            assert!(e.starts_with(&format!("{field}: {too_late} ns is outside the accepted range")), "{e}");
        }
    }

    /// Declared link k's random components draw from the streams the documentation gives
    /// (NETWORK_STREAM_BASE + 4k for its forward queue, + 1 for the reverse one, + 2 for its
    /// impairment), draw for draw: each is checked against a twin built apart with that stream,
    /// a RED queue whose drop probability climbs to 0.5 over 600 arrivals and a Bernoulli
    /// impairment of p = 0.5.
    #[test]
    fn each_declared_link_draws_from_its_documented_streams() {
        let red: QdiscConfig = serde_json::from_str(r#"{"type":"red","profile":"ns2","limit":{"packets":2000},"min_th":0,"max_th":600,"w_q":1.0,"max_p":0.5,"wait":false}"#).unwrap();
        let imp = ImpairConfig { loss: LossModel::Bernoulli { p: 0.5 }, mark_instead: false, outages: vec![] };
        let mut net = chain();
        for l in &mut net.links {
            (l.queue, l.reverse_queue, l.impairment) = (red.clone(), red.clone(), Some(imp.clone()));
        }
        let mut cfg = tcp_dumbbell(1, 10_000_000, 40 * MS, QueueLimit::Packets(100), 1_000 * MS);
        cfg.seed = 11;
        let mut links = Vec::new();
        net.build(&cfg, &mut links);
        let admitted = |q: &mut Qdisc| -> Vec<bool> { (0..600).map(|i| q.enqueue(0, Pkt::new(i, 1000, 0), &mut Vec::new())).collect() };
        let fates = |imp: &mut Impairment| -> Vec<Fate> { (0..1000).map(|t| imp.judge(t, Ecn::NotEct)).collect() };
        let info = LinkInfo { rate_bps: 10_000_000, mtu: cfg.bottleneck.mtu };
        for k in 0..3 {
            let base = NETWORK_STREAM_BASE + 4 * k as u64;
            for (dir, stream) in [(0, base), (1, base + 1)] {
                let got = admitted(links[2 * k + dir].qdisc.as_mut().unwrap());
                let dropped = got.iter().filter(|&&a| !a).count();
                assert!((50..=250).contains(&dropped), "link {k} direction {dir}: {dropped} early drops");
                assert_eq!(got, admitted(&mut red.build(info, Rng::stream(11, stream))), "link {k} direction {dir}");
            }
            let got = fates(links[2 * k].impairment.as_mut().unwrap());
            assert_eq!(got, fates(&mut Impairment::new(imp.clone(), Rng::stream(11, base + 2))), "link {k} impairment");
            assert!(links[2 * k + 1].impairment.is_none(), "the impairment is on the forward direction only");
        }
    }
}
