//! What a flow is, as the core builds it (`[[flow]] kind`): an end-to-end transport,
//! made here as the flow's [`FlowEndpoint`], or a flow a network-layer scheme carries
//! (`net::scheme`), which the scheme builds from its flows' settings. The endpoints are
//! held as one enum, [`AnyEndpoint`], so that the world's per-packet calls (a greedy
//! source's `fill`, an arrival) dispatch statically (STYLE.md: a trait for the contract,
//! an enum over the implementations on hot paths).
//!
//! Each kind declares its own `[[flow]]` keys in its module, as a [`FlowKindScheme`]
//! (keys with defaults and ranges, what the scenario reader checks across sections, and
//! how to build the kind's [`FlowKindConfig`]), and [`FLOW_KINDS`] lists them.

use crate::app::UdpRate;
use crate::ids::{FlowId, NodeId};
use crate::metrics::Metrics;
use crate::net::scheme::NetFlowConfig;
use crate::net::{DropReason, Packet};
use crate::qdisc::registry::{Key, Params, Scheme};
use crate::transport::endpoint::{EndpointIo, FlowEndpoint};
use crate::transport::report::{TransportReports, TransportStats, TransportTableSpec};
use crate::transport::tcp::{TcpFlow, TcpFlowConfig, TcpFlowStats};
use crate::transport::tfrc::{TfrcFlow, TfrcFlowConfig, TfrcFlowStats};
use crate::transport::udp::UdpFlow;
use airqueue_kernel::Time;

/// Every `[[flow]] kind`, in the order the reader lists them. The first (UDP, with the
/// one required key) is also the kind whose keys the reader checks when a flow's kind is
/// missing or invalid.
pub static FLOW_KINDS: &[&FlowKindScheme] = &[
    &super::udp::FLOW_KIND,
    &super::tcp::FLOW_KIND,
    &super::tfrc::FLOW_KIND,
    &crate::net::more::FLOW_KIND,
];

/// The flow kind named `kind`, if it is registered.
pub fn flow_kind(kind: &str) -> Option<&'static FlowKindScheme> {
    FLOW_KINDS.iter().copied().find(|s| s.name == kind)
}

/// A registered flow kind: its `[[flow]]` keys and how a flow of it is built. The keys
/// every flow has (`src`, `dst`, `start`, `stop`, `packet_size`, `priority`, `cc`) are
/// the reader's.
#[derive(Debug)]
pub struct FlowKindScheme {
    /// Its `[[flow]] kind`.
    pub name: &'static str,
    /// One line: what it is and where it is specified.
    pub summary: &'static str,
    /// Its own `[[flow]]` keys.
    pub keys: &'static [Key],
    /// Keys whose name in the resolved scenario differs from the file's, as (file,
    /// resolved).
    pub resolved_names: &'static [(&'static str, &'static str)],
    /// Whether a source rate controller (`[[flow]] cc`) may pace it (TFRC sets its own
    /// rate).
    pub takes_cc: bool,
    /// The key whose value makes the source keep its first queue full (UDP's `rate =
    /// "saturate"`), if it does: an active queue manager refuses such a source.
    pub keeps_queue_full: fn(&Params) -> Option<&'static str>,
    /// The queue discipline it needs when no rate controller paces it, and the message
    /// at `kind` under another (MORE's FIFO).
    pub unpaced_queue: Option<(&'static Scheme, &'static str)>,
    /// It broadcasts on the 802.11 channel: the message at `kind` on another medium or
    /// where some node has no radio.
    pub needs_radio_everywhere: Option<&'static str>,
    /// It answers over the static routes: the message at `kind` under a routing
    /// protocol.
    pub needs_static_routes: Option<&'static str>,
    /// The flow's configuration, from its keys (checked).
    pub build: fn(&Params, &FlowBuildContext<'_>) -> FlowKindConfig,
}

/// Kinds are one per name.
impl PartialEq for FlowKindScheme {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for FlowKindScheme {}

impl FlowKindScheme {
    /// Every key at its default (a required key stays unset).
    pub fn defaults(&self) -> Params {
        Params::of_keys(self.keys.iter().collect())
    }

    /// `key`'s name in the resolved scenario.
    pub fn resolved_name(&self, key: &'static str) -> &'static str {
        let renamed = self.resolved_names.iter().find(|(file, _)| *file == key);
        renamed.map_or(key, |(_, resolved)| resolved)
    }
}

/// What a flow is built from besides its kind's keys.
pub struct FlowBuildContext<'a> {
    pub src: NodeId,
    pub dst: NodeId,
    pub node_count: usize,
    /// `[tcp]`'s settings, which a TCP flow completes with its own keys.
    pub tcp: &'a TcpFlowConfig,
    /// The share of `a`'s broadcasts that `b` receives (0 when it does not hear `a`), at
    /// the basic rate: what a coded broadcast's forwarders are planned from.
    pub delivery: &'a dyn Fn(NodeId, NodeId) -> f64,
}

/// Never a source that keeps its queue full.
pub fn never_keeps_queue_full(_: &Params) -> Option<&'static str> {
    None
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::registry::assert_sound;

    #[test]
    fn names_are_unique_and_every_kind_builds_from_its_keys() {
        let tcp = TcpFlowConfig::new(crate::transport::TcpVariant::NewReno);
        let delivery = |a: NodeId, b: NodeId| if a.0.abs_diff(b.0) == 1 { 0.9 } else { 0.0 };
        let cx = FlowBuildContext {
            src: NodeId(0),
            dst: NodeId(2),
            node_count: 3,
            tcp: &tcp,
            delivery: &delivery,
        };
        for (i, s) in FLOW_KINDS.iter().enumerate() {
            assert!(
                FLOW_KINDS[..i].iter().all(|o| o.name != s.name),
                "{}",
                s.name
            );
            assert_eq!(flow_kind(s.name), Some(*s));
            assert!(!s.summary.is_empty());
            s.keys.iter().for_each(assert_sound);
            for (file, _) in s.resolved_names {
                assert!(s.keys.iter().any(|k| k.name == *file), "{}.{file}", s.name);
            }
            let mut p = s.defaults();
            if s.keys.iter().any(|k| k.name == "rate") {
                assert!(!p.is_complete(), "rate is required");
                p.set("rate", 1e6);
            }
            assert!(p.is_complete(), "{}", s.name);
            let built = (s.build)(&p, &cx);
            let endpoint = built.endpoint(&EndpointSetup {
                payload_bytes: 1000,
                start: Time::ZERO,
                stop: Time::from_secs_f64(1.0),
                run_end: Time::from_secs_f64(1.0),
                paced: false,
            });
            assert_eq!(endpoint.is_none(), matches!(built, FlowKindConfig::Net(_)));
        }
    }

    #[test]
    fn a_saturating_udp_source_keeps_its_queue_full() {
        let tcp = TcpFlowConfig::new(crate::transport::TcpVariant::Sack);
        let cx = FlowBuildContext {
            src: NodeId(0),
            dst: NodeId(1),
            node_count: 2,
            tcp: &tcp,
            delivery: &|_, _| 1.0,
        };
        let udp = flow_kind("udp").unwrap();
        let mut p = udp.defaults();
        p.set("rate", f64::INFINITY);
        assert_eq!((udp.keeps_queue_full)(&p), Some("rate"));
        let saturate = FlowKindConfig::Udp(UdpRate::Saturate);
        assert_eq!((udp.build)(&p, &cx), saturate);
        p.set("rate", 1e6);
        assert_eq!((udp.keeps_queue_full)(&p), None);
    }
}
