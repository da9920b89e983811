//! The network model: packets, links and their devices, the way across a link, and the
//! dumbbell topology with its routes, and general router graphs.

pub mod dumbbell;
pub mod graph;
pub mod impair;
pub mod link;
pub mod packet;
mod path;
pub mod plan;

pub use link::Link;
pub use packet::{Arena, Kind, Packet, HEADER_BYTES};

/// Index of a link in the simulation.
pub type LinkId = u32;
