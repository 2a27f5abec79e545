//! Sources that refill their own queue: saturating UDP and unpaced network-layer schemes
//! (MORE). Each replaces a packet of its own that leaves its source's first queue. Two
//! such flows at one node would then split the queue as they first filled it, and one
//! that started while the other held every slot would never send; so a node with
//! several offers each freed slot to them in turn, as a host's sockets waiting on one
//! interface queue are woken in turn. A node with one keeps the plain rule.

use super::{FlowApp, World};
use crate::ids::{FlowId, NodeId};

/// Per node, its self-refilling flows when it has two or more, and whose turn is next.
#[derive(Clone, Debug, Default)]
pub(super) struct SourceRefill {
    /// Indexed by node; empty for a node with fewer than two such flows.
    shared: Vec<Vec<FlowId>>,
    next: Vec<u32>,
}

impl SourceRefill {
    /// `flows` gives, per flow in id order, its source and whether it refills its
    /// own queue there.
    pub(super) fn new(node_count: usize, flows: impl Iterator<Item = (NodeId, bool)>) -> Self {
        let mut shared = vec![Vec::new(); node_count];
        for (f, (src, refills)) in flows.enumerate() {
            if refills {
                shared[src.index()].push(FlowId(f as u32));
            }
        }
        for flows in &mut shared {
            if flows.len() < 2 {
                *flows = Vec::new();
            }
        }
        SourceRefill {
            shared,
            next: vec![0; node_count],
        }
    }
}

impl World {
    /// A packet of self-refilling flow `departed` left the first queue of its source
    /// `node`: the flow refills it, or, at a node with several, the next of them in
    /// turn that adds a packet.
    pub(super) fn refill_source(&mut self, node: NodeId, departed: FlowId) {
        let n = self.source_refill.shared[node.index()].len();
        if n == 0 {
            self.refill_flow(departed, true);
            return;
        }
        let start = self.source_refill.next[node.index()] as usize;
        for k in 0..n {
            let at = (start + k) % n;
            let f = self.source_refill.shared[node.index()][at];
            let made = self.next_uid;
            self.refill_flow(f, false);
            if self.next_uid != made {
                self.source_refill.next[node.index()] = ((at + 1) % n) as u32;
                return;
            }
        }
    }

    /// Flow `f` fills its source's queue. `unroutable_drop`: a greedy endpoint without a
    /// route makes one packet to drop, as at its start; when offered another flow's
    /// slot it makes none.
    fn refill_flow(&mut self, f: FlowId, unroutable_drop: bool) {
        match self.flows[f.index()].app {
            FlowApp::Net => self.net_source_dequeue(f),
            FlowApp::Endpoint(_) => self.top_up_with(f, unroutable_drop),
        }
    }
}
