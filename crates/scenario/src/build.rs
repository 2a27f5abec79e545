//! Assembly: turns a validated [`Scenario`] and its node positions into the core's
//! [`WorldConfig`]. The only place that knows both the file schema and the core's types.

use crate::parse::wifi::DEFAULT_TDMA_PAYLOAD_BYTES;
use crate::schema::{
    Fading, Level, LinkFading, Mac, MacKind, Medium, Radio, RoutingMetric, Scenario, Topology,
};
use crate::topology::adjacency;
use airqueue_kernel::Time;
use airqueue_phy::{Dbm, DsssRate, EdcaLevel};
use airqueue_sim::medium::wifi::tdma::SLOT_HEADROOM_BYTES;
use airqueue_sim::medium::wifi::{Access, RateChange, WifiConfig};
use airqueue_sim::net::registry::RoutingSetup;
use airqueue_sim::net::routing::{etx, GraphEdge};
use airqueue_sim::net::RoutingTable;
use airqueue_sim::transport::FlowBuildContext;
use airqueue_sim::{
    CodingConfig, FlowConfig, MediumConfig, NodeId, RegisteredQdisc, TcpFlowConfig, TcpVariant,
    WiresConfig, WorldConfig,
};

/// Erasure probability configured for the directed pair (a, b) by `[[link]]`.
fn link_loss(s: &Scenario, a: u32, b: u32) -> f64 {
    s.links
        .iter()
        .rev()
        .find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
        .map_or(0.0, |l| l.loss)
}

/// Every `[[link]]` as the two directed pairs the core takes.
fn directed_link_loss(s: &Scenario) -> Vec<(NodeId, NodeId, f64)> {
    s.links
        .iter()
        .flat_map(|l| {
            [
                (NodeId(l.a), NodeId(l.b), l.loss),
                (NodeId(l.b), NodeId(l.a), l.loss),
            ]
        })
        .collect()
}

/// An 802.11b rate from its bit rate; validation admits only the four DSSS rates.
fn dsss_rate(bps: f64) -> DsssRate {
    let rate = DsssRate::ALL.into_iter().find(|r| r.bps() as f64 == bps);
    debug_assert!(rate.is_some(), "{bps} b/s is not an 802.11b rate");
    rate.unwrap_or(DsssRate::Mbps11)
}

/// The 802.11 medium's settings from `[radio]` and `[mac]` (thresholds were resolved
/// during validation; MAC framing overhead is the core's default).
pub fn wifi_config(radio: &Radio, mac: &Mac) -> WifiConfig {
    // dcf and edca differ only in their levels, which validation resolved.
    let levels = mac
        .levels
        .iter()
        .map(
            |&Level {
                 aifsn,
                 cw_min,
                 cw_max,
             }| EdcaLevel {
                aifsn,
                cw_min,
                cw_max,
            },
        )
        .collect();
    WifiConfig {
        propagation: radio.propagation.model(radio.tx_range_m, radio.cs_range_m),
        fading: radio.fading,
        tx_power_dbm: radio.tx_power_dbm,
        rx_threshold_dbm: radio.rx_threshold_dbm,
        cs_threshold_dbm: radio.cs_threshold_dbm,
        noise_dbm: radio.noise_dbm,
        capture_db: radio.capture_db,
        sensed_frames: radio.sensed_frames,
        preamble_detection_db: radio.preamble_detection_db,
        late_capture: radio.late_capture,
        data_rate: dsss_rate(radio.data_rate_bps),
        basic_rate: dsss_rate(radio.basic_rate_bps),
        preamble: radio.preamble,
        levels,
        short_retry_limit: mac.short_retry_limit,
        long_retry_limit: mac.long_retry_limit,
        rts_threshold_bytes: mac.rts_threshold_bytes.unwrap_or(u32::MAX),
        nav_reset_after_rts: mac.nav_reset_after_rts,
        rate_control: mac.rate_control,
        tx_buffer_frames: mac.tx_buffer_frames,
        tdma_slots: (mac.tdma_slots.iter())
            .map(|&(node, slots)| (NodeId(node), slots))
            .collect(),
        access: match (mac.kind, mac.tdma_slot_bytes) {
            (MacKind::Tdma, Some(slot_bytes)) => Access::Tdma { slot_bytes },
            (MacKind::Tdma, None) => Access::Tdma {
                slot_bytes: DEFAULT_TDMA_PAYLOAD_BYTES + SLOT_HEADROOM_BYTES,
            },
            (MacKind::Dcf | MacKind::Edca, _) => Access::Contention,
        },
        ..WifiConfig::dsss_default()
    }
}

