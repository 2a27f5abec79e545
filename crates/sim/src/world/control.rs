//! What the routing glue shares: the control packets the world makes for a protocol,
//! and the refill of greedy sources whose packets routing held back or dropped.

use super::World;
use crate::ids::{FlowId, NodeId};
use crate::net::{Packet, TransportHeader};

impl World {
    /// Greedy sources at `node` (not paced) whose destination passes `ready` fill their
    /// first queue again. A greedy source only refills when one of its packets leaves
    /// that queue; after routing dropped or held its packets, nothing else would wake it.
    pub(super) fn refill_saturating_at(
        &mut self,
        node: NodeId,
        ready: impl Fn(&World, NodeId) -> bool,
    ) {
        for i in 0..self.flows.len() {
            let f = &self.flows[i];
            if f.src != node || !f.greedy || f.pacer.is_some() {
                continue;
            }
            if ready(self, f.dst) {
                self.top_up(FlowId(i as u32));
            }
        }
    }

    /// A new control packet from `node` to `dst` carrying `transport`.
    pub(super) fn control_packet(
        &mut self,
        node: NodeId,
        dst: NodeId,
        transport: TransportHeader,
        ttl: u8,
    ) -> Packet {
        let pkt = Packet {
            uid: self.next_uid,
            flow: FlowId::NONE,
            src: node,
            dst,
            seq: 0,
            payload_bytes: 0,
            transport,
            ttl,
            priority: 0,
            created: self.events.now(),
            diffq: None,
            report: None,
        };
        self.next_uid += 1;
        pkt
    }
}
