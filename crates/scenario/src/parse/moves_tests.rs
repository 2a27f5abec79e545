//! `[[move]]`: a valid schedule reaches the world as positions, and each mistake gets its
//! exact message naming the key path.

use super::tests::{base_with, errors, ok, one_error};
use super::toml_to_json;
use crate::build::world_config;
use crate::schema::*;
use crate::topology::validate_and_place;
use airqueue_kernel::Time;
use airqueue_sim::medium::wifi::NodeMove;
use airqueue_sim::{MediumConfig, NodeId};

/// A BSS of four stations 10 m from the AP and one wired host (node 5), plus `extra`.
fn bss(extra: &str) -> String {
    let s = base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"bss\"\nstations = 4\nradius = 10",
    );
    format!("{s}{extra}")
}

const AWAY: &str = "[[move]]\nat = 30.0\nnodes = [1, 3]\naway_from = 0\ndistance = 100\n";

#[test]
fn a_move_puts_its_nodes_at_the_distance_on_the_line_from_the_reference() {
    let text = bss(&format!(
        "{AWAY}[[move]]\nat = 40\nnodes = [2]\naway_from = 4\ndistance = 5\n[mac]\n\
         rate_control = \"aarf\"\n"
    ));
    let s = ok(&text);
    assert_eq!(
        s.moves,
        [
            MoveSpec {
                at_s: 30.0,
                nodes: vec![1, 3],
                away_from: 0,
                distance_m: 100.0,
            },
            MoveSpec {
                at_s: 40.0,
                nodes: vec![2],
                away_from: 4,
                distance_m: 5.0,
            },
        ]
    );
    let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    let MediumConfig::WifiAndWires { wifi, .. } = world_config(&s, &pos).medium else {
        panic!("a BSS has wires beside the channel")
    };
    let moved: Vec<(Time, NodeId)> = wifi.moves.iter().map(|m| (m.at, m.node)).collect();
    let at = Time::from_secs;
    assert_eq!(
        moved,
        [
            (at(30), NodeId(1)),
            (at(30), NodeId(3)),
            (at(40), NodeId(2))
        ]
    );
    // Stations 1 and 3 sit at 0 and 180 degrees, 10 m out; 2 and 4 at 90 and 270.
    let near = |m: &NodeMove, x: f64, y: f64| {
        assert!(
            (m.to_m[0] - x).abs() < 1e-9 && (m.to_m[1] - y).abs() < 1e-9,
            "{m:?}"
        )
    };
    near(&wifi.moves[0], 100.0, 0.0);
    near(&wifi.moves[1], -100.0, 0.0);
    near(&wifi.moves[2], 0.0, -5.0);
    assert!(ok(&bss("")).moves.is_empty());
}

#[test]
fn each_mistake_names_its_key() {
    assert_eq!(
        errors(&bss(
            "[[move]]\nat = 60\nnodes = [9, 5, 1, 1]\naway_from = 1\ndistance = 2e6\n"
        )),
        [
            "move[0].at: 60 s is not within the run; give a time in [0, 60) (duration = 60 s)",
            "move[0].nodes[0]: node 9 does not exist; the topology has 6 nodes (0..5)",
            "move[0].nodes[1]: node 5 is a wired host, not on the 802.11 channel; a move \
             applies to nodes with a radio (0..=4)",
            "move[0].nodes[3]: node 1 is already listed at move[0].nodes[2]; list each node \
             once",
            "move[0].distance: 2e6 m is above 1e6 m (no 802.11 link spans 1000 km; for \
             positions this bounds |x| and |y|); use a value in [0, 1e6] m",
        ]
    );
    assert_eq!(
        one_error(&bss(
            "[[move]]\nat = 1\nnodes = [1, 2]\naway_from = 2\ndistance = 50\n"
        )),
        "move[0].away_from: node 2 is one of the moved nodes; give a node that stays, e.g. \
         the access point"
    );
    assert_eq!(
        one_error(&bss(
            "[[move]]\nat = 1\nnodes = [1]\naway_from = 5\ndistance = 50\n"
        )),
        "move[0].away_from: node 5 is a wired host, which has no position; give a node \
         with a radio (0..=4)"
    );
    assert_eq!(
        errors(&bss("[[move]]\nnode = [1]\ndistance = 0\n")),
        [
            "move[0].at: missing required key; expected a time in seconds >= 0",
            "move[0].nodes: missing required key; expected a non-empty array of node ids, \
             e.g. nodes = [5, 6]",
            "move[0].away_from: missing required key; expected the id of the node the \
             others move away from, e.g. away_from = 0 (a bss's access point)",
            "move[0].distance: expected a distance in metres > 0, got 0",
            "move[0].node: unknown key; did you mean \"nodes\"?",
        ]
    );
    let wired = format!(
        "{}[medium]\nkind = \"wired\"\nbandwidth = 1e6\ndelay = 0.001\n\
         [[move]]\nat = 1\nnodes = [1]\naway_from = 0\ndistance = 50\n",
        super::tests::BASE
    );
    assert_eq!(
        one_error(&wired),
        "move: moves 802.11 radios, but medium.kind is \"wired\"; remove [[move]] or set \
         medium.kind = \"wifi\""
    );
}

#[test]
fn a_node_on_its_reference_has_no_direction_to_move_in() {
    let text = base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"explicit\"\npositions = [[0, 0], [0, 0], [100, 0], [200, 0], [300, 0]]",
    ) + "[[move]]\nat = 1\nnodes = [2, 1]\naway_from = 0\ndistance = 50\n";
    let errs = validate_and_place(&toml_to_json(&text).unwrap()).unwrap_err();
    let msgs: Vec<String> = errs.0.iter().map(ToString::to_string).collect();
    assert_eq!(
        msgs,
        [
            "move[0].nodes[1]: node 1 is where node 0 is, so moving away from it has no \
          direction; place the nodes apart or use another away_from"
        ]
    );
}
