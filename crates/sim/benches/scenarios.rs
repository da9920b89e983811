//! `cargo bench -p aqmlab-sim`: runs every named scenario, each in a fresh child process (so
//! the peak memory is that scenario's), at half and at full length, and prints a table.
//! `cargo bench -p aqmlab-sim -- scaling` prints the scaling curves instead (issue 22): the
//! cost per delivered packet against link rate and flow count, relative to each sweep's
//! cheapest point (CPU time of the run; building the simulation is shown apart).
//! `cargo bench -p aqmlab-sim --features event-cycles --bench scenarios -- cycles [NAME...]`
//! prints where the cycles of each scenario go by kind of event (default: the flow sweep).
//! Invoked as `scenarios NAME FRACTION` (the child mode), runs one and prints it as JSON.

use std::process::Command;

use sim::bench::{run_named, BenchResult, NAMES, SCALING};

fn child(name: &str, fraction: f64) -> BenchResult {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe).arg(name).arg(fraction.to_string()).output().expect("spawn benchmark child");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("child JSON")
}

fn table() {
    println!("{:<26} {:>8} {:>8} {:>12} {:>12} {:>12} {:>11} {:>13} {:>12}", "scenario", "sim s", "wall s", "events/s", "pkts/s", "pkts/CPU-s", "events/pkt", "peak RSS MiB", "at half MiB");
    for name in NAMES {
        let half = child(name, 0.5);
        let r = child(name, 1.0);
        println!(
            "{:<26} {:>8.1} {:>8.3} {:>12.3e} {:>12.3e} {:>12.3e} {:>11.2} {:>13.1} {:>12.1}",
            r.scenario,
            r.simulated_s,
            r.wall_s,
            r.events_per_s,
            r.packets_per_s,
            r.packets_per_cpu_s,
            r.events as f64 / r.delivered_packets.max(1) as f64,
            r.peak_rss_mib,
            half.peak_rss_mib
        );
    }
}

fn scaling() {
    println!("{:<16} {:>6} {:>8} {:>12} {:>12} {:>10} {:>12} {:>13} {:>12}", "scenario", "sim s", "CPU s", "packets", "pkts/CPU-s", "ns/pkt", "x cheapest", "peak RSS MiB", "set-up ms");
    let rows: Vec<BenchResult> = SCALING.iter().map(|n| child(n, 1.0)).collect();
    for sweep in ["rate-", "flows-"] {
        let cost = |r: &BenchResult| r.cpu_s * 1e9 / r.delivered_packets.max(1) as f64;
        let members: Vec<&BenchResult> = rows.iter().filter(|r| r.scenario.starts_with(sweep)).collect();
        let cheapest = members.iter().map(|r| cost(r)).fold(f64::INFINITY, f64::min);
        for r in members {
            println!(
                "{:<16} {:>6.1} {:>8.3} {:>12} {:>12.3e} {:>10.0} {:>12.2} {:>13.1} {:>12.1}",
                r.scenario,
                r.simulated_s,
                r.cpu_s,
                r.delivered_packets,
                r.packets_per_cpu_s,
                cost(r),
                cost(r) / cheapest,
                r.peak_rss_mib,
                r.setup_cpu_s * 1e3
            );
        }
    }
}

#[cfg(feature = "event-cycles")]
fn cycles(names: &[&str]) {
    for name in names {
        let r = child(name, 1.0);
        let packets = r.delivered_packets.max(1) as f64;
        let total: u64 = r.event_cycles.iter().map(|k| k.pop_cycles + k.handle_cycles).sum();
        println!("{}: {} delivered packets, {:.0} cycles a packet", r.scenario, r.delivered_packets, total as f64 / packets);
        println!("  {:<30} {:>10} {:>14} {:>15} {:>16}", "event", "count", "pop cyc/event", "handle cyc/ev", "cycles/packet");
        for k in &r.event_cycles {
            let per_event = |c: u64| c as f64 / k.events as f64;
            println!(
                "  {:<30} {:>10} {:>14.0} {:>15.0} {:>16.0}",
                k.kind,
                k.events,
                per_event(k.pop_cycles),
                per_event(k.handle_cycles),
                (k.pop_cycles + k.handle_cycles) as f64 / packets
            );
        }
    }
}

#[cfg(not(feature = "event-cycles"))]
fn cycles(_: &[&str]) {
    eprintln!("cycles by kind of event need the counters: cargo bench -p aqmlab-sim --features event-cycles --bench scenarios -- cycles");
    std::process::exit(2);
}

fn main() {
    // cargo passes `--bench` (and filters) to harness-less benches: only a known scenario name
    // selects the child mode.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(name) = args.first().filter(|a| NAMES.contains(&a.as_str()) || SCALING.contains(&a.as_str())) {
        let fraction = args.get(1).map_or(1.0, |f| f.parse().expect("fraction"));
        match run_named(name, fraction) {
            Ok(r) => println!("{}", serde_json::to_string(&r).expect("json")),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "cycles") {
        let named: Vec<&str> = args[at + 1..].iter().map(String::as_str).filter(|a| SCALING.contains(a) || NAMES.contains(a)).collect();
        let unknown: Vec<&String> = args[at + 1..].iter().filter(|a| !a.starts_with('-') && !named.contains(&a.as_str())).collect();
        if !unknown.is_empty() {
            eprintln!("unknown benchmark scenario {unknown:?} (known: {}, {})", NAMES.join(", "), SCALING.join(", "));
            std::process::exit(2);
        }
        let flow_sweep: Vec<&str> = SCALING.into_iter().filter(|n| n.starts_with("flows-")).collect();
        cycles(if named.is_empty() { &flow_sweep } else { &named });
    } else if args.iter().any(|a| a == "scaling") {
        scaling();
    } else {
        table();
    }
}
