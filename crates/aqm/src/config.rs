//! Serde configuration of the disciplines, and their construction.
//!
//! The Python front end validates user input and resolves profiles; what arrives here is the
//! fully resolved form, still checked (unknown fields are errors).

use serde::{Deserialize, Serialize};

use crate::droptail::DropTail;
use crate::queue::{LinkInfo, Qdisc, SingleQueue};
use crate::rng::Rng;

/// A queue's hard limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// A discipline and its parameters, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscConfig {
    /// A FIFO that drops arrivals at its limit.
    DropTail { limit: QueueLimit },
}

impl QdiscConfig {
    /// Builds the discipline for a link; `rng` is the discipline's own random stream.
    pub fn build(&self, _link: LinkInfo, _rng: Rng) -> Qdisc {
        match self {
            QdiscConfig::DropTail { limit } => Qdisc::DropTail(SingleQueue::new(DropTail, *limit)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects_unknown_fields() {
        let c: QdiscConfig = serde_json::from_str(r#"{"type":"drop_tail","limit":{"packets":100}}"#).unwrap();
        assert_eq!(c, QdiscConfig::DropTail { limit: QueueLimit::Packets(100) });
        let bad = serde_json::from_str::<QdiscConfig>(r#"{"type":"drop_tail","limit":{"packets":1},"x":1}"#);
        assert!(bad.is_err());
    }
}
