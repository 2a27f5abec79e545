//! MORE: opportunistic routing with intra-flow network coding (Chachulski, Jennings,
//! Katti, Katabi, SIGCOMM 2007), the multi-path protocol seed 000 runs under DiffQ
//! (sections 2, 4.2 and 6.2).
//!
//! One job per module: GF(2^8) arithmetic (`gf256`), a node's knowledge of a batch
//! (`basis`), headers and the code-vector arena (`wire`), forwarder selection and TX
//! credits (`credits`), the source, forwarder and destination state machines
//! (`state`), the user-space process of each node when it has a cost (`process`), and
//! the flows at every node behind the world's network-layer scheme
//! extension point (`scheme`: [`MoreNet`], a `net::scheme::NetScheme`).

pub mod basis;
pub mod credits;
pub mod gf256;
pub mod process;
pub mod scheme;
pub mod state;
pub mod wire;

pub use basis::{Basis, Coeffs, MAX_BATCH};
pub use credits::{plan, MorePlan, PlannedForwarder};
pub use scheme::MoreNet;
pub use state::{DestinationArrival, ForwarderArrival, MoreDestination, MoreForwarder, MoreSource};
pub use wire::{CoeffArena, CoeffHandle, MoreAck, MoreData};

use crate::net::scheme::NetFlowConfig;
use crate::qdisc::registry::{Fallback, Key, KeyValue, Params, Range};
use crate::transport::flow_kind::{
    never_keeps_queue_full, FlowBuildContext, FlowKindConfig, FlowKindScheme,
};
use airqueue_kernel::Time;

/// `[[flow]] kind = "more"`: MORE (seed 000, section 2), carried by the network-layer
/// scheme [`MoreNet`]. Its keys: `batch` (default 32, MORE's K), packets per batch,
/// 1..=32; `send_cost` and `receive_cost` (default 0: none), `receive_buffer` and
/// `process_acks`, the user-space process of seed 000's testbed (`process`). It
/// broadcasts on the 802.11 channel from each node's FIFO (drop-tail) unless DiffQ paces
/// it (`cc = "diffq"`: DiffQ-MORE), and sends its batch ACKs over the static routes.
pub static FLOW_KIND: FlowKindScheme = FlowKindScheme {
    name: "more",
    summary: "MORE (Chachulski et al., SIGCOMM 2007): opportunistic routing with \
              intra-flow network coding, batches of `batch` coded packets",
    keys: &[
        Key {
            name: "batch",
            doc: "packets per batch K (MORE's is 32)",
            value: KeyValue::Count {
                default: 32,
                min: 1,
                max: MAX_BATCH as u64,
                expected: "an integer number of packets in 1..=32 (MORE's K is 32)",
            },
        },
        Key {
            name: "send_cost",
            doc: "seconds of a node's processor per coded packet MORE's user-space process \
              makes there to send (seed 000, 6.1: coding and a system call); one process \
              per node serves its work in turn. 0 (default): none, as in a kernel \
              implementation",
            value: KeyValue::Real {
                default: Fallback::Value(0.0),
                range: Range::closed(0.0, 0.1),
                expected: "a number of seconds in [0, 0.1] (0: no cost)",
            },
        },
        Key {
            name: "receive_cost",
            doc: "seconds of a node's processor per coded packet a forwarder or the \
              destination takes up to MORE's user-space process (seed 000, 6.1: a context \
              switch, a system call, coding). 0 (default): none",
            value: KeyValue::Real {
                default: Fallback::Value(0.0),
                range: Range::closed(0.0, 0.1),
                expected: "a number of seconds in [0, 0.1] (0: no cost)",
            },
        },
        Key {
            name: "receive_buffer",
            doc: "with a send or receive cost: packets the process's socket may hold \
              waiting to go up (a reception finding it full is lost); default 50, about \
              Linux's default socket receive buffer of about 100 KB in 2 KB buffers of \
              1,500-byte frames",
            value: KeyValue::Count {
                default: 50,
                min: 1,
                max: 100_000,
                expected: "an integer number of packets in 1..=100000",
            },
        },
        Key {
            name: "process_acks",
            doc: "with a send or receive cost: batch ACKs go up to the process at every hop \
              as well (seed 000, 6.1: \"MORE packets are delivered to the application at \
              every hop\"), each a job of `receive_cost` that waits its turn behind the \
              work already queued, outside the socket buffer's limit; false (default): \
              they pass at kernel speed",
            value: KeyValue::Bool { default: false },
        },
    ],
    resolved_names: &[],
    takes_cc: true,
    keeps_queue_full: never_keeps_queue_full,
    unpaced_queue: Some((
        &crate::qdisc::droptail::SCHEME,
        "\"more\" broadcasts its coded packets from each node's FIFO (seed 000, section 2); \
         set queue.kind = \"droptail\", or cc = \"diffq\" with queue.kind = \"diffq\" for \
         DiffQ-MORE",
    )),
    needs_radio_everywhere: Some(
        "\"more\" broadcasts over the 802.11 channel: set medium.kind = \"wifi\" with a \
         topology whose nodes all have radios (not \"bss\")",
    ),
    needs_static_routes: Some(
        "\"more\" sends its batch ACKs over the static routes (MORE: the shortest ETX \
         path); set routing.kind = \"static\" (with metric = \"etx\")",
    ),
    build: build_more,
};

