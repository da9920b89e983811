//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

use sim::config::SimConfig;
use sim::Simulation;

/// A simulation whose invariant violations fail the run (see `sim::invariants`): every
/// integration test builds its simulations here. (The library's own unit tests are strict by
/// `cfg(test)`; a run from Python or the CLI counts violations and reports them.)
pub fn simulation(cfg: SimConfig) -> Result<Simulation, String> {
    let mut sim = Simulation::new(cfg)?;
    sim.strict_invariants = true;
    Ok(sim)
}

/// Completion time of a K-segment slow-start transfer over an idle dumbbell with ideal access
/// links: round r of w_r = IW·2^r segments reaches the bottleneck at A_r, and
/// A_{r+1} = A_r + tau + tau_ack + R while no round fills the pipe. The last ACK returns
/// m·tau + tau_ack + R − a after the final round's start, m being that round's segments.
pub fn slow_start_completion(k: u64, iw: u64, rtt: u64, access: u64, tau: u64, tau_ack: u64) -> u64 {
    let (mut a_r, mut sent, mut w) = (access, 0u64, iw);
    loop {
        let m = w.min(k - sent);
        assert!(m * tau <= tau + tau_ack + rtt, "the model assumes the pipe never fills");
        if sent + m == k {
            return a_r + m * tau + tau_ack + rtt - access;
        }
        sent += m;
        w *= 2;
        a_r += tau + tau_ack + rtt;
    }
}

