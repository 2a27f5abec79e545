//! The extension point of a network-layer scheme with its own packets: one that carries
//! its flows end to end itself, in place of IP forwarding, as MORE's opportunistic
//! forwarding with network coding does (`net/more/`; seed 000, section 2).
//!
//! Sans-I/O, as [`crate::net::RoutingProtocol`]: the scheme keeps the state of all its
//! flows at every node. The world calls it with (node, event) and it writes
//! [`NetAction`]s (queue or send a packet, release data to an application, drop, kick a
//! node's MAC) that the world carries out in order once the call returns
//! (`world/net_scheme.rs`); a packet it sends is handed back to it, so it may be called
//! again by its own actions. Two hooks answer the MAC's pull at once instead: control
//! frames ahead of the data ([`NetScheme::pop_control`]) and a packet's contents drawn
//! at the last moment ([`NetScheme::on_dequeue`], which may refuse it). A scheme that
//! models work taking time at a node asks to be woken ([`NetAction::Wake`],
//! [`NetScheme::on_wake`]).
//!
//! Its flows are those built from a [`crate::world::FlowKindConfig::Net`]; its packets
//! are those it [`NetScheme::claims`]. The world names no scheme: [`build`] makes the
//! one the flows ask for, and [`NetSchemes`] lists the schemes (static dispatch).

use super::more::{MoreFlowConfig, MoreFlowStats, MoreNet};
use super::{DropReason, Packet, RoutingTable, TransportHeader};
use crate::ids::{FlowId, NodeId};
use crate::qdisc::Dequeued;
use airqueue_kernel::Time;
use std::any::Any;
use std::fmt::Debug;

/// The configuration of a flow carried by a network-layer scheme.
#[derive(Clone, Debug, PartialEq)]
pub enum NetFlowConfig {
    /// A MORE flow (MORE, SIGCOMM 2007; seed 000, section 2) on the wifi medium: coded
    /// broadcasts in batches, forwarders by TX credit. With DiffQ's rate control
    /// (`FlowConfig::cc`) it is DiffQ-MORE (seed 000, 4.2 and 6.2): its packets carry
    /// the DiffQ header, DiffQ schedules them by eq. (2) and the source is paced by
    /// DiffQ's rate control.
    More(MoreFlowConfig),
}

/// A flow of a scheme as the world hands it over at build time.
#[derive(Clone, Copy, Debug)]
pub struct NetFlow<'a> {
    pub id: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub stop: Time,
    pub payload_bytes: u32,
    pub config: &'a NetFlowConfig,
}

/// The scheme that carries `flows` among `node_count` nodes (`None` without flows);
/// its random streams are keyed by `seed`.
pub fn build(flows: &[NetFlow], node_count: usize, seed: u64) -> Option<NetSchemes> {
    if flows.is_empty() {
        return None;
    }
    let more = flows.iter().map(|f| match f.config {
        NetFlowConfig::More(c) => (f, c),
    });
    Some(NetSchemes::More(MoreNet::new(more, node_count, seed)))
}

/// The schemes a world can run, one variant each. The world holds this enum, not a
/// `Box<dyn NetScheme>`: its hooks run on every packet of the scheme's flows, and
/// static dispatch lets them inline into the event core.
#[derive(Debug)]
pub enum NetSchemes {
    More(MoreNet),
}

/// Calls `$call` on the scheme inside `$self`, whichever it is.
macro_rules! dispatch {
    ($self:expr, $s:ident => $call:expr) => {
        match $self {
            NetSchemes::More($s) => $call,
        }
    };
}

impl NetSchemes {
    /// The scheme as a trait object (`downcast_ref` reaches its concrete type).
    pub fn as_dyn(&self) -> &dyn NetScheme {
        dispatch!(self, s => s)
    }
}

impl NetScheme for NetSchemes {
    #[inline]
    fn claims(&self, pkt: &Packet) -> bool {
        dispatch!(self, s => s.claims(pkt))
    }

    #[inline]
    fn on_flow_start(&mut self, flow: FlowId, paced: bool, cx: &NetCx, out: &mut Vec<NetAction>) {
        dispatch!(self, s => s.on_flow_start(flow, paced, cx, out))
    }

    #[inline]
    fn on_packet(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        dispatch!(self, s => s.on_packet(node, from, pkt, cx, out))
    }

    fn report(&self, reports: &mut NetReports) {
        dispatch!(self, s => s.report(reports))
    }

    #[inline]
    fn on_pace(&mut self, flow: FlowId, cx: &NetCx, out: &mut Vec<NetAction>) -> bool {
        dispatch!(self, s => s.on_pace(flow, cx, out))
    }

