//! DiffQ's queue reports in a steady 3-hop 802.11 chain (issue 6 acceptance): what each
//! node learns of its next hop's destination queue from the qlen piggybacked on the
//! frames it decodes or overhears tracks that queue's true length within a few packets.
//!
//! ```text
//!   0 ---- 1 ---- 2 ---- 3        200 m apart, 250 m decode, 550 m carrier sense
//!   DiffQ-UDP 0 -> 3 (AIMD), DiffQ queues, diffq8 EDCA
//! ```
//!
//! Node 0 keeps a view of node 1's queue for 3, node 1 of node 2's; node 2's next hop is
//! the destination, whose queue is zero by definition. Every run checks conservation and
//! is run twice to check determinism.

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::medium::wifi::WifiConfig;
use airqueue_sim::net::routing::GraphEdge;
use airqueue_sim::net::RoutingTable;
use airqueue_sim::{
    DiffQConfig, DiffqRateConfig, FlowCc, FlowConfig, FlowKindConfig, MediumConfig, NodeId,
    QdiscConfig, RunOutcome, World, WorldConfig,
};

const PAYLOAD: u32 = 1400;
const SPACING_M: f64 = 200.0;

/// Routes along the unit-disk graph of the 250 m decode range.
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

fn diffq_queue() -> DiffQConfig {
    DiffQConfig {
        capacity_pkts: 100,
        per_dest_capacity: 40,
        levels: 8,
        scheduling: true,
        mac_priority: true,
    }
}

fn chain(duration: Time, seed: u64) -> WorldConfig {
    let positions: Vec<[f64; 2]> = (0..4).map(|i| [i as f64 * SPACING_M, 0.0]).collect();
    let mut wifi = WifiConfig::dsss_default();
    wifi.levels = airqueue_phy::edca::diffq8().to_vec();
    WorldConfig {
        seed,
        duration,
        warmup: Time::ZERO,
        bin: Time::from_secs(1),
        node_count: positions.len(),
        routing: routing(&positions),
        positions,
        link_loss: vec![],
        medium: MediumConfig::Wifi(wifi),
        qdisc: QdiscConfig::DiffQ(diffq_queue()),
        flows: vec![FlowConfig {
            src: NodeId(0),
            dst: NodeId(3),
            start: Time::ZERO,
            stop: duration,
            payload_bytes: PAYLOAD,
            priority: 0,
            kind: FlowKindConfig::Udp(UdpRate::Saturate),
            cc: FlowCc::DiffQ(DiffqRateConfig::aimd()),
        }],
    }
}

/// One (believed, actual) sample of a node's view of its next hop's queue for node 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sample {
    node: u32,
    believed: u32,
    actual: u32,
}

/// Runs the chain, sampling both views every `step` after `settle`.
fn run_sampled(cfg: WorldConfig, settle: Time, step: Time) -> (RunOutcome, Vec<Sample>) {
    let duration = cfg.duration;
    let mut world = World::new(cfg);
    let mut samples = vec![];
    let mut t = settle;
    while t <= duration {
        world.run_until(t);
        for (node, next) in [(0, 1), (1, 2)] {
            let v = world
                .diffq_view(NodeId(node), NodeId(next), NodeId(3))
                .expect("wifi with DiffQ");
            samples.push(Sample {
                node,
                believed: v.believed,
                actual: v.actual,
            });
        }
        t += step;
    }
    let out = world.finish();
    assert!(
        out.conservation.holds(),
        "conservation: {:?}",
        out.conservation
    );
    (out, samples)
}

#[test]
fn overheard_reports_track_the_next_hops_queue() {
    let duration = Time::from_secs(30);
    let settle = Time::from_secs(5);
    let step = Time::from_millis(10);
    let (out, samples) = run_sampled(chain(duration, 1), settle, step);
    // Determinism, samples included; and stepping the world changes nothing.
    let (again, samples_again) = run_sampled(chain(duration, 1), settle, step);
    assert_eq!(samples, samples_again);
    assert_eq!(out.events, again.events);
    let plain = World::new(chain(duration, 1)).run();
    assert_eq!(out.events, plain.events);
    assert_eq!(
        out.metrics.flows[0].packets_delivered,
        plain.metrics.flows[0].packets_delivered
    );

    let f = &out.metrics.flows[0];
    let rate = out.diffq_rate[0].as_ref().unwrap();
    eprintln!(
        "DiffQ-UDP 0->3: goodput {:.0} kb/s, {} sent, {} delivered, drops {:?}; final rate \
         {:.0} kb/s after {} updates ({} decreases)",
        f.goodput_bps() / 1e3,
        f.packets_sent,
        f.packets_delivered,
        out.metrics.drops_by_reason(),
        rate.rate_bps() / 1e3,
        rate.updates,
        rate.decreases,
    );
    for node in [0, 1] {
        let s: Vec<&Sample> = samples.iter().filter(|s| s.node == node).collect();
        let n = s.len() as f64;
        let err = s
            .iter()
            .map(|s| (s.believed as f64 - s.actual as f64).abs())
            .sum::<f64>()
            / n;
        let bias = s
            .iter()
            .map(|s| s.believed as f64 - s.actual as f64)
            .sum::<f64>()
            / n;
        let mean = s.iter().map(|s| s.actual as f64).sum::<f64>() / n;
        let max = s.iter().map(|s| s.actual).max().unwrap();
        let busy = s.iter().filter(|s| s.actual >= 3).count() as f64 / n;
        eprintln!(
            "node {node}'s view of node {}'s queue for 3: mean |error| {err:.2} pkts (bias \
             {bias:+.2}); true queue mean {mean:.2}, max {max}, >= 3 packets {:.0}% of the time",
            node + 1,
            busy * 100.0,
        );
        assert!(err <= 3.0, "node {node}: mean error {err}");
        // The queues being tracked are not trivially empty.
        assert!(
            mean >= 2.0 && max >= 8,
            "node {node}: mean {mean}, max {max}"
        );
    }
    assert!(f.goodput_bps() > 500e3, "{}", f.goodput_bps());
}
