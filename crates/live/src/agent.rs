//! The entry point of the three live processes the driver starts, one per namespace:
//! `router`, `source` and `sink`, each as `ROLE CONFIG.json OUT.json [--parent PID]`.
//!
//! Start-up is a handshake, so that a slow start (a loaded machine) never eats into the
//! experiment: each agent sets itself up, prints `ready`, and reads the experiment's time 0
//! (CLOCK_MONOTONIC ns) from its standard input, which the driver writes once all are ready.
//!
//! Every agent dies with its parent (PR_SET_PDEATHSIG; `--parent` closes the race with a
//! parent that died before the agent asked), stops cleanly on SIGINT/SIGTERM, and ends by
//! itself at the experiment's end, so none can outlive the run.

use std::io::{BufRead, Write};
use std::path::Path;

use crate::config::LiveConfig;
use crate::{router, sink, source, sys};

pub const USAGE: &str = "usage: (router|source|sink) CONFIG.json OUT.json [--parent PID]";

/// The handshake: `ready` on stdout, then time 0 from stdin into `cfg`. A stop signal or a
/// closed stdin (the driver gave up) ends the agent.
pub fn await_start(cfg: &mut LiveConfig) -> Result<(), String> {
    println!("ready");
    std::io::stdout().flush().map_err(|e| format!("stdout: {e}"))?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).map_err(|e| format!("waiting for the start: {e}"))?;
    cfg.t0_ns = line.trim().parse().map_err(|_| format!("no start time from the driver (got {line:?})"))?;
    Ok(())
}

/// Runs an agent; returns the process exit code (0 done, 1 failed, 2 bad arguments).
pub fn main(args: &[String]) -> i32 {
    let (role, config, out, parent) = match args {
        [r, c, o] => (r, c, o, None),
        [r, c, o, flag, p] if flag == "--parent" => match p.parse::<i32>() {
            Ok(p) => (r, c, o, Some(p)),
            Err(_) => {
                eprintln!("aqmlab live agent: --parent: expected a process id, got {p:?}");
                return 2;
            }
        },
        _ => {
            eprintln!("aqmlab live agent: {USAGE}");
            return 2;
        }
    };
    sys::install_stop_handlers();
    let run = || -> Result<(), String> {
        sys::die_with_parent(parent)?;
        let text = std::fs::read_to_string(config).map_err(|e| format!("{config}: {e}"))?;
        let cfg = LiveConfig::from_json(&text)?;
        let out = Path::new(out);
        match role.as_str() {
            "router" => router::run(cfg, out),
            "source" => source::run(cfg, out),
            "sink" => sink::run(cfg, out),
            other => Err(format!("unknown role {other:?}; {USAGE}")),
        }
    };
    match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("aqmlab live {role}: {e}");
            1
        }
    }
}
