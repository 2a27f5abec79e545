//! Assembly: turns a validated [`Scenario`] and its node positions into the core's
//! [`WorldConfig`]. The only place that knows both the file schema and the core's types.

use crate::schema::{FlowKind, Medium, QueueKind, Rate, RoutingMetric, Scenario};
use crate::topology::neighbours;
use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::net::routing::{etx, GraphEdge};
use airqueue_sim::net::RoutingTable;
use airqueue_sim::{FlowConfig, FlowKindConfig, MediumConfig, NodeId, QdiscConfig, WorldConfig};

/// Erasure probability configured for the directed pair (a, b) by `[[link]]`.
fn link_loss(s: &Scenario, a: u32, b: u32) -> f64 {
    s.links
        .iter()
        .rev()
        .find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
        .map_or(0.0, |l| l.loss)
}

/// The neighbour graph every medium uses: nodes within `radio.tx_range` of each other.
pub fn neighbour_graph(s: &Scenario, positions: &[[f64; 2]]) -> Vec<Vec<u32>> {
    neighbours(positions, s.radio.tx_range_m)
}

/// Builds the static routing table over the neighbour graph with the configured metric.
pub fn routing_table(s: &Scenario, adjacency: &[Vec<u32>]) -> RoutingTable {
    let graph: Vec<Vec<GraphEdge>> = adjacency
        .iter()
        .enumerate()
        .map(|(a, ns)| {
            ns.iter()
                .map(|&b| {
                    let cost = match s.routing.metric {
                        RoutingMetric::Hops => 1.0,
                        RoutingMetric::Etx => {
                            etx(link_loss(s, a as u32, b), link_loss(s, b, a as u32))
                        }
                    };
                    GraphEdge {
                        to: NodeId(b),
                        cost,
                    }
                })
                .collect()
        })
        .collect();
    RoutingTable::shortest_paths(&graph)
}

/// Assembles the world configuration.
pub fn world_config(s: &Scenario, positions: &[[f64; 2]]) -> WorldConfig {
    let adjacency = neighbour_graph(s, positions);
    let routing = routing_table(s, &adjacency);
    let medium = match &s.medium {
        Medium::Wired {
            bandwidth_bps,
            delay_s,
        } => {
            let mut links = Vec::new();
            for (a, ns) in adjacency.iter().enumerate() {
                for &b in ns {
                    if (a as u32) < b {
                        links.push((NodeId(a as u32), NodeId(b)));
                    }
                }
            }
            MediumConfig::Wired {
                bandwidth_bps: *bandwidth_bps,
                delay: Time::from_secs_f64(*delay_s),
                links,
            }
        }
    };
    let qdisc = match s.queue.kind {
        QueueKind::Droptail => QdiscConfig::DropTail {
            capacity_pkts: s.queue.capacity_pkts,
        },
    };
    let flows = s
        .flows
        .iter()
        .map(|f| FlowConfig {
            src: NodeId(f.src),
            dst: NodeId(f.dst),
            start: Time::from_secs_f64(f.start_s),
            stop: Time::from_secs_f64(f.stop_s),
            payload_bytes: f.packet_size_bytes,
            kind: match f.kind {
                FlowKind::Udp => FlowKindConfig::Udp(match f.rate {
                    Rate::Bps(r) => UdpRate::Cbr { rate_bps: r },
                    Rate::Saturate => UdpRate::Saturate,
                }),
            },
        })
        .collect();
    WorldConfig {
        seed: s.seed,
        duration: Time::from_secs_f64(s.duration_s),
        warmup: Time::from_secs_f64(s.warmup_s),
        bin: Time::from_secs_f64(s.outputs.bin_s),
        node_count: positions.len(),
        medium,
        routing,
        qdisc,
        flows,
    }
}
