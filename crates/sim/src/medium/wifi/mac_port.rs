//! The MAC's port to the layer above: [`Mac`], the one type the world holds for the
//! 802.11 medium, whichever channel access the scenario chose. The world pulls and
//! pushes through it (`wants_frame`, `push_frame`), hands it the medium's events
//! (`handle`) and drains what it reports (`out_mut`, a list of [`WifiOutput`]s).

use super::channel::Channel;
use super::config::{Access, WifiConfig};
use super::mac::{MacStats, WifiEvent, WifiNet, WifiOutput};
use super::tdma::TdmaNet;
use crate::ids::NodeId;
use crate::medium::port::Dequeued;
use crate::net::Packet;
use airqueue_kernel::{EventQueue, Time};
use airqueue_phy::DsssRate;

/// Every station's MAC over one channel: DCF/EDCA contention or a TDMA schedule
/// (`WifiConfig::access`). Static dispatch: each call is one match.
pub enum Mac {
    Contention(WifiNet),
    Tdma(TdmaNet),
}

/// Calls the same method on whichever MAC this is.
macro_rules! each {
    ($self:expr, $net:ident => $body:expr) => {
        match $self {
            Mac::Contention($net) => $body,
            Mac::Tdma($net) => $body,
        }
    };
}

impl Mac {
    /// The MAC `cfg.access` asks for, over the radios of the nodes for which `radio`
    /// holds (see [`WifiNet::with_radios`]).
    pub fn with_radios(
        cfg: WifiConfig,
        positions: &[[f64; 2]],
        radio: impl Fn(NodeId) -> bool,
        seed: u64,
        loss: impl Fn(NodeId, NodeId) -> f64,
    ) -> Self {
        match cfg.access {
            Access::Contention => {
                Mac::Contention(WifiNet::with_radios(cfg, positions, radio, seed, loss))
            }
            Access::Tdma { .. } => {
                Mac::Tdma(TdmaNet::with_radios(cfg, positions, radio, seed, loss))
            }
        }
    }

    pub fn config(&self) -> &WifiConfig {
        each!(self, n => n.config())
    }

    #[inline]
    pub fn has_radio(&self, node: NodeId) -> bool {
        each!(self, n => n.has_radio(node))
    }

    pub fn stats(&self, node: NodeId) -> MacStats {
        each!(self, n => n.stats(node))
    }

    pub fn link_rate(&self, from: NodeId, to: NodeId) -> DsssRate {
        each!(self, n => n.link_rate(from, to))
    }

    pub fn set_link_rates(&mut self, nodes: &[NodeId], rate: DsssRate) {
        each!(self, n => n.set_link_rates(nodes, rate))
    }

    /// The channel both MACs share (scheduled moves change its link budgets).
    pub fn channel_mut(&mut self) -> &mut Channel {
        each!(self, n => &mut n.channel)
    }

    #[inline]
    pub fn wants_frame(&self, node: NodeId) -> bool {
        each!(self, n => n.wants_frame(node))
    }

    pub fn push_frame<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        d: Dequeued,
        q: &mut EventQueue<E>,
    ) {
        each!(self, n => n.push_frame(node, d, q))
    }

    pub fn handle<E: From<WifiEvent>>(&mut self, ev: WifiEvent, q: &mut EventQueue<E>) {
        each!(self, n => n.handle(ev, q))
    }

    /// What the MAC reported since the world last drained it.
    #[inline]
    pub fn out_mut(&mut self) -> &mut Vec<WifiOutput> {
        each!(self, n => &mut n.out)
    }

    /// Every packet in the MAC buffers (end-of-run checks).
    pub fn buffered_packets(&self) -> impl Iterator<Item = &Packet> {
        let (dcf, tdma) = match self {
            Mac::Contention(n) => (Some(n.buffered_packets()), None),
            Mac::Tdma(n) => (None, Some(n.buffered_packets())),
        };
        dcf.into_iter().flatten().chain(tdma.into_iter().flatten())
    }

    /// Data packets held by the MACs that no next hop has accepted yet.
    pub fn in_flight(&self) -> usize {
        each!(self, n => n.in_flight())
    }

    pub fn close_stats(&mut self, now: Time) {
        each!(self, n => n.close_stats(now))
    }
}
