//! The network model: packets, links, routes and the dumbbell topology.

pub mod dumbbell;
pub mod impair;
pub mod link;
pub mod packet;

pub use link::Link;
pub use packet::{Arena, Dir, Kind, Packet, HEADER_BYTES};

/// Index of a link in the simulation.
pub type LinkId = u32;
