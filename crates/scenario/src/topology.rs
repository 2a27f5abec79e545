//! Node placement for each topology kind, the unit-disk neighbour graph under a range, and
//! the checks that need positions: connecting a random topology and flow reachability.
//!
//! Placement is a pure function of (topology, seed, tx_range) so that a run is reproducible
//! from its scenario file alone.

use std::collections::{BTreeMap, BTreeSet};
use std::f64::consts::TAU;

use airqueue_kernel::{RngStream, StreamKey};
use serde_json::Value;

use crate::error::{ConfigError, ConfigErrors};
use crate::parse::{parse_value, MAX_NODES};
use crate::schema::{FlowSpec, RandomFlows, Scenario, Topology};

/// How many layouts a connected random topology may draw before giving up. Enough for
/// any area where connectivity is merely unlikely; a layout that fails 1000 times is a
/// configuration to change, not a case to retry harder.
pub const MAX_RANDOM_DRAWS: u32 = 1000;

/// Relative slack on the range test, so that nodes placed exactly `tx_range` apart (a
/// chain with `spacing = tx_range`, a star with `radius = tx_range`) count as neighbours
/// despite the rounding of `cos`/`sin` and squaring.
const RANGE_SLACK: f64 = 1e-9;

/// Node positions in metres, indexed by node id.
///
/// chain: along x from (0, 0); grid: row-major, id = r * cols + c at (c, r) * spacing;
/// star: node 0 at the origin, nodes 1..n-1 evenly on the circle of `radius` starting on
/// the positive x axis; random: uniform in [0, w) x [0, h) from the stream
/// (seed, GLOBAL, "topology.random"), drawn x then y per node, and when `connected` whole
/// layouts are redrawn from the same stream until the unit-disk graph under `tx_range_m` is
/// connected; explicit: as given; bss: the access point and its stations as a star of
/// `stations + 1` nodes, then the wired hosts at (NaN, NaN), since they are nowhere on the
/// channel.
pub fn positions(topology: &Topology, seed: u64, tx_range_m: f64) -> Result<Vec<[f64; 2]>, String> {
    let n = topology.node_count();
    if n > MAX_NODES {
        return Err(format!(
            "{n} nodes is more than the {MAX_NODES} a topology may have"
        ));
    }
    Ok(match topology {
        Topology::Chain { nodes, spacing_m } => (0..*nodes)
            .map(|i| [f64::from(i) * spacing_m, 0.0])
            .collect(),
        Topology::Grid {
            rows,
            cols,
            spacing_m,
        } => (0..*rows)
            .flat_map(|r| {
                (0..*cols).map(move |c| [f64::from(c) * spacing_m, f64::from(r) * spacing_m])
            })
            .collect(),
        Topology::Star { nodes, radius_m } => star(*nodes, *radius_m),
        Topology::Random {
            nodes,
            area_m,
            connected,
        } => random(*nodes, *area_m, *connected, seed, tx_range_m)?,
        Topology::Explicit { positions_m } => positions_m.clone(),
        Topology::Bss {
            stations, radius_m, ..
        } => {
            let mut p = star(stations.saturating_add(1), *radius_m);
            p.resize(n as usize, [f64::NAN, f64::NAN]);
            p
        }
    })
}

/// Node 0 at the origin, nodes 1..n-1 evenly on the circle of `radius_m` starting on the
/// positive x axis.
fn star(nodes: u32, radius_m: f64) -> Vec<[f64; 2]> {
    let around = nodes.saturating_sub(1);
    let centre = (nodes > 0).then_some([0.0, 0.0]);
    centre
        .into_iter()
        .chain((0..around).map(|i| {
            let angle = TAU * f64::from(i) / f64::from(around);
            [radius_m * angle.cos(), radius_m * angle.sin()]
        }))
        .collect()
}

/// The neighbour graph of a placed topology: the unit-disk graph under `range_m` among the
/// nodes with a radio, plus the topology's wires. Equal to `neighbours(positions,
/// range_m)` for every kind without wires.
pub fn adjacency(topology: &Topology, positions: &[[f64; 2]], range_m: f64) -> Vec<Vec<u32>> {
    let radios = (topology.radio_nodes() as usize).min(positions.len());
    let mut adj = neighbours(&positions[..radios], range_m);
    adj.resize(positions.len(), Vec::new());
    let wires = topology.wires();
    if wires.is_empty() {
        return adj;
    }
    let n = adj.len() as u32;
    for (a, b) in wires.into_iter().filter(|&(a, b)| a < n && b < n) {
        adj[a as usize].push(b);
        adj[b as usize].push(a);
    }
    for list in &mut adj {
        list.sort_unstable();
    }
    adj
}

