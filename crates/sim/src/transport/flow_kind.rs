//! What a flow is, as the core builds it (`[[flow]] kind`): an end-to-end transport,
//! made here as the flow's [`FlowEndpoint`], or a flow a network-layer scheme carries
//! (`net::scheme`), which the scheme builds from its flows' settings. The endpoints are
//! held as one enum, [`AnyEndpoint`], so that the world's per-packet calls (a greedy
//! source's `fill`, an arrival) dispatch statically (STYLE.md: a trait for the contract,
//! an enum over the implementations on hot paths).

use crate::app::UdpRate;
use crate::ids::{FlowId, NodeId};
use crate::metrics::Metrics;
use crate::net::scheme::NetFlowConfig;
use crate::net::{DropReason, Packet};
use crate::transport::endpoint::{EndpointIo, FlowEndpoint};
use crate::transport::report::{TransportReports, TransportStats, TransportTableSpec};
use crate::transport::tcp::{TcpFlow, TcpFlowConfig, TcpFlowStats};
use crate::transport::tfrc::{TfrcFlow, TfrcFlowConfig, TfrcFlowStats};
use crate::transport::udp::UdpFlow;
use airqueue_kernel::Time;

#[derive(Clone, Debug, PartialEq)]
pub enum FlowKindConfig {
    /// A UDP source, CBR or saturating (`app::udp`); its packets count where they
    /// arrive.
    Udp(UdpRate),
    /// A TCP transfer from `src` to `dst`, window-limited (no application rate); ACKs
    /// travel back through the same queues and medium.
    Tcp(TcpFlowConfig),
    /// A TFRC flow (RFC 5348), or TFRC-ECN (seed 000) with `ecn`: rate-paced, unreliable;
    /// feedback reports travel back through the same queues and medium. Runs without
    /// DiffQ rate control (`FlowConfig::cc` is ignored).
    Tfrc(TfrcFlowConfig),
    /// A flow carried end to end by a network-layer scheme with packets of its own
    /// (`net::scheme`), which [`crate::net::scheme::build`] makes from its flows' settings.
    Net(NetFlowConfig),
}

/// The tables of the transports that report per flow, in the order the run's report
/// lists them; each transport declares its own.
pub static TRANSPORT_TABLES: &[&TransportTableSpec] = &[TcpFlowStats::TABLE, TfrcFlowStats::TABLE];

/// What a flow's endpoint is made from besides its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndpointSetup {
    /// The flow's payload per packet (`[[flow]] packet_size`).
    pub payload_bytes: u32,
    /// The flow's window, `[start, stop)`.
    pub start: Time,
    pub stop: Time,
    /// The end of the run.
    pub run_end: Time,
    /// A source rate controller (`[[flow]] cc`) is configured for the flow.
    pub paced: bool,
}

impl FlowKindConfig {
    /// The flow's end-to-end transport; `None` for a network-layer scheme's flow.
    pub(crate) fn endpoint(&self, setup: &EndpointSetup) -> Option<AnyEndpoint> {
        let payload = setup.payload_bytes;
        Some(match self {
            FlowKindConfig::Udp(rate) => {
                let window = (setup.start, setup.stop);
                let udp = UdpFlow::new(*rate, payload, window, setup.run_end);
                AnyEndpoint::Udp(udp.paced(setup.paced))
            }
            FlowKindConfig::Tcp(tcp) => {
                AnyEndpoint::Tcp(Box::new(TcpFlow::new(tcp, payload, setup.paced)))
            }
            FlowKindConfig::Tfrc(tfrc) => AnyEndpoint::Tfrc(Box::new(TfrcFlow::new(tfrc, payload))),
            FlowKindConfig::Net(_) => return None,
        })
    }
}

/// A flow's endpoint, one of the built-in transports.
#[derive(Debug)]
pub(crate) enum AnyEndpoint {
    Udp(UdpFlow),
    Tcp(Box<TcpFlow>),
    Tfrc(Box<TfrcFlow>),
}

/// Calls the same method on whichever endpoint it is.
macro_rules! each {
    ($self:ident, $ep:ident => $call:expr) => {
        match $self {
            AnyEndpoint::Udp($ep) => $call,
            AnyEndpoint::Tcp($ep) => $call,
            AnyEndpoint::Tfrc($ep) => $call,
        }
    };
}

impl FlowEndpoint for AnyEndpoint {
    #[inline]
    fn timer_slots(&self) -> u8 {
        each!(self, ep => ep.timer_slots())
    }

    fn name(&self) -> &'static str {
        each!(self, ep => ep.name())
    }

    #[inline]
    fn session(&self) -> bool {
        each!(self, ep => ep.session())
    }

    #[inline]
    fn greedy(&self) -> bool {
        each!(self, ep => ep.greedy())
    }

    #[inline]
    fn fill(&mut self, io: &mut EndpointIo) -> bool {
        each!(self, ep => ep.fill(io))
    }

    #[inline]
    fn rate_cap_bps(&self) -> Option<f64> {
        each!(self, ep => ep.rate_cap_bps())
    }

    #[inline]
    fn takes_pacer(&self) -> bool {
        each!(self, ep => ep.takes_pacer())
    }

    fn start(&mut self, io: &mut EndpointIo) {
        each!(self, ep => ep.start(io))
    }

    fn stop(&mut self, io: &mut EndpointIo) {
        each!(self, ep => ep.stop(io))
    }

    #[inline]
    fn on_timer(&mut self, slot: u8, io: &mut EndpointIo) {
        each!(self, ep => ep.on_timer(slot, io))
    }

    #[inline]
    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, io: &mut EndpointIo) {
        each!(self, ep => ep.on_arrival(node, pkt, io))
    }

    #[inline]
    fn on_pace(&mut self, io: &mut EndpointIo) -> bool {
        each!(self, ep => ep.on_pace(io))
    }

    #[inline]
    fn on_source_drop(&mut self, pkt: &Packet, reason: DropReason) {
        each!(self, ep => ep.on_source_drop(pkt, reason))
    }

    #[inline]
    fn acked_pkts(&self) -> Option<u64> {
        each!(self, ep => ep.acked_pkts())
    }

    fn sample(&self, flow: FlowId, now: Time, metrics: &mut Metrics) {
        each!(self, ep => ep.sample(flow, now, metrics))
    }

    fn report(&self, flow: FlowId, reports: &mut TransportReports) {
        each!(self, ep => ep.report(flow, reports))
    }
}
