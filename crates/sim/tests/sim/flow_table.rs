//! The per-flow table (`Simulation::flow_columns`, what a run writes to flows.parquet) carries
//! exactly the per-flow rows of `Simulation::summary` (issue 22 moved them out of the summary's
//! JSON), with absent figures as NaN: the throughput of a flow without active time in the
//! measured window, the completion time of a flow that completed nothing, a UDP flow's RTT.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::{cbr_group, tcp_dumbbell};
use sim::config::{App, Dist};
use sim::summary::Column;

use crate::common::simulation;

#[test]
fn flow_columns_carry_the_summary_rows() {
    let s = NS_PER_SEC;
    let mut c = tcp_dumbbell(4, 10_000_000, 100 * NS_PER_MS, QueueLimit::Packets(60), 4 * s);
    c.warmup_ns = s;
    // A finite transfer (a completion time), a CBR source (no RTT), and one that starts after
    // the end (no active time).
    c.flows.push(sim::config::FlowGroup { name: "short".into(), count: 1, app: App::Transfer { bytes: 30_000 }, start_ns: Dist::Fixed(s / 2), ..c.flows[0].clone() });
    c.flows.push(cbr_group(1_000_000, false, 10 * NS_PER_MS, 0));
    c.flows.push(sim::config::FlowGroup { start_ns: Dist::Fixed(5 * s), ..cbr_group(1_000_000, false, 10 * NS_PER_MS, 0) });
    let mut sim = simulation(c).expect("valid scenario");
    sim.run();
    let rows = sim.summary().flows;
    let cols = sim.flow_columns().0;
    assert_eq!(rows.len(), 4 + 1 + 1 + 1);
    let column = |name: &str| cols.iter().find(|(n, _)| *n == name).map(|(_, c)| c).unwrap_or_else(|| panic!("no column {name}"));
    let f64s = |name: &str| match column(name) {
        Column::F64(v) => v.clone(),
        _ => panic!("{name} is not a float column"),
    };
    let i64s = |name: &str| match column(name) {
        Column::I64(v) => v.clone(),
        _ => panic!("{name} is not an integer column"),
    };
    let absent = |x: Option<f64>| x.unwrap_or(f64::NAN).to_bits();
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(i64s("group"), rows.iter().map(|r| r.group as i64).collect::<Vec<_>>());
    assert!(matches!(column("tcp"), Column::Bool(v) if *v == rows.iter().map(|r| r.tcp).collect::<Vec<_>>()));
    assert_eq!(bits(f64s("start_s")), rows.iter().map(|r| r.start_s.to_bits()).collect::<Vec<_>>());
    assert_eq!(bits(f64s("rtt_base_s")), rows.iter().map(|r| r.rtt_base_s.to_bits()).collect::<Vec<_>>());
    assert_eq!(bits(f64s("completion_s")), rows.iter().map(|r| absent(r.completion_s)).collect::<Vec<_>>());
    assert_eq!(bits(f64s("srtt_s")), rows.iter().map(|r| absent(r.srtt_s)).collect::<Vec<_>>());
    assert_eq!(bits(f64s("rto_s")), rows.iter().map(|r| absent(r.rto_s)).collect::<Vec<_>>());
    // Throughput: the row's, except NaN for the flow that never ran (its row says 0).
    let tput = f64s("throughput_bps");
    assert!(tput[6].is_nan() && rows[6].throughput_bps == 0.0);
    assert_eq!(bits(tput[..6].to_vec()), rows[..6].iter().map(|r| r.throughput_bps.to_bits()).collect::<Vec<_>>());
    assert!(rows[4].completion_s.is_some() && rows[5].srtt_s.is_none());
    // Every count, by the name the rows serialize it under.
    let json = serde_json::to_value(&rows).expect("rows serialize");
    for (name, col) in &cols {
        if let Column::I64(v) = col {
            let want: Vec<i64> = json.as_array().unwrap().iter().map(|r| r[*name].as_i64().unwrap_or_else(|| panic!("{name}"))).collect();
            assert_eq!(v, &want, "{name}");
        }
    }
    // Every field of a row has its column (and no column is extra).
    let mut fields: Vec<&str> = json[0].as_object().unwrap().keys().map(String::as_str).collect();
    let mut names: Vec<&str> = cols.iter().map(|(n, _)| *n).collect();
    fields.sort();
    names.sort();
    assert_eq!(names, fields);
}
