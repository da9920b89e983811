//! Serde configuration of the disciplines, and their construction.
//!
//! Each AQM names a profile and takes every parameter as an optional override; [`QdiscConfig::resolved`]
//! fills in the profile's defaults so a result file can record exactly what ran, and
//! [`QdiscConfig::validate`] rejects out-of-range values with the field's name and range.

use serde::{Deserialize, Serialize};

use crate::codel::CoDelConfig;
use crate::droptail::DropTail;
use crate::fq_codel::FqCoDelConfig;
use crate::fq_pie::FqPieConfig;
use crate::pi::PiConfig;
use crate::pi2::Pi2Config;
use crate::pie::{Pie, PieConfig};
use crate::ppv::PpvConfig;
use crate::pvpie::PvPieConfig;
use crate::proportional::PConfig;
use crate::step::StepConfig;
use crate::red::RedConfig;
use crate::queue::{LinkInfo, Qdisc, SingleQueue};
use crate::rng::Rng;
use crate::strict_priority::StrictPriorityConfig;
use crate::validate::check_limit;

/// A queue's hard limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// A discipline and its parameters, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscConfig {
    /// A FIFO that drops arrivals at its limit.
    DropTail { limit: QueueLimit },
    /// PIE (HPSR'13 / RFC 8033 / sch_pie / ns-3), see [`crate::pie`].
    Pie(PieConfig),
    /// PI on the queue length (Hollot et al.), see [`crate::pi`].
    Pi(PiConfig),
    /// Proportional control on the instantaneous queue, see [`crate::proportional`].
    P(PConfig),
    /// DCTCP step marking at K packets, see [`crate::step`].
    Step(StepConfig),
    /// PI² (p′ by a PI law on delay, drop with p′²), see [`crate::pi2`].
    Pi2(Pi2Config),
    /// RED, gentle RED and Adaptive RED, see [`crate::red`].
    Red(RedConfig),
    /// CoDel (RFC 8289 or the Linux fixed-point law), see [`crate::codel`].
    #[serde(rename = "codel")]
    CoDel(CoDelConfig),
    /// FQ-PIE with sch_fq_pie semantics, see [`crate::fq_pie`].
    FqPie(FqPieConfig),
    /// FQ-CoDel (RFC 8290 / sch_fq_codel), see [`crate::fq_codel`].
    #[serde(rename = "fq_codel")]
    FqCoDel(FqCoDelConfig),
    /// A priority FIFO for chosen flows in front of another discipline, see
    /// [`crate::strict_priority`].
    StrictPriority(StrictPriorityConfig),
    /// PVPIE: a PIE controller turned into a Packet Value threshold, see [`crate::pvpie`].
    #[serde(rename = "pvpie")]
    PvPie(PvPieConfig),
    /// The PPV scheduler: drop the smallest Packet Value when full, see [`crate::ppv`].
    Ppv(PpvConfig),
}

