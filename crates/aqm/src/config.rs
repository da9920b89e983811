//! The disciplines' configurations: the scenario's form ([`QdiscConfig`], the user's field
//! names in canonical units, every parameter optional), resolved once ([`ResolvedQdisc`], every
//! default of the profile filled in and every range checked) and built into a [`Qdisc`].
//!
//! Each discipline declares its parameters in one table (see [`crate::schema`]); the resolved
//! form is what a result file records, and it loads back as a configuration unchanged.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codel::{CoDelConfig, CoDelParams};
use crate::droptail::{DropTail, DropTailConfig, DropTailParams};
use crate::fq_codel::{FqCoDelConfig, FqCoDelParams};
use crate::fq_pie::{FqPieConfig, FqPieParams};
use crate::pi::{PiConfig, PiParams};
use crate::pi2::{Pi2Config, Pi2Params};
use crate::dualpi2::{DualPi2Config, DualPi2Params};
use crate::pie::{Pie, PieConfig, PieParams};
use crate::ppv::{PpvConfig, PpvParams};
use crate::proportional::{PConfig, PParams};
use crate::pvpie::{PvPieConfig, PvPieParams};
use crate::queue::{LinkInfo, Qdisc, SingleQueue};
use crate::red::{RedConfig, RedParams};
use crate::rng::Rng;
use crate::schema::{Declared, DisciplineSchema};
use crate::step::{StepConfig, StepParams};
use crate::strict_priority::{StrictPriorityConfig, StrictPriorityParams};

