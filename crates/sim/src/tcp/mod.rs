//! TCP: a NewReno sender (RFC 5681 congestion control, RFC 6582 fast recovery, RFC 6298 RTO)
//! and a receiver that acknowledges every segment cumulatively.
//!
//! Sequence numbers count segments, not bytes: every segment but possibly the last of a finite
//! transfer is full-sized, as in ns-2 and in the papers we reproduce. Both ends are state
//! machines over `(now, event)` that return what to send; the simulator turns that into packets.

pub mod receiver;
pub mod rto;
pub mod sender;

pub use receiver::TcpReceiver;
pub use sender::{Segment, TcpSender};