/// A BSS's stations must hear the access point: its `radius` may not exceed
/// `radio.tx_range`.
fn check_bss_radius(topology: &Topology, range_m: f64) -> Result<(), ConfigError> {
    match topology {
        Topology::Bss { radius_m, .. } if !within([0.0, 0.0], [*radius_m, 0.0], range_m) => {
            Err(ConfigError::new(
                "topology.radius",
                format!(
                    "stations {radius_m} m from the access point are beyond radio.tx_range = \
                     {range_m} m and could not reach it; use a radius of at most {range_m} m or \
                     raise radio.tx_range"
                ),
            ))
        }
        _ => Ok(()),
    }
}

fn random(
    nodes: u32,
    area_m: [f64; 2],
    connected: bool,
    seed: u64,
    tx_range_m: f64,
) -> Result<Vec<[f64; 2]>, String> {
    let [w, h] = area_m;
    let mut rng = RngStream::new(StreamKey::new(seed, StreamKey::GLOBAL, "topology.random"));
    let draws = if connected { MAX_RANDOM_DRAWS } else { 1 };
    for _ in 0..draws {
        let layout: Vec<[f64; 2]> = (0..nodes)
            .map(|_| {
                let x = rng.uniform_range(0.0, w);
                [x, rng.uniform_range(0.0, h)]
            })
            .collect();
        if !connected || is_connected(&neighbours(&layout, tx_range_m)) {
            return Ok(layout);
        }
    }
    Err(format!(
        "could not place {nodes} nodes in a {w} x {h} m area so that all are connected under \
         radio.tx_range = {tx_range_m} m ({MAX_RANDOM_DRAWS} draws tried); use a smaller area, \
         more nodes or a larger radio.tx_range, or set connected = false"
    ))
}

/// Whether two positions are within `range_m` of each other (with `RANGE_SLACK`).
fn within(a: [f64; 2], b: [f64; 2], range_m: f64) -> bool {
    let (dx, dy) = (a[0] - b[0], a[1] - b[1]);
    let r = range_m * (1.0 + RANGE_SLACK);
    dx * dx + dy * dy <= r * r
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Unit-disk adjacency: for each node, the sorted ids of the other nodes within `range_m`.
///
/// A sweep over nodes sorted by x compares only pairs less than `range_m` apart in x, so
/// sparse layouts cost about n log n rather than n^2.
pub fn neighbours(positions: &[[f64; 2]], range_m: f64) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); positions.len()];
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by(|&a, &b| positions[a][0].total_cmp(&positions[b][0]).then(a.cmp(&b)));
    let reach = range_m * (1.0 + RANGE_SLACK);
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if positions[j][0] - positions[i][0] > reach {
                break;
            }
            if within(positions[i], positions[j], range_m) {
                adj[i].push(j as u32);
                adj[j].push(i as u32);
            }
        }
    }
    for list in &mut adj {
        list.sort_unstable();
    }
    adj
}

/// Connected-component label of every node: the smallest node id in its component.
pub fn components(adj: &[Vec<u32>]) -> Vec<u32> {
    let mut label = vec![u32::MAX; adj.len()];
    let mut stack = Vec::new();
    for root in 0..adj.len() {
        if label[root] != u32::MAX {
            continue;
        }
        label[root] = root as u32;
        stack.push(root);
        while let Some(u) = stack.pop() {
            for &v in &adj[u] {
                if let Some(l) = label.get_mut(v as usize) {
                    if *l == u32::MAX {
                        *l = root as u32;
                        stack.push(v as usize);
                    }
                }
            }
        }
    }
    label
}

/// Whether every node can reach every other (true for zero or one node).
pub fn is_connected(adj: &[Vec<u32>]) -> bool {
    components(adj).iter().all(|&l| l == 0)
}