    #[inline]
    fn on_source_dequeue(&mut self, flow: FlowId, cx: &NetCx, out: &mut Vec<NetAction>) {
        dispatch!(self, s => s.on_source_dequeue(flow, cx, out))
    }

    #[inline]
    fn pop_control(&mut self, node: NodeId) -> Option<Dequeued> {
        dispatch!(self, s => s.pop_control(node))
    }

    #[inline]
    fn on_dequeue(&mut self, node: NodeId, pkt: &mut Packet) -> Result<(), DropReason> {
        dispatch!(self, s => s.on_dequeue(node, pkt))
    }

    #[inline]
    fn on_broadcast_done(&mut self, node: NodeId, pkt: &Packet) -> BroadcastFate {
        dispatch!(self, s => s.on_broadcast_done(node, pkt))
    }

    #[inline]
    fn on_wake(&mut self, node: NodeId, cx: &NetCx, out: &mut Vec<NetAction>) {
        dispatch!(self, s => s.on_wake(node, cx, out))
    }

    #[inline]
    fn on_retry_exhausted(
        &mut self,
        node: NodeId,
        pkt: Packet,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        dispatch!(self, s => s.on_retry_exhausted(node, pkt, cx, out))
    }

    fn held(&self) -> usize {
        dispatch!(self, s => s.held())
    }

    fn next_hop_sets(&self, flow: FlowId) -> &[(NodeId, Vec<NodeId>)] {
        dispatch!(self, s => s.next_hop_sets(flow))
    }

    fn check(&self, in_macs: &mut dyn Iterator<Item = &Packet>) -> Result<(), String> {
        dispatch!(self, s => s.check(in_macs))
    }
}

/// What a scheme may read while it handles an event.
pub struct NetCx<'a> {
    pub now: Time,
    /// The routing table the world forwards with.
    pub routes: &'a RoutingTable,
    /// The nodes' queue disciplines, as far as a source may see them.
    pub queues: &'a dyn QueueRoom,
}

/// Whether a node's queue discipline would take a packet now (a blocking write to a
/// socket waits until it would).
pub trait QueueRoom {
    /// Whether `node`'s queue discipline has room for a packet of `flow` towards
    /// neighbour `to` ([`crate::medium::wifi::BROADCAST`]: every neighbour).
    fn has_room(&self, node: NodeId, flow: FlowId, to: NodeId) -> bool;
}

/// What became of a broadcast of the scheme's when it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadcastFate {
    /// It reached its end (delivered, for the conservation law).
    Arrived,
    /// It is lost at its sender for the reason given.
    Dropped(DropReason),
    /// Its fate is not known yet: the scheme holds it ([`NetScheme::held`]) and ends it
    /// later with [`NetAction::Arrived`] or [`NetAction::Drop`].
    Held,
}

/// A packet a scheme asks the world to make: the world gives it its id, the flow's
/// priority, the default TTL and the creation time. Made at the flow's source it counts
/// as the flow's data (`packets_sent`), anywhere else as signalling (conservation only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacketSpec {
    /// Where it is made.
    pub node: NodeId,
    pub flow: FlowId,
    pub dst: NodeId,
    pub seq: u64,
    pub payload_bytes: u32,
    pub transport: TransportHeader,
}

/// What a scheme asks the world to do.
#[derive(Clone, Debug)]
pub enum NetAction {
    /// Make `pkt` and queue it in its node's queue discipline towards neighbour `to`
    /// ([`crate::medium::wifi::BROADCAST`]: every neighbour), with the flow's queue
    /// report header; a refusal drops it there. [`NetScheme::on_dequeue`] sees it when
    /// the MAC takes it.
    Queue { pkt: PacketSpec, to: NodeId },
    /// [`NetAction::Queue`] packets like `pkt` while the discipline has room for them
    /// (a source that keeps its queue full), up to the first refusal.
    Fill { pkt: PacketSpec, to: NodeId },
    /// Make `pkt`, without a queue report, and hand it back to [`NetScheme::on_packet`]
    /// at its node as from the node itself: a packet the scheme carries in its own
    /// queues ([`NetScheme::pop_control`]).
    Send(PacketSpec),
    /// `flow`'s application received `packets` packets of `bytes` bytes now, the data
    /// sent at `sent` (goodput and one delay sample).
    Release {
        flow: FlowId,
        packets: u64,
        bytes: u64,
        sent: Time,
    },
    /// A packet of the scheme reached its end (delivered, for the conservation law).
    Arrived,
    /// `pkt` is lost at `node` for `reason`.
    Drop {
        node: NodeId,
        reason: DropReason,
        pkt: Packet,
    },
    /// `node`'s MAC may pull (a control frame was queued).
    Kick(NodeId),
    /// Call [`NetScheme::on_wake`] for `node` at time `at` (not before now).
    Wake { node: NodeId, at: Time },
}

