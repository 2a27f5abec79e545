//! A UDP flow in the world: the application's datagram source (`app::udp`: CBR or
//! saturating) at the flow's source, its packets counted as delivered where they arrive.
//!
//! It runs as a [`FlowEndpoint`] that is no session (nothing answers, and the source
//! keeps to its own window): a CBR source sends on its timer slot, packet `k` at
//! `start + k * interval`; a saturating one is greedy and sends when the world asks it
//! to fill its first queue ([`FlowEndpoint::fill`]); a paced one sends once per tick, a
//! CBR rate capping the pace ([`FlowEndpoint::rate_cap_bps`]).

use crate::app::{UdpRate, UdpSource};
use crate::ids::NodeId;
use crate::net::{Packet, TransportHeader};
use crate::qdisc::registry::{Key, KeyValue, Params};
use crate::transport::endpoint::{End, EndpointIo, FlowEndpoint};
use crate::transport::flow_kind::{FlowBuildContext, FlowKindConfig, FlowKindScheme};
use airqueue_kernel::Time;
use airqueue_tcp::TimerCmd;

/// `[[flow]] kind = "udp"`. Its one key, `rate` (required): the offered application bit
/// rate (payload only, CBR), or `"saturate"` for a source that always has a packet
/// waiting.
pub static FLOW_KIND: FlowKindScheme = FlowKindScheme {
    name: "udp",
    summary: "a UDP datagram source, CBR at `rate` or saturating",
    keys: &[Key {
        name: "rate",
        doc: "offered application bit/s (payload only), or \"saturate\" to keep the \
              source's first queue full",
        value: KeyValue::RateOrSaturate,
    }],
    resolved_names: &[],
    takes_cc: true,
    keeps_queue_full: saturating,
    unpaced_queue: None,
    needs_radio_everywhere: None,
    needs_static_routes: None,
    build: build_udp,
};

fn saturating(p: &Params) -> Option<&'static str> {
    (p.value("rate") == Some(f64::INFINITY)).then_some("rate")
}

fn build_udp(p: &Params, _: &FlowBuildContext<'_>) -> FlowKindConfig {
    FlowKindConfig::Udp(match p.rate_or_saturate("rate") {
        Some(rate_bps) => UdpRate::Cbr { rate_bps },
        None => UdpRate::Saturate,
    })
}

/// Timer slot of a CBR source: its next packet is due.
const CBR: u8 = 0;

/// The source of one UDP flow.
#[derive(Clone, Debug)]
pub(crate) struct UdpFlow {
    source: UdpSource,
    /// A source rate controller ticks it (`[[flow]] cc`): it sends only on ticks.
    paced: bool,
    /// The end of the run: no CBR packet is due from then on.
    run_end: Time,
}

impl UdpFlow {
    /// A source of `payload_bytes` datagrams sending within `[start, stop)` of a run
    /// that ends at `run_end`.
    pub fn new(rate: UdpRate, payload_bytes: u32, window: (Time, Time), run_end: Time) -> Self {
        let (start, stop) = window;
        UdpFlow {
            source: UdpSource::new(rate, payload_bytes, start, stop),
            paced: false,
            run_end,
        }
    }

    /// The same source under a source rate controller.
    pub fn paced(self, paced: bool) -> Self {
        UdpFlow { paced, ..self }
    }

    fn cbr(&self) -> bool {
        matches!(self.source.rate, UdpRate::Cbr { .. })
    }

    /// Sends the next datagram.
    fn send(&mut self, io: &mut EndpointIo) {
        let seq = self.source.take_seq();
        io.send(
            End::Source,
            seq,
            self.source.payload_bytes,
            TransportHeader::Udp,
        );
    }

    /// Arms the timer for the next CBR packet (numbered as the datagrams sent so far),
    /// unless it falls at or after the flow's stop or the run's end.
    fn arm_next(&self, io: &mut EndpointIo) {
        if let Some(at) = self.source.cbr_due(self.source.next_seq) {
            if at < self.source.stop && at < self.run_end {
                io.timer_after_sends(CBR, TimerCmd::Arm(at));
            }
        }
    }
}

impl FlowEndpoint for UdpFlow {
    fn timer_slots(&self) -> u8 {
        u8::from(self.cbr() && !self.paced)
    }

    fn name(&self) -> &'static str {
        "UDP source"
    }

    fn takes_pacer(&self) -> bool {
        true
    }

    fn session(&self) -> bool {
        false
    }

    fn greedy(&self) -> bool {
        self.source.rate == UdpRate::Saturate
    }

    /// A CBR source sends its first packet (a paced or saturating one waits to be
    /// asked).
    fn start(&mut self, io: &mut EndpointIo) {
        if self.cbr() && !self.paced {
            self.send(io);
            self.arm_next(io);
        }
    }

    fn on_timer(&mut self, slot: u8, io: &mut EndpointIo) {
        debug_assert_eq!(slot, CBR, "UDP has one timer");
        self.send(io);
        self.arm_next(io);
    }

    fn on_arrival(&mut self, _node: NodeId, pkt: &Packet, io: &mut EndpointIo) {
        if let TransportHeader::Udp = pkt.transport {
            io.delivered(pkt);
        }
    }

    fn on_pace(&mut self, io: &mut EndpointIo) -> bool {
        self.send(io);
        true
    }

    fn fill(&mut self, io: &mut EndpointIo) -> bool {
        let greedy = self.greedy();
        if greedy {
            self.send(io);
        }
        greedy
    }

    fn rate_cap_bps(&self) -> Option<f64> {
        match self.source.rate {
            UdpRate::Cbr { rate_bps } => Some(rate_bps),
            UdpRate::Saturate => None,
        }
    }
}