/// Fewest hops from `src` to `dst` (0 when equal), or `None` when `dst` is unreachable or
/// either id is out of range. Breadth-first search.
pub fn hops_between(adj: &[Vec<u32>], src: u32, dst: u32) -> Option<u32> {
    let (src, dst) = (src as usize, dst as usize);
    if src >= adj.len() || dst >= adj.len() {
        return None;
    }
    let mut hops = vec![u32::MAX; adj.len()];
    hops[src] = 0;
    let mut frontier = std::collections::VecDeque::from([src]);
    while let Some(u) = frontier.pop_front() {
        if u == dst {
            return Some(hops[u]);
        }
        let next = hops[u] + 1;
        for &v in &adj[u] {
            if let Some(h) = hops.get_mut(v as usize) {
                if *h == u32::MAX {
                    *h = next;
                    frontier.push_back(v as usize);
                }
            }
        }
    }
    None
}

/// Hop counts from `src` to every node (`u32::MAX`: unreachable). Breadth-first search.
fn hop_counts(adj: &[Vec<u32>], src: usize) -> Vec<u32> {
    let mut hops = vec![u32::MAX; adj.len()];
    let Some(h) = hops.get_mut(src) else {
        return hops;
    };
    *h = 0;
    let mut frontier = std::collections::VecDeque::from([src]);
    while let Some(u) = frontier.pop_front() {
        let next = hops[u] + 1;
        for &v in &adj[u] {
            if let Some(h) = hops.get_mut(v as usize) {
                if *h == u32::MAX {
                    *h = next;
                    frontier.push_back(v as usize);
                }
            }
        }
    }
    hops
}

/// The flows `[flows]` asks for, drawn on the unit-disk graph `adj` (built under
/// `tx_range_m`, which only the error message uses).
///
/// The candidates are the ordered pairs (src, dst) whose hop count lies in
/// `min_hops..=max_hops`, numbered by src then dst. Indices are drawn uniformly from the
/// stream (seed, GLOBAL, "flows.random"), repeats redrawn, so the flows depend only on
/// the seed, the graph and the hop limits, and asking for more flows keeps the first ones.
/// Flow `i` draws its start from the sub-stream `i` of the same key. Counting candidates
/// costs one search per node and memory O(nodes + flows).
pub fn draw_random_flows(
    rf: &RandomFlows,
    seed: u64,
    adj: &[Vec<u32>],
    tx_range_m: f64,
) -> Result<Vec<FlowSpec>, String> {
    let max_hops = rf.max_hops.unwrap_or(u32::MAX);
    let fits = |h: u32| h != 0 && h != u32::MAX && (rf.min_hops..=max_hops).contains(&h);
    let dsts_of = |src: usize| -> Vec<u32> {
        let hops = hop_counts(adj, src);
        (0..adj.len() as u32)
            .filter(|&d| fits(hops[d as usize]))
            .collect()
    };
    // cumulative[s]: candidates whose src is below s.
    let mut cumulative = Vec::with_capacity(adj.len() + 1);
    let mut total = 0u64;
    for src in 0..adj.len() {
        cumulative.push(total);
        total += hop_counts(adj, src)
            .into_iter()
            .filter(|&h| fits(h))
            .count() as u64;
    }
    cumulative.push(total);
    if total < u64::from(rf.count) {
        let apart = match (rf.min_hops, rf.max_hops) {
            (1, None) => "connected".to_string(),
            (lo, None) => format!("at least {lo} hops apart"),
            (lo, Some(hi)) if lo == hi => format!("exactly {lo} hops apart"),
            (lo, Some(hi)) => format!("{lo} to {hi} hops apart"),
        };
        return Err(format!(
            "{} flows asked for, but only {total} (src, dst) pairs are {apart} under \
             radio.tx_range = {tx_range_m} m; ask for fewer flows, widen min_hops/max_hops or \
             change the topology",
            rf.count
        ));
    }
    // The candidates number at most nodes * (nodes - 1) < 2^32 (MAX_NODES is 10,000).
    let Ok(top) = u32::try_from(total - 1) else {
        return Err(format!("{total} candidate pairs are too many to draw from"));
    };
    let key = StreamKey::new(seed, StreamKey::GLOBAL, "flows.random");
    let mut rng = RngStream::new(key);
    let mut taken = BTreeSet::new();
    let mut rows: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    let mut flows = Vec::with_capacity(rf.count as usize);
    while flows.len() < rf.count as usize {
        let index = u64::from(rng.below_inclusive(top));
        if !taken.insert(index) {
            continue;
        }
        let src = cumulative.partition_point(|&c| c <= index) - 1;
        let row = rows.entry(src).or_insert_with(|| dsts_of(src));
        let dst = row[(index - cumulative[src]) as usize];
        let [lo, hi] = rf.start_s;
        let start_s = if hi > lo {
            RngStream::new(key.sub(flows.len() as u64)).uniform_range(lo, hi)
        } else {
            lo
        };
        flows.push(FlowSpec {
            src: src as u32,
            dst,
            start_s,
            ..rf.template.clone()
        });
    }
    Ok(flows)
}

