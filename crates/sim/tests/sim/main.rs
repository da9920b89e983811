//! The simulator's integration tests, one module per subject, built as a single test binary:
//! in the release profile every test binary links the whole simulator through (thin) LTO, so
//! sixteen binaries cost sixteen optimizations of the same crates, one costs one.
//! `cargo test --workspace --exclude aqmlab-aqm-bench --release --test sim MODULE::` runs one
//! module (with scripts/test.sh's selection of packages, so that nothing is compiled again).

#[path = "../common/mod.rs"]
mod common;

mod device;
mod fingerprints;
mod hystart;
mod invariants;
mod ledbat;
mod limits;
mod physics;
mod ppv;
mod prague;
mod rack;
mod rtt_bias;
mod tcp_sizes;
mod tcp_theory;
mod topology;
mod topology_pin;
