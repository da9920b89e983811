//! A strict-priority class in front of any discipline (the "VoIP queue" ahead of PIE in the
//! 2013 PIE slides; RFC 7806 §3): packets of the listed flows, or carrying one of the listed
//! DSCP values, go to a DropTail FIFO that is always served first; everything else goes to the
//! inner discipline, whose AQM sees only it.

use crate::config::{QdiscConfig, QueueLimit, ResolvedQdisc};
use crate::packet::Pkt;
use crate::queue::{admit, Action, Backlog, Fifo, LinkInfo, Qdisc, QueueDisc, QueueView, Verdict};
use crate::rng::Rng;
use crate::schema::{departs, Finish, NoProfile, Range};
use crate::time::Nanos;

crate::params! {
    /// A priority FIFO for chosen flows or DSCP values in front of another discipline.
    config StrictPriorityConfig => StrictPriorityParams, profile NoProfile,
    doc "Strict priority: packets of the listed flows or DSCP values go to a DropTail FIFO served first; all other traffic goes to the inner discipline `low`.",
    source "PIE further-studies slides 2013 (VoIP queue ahead of PIE) / RFC 7806 §3";
    fields {
        /// Flow ids served first.
        high_flows: Vec<u32> [IntList, None, Range::closed(0.0, 4_294_967_295.0)] = (Vec::new());
        /// DSCP values served first (EF is 46).
        high_dscp: Vec<u8> [IntList, None, Range::closed(0.0, 63.0)] = (Vec::new());
        /// Flow group names served first; the scenario turns them into `high_flows` before the queue is built.
        high_groups: Vec<String> [StringList, None, Range::ANY] = (Vec::new());
        /// Hard limit of the priority FIFO.
        high_limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(100));
    }
    nested {
        /// The discipline for all other traffic (a queue table with its `type`).
        low: Box<QdiscConfig> => Box<ResolvedQdisc> [None] = (None);
    }
}

impl Finish<StrictPriorityConfig> for StrictPriorityParams {
    fn finish(&mut self, given: &StrictPriorityConfig) -> Result<(), String> {
        if !self.high_groups.is_empty() {
            return Err("high_groups: group names become flow ids (high_flows) in the scenario layer; the queue itself takes ids".into());
        }
        // No packet reaches the priority FIFO: its limit would do nothing (at its default, as a
        // resolved record holds it, it is accepted).
        if self.high_flows.is_empty() && self.high_dscp.is_empty() && departs(&given.high_limit, &StrictPriorityConfig::defaults(NoProfile::Default).high_limit) {
            return Err("high_limit: applies only with high_flows or high_dscp (with neither, no packet reaches the priority FIFO)".into());
        }
        Ok(())
    }
}

impl StrictPriorityParams {
    pub fn build(&self, link: LinkInfo, rng: Rng) -> StrictPriority {
        let mut high_flows = self.high_flows.clone();
        high_flows.sort_unstable();
        let mut high_dscp = [false; 64];
        for &d in &self.high_dscp {
            high_dscp[d as usize] = true;
        }
        StrictPriority { high_flows, high_dscp, high: Fifo::default(), high_limit: self.high_limit, low: self.low.build(link, rng) }
    }
}

/// A priority FIFO in front of an inner discipline.
#[derive(Clone, Debug)]
pub struct StrictPriority {
    high_flows: Vec<u32>,
    high_dscp: [bool; 64],
    high: Fifo,
    high_limit: QueueLimit,
    low: Qdisc,
}

impl QueueDisc for StrictPriority {
    fn enqueue(&mut self, now: Nanos, pkt: Pkt, out: &mut Vec<Action>) -> bool {
        let high = self.high_dscp[(pkt.dscp & 63) as usize] || self.high_flows.binary_search(&pkt.flow).is_ok();
        if !high {
            return self.low.enqueue(now, pkt, out);
        }
        let view = QueueView { backlog: self.high.backlog(), limit: self.high_limit };
        match admit(now, pkt, Verdict::Accept, view.would_overflow(pkt.len), out) {
            Some(p) => {
                self.high.push(p);
                true
            }
            None => false,
        }
    }

    fn dequeue(&mut self, now: Nanos, out: &mut Vec<Action>) -> Option<Pkt> {
        self.high.pop().or_else(|| self.low.dequeue(now, out))
    }

    fn next_update_at(&self) -> Option<Nanos> {
        self.low.next_update_at()
    }

    fn update(&mut self, now: Nanos) {
        self.low.update(now)
    }

    fn backlog(&self) -> Backlog {
        let (h, l) = (self.high.backlog(), self.low.backlog());
        Backlog { bytes: h.bytes + l.bytes, packets: h.packets + l.packets }
    }

    fn set_link_rate(&mut self, rate_bps: u64) {
        self.low.set_link_rate(rate_bps)
    }

