//! Helpers shared by the sim crate's integration tests: topologies, routing, world and
//! flow builders, and runs that check packet conservation and determinism.
//!
//! Each test binary includes this module with `mod common;` and uses a subset of it.

#![allow(dead_code)]

use std::fmt::Debug;

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::medium::wifi::WifiConfig;
use airqueue_sim::net::routing::GraphEdge;
use airqueue_sim::net::RoutingTable;
use airqueue_sim::qdisc::registry::RegisteredQdisc;
use airqueue_sim::qdisc::{diffq, droptail};
use airqueue_sim::{
    FlowConfig, FlowId, FlowKindConfig, MediumConfig, NodeId, RunOutcome, TcpFlowConfig,
    TcpFlowStats, TfrcFlowStats, World, WorldConfig,
};

/// The 802.11 decode range the wifi tests route over, in metres.
pub const DECODE_RANGE_M: f64 = 250.0;

/// `nodes` nodes on the x axis, `spacing_m` apart, starting at the origin.
pub fn chain_positions(nodes: u32, spacing_m: f64) -> Vec<[f64; 2]> {
    (0..nodes).map(|i| [i as f64 * spacing_m, 0.0]).collect()
}

/// Shortest-hop routes over the unit-disk graph: nodes within `range_m` of each other
/// are neighbours.
pub fn unit_disk_routing(positions: &[[f64; 2]], range_m: f64) -> RoutingTable {
    let graph: Vec<Vec<GraphEdge>> = positions
        .iter()
        .enumerate()
        .map(|(a, pa)| {
            positions
                .iter()
                .enumerate()
                .filter(|(b, pb)| *b != a && (pa[0] - pb[0]).hypot(pa[1] - pb[1]) <= range_m)
                .map(|(b, _)| GraphEdge {
                    to: NodeId(b as u32),
                    cost: 1.0,
                })
                .collect()
        })
        .collect();
    RoutingTable::shortest_paths(&graph)
}

/// A world on the 802.11 medium with the tests' defaults: no warm-up, 1 s bins, routes
/// over the [`DECODE_RANGE_M`] unit-disk graph, no extra link loss and drop-tail queues
/// of 50 packets. Override fields with `WorldConfig { .., ..wifi_world(..) }`.
pub fn wifi_world(
    wifi: WifiConfig,
    positions: Vec<[f64; 2]>,
    flows: Vec<FlowConfig>,
    duration: Time,
    seed: u64,
) -> WorldConfig {
    WorldConfig {
        seed,
        duration,
        warmup: Time::ZERO,
        bin: Time::from_secs(1),
        node_count: positions.len(),
        routing: unit_disk_routing(&positions, DECODE_RANGE_M),
        routing_protocol: None,
        positions,
        link_loss: vec![],
        medium: MediumConfig::Wifi(wifi),
        qdisc: droptail::config(50, None),
        flows,
    }
}

/// A chain of `nodes` nodes 200 m apart joined by point-to-point links of
/// `bandwidth_bps` and `delay` (the wired stand-in medium), seed 1, no warm-up, 1 s bins,
/// drop-tail queues of 50 packets.
pub fn wired_chain(
    nodes: u32,
    bandwidth_bps: f64,
    delay: Time,
    flows: Vec<FlowConfig>,
    duration: Time,
) -> WorldConfig {
    let links: Vec<(NodeId, NodeId)> = (0..nodes - 1).map(|i| (NodeId(i), NodeId(i + 1))).collect();
    wired_world(nodes, links, bandwidth_bps, delay, flows, duration)
}