/// Parses and validates a scenario, places its nodes, and checks what needs positions: a
/// random topology must be connectable, and every flow's dst must be reachable from its src
/// under `radio.tx_range`. All flow problems are reported together. Then the flows of
/// `[flows]`, if any, are drawn and appended to `scenario.flows`.
pub fn validate_and_place(v: &Value) -> Result<(Scenario, Vec<[f64; 2]>), ConfigErrors> {
    let mut scenario = parse_value(v)?;
    let range = scenario.radio.tx_range_m;
    let pos = positions(&scenario.topology, scenario.seed, range)
        .map_err(|m| ConfigError::new("topology", m))?;
    check_bss_radius(&scenario.topology, range)?;
    let adj = adjacency(&scenario.topology, &pos, range);
    let label = components(&adj);
    let mut errs = Vec::new();
    crate::parse::moves::resolve(&scenario.moves, &pos, &mut errs);
    for (i, flow) in scenario.flows.iter().enumerate() {
        let (Some(a), Some(b)) = (label.get(flow.src as usize), label.get(flow.dst as usize))
        else {
            // parse_value checked both ids against the node count; keep this an error.
            errs.push(ConfigError::new(
                format!("flow[{i}]"),
                "internal error: node id outside the placed topology",
            ));
            continue;
        };
        if a != b {
            errs.push(ConfigError::new(
                format!("flow[{i}].dst"),
                unreachable_message(flow.src, flow.dst, &pos, range),
            ));
        }
    }
    if let Some(rf) = &scenario.random_flows {
        match draw_random_flows(rf, scenario.seed, &adj, range) {
            Ok(drawn) => scenario.flows.extend(drawn),
            Err(m) => errs.push(ConfigError::new("flows.random", m)),
        }
    }
    if errs.is_empty() {
        Ok((scenario, pos))
    } else {
        Err(ConfigErrors(errs))
    }
}

/// Explains an unreachable destination with the range that would connect it: the fix is
/// then either that range or a layout whose widest gap is smaller.
fn unreachable_message(src: u32, dst: u32, pos: &[[f64; 2]], range: f64) -> String {
    let head =
        format!("node {dst} is not reachable from node {src} under radio.tx_range = {range} m");
    match range_to_connect(pos, src as usize, dst as usize) {
        // Rounded up to the decimetre so that the printed figure does connect them.
        Some(d) => format!(
            "{head}; the longest hop on the best path between them is {:.1} m: raise \
             radio.tx_range to at least that, move nodes closer or add relays",
            (d * 10.0).ceil() / 10.0
        ),
        None => format!("{head}; move nodes closer, add relays or raise radio.tx_range"),
    }
}

