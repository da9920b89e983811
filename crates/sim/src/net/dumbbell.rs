//! The dumbbell: N senders, a left and a right router joined by the bottleneck, N receivers.
//!
//! ```text
//!  S0 --a0--+                         +--r-- D0
//!  S1 --a1--+-- L ==== bottleneck ==== R --+--r-- D1
//!  ...      +                         +     ...
//! ```
//! Every host has its own access link (one per direction), so each flow's round trip is
//! `2·(a_i + d_bottleneck + r)` plus serialization. Forwarding uses precomputed routes (the
//! list of links a flow's data, or its ACKs, cross), as htsim does: no per-packet lookup.
//!
//! With a `network` (see [`super::graph`]) the routers between the access links are a graph
//! and the bottleneck one of its links; the dumbbell is the graph of the bottleneck alone,
//! and builds to the same links, ids and random streams.

use aqm::{LinkInfo, Nanos, Rng};

use super::impair::Impairment;
use super::link::Capacity;
use super::{Link, LinkId};
use crate::config::SimConfig;
use crate::flow::Flow;

/// Random-stream ids of the components that draw numbers: flow i of group g uses
/// `FLOW_STREAM_BASE + (g << 24) + i`, a group's arrival process `GROUP_STREAM_BASE + g`.
pub const STREAM_BOTTLENECK_QUEUE: u64 = 1;
pub const STREAM_REVERSE_QUEUE: u64 = 2;
pub const STREAM_IMPAIRMENT: u64 = 3;
pub const STREAM_ACCESS_QUEUES: u64 = 1 << 20;
pub const GROUP_STREAM_BASE: u64 = 1 << 31;
pub const FLOW_STREAM_BASE: u64 = 1 << 32;

/// Every route: the links a packet crosses, in order (its host's access link, the links
/// between its routers, the far host's access link). All routes sit end to end in one flat
/// table, so finding a packet's next link reads two adjacent arrays and follows no pointer of
/// its own (a dumbbell's routes are three links each; a network's as long as their paths).
#[derive(Default)]
pub struct Routes {
    /// (first index in `links`, number of links) of each route.
    spans: Vec<(u32, u32)>,
    links: Vec<LinkId>,
}

impl Routes {
    pub(crate) fn push(&mut self, parts: &[&[LinkId]]) {
        let start = self.links.len() as u32;
        for part in parts {
            self.links.extend_from_slice(part);
        }
        self.spans.push((start, self.links.len() as u32 - start));
    }

    /// Every route's links, in route order.
    pub fn iter(&self) -> impl Iterator<Item = &[LinkId]> {
        (0..self.spans.len()).map(|i| self.get(i))
    }

    /// Route `i`'s links.
    #[inline]
    pub fn get(&self, i: usize) -> &[LinkId] {
        let (start, n) = self.spans[i];
        &self.links[start as usize..(start + n) as usize]
    }
}

/// Links and per-flow routes of a built dumbbell.
pub struct Topology {
    pub links: Vec<Link>,
    /// Route of flow i's data is `routes[2i]`, of its ACKs `routes[2i + 1]`.
    pub routes: Routes,
    pub bottleneck: LinkId,
    pub reverse_bottleneck: LinkId,
    /// One-way propagation delay between each flow's routers (its access links excluded).
    pub path_delay_ns: Vec<Nanos>,
    /// Id of the first declared network link's forward direction (link k's are this + 2k and
    /// + 2k + 1); the number of links when there is no network.
    pub network_first_link: LinkId,
}

/// Builds the dumbbell, or the network, for `cfg` and its `flows`, with their routes.
pub fn build(cfg: &SimConfig, flows: &[Flow]) -> Topology {
    let b = &cfg.bottleneck;
    let info = LinkInfo { rate_bps: b.rate_bps, mtu: b.mtu };
    let mut links = Vec::with_capacity(4 * flows.len() + 2);
    let fwd = b.queue.build(info, Rng::stream(cfg.seed, STREAM_BOTTLENECK_QUEUE));
    let mut bottleneck = Link::new("bottleneck L->R".into(), Some(b.rate_bps), b.delay_ns, Some(fwd)).with_device(&b.device).with_capacity(Capacity::of(&b.queue, b.mtu));
    bottleneck.impairment = b.impairment.clone().map(|c| Impairment::new(c, Rng::stream(cfg.seed, STREAM_IMPAIRMENT)));
    links.push(bottleneck);
    let rev = b.reverse_queue.build(info, Rng::stream(cfg.seed, STREAM_REVERSE_QUEUE));
    links.push(Link::new("bottleneck R->L".into(), Some(b.rate_bps), b.delay_ns, Some(rev)).with_device(&b.device).with_capacity(Capacity::of(&b.reverse_queue, b.mtu)));
    let mut routes = Routes::default();
    let access_capacity = Capacity::of(&cfg.access.queue, b.mtu);
    // A pure-delay access link is not named: nothing reports it (it has no queue), and a
    // million flows' four names would take 200 MB.
    let access = |name: &dyn Fn() -> String, delay: u64, links: &mut Vec<Link>| -> LinkId {
        let stream = STREAM_ACCESS_QUEUES + links.len() as u64;
        let qdisc = cfg.access.rate_bps.map(|rate| {
            cfg.access.queue.build(LinkInfo { rate_bps: rate, mtu: b.mtu }, Rng::stream(cfg.seed, stream))
        });
        let name = if qdisc.is_some() { name() } else { String::new() };
        links.push(Link::new(name, cfg.access.rate_bps, delay, qdisc).with_device(&cfg.access.device).with_capacity(access_capacity));
        (links.len() - 1) as LinkId
    };
    let mut ends = Vec::with_capacity(flows.len());
    for (i, f) in flows.iter().enumerate() {
        let (a, r) = (f.access_delay_ns, f.receiver_delay_ns);
        let s_up = access(&|| format!("S{i}->L"), a, &mut links);
        let s_down = access(&|| format!("L->S{i}"), a, &mut links);
        let d_down = access(&|| format!("R->D{i}"), r, &mut links);
        let d_up = access(&|| format!("D{i}->R"), r, &mut links);
        ends.push([s_up, s_down, d_down, d_up]);
    }
    let network_first_link = links.len() as LinkId;
    // Each group's routes between its routers: the bottleneck alone on the dumbbell.
    let group_routes: Vec<(Vec<LinkId>, Vec<LinkId>)> = match &cfg.network {
        None => vec![(vec![0], vec![1]); cfg.flows.len()],
        Some(net) => {
            let graph = net.build(cfg, &mut links);
            cfg.flows
                .iter()
                .map(|g| graph.route(g.route.as_deref().unwrap_or(&net.bottleneck), "route").expect("validated route"))
                .collect()
        }
    };
    let mut path_delay_ns = Vec::with_capacity(flows.len());
    for (f, [s_up, s_down, d_down, d_up]) in flows.iter().zip(ends) {
        let (data, acks) = &group_routes[f.group as usize];
        path_delay_ns.push(data.iter().map(|&l| links[l as usize].delay_ns).sum());
        routes.push(&[&[s_up], data, &[d_down]]);
        routes.push(&[&[d_up], acks, &[s_down]]);
    }
    Topology { links, routes, bottleneck: 0, reverse_bottleneck: 1, path_delay_ns, network_first_link }
}