/// What the schemes report at the end of a run, indexed by flow (`None` for a flow of
/// another kind).
#[derive(Clone, Debug, Default)]
pub struct NetReports {
    pub more: Vec<Option<MoreFlowStats>>,
}

impl NetReports {
    pub fn new(flows: usize) -> Self {
        NetReports {
            more: vec![None; flows],
        }
    }
}

/// A network-layer scheme with its own packets. The required core is its flows' start,
/// its packets' arrivals and its report; everything else has a default.
pub trait NetScheme: Any + Send + Debug {
    /// Whether `pkt` is one of the scheme's packets: their arrivals, broadcast ends,
    /// MAC failures and pulls come to the scheme, not to IP forwarding.
    fn claims(&self, pkt: &Packet) -> bool;

    /// Flow `flow` starts (`paced`: a source rate controller ticks it,
    /// [`NetScheme::on_pace`]).
    fn on_flow_start(&mut self, flow: FlowId, paced: bool, cx: &NetCx, out: &mut Vec<NetAction>);

    /// One of its packets reached `node` from neighbour `from` (`from == node`: made
    /// here by a [`NetAction::Send`]).
    fn on_packet(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    );

    /// End of run: its counters into the run's report.
    fn report(&self, reports: &mut NetReports);

    /// A pacing tick of flow `flow`: the source may send one packet. Returns whether
    /// one left.
    fn on_pace(&mut self, _flow: FlowId, _cx: &NetCx, _out: &mut Vec<NetAction>) -> bool {
        false
    }

    /// A packet of unpaced flow `flow` left its source's queue (sent or dropped): a
    /// source that keeps its queue full refills it.
    fn on_source_dequeue(&mut self, _flow: FlowId, _cx: &NetCx, _out: &mut Vec<NetAction>) {}

    /// The next control frame of `node` for its MAC, served ahead of the data.
    fn pop_control(&mut self, _node: NodeId) -> Option<Dequeued> {
        None
    }

    /// The MAC takes `pkt`, one of the scheme's, from `node`'s queue discipline: the
    /// scheme may fill in its contents now, or refuse it (the world drops it for the
    /// reason given, and the MAC pulls again).
    fn on_dequeue(&mut self, _node: NodeId, _pkt: &mut Packet) -> Result<(), DropReason> {
        Ok(())
    }

    /// `node`'s broadcast of `pkt` ended (every reception of it was reported): its life
    /// at the MAC is over. It arrived (the default), is dropped at `node`, or is held by
    /// the scheme until it knows. (Once per broadcast: answered at once, not through
    /// actions.)
    fn on_broadcast_done(&mut self, _node: NodeId, _pkt: &Packet) -> BroadcastFate {
        BroadcastFate::Arrived
    }

    /// The time a [`NetAction::Wake`] for `node` asked for has come.
    fn on_wake(&mut self, _node: NodeId, _cx: &NetCx, _out: &mut Vec<NetAction>) {}

    /// `node`'s MAC gave up on the unicast `pkt` at the retry limit. Dropped by default.
    fn on_retry_exhausted(
        &mut self,
        node: NodeId,
        pkt: Packet,
        _cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        out.push(NetAction::Drop {
            node,
            reason: DropReason::MacRetryLimit,
            pkt,
        });
    }

    /// Packets the scheme holds outside the queue disciplines and MACs (they count as
    /// in flight).
    fn held(&self) -> usize {
        0
    }

    /// For flow `flow`, per node, the neighbours any of which may take its packets on
    /// (opportunistic forwarding): queue disciplines that schedule by neighbour learn
    /// them (DiffQ-MORE, seed 000 4.2: `F_ip`).
    fn next_hop_sets(&self, _flow: FlowId) -> &[(NodeId, Vec<NodeId>)] {
        &[]
    }

    /// End of run: whether the scheme's own bookkeeping agrees with the packets still in
    /// the MACs' buffers (`Err` says what does not).
    fn check(&self, _in_macs: &mut dyn Iterator<Item = &Packet>) -> Result<(), String> {
        Ok(())
    }
}

impl dyn NetScheme {
    /// The scheme as its concrete type, for tests that look inside it.
    pub fn downcast_ref<T: NetScheme>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}
