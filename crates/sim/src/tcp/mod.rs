//! TCP as AQM research needs it: NewReno and SACK loss recovery (RFC 6582, RFC 6675), PRR
//! (RFC 6937), limited transmit (RFC 3042), CUBIC (RFC 9438), DCTCP (RFC 8257) and LEDBAT
//! (RFC 6817), HyStart
//! (Linux tcp_cubic's hybrid slow start), RACK-TLP loss detection (RFC 8985), ECN (RFC 3168),
//! delayed ACKs (RFC 5681 §4.2), timestamps (RFC 7323) and the RTO of RFC 6298.
//!
//! Sequence numbers count segments, not bytes: every segment but possibly the last of a finite
//! transfer is full-sized, as in ns-2 and in the papers we reproduce. Both ends are state
//! machines over `(now, event)` that return what to send; the simulator turns that into packets.

pub mod cc;
mod ends;
pub mod hystart;
pub mod ledbat;
pub mod params;
pub mod prague;
mod rack;
pub mod receiver;
mod recovery;
pub mod rto;
pub mod scoreboard;
pub mod sender;
pub mod state;

pub use params::TcpConfig;
pub use receiver::{AckOut, ReceiverParams, TcpReceiver};
pub use sender::{AckIn, Segment, TcpSender};
