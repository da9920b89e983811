//! Nothing but a home for `benches/decisions.rs` (see Cargo.toml for why it is a crate).
