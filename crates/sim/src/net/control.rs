//! Routing control packets on their way to the MAC: one FIFO per node that the MAC pulls
//! before it asks the queue discipline (ns-2's PriQueue puts routing packets at the head
//! of the interface queue, so control traffic never waits behind data).
//!
//! * A packet may wait a jitter first (RFC 5148 section 5: MANET control messages are
//!   jittered so that neighbours reacting to the same event do not transmit together);
//!   the draws come from the node's own stream, so they do not shift any other draw.
//! * Control packets belong to no flow (`FlowId::NONE`): they take air time and show in
//!   the MAC counters, but stay out of the data packets' conservation law; the protocols
//!   count their losses themselves.

use crate::ids::NodeId;
use crate::net::Packet;
use crate::qdisc::Dequeued;
use airqueue_kernel::{RngStream, StreamKey, Time};
use std::collections::VecDeque;

/// A control packet waiting for the MAC.
struct ControlFrame {
    pkt: Packet,
    /// Its next hop (`BROADCAST` for a broadcast).
    to: NodeId,
    /// Not before this time (jitter).
    ready: Time,
}

/// Every node's control FIFO and jitter stream.
pub struct ControlQueues {
    queues: Vec<VecDeque<ControlFrame>>,
    jitter: Vec<RngStream>,
    capacity: usize,
}

impl ControlQueues {
    /// FIFOs of `capacity` packets for `node_count` nodes; jitter from the streams
    /// `(seed, node, stream)`.
    pub fn new(node_count: usize, seed: u64, stream: &str, capacity: usize) -> Self {
        ControlQueues {
            queues: (0..node_count).map(|_| VecDeque::new()).collect(),
            jitter: (0..node_count)
                .map(|i| RngStream::new(StreamKey::new(seed, i as u32, stream)))
                .collect(),
            capacity,
        }
    }

    /// A uniform delay in [0, `max`) from `node`'s jitter stream (one draw).
    pub fn jitter(&mut self, node: NodeId, max: Time) -> Time {
        let x = self.jitter[node.index()].uniform();
        Time::from_nanos((x * max.as_nanos() as f64) as u64)
    }

    /// Queues `pkt` for neighbour `to`, due at `ready`; false (the packet is dropped)
    /// when the node's FIFO is full.
    pub fn push(&mut self, node: NodeId, pkt: Packet, to: NodeId, ready: Time) -> bool {
        let q = &mut self.queues[node.index()];
        if q.len() >= self.capacity {
            return false;
        }
        q.push_back(ControlFrame { pkt, to, ready });
        true
    }

    /// The first control packet of `node` due at `now`, for its MAC (level 0).
    #[inline]
    pub fn pop(&mut self, node: NodeId, now: Time) -> Option<Dequeued> {
        let q = &mut self.queues[node.index()];
        let i = q.iter().position(|f| f.ready <= now)?;
        let f = q.remove(i)?;
        Some(Dequeued {
            pkt: f.pkt,
            next_hop: f.to,
            priority: 0,
        })
    }

    /// Drops `node`'s packets for neighbour `to`; returns how many.
    pub fn remove_to(&mut self, node: NodeId, to: NodeId) -> usize {
        let q = &mut self.queues[node.index()];
        let before = q.len();
        q.retain(|f| f.to != to);
        before - q.len()
    }
}
