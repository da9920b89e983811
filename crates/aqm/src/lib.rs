//! # aqmlab-aqm: the AQM algorithms
//!
//! Every algorithm here is a state machine over `(now, event)`: time is always passed in, never
//! read from a clock, so the same code runs inside the packet simulator, in unit tests with
//! hand-worked numbers, and on live packets.
//!
//! The vocabulary:
//! - [`Pkt`]: what a queue needs to know about a packet (an opaque handle, its length, its flow,
//!   its ECN field, its DSCP and its Per-Packet Value). Payloads never enter this crate.
//! - [`Aqm`]: a control law for a single FIFO (PIE, RED, CoDel, ...): Params / State / Stats,
//!   consulted at enqueue, at dequeue and on a periodic timer.
//! - [`QueueDisc`]: a whole queueing discipline owning its packets (a FIFO with an [`Aqm`], or
//!   later a fair queue running one control law per flow queue).
//! - [`Qdisc`]: the closed set of disciplines the simulator dispatches over with a `match`
//!   (no trait object per packet), built from a serde [`QdiscConfig`] resolved once into a
//!   [`ResolvedQdisc`].
//! - [`schema`]: one parameter table per discipline, the single source of its names, units,
//!   ranges, docs and per-profile defaults, exported as JSON by [`schema::qdisc_schema_json`].
//!
//! The control laws, each in the module named after it, each with named profiles and every
//! parameter an optional override of its profile (see [`QdiscConfig`] for the JSON shape):
//! - [`pie`]: PIE as in HPSR'13 (`paper`), RFC 8033 (`rfc`), Linux sch_pie in its Q56 fixed
//!   point (`linux`) and ns-3 (`ns3`);
//! - [`pi`]: the PI controller of Hollot et al. (`paper`, `ns2`), with the bilinear design map;
//! - [`proportional`]: the P controller of the same paper;
//! - [`pi2`]: PI² with the gains printed in WNS3'17 (`paper`) and those of its final code;
//! - [`dualpi2`]: the DualQ Coupled AQM of RFC 9332 with PI², as Linux sch_dualpi2 (`linux`)
//!   and RFC 9332 Appendix A (`rfc`): L4S classification, coupling, step/ramp marking, WRR;
//! - [`red`]: RED with gentle mode, the wait rule, idle decay, ECN and Adaptive RED
//!   (`ns2`, `ns3`, `linux`);
//! - [`codel`]: CoDel per RFC 8289 (`rfc`) and with the Linux fixed-point law (`linux`);
//! - [`fq`], [`fq_pie`], [`fq_codel`]: DRR flow queueing with a law per queue;
//! - [`strict_priority`]: a priority FIFO for chosen flows in front of any discipline;
//! - [`pvpie`]: PVPIE (ANRW'17), a PIE controller turned into a Packet Value filter, and
//!   [`ppv`]: the PV code and the PPV baseline scheduler (drop the smallest value);
//! - [`droptail`]: the empty law.
//!
//! Not modelled: DOCSIS-PIE, Linux RED's integer average and idle
//! table (modelled in floating point), fq_codel's memory limit, DSCP classification.
//!
//! Dependencies point one way: this crate knows nothing of the simulator.

pub mod codel;
pub mod config;
pub mod droptail;
pub mod dualpi2;
pub mod fq;
pub mod fq_codel;
pub mod fq_pie;
#[cfg(any(test, feature = "fuzzing"))]
pub mod harness;
pub mod packet;
pub mod pi;
pub mod pi2;
pub mod pie;
pub mod ppv;
pub mod proportional;
pub mod pvpie;
pub mod red;
pub mod signal;
pub mod step;
pub mod strict_priority;
pub mod queue;
pub mod rng;
pub mod schema;
#[cfg(test)]
mod testkit;
pub mod time;

pub use config::{QdiscConfig, QueueLimit, ResolvedQdisc};
pub use packet::{Ecn, Pkt};
pub use queue::{Action, ActionKind, Aqm, Backlog, DropReason, Fifo, LinkInfo, Qdisc, QueueDisc, QueueView, SingleQueue, Verdict};
pub use rng::Rng;
pub use time::Nanos;
