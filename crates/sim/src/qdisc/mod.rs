//! Queue disciplines: what a node holds for transmission and in which order it hands
//! packets to the interface that pulls from it (DESIGN.md, "The MAC pulls, the network
//! layer decides").
//!
//! An enum over the implementations keeps the hot path free of dynamic dispatch; each
//! scheme lives in its own file. Every discipline keeps [`QueueCounters`] whose identities
//! (`received = dropped + enqueued`, `len = enqueued - dequeued`) are checked in tests.

pub mod backpressure;
pub mod diffq;
pub mod dqm;
pub mod droptail;
pub mod fq;
pub mod pi;
pub mod red;
pub mod reports;

pub use backpressure::{
    Backpressure, BackpressureConfig, BackpressureVariant, BpControlMsg, LinkEstimate, LossCount,
    QueueReport,
};
pub use diffq::{DiffQ, DiffQConfig};
pub use dqm::{Dqm, DqmConfig};
pub use droptail::DropTail;
pub use fq::{Classify, FairQueue, FqConfig, ReportView};
pub use pi::{Pi, PiConfig};
pub use red::{Red, RedConfig};

use crate::ids::NodeId;
use crate::net::{DropReason, Packet, RoutingTable};
use airqueue_kernel::Time;

/// A packet waiting for transmission, with the neighbour it should go to and the one it
/// came from (the holding node itself for a packet it generated; not an `Option`, which
/// would take `(Queued, DropReason)` to clippy's 128-byte `result_large_err` limit).
#[derive(Clone, Debug, PartialEq)]
pub struct Queued {
    pub pkt: Packet,
    pub next_hop: NodeId,
    pub prev_hop: NodeId,
}

/// What a discipline hands to the interface: the packet, its next hop, and the MAC
/// priority level it should be sent at (0 = the default/lowest).
#[derive(Clone, Debug, PartialEq)]
pub struct Dequeued {
    pub pkt: Packet,
    pub next_hop: NodeId,
    pub priority: u8,
}

impl Dequeued {
    /// `q` handed out at the level its own user priority asks for (a FIFO has no
    /// scheduling opinion).
    #[inline]
    pub fn at_own_priority(q: Queued) -> Self {
        Dequeued {
            priority: q.pkt.priority,
            pkt: q.pkt,
            next_hop: q.next_hop,
        }
    }
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
    /// Boxed: its per-destination tables are much larger than a FIFO's header.
    DiffQ(Box<DiffQ>),
    /// Per-flow fair queuing with optional back-pressure (seed 001); boxed like DiffQ.
    FairQueue(Box<FairQueue>),
    /// Random Early Detection in front of a FIFO; boxed like DiffQ.
    Red(Box<Red>),
    /// The PI controller AQM in front of a FIFO; boxed like DiffQ.
    Pi(Box<Pi>),
    /// Dual Queue Management at an access point (seed 004); boxed like DiffQ.
    Dqm(Box<Dqm>),
    /// Classical or TCP-aware backpressure routing and scheduling (seed 002); boxed
    /// like DiffQ.
    Backpressure(Box<Backpressure>),
}

