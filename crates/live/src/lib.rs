//! # aqmlab-live: the AQMs of `aqmlab-aqm` on real packets
//!
//! A userspace router moves Ethernet frames between two network namespaces with `AF_PACKET`
//! sockets, and runs, per direction, the same discipline code the simulator runs: impairment →
//! AQM → queue with limit → serialization at the configured rate in integer ns → propagation
//! delay → send. Real Linux TCP (and constant-bit-rate UDP) crosses it, driven by the bounded
//! traffic source and sink of this crate. The Python driver (`aqmlab.live`) builds the
//! namespaces and starts the three agents; they read the simulator's resolved scenario.
//!
//! - [`engine`]: the router's model, pure over `(now, event)` and unit-tested without sockets;
//! - [`router`]: the I/O loop around it ([`port`]: `AF_PACKET`), with nominal event times;
//! - [`source`], [`sink`]: the traffic agents ([`sock`]: socket helpers);
//! - [`record`]: traces and summary in the simulator's shapes; [`wire`]: frame parsing and CE
//!   marking with the IPv4 checksum updated; [`frames`]: the frame slots;
//! - [`agent`]: the processes' entry point; [`sys`]: clock, timer slack, signals.
//!
//! Not modelled: IPv6, VLAN tags, rate-limited access links, per-packet values.

pub mod agent;
pub mod config;
pub mod engine;
pub mod frames;
pub mod port;
pub mod record;
pub mod router;
pub mod sink;
pub mod sock;
pub mod source;
pub mod sys;
pub mod wire;
