//! Forwarding plans: for every place a packet can stand on its route, what forwarding does
//! next, worked out once when the network is built.
//!
//! A packet moves on from hop `h` of its route by crossing the pure-delay links that follow
//! (adding their delays) up to the next link with a rate, where it joins a queue, or to the
//! end of the route, where it is delivered. That outcome depends on the route and `h` alone,
//! so it is one [`Step`] in a flat table: forwarding a packet reads the step of its
//! (route, hop), instead of walking the route's links and each link's delay and line, which
//! at 10,000 flows were separate cache misses (issue 22). Routes whose steps are the same (the
//! flows of a dumbbell with equal delays, whose access links differ but share delay lines)
//! share one row, so the table stays in cache however many flows there are.

use aqm::Nanos;

use super::dumbbell::Routes;
use super::{Link, LinkId};

/// What happens to a packet standing at one hop of its route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// Sum of the delays of the pure-delay links crossed.
    pub delay: Nanos,
    /// The delay line of the last link crossed (see [`Plan::lines`]); unused at a route's
    /// first hop when it has a rate, as a packet that has crossed nothing travels no time.
    pub line: u32,
    /// The link with a rate the packet reaches, or `None` at the end of the route.
    pub link: Option<LinkId>,
    /// Where the packet stands afterwards: the index in the plan of the step at `link`'s hop,
    /// or at the route's end. (The steps of a route's hops follow each other, so crossing
    /// `link` moves a packet to `next + 1`.)
    pub next: u32,
}

/// Every route's steps, for hops 0 to the route's length (a packet that has crossed a rated
/// last link stands at the length until it arrives). A packet carries the index of its step.
pub struct Plan {
    /// Index in `steps` of each route's hop 0 (routes with equal steps share a row).
    first: Vec<u32>,
    steps: Vec<Step>,
    lines: u32,
}

impl Plan {
    pub fn new(links: &[Link], routes: &Routes) -> Plan {
        let line = delay_lines(links, routes);
        let mut rows = std::collections::HashMap::new();
        let mut first = Vec::new();
        let mut steps = Vec::new();
        for route in routes.iter() {
            let row: Vec<Step> = (0..=route.len())
                .map(|h| {
                    let mut next_hop = h;
                    let mut delay = 0;
                    while let Some(&l) = route.get(next_hop).filter(|&&l| links[l as usize].rate_bps.is_none()) {
                        delay += links[l as usize].delay_ns;
                        next_hop += 1;
                    }
                    Step {
                        delay,
                        line: next_hop.checked_sub(1).map_or(u32::MAX, |i| line[route[i] as usize]),
                        link: route.get(next_hop).copied(),
                        // Within the row until the row has its place in the plan.
                        next: next_hop as u32,
                    }
                })
                .collect();
            let at = *rows.entry(row).or_insert_with_key(|row| {
                let at = steps.len() as u32;
                steps.extend(row.iter().map(|s| Step { next: at + s.next, ..*s }));
                at
            });
            first.push(at);
        }
        Plan { first, steps, lines: line.iter().max().map_or(0, |&l| l + 1) }
    }

    /// The index of the step at hop 0 of route `route`.
    #[inline]
    pub fn first(&self, route: usize) -> u32 {
        self.first[route]
    }

    /// Step `index`.
    #[inline]
    pub fn step(&self, index: u32) -> &Step {
        &self.steps[index as usize]
    }

    /// Number of delay lines the steps name.
    pub fn lines(&self) -> u32 {
        self.lines
    }
}

