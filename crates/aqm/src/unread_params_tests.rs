//! Parameters given where they do nothing are refused, across the disciplines. The rule: input
//! that would change nothing is refused before any work, with an error that starts with the
//! field's name and says where the field applies; yet resolution stays idempotent: a parameter
//! written out at the value it resolves to anyway (the profile's default, as a saved record
//! holds every field) still loads.
//!
//! Each test first checks what must stay accepted (the default written out, the same value
//! where it does act, the resolved record reloaded), then that a non-default value is refused
//! where the code never reads it or reads it to no effect; the comments cite the code that
//! makes it so. DualPI2's `drop_overload`, which does nothing only at some values of `coupling`
//! (k = 1 in linux, k < 1 in rfc), is left accepted: a rule on a value rather than on a mode.

use super::QdiscConfig;

fn parse(json: &str) -> QdiscConfig {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

#[track_caller]
fn accepted(json: &str) {
    assert_eq!(parse(json).validate(), Ok(()), "{json}");
}

#[track_caller]
fn refused(json: &str, field: &str) {
    match parse(json).validate() {
        Ok(()) => panic!("{json}: accepted, but `{field}` has no effect in this configuration"),
        Err(e) => assert!(e.starts_with(field), "{json}: the error should start with `{field}`: {e}"),
    }
}

/// The resolved record loads again and resolves to the same thing.
#[track_caller]
fn round_trips(json: &str) {
    let r = parse(json).resolve().unwrap_or_else(|e| panic!("{json}: {e}"));
    let text = serde_json::to_string(&r).unwrap();
    let back = parse(&text).resolve().unwrap_or_else(|e| panic!("{json}: its resolved record {text} is refused: {e}"));
    assert_eq!(back, r, "{json}");
}

// ---- PIE ------------------------------------------------------------------------------------

/// pie/mod.rs:230-237: the estimator is fed only in rate mode or when the burst rule needs rate
/// samples (`paper` only, burst.rs `needs_rate_samples`); profile.rs:128-142 is its only reader
/// of dq_threshold. rfc/linux/ns3 default to timestamps.
#[test]
fn pie_dq_threshold_with_timestamps_is_refused_outside_paper() {
    accepted(r#"{"type":"pie","dq_threshold":16384}"#);
    accepted(r#"{"type":"pie","delay":"rate_estimator","dq_threshold":10000}"#);
    accepted(r#"{"type":"pie","profile":"linux","delay":"rate_estimator","dq_threshold":10000}"#);
    // paper with timestamps still spends the burst allowance per measurement cycle.
    accepted(r#"{"type":"pie","profile":"paper","delay":"timestamps","dq_threshold":20000}"#);
    round_trips(r#"{"type":"pie","profile":"ns3"}"#);
    refused(r#"{"type":"pie","dq_threshold":10000}"#, "dq_threshold");
    refused(r#"{"type":"pie","profile":"linux","dq_threshold":10000}"#, "dq_threshold");
    refused(r#"{"type":"pie","profile":"ns3","dq_threshold":10000}"#, "dq_threshold");
    refused(r#"{"type":"fq_pie","pie":{"dq_threshold":10000}}"#, "pie.dq_threshold");
}

/// Same path as dq_threshold: rate_ewma only shapes the averaged rate (profile.rs:129-135).
#[test]
fn pie_rate_ewma_with_timestamps_is_refused_outside_paper() {
    accepted(r#"{"type":"pie","rate_ewma":0.25}"#);
    accepted(r#"{"type":"pie","delay":"rate_estimator","rate_ewma":0.5}"#);
    accepted(r#"{"type":"pie","profile":"ns3","delay":"rate_estimator","rate_ewma":0.25}"#);
    refused(r#"{"type":"pie","rate_ewma":0.5}"#, "rate_ewma");
    refused(r#"{"type":"pie","profile":"linux","rate_ewma":0.25}"#, "rate_ewma");
    refused(r#"{"type":"pie","profile":"ns3","rate_ewma":0.25}"#, "rate_ewma");
}

/// pie/mod.rs:219,222 with profile.rs:38-43 and prob.rs:143 / linux.rs:107: `linux` tests
/// 2·MTU and scales by the MTU (never reads mean_pkt_size); `paper` tests 2·MTU and reads the
/// mean only to scale in byte mode; `ns3` reads it only in byte mode. `rfc` always reads it.
#[test]
fn pie_mean_pkt_size_is_refused_in_linux_and_without_byte_mode_in_paper_and_ns3() {
    accepted(r#"{"type":"pie","mean_pkt_size":1500}"#);
    accepted(r#"{"type":"pie","profile":"linux","mean_pkt_size":1000}"#);
    accepted(r#"{"type":"pie","profile":"paper","byte_mode":true,"mean_pkt_size":1500}"#);
    accepted(r#"{"type":"pie","profile":"ns3","byte_mode":true,"mean_pkt_size":1500}"#);
    refused(r#"{"type":"pie","profile":"linux","mean_pkt_size":1500}"#, "mean_pkt_size");
    refused(r#"{"type":"pie","profile":"linux","byte_mode":true,"mean_pkt_size":1500}"#, "mean_pkt_size");
    refused(r#"{"type":"pie","profile":"paper","mean_pkt_size":1500}"#, "mean_pkt_size");
    refused(r#"{"type":"pie","profile":"ns3","mean_pkt_size":1500}"#, "mean_pkt_size");
    refused(r#"{"type":"fq_pie","pie":{"mean_pkt_size":1500}}"#, "pie.mean_pkt_size");
}

/// pie/mod.rs:288: the threshold is consulted only when `ecn` is on.
#[test]
fn pie_mark_ecnth_without_ecn_is_refused_but_fq_pie_records_load() {
    accepted(r#"{"type":"pie","ecn":true,"mark_ecnth":0.3}"#);
    accepted(r#"{"type":"pie","profile":"paper","ecn":true,"mark_ecnth":0.3}"#);
    accepted(r#"{"type":"pie","mark_ecnth":0.1}"#);
    // Idempotence trap for a fix: fq_pie writes mark_ecnth = ecn_prob/100 into its resolved PIE
    // whatever pie.ecn says, and with a `paper` PIE that differs from the profile's default (none).
    round_trips(r#"{"type":"fq_pie","pie":{"profile":"paper"}}"#);
    round_trips(r#"{"type":"fq_pie","pie":{"profile":"rfc"}}"#);
    refused(r#"{"type":"pie","mark_ecnth":0.3}"#, "mark_ecnth");
    refused(r#"{"type":"pie","profile":"paper","mark_ecnth":0.1}"#, "mark_ecnth");
}

/// reference.rs:76 (`for_link` only for link_speed) and :97 (`at_update` only for drain_rate):
/// with the fixed policy (the default) `Reference` never calls `for_rate`, the only reader of
/// target_bytes and min_target.
#[test]
fn pie_target_bytes_and_min_target_with_the_fixed_policy_are_refused() {
    accepted(r#"{"type":"pie","target_bytes":25000,"min_target":20000}"#);
    accepted(r#"{"type":"pie","target_policy":"link_speed","target_bytes":50000,"min_target":100000}"#);
    accepted(r#"{"type":"pie","target_policy":"drain_rate","target_bytes":50000,"min_target":100000}"#);
    refused(r#"{"type":"pie","target_bytes":50000}"#, "target_bytes");
    refused(r#"{"type":"pie","min_target":100000}"#, "min_target");
}

/// reference.rs:97: stable_for and stable_band are read only past the drain_rate check.
#[test]
fn pie_stable_for_and_band_are_refused_unless_drain_rate() {
    accepted(r#"{"type":"pie","target_policy":"drain_rate","stable_for":5000000000,"stable_band":0.2}"#);
    // The catalog (pie_slides2013_autoref.py:36) writes stable_for = 10 s, the default, with link_speed.
    accepted(r#"{"type":"pie","profile":"paper","target_policy":"link_speed","stable_for":10000000000}"#);
    refused(r#"{"type":"pie","stable_for":5000000000}"#, "stable_for");
    refused(r#"{"type":"pie","target_policy":"link_speed","stable_for":5000000000}"#, "stable_for");
    refused(r#"{"type":"pie","stable_band":0.2}"#, "stable_band");
    refused(r#"{"type":"pie","target_policy":"link_speed","stable_band":0.2}"#, "stable_band");
}

// ---- PI² ------------------------------------------------------------------------------------

/// pi2.rs:156-158 feeds the estimator only in rate mode; :170 reads it only then; :176
/// `has_estimate()` is false for an estimator never fed.
#[test]
fn pi2_dq_threshold_and_rate_ewma_with_timestamps_are_refused() {
    accepted(r#"{"type":"pi2","dq_threshold":20000,"rate_ewma":0.25}"#);
    accepted(r#"{"type":"pi2","delay":"timestamps","dq_threshold":10000,"rate_ewma":0.5}"#);
    refused(r#"{"type":"pi2","delay":"timestamps","dq_threshold":20000}"#, "dq_threshold");
    refused(r#"{"type":"pi2","delay":"timestamps","rate_ewma":0.25}"#, "rate_ewma");
}

/// pi2.rs:146,150: mean_pkt_size is read only in byte mode.
#[test]
fn pi2_mean_pkt_size_without_byte_mode_is_refused() {
    accepted(r#"{"type":"pi2","byte_mode":true,"mean_pkt_size":1500}"#);
    accepted(r#"{"type":"pi2","mean_pkt_size":1000}"#);
    refused(r#"{"type":"pi2","mean_pkt_size":1500}"#, "mean_pkt_size");
}

// ---- RED ------------------------------------------------------------------------------------

/// red.rs:310: no update timer without `adaptive`, the only use of interval.
#[test]
fn red_interval_without_adaptive_is_refused() {
    accepted(r#"{"type":"red","profile":"ared","interval":1000000000}"#);
    accepted(r#"{"type":"red","adaptive":true,"interval":1000000000}"#);
    accepted(r#"{"type":"red","interval":500000000}"#);
    refused(r#"{"type":"red","interval":1000000000}"#, "interval");
    refused(r#"{"type":"red","profile":"ared","adaptive":false,"interval":1000000000}"#, "interval");
}

/// red.rs:123: target_delay only sizes an unset min_th. ns2/ns3/linux always set min_th (a
/// scenario cannot unset it: null means the profile's default).
#[test]
fn red_target_delay_with_min_th_set_is_refused() {
    accepted(r#"{"type":"red","profile":"ared","target_delay":10000000}"#);
    accepted(r#"{"type":"red","profile":"ared","max_th":30,"target_delay":10000000}"#);
    accepted(r#"{"type":"red","target_delay":5000000}"#);
    round_trips(r#"{"type":"red","profile":"ared"}"#);
    refused(r#"{"type":"red","target_delay":10000000}"#, "target_delay");
    refused(r#"{"type":"red","profile":"linux","target_delay":10000000}"#, "target_delay");
    refused(r#"{"type":"red","profile":"ared","min_th":10,"target_delay":10000000}"#, "target_delay");
}

/// red.rs:285 with signal.rs:29-35: without ECN a forced signal is a drop either way.
#[test]
fn red_hard_drop_without_ecn_is_refused() {
    accepted(r#"{"type":"red","ecn":true,"hard_drop":false}"#);
    accepted(r#"{"type":"red","profile":"linux","ecn":true,"hard_drop":true}"#);
    accepted(r#"{"type":"red","hard_drop":true}"#);
    accepted(r#"{"type":"red","profile":"linux","hard_drop":false}"#);
    refused(r#"{"type":"red","hard_drop":false}"#, "hard_drop");
    refused(r#"{"type":"red","profile":"linux","hard_drop":true}"#, "hard_drop");
}

// ---- FQ-PIE ---------------------------------------------------------------------------------

/// fq_pie.rs:59 sets the threshold that pie/mod.rs:288 reads only with `pie.ecn` (off by default).
#[test]
fn fq_pie_ecn_prob_without_pie_ecn_is_refused() {
    accepted(r#"{"type":"fq_pie","ecn_prob":20,"pie":{"ecn":true}}"#);
    accepted(r#"{"type":"fq_pie","ecn_prob":10}"#);
    round_trips(r#"{"type":"fq_pie","ecn_prob":20,"pie":{"ecn":true}}"#);
    round_trips(r#"{"type":"fq_pie"}"#);
    refused(r#"{"type":"fq_pie","ecn_prob":20}"#, "ecn_prob");
}

// ---- Strict priority ------------------------------------------------------------------------

/// strict_priority.rs:67-69: with no flow and no DSCP listed nothing reaches the priority FIFO.
#[test]
fn strict_priority_high_limit_without_a_high_class_is_refused() {
    accepted(r#"{"type":"strict_priority","high_dscp":[46],"high_limit":{"packets":5},"low":{"type":"drop_tail"}}"#);
    accepted(r#"{"type":"strict_priority","high_flows":[0],"high_limit":{"packets":5},"low":{"type":"drop_tail"}}"#);
    accepted(r#"{"type":"strict_priority","high_limit":{"packets":100},"low":{"type":"drop_tail"}}"#);
    round_trips(r#"{"type":"strict_priority","low":{"type":"fq_pie"}}"#);
    refused(r#"{"type":"strict_priority","high_limit":{"packets":5},"low":{"type":"drop_tail"}}"#, "high_limit");
}

// ---- Existing refusals accept the resolved value ----------------------------------------------

#[test]
fn existing_refusals_accept_what_they_resolve_to() {
    // The earlier refusals still refuse...
    refused(r#"{"type":"dualpi2","ramp_range":400000}"#, "ramp_range");
    refused(r#"{"type":"dualpi2","tshift":10000000}"#, "tshift");
    refused(r#"{"type":"dualpi2","scheduler":"time_shifted","c_protection":50}"#, "c_protection");
    refused(r#"{"type":"dualpi2","profile":"rfc","drop_early":true}"#, "drop_early");
    refused(r#"{"type":"pie","hz":250}"#, "hz");
    refused(r#"{"type":"fq_pie","pie":{"limit":{"packets":5}}}"#, "pie.limit");
    refused(r#"{"type":"fq_pie","ecn_prob":20,"pie":{"ecn":true,"mark_ecnth":0.1}}"#, "pie.mark_ecnth");
    // ...and accept the value they resolve to, written out.
    accepted(r#"{"type":"dualpi2","ramp_range":0,"tshift":30000000,"c_protection":10,"drop_early":false}"#);
    accepted(r#"{"type":"dualpi2","profile":"rfc","scheduler":"time_shifted","tshift":30000000,"c_protection":10,"drop_early":false}"#);
    accepted(r#"{"type":"fq_pie","ecn_prob":20,"pie":{"ecn":true,"mark_ecnth":0.2,"limit":{"packets":10240}}}"#);
    // Every resolved record loads back unchanged.
    for json in [
        r#"{"type":"dualpi2"}"#,
        r#"{"type":"dualpi2","profile":"rfc"}"#,
        r#"{"type":"dualpi2","scheduler":"time_shifted","tshift":10000000}"#,
        r#"{"type":"dualpi2","profile":"rfc","scheduler":"time_shifted"}"#,
        r#"{"type":"dualpi2","c_protection":50,"alpha":0.1}"#,
        r#"{"type":"pie","profile":"paper"}"#,
        r#"{"type":"pie","profile":"linux","hz":1000}"#,
        r#"{"type":"pie","profile":"ns3"}"#,
        r#"{"type":"pie","target_policy":"drain_rate","stable_for":5000000000}"#,
        r#"{"type":"pi"}"#,
        r#"{"type":"pi","a":2e-5}"#,
        r#"{"type":"pi","profile":"ns2","k_pi":1e-5,"z":1.0}"#,
        r#"{"type":"red","profile":"linux"}"#,
        r#"{"type":"red","profile":"ared","ecn":true}"#,
        r#"{"type":"fq_pie","ecn_prob":20,"pie":{"profile":"paper","ecn":true}}"#,
        r#"{"type":"fq_codel","limit":{"packets":500}}"#,
        r#"{"type":"fq_codel","profile":"ns3","codel":{"profile":"rfc"}}"#,
        r#"{"type":"strict_priority","high_dscp":[46],"low":{"type":"fq_codel"}}"#,
        r#"{"type":"pi2","profile":"final_code","delay":"timestamps"}"#,
    ] {
        round_trips(json);
    }
}


#[test]
fn refusals_say_where_the_field_applies() {
    let err = |json: &str| parse(json).validate().unwrap_err();
    assert_eq!(
        err(r#"{"type":"pie","dq_threshold":10000}"#),
        r#"dq_threshold: applies only with delay = "rate_estimator" or the paper profile (it sizes the departure-rate cycles; with timestamps the rfc profile measures the delay per packet)"#
    );
    assert_eq!(err(r#"{"type":"fq_pie","pie":{"mean_pkt_size":1500}}"#), "pie.mean_pkt_size: applies only with the paper, rfc or ns3 profile (linux, as sch_pie, tests 2·MTU and scales by the MTU)");
    assert_eq!(err(r#"{"type":"pie","mark_ecnth":0.3}"#), "mark_ecnth: applies only with ecn = true (without ECN every early signal is a drop)");
    assert_eq!(err(r#"{"type":"red","target_delay":10000000}"#), "target_delay: applies only with min_th unset, as in the ared profile (it sizes the automatic min_th; here min_th is 5)");
    assert_eq!(err(r#"{"type":"fq_pie","ecn_prob":20}"#), "ecn_prob: applies only with pie.ecn = true (without ECN every early signal is a drop)");
    assert_eq!(
        err(r#"{"type":"strict_priority","high_limit":{"packets":5},"low":{"type":"drop_tail"}}"#),
        "high_limit: applies only with high_flows or high_dscp (with neither, no packet reaches the priority FIFO)"
    );
}