/// The neighbour graph every medium uses: nodes with a radio within `radio.tx_range` of
/// each other, plus the topology's wires (a BSS's access point to its wired hosts).
pub fn neighbour_graph(s: &Scenario, positions: &[[f64; 2]]) -> Vec<Vec<u32>> {
    adjacency(&s.topology, positions, s.radio.tx_range_m)
}

/// Delivery ratio of a frame at the basic rate over (a, b) on the 802.11 medium without
/// interference: 1 without fading; with Rayleigh fading the received power is exponential
/// around its mean, so a frame is decoded with probability `exp(-threshold / mean)`, the
/// threshold being the larger of the receive threshold and the basic rate's SINR
/// threshold over the noise. This is the ratio OLSR-ETX's probes measure on an otherwise
/// idle network (De Couto et al., MobiCom 2003, section 3); static routing computes it.
fn fading_delivery(s: &Scenario, positions: &[[f64; 2]], a: usize, b: usize) -> f64 {
    let r = &s.radio;
    if r.fading == Fading::None || !matches!(s.medium, Medium::Wifi) {
        return 1.0;
    }
    let model = r.propagation.model(r.tx_range_m, r.cs_range_m);
    let [xa, ya] = positions[a];
    let [xb, yb] = positions[b];
    let d = (xa - xb).hypot(ya - yb);
    let mean_mw = model.rx_power(Dbm(r.tx_power_dbm), d).to_mw().0;
    let sinr = airqueue_phy::dsss::sinr_threshold(dsss_rate(r.basic_rate_bps)).to_ratio();
    let threshold_mw = Dbm(r.rx_threshold_dbm)
        .to_mw()
        .0
        .max(Dbm(r.noise_dbm).to_mw().0 * sinr);
    if mean_mw <= 0.0 {
        return 0.0;
    }
    (-threshold_mw / mean_mw).exp()
}

/// The static routing graph: the neighbour graph with the configured metric as link cost.
/// ETX combines the loss configured by `[[link]]` with the fading loss of each direction
/// (a probe gets through when neither erases it); a wire is lossless (ETX 1).
pub fn routing_graph(
    s: &Scenario,
    positions: &[[f64; 2]],
    adjacency: &[Vec<u32>],
) -> Vec<Vec<GraphEdge>> {
    let radios = s.topology.radio_nodes();
    adjacency
        .iter()
        .enumerate()
        .map(|(a, ns)| {
            ns.iter()
                .map(|&b| {
                    let wire = a as u32 >= radios || b >= radios;
                    let cost = match s.routing.metric {
                        RoutingMetric::Hops => 1.0,
                        RoutingMetric::Etx if wire => 1.0,
                        RoutingMetric::Etx => {
                            let fading = fading_delivery(s, positions, a, b as usize);
                            let loss =
                                |from: u32, to: u32| 1.0 - (1.0 - link_loss(s, from, to)) * fading;
                            etx(loss(a as u32, b), loss(b, a as u32))
                        }
                    };
                    GraphEdge {
                        to: NodeId(b),
                        cost,
                    }
                })
                .collect()
        })
        .collect()
}

