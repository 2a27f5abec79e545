//! `[topology] kind = "bss"`: the keys, their defaults and exact messages, and the
//! placement (the access point's stations on a circle, wired hosts off the channel).

use super::random_flows_tests::place_error;
use super::tests::{base_with, errors, ok, one_error};
use crate::build::{neighbour_graph, routing_table};
use crate::schema::*;
use crate::topology::validate_and_place;
use airqueue_sim::NodeId;

/// The chain of BASE replaced by a BSS topology with the given keys (the flow stays
/// 0 -> 4).
fn bss(keys: &str) -> String {
    base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        &format!("kind = \"bss\"\n{keys}"),
    )
}

#[test]
fn bss_defaults_and_every_key() {
    assert_eq!(
        ok(&bss("stations = 4\nradius = 10")).topology,
        Topology::Bss {
            stations: 4,
            radius_m: 10.0,
            wired_hosts: 1,
            wire_bandwidth_bps: 100e6,
            wire_delay_s: 0.025,
            wire_capacity_pkts: 1000,
        }
    );
    let s = ok(&bss(
        "stations = 3\nradius = 20\nwired_hosts = 2\nwire_bandwidth = 1e9\nwire_delay = 0\n\
         wire_capacity = 7",
    ));
    assert_eq!(
        s.topology,
        Topology::Bss {
            stations: 3,
            radius_m: 20.0,
            wired_hosts: 2,
            wire_bandwidth_bps: 1e9,
            wire_delay_s: 0.0,
            wire_capacity_pkts: 7,
        }
    );
    assert_eq!(s.topology.node_count(), 6);
    assert_eq!(s.topology.radio_nodes(), 4);
    assert_eq!(s.topology.wires(), vec![(0, 4), (0, 5)]);
    // No wired host: a plain BSS.
    let s = ok(&bss("stations = 4\nradius = 10\nwired_hosts = 0"));
    assert_eq!(s.topology.node_count(), 5);
    assert!(s.topology.wires().is_empty());
}

#[test]
fn bss_keys_are_rejected_for_other_kinds() {
    assert_eq!(
        one_error(&base_with("nodes = 5\n", "nodes = 5\nstations = 4\n")),
        "topology.stations: not used by kind \"chain\"; stations applies only to kind bss"
    );
    assert_eq!(
        errors(&base_with(
            "nodes = 5\n",
            "nodes = 5\nwired_hosts = 1\nwire_bandwidth = 1e8\nwire_delay = 0.1\n\
             wire_capacity = 10\n"
        )),
        [
            "topology.wired_hosts: not used by kind \"chain\"; wired_hosts applies only to kind bss",
            "topology.wire_bandwidth: not used by kind \"chain\"; wire_bandwidth applies only to kind bss",
            "topology.wire_delay: not used by kind \"chain\"; wire_delay applies only to kind bss",
            "topology.wire_capacity: not used by kind \"chain\"; wire_capacity applies only to kind bss",
        ]
    );
    assert_eq!(
        one_error(&bss("stations = 4\nradius = 10\nnodes = 5")),
        "topology.nodes: not used by kind \"bss\"; nodes applies only to kinds chain, star, random"
    );
}

#[test]
fn bss_mistakes_are_named() {
    assert_eq!(
        errors(&bss("wired_hosts = -1\nwire_bandwidth = 0\nwire_delay = -1\nwire_capacity = 0")),
        [
            "topology.stations: missing required key; expected an integer number of stations in 1..=9999",
            "topology.radius: missing required key; expected a distance in metres > 0",
            "topology.wired_hosts: expected an integer number of hosts in 0..=9999, got -1",
            "topology.wire_bandwidth: expected bit/s > 0, got 0",
            "topology.wire_delay: expected a number of seconds >= 0, got -1",
            "topology.wire_capacity: expected an integer number of packets in 1..=100000, got 0",
        ]
    );
    assert_eq!(
        one_error(&bss("stations = 0\nradius = 10")),
        "topology.stations: expected an integer number of stations in 1..=9999, got 0"
    );
    assert_eq!(
        one_error(&bss("stations = 9000\nradius = 10\nwired_hosts = 1000")),
        "topology: an access point with 9000 stations and 1000 wired hosts has 10001 nodes; \
         a topology may have at most 10000"
    );
    assert_eq!(
        one_error(&format!(
            "{}[medium]\nkind = \"wired\"\n",
            bss("stations = 4\nradius = 10")
        )),
        "medium.kind: \"wired\" does not go with topology.kind = \"bss\", whose access point \
         and stations share the 802.11 channel and whose wired hosts are wired by the topology \
         (topology.wire_bandwidth, topology.wire_delay); remove [medium] or set \
         medium.kind = \"wifi\""
    );
    assert_eq!(
        one_error(&format!(
            "{}[[link]]\na = 1\nb = 5\nloss = 0.1\n",
            bss("stations = 4\nradius = 10")
        )),
        "link[0]: node 5 is a wired host of the bss topology, not on the 802.11 channel; \
         [[link]] loss applies to radio links between nodes 0..=4"
    );
    assert_eq!(
        place_error(&bss("stations = 4\nradius = 300")),
        [
            "topology.radius: stations 300 m from the access point are beyond radio.tx_range = \
          250 m and could not reach it; use a radius of at most 250 m or raise radio.tx_range"
        ]
    );
}

#[test]
fn bss_places_stations_like_a_star_and_wired_hosts_nowhere() {
    let text = format!(
        "{}[[flow]]\nkind = \"udp\"\nsrc = 6\ndst = 2\nrate = 1e5\n",
        bss("stations = 4\nradius = 250\nwired_hosts = 2")
    );
    let (s, pos) = validate_and_place(&super::toml_to_json(&text).unwrap()).unwrap();
    let star = validate_and_place(
        &super::toml_to_json(&base_with(
            "kind = \"chain\"\nnodes = 5\nspacing = 200",
            "kind = \"star\"\nnodes = 5\nradius = 250",
        ))
        .unwrap(),
    )
    .unwrap()
    .1;
    assert_eq!(pos[..5], star[..]);
    assert!(pos[5..].iter().flatten().all(|c| c.is_nan()), "{pos:?}");
    // Radio neighbours within range (the stations 250 m out hear the AP; the ones across
    // the circle, 354 m and 500 m apart, hear neither each other nor more), plus the wires.
    let adj = neighbour_graph(&s, &pos);
    assert_eq!(
        adj,
        vec![
            vec![1, 2, 3, 4, 5, 6],
            vec![0],
            vec![0],
            vec![0],
            vec![0],
            vec![0],
            vec![0]
        ]
    );
    // A wired host reaches a station through the AP, with either metric.
    for metric in ["hops", "etx"] {
        let text =
            format!("{text}[routing]\nmetric = \"{metric}\"\n[radio]\nfading = \"rayleigh\"\n");
        let (s, pos) = validate_and_place(&super::toml_to_json(&text).unwrap()).unwrap();
        let routes = routing_table(&s, &pos, &neighbour_graph(&s, &pos));
        assert_eq!(routes.next_hop(NodeId(6), NodeId(2)), Some(NodeId(0)));
        assert_eq!(routes.next_hop(NodeId(0), NodeId(6)), Some(NodeId(6)));
        assert_eq!(routes.next_hop(NodeId(2), NodeId(5)), Some(NodeId(0)));
    }
}
