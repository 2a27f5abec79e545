//! Point-to-point wired links: a medium of their own (`[medium] kind = "wired"`), and
//! the wired side of infrastructure scenarios (an access point's wired hosts).
//!
//! Each direction of a link is a [`WiredLink`] with its own bandwidth and propagation
//! delay (ns-2 duplex-link semantics); the queue discipline in front of it belongs to the
//! layer above, which hands it a packet when it is idle. A link transmits one packet at a time:
//! serialisation takes `size * 8 / bandwidth`, then the packet propagates for `delay`.
//! Because the delay is constant, packets arrive in the order they were sent, so the
//! packets on the wire sit in a FIFO and events need not carry them.

use crate::ids::{FlowId, LinkId, NodeId};
use crate::net::Packet;
use airqueue_kernel::Time;
use std::collections::VecDeque;

/// Counters of one link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Total serialisation time.
    pub busy: Time,
}

/// One direction of a point-to-point link.
#[derive(Debug)]
pub struct WiredLink {
    pub from: NodeId,
    pub to: NodeId,
    pub bandwidth_bps: f64,
    pub delay: Time,
    transmitting: Option<Packet>,
    propagating: VecDeque<Packet>,
    pub stats: LinkStats,
}

/// A transmission that just began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxStarted {
    /// When the last bit leaves the sender.
    pub ends: Time,
    pub flow: FlowId,
    pub src: NodeId,
}

impl WiredLink {
    pub fn new(from: NodeId, to: NodeId, bandwidth_bps: f64, delay: Time) -> Self {
        WiredLink {
            from,
            to,
            bandwidth_bps,
            delay,
            transmitting: None,
            propagating: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    pub fn is_busy(&self) -> bool {
        self.transmitting.is_some()
    }

    /// Starts sending `pkt`; the link must be idle.
    #[inline]
    pub fn start(&mut self, now: Time, pkt: Packet) -> TxStarted {
        debug_assert!(self.transmitting.is_none(), "a start on a busy link");
        let bytes = pkt.size_bytes();
        let tx = Time::for_bits(bytes as u64 * 8, self.bandwidth_bps);
        let started = TxStarted {
            ends: now + tx,
            flow: pkt.flow,
            src: pkt.src,
        };
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += bytes as u64;
        self.stats.busy += tx;
        self.transmitting = Some(pkt);
        started
    }

    /// The last bit has left: the packet starts propagating. Returns its arrival time.
    #[inline]
    pub fn finish_tx(&mut self, now: Time) -> Time {
        let pkt = self.transmitting.take().expect("tx end on an idle link");
        self.propagating.push_back(pkt);
        now + self.delay
    }

    /// The oldest propagating packet reaches the far end.
    #[inline]
    pub fn arrive(&mut self) -> Packet {
        self.propagating
            .pop_front()
            .expect("arrival on an empty link")
    }

    /// Packets on the wire or propagating (end-of-run accounting).
    pub fn in_flight(&self) -> usize {
        self.transmitting.is_some() as usize + self.propagating.len()
    }
}

/// All wired links, with each node's outgoing links for next-hop lookup.
#[derive(Debug, Default)]
pub struct WiredNet {
    pub links: Vec<WiredLink>,
    /// `out[node]`: (neighbour, link towards it), sorted by neighbour.
    out: Vec<Vec<(NodeId, LinkId)>>,
}

impl WiredNet {
    pub fn new(node_count: usize) -> Self {
        WiredNet {
            links: Vec::new(),
            out: vec![Vec::new(); node_count],
        }
    }

    /// Adds both directions of a link between `a` and `b`, `a` to `b` first (their ids
    /// are the next two).
    pub fn add_duplex(&mut self, a: NodeId, b: NodeId, bandwidth_bps: f64, delay: Time) {
        for (from, to) in [(a, b), (b, a)] {
            let id = LinkId(self.links.len() as u32);
            self.links
                .push(WiredLink::new(from, to, bandwidth_bps, delay));
            let out = &mut self.out[from.index()];
            out.push((to, id));
            out.sort_unstable();
        }
    }

    /// The link from `from` to its neighbour `to`, if they are linked.
    #[inline]
    pub fn link_to(&self, from: NodeId, to: NodeId) -> Option<LinkId> {
        let out = &self.out[from.index()];
        if out.len() <= 8 {
            return out.iter().find(|(n, _)| *n == to).map(|(_, l)| *l);
        }
        out.binary_search_by_key(&to, |(n, _)| *n)
            .ok()
            .map(|i| out[i].1)
    }

    /// Neighbours of `node` over wired links.
    pub fn neighbours(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.out[node.index()].iter().map(|(n, _)| *n)
    }

    /// Links leaving `node`.
    pub fn links_from(&self, node: NodeId) -> impl Iterator<Item = LinkId> + '_ {
        self.out[node.index()].iter().map(|(_, l)| *l)
    }
}