/// The nodes packets are routed to: every flow's destination, and its source, which TCP
/// ACKs, TFRC feedback, coding repair requests and MORE's batch ACKs go back to.
fn routed_destinations(s: &Scenario) -> Vec<NodeId> {
    s.flows
        .iter()
        .flat_map(|f| [NodeId(f.src), NodeId(f.dst)])
        .collect()
}

/// The static routes of the run: shortest paths over [`routing_graph`] towards the nodes
/// flows send to (one Dijkstra and one column of `n` next hops each, so setup stays
/// near-linear in nodes and links however large the topology).
pub fn static_routes(s: &Scenario, positions: &[[f64; 2]], adjacency: &[Vec<u32>]) -> RoutingTable {
    let graph = routing_graph(s, positions, adjacency);
    RoutingTable::shortest_paths_to(&graph, &routed_destinations(s))
}

/// The static routes between every pair of nodes, the dense table (`n x n` entries: for
/// tests and small topologies; the same routes as [`static_routes`] where both have one).
pub fn routing_table(s: &Scenario, positions: &[[f64; 2]], adjacency: &[Vec<u32>]) -> RoutingTable {
    RoutingTable::shortest_paths(&routing_graph(s, positions, adjacency))
}

/// The 802.11 medium of scenario `s` placed at `positions`: [`wifi_config`] plus its
/// `[[rate_change]]`s and `[[move]]`s (a move without a direction, which validation
/// refuses, is left out).
fn wifi_medium(s: &Scenario, positions: &[[f64; 2]]) -> WifiConfig {
    WifiConfig {
        moves: crate::parse::moves::resolve(&s.moves, positions, &mut Vec::new()),
        rate_changes: s
            .rate_changes
            .iter()
            .map(|c| RateChange {
                at: Time::from_secs_f64(c.at_s),
                nodes: c.nodes.iter().map(|&n| NodeId(n)).collect(),
                rate: dsss_rate(c.data_rate_bps),
            })
            .collect(),
        faded_links: s
            .links
            .iter()
            .filter(|l| l.fading == LinkFading::Rayleigh)
            .flat_map(|l| [(NodeId(l.a), NodeId(l.b)), (NodeId(l.b), NodeId(l.a))])
            .collect(),
        ..wifi_config(&s.radio, &s.mac)
    }
}