impl QdiscConfig {
    /// Range checks; the error names the field and the accepted range.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            QdiscConfig::DropTail { limit } => check_limit("limit", *limit),
            QdiscConfig::Pie(c) => c.validate(),
            QdiscConfig::Pi(c) => c.validate(),
            QdiscConfig::P(c) => c.validate(),
            QdiscConfig::Step(c) => c.validate(),
            QdiscConfig::Pi2(c) => c.validate(),
            QdiscConfig::Red(c) => c.validate(),
            QdiscConfig::CoDel(c) => c.validate(),
            QdiscConfig::FqPie(c) => c.validate(),
            QdiscConfig::FqCoDel(c) => c.validate(),
            QdiscConfig::StrictPriority(c) => c.validate(),
            QdiscConfig::PvPie(c) => c.validate(),
            QdiscConfig::Ppv(c) => c.validate(),
        }
    }

    /// The same configuration with every default filled in.
    pub fn resolved(&self) -> QdiscConfig {
        match self {
            QdiscConfig::DropTail { .. } => self.clone(),
            QdiscConfig::Pie(c) => QdiscConfig::Pie(c.resolved()),
            QdiscConfig::Pi(c) => QdiscConfig::Pi(c.resolved()),
            QdiscConfig::P(c) => QdiscConfig::P(c.resolved()),
            QdiscConfig::Step(c) => QdiscConfig::Step(c.resolved()),
            QdiscConfig::Pi2(c) => QdiscConfig::Pi2(c.resolved()),
            QdiscConfig::Red(c) => QdiscConfig::Red(c.resolved()),
            QdiscConfig::CoDel(c) => QdiscConfig::CoDel(c.resolved()),
            QdiscConfig::FqPie(c) => QdiscConfig::FqPie(c.resolved()),
            QdiscConfig::FqCoDel(c) => QdiscConfig::FqCoDel(c.resolved()),
            QdiscConfig::StrictPriority(c) => QdiscConfig::StrictPriority(c.resolved()),
            QdiscConfig::PvPie(c) => QdiscConfig::PvPie(c.resolved()),
            QdiscConfig::Ppv(c) => QdiscConfig::Ppv(c.resolved()),
        }
    }

    /// Builds the discipline for a link; `rng` is the discipline's own random stream.
    /// Call on a validated configuration.
    pub fn build(&self, link: LinkInfo, rng: Rng) -> Qdisc {
        match self {
            QdiscConfig::DropTail { limit } => Qdisc::DropTail(SingleQueue::new(DropTail, *limit)),
            QdiscConfig::Pie(c) => {
                let p = c.params();
                let limit = p.limit;
                Qdisc::Pie(SingleQueue::new(Pie::new(p, link, rng), limit))
            }
            QdiscConfig::Pi(c) => Qdisc::Pi(SingleQueue::new(c.build(rng), resolved_limit(c.resolved().limit))),
            QdiscConfig::P(c) => Qdisc::P(SingleQueue::new(c.build(rng), resolved_limit(c.resolved().limit))),
            QdiscConfig::Step(c) => Qdisc::Step(SingleQueue::new(c.build(), resolved_limit(c.resolved().limit))),
            QdiscConfig::Pi2(c) => Qdisc::Pi2(SingleQueue::new(c.build(rng), resolved_limit(c.resolved().limit))),
            QdiscConfig::Red(c) => Qdisc::Red(SingleQueue::new(c.build(link, rng), resolved_limit(c.resolved().limit))),
            QdiscConfig::CoDel(c) => Qdisc::CoDel(SingleQueue::new(c.build(link), resolved_limit(c.resolved().limit))),
            QdiscConfig::FqPie(c) => Qdisc::FqPie(c.build(link, rng)),
            QdiscConfig::FqCoDel(c) => Qdisc::FqCoDel(c.build(link, rng)),
            QdiscConfig::StrictPriority(c) => Qdisc::StrictPriority(Box::new(c.build(link, rng))),
            QdiscConfig::PvPie(c) => Qdisc::PvPie(SingleQueue::new(c.build(), c.limit())),
            QdiscConfig::Ppv(c) => Qdisc::Ppv(c.build()),
        }
    }
}

