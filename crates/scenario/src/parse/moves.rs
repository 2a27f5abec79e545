//! `[[move]]`: scheduled jumps of 802.11 nodes (seed 004, section IV-B: the uplink
//! stations "move far away from the AP at the time of t0"). Each entry needs `at` within
//! the run, `nodes` that exist and have a radio, `away_from` another such node and the
//! `distance` in metres the nodes jump to from it, along the line from it through where
//! they are; the medium must be `wifi`. Any rate control: AARF finds the new rates.

use serde_json::Value;

use super::fields::{node_id, Errs, Fields};
use super::{check_node, distance};
use crate::error::ConfigError;
use crate::schema::{Medium, MoveSpec, Topology};
use airqueue_kernel::Time;
use airqueue_sim::ids::NodeId;
use airqueue_sim::medium::wifi::NodeMove;

/// Reads every `[[move]]` of a scenario on `topology`; `duration` is the run's (`None`
/// when invalid, already reported, which skips the checks that need it).
pub(super) fn read_and_check(
    items: &[Value],
    topology: Option<&Topology>,
    duration: Option<f64>,
    medium: Option<&Medium>,
    errs: &mut Errs,
) -> Option<Vec<MoveSpec>> {
    let nodes = topology.map(Topology::node_count);
    let radios = topology.map(Topology::radio_nodes);
    let mut moves = Vec::with_capacity(items.len());
    let mut all_ok = true;
    for (i, item) in items.iter().enumerate() {
        let mut f = Fields::table(item, format!("move[{i}]"), errs);
        let at = super::rate_change::read_at(&mut f, duration, errs);
        let listed = super::rate_change::read_nodes(&mut f, nodes, radios, "a move", errs);
        let from = read_away_from(&mut f, nodes, radios, listed.as_deref(), errs);
        let expected = "a distance in metres > 0";
        let d = f.number(errs, "distance", None, expected, |x| x > 0.0);
        let d = distance(errs, &f.path("distance"), d);
        f.finish(errs);
        match (at, listed, from, d) {
            (Some(at_s), Some(nodes), Some(away_from), Some(distance_m)) => moves.push(MoveSpec {
                at_s,
                nodes,
                away_from,
                distance_m,
            }),
            _ => all_ok = false,
        }
    }
    if !items.is_empty() {
        if let Some(Medium::Wired { .. }) = medium {
            errs.push(ConfigError::new(
                "move",
                "moves 802.11 radios, but medium.kind is \"wired\"; remove [[move]] or set \
                 medium.kind = \"wifi\"",
            ));
        }
    }
    all_ok.then_some(moves)
}

/// `away_from`: a node with a radio, not one of the moved `listed`.
fn read_away_from(
    f: &mut Fields,
    nodes: Option<u32>,
    radios: Option<u32>,
    listed: Option<&[u32]>,
    errs: &mut Errs,
) -> Option<u32> {
    let path = f.path("away_from");
    let Some(v) = f.take("away_from") else {
        if !f.is_broken() {
            errs.push(ConfigError::new(
                path,
                "missing required key; expected the id of the node the others move away \
                 from, e.g. away_from = 0 (a bss's access point)",
            ));
        }
        return None;
    };
    let id = check_node(node_id(v, &path, errs), nodes, &path, errs)?;
    if let Some(r) = radios.filter(|&r| id >= r) {
        errs.push(ConfigError::new(
            path,
            format!(
                "node {id} is a wired host, which has no position; give a node with a radio \
                 (0..={})",
                r - 1
            ),
        ));
        return None;
    }
    if listed.is_some_and(|l| l.contains(&id)) {
        errs.push(ConfigError::new(
            path,
            format!(
                "node {id} is one of the moved nodes; give a node that stays, e.g. the \
                 access point"
            ),
        ));
        return None;
    }
    Some(id)
}

/// Where each move puts its nodes, given where the topology placed them: `distance` from
/// `away_from` along the line from it through the node. An error for a node that sits
/// on `away_from` (no direction to move in) goes to `errs` and gets no move.
pub fn resolve(
    moves: &[MoveSpec],
    positions: &[[f64; 2]],
    errs: &mut Vec<ConfigError>,
) -> Vec<NodeMove> {
    let mut out = Vec::with_capacity(moves.iter().map(|m| m.nodes.len()).sum());
    for (i, m) in moves.iter().enumerate() {
        let o = positions[m.away_from as usize];
        for (j, &n) in m.nodes.iter().enumerate() {
            let p = positions[n as usize];
            let (dx, dy) = (p[0] - o[0], p[1] - o[1]);
            let len = dx.hypot(dy);
            if len > 0.0 {
                let k = m.distance_m / len;
                out.push(NodeMove {
                    at: Time::from_secs_f64(m.at_s),
                    node: NodeId(n),
                    to_m: [o[0] + dx * k, o[1] + dy * k],
                });
            } else {
                errs.push(ConfigError::new(
                    format!("move[{i}].nodes[{j}]"),
                    format!(
                        "node {n} is where node {} is, so moving away from it has no \
                         direction; place the nodes apart or use another away_from",
                        m.away_from
                    ),
                ));
            }
        }
    }
    out
}