/// The smallest range under which `src` reaches `dst`: the minimax path length, i.e. the
/// longest hop on the path whose longest hop is shortest (Prim's algorithm on the complete
/// graph, O(n^2); only run to explain an error).
fn range_to_connect(pos: &[[f64; 2]], src: usize, dst: usize) -> Option<f64> {
    if src >= pos.len() || dst >= pos.len() {
        return None;
    }
    let mut best = vec![f64::INFINITY; pos.len()];
    let mut done = vec![false; pos.len()];
    best[src] = 0.0;
    loop {
        let u = (0..pos.len())
            .filter(|&i| !done[i])
            .min_by(|&a, &b| best[a].total_cmp(&best[b]))?;
        if u == dst {
            return best[u].is_finite().then_some(best[u]);
        }
        done[u] = true;
        for v in 0..pos.len() {
            if !done[v] {
                best[v] = best[v].min(best[u].max(distance(pos[u], pos[v])));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_topology(nodes: u32, w: f64, h: f64, connected: bool) -> Topology {
        Topology::Random {
            nodes,
            area_m: [w, h],
            connected,
        }
    }

    #[test]
    fn chain_runs_along_x_from_origin() {
        let p = positions(
            &Topology::Chain {
                nodes: 3,
                spacing_m: 200.0,
            },
            1,
            250.0,
        )
        .unwrap();
        assert_eq!(p, vec![[0.0, 0.0], [200.0, 0.0], [400.0, 0.0]]);
        assert_eq!(neighbours(&p, 250.0), vec![vec![1], vec![0, 2], vec![1]]);
        assert_eq!(hops_between(&neighbours(&p, 250.0), 0, 2), Some(2));
    }

    #[test]
    fn grid_is_row_major() {
        let p = positions(
            &Topology::Grid {
                rows: 2,
                cols: 3,
                spacing_m: 10.0,
            },
            1,
            250.0,
        )
        .unwrap();
        assert_eq!(p.len(), 6);
        let (r, c, cols) = (1, 2, 3);
        assert_eq!(p[r * cols + c], [20.0, 10.0]);
        assert_eq!(p[2], [20.0, 0.0]);
    }

    #[test]
    fn star_puts_leaves_on_the_circle_and_counts_exact_range_as_in_range() {
        let p = positions(
            &Topology::Star {
                nodes: 5,
                radius_m: 250.0,
            },
            1,
            250.0,
        )
        .unwrap();
        assert_eq!(p[0], [0.0, 0.0]);
        for q in &p[1..] {
            assert!((distance(p[0], *q) - 250.0).abs() < 1e-9);
        }
        assert!(
            (p[2][1] - 250.0).abs() < 1e-9,
            "node 2 is a quarter turn round: {:?}",
            p[2]
        );
        let adj = neighbours(&p, 250.0);
        assert_eq!(adj[0], vec![1, 2, 3, 4]);
        assert!(is_connected(&adj));
    }

    #[test]
    fn neighbours_match_the_quadratic_definition() {
        let p = positions(&random_topology(60, 1000.0, 700.0, false), 7, 250.0).unwrap();
        let slow: Vec<Vec<u32>> = (0..p.len())
            .map(|i| {
                (0..p.len())
                    .filter(|&j| j != i && within(p[i], p[j], 200.0))
                    .map(|j| j as u32)
                    .collect()
            })
            .collect();
        assert_eq!(neighbours(&p, 200.0), slow);
    }

    #[test]
    fn random_layout_is_a_function_of_the_seed() {
        let t = random_topology(30, 1000.0, 1000.0, true);
        let a = positions(&t, 1, 250.0).unwrap();
        assert_eq!(a, positions(&t, 1, 250.0).unwrap());
        assert_ne!(a, positions(&t, 2, 250.0).unwrap());
        assert!(is_connected(&neighbours(&a, 250.0)));
        assert!(a
            .iter()
            .all(|q| (0.0..1000.0).contains(&q[0]) && (0.0..1000.0).contains(&q[1])));
    }

    #[test]
    fn random_layout_that_cannot_connect_is_an_error() {
        let err = positions(&random_topology(3, 1e6, 1e6, true), 1, 250.0).unwrap_err();
        assert!(
            err.contains("use a smaller area, more nodes or a larger radio.tx_range"),
            "{err}"
        );
        assert!(positions(&random_topology(3, 1e6, 1e6, false), 1, 250.0).is_ok());
    }

    #[test]
    fn components_and_hops_on_a_split_graph() {
        let adj = vec![vec![1], vec![0], vec![3], vec![2], vec![]];
        assert_eq!(components(&adj), vec![0, 0, 2, 2, 4]);
        assert!(!is_connected(&adj));
        assert_eq!(hops_between(&adj, 0, 3), None);
        assert_eq!(hops_between(&adj, 2, 2), Some(0));
        assert_eq!(hops_between(&adj, 0, 99), None);
        assert!(is_connected(&[]));
    }

    #[test]
    fn unvalidated_topologies_do_not_panic() {
        assert_eq!(
            positions(
                &Topology::Star {
                    nodes: 0,
                    radius_m: 1.0
                },
                1,
                1.0
            )
            .unwrap(),
            Vec::<[f64; 2]>::new()
        );
        assert_eq!(
            positions(
                &Topology::Star {
                    nodes: 1,
                    radius_m: 1.0
                },
                1,
                1.0
            )
            .unwrap(),
            vec![[0.0, 0.0]]
        );
        assert!(positions(
            &Topology::Grid {
                rows: u32::MAX,
                cols: u32::MAX,
                spacing_m: 1.0
            },
            1,
            1.0
        )
        .is_err());
        let nan = neighbours(&[[f64::NAN, 0.0], [0.0, 0.0]], 10.0);
        assert_eq!(nan, vec![Vec::<u32>::new(), vec![]]);
    }
}
