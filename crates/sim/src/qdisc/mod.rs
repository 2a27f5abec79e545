//! Queue disciplines: what a node holds for transmission and in which order it hands
//! packets to the interface that pulls from it (DESIGN.md, "The MAC pulls, the network
//! layer decides").
//!
//! An enum over the implementations keeps the hot path free of dynamic dispatch; each
//! scheme lives in its own file. Every discipline keeps [`QueueCounters`] whose identities
//! (`received = dropped + enqueued`, `len = enqueued - dequeued`) are checked in tests.

pub mod diffq;
pub mod droptail;

pub use droptail::DropTail;

use crate::ids::NodeId;
use crate::net::{DropReason, Packet};

/// A packet waiting for transmission, with the neighbour it should go to.
#[derive(Clone, Debug, PartialEq)]
pub struct Queued {
    pub pkt: Packet,
    pub next_hop: NodeId,
}

/// What a discipline hands to the interface: the packet, its next hop, and the MAC
/// priority level it should be sent at (0 = the default/lowest).
#[derive(Clone, Debug, PartialEq)]
pub struct Dequeued {
    pub pkt: Packet,
    pub next_hop: NodeId,
    pub priority: u8,
}

/// Counters every discipline keeps (ns-3 queue-disc style identities).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCounters {
    pub received: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    pub dropped: u64,
}

impl QueueCounters {
    /// Checks `received = dropped + enqueued` and `len = enqueued - dequeued`.
    pub fn consistent_with(&self, len: usize) -> bool {
        self.received == self.dropped + self.enqueued && self.enqueued - self.dequeued == len as u64
    }
}

/// The queue discipline of one interface.
#[derive(Clone, Debug)]
pub enum Qdisc {
    DropTail(DropTail),
}

impl Qdisc {
    /// Offers a packet; on refusal the packet comes back with the reason.
    #[inline]
    pub fn enqueue(&mut self, q: Queued) -> Result<(), (Queued, DropReason)> {
        match self {
            Qdisc::DropTail(d) => d.enqueue(q),
        }
    }

    /// Takes the next packet to transmit, if any.
    #[inline]
    pub fn dequeue(&mut self) -> Option<Dequeued> {
        match self {
            Qdisc::DropTail(d) => d.dequeue(),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Qdisc::DropTail(d) => d.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether one more packet would be accepted (saturating sources use it so that
    /// keeping a queue full never counts as an overflow drop).
    #[inline]
    pub fn has_room(&self) -> bool {
        match self {
            Qdisc::DropTail(d) => d.has_room(),
        }
    }

    pub fn counters(&self) -> QueueCounters {
        match self {
            Qdisc::DropTail(d) => d.counters(),
        }
    }

    /// Every packet still held, for end-of-run accounting.
    pub fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        match self {
            Qdisc::DropTail(d) => Box::new(d.iter().map(|q| &q.pkt)),
        }
    }
}
