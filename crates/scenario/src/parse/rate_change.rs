//! `[[rate_change]]`: scheduled data-rate changes of 802.11 links (seed 004, section
//! IV-B). Each entry needs `at` within the run, `nodes` that exist and have a radio, and
//! an 802.11b `data_rate`; the medium must be `wifi` and the rate control `constant`
//! (under AARF the MAC picks its own rates, so a scheduled rate has no clear meaning).

use serde_json::Value;

use super::fields::{describe, node_id, Errs, Fields};
use super::{check_node, DSSS_RATES_BPS};
use crate::error::ConfigError;
use crate::schema::{Mac, Medium, RateChangeSpec, RateControl, Topology};

/// Reads every `[[rate_change]]`. `nodes`: the topology's node count, `radios`: how many
/// of them (ids `0..radios`) have a radio, `duration`: the run's; each `None` when
/// invalid (already reported), which skips the checks that need it.
fn read(
    items: &[Value],
    nodes: Option<u32>,
    radios: Option<u32>,
    duration: Option<f64>,
    errs: &mut Errs,
) -> Option<Vec<RateChangeSpec>> {
    let mut changes = Vec::with_capacity(items.len());
    let mut all_ok = true;
    for (i, item) in items.iter().enumerate() {
        let path = format!("rate_change[{i}]");
        let mut f = Fields::table(item, path, errs);
        let at = read_at(&mut f, duration, errs);
        let listed = read_nodes(&mut f, nodes, radios, "a rate change", errs);
        let expected = "an 802.11b rate in bit/s, one of 1e6, 2e6, 5.5e6, 11e6";
        let rate = f.number(errs, "data_rate", None, expected, |x| {
            DSSS_RATES_BPS.contains(&x)
        });
        f.finish(errs);
        match (at, listed, rate) {
            (Some(at_s), Some(nodes), Some(data_rate_bps)) => changes.push(RateChangeSpec {
                at_s,
                nodes,
                data_rate_bps,
            }),
            _ => all_ok = false,
        }
    }
    all_ok.then_some(changes)
}

/// `at`: a time in seconds within the run (`duration`, when it is known).
pub(super) fn read_at(f: &mut Fields, duration: Option<f64>, errs: &mut Errs) -> Option<f64> {
    let at = f.number(errs, "at", None, "a time in seconds >= 0", |x| x >= 0.0);
    at.filter(|&t| match duration {
        Some(d) if t >= d => {
            errs.push(ConfigError::new(
                f.path("at"),
                format!("{t} s is not within the run; give a time in [0, {d}) (duration = {d} s)"),
            ));
            false
        }
        _ => true,
    })
}

/// `nodes`: a non-empty array of distinct ids of nodes with a radio; `what` names the
/// entry in the message about a wired host ("a rate change").
pub(super) fn read_nodes(
    f: &mut Fields,
    nodes: Option<u32>,
    radios: Option<u32>,
    what: &str,
    errs: &mut Errs,
) -> Option<Vec<u32>> {
    let path = f.path("nodes");
    let expected = "a non-empty array of node ids, e.g. nodes = [5, 6]";
    let items = match f.take("nodes") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(v) => {
            errs.push(ConfigError::new(
                path,
                format!("expected {expected}, got {}", describe(v)),
            ));
            return None;
        }
        None => {
            if !f.is_broken() {
                errs.push(ConfigError::new(
                    path,
                    format!("missing required key; expected {expected}"),
                ));
            }
            return None;
        }
    };
    // (position in the array, id) of each accepted node.
    let mut seen: Vec<(usize, u32)> = Vec::with_capacity(items.len());
    let mut ok = true;
    for (j, v) in items.iter().enumerate() {
        let at = format!("{path}[{j}]");
        let Some(id) = check_node(node_id(v, &at, errs), nodes, &at, errs) else {
            ok = false;
            continue;
        };
        if let Some(r) = radios.filter(|&r| id >= r) {
            errs.push(ConfigError::new(
                at,
                format!(
                    "node {id} is a wired host, not on the 802.11 channel; {what} \
                     applies to nodes with a radio (0..={})",
                    r - 1
                ),
            ));
            ok = false;
        } else if let Some(&(k, _)) = seen.iter().find(|&&(_, n)| n == id) {
            errs.push(ConfigError::new(
                at,
                format!("node {id} is already listed at {path}[{k}]; list each node once"),
            ));
            ok = false;
        } else {
            seen.push((j, id));
        }
    }
    ok.then(|| seen.into_iter().map(|(_, id)| id).collect())
}

/// Reads every `[[rate_change]]` of a scenario on `topology` (see [`read`]) and checks
/// them against its `[medium]` and `[mac]`.
pub(super) fn read_and_check(
    items: &[Value],
    topology: Option<&Topology>,
    duration: Option<f64>,
    (medium, mac): (Option<&Medium>, Option<&Mac>),
    errs: &mut Errs,
) -> Option<Vec<RateChangeSpec>> {
    let nodes = topology.map(Topology::node_count);
    let radios = topology.map(Topology::radio_nodes);
    let changes = read(items, nodes, radios, duration, errs)?;
    check(&changes, medium, mac, errs);
    Some(changes)
}

/// Rate changes need the 802.11 medium and constant rate control.
fn check(changes: &[RateChangeSpec], medium: Option<&Medium>, mac: Option<&Mac>, errs: &mut Errs) {
    if changes.is_empty() {
        return;
    }
    if let Some(Medium::Wired { .. }) = medium {
        errs.push(ConfigError::new(
            "rate_change",
            "changes the 802.11 data rate, but medium.kind is \"wired\"; remove \
             [[rate_change]] or set medium.kind = \"wifi\"",
        ));
    }
    if mac.is_some_and(|m| m.rate_control == RateControl::Aarf) {
        errs.push(ConfigError::new(
            "rate_change",
            "sets link rates on a schedule, which does not go with mac.rate_control = \
             \"aarf\" (AARF picks its own rates); set mac.rate_control = \"constant\" or \
             remove [[rate_change]]",
        ));
    }
}
