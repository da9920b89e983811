//! `cargo bench -p aqmlab-sim`: runs every named scenario, each in a fresh child process (so
//! the peak memory is that scenario's), at half and at full length, and prints a table.
//! Invoked as `scenarios NAME FRACTION` (the child mode), runs one and prints it as JSON.

use std::process::Command;

use sim::bench::{run_named, BenchResult, NAMES};

fn child(name: &str, fraction: f64) -> BenchResult {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe).arg(name).arg(fraction.to_string()).output().expect("spawn benchmark child");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(line.trim()).expect("child JSON");
    BenchResult {
        scenario: name.into(),
        simulated_s: v["simulated_s"].as_f64().unwrap_or(0.0),
        wall_s: v["wall_s"].as_f64().unwrap_or(0.0),
        events: v["events"].as_u64().unwrap_or(0),
        delivered_packets: v["delivered_packets"].as_u64().unwrap_or(0),
        events_per_s: v["events_per_s"].as_f64().unwrap_or(0.0),
        packets_per_s: v["packets_per_s"].as_f64().unwrap_or(0.0),
        peak_rss_mib: v["peak_rss_mib"].as_f64().unwrap_or(0.0),
        arena_slots: v["arena_slots"].as_u64().unwrap_or(0) as usize,
    }
}

fn main() {
    // cargo passes `--bench` (and filters) to harness-less benches: only a known scenario name
    // selects the child mode.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(name) = args.first().filter(|a| NAMES.contains(&a.as_str())) {
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
    println!("{:<26} {:>8} {:>8} {:>12} {:>12} {:>11} {:>13} {:>12}", "scenario", "sim s", "wall s", "events/s", "pkts/s", "events/pkt", "peak RSS MiB", "at half MiB");
    for name in NAMES {
        let half = child(name, 0.5);
        let r = child(name, 1.0);
        println!(
            "{:<26} {:>8.1} {:>8.3} {:>12.3e} {:>12.3e} {:>11.2} {:>13.1} {:>12.1}",
            r.scenario,
            r.simulated_s,
            r.wall_s,
            r.events_per_s,
            r.packets_per_s,
            r.events as f64 / r.delivered_packets.max(1) as f64,
            r.peak_rss_mib,
            half.peak_rss_mib
        );
    }
}