/// `nodes` nodes (200 m apart on a line, which the wired medium ignores) joined by
/// point-to-point `links` of `bandwidth_bps` and `delay`, shortest-hop routes, seed 1, no
/// warm-up, 1 s bins, drop-tail queues of 50 packets.
pub fn wired_world(
    nodes: u32,
    links: Vec<(NodeId, NodeId)>,
    bandwidth_bps: f64,
    delay: Time,
    flows: Vec<FlowConfig>,
    duration: Time,
) -> WorldConfig {
    let mut graph = vec![Vec::new(); nodes as usize];
    for &(a, b) in &links {
        graph[a.index()].push(GraphEdge { to: b, cost: 1.0 });
        graph[b.index()].push(GraphEdge { to: a, cost: 1.0 });
    }
    WorldConfig {
        seed: 1,
        duration,
        warmup: Time::ZERO,
        bin: Time::from_secs(1),
        node_count: nodes as usize,
        positions: chain_positions(nodes, 200.0),
        link_loss: vec![],
        medium: MediumConfig::Wired {
            bandwidth_bps,
            delay,
            links,
        },
        routing: RoutingTable::shortest_paths(&graph),
        routing_protocol: None,
        qdisc: droptail::config(50, None),
        flows,
    }
}

/// The default 802.11b configuration with seed 000's 8-level DiffQ EDCA table.
pub fn diffq8_wifi() -> WifiConfig {
    let mut wifi = WifiConfig::dsss_default();
    wifi.levels = airqueue_phy::edca::diffq8().to_vec();
    wifi
}

/// DiffQ queues: 100 packets, 40 per destination, scheduling and MAC priority on (one
/// priority level per EDCA level of the MAC: 8 with [`diffq8_wifi`]).
pub fn diffq_queue() -> RegisteredQdisc {
    diffq::config(100, 40)
}

/// A flow of `payload_bytes` packets from `src` to `dst`, from time zero to `stop`, at
/// priority 0 and without DiffQ rate control.
pub fn flow(
    src: u32,
    dst: u32,
    payload_bytes: u32,
    kind: FlowKindConfig,
    stop: Time,
) -> FlowConfig {
    FlowConfig {
        src: NodeId(src),
        dst: NodeId(dst),
        start: Time::ZERO,
        stop,
        payload_bytes,
        priority: 0,
        kind,
        cc: None,
    }
}

/// A saturating UDP [`flow`].
pub fn saturating_udp(src: u32, dst: u32, payload_bytes: u32, stop: Time) -> FlowConfig {
    flow(
        src,
        dst,
        payload_bytes,
        FlowKindConfig::Udp(UdpRate::Saturate),
        stop,
    )
}

/// A TCP [`flow`] with segments of `mss` bytes.
pub fn tcp_flow(src: u32, dst: u32, mss: u32, cfg: TcpFlowConfig, stop: Time) -> FlowConfig {
    flow(src, dst, mss, FlowKindConfig::Tcp(cfg), stop)
}

/// Flow `flow`'s TCP counters, from the run's transport report.
#[track_caller]
pub fn tcp_stats(out: &RunOutcome, flow: usize) -> &TcpFlowStats {
    (out.transports.stats(FlowId(flow as u32))).expect("a TCP flow")
}

/// Flow `flow`'s TFRC counters, from the run's transport report.
#[track_caller]
pub fn tfrc_stats(out: &RunOutcome, flow: usize) -> &TfrcFlowStats {
    (out.transports.stats(FlowId(flow as u32))).expect("a TFRC flow")
}

/// Checks packet conservation.
#[track_caller]
pub fn assert_conserved(out: &RunOutcome) {
    assert!(
        out.conservation.holds(),
        "conservation: {:?}",
        out.conservation
    );
}

/// Runs `cfg` to the end and checks packet conservation.
#[track_caller]
pub fn run_checked(cfg: WorldConfig) -> RunOutcome {
    let out = World::new(cfg).run();
    assert_conserved(&out);
    out
}

/// Runs `cfg` twice with [`run_checked`], checks that `key` is the same for both runs,
/// and returns the first.
#[track_caller]
pub fn run_twice_by<K: PartialEq + Debug>(
    cfg: WorldConfig,
    key: impl Fn(&RunOutcome) -> K,
) -> RunOutcome {
    let a = run_checked(cfg.clone());
    let b = run_checked(cfg);
    assert_eq!(key(&a), key(&b), "same config, different runs");
    a
}

/// Determinism key: the event count and each flow's delivered packets.
pub fn events_and_delivered(o: &RunOutcome) -> (u64, Vec<u64>) {
    (
        o.events,
        o.metrics
            .flows
            .iter()
            .map(|f| f.packets_delivered)
            .collect(),
    )
}
