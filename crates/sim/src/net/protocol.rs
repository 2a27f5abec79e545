//! The routing-protocol extension point.
//!
//! A protocol keeps every node's routing state. It answers next-hop queries, and it
//! reacts to its control packets, its timers and the MAC's link feedback by writing
//! [`RoutingAction`]s that the world carries out in order, after the call returns
//! (sans-I/O: the protocol never sees the event queue, the MAC or the other layers).
//! An action may call the protocol again ([`RoutingAction::Resume`]): a step that must
//! read state as it is once the earlier actions ran (a route found after the control
//! packets were queued) is done then. Without a protocol the world forwards by its
//! static [`RoutingTable`].
//!
//! Control packets wait in the protocol's own per-node FIFO, which the MAC pulls ahead
//! of the queue discipline ([`RoutingProtocol::pop_control`]); the world gives them
//! their packet ids as it sends them.

use super::{DropReason, Packet, RoutingTable, TransportHeader};
use crate::ids::NodeId;
use crate::qdisc::{Dequeued, Queued};
use airqueue_kernel::Time;
use std::any::Any;

/// A protocol's timer, opaque to the world: the protocol encodes its own timers as a
/// kind and an argument (the world's events stay 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoutingTimer {
    pub kind: u8,
    pub arg: u32,
}

/// What a routing protocol asks the world to do.
#[derive(Clone, Debug)]
pub enum RoutingAction {
    /// Send a control packet carrying `transport` from `node` to neighbour `to`
    /// ([`crate::medium::wifi::BROADCAST`]: every neighbour) with IP TTL `ttl`. The
    /// world makes the packet and hands it to [`RoutingProtocol::queue_control`] with
    /// `delay` (`None`: the protocol's own jitter, drawn then).
    Send {
        node: NodeId,
        to: NodeId,
        transport: TransportHeader,
        ttl: u8,
        delay: Option<Time>,
    },
    /// Fire `timer` of `node` at `at` ([`RoutingProtocol::on_timer`]).
    Arm {
        node: NodeId,
        at: Time,
        timer: RoutingTimer,
    },
    /// `node` forwards `pkt`, received from `prev` (`node` itself: generated there).
    Forward {
        node: NodeId,
        prev: NodeId,
        pkt: Packet,
    },
    /// `pkt` is lost at `node` for `reason`.
    Drop {
        node: NodeId,
        reason: DropReason,
        pkt: Packet,
    },
    /// Recalculate `node`'s row of the routing table
    /// ([`RoutingProtocol::update_routes`]); when it changed, the node's saturating
    /// sources offer packets again.
    UpdateRoutes(NodeId),
    /// `node`'s saturating sources whose destination
    /// [`RoutingProtocol::source_may_send`] allows offer packets again (routing dropped
    /// or held theirs, and nothing else would wake them).
    RefillSaturating(NodeId),
    /// The data packets `node` queued for neighbour `next` leave its queue discipline;
    /// the next [`RoutingAction::HandBackUnqueued`] of `node` hands them back.
    Unqueue { node: NodeId, next: NodeId },
    /// The packets of the last `Unqueue`: those `node` generated are forwarded again,
    /// the relayed ones go to [`RoutingProtocol::relay_unqueued`].
    HandBackUnqueued(NodeId),
    /// Call [`RoutingProtocol::resume`] with `step` when the actions before it ran.
    Resume { node: NodeId, step: u64 },
    /// `node`'s MAC may pull a control packet that is due now.
    Kick(NodeId),
}

/// One value of a protocol's report: a counter, a gauge, or a gauge with nothing to
/// measure (a mean over no nodes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StatValue {
    Count(u64),
    Real(f64),
    Missing,
}

/// What a protocol reports at the end of a run, in its own names: one row of values per
/// node (the run's `routing` table) and totals over the nodes (the summary's `routing`
/// object, after its `kind`). The report writes them as they come, so a protocol's
/// counters need no code outside its module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProtocolStats {
    /// Its `routing.kind`.
    pub kind: &'static str,
    /// The name of each row's values, in order.
    pub columns: Vec<&'static str>,
    /// One row per node, by node id.
    pub rows: Vec<Vec<StatValue>>,
    /// Totals over the nodes, by name, in order.
    pub totals: Vec<(&'static str, StatValue)>,
}

