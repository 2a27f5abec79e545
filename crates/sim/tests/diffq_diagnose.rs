//! The accounting that diagnoses DiffQ: drops of each flow's packets by node, reason
//! and whether the node is the packet's origin (`Metrics::flow_drops`), and MAC counters
//! per priority level (`MacStats::by_level`).
//!
//! ```text
//!   0 ---- 1 ---- 2 ---- 3 ---- 4      200 m apart, 250 m decode, 550 m carrier sense
//! ```
//!
//! Self-contained (no shared test helpers) so it does not depend on their layout.

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::medium::wifi::{WifiConfig, STATS_LEVELS};
use airqueue_sim::metrics::FlowDropKey;
use airqueue_sim::net::routing::GraphEdge;
use airqueue_sim::net::{DropReason, RoutingTable};
use airqueue_sim::qdisc::{diffq, droptail};
use airqueue_sim::{
    DiffqRateConfig, FlowConfig, FlowId, FlowKindConfig, MediumConfig, NodeId, RateUpdate,
    RegisteredQdisc, RegisteredRate, RunOutcome, World, WorldConfig,
};

const PAYLOAD: u32 = 1400;

fn chain(nodes: u32) -> Vec<[f64; 2]> {
    (0..nodes).map(|i| [i as f64 * 200.0, 0.0]).collect()
}

fn routing(positions: &[[f64; 2]]) -> RoutingTable {
    let graph: Vec<Vec<GraphEdge>> = positions
        .iter()
        .enumerate()
        .map(|(a, pa)| {
            positions
                .iter()
                .enumerate()
                .filter(|(b, pb)| *b != a && (pa[0] - pb[0]).hypot(pa[1] - pb[1]) <= 250.0)
                .map(|(b, _)| GraphEdge {
                    to: NodeId(b as u32),
                    cost: 1.0,
                })
                .collect()
        })
        .collect();
    RoutingTable::shortest_paths(&graph)
}

fn udp(src: u32, dst: u32, rate: UdpRate, cc: Option<RegisteredRate>, stop: Time) -> FlowConfig {
    FlowConfig {
        src: NodeId(src),
        dst: NodeId(dst),
        start: Time::ZERO,
        stop,
        payload_bytes: PAYLOAD,
        priority: 0,
        kind: FlowKindConfig::Udp(rate),
        cc,
    }
}

fn world(
    wifi: WifiConfig,
    qdisc: RegisteredQdisc,
    flows: Vec<FlowConfig>,
    secs: u64,
) -> RunOutcome {
    let positions = chain(5);
    let out = World::new(WorldConfig {
        seed: 1,
        duration: Time::from_secs(secs),
        warmup: Time::ZERO,
        bin: Time::from_secs(1),
        node_count: positions.len(),
        routing: routing(&positions),
        routing_protocol: None,
        positions,
        link_loss: vec![],
        medium: MediumConfig::Wifi(wifi),
        qdisc,
        flows,
    })
    .run();
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    out
}

fn sum(out: &RunOutcome, pick: impl Fn(&FlowDropKey) -> bool) -> u64 {
    out.metrics
        .flow_drops
        .iter()
        .filter(|(k, _)| pick(k))
        .map(|(_, n)| n)
        .sum()
}

/// DiffQ-UDP over four hops with short destination queues (D = 10) and a node buffer that
/// never binds: the relays overflow, the source does not (it only offers what its own
/// queue takes), and every drop is attributed to the flow at the node that counted it.
/// The source updates its rate once per packet: the default 10-ms clock keeps this
/// chain's relays from overflowing at all, and the bookkeeping needs some drops.
#[test]
fn flow_drops_tell_relay_overflows_from_drops_at_the_source() {
    let mut wifi = WifiConfig::dsss_default();
    wifi.levels = airqueue_phy::edca::diffq8().to_vec();
    let qdisc = diffq::config(1000, 10);
    let stop = Time::from_secs(20);
    let cc = Some(
        DiffqRateConfig {
            queue_threshold_pkts: 5,
            update: RateUpdate::PerPacket,
            ..DiffqRateConfig::aimd()
        }
        .registered(),
    );
    let out = world(
        wifi,
        qdisc,
        vec![udp(0, 4, UdpRate::Saturate, cc, stop)],
        20,
    );
    let m = &out.metrics;
    let all: u64 = m.flow_drops.values().sum();
    assert_eq!(
        all, m.dropped,
        "every drop is a flow packet's: {:?}",
        m.flow_drops
    );
    for (node, counts) in m.drops.iter().enumerate() {
        for r in DropReason::ALL {
            let by_flow = sum(&out, |k| k.node.index() == node && k.reason == r);
            assert_eq!(by_flow, counts[r.index()], "node {node} {r:?}");
        }
    }
    let relay = sum(&out, |k| {
        k.reason == DropReason::QueueOverflow && !k.at_origin && k.flow == FlowId(0)
    });
    assert!(relay > 0, "{:?}", m.flow_drops);
    assert!(
        m.flow_drops
            .keys()
            .all(|k| k.at_origin == (k.node == NodeId(0))),
        "the source is the origin of every packet of a UDP flow: {:?}",
        m.flow_drops
    );

    // MAC counters by level add up to the totals, and DiffQ used levels above 0.
    let mut used_high = false;
    for st in &out.mac {
        let tx: u64 = st.by_level.iter().map(|l| l.data_tx).sum();
        let rl: u64 = st.by_level.iter().map(|l| l.retry_limit_drops).sum();
        assert_eq!((tx, rl), (st.data_tx, st.retry_limit_drops));
        for l in &st.by_level {
            assert!(l.failed_attempts >= 7 * l.retry_limit_drops, "{l:?}");
        }
        used_high |= st.by_level[1..STATS_LEVELS].iter().any(|l| l.data_tx > 0);
    }
    assert!(used_high);
}

/// A CBR source offering twice what one hop carries overflows its own drop-tail queue:
/// those drops are at the origin.
#[test]
fn flow_drops_at_an_overloaded_source_are_at_the_origin() {
    let stop = Time::from_secs(5);
    let out = world(
        WifiConfig::dsss_default(),
        droptail::config(50, None),
        vec![udp(0, 1, UdpRate::Cbr { rate_bps: 12e6 }, None, stop)],
        5,
    );
    let at_src = sum(&out, |k| {
        k.at_origin && k.node == NodeId(0) && k.reason == DropReason::QueueOverflow
    });
    assert!(at_src > 1000, "{:?}", out.metrics.flow_drops);
    assert_eq!(sum(&out, |k| !k.at_origin), 0);
    // One level (DCF): everything counted at level 0.
    let st = &out.mac[0];
    assert_eq!(st.by_level[0].data_tx, st.data_tx);
}
