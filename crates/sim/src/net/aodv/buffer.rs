//! The packets a node generated for destinations it has no route to, waiting for route
//! discovery (RFC 3561 6.3: the source buffers them; the RFC leaves the policy open).
//! As in ns-2's AODV: one FIFO per node over all destinations, bounded, with a timeout;
//! a full buffer makes room by evicting its oldest packet. With local repair (6.12) a
//! relay holds the packets it forwards here too, each with the neighbour it came from.

use crate::ids::NodeId;
use crate::net::Packet;
use airqueue_kernel::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Buffer {
    q: VecDeque<(Packet, NodeId, Time)>,
    capacity: usize,
}

impl Buffer {
    pub fn new(capacity: usize) -> Self {
        Buffer {
            q: VecDeque::new(),
            capacity,
        }
    }

    /// Holds `pkt`, received from `prev` (this node for its own packets), until
    /// `expires`; returns the packet evicted to make room, if any.
    pub fn push(&mut self, pkt: Packet, prev: NodeId, expires: Time) -> Option<Packet> {
        let evicted = if self.q.len() >= self.capacity {
            self.q.pop_front().map(|(p, _, _)| p)
        } else {
            None
        };
        self.q.push_back((pkt, prev, expires));
        evicted
    }

    /// Removes and returns, in arrival order, the packets for `dst` with the neighbours
    /// they came from.
    pub fn take_for(&mut self, dst: NodeId, out: &mut Vec<(Packet, NodeId)>) {
        let mut i = 0;
        while i < self.q.len() {
            if self.q[i].0.dst == dst {
                out.extend(self.q.remove(i).map(|(p, prev, _)| (p, prev)));
            } else {
                i += 1;
            }
        }
    }

    /// Removes and returns the packets whose time is up at `now`.
    pub fn take_expired(&mut self, now: Time, out: &mut Vec<(Packet, NodeId)>) {
        let mut i = 0;
        while i < self.q.len() {
            if self.q[i].2 <= now {
                out.extend(self.q.remove(i).map(|(p, prev, _)| (p, prev)));
            } else {
                i += 1;
            }
        }
    }

    pub fn has_packets_for(&self, dst: NodeId) -> bool {
        self.q.iter().any(|(p, _, _)| p.dst == dst)
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}
