//! Queue disciplines: what a node holds for transmission and in which order it hands
//! packets to the interface that pulls from it (DESIGN.md, "The MAC pulls, the network
//! layer decides").
//!
//! Every discipline implements [`QueueDiscipline`]: a small required core (offer, pull
//! when the interface has room, length, room for one more, counters) and hooks with
//! no-op defaults for what only some schemes use (overheard reports, transmit status,
//! periodic samples, link rates). The world holds each interface's discipline as a
//! [`Qdisc`], a boxed trait object, and reaches a scheme's own state only by downcasting
//! in that scheme's glue. Every discipline keeps [`QueueCounters`] whose identities
//! (`received = dropped + enqueued`, `len = enqueued - dequeued`) are checked in tests.

pub mod backpressure;
pub mod codel;
pub mod diffq;
pub mod dqm;
pub mod droptail;
pub mod fq;
pub mod fq_codel;
pub mod pi;
pub mod red;
pub mod registry;
pub mod reports;

pub use crate::net::headers::QueueReport;
pub use backpressure::{
    Backpressure, BackpressureConfig, BackpressureVariant, ControlWhen, LinkEstimate, LossCount,
    UnknownNeighbour,
};
pub use codel::{Codel, CodelConfig};
pub use diffq::{DiffQ, DiffQConfig, DiffqView};
pub use dqm::{Dqm, DqmConfig};
pub use droptail::DropTail;
pub use fq::{Classify, FairQueue, FqConfig, HeldPackets, ReportView};
pub use fq_codel::{FqCodel, FqCodelConfig};
pub use pi::{Pi, PiConfig};
pub use red::{Red, RedConfig};

use crate::ids::{FlowId, NodeId};
use crate::medium::wifi::mac::TxStatus;
use crate::net::{DropReason, Packet, RoutingTable};
use airqueue_kernel::Time;
use std::any::Any;
use std::fmt::Debug;

/// A packet waiting for transmission, with the neighbour it should go to and the one it
/// came from (the holding node itself for a packet it generated; not an `Option`, which
/// would take `(Queued, DropReason)` to clippy's 128-byte `result_large_err` limit).
#[derive(Clone, Debug, PartialEq)]
pub struct Queued {
    pub pkt: Packet,
    pub next_hop: NodeId,
    pub prev_hop: NodeId,
}

/// What a discipline hands to the interface (the MAC's port type).
pub use crate::medium::port::Dequeued;

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

/// What a discipline may ask of the node's routing when it picks a packet: the next hop
/// towards a destination and the 802.11 neighbours (DiffQ's differential and
/// backpressure's neighbour choice read them; a FIFO reads nothing).
pub trait Routes {
    fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<NodeId>;
    /// The nodes `at` reaches in one hop, in id order.
    fn neighbours(&self, at: NodeId) -> &[NodeId];
}

impl Routes for RoutingTable {
    #[inline]
    fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<NodeId> {
        RoutingTable::next_hop(self, at, dst)
    }
    #[inline]
    fn neighbours(&self, at: NodeId) -> &[NodeId] {
        RoutingTable::neighbours(self, at)
    }
}

/// A periodic sample of a discipline's state, taken at every output bin.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueSample {
    /// The controller's reference length, packets (DQM's `q.ref`).
    pub reference_pkts: Option<f64>,
    /// Mean queueing delay, seconds, of the packets that left since the previous sample
    /// (`None` when none left).
    pub mean_sojourn_s: Option<f64>,
}