/// The flow's batch size, and its forwarders and TX credits planned from the delivery
/// ratios of broadcasts (MORE, 4.4).
fn build_more(p: &Params, cx: &FlowBuildContext<'_>) -> FlowKindConfig {
    FlowKindConfig::Net(NetFlowConfig::More(MoreFlowConfig {
        batch: p.integer("batch") as u8,
        send_cost: Time::from_secs_f64(p.real("send_cost")),
        receive_cost: Time::from_secs_f64(p.real("receive_cost")),
        receive_buffer: p.integer("receive_buffer") as u32,
        process_acks: p.flag("process_acks"),
        plan: plan(cx.node_count, cx.src, cx.dst, cx.delivery),
    }))
}

/// A MORE flow as the core sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoreFlowConfig {
    /// Batch size K (MORE: 32), at most [`MAX_BATCH`].
    pub batch: u8,
    /// Processor time per coded packet a node's user-space process (`process`) makes to
    /// send, and per one it receives; both zero: no process.
    pub send_cost: Time,
    pub receive_cost: Time,
    /// Receptions the process's socket holds waiting (with a cost).
    pub receive_buffer: u32,
    /// With a cost: batch ACKs go up to the process at every hop too, in turn.
    pub process_acks: bool,
    /// Forwarders and TX credits ([`plan`]).
    pub plan: MorePlan,
}

/// What a MORE flow did over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoreFlowStats {
    /// Batches the destination decoded (goodput = batches x K x packet size).
    pub batches_decoded: u64,
    /// Coded packets the source broadcast.
    pub source_sent: u64,
    /// Coded packets the forwarders broadcast.
    pub forwarder_sent: u64,
    /// Receptions at forwarders that were innovative / not (older batch included).
    pub forwarder_innovative: u64,
    pub forwarder_redundant: u64,
    /// Receptions at the destination that were innovative / not (decoded batches
    /// included).
    pub destination_innovative: u64,
    pub destination_redundant: u64,
    /// Queued transmissions a forwarder had nothing to fill with when the MAC took them
    /// (its batch was flushed meanwhile); dropped as `coding_redundancy`.
    pub stale_credits: u64,
    /// Batch ACKs the destination sent (one per decoded batch) and the source received.
    pub acks_sent: u64,
    pub acks_received: u64,
    /// Receptions a forwarder's or the destination's user-space process lost to a full
    /// socket buffer (`process`).
    pub receive_overflow: u64,
    /// The flow's forwarders with their TX credits.
    pub forwarders: Vec<(crate::ids::NodeId, f64)>,
}
