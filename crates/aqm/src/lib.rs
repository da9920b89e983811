//! # aqmlab-aqm: the AQM algorithms
//!
//! Every algorithm here is a state machine over `(now, event)`: time is always passed in, never
//! read from a clock, so the same code runs inside the packet simulator, in unit tests with
//! hand-worked numbers, and on live packets.
//!
//! The vocabulary:
//! - [`Pkt`]: what a queue needs to know about a packet (an opaque handle, its length, its flow,
//!   its ECN field and its Per-Packet Value). Payloads never enter this crate.
//! - [`Aqm`]: a control law for a single FIFO (PIE, RED, CoDel, ...): Params / State / Stats,
//!   consulted at enqueue, at dequeue and on a periodic timer.
//! - [`QueueDisc`]: a whole queueing discipline owning its packets (a FIFO with an [`Aqm`], or
//!   later a fair queue running one control law per flow queue).
//! - [`Qdisc`]: the closed set of disciplines the simulator dispatches over with a `match`
//!   (no trait object per packet), built from a serde [`QdiscConfig`].
//!
//! Dependencies point one way: this crate knows nothing of the simulator.

pub mod config;
pub mod droptail;
pub mod packet;
pub mod queue;
pub mod rng;
pub mod time;

pub use config::{QdiscConfig, QueueLimit};
pub use packet::{Ecn, Pkt};
pub use queue::{Action, ActionKind, Aqm, Backlog, DropReason, Fifo, LinkInfo, Qdisc, QueueDisc, QueueView, SingleQueue, Verdict};
pub use rng::Rng;
pub use time::Nanos;