/// A resolved limit (always present after resolution).
fn resolved_limit(limit: Option<QueueLimit>) -> QueueLimit {
    limit.unwrap_or(QueueLimit::Packets(1000))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pie::PieProfile;
    use crate::packet::Ecn;
    use crate::queue::QueueDisc;
    use crate::testkit::{run, Traffic};
    use crate::time::NS_PER_MS;

    const LINK: LinkInfo = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };

    #[test]
    fn parses_and_rejects_unknown_fields() {
        let c: QdiscConfig = serde_json::from_str(r#"{"type":"drop_tail","limit":{"packets":100}}"#).unwrap();
        assert_eq!(c, QdiscConfig::DropTail { limit: QueueLimit::Packets(100) });
        let bad = serde_json::from_str::<QdiscConfig>(r#"{"type":"drop_tail","limit":{"packets":1},"x":1}"#);
        assert!(bad.is_err());
    }

    #[test]
    fn pie_json_profile_overrides_and_resolution() {
        let json = r#"{"type":"pie","limit":{"packets":1000},"profile":"linux","target_s":0.02,"ecn":true}"#;
        let c: QdiscConfig = serde_json::from_str(json).unwrap();
        assert_eq!(c.validate(), Ok(()));
        let r = c.resolved();
        let QdiscConfig::Pie(p) = &r else { panic!("not pie") };
        assert_eq!((p.profile, p.target_s, p.tupdate_s, p.ecn, p.derandomize), (PieProfile::Linux, Some(0.02), Some(0.015), Some(true), Some(true)));
        // The resolved form round-trips through JSON unchanged.
        let back: QdiscConfig = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        let q = c.build(LINK, Rng::from_seed(1));
        assert_eq!(q.probe_names(), vec!["prob", "qdelay_s", "burst_allowance_s", "avg_dq_rate_Bps", "accu_prob"]);
        assert!(serde_json::from_str::<QdiscConfig>(r#"{"type":"pie","tagret_s":0.02}"#).is_err());
        let out_of_range: QdiscConfig = serde_json::from_str(r#"{"type":"pie","mark_ecnth":1.5}"#).unwrap();
        assert_eq!(out_of_range.validate(), Err("mark_ecnth: 1.5 is outside the accepted range [0, 1]".into()));
    }

    #[test]
    fn every_type_parses_validates_resolves_and_builds() {
        let examples = [
            r#"{"type":"drop_tail","limit":{"bytes":200000}}"#,
            r#"{"type":"pie","profile":"paper","limit":{"packets":1000},"max_burst_s":0.0}"#,
            r#"{"type":"pi","profile":"paper","q_ref":200}"#,
            r#"{"type":"pi","profile":"ns2","k_pi":9.6426e-6,"z_rad_s":0.53,"sample_hz":160}"#,
            r#"{"type":"p","slope":5.8624e-5,"q_min":100,"p_max":1.0}"#,
            r#"{"type":"pi2","profile":"final_code","limit":{"bytes":200000},"target_s":0.005}"#,
            r#"{"type":"red","profile":"linux","ecn":true}"#,
            r#"{"type":"red","profile":"ns3","adaptive":true}"#,
            r#"{"type":"codel","profile":"linux","ecn":true,"ce_threshold_s":0.002}"#,
            r#"{"type":"fq_pie","flows":1024,"pie":{"profile":"linux","ecn":true}}"#,
            r#"{"type":"fq_codel","limit":{"packets":10240},"codel":{"profile":"rfc","target_s":0.005}}"#,
            r#"{"type":"strict_priority","high_flows":[0],"low":{"type":"fq_pie"}}"#,
            r#"{"type":"pvpie","gamma":10,"target_s":0.02,"ecn":true}"#,
            r#"{"type":"ppv","limit":{"bytes":200000}}"#,
        ];
        for json in examples {
            let c: QdiscConfig = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!(c.validate(), Ok(()), "{json}");
            let r = c.resolved();
            assert_eq!(r.validate(), Ok(()), "{json}");
            assert_eq!(r.resolved(), r, "resolution is idempotent: {json}");
            let back: QdiscConfig = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
            assert_eq!(back, r, "{json}");
            let mut q = c.build(LINK, Rng::from_seed(1));
            let mut v = Vec::new();
            q.probe(&mut v);
            assert_eq!(v.len(), q.probe_names().len(), "{json}");
            // Conservation under overload: every arrival is delivered or dropped once.
            let t = Traffic { enq_every: 2 * NS_PER_MS, ecn: Ecn::Ect0, ..Traffic::ns3(10 * NS_PER_MS) };
            let n = run(&mut q, &t, |_, _, _| {});
            assert_eq!(n.delivered + n.early + n.overflow + n.at_dequeue, t.enq_count, "{json}: {n:?}");
            assert_eq!(q.backlog(), Default::default(), "{json}");
        }
        let bad = [
            (r#"{"type":"drop_tail","limit":{"packets":0}}"#, "limit"),
            (r#"{"type":"pi2","alpha_hz":-1}"#, "alpha_hz"),
            (r#"{"type":"red","w_q":2}"#, "w_q"),
            (r#"{"type":"codel","interval_s":0}"#, "interval_s"),
            (r#"{"type":"p","p_max":1.5}"#, "p_max"),
            (r#"{"type":"fq_pie","flows":0}"#, "flows"),
            (r#"{"type":"fq_pie","pie":{"target_s":0}}"#, "pie.target_s"),
            (r#"{"type":"fq_codel","codel":{"limit":{"packets":5}}}"#, "codel.limit"),
        ];
        for (json, field) in bad {
            let c: QdiscConfig = serde_json::from_str(json).unwrap();
            assert!(c.validate().unwrap_err().starts_with(field), "{json}");
        }
    }
}