/// Assembles the world configuration.
pub fn world_config(s: &Scenario, positions: &[[f64; 2]]) -> WorldConfig {
    let adjacency = neighbour_graph(s, positions);
    let routing = static_routes(s, positions, &adjacency);
    let medium = match (&s.medium, &s.topology) {
        (
            Medium::Wifi,
            &Topology::Bss {
                wire_bandwidth_bps,
                wire_delay_s,
                wire_capacity_pkts,
                ..
            },
        ) => {
            let radios = s.topology.radio_nodes() as usize;
            MediumConfig::WifiAndWires {
                wifi: wifi_medium(s, positions),
                radio: (0..positions.len()).map(|i| i < radios).collect(),
                wires: WiresConfig {
                    bandwidth_bps: wire_bandwidth_bps,
                    delay: Time::from_secs_f64(wire_delay_s),
                    capacity_pkts: wire_capacity_pkts,
                    links: (s.topology.wires().into_iter())
                        .map(|(a, b)| (NodeId(a), NodeId(b)))
                        .collect(),
                },
            }
        }
        (Medium::Wifi, _) => MediumConfig::Wifi(wifi_medium(s, positions)),
        (
            Medium::Wired {
                bandwidth_bps,
                delay_s,
            },
            _,
        ) => {
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
    let qdisc = RegisteredQdisc {
        scheme: s.queue.kind,
        params: s.queue.params.clone(),
    };
    let tcp = tcp_flow(s);
    // A broadcast from `a` reaches a neighbour `b` with probability `(1 - loss(a, b))`
    // times the fading delivery at the basic rate, and nobody else.
    let delivery = |a: NodeId, b: NodeId| {
        if !adjacency[a.index()].contains(&b.0) {
            return 0.0;
        }
        (1.0 - link_loss(s, a.0, b.0)) * fading_delivery(s, positions, a.index(), b.index())
    };
    let flows = s
        .flows
        .iter()
        .map(|f| {
            let cx = FlowBuildContext {
                src: NodeId(f.src),
                dst: NodeId(f.dst),
                node_count: positions.len(),
                tcp: &tcp,
                delivery: &delivery,
            };
            FlowConfig {
                src: NodeId(f.src),
                dst: NodeId(f.dst),
                start: Time::from_secs_f64(f.start_s),
                stop: Time::from_secs_f64(f.stop_s),
                payload_bytes: f.packet_size_bytes,
                priority: f.priority,
                cc: f.cc.map(|scheme| s.rate_control(scheme)),
                kind: (f.kind.build)(&f.params, &cx),
            }
        })
        .collect();
    WorldConfig {
        seed: s.seed,
        duration: Time::from_secs_f64(s.duration_s),
        warmup: Time::from_secs_f64(s.warmup_s),
        bin: Time::from_secs_f64(s.outputs.bin_s),
        node_count: positions.len(),
        positions: positions.to_vec(),
        link_loss: directed_link_loss(s),
        medium,
        routing,
        routing_protocol: routing_setup(s, positions, &adjacency),
        qdisc,
        flows,
    }
}

/// The routing protocol of `[routing]`, `None` for static routes. A protocol that
/// starts converged gets the idle network: the neighbour graph with, for each direction,
/// the delivery ratio of a broadcast (`[[link]] loss` and fading, as static ETX routing
/// counts them).
fn routing_setup(
    s: &Scenario,
    positions: &[[f64; 2]],
    adjacency: &[Vec<u32>],
) -> Option<RoutingSetup> {
    let scheme = s.routing.protocol?;
    // `adjacency[a]` lists the nodes a hears.
    let neighbours = adjacency
        .iter()
        .enumerate()
        .map(|(a, ns)| {
            ns.iter()
                .map(|&b| {
                    let fading = fading_delivery(s, positions, b as usize, a);
                    (NodeId(b), (1.0 - link_loss(s, b, a as u32)) * fading)
                })
                .collect()
        })
        .collect();
    Some(RoutingSetup {
        scheme,
        params: s.routing.params.clone(),
        etx: s.routing.metric == RoutingMetric::Etx,
        neighbours,
    })
}

/// The settings of `[tcp]`, which each TCP flow completes with its variant and transfer
/// size (`transport::tcp::FLOW_KIND`). DiffQ-TCP keeps the variant's loss recovery; the
/// core turns its window control off.
fn tcp_flow(s: &Scenario) -> TcpFlowConfig {
    TcpFlowConfig {
        min_rto: Time::from_secs_f64(s.tcp.min_rto_s),
        initial_rto: Time::from_secs_f64(s.tcp.initial_rto_s),
        delayed_ack: s.tcp.delayed_ack,
        max_window: s.tcp.max_window_pkts,
        ecn: s.tcp.ecn,
        timestamps: s.tcp.timestamps,
        coding: s.tcp.network_coding.then(|| CodingConfig {
            block_pkts: s.tcp.coding_block_pkts as u16,
            repair_delay: Time::from_secs_f64(s.tcp.coding_repair_delay_s),
        }),
        ..TcpFlowConfig::new(TcpVariant::NewReno)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::toml_to_json;
    use crate::topology::validate_and_place;
    use airqueue_phy::Preamble;
    use airqueue_phy::{edca, Propagation};
    use airqueue_sim::medium::wifi::{LateCapture, RateControl, SensedFrames};
    use airqueue_sim::net::aodv::AodvConfig;
    use airqueue_sim::net::olsr::OlsrConfig;
    use airqueue_sim::{PiConfig, RedConfig};

    /// A four-node chain 200 m apart with one lossy link; `extra` adds sections.
    fn placed(extra: &str) -> (Scenario, Vec<[f64; 2]>) {
        let text = format!(
            "duration = 10\n[topology]\nkind = \"chain\"\nnodes = 4\nspacing = 200\n\
             [[link]]\na = 1\nb = 2\nloss = 0.25\n\
             [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 3\nrate = 1e6\n{extra}"
        );
        validate_and_place(&toml_to_json(&text).unwrap())
            .unwrap_or_else(|e| panic!("expected a valid scenario, got:\n{e}"))
    }

    fn wifi(cfg: &WorldConfig) -> &WifiConfig {
        match &cfg.medium {
            MediumConfig::Wifi(w) => w,
            other => panic!("expected the wifi medium, got {other:?}"),
        }
    }

    /// The AODV configuration of the world's registered protocol.
    fn aodv_of(cfg: &WorldConfig) -> Option<AodvConfig> {
        let r = cfg.routing_protocol.as_ref()?;
        (r.scheme.name == "aodv").then(|| AodvConfig::from_params(&r.params))
    }

    #[test]
    fn aodv_keys_reach_the_core_in_its_units() {
        let (s, pos) = placed("");
        assert!(
            world_config(&s, &pos).routing_protocol.is_none(),
            "static by default"
        );
        let (s, pos) = placed("[routing]\nkind = \"aodv\"\n");
        assert_eq!(
            aodv_of(&world_config(&s, &pos)),
            Some(AodvConfig::default())
        );
        let (s, pos) = placed(
            "[routing]\nkind = \"aodv\"\nactive_route_timeout = 1.5\nnet_diameter = 20\n\
             node_traversal_time = 0.01\nrreq_retries = 4\nttl_start = 2\nttl_increment = 3\n\
             ttl_threshold = 9\nbuffer_capacity = 10\nbuffer_timeout = 5\n",
        );
        // Every key's reading is `net/aodv/keys.rs`'s test; here the file's values arrive.
        let a = aodv_of(&world_config(&s, &pos)).unwrap();
        assert_eq!(
            (
                a.active_route_timeout,
                a.node_traversal_time,
                a.buffer_timeout
            ),
            (
                Time::from_millis(1500),
                Time::from_millis(10),
                Time::from_secs(5)
            )
        );
        assert_eq!(
            (a.net_diameter, a.rreq_retries, a.buffer_capacity),
            (20, 4, 10)
        );
        assert_eq!((a.ttl_start, a.ttl_increment, a.ttl_threshold), (2, 3, 9));
    }

    #[test]
    fn olsr_keys_reach_the_core_and_unset_hold_times_follow_the_intervals() {
        use airqueue_sim::net::olsr::{LqAlgorithm, TcRedundancy};
        let (s, pos) = placed(
            "[routing]\nkind = \"olsr\"\nhello_interval = 1\ntc_interval = 4\n\
             lq_algorithm = \"hello_window\"\ntc_redundancy = 2\n",
        );
        let setup = world_config(&s, &pos).routing_protocol.unwrap();
        assert_eq!(setup.scheme.name, "olsr");
        assert!(setup.etx, "olsr's default metric");
        let expected = OlsrConfig {
            etx: true,
            hello_interval: Time::from_secs(1),
            tc_interval: Time::from_secs(4),
            neighb_hold_time: Time::from_secs(3),
            top_hold_time: Time::from_secs(12),
            lq_algorithm: LqAlgorithm::HelloWindow,
            max_jitter: Time::from_millis(250),
            tc_redundancy: TcRedundancy::AllNeighbours,
            ..OlsrConfig::default()
        };
        assert_eq!(OlsrConfig::from_params(&setup.params, setup.etx), expected);
        assert_eq!(setup.neighbours[1].len(), 2, "node 1 hears 0 and 2");
        // The resolved scenario names the protocol's keys as the file does.
        let resolved = serde_json::to_value(&s.routing).unwrap();
        let expected = serde_json::json!({
            "kind": "olsr", "metric": "etx", "hello_interval": 1.0, "tc_interval": 4.0,
            "neighb_hold_time": 3.0, "top_hold_time": 12.0, "lq_algorithm": "hello_window",
            "lq_window": 10, "jitter": 0.25, "warm_start": true, "tc_redundancy": 2
        });
        assert_eq!(resolved, expected);
        let (s, _) = placed("[routing]\nmetric = \"etx\"\n");
        let resolved = serde_json::to_value(&s.routing).unwrap();
        assert_eq!(
            resolved,
            serde_json::json!({"kind": "static", "metric": "etx"})
        );
    }

    #[test]
    fn defaults_build_the_dsss_default_wifi_config() {
        let (s, pos) = placed("");
        let cfg = world_config(&s, &pos);
        assert_eq!(cfg.medium, MediumConfig::Wifi(WifiConfig::dsss_default()));
    }

    #[test]
    fn positions_and_directed_link_loss_for_both_media() {
        for medium in ["", "[medium]\nkind = \"wired\"\n"] {
            let (s, pos) = placed(medium);
            let cfg = world_config(&s, &pos);
            assert_eq!(
                cfg.positions,
                vec![[0.0, 0.0], [200.0, 0.0], [400.0, 0.0], [600.0, 0.0]]
            );
            assert_eq!(
                cfg.link_loss,
                vec![(NodeId(1), NodeId(2), 0.25), (NodeId(2), NodeId(1), 0.25)]
            );
        }
    }

    #[test]
    fn etx_with_fading_prefers_two_short_hops_to_one_long_one() {
        // 0 and 2 are 240 m apart, just inside the 250 m range; 1 sits halfway. Under
        // Rayleigh fading the long link delivers a probe with probability
        // exp(-threshold / mean) = exp(-(240/250)^4) ~ 0.43 each way (ETX ~ 5.4), each
        // short one ~ 0.95 (ETX ~ 1.1), so ETX routes through 1; hop count and ETX
        // without fading take the direct link.
        let route = |extra: &str| {
            let text = format!(
                "duration = 10\n[topology]\nkind = \"explicit\"\n\
                 positions = [[0, 0], [120, 0], [240, 0]]\n\
                 [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = 1e6\n{extra}"
            );
            let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
            let adjacency = neighbour_graph(&s, &pos);
            routing_table(&s, &pos, &adjacency).next_hop(NodeId(0), NodeId(2))
        };
        let etx = "[routing]\nmetric = \"etx\"\n";
        let fading = "[radio]\nfading = \"rayleigh\"\n";
        assert_eq!(route(""), Some(NodeId(2)));
        assert_eq!(route(etx), Some(NodeId(2)));
        assert_eq!(route(fading), Some(NodeId(2)), "hop count ignores fading");
        assert_eq!(route(&format!("{etx}{fading}")), Some(NodeId(1)));
    }

    #[test]
    fn every_radio_and_mac_key_reaches_the_core() {
        let (s, pos) = placed(
            "[radio]\ndata_rate = 5.5e6\nbasic_rate = 2e6\ntx_range = 210\ncs_range = 400\n\
             propagation = \"log-distance\"\npath_loss_exponent = 2.7\nfading = \"rayleigh\"\n\
             tx_power_dbm = 17\ncs_threshold_dbm = -95\nnoise_dbm = -97\ncapture_db = 4\n\
             preamble = \"short\"\nsensed_frames = \"energy\"\nlate_capture = \"never\"\n\
             preamble_detection_db = 4\n\
             [mac]\nkind = \"edca\"\nshort_retry_limit = 5\nlong_retry_limit = 3\n\
             rts_threshold = 0\nnav_reset_after_rts = true\nrate_control = \"aarf\"\n\
             tx_buffer = 3\n",
        );
        let cfg = world_config(&s, &pos);
        let model = Propagation::log_distance(2.7);
        let expected = WifiConfig {
            propagation: model,
            fading: Fading::Rayleigh,
            tx_power_dbm: 17.0,
            rx_threshold_dbm: airqueue_phy::threshold_for_range(
                &model,
                airqueue_phy::Dbm(17.0),
                210.0,
            )
            .0,
            cs_threshold_dbm: -95.0,
            noise_dbm: -97.0,
            capture_db: 4.0,
            sensed_frames: SensedFrames::EnergyOnly,
            late_capture: LateCapture::Never,
            preamble_detection_db: Some(4.0),
            data_rate: DsssRate::Mbps5_5,
            basic_rate: DsssRate::Mbps2,
            preamble: Preamble::Short,
            levels: edca::diffq8().to_vec(),
            short_retry_limit: 5,
            long_retry_limit: 3,
            rts_threshold_bytes: 0,
            nav_reset_after_rts: true,
            rate_control: RateControl::Aarf,
            tx_buffer_frames: 3,
            ..WifiConfig::dsss_default()
        };
        assert_eq!(wifi(&cfg), &expected);
    }

    #[test]
    fn range_propagation_uses_the_radio_ranges_and_rts_off_is_u32_max() {
        let (s, pos) = placed(
            "[radio]\npropagation = \"range\"\ntx_range = 220\ncs_range = 440\n\
             [mac]\nrts_threshold = \"off\"\n",
        );
        let cfg = world_config(&s, &pos);
        let w = wifi(&cfg);
        assert_eq!(w.propagation, Propagation::range(220.0, 440.0));
        assert_eq!((w.rx_threshold_dbm, w.cs_threshold_dbm), (20.0, 19.0));
        assert_eq!(w.rts_threshold_bytes, u32::MAX);
        assert_eq!(w.levels, edca::dcf());
    }

    #[test]
    fn red_and_pi_keys_reach_the_core() {
        let (s, pos) = placed(
            "[queue]\nkind = \"red\"\ncapacity = 40\nmin_threshold = 4\nmax_threshold = 20\n\
             max_p = 0.2\nweight = 0.01\ngentle = false\necn = true\n",
        );
        assert_eq!(
            world_config(&s, &pos).qdisc,
            RedConfig {
                capacity_pkts: 40,
                min_th: 4.0,
                max_th: 20.0,
                max_p: 0.2,
                weight: 0.01,
                gentle: false,
                ecn: true,
                // 500 bytes at the default 11 Mb/s, rounded up to the nanosecond.
                mean_pkt_time: Time::from_nanos(363_637),
            }
            .qdisc()
        );
        let (s, pos) = placed("[queue]\nkind = \"pi\"\nq_ref = 20\nsample_hz = 200\necn = true\n");
        assert_eq!(
            world_config(&s, &pos).qdisc,
            PiConfig {
                q_ref: 20.0,
                period: Time::from_millis(5),
                ecn: true,
                ..PiConfig::hollot(50)
            }
            .qdisc()
        );
    }

    #[test]
    fn wired_medium_links_the_neighbours() {
        let (s, pos) = placed("[medium]\nkind = \"wired\"\nbandwidth = 2e6\ndelay = 0\n");
        match world_config(&s, &pos).medium {
            MediumConfig::Wired {
                bandwidth_bps,
                links,
                ..
            } => {
                assert_eq!(bandwidth_bps, 2e6);
                assert_eq!(
                    links,
                    vec![
                        (NodeId(0), NodeId(1)),
                        (NodeId(1), NodeId(2)),
                        (NodeId(2), NodeId(3))
                    ]
                );
            }
            other => panic!("expected the wired medium, got {other:?}"),
        }
    }
}
