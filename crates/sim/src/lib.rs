//! # aqmlab-sim: a deterministic, fast packet-level simulator for AQM research
//!
//! Data flow: a resolved [`config::SimConfig`] -> [`world::Simulation`] (engine, network,
//! transports, the AQMs of the `aqm` crate) -> [`trace::Traces`] and [`summary::Summary`].
//!
//! - Time is integer nanoseconds; events are an enum in a heap ordered by (time, sequence).
//! - Packets live in an arena and carry no payload; queues see a 24-byte [`aqm::Pkt`].
//! - Every random draw comes from a stream seeded by (run seed, component id): the same
//!   scenario and seed give the same run, bit for bit.

pub mod bench;
pub mod config;
#[cfg(feature = "event-cycles")]
pub mod cycles;
pub mod endpoints;
pub mod engine;
pub mod estimate;
pub mod flow;
pub(crate) mod heap;
pub(crate) mod radix;
pub mod invariants;
pub mod net;
pub mod pcap;
pub(crate) mod prefetch;
pub mod ppv;
pub mod queues;
pub mod summary;
pub mod tcp;
pub mod trace;
pub mod udp;
pub mod window;
pub mod world;

pub use config::SimConfig;
pub use summary::Summary;
pub use world::Simulation;