/// The delay line of every link: packets that travel on after crossing a link wait in its
/// line, where their arrivals come in time order. A link with a rate has its own. A pure-delay
/// link is reached from the same link before it on its routes (or from its host) in time
/// order, and is left after its delay: so the links with equal delays and the same link
/// before them can share a line, their arrivals staying in time order as on one link (a
/// flow's access links would otherwise cost four lines a flow, issue 22). Where the order
/// breaks anyway, as after several pure-delay hops in a row, the scheduler puts the arrival
/// in the heap, which changes nothing but speed.
fn delay_lines(links: &[Link], routes: &Routes) -> Vec<u32> {
    const HOST: LinkId = LinkId::MAX;
    let mut before = vec![HOST; links.len()];
    for r in routes.iter() {
        for (i, &l) in r.iter().enumerate().skip(1) {
            before[l as usize] = r[i - 1];
        }
    }
    let mut shared = std::collections::HashMap::new();
    let mut n = 0;
    let mut new_line = || {
        n += 1;
        n - 1
    };
    links
        .iter()
        .zip(before)
        .map(|(l, from)| match l.rate_bps {
            Some(_) => new_line(),
            None => *shared.entry((l.delay_ns, from)).or_insert_with(&mut new_line),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A route of access (2 µs, pure delay), a rated link, two pure-delay links (3 and 5 µs):
    /// the steps a hand walk of the route gives.
    #[test]
    fn steps_fold_the_pure_delays_up_to_the_next_rated_link() {
        let links = vec![
            Link::new("access".into(), None, 2_000, None),
            Link::new("rated".into(), Some(10_000_000), 7_000, None),
            Link::new("far".into(), None, 3_000, None),
            Link::new("host".into(), None, 5_000, None),
        ];
        let mut routes = Routes::default();
        routes.push(&[&[0, 1, 2, 3]]);
        let plan = Plan::new(&links, &routes);
        let want = |delay, link, next_hop| (delay, link, next_hop);
        // The route's row starts at 0, so step indices are hop numbers.
        assert_eq!(plan.first(0), 0);
        let got = |h| {
            let s = plan.step(h);
            (s.delay, s.link, s.next)
        };
        assert_eq!(got(0), want(2_000, Some(1), 1));
        assert_eq!(got(1), want(0, Some(1), 1));
        assert_eq!(got(2), want(8_000, None, 4));
        assert_eq!(got(3), want(5_000, None, 4));
        assert_eq!(got(4), want(0, None, 4));
        // The line is that of the last link crossed before the packet stops: the access
        // link's on the way to the rated link, the host link's on the way to the end.
        let line = delay_lines(&links, &routes);
        assert_eq!(plan.step(0).line, line[0]);
        assert_eq!(plan.step(1).line, line[0]);
        assert_eq!(plan.step(2).line, line[3]);
        assert_eq!(plan.step(4).line, line[3]);
        assert_eq!(plan.lines(), 4);
    }

    /// Two flows' routes through their own access links of equal delay to one rated link share
    /// a row (their access links share a delay line); a third with a longer access delay gets
    /// its own.
    #[test]
    fn routes_with_equal_steps_share_a_row() {
        let links = vec![
            Link::new("a0".into(), None, 2_000, None),
            Link::new("a1".into(), None, 2_000, None),
            Link::new("a2".into(), None, 9_000, None),
            Link::new("rated".into(), Some(10_000_000), 7_000, None),
        ];
        let mut routes = Routes::default();
        for access in 0..3 {
            routes.push(&[&[access, 3]]);
        }
        let plan = Plan::new(&links, &routes);
        assert_eq!(plan.first, vec![0, 0, 3]);
        assert_eq!(plan.steps.len(), 6);
        assert_eq!(plan.step(plan.first(1)).delay, 2_000);
        assert_eq!(plan.step(plan.first(2)).delay, 9_000);
        // Steps point within their own row: the third route's first step leads to its rated
        // link at hop 1, index 3 + 1.
        assert_eq!((plan.step(3).link, plan.step(3).next), (Some(3), 4));
    }

    /// Pure-delay links share a delay line when they have the same delay and are reached from
    /// the same link (or both from their hosts): the far access links of flows crossing one
    /// rated link, as a dumbbell's receivers' are. One with another delay, or reached from
    /// another link, has its own; so has every rated link.
    #[test]
    fn delay_lines_are_shared_by_equal_delays_reached_from_the_same_link() {
        let pure = |name: &str, delay| Link::new(name.into(), None, delay, None);
        let rated = |name: &str| Link::new(name.into(), Some(10_000_000), 1_000, None);
        let links = vec![
            pure("a0", 2_000),
            pure("a1", 2_000),
            rated("r"),
            pure("far0", 4_000),
            pure("far1", 4_000),
            pure("far2", 6_000),
            rated("s"),
            pure("far3", 4_000),
        ];
        let mut routes = Routes::default();
        for (access, far) in [(0, 3), (1, 4), (0, 5)] {
            routes.push(&[&[access, 2, far]]);
        }
        routes.push(&[&[1, 6, 7]]);
        let line = delay_lines(&links, &routes);
        // a0 and a1 (from their hosts, 2 µs); far0 and far1 (from r, 4 µs).
        assert_eq!(line[0], line[1]);
        assert_eq!(line[3], line[4]);
        // far2 (6 µs) and far3 (from s) apart; r and s each their own.
        let distinct: std::collections::HashSet<u32> = [line[0], line[2], line[3], line[5], line[6], line[7]].into();
        assert_eq!(distinct.len(), 6, "{line:?}");
        assert_eq!(Plan::new(&links, &routes).lines(), 6);
    }
}
