//! What a flow is, as the core builds it (`[[flow]] kind`): an end-to-end transport,
//! made here as the flow's [`FlowEndpoint`], or a flow a network-layer scheme carries
//! (`net::scheme`), which the scheme builds from its flows' settings.

use crate::app::UdpRate;
use crate::net::scheme::NetFlowConfig;
use crate::transport::endpoint::FlowEndpoint;
use crate::transport::tcp::{TcpFlow, TcpFlowConfig};
use crate::transport::tfrc::{TfrcFlow, TfrcFlowConfig};
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
    pub fn endpoint(&self, setup: &EndpointSetup) -> Option<Box<dyn FlowEndpoint>> {
        let payload = setup.payload_bytes;
        Some(match self {
            FlowKindConfig::Udp(rate) => {
                let window = (setup.start, setup.stop);
                Box::new(UdpFlow::new(*rate, payload, window, setup.run_end).paced(setup.paced))
            }
            FlowKindConfig::Tcp(tcp) => Box::new(TcpFlow::new(tcp, payload, setup.paced)),
            FlowKindConfig::Tfrc(tfrc) => Box::new(TfrcFlow::new(tfrc, payload)),
            FlowKindConfig::Net(_) => return None,
        })
    }
}