impl Qdisc {
    /// Offers a packet arriving at `now`; on refusal the packet comes back with the
    /// reason. DiffQ puts packets with a DiffQ header in their destination queue, others
    /// in its legacy FIFO. RED and PI read `now` for their averaging and sampling.
    #[inline]
    pub fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)> {
        match self {
            Qdisc::DropTail(d) => d.enqueue(q),
            Qdisc::DiffQ(d) => {
                let diffq = q.pkt.diffq.is_some();
                d.enqueue(q, diffq)
            }
            Qdisc::FairQueue(d) => d.enqueue(q),
            Qdisc::Red(d) => d.enqueue(q, now),
            Qdisc::Pi(d) => d.enqueue(q, now),
            Qdisc::Dqm(d) => d.enqueue(q, now),
            Qdisc::Backpressure(d) => d.enqueue(q),
        }
    }

    /// Takes the next packet to transmit, if any. `routing` gives the owning node's next
    /// hop per destination (DiffQ's differential needs it; drop-tail ignores it). DiffQ
    /// writes `|Q_i(F)|` at scheduling time into the packet's DiffQ header (Forwarder
    /// Algorithm line 7, `P.qlen <- |Q_i(F)|`); fair queuing with back-pressure writes
    /// what is left of the packet's class; drop-tail leaves the header as it is.
    /// `now` ages fair queuing's back-pressure reports, starts RED's idle periods and
    /// runs PI's sampling instants.
    #[inline]
    pub fn dequeue(&mut self, routing: &RoutingTable, now: Time) -> Option<Dequeued> {
        match self {
            Qdisc::DropTail(d) => d.dequeue(),
            Qdisc::FairQueue(d) => d.dequeue(now),
            Qdisc::Red(d) => d.dequeue(now),
            Qdisc::Pi(d) => d.dequeue(now),
            Qdisc::Dqm(d) => d.dequeue(now),
            Qdisc::Backpressure(d) => {
                // The 802.11 neighbours: the nodes the routing table reaches in one hop,
                // in id order (the table keeps the list with the row).
                let node = d.node();
                let neighbours = routing.neighbours(node);
                d.dequeue(neighbours, |dst| routing.next_hop(node, dst), now)
            }
            Qdisc::DiffQ(d) => {
                let node = d.node();
                let (mut out, qlen) = d.dequeue(|dst| routing.next_hop(node, dst))?;
                if let Some(h) = &mut out.pkt.diffq {
                    h.qlen = qlen.min(u16::MAX as u32) as u16;
                }
                Some(out)
            }
        }
    }

    /// Records the queue report piggybacked on `pkt`, a packet the node decoded or
    /// overheard from neighbour `from` at `now`: DiffQ's `qlen` for the packet's destination, or
    /// fair queuing's for the packet's class. Drop-tail keeps none. Returns whether a
    /// held-back class may have been released (the interface should then try to pull).
    #[inline]
    pub fn on_report(&mut self, from: NodeId, pkt: &Packet, now: Time) -> bool {
        match self {
            Qdisc::DropTail(_) | Qdisc::Red(_) | Qdisc::Pi(_) | Qdisc::Dqm(_) => false,
            Qdisc::DiffQ(d) => {
                if let Some(h) = pkt.diffq {
                    d.on_report(from, pkt.dst, h.qlen as u32);
                }
                false
            }
            Qdisc::FairQueue(d) => d.on_report(from, pkt, now),
            Qdisc::Backpressure(d) => d.on_report(from, pkt, now),
        }
    }

    /// Observes a packet the node decoded over its radio from neighbour `from` at `now`,
    /// whoever it was for and wherever it goes next: DQM counts the channel time (at the
    /// rate of the link from `from`) and flows of what its access point receives. A
    /// no-op for the other disciplines.
    #[inline]
    pub fn on_received(&mut self, from: NodeId, pkt: &Packet, now: Time) {
        if let Qdisc::Dqm(d) = self {
            d.on_received(from, pkt, now);
        }
    }

    /// DQM's reference length `q.ref` (packets) now and the mean queueing delay (seconds)
    /// of the packets that left it since the previous call (`None` when none left),
    /// starting a new interval; `None` for the other disciplines. The world samples it at
    /// every output bin (seed 004, Fig. 5).
    pub fn dqm_sample(&mut self) -> Option<(f64, Option<f64>)> {
        match self {
            Qdisc::Dqm(d) => Some((d.q_ref(), d.take_mean_sojourn().map(|t| t.as_secs_f64()))),
            _ => None,
        }
    }

    /// A scheduled rate change moved the links of `nodes` to `rate` (both directions;
    /// `crate::medium::wifi::RateChange`). DQM plans with link rates (seed 004, III-B);
    /// the other disciplines ignore it.
    pub fn on_link_rates(&mut self, nodes: &[NodeId], rate: airqueue_phy::DsssRate) {
        if let Qdisc::Dqm(d) = self {
            d.set_link_rates(nodes, rate);
        }
    }

    /// When a queue that refused to hand out a packet at `now` although it holds some
    /// should be asked again: the expiry of the report holding back its last eligible
    /// class (fair queuing with back-pressure). `None` for the other disciplines.
    pub fn release_at(&self, now: Time) -> Option<Time> {
        match self {
            Qdisc::FairQueue(d) => d.release_at(now),
            Qdisc::Backpressure(d) => d.release_at(now),
            _ => None,
        }
    }

    /// Fair queuing with back-pressure's exact view (seed 001, 4.2): the range of slots
    /// of [`Qdisc::exact_query`], each naming at most one (neighbour, class) pair the
    /// next decision reads; 0 for everything else.
    #[inline]
    pub fn exact_queries(&self) -> usize {
        match self {
            Qdisc::FairQueue(d) => d.exact_queries(),
            _ => 0,
        }
    }

    /// The (neighbour, class) pair of slot `k` of [`Qdisc::exact_queries`], if any.
    pub fn exact_query(&self, k: usize) -> Option<(NodeId, NodeId)> {
        match self {
            Qdisc::FairQueue(d) => d.exact_query(k),
            _ => None,
        }
    }

    /// This node's queue for fair-queuing class `c` (0 for other disciplines).
    pub fn class_len(&self, c: NodeId) -> usize {
        match self {
            Qdisc::FairQueue(d) => d.class_len(c),
            _ => 0,
        }
    }

    /// Writes neighbour `j`'s true length of class `c` (fair queuing's exact view).
    pub fn set_exact(&mut self, j: NodeId, c: NodeId, len: usize, now: Time) {
        if let Qdisc::FairQueue(d) = self {
            d.set_exact(j, c, len, now);
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Qdisc::DropTail(d) => d.len(),
            Qdisc::DiffQ(d) => d.len(),
            Qdisc::FairQueue(d) => d.len(),
            Qdisc::Red(d) => d.fifo().len(),
            Qdisc::Pi(d) => d.fifo().len(),
            Qdisc::Dqm(d) => d.len(),
            Qdisc::Backpressure(d) => d.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// DiffQ-MORE (seed 000, 4.2): registers `F_ip` of multi-path flow `flow` with a
    /// DiffQ discipline; other disciplines ignore it.
    pub fn set_multipath(&mut self, flow: crate::ids::FlowId, forwarders: Vec<NodeId>) {
        if let Qdisc::DiffQ(d) = self {
            d.set_multipath(flow, forwarders);
        }
    }

    /// The queue a packet towards `dst` waits in: DiffQ's `|Q_i(dst)|`; for a FIFO, which
    /// holds every destination in one queue, its whole length; fair queuing by
    /// destination, that class; by another key, its whole length. DiffQ's source rate
    /// control reads it.
    #[inline]
    pub fn queue_len_for(&self, dst: NodeId) -> usize {
        match self {
            Qdisc::DropTail(_) | Qdisc::Red(_) | Qdisc::Pi(_) | Qdisc::Dqm(_) => self.len(),
            Qdisc::FairQueue(d) => match d.config().classify {
                Classify::Destination => d.class_len(dst),
                _ => d.len(),
            },
            Qdisc::DiffQ(d) => d.queue_len(dst),
            Qdisc::Backpressure(d) => d.dest_len(dst),
        }
    }

    /// The queue a packet of `flow` towards `dst` waits in: backpressure's per-flow
    /// queue `U_i^s` of commodity (flow, dst) (seed 002, eq. (5)); for the other
    /// disciplines [`Qdisc::queue_len_for`]. Backpressure flow control reads it. No
    /// allocation: one map lookup.
    #[inline]
    pub fn commodity_len(&self, flow: crate::ids::FlowId, dst: NodeId) -> usize {
        match self {
            Qdisc::Backpressure(d) => d.queue_len(flow, dst),
            _ => self.queue_len_for(dst),
        }
    }

    /// What this node believes neighbour `j`'s queue for `dst` holds (DiffQ, and fair
    /// queuing by destination: its last report for that class).
    pub fn neighbour_len(&self, j: NodeId, dst: NodeId) -> Option<u32> {
        match self {
            Qdisc::DropTail(_) | Qdisc::Red(_) | Qdisc::Pi(_) | Qdisc::Dqm(_) => None,
            Qdisc::Backpressure(_) => None,
            Qdisc::DiffQ(d) => Some(d.neighbour_len(j, dst)),
            Qdisc::FairQueue(d) => match d.config().classify {
                Classify::Destination => Some(d.neighbour_len(j, dst)),
                _ => None,
            },
        }
    }

    /// Whether one more packet generated here (so without a previous hop) from `src` to
    /// `dst` via `next_hop` (`diffq`: carrying a DiffQ header) would be accepted
    /// (saturating sources use it so that keeping a queue full never counts as an
    /// overflow drop). RED and PI may still drop it early; they say no while they would
    /// refuse every arrival, so that a saturating source cannot offer packets forever.
    #[inline]
    pub fn has_room(&self, src: NodeId, dst: NodeId, next_hop: NodeId, diffq: bool) -> bool {
        match self {
            Qdisc::DropTail(d) => d.has_room(),
            Qdisc::Red(d) => d.has_room(),
            Qdisc::Pi(d) => d.has_room(),
            Qdisc::Dqm(d) => d.has_room(),
            Qdisc::Backpressure(d) => d.has_room(),
            Qdisc::DiffQ(d) => d.has_room_for(dst, diffq),
            Qdisc::FairQueue(d) => d.has_room_for(d.class_of(src, dst, next_hop, d.node())),
        }
    }

    pub fn counters(&self) -> QueueCounters {
        match self {
            Qdisc::DropTail(d) => d.counters(),
            Qdisc::DiffQ(d) => d.counters(),
            Qdisc::FairQueue(d) => d.counters(),
            Qdisc::Red(d) => d.fifo().counters(),
            Qdisc::Pi(d) => d.fifo().counters(),
            Qdisc::Dqm(d) => d.counters(),
            Qdisc::Backpressure(d) => d.counters(),
        }
    }

    /// Moves the packets waiting for neighbour `next` to `out` (AODV found the link to
    /// it broken). Drop-tail and fair queuing implement it; the other disciplines keep
    /// their packets (AODV runs only with those two).
    pub fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) {
        match self {
            Qdisc::DropTail(d) => d.remove_next_hop(next, out),
            Qdisc::FairQueue(d) => d.remove_next_hop(next, out),
            _ => {}
        }
    }

    /// Every packet still held, for end-of-run accounting.
    pub fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        match self {
            Qdisc::DropTail(d) => Box::new(d.iter().map(|q| &q.pkt)),
            Qdisc::DiffQ(d) => Box::new(d.iter().map(|q| &q.pkt)),
            Qdisc::FairQueue(d) => Box::new(d.iter().map(|q| &q.pkt)),
            Qdisc::Red(d) => Box::new(d.fifo().iter().map(|q| &q.pkt)),
            Qdisc::Pi(d) => Box::new(d.fifo().iter().map(|q| &q.pkt)),
            Qdisc::Dqm(d) => Box::new(d.iter().map(|q| &q.pkt)),
            Qdisc::Backpressure(d) => Box::new(d.iter().map(|q| &q.pkt)),
        }
    }
}
