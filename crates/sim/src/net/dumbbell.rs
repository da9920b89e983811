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

use aqm::{LinkInfo, Rng};

use super::impair::Impairment;
use super::link::Capacity;
use super::{Link, LinkId};
use crate::config::SimConfig;

/// Random-stream ids of the components that draw numbers: flow i of group g uses
/// `FLOW_STREAM_BASE + (g << 24) + i`, a group's arrival process `GROUP_STREAM_BASE + g`.
pub const STREAM_BOTTLENECK_QUEUE: u64 = 1;
pub const STREAM_REVERSE_QUEUE: u64 = 2;
pub const STREAM_IMPAIRMENT: u64 = 3;
pub const STREAM_ACCESS_QUEUES: u64 = 1 << 20;
pub const GROUP_STREAM_BASE: u64 = 1 << 31;
pub const FLOW_STREAM_BASE: u64 = 1 << 32;

/// The links a packet crosses, in order: its host's access link, a bottleneck, the far host's
/// access link. Fixed-size, so a route sits inline in the table (no pointer to follow per
/// packet).
pub type Route = [LinkId; 3];

/// Links and per-flow routes of a built dumbbell.
pub struct Topology {
    pub links: Vec<Link>,
    /// Route of flow i's data is `routes[2i]`, of its ACKs `routes[2i + 1]`.
    pub routes: Vec<Route>,
    pub bottleneck: LinkId,
    pub reverse_bottleneck: LinkId,
}

/// Builds the dumbbell for `cfg`; `access_delay_ns[i]` is flow i's sender access delay.
pub fn build(cfg: &SimConfig, access_delay_ns: &[u64], receiver_delay_ns: &[u64]) -> Topology {
    let b = &cfg.bottleneck;
    let info = LinkInfo { rate_bps: b.rate_bps, mtu: b.mtu };
    let mut links = Vec::with_capacity(4 * access_delay_ns.len() + 2);
    let fwd = b.queue.build(info, Rng::stream(cfg.seed, STREAM_BOTTLENECK_QUEUE));
    let mut bottleneck = Link::new("bottleneck L->R".into(), Some(b.rate_bps), b.delay_ns, Some(fwd)).with_device(&b.device).with_capacity(Capacity::of(&b.queue, b.mtu));
    bottleneck.impairment = b.impairment.clone().map(|c| Impairment::new(c, Rng::stream(cfg.seed, STREAM_IMPAIRMENT)));
    links.push(bottleneck);
    let rev = b.reverse_queue.build(info, Rng::stream(cfg.seed, STREAM_REVERSE_QUEUE));
    links.push(Link::new("bottleneck R->L".into(), Some(b.rate_bps), b.delay_ns, Some(rev)).with_device(&b.device).with_capacity(Capacity::of(&b.reverse_queue, b.mtu)));
    let mut routes = Vec::with_capacity(2 * access_delay_ns.len());
    let access_capacity = Capacity::of(&cfg.access.queue, b.mtu);
    let access = |name: String, delay: u64, links: &mut Vec<Link>| -> LinkId {
        let stream = STREAM_ACCESS_QUEUES + links.len() as u64;
        let qdisc = cfg.access.rate_bps.map(|rate| {
            cfg.access.queue.build(LinkInfo { rate_bps: rate, mtu: b.mtu }, Rng::stream(cfg.seed, stream))
        });
        links.push(Link::new(name, cfg.access.rate_bps, delay, qdisc).with_device(&cfg.access.device).with_capacity(access_capacity));
        (links.len() - 1) as LinkId
    };
    for (i, (&a, &r)) in access_delay_ns.iter().zip(receiver_delay_ns).enumerate() {
        let s_up = access(format!("S{i}->L"), a, &mut links);
        let s_down = access(format!("L->S{i}"), a, &mut links);
        let d_down = access(format!("R->D{i}"), r, &mut links);
        let d_up = access(format!("D{i}->R"), r, &mut links);
        routes.push([s_up, 0, d_down]);
        routes.push([d_up, 1, s_down]);
    }
    Topology { links, routes, bottleneck: 0, reverse_bottleneck: 1 }
}