impl ProtocolStats {
    /// A report of `kind` whose rows come from `per_node`'s named values (every row
    /// names the same columns in the same order).
    pub fn of_rows<I>(kind: &'static str, per_node: impl IntoIterator<Item = I>) -> Self
    where
        I: IntoIterator<Item = (&'static str, StatValue)>,
    {
        let mut stats = ProtocolStats {
            kind,
            ..ProtocolStats::default()
        };
        for named in per_node {
            let (names, row): (Vec<_>, Vec<_>) = named.into_iter().unzip();
            if stats.columns.is_empty() {
                stats.columns = names;
            }
            stats.rows.push(row);
        }
        stats
    }

    /// `node`'s value of `column`.
    pub fn value(&self, node: usize, column: &str) -> Option<StatValue> {
        let c = self.columns.iter().position(|&n| n == column)?;
        self.rows.get(node)?.get(c).copied()
    }

    /// `node`'s counter `column` (`None` for a gauge or an unknown name).
    pub fn count(&self, node: usize, column: &str) -> Option<u64> {
        match self.value(node, column)? {
            StatValue::Count(n) => Some(n),
            _ => None,
        }
    }

    /// The sum over the nodes of every counter column, in column order.
    pub fn summed_counts(&self) -> Vec<(&'static str, StatValue)> {
        let counts = |c: usize| {
            (self.rows.iter()).filter_map(move |row| match row.get(c) {
                Some(StatValue::Count(n)) => Some(*n),
                _ => None,
            })
        };
        (self.columns.iter().enumerate())
            .filter(|&(c, _)| counts(c).next().is_some())
            .map(|(c, &name)| (name, StatValue::Count(counts(c).sum())))
            .collect()
    }
}

/// A routing protocol: next hops, control traffic, link failures. The required core is
/// the control traffic and the timers; next hops default to the static table (a
/// proactive protocol keeps the table's rows, [`RoutingProtocol::update_routes`]), and
/// the link-feedback hooks do nothing by default.
pub trait RoutingProtocol: Any + Send {
    /// Arms the first timers (and may fill `table`), at time zero.
    fn start(&mut self, table: &mut RoutingTable, out: &mut Vec<RoutingAction>);

    /// A control packet `pkt` from neighbour `from` reached `node`.
    fn on_control(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        now: Time,
        out: &mut Vec<RoutingAction>,
    );

    /// A timer armed by [`RoutingAction::Arm`] fired.
    fn on_timer(
        &mut self,
        node: NodeId,
        timer: RoutingTimer,
        now: Time,
        out: &mut Vec<RoutingAction>,
    );

    /// Queues the control packet `pkt` of `node` for neighbour `to`, ready after `delay`
    /// (`None`: the protocol's jitter). Returns the delay, or `None` when the packet was
    /// refused (the protocol counts the loss).
    fn queue_control(
        &mut self,
        node: NodeId,
        pkt: Packet,
        to: NodeId,
        delay: Option<Time>,
        now: Time,
    ) -> Option<Time>;

    /// The first control packet of `node` due at `now`, for its MAC.
    fn pop_control(&mut self, node: NodeId, now: Time) -> Option<Dequeued>;

    /// The next hop of `node` for data packet `pkt`, received from `prev` (`node`:
    /// generated here); a protocol may refresh the route it uses.
    fn next_hop(
        &mut self,
        node: NodeId,
        pkt: &Packet,
        _prev: NodeId,
        _now: Time,
        table: &RoutingTable,
    ) -> Option<NodeId> {
        table.next_hop(node, pkt.dst)
    }

    /// The next hop of `node` towards `dst`, changing nothing.
    fn peek_next_hop(
        &self,
        node: NodeId,
        dst: NodeId,
        _now: Time,
        table: &RoutingTable,
    ) -> Option<NodeId> {
        table.next_hop(node, dst)
    }

    /// `node` has no next hop for `pkt`, received from `prev`: dropped by default.
    fn no_route(
        &mut self,
        node: NodeId,
        _prev: NodeId,
        pkt: Packet,
        _now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        out.push(RoutingAction::Drop {
            node,
            reason: DropReason::NoRoute,
            pkt,
        });
    }

    /// Carries out a [`RoutingAction::Resume`].
    fn resume(&mut self, _node: NodeId, _step: u64, _now: Time, _out: &mut Vec<RoutingAction>) {}

    /// Recalculates `node`'s row of `table`; true when it changed.
    fn update_routes(&mut self, _node: NodeId, _now: Time, _table: &mut RoutingTable) -> bool {
        false
    }

    /// Whether a saturating source at `node` should offer a packet for `dst` now.
    fn source_may_send(&self, _node: NodeId, _dst: NodeId, _table: &RoutingTable) -> bool {
        true
    }

    /// A data packet `pkt` that `node` relays for `prev` left its queue
    /// ([`RoutingAction::Unqueue`]): the protocol keeps it (`None`) or hands it back,
    /// and the world drops it as [`DropReason::LinkBroken`].
    fn relay_unqueued(
        &mut self,
        _node: NodeId,
        _prev: NodeId,
        pkt: Packet,
        _now: Time,
        _out: &mut Vec<RoutingAction>,
    ) -> Option<Packet> {
        Some(pkt)
    }

    /// `node` received or overheard a frame from neighbour `from`.
    fn on_heard(&mut self, _node: NodeId, _from: NodeId, _now: Time) {}

    /// A data packet from neighbour `from` reached its destination `node`.
    fn on_delivered(&mut self, _node: NodeId, _from: NodeId, _pkt: &Packet, _now: Time) {}

    /// `node`'s MAC gave up on a unicast frame to `next`.
    fn on_tx_failed(
        &mut self,
        _node: NodeId,
        _next: NodeId,
        _now: Time,
        _out: &mut Vec<RoutingAction>,
    ) {
    }

    /// A data frame `node` sent (relayed or generated) reached the MAC retry limit and
    /// was dropped.
    fn on_relay_failed(
        &mut self,
        _node: NodeId,
        _pkt: &Packet,
        _now: Time,
        _out: &mut Vec<RoutingAction>,
    ) {
    }

    /// A control packet of `node` was lost by the MAC.
    fn on_control_lost(&mut self, _node: NodeId) {}

    /// Data packets the protocol holds (they count as in flight).
    fn waiting(&self) -> usize {
        0
    }

    /// Its counters, with the gauges of the state at `now`, for the run's report; `None`
    /// (the default): nothing to report.
    fn stats(&mut self, _now: Time, _table: &RoutingTable) -> Option<ProtocolStats> {
        None
    }
}

impl dyn RoutingProtocol {
    /// The protocol as its concrete type, for tests and reports that look inside it.
    pub fn downcast_ref<T: RoutingProtocol>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

/// The packets an [`RoutingAction::Unqueue`] took, until their hand-back.
pub type Unqueued = Vec<Queued>;
