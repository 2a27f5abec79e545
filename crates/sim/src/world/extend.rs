//! Extension points a caller fills after building a world and before running it: the
//! queue discipline of a node's radio interface, and the rate controller of a flow that
//! has one. The Python bindings (`crates/py`) put Python-written schemes there; the
//! world itself never knows where a discipline or controller comes from. A caller (a
//! test, a trace) reads a radio discipline back between two `run_until`s.

use super::World;
use crate::ids::{FlowId, NodeId};
use crate::qdisc::{Qdisc, QueueDiscipline};
use crate::transport::RateController;

impl World {
    /// Whether `node` has an 802.11 interface (and so a radio queue discipline).
    pub fn has_radio(&self, node: NodeId) -> bool {
        self.wifi
            .as_ref()
            .is_some_and(|w| node.index() < w.qdiscs.len() && w.net.has_radio(node))
    }

    /// Replaces the queue discipline of `node`'s radio interface with `q`; returns it back
    /// when the node has no radio. Call before the first `run_until`: a discipline
    /// replaced later would lose the packets it holds.
    pub fn set_radio_qdisc(&mut self, node: NodeId, q: Qdisc) -> Result<(), Qdisc> {
        if !self.has_radio(node) {
            return Err(q);
        }
        match &mut self.wifi {
            Some(w) => {
                self.head_drops |= q.drops_at_head();
                w.qdiscs[node.index()] = q;
                Ok(())
            }
            None => Err(q),
        }
    }

    /// The queue discipline of `node`'s radio interface, if it has one (`downcast_ref`
    /// reaches its concrete type).
    pub fn radio_qdisc(&self, node: NodeId) -> Option<&dyn QueueDiscipline> {
        if !self.has_radio(node) {
            return None;
        }
        Some(self.wifi.as_ref()?.qdiscs[node.index()].as_ref())
    }

    /// On the wifi medium: the length of `node`'s queue for `dst` (a per-destination
    /// discipline's queue for it; a FIFO's whole length).
    pub fn queue_len_for(&self, node: NodeId, dst: NodeId) -> Option<usize> {
        let qdiscs = &self.wifi.as_ref()?.qdiscs;
        Some(qdiscs.get(node.index())?.queue_len_for(dst))
    }

    /// Whether flow `f` takes its rate controller from the caller: its scheme has no
    /// `build` (`cc = "external"`, [`crate::transport::rate::EXTERNAL`]).
    pub fn wants_pacer(&self, f: FlowId) -> bool {
        (self.flows.get(f.index()))
            .and_then(|fl| fl.cc)
            .is_some_and(|cc| cc.build.is_none())
    }

    /// The flows that want a controller from the caller and have none yet.
    pub fn missing_pacers(&self) -> impl Iterator<Item = FlowId> + '_ {
        (0..self.flows.len())
            .map(|i| FlowId(i as u32))
            .filter(|&f| self.wants_pacer(f) && self.flows[f.index()].pacer.is_none())
    }

    /// Gives flow `f`, which wants one ([`World::wants_pacer`]), its rate controller
    /// `c` (before the first `run_until`); returns it back for any other flow.
    pub fn set_pacer(
        &mut self,
        f: FlowId,
        c: Box<dyn RateController>,
    ) -> Result<(), Box<dyn RateController>> {
        if !self.wants_pacer(f) {
            return Err(c);
        }
        self.flows[f.index()].pacer = Some(c);
        Ok(())
    }

    /// Nodes in the run.
    pub fn node_count(&self) -> usize {
        self.node_count
    }

    /// Flows in the run.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// Source and destination of flow `f`.
    pub fn flow_ends(&self, f: FlowId) -> Option<(NodeId, NodeId)> {
        self.flows.get(f.index()).map(|fl| (fl.src, fl.dst))
    }
}
