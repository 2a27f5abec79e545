//! Queue reports from decoded frames to the queue disciplines. A packet carries the
//! report its sender's discipline wrote when it dequeued it: the `qlen` of the
//! piggybacked queue-report header (`Packet::diffq`; DiffQ's, seed 000, section 4.1,
//! Forwarder Algorithm lines 17-28, which fair queuing's back-pressure and backpressure
//! read too), or an extension discipline's [`Packet::report`]. Every decoded data frame
//! with a report, addressed or overheard, reaches the receiving interface's discipline
//! (`QueueDiscipline::on_report`) before the packet is delivered or forwarded; MAC
//! duplicates report nothing. The world never reads a report itself.
//!
//! A relay whose queue refused a forwarded packet may trace what it and its sender knew
//! (`QueueDiscipline::relay_overflow`).

use super::World;
use crate::ids::NodeId;
use crate::net::Packet;

impl World {
    /// Hands the queue report of a packet `node` decoded from `from` to `node`'s queue
    /// discipline: on wifi the node's one instance; on wired links the instance of the
    /// link back to `from`, the only one whose next hop `from` can be (so the interface
    /// towards `from`, either way). When the report may release a class held back by
    /// fair queuing's back-pressure, the interface is offered the chance to pull.
    pub(super) fn deliver_queue_report(&mut self, node: NodeId, from: NodeId, pkt: &Packet) {
        if pkt.diffq.is_none() && pkt.report.is_none() {
            return;
        }
        let now = self.events.now();
        let Some(iface) = self.iface_towards(node, from) else {
            return;
        };
        if self.qdisc_mut(iface).on_report(from, pkt, now) {
            self.kick(iface);
        }
    }

    /// A packet from `from` overflowed `node`'s radio queue: records what the two knew
    /// ([`crate::metrics::DiffqOverflows`]), for disciplines that keep the trace
    /// ([`QueueDiscipline::relay_overflow`](crate::qdisc::QueueDiscipline::relay_overflow)).
    pub(super) fn relay_overflow(&mut self, node: NodeId, from: NodeId, pkt: &Packet) {
        let Some(w) = &self.wifi else { return };
        let (Some(rx), Some(tx)) = (w.qdiscs.get(node.index()), w.qdiscs.get(from.index())) else {
            return;
        };
        let Some(seen) = rx.relay_overflow(tx.as_ref(), pkt, &self.routing) else {
            return;
        };
        let (sender, receiver, stale_by) = (seen.sender_level, seen.receiver_level, seen.stale_by);
        let o = &mut self.metrics.diffq_overflows;
        let side = if from == pkt.src {
            &mut o.first_relay
        } else {
            &mut o.deeper
        };
        side.record(sender, receiver, stale_by);
    }
}
