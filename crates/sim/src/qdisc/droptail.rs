//! Drop-tail FIFO: the default interface queue (ns-2's DropTail, 50 packets by default).

use super::{Dequeued, QueueCounters, Queued};
use crate::net::DropReason;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct DropTail {
    queue: VecDeque<Queued>,
    capacity_pkts: usize,
    counters: QueueCounters,
}

impl DropTail {
    pub fn new(capacity_pkts: usize) -> Self {
        DropTail {
            queue: VecDeque::with_capacity(capacity_pkts),
            capacity_pkts,
            counters: QueueCounters::default(),
        }
    }

    #[inline]
    pub fn enqueue(&mut self, q: Queued) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        if self.queue.len() >= self.capacity_pkts {
            self.counters.dropped += 1;
            return Err((q, DropReason::QueueOverflow));
        }
        self.counters.enqueued += 1;
        self.queue.push_back(q);
        Ok(())
    }

    #[inline]
    pub fn dequeue(&mut self) -> Option<Dequeued> {
        let q = self.queue.pop_front()?;
        self.counters.dequeued += 1;
        // A FIFO has no scheduling opinion: the packet's own user priority picks the level.
        Some(Dequeued {
            priority: q.pkt.priority,
            pkt: q.pkt,
            next_hop: q.next_hop,
        })
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.queue.len() < self.capacity_pkts
    }

    pub fn counters(&self) -> QueueCounters {
        self.counters
    }

    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.queue.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::net::{Packet, TransportHeader};
    use airqueue_kernel::Time;

    fn queued(seq: u64) -> Queued {
        Queued {
            pkt: Packet {
                uid: seq,
                flow: FlowId(0),
                src: NodeId(0),
                dst: NodeId(1),
                seq,
                payload_bytes: 100,
                transport: TransportHeader::Udp,
                ttl: 64,
                priority: 0,
                created: Time::ZERO,
                diffq: None,
            },
            next_hop: NodeId(1),
        }
    }

    #[test]
    fn fifo_order_and_tail_drop() {
        let mut q = DropTail::new(3);
        for s in 0..5 {
            let r = q.enqueue(queued(s));
            assert_eq!(r.is_ok(), s < 3, "seq {s}");
            if let Err((back, reason)) = r {
                assert_eq!(back.pkt.seq, s);
                assert_eq!(reason, DropReason::QueueOverflow);
            }
        }
        assert!(!q.has_room());
        assert_eq!(q.dequeue().unwrap().pkt.seq, 0);
        assert!(q.has_room());
        assert_eq!(q.dequeue().unwrap().pkt.seq, 1);
        let c = q.counters();
        assert_eq!(
            (c.received, c.enqueued, c.dropped, c.dequeued),
            (5, 3, 2, 2)
        );
        assert!(c.consistent_with(q.len()));
    }
}