/// A queue's hard limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// The two forms of every discipline, tagged by `type`, from one list.
macro_rules! disciplines {
    ($($(#[doc = $doc:literal])* $variant:ident($config:ty => $params:ty) = $tag:literal,)*) => {
        /// A discipline as a scenario gives it: `{"type": "pie", "target": 20000000, ...}`.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type", deny_unknown_fields)]
        pub enum QdiscConfig {
            $($(#[doc = $doc])* #[serde(rename = $tag)] $variant($config),)*
        }

        /// A discipline with every parameter resolved; serializes to a loadable [`QdiscConfig`].
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum ResolvedQdisc {
            $($(#[doc = $doc])* #[serde(rename = $tag)] $variant($params),)*
        }

        impl QdiscConfig {
            /// Resolves and checks the configuration; the error names the field (nested ones
            /// with their path, `pie.target`) and the accepted range.
            pub fn resolve(&self) -> Result<ResolvedQdisc, String> {
                match self {
                    $(QdiscConfig::$variant(c) => c.resolve().map(ResolvedQdisc::$variant),)*
                }
            }
        }

        /// Every discipline's description, keyed by its `type`.
        pub(crate) fn schemas() -> BTreeMap<&'static str, DisciplineSchema> {
            BTreeMap::from([$(($tag, <$config>::schema()),)*])
        }
    };
}

disciplines! {
    /// A FIFO that drops arrivals at its limit.
    DropTail(DropTailConfig => DropTailParams) = "drop_tail",
    /// PIE (HPSR'13 / RFC 8033 / sch_pie / ns-3), see [`crate::pie`].
    Pie(PieConfig => PieParams) = "pie",
    /// PI on the queue length (Hollot et al.), see [`crate::pi`].
    Pi(PiConfig => PiParams) = "pi",
    /// Proportional control on the instantaneous queue, see [`crate::proportional`].
    P(PConfig => PParams) = "p",
    /// DCTCP step marking at K packets, see [`crate::step`].
    Step(StepConfig => StepParams) = "step",
    /// PI² (p′ by a PI law on delay, drop with p′²), see [`crate::pi2`].
    Pi2(Pi2Config => Pi2Params) = "pi2",
    /// DualPI2 (RFC 9332 DualQ Coupled AQM, sch_dualpi2), see [`crate::dualpi2`].
    DualPi2(DualPi2Config => DualPi2Params) = "dualpi2",
    /// RED, gentle RED and Adaptive RED, see [`crate::red`].
    Red(RedConfig => RedParams) = "red",
    /// CoDel (RFC 8289 or the Linux fixed-point law), see [`crate::codel`].
    CoDel(CoDelConfig => CoDelParams) = "codel",
    /// FQ-PIE with sch_fq_pie semantics, see [`crate::fq_pie`].
    FqPie(FqPieConfig => FqPieParams) = "fq_pie",
    /// FQ-CoDel (RFC 8290 / sch_fq_codel), see [`crate::fq_codel`].
    FqCoDel(FqCoDelConfig => FqCoDelParams) = "fq_codel",
    /// A priority FIFO for chosen flows in front of another discipline, see
    /// [`crate::strict_priority`].
    StrictPriority(StrictPriorityConfig => StrictPriorityParams) = "strict_priority",
    /// PVPIE: a PIE controller turned into a Packet Value threshold, see [`crate::pvpie`].
    PvPie(PvPieConfig => PvPieParams) = "pvpie",
    /// The PPV scheduler: drop the smallest Packet Value when full, see [`crate::ppv`].
    Ppv(PpvConfig => PpvParams) = "ppv",
}

impl QdiscConfig {
    /// A DropTail queue of `limit`.
    pub fn drop_tail(limit: QueueLimit) -> Self {
        QdiscConfig::DropTail(DropTailConfig::with_limit(limit))
    }

    /// Range checks; the error names the field and the accepted range.
    pub fn validate(&self) -> Result<(), String> {
        self.resolve().map(|_| ())
    }

    /// Builds the discipline for a link; `rng` is the discipline's own random stream.
    /// Call on a validated configuration (the simulator validates its whole configuration
    /// before building anything).
    pub fn build(&self, link: LinkInfo, rng: Rng) -> Qdisc {
        self.resolve().expect("a validated configuration").build(link, rng)
    }
}

/// A nested queue table of any type (strict priority's `low`): resolved whole.
impl Declared for Box<QdiscConfig> {
    type Params = Box<ResolvedQdisc>;

    fn resolve(&self) -> Result<Box<ResolvedQdisc>, String> {
        QdiscConfig::resolve(self).map(Box::new)
    }

    fn overlay(&self, _base: &Self) -> Self {
        self.clone()
    }
}

impl ResolvedQdisc {
    /// Builds the discipline for a link; `rng` is the discipline's own random stream.
    pub fn build(&self, link: LinkInfo, rng: Rng) -> Qdisc {
        match self {
            ResolvedQdisc::DropTail(p) => Qdisc::DropTail(SingleQueue::new(DropTail, p.limit)),
            ResolvedQdisc::Pie(p) => Qdisc::Pie(SingleQueue::new(Pie::new(p, link, rng), p.limit)),
            ResolvedQdisc::Pi(p) => Qdisc::Pi(SingleQueue::new(p.build(rng), p.limit)),
            ResolvedQdisc::P(p) => Qdisc::P(SingleQueue::new(p.build(rng), p.limit)),
            ResolvedQdisc::Step(p) => Qdisc::Step(SingleQueue::new(p.build(), p.limit)),
            ResolvedQdisc::Pi2(p) => Qdisc::Pi2(SingleQueue::new(p.build(rng), p.limit)),
            ResolvedQdisc::DualPi2(p) => Qdisc::DualPi2(p.build(link, rng)),
            ResolvedQdisc::Red(p) => Qdisc::Red(SingleQueue::new(p.build(link, rng), p.limit)),
            ResolvedQdisc::CoDel(p) => Qdisc::CoDel(SingleQueue::new(p.build(link), p.limit)),
            ResolvedQdisc::FqPie(p) => Qdisc::FqPie(p.build(link, rng)),
            ResolvedQdisc::FqCoDel(p) => Qdisc::FqCoDel(p.build(link, rng)),
            ResolvedQdisc::StrictPriority(p) => Qdisc::StrictPriority(Box::new(p.build(link, rng))),
            ResolvedQdisc::PvPie(p) => Qdisc::PvPie(SingleQueue::new(p.build(), p.limit)),
            ResolvedQdisc::Ppv(p) => Qdisc::Ppv(p.build()),
        }
    }
}

/// The resolved configuration of a discipline as JSON, from its JSON: what
/// `aqmlab._core.resolve_qdisc` returns.
pub fn resolve_json(config_json: &str) -> Result<String, String> {
    let q: QdiscConfig = serde_json::from_str(config_json).map_err(|e| e.to_string())?;
    let r = q.resolve()?;
    Ok(serde_json::to_string(&r).expect("a resolved configuration serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::pie::PieProfile;
    use crate::queue::QueueDisc;
    use crate::schema::{qdisc_schema, Kind};
    use crate::testkit::{run, Traffic};
    use crate::time::NS_PER_MS;

    const LINK: LinkInfo = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };

    fn parse(json: &str) -> QdiscConfig {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
    }

    #[test]
    fn parses_and_rejects_unknown_fields() {
        let c = parse(r#"{"type":"drop_tail","limit":{"packets":100}}"#);
        assert_eq!(c, QdiscConfig::drop_tail(QueueLimit::Packets(100)));
        let bad = serde_json::from_str::<QdiscConfig>(r#"{"type":"drop_tail","limit":{"packets":1},"x":1}"#);
        assert!(bad.is_err());
        let internal = serde_json::from_str::<QdiscConfig>(r#"{"type":"pie","tagret":20000000}"#).unwrap_err().to_string();
        assert!(internal.starts_with("unknown field `tagret`, expected one of `profile`, `limit`, `target`"), "{internal}");
    }

    #[test]
    fn pie_json_profile_overrides_and_resolution() {
        let c = parse(r#"{"type":"pie","limit":{"packets":1000},"profile":"linux","target":20000000,"ecn":true}"#);
        let r = c.resolve().unwrap();
        let ResolvedQdisc::Pie(p) = &r else { panic!("not pie") };
        assert_eq!((p.profile, p.target, p.tupdate, p.ecn, p.derandomize), (PieProfile::Linux, 20 * NS_PER_MS, 15 * NS_PER_MS, true, true));
        // The resolved form uses the user's names and canonical units, and loads back unchanged.
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.starts_with(r#"{"type":"pie","profile":"linux","limit":{"packets":1000},"target":20000000,"tupdate":15000000,"alpha":0.125"#), "{json}");
        assert_eq!(parse(&json).resolve().unwrap(), r);
        let q = r.build(LINK, Rng::from_seed(1));
        assert_eq!(q.probe_names(), vec!["prob", "qdelay_s", "burst_allowance_s", "avg_dq_rate_Bps", "accu_prob"]);
        assert_eq!(parse(r#"{"type":"pie","mark_ecnth":1.5}"#).validate(), Err("mark_ecnth: 1.5 is outside the accepted range [0, 1]".into()));
    }

    #[test]
    fn every_type_parses_validates_resolves_and_builds() {
        let examples = [
            r#"{"type":"drop_tail","limit":{"bytes":200000}}"#,
            r#"{"type":"drop_tail"}"#,
            r#"{"type":"pie","profile":"paper","limit":{"packets":1000},"max_burst":0}"#,
            r#"{"type":"pi","profile":"paper","q_ref":200}"#,
            r#"{"type":"pi","profile":"ns2","k_pi":9.6426e-6,"z":0.53,"sample_freq":160}"#,
            r#"{"type":"p","slope":5.8624e-5,"q_min":100,"p_max":1.0}"#,
            r#"{"type":"step","k":30}"#,
            r#"{"type":"pi2","profile":"final_code","limit":{"bytes":200000},"target":5000000}"#,
            r#"{"type":"dualpi2","profile":"rfc","scheduler":"time_shifted"}"#,
            r#"{"type":"dualpi2","coupling":3,"l_dscp":[46]}"#,
            r#"{"type":"red","profile":"linux","ecn":true}"#,
            r#"{"type":"red","profile":"ared"}"#,
            r#"{"type":"codel","profile":"linux","ecn":true,"ce_threshold":2000000}"#,
            r#"{"type":"fq_pie","flows":1024,"pie":{"profile":"linux","ecn":true}}"#,
            r#"{"type":"fq_codel","limit":{"packets":10240},"codel":{"profile":"rfc","target":5000000}}"#,
            r#"{"type":"strict_priority","high_flows":[0],"low":{"type":"fq_pie"}}"#,
            r#"{"type":"pvpie","gamma":10,"target":20000000,"ecn":true}"#,
            r#"{"type":"ppv","limit":{"bytes":200000}}"#,
        ];
        for json in examples {
            let c = parse(json);
            let r = c.resolve().unwrap_or_else(|e| panic!("{json}: {e}"));
            // Resolution is idempotent through JSON: the record loads back as the same run.
            let back = parse(&serde_json::to_string(&r).unwrap());
            assert_eq!(back.resolve().unwrap(), r, "{json}");
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
            (r#"{"type":"drop_tail","limit":{"packets":0}}"#, "limit: 0 is outside the accepted range at least 1"),
            (r#"{"type":"pi2","alpha":-1}"#, "alpha: -1 Hz is outside the accepted range [0 Hz, 1000000 Hz]"),
            (r#"{"type":"red","w_q":2}"#, "w_q: 2 is outside the accepted range [0.000000001, 1]"),
            (r#"{"type":"codel","interval":0}"#, "interval: 0ns is outside the accepted range [1us, 100s]"),
            (r#"{"type":"p","p_max":1.5}"#, "p_max: 1.5 is outside the accepted range [0, 1]"),
            (r#"{"type":"fq_pie","flows":0}"#, "flows: 0 is outside the accepted range [1, 65536]"),
            (r#"{"type":"fq_pie","pie":{"target":0}}"#, "pie.target: 0ns is outside the accepted range [1us, 10s]"),
            (r#"{"type":"fq_codel","codel":{"limit":{"packets":5}}}"#, "codel.limit: set the limit on the fair queue itself"),
            (r#"{"type":"strict_priority","high_dscp":[64],"low":{"type":"drop_tail"}}"#, "high_dscp: 64 is outside the accepted range [0, 63]"),
            (r#"{"type":"strict_priority","low":{"type":"codel","target":0}}"#, "low.target: 0ns is outside the accepted range [1us, 10s]"),
            (r#"{"type":"strict_priority"}"#, "low: is required"),
        ];
        for (json, err) in bad {
            assert_eq!(parse(json).validate(), Err(err.into()), "{json}");
        }
    }

    #[test]
    fn nested_tables_take_the_wrappers_defaults_under_the_users_fields() {
        // sch_fq_codel turns ECN on for its CoDel; a user's codel table keeps that unless it says otherwise.
        let ResolvedQdisc::FqCoDel(f) = parse(r#"{"type":"fq_codel","codel":{"target":4000000}}"#).resolve().unwrap() else { panic!() };
        assert_eq!((f.codel.target, f.codel.ecn, f.codel.limit), (4 * NS_PER_MS, true, QueueLimit::Packets(10_240)));
        let ResolvedQdisc::FqPie(f) = parse(r#"{"type":"fq_pie","ecn_prob":20,"pie":{"ecn":true}}"#).resolve().unwrap() else { panic!() };
        assert_eq!((f.pie.profile, f.pie.ecn, f.pie.mark_ecnth), (PieProfile::Linux, true, Some(0.2)));
        assert!(parse(r#"{"type":"fq_pie","pie":{"mark_ecnth":0.3}}"#).validate().unwrap_err().starts_with("pie.mark_ecnth: fq_pie sets"));
    }

    #[test]
    fn schema_describes_every_parameter_with_its_defaults() {
        let schema = qdisc_schema();
        let names: Vec<_> = schema.keys().copied().collect();
        assert_eq!(names, ["codel", "drop_tail", "dualpi2", "fq_codel", "fq_pie", "p", "pi", "pi2", "pie", "ppv", "pvpie", "red", "step", "strict_priority"]);
        let pie = &schema["pie"];
        assert_eq!((pie.profiles.clone(), pie.default_profile), (vec!["paper", "rfc", "linux", "ns3"], "rfc"));
        let target = pie.params.iter().find(|p| p.name == "target").unwrap();
        let json = serde_json::to_value(target).unwrap();
        assert_eq!(json["kind"], "duration");
        assert_eq!((json["min"].clone(), json["max"].clone()), (serde_json::json!(1000), serde_json::json!(10_000_000_000u64)));
        assert_eq!(json["defaults"], serde_json::json!({"paper": 20_000_000, "rfc": 15_000_000, "linux": 15_000_000, "ns3": 15_000_000}));
        let delay = pie.params.iter().find(|p| p.name == "delay").unwrap();
        assert_eq!((delay.kind, serde_json::to_value(&delay.choices).unwrap()), (Kind::Choice, serde_json::json!(["timestamps", "rate_estimator"])));
        let codel = &schema["fq_codel"].params.iter().find(|p| p.name == "codel").unwrap();
        assert_eq!((codel.kind, codel.inner), (Kind::Qdisc, Some("codel")));
        assert_eq!(schema["ppv"].profiles, vec!["default"]);
        // Every profile's defaults resolve and pass their own checks, for every discipline but
        // strict priority (whose `low` has no default).
        for (name, d) in &schema {
            for profile in &d.profiles {
                let mut table = serde_json::json!({"type": name});
                if d.profiles.len() > 1 {
                    table["profile"] = serde_json::json!(profile);
                }
                if *name == "strict_priority" {
                    table["low"] = serde_json::json!({"type": "drop_tail"});
                }
                let c: QdiscConfig = serde_json::from_value(table).unwrap();
                assert_eq!(c.validate(), Ok(()), "{name}/{profile}");
            }
            for p in &d.params {
                assert!(!p.doc.is_empty(), "{name}.{}: no doc", p.name);
                assert_eq!(p.defaults.len(), d.profiles.len(), "{name}.{}", p.name);
            }
        }
    }

    #[test]
    fn resolve_json_is_the_bindings_contract() {
        let out = resolve_json(r#"{"type":"codel","target":4000000}"#).unwrap();
        assert!(out.starts_with(r#"{"type":"codel","profile":"rfc","limit":{"packets":1000},"target":4000000,"interval":100000000"#), "{out}");
        assert_eq!(resolve_json(r#"{"type":"codel","target":-1}"#).unwrap_err(), "invalid value: integer `-1`, expected u64");
        assert!(resolve_json(r#"{"type":"codel","target":0}"#).unwrap_err().starts_with("target: 0ns"));
    }
}

#[cfg(test)]
#[path = "unread_params_tests.rs"]
mod unread_params_tests;