    fn set_param(&mut self, now: Nanos, name: &str, value: &serde_json::Value) -> Result<(), String> {
        self.low.set_param(now, name, value)
    }

    fn probe_names(&self) -> Vec<&'static str> {
        let mut names = vec!["high_packets"];
        names.extend(self.low.probe_names());
        names
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.high.backlog().packets as f64);
        self.low.probe(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{ActionKind, DropReason};

    #[test]
    fn priority_flows_go_first_and_have_their_own_limit() {
        let json = r#"{"type":"strict_priority","high_flows":[7],"high_limit":{"packets":2},"low":{"type":"pie","profile":"rfc"}}"#;
        let cfg: QdiscConfig = serde_json::from_str(json).unwrap();
        assert_eq!(cfg.validate(), Ok(()));
        let mut q = cfg.build(LinkInfo { rate_bps: 10_000_000, mtu: 1500 }, Rng::from_seed(1));
        let mut out = Vec::new();
        for i in 0..5 {
            q.enqueue(0, Pkt::new(i, 1500, 1), &mut out);
        }
        assert!(q.enqueue(1, Pkt::new(10, 200, 7), &mut out));
        assert!(q.enqueue(1, Pkt::new(11, 200, 7), &mut out));
        assert!(!q.enqueue(1, Pkt::new(12, 200, 7), &mut out));
        assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(12, ActionKind::Drop(DropReason::Overflow))]);
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(2, &mut out).map(|p| p.id)).collect();
        assert_eq!(order, vec![10, 11, 0, 1, 2, 3, 4]);
        assert_eq!(q.probe_names()[..2], ["high_packets", "prob"]);
        // The inner discipline keeps its own clock: RFC 8033's PIE updates every 15 ms, and the
        // priority queue passes its schedule and its updates through.
        assert_eq!(q.next_update_at(), Some(15_000_000));
        q.update(15_000_000);
        assert_eq!(q.next_update_at(), Some(30_000_000));
        // Selection by DSCP: an EF-marked packet of any flow jumps the queue.
        let json = r#"{"type":"strict_priority","high_dscp":[46],"low":{"type":"drop_tail","limit":{"packets":10}}}"#;
        let mut q = serde_json::from_str::<QdiscConfig>(json).unwrap().build(LinkInfo { rate_bps: 10_000_000, mtu: 1500 }, Rng::from_seed(1));
        q.enqueue(0, Pkt::new(1, 1000, 3), &mut out);
        q.enqueue(0, Pkt { dscp: 46, ..Pkt::new(2, 200, 3) }, &mut out);
        assert_eq!(q.dequeue(1, &mut out).map(|p| p.id), Some(2));
        let dscp: QdiscConfig = serde_json::from_str(r#"{"type":"strict_priority","high_dscp":[64],"low":{"type":"drop_tail","limit":{"packets":1}}}"#).unwrap();
        assert_eq!(dscp.validate(), Err("high_dscp: 64 is outside the accepted range [0, 63]".into()));
        let bad: QdiscConfig = serde_json::from_str(r#"{"type":"strict_priority","high_flows":[],"low":{"type":"codel","target":0}}"#).unwrap();
        assert!(bad.validate().unwrap_err().starts_with("low.target: 0ns is outside"));
    }

    #[test]
    fn a_new_link_rate_and_run_time_changes_reach_the_inner_discipline() {
        // The oracle is the inner discipline alone: a PIE whose reference follows the link rate
        // (target_policy = "link_speed") moves its target the same behind the priority queue as
        // on its own, and takes or refuses the same run-time changes.
        let link = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };
        let pie = r#"{"type":"pie","profile":"rfc","target_policy":"link_speed"}"#;
        let wrapped = format!(r#"{{"type":"strict_priority","high_flows":[7],"low":{pie}}}"#);
        let mut q = serde_json::from_str::<QdiscConfig>(&wrapped).unwrap().build(link, Rng::from_seed(1));
        let mut bare = serde_json::from_str::<QdiscConfig>(pie).unwrap().build(link, Rng::from_seed(1));
        let target = |q: &Qdisc| crate::testkit::probe(q, "target_s");
        q.set_link_rate(1_000_000_000);
        bare.set_link_rate(1_000_000_000);
        assert_eq!(target(&q), target(&bare));
        let before = target(&serde_json::from_str::<QdiscConfig>(pie).unwrap().build(link, Rng::from_seed(1)));
        assert_ne!(target(&q), before, "1 Gb/s moves a link-speed target");
        let alpha = serde_json::json!(0.2);
        assert_eq!(q.set_param(0, "alpha", &alpha), bare.set_param(0, "alpha", &alpha));
        assert!(q.set_param(0, "alpha", &alpha).is_err());
    }
}