/// A queue discipline or scheduler: what one interface holds for transmission and in
/// which order it hands packets to the MAC, which pulls when it has room. The required
/// methods are the whole contract of a FIFO; the rest are hooks with no-op defaults.
pub trait QueueDiscipline: Any + Debug + Send {
    /// Offers a packet arriving at `now`; on refusal the packet comes back with the
    /// reason, and the discipline has counted it as dropped.
    fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)>;

    /// Takes the next packet to transmit at `now`, if any (the MAC has room for one).
    fn dequeue(&mut self, routes: &dyn Routes, now: Time) -> Option<Dequeued>;

    /// Packets held.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether one more packet generated here (so without a previous hop) from `src` to
    /// `dst` via `next_hop` (`with_report`: carrying the queue-report header, which
    /// DiffQ schedules by) would be accepted.
    /// Saturating sources fill the queue while it says yes, so a discipline that may
    /// refuse every arrival (an AQM) must say no then, or a source would offer packets
    /// forever at one instant.
    fn has_room(&self, src: NodeId, dst: NodeId, next_hop: NodeId, with_report: bool) -> bool;

    fn counters(&self) -> QueueCounters;

    /// A packet the discipline dropped while handing out others (a head drop, as
    /// CoDel's); the world takes them after every dequeue. Head drops count as dequeued.
    fn take_dropped(&mut self) -> Option<(Queued, DropReason)> {
        None
    }

    /// Whether [`QueueDiscipline::take_dropped`] can return packets: a discipline that
    /// drops at the head says so. The world asks for head drops only when some
    /// interface's discipline says yes (a packet left unasked breaks the conservation
    /// check at the end of the run).
    fn drops_at_head(&self) -> bool {
        false
    }

    /// Records the queue report piggybacked on `pkt`, a packet decoded or overheard
    /// from neighbour `from` at `now`. Returns whether a held-back packet may have been
    /// released (the interface should then try to pull).
    fn on_report(&mut self, _from: NodeId, _pkt: &Packet, _now: Time) -> bool {
        false
    }

    /// Observes a packet the node decoded over its radio from `from` at `now`, whoever
    /// it was for and wherever it goes next.
    fn on_received(&mut self, _from: NodeId, _pkt: &Packet, _now: Time) {}

    /// The MAC's report on a unicast frame this node sent.
    fn on_tx_status(&mut self, _status: &TxStatus, _now: Time) {}

    /// Control broadcasts of the discipline's own, for the queue sizes no data frame
    /// carries while the node is idle (seed 002, 4.1.2): `Some(interval)` asks for a
    /// check at each radio node once `interval` has passed without a data frame leaving
    /// it (`world/queue_control.rs`); `None`, the default, for none.
    fn control_interval(&self) -> Option<Time> {
        None
    }

    /// The idle check at `now`: writes the reports to broadcast into `out`, which comes
    /// empty (left empty: nothing is sent this time).
    fn control_reports(&mut self, _now: Time, _out: &mut Vec<QueueReport>) {}

    /// The reports of a neighbour's control broadcast, heard at `now`. Returns whether a
    /// held-back packet may have been released (the interface should then try to pull).
    fn on_control_reports(&mut self, _from: NodeId, _reports: &[QueueReport], _now: Time) -> bool {
        false
    }

    /// A scheduled rate change moved the links of `nodes` to `rate` (both directions).
    fn on_link_rates(&mut self, _nodes: &[NodeId], _rate: airqueue_phy::DsssRate) {}

    /// A sample of the discipline's state for the time series (every output bin);
    /// `None` when it has nothing beyond its length to say.
    fn sample(&mut self) -> Option<QueueSample> {
        None
    }

    /// When a queue that refused to hand out a packet at `now` although it holds some
    /// should be asked again (the expiry of what holds its packets back).
    fn release_at(&self, _now: Time) -> Option<Time> {
        None
    }

    /// The queue a packet towards `dst` waits in (a FIFO: all of it). Source rate
    /// control reads it.
    fn queue_len_for(&self, _dst: NodeId) -> usize {
        self.len()
    }

    /// The queue a packet of `flow` towards `dst` waits in (per-commodity schedulers);
    /// [`QueueDiscipline::queue_len_for`] by default.
    fn commodity_len(&self, _flow: FlowId, dst: NodeId) -> usize {
        self.queue_len_for(dst)
    }

    /// What this node believes neighbour `j`'s queue for `dst` holds, where the
    /// discipline keeps such beliefs.
    fn neighbour_len(&self, _j: NodeId, _dst: NodeId) -> Option<u32> {
        None
    }

    /// Moves the packets waiting for neighbour `next` to `out` (a routing protocol found
    /// the link broken). By default the discipline keeps them.
    fn remove_next_hop(&mut self, _next: NodeId, _out: &mut Vec<Queued>) {}

    /// Registers the forwarders among this node's neighbours of multi-path flow `flow`.
    fn set_multipath(&mut self, _flow: FlowId, _forwarders: Vec<NodeId>) {}

    /// The exact-view oracle (seed 001, 4.2: a "globally accessible array"): the number
    /// of slots of [`QueueDiscipline::exact_query`].
    fn exact_queries(&self) -> usize {
        0
    }

    /// The (neighbour, class) pair of slot `k` whose true length the next decision reads.
    fn exact_query(&self, _k: usize) -> Option<(NodeId, NodeId)> {
        None
    }

    /// This node's queue for class `c`, as the exact view reads it.
    fn class_len(&self, _c: NodeId) -> usize {
        0
    }

    /// Writes neighbour `j`'s true length of class `c` (the exact view).
    fn set_exact(&mut self, _j: NodeId, _c: NodeId, _len: usize, _now: Time) {}

    /// A diagnostic, read as a trace would (the model never reads another node's
    /// memory): this discipline refused `pkt`, forwarded by the node whose discipline is
    /// `sender`, for want of room; `routes` are the node's routes. What the two knew,
    /// for disciplines that keep such a trace (DiffQ's relay overflows); `None` by
    /// default.
    fn relay_overflow(
        &self,
        _sender: &dyn QueueDiscipline,
        _pkt: &Packet,
        _routes: &dyn Routes,
    ) -> Option<RelayOverflow> {
        None
    }
}

/// What a relay and its sender knew when the relay's queue refused a packet
/// ([`QueueDiscipline::relay_overflow`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayOverflow {
    /// The sender's MAC level for the packet, from what it knew of the relay.
    pub sender_level: u8,
    /// The relay's own level towards its next hop.
    pub receiver_level: u8,
    /// How far the sender's belief was below the relay's true queue, packets.
    pub stale_by: i64,
}

/// The queue discipline of one interface.
pub type Qdisc = Box<dyn QueueDiscipline>;

impl dyn QueueDiscipline {
    /// The discipline as its concrete type, for that scheme's own glue.
    pub fn downcast_ref<T: QueueDiscipline>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }

    /// The discipline as its concrete type, for that scheme's own glue.
    pub fn downcast_mut<T: QueueDiscipline>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }
}