#[cfg(test)]
mod tests {
    use aqm::{Pkt, QdiscConfig, QueueDisc, QueueLimit};

    use super::*;
    use crate::bench::tcp_dumbbell;
    use crate::endpoints::build_flows;
    use crate::net::graph::NETWORK_STREAM_BASE;
    use crate::ppv::MARKER_STREAM_BASE;

    /// The components that draw random numbers take their streams from disjoint ranges, so that
    /// no two ever draw the same numbers, up to 2^24 access links' worth of flows (the group
    /// limit; the 8 GiB memory limit stops runs near 5.6 million flows), 2^24 declared links,
    /// groups and policy markers, and 2^24 flows in each group.
    #[test]
    fn random_streams_of_different_components_lie_in_disjoint_ranges() {
        let n: u64 = 1 << 24;
        assert_eq!([STREAM_BOTTLENECK_QUEUE, STREAM_REVERSE_QUEUE, STREAM_IMPAIRMENT], [1, 2, 3]);
        // [start, end) of each family, in increasing order.
        let ranges = [
            ("bottleneck", 1, 4),
            ("access links", STREAM_ACCESS_QUEUES + 2, STREAM_ACCESS_QUEUES + 2 + 4 * n),
            ("declared links", NETWORK_STREAM_BASE, NETWORK_STREAM_BASE + 4 * n),
            ("groups", GROUP_STREAM_BASE, GROUP_STREAM_BASE + n),
            ("markers", MARKER_STREAM_BASE, MARKER_STREAM_BASE + n),
            ("flows", FLOW_STREAM_BASE, FLOW_STREAM_BASE + (n << 24) + n),
        ];
        for w in ranges.windows(2) {
            let ((a, a0, a1), (b, b0, b1)) = (w[0], w[1]);
            assert!(a0 < a1 && a1 <= b0 && b0 < b1, "{a} [{a0}, {a1}) and {b} [{b0}, {b1})");
        }
    }

    /// A rated access link draws from STREAM_ACCESS_QUEUES plus its link id, draw for draw: each
    /// of three flows' four access links against a twin RED queue built apart with that stream
    /// (its drop probability climbing to 0.5 over 600 arrivals).
    #[test]
    fn each_rated_access_link_draws_from_its_own_stream() {
        let red: QdiscConfig = serde_json::from_str(r#"{"type":"red","profile":"ns2","limit":{"packets":2000},"min_th":0,"max_th":600,"w_q":1.0,"max_p":0.5,"wait":false}"#).unwrap();
        let mut c = tcp_dumbbell(3, 10_000_000, 40_000_000, QueueLimit::Packets(100), 1_000_000_000);
        c.seed = 5;
        c.access.rate_bps = Some(100_000_000);
        c.access.queue = red.clone();
        let mut topo = build(&c, &build_flows(&c));
        assert_eq!(topo.links.len(), 2 + 3 * 4);
        let admitted = |q: &mut aqm::Qdisc| -> Vec<bool> { (0..600).map(|i| q.enqueue(0, Pkt::new(i, 1000, 0), &mut Vec::new())).collect() };
        let info = LinkInfo { rate_bps: 100_000_000, mtu: c.bottleneck.mtu };
        for (l, link) in topo.links.iter_mut().enumerate().skip(2) {
            let got = admitted(link.qdisc.as_mut().expect("a rated access link has a queue"));
            assert!((50..=250).contains(&got.iter().filter(|&&a| !a).count()), "link {l}");
            assert_eq!(got, admitted(&mut red.build(info, Rng::stream(5, STREAM_ACCESS_QUEUES + l as u64))), "access link {l}");
        }
    }
}
