//! The run report: the `airqueue run --json` summary of DESIGN.md (keys fixed there),
//! column-oriented end-of-run tables, and the per-bin trace tables (`timeseries`,
//! `queues`, `cwnd`, `rates`) as typed columns filled from each drain of the run's
//! [`Traces`], so that no trace is held for the whole run or as a JSON value per cell.

use crate::build::{neighbour_graph, static_routes};
use crate::schema::{Medium, Scenario};
use airqueue_kernel::Time;
use airqueue_phy::Dbm;
use airqueue_sim::metrics::{jain_index, log_utility, OverflowCounts, Traces};
use airqueue_sim::net::more::MoreFlowStats;
use airqueue_sim::net::{DropReason, StatValue};
use airqueue_sim::qdisc::diffq;
use airqueue_sim::world::QueueControlStats;
use airqueue_sim::{NodeId, RunOutcome};
use serde_json::{json, Map, Value};

/// Flows below this goodput count as starved (DESIGN.md: 1 kb/s).
pub const STARVED_BELOW_BPS: f64 = 1000.0;

/// A float as JSON, `null` when not finite (JSON has no NaN or infinity).
fn num(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

/// Builds the summary object.
pub fn summary(s: &Scenario, out: &RunOutcome, wall_seconds: f64) -> Value {
    let m = &out.metrics;
    let goodputs: Vec<f64> = m.flows.iter().map(|f| f.goodput_bps()).collect();
    let flows: Vec<Value> = s
        .flows
        .iter()
        .zip(&m.flows)
        .enumerate()
        .map(|(i, (spec, fm))| {
            json!({
                "id": i,
                "kind": spec.kind.name,
                "src": spec.src,
                "dst": spec.dst,
                "goodput_bps": num(fm.goodput_bps()),
                "sent_bps": num(fm.sent_bps()),
                "packets_sent": fm.packets_sent,
                "packets_delivered": fm.packets_delivered,
                "mean_delay_s": fm.mean_delay_s().map_or(Value::Null, num),
            })
        })
        .collect();
    let starved: Vec<usize> = goodputs
        .iter()
        .enumerate()
        .filter(|(_, g)| **g < STARVED_BELOW_BPS)
        .map(|(i, _)| i)
        .collect();
    let mut drops = Map::new();
    for (reason, count) in DropReason::ALL.iter().zip(m.drops_by_reason()) {
        drops.insert(reason.name().to_string(), json!(count));
    }
    let simulated = out.simulated.as_secs_f64();
    let c = out.conservation;
    let routing = routing_totals(out);
    let mut summary = json!({
        "name": s.name,
        "seed": s.seed,
        "simulated_seconds": simulated,
        "wall_seconds": wall_seconds,
        "events": out.events,
        "events_per_second": num(out.events as f64 / wall_seconds.max(1e-9)),
        "flows": flows,
        "aggregate_goodput_bps": num(goodputs.iter().sum()),
        "jain_index": jain_index(&goodputs).map_or(Value::Null, num),
        "log_utility": num(log_utility(&goodputs)),
        "starved_flows": starved.len(),
        "starved_flow_ids": starved,
        "drops": drops,
        "routing": routing,
        "conservation": {
            "created": c.created,
            "delivered": c.delivered,
            "dropped": c.dropped,
            "in_flight": c.in_flight,
            "holds": c.holds(),
        },
    });
    if *s.queue.kind == diffq::SCHEME {
        let o = &m.diffq_overflows;
        summary["diffq_overflows"] = json!({
            "first_relay": overflow_counts(&o.first_relay),
            "deeper": overflow_counts(&o.deeper),
        });
    }
    summary
}

/// One side of the summary's `diffq_overflows` (DiffQ queues only).
fn overflow_counts(c: &OverflowCounts) -> Value {
    json!({
        "drops": c.drops,
        "sender_level": c.sender_level,
        "receiver_level": c.receiver_level,
        "stale_by": {
            "0": c.stale_by[0],
            "1-4": c.stale_by[1],
            "5-9": c.stale_by[2],
            "10-19": c.stale_by[3],
            "20+": c.stale_by[4],
        },
    })
}

/// Summary `routing`: `{"kind": "static"}` (with the queue disciplines' control
/// broadcasts summed over the nodes), or the protocol's `kind` and its totals.
fn routing_totals(out: &RunOutcome) -> Value {
    let mut m = Map::new();
    let Some(r) = &out.routing else {
        m.insert("kind".into(), json!("static"));
        // Backpressure's control packets (seed 002, 4.1.2), summed over the nodes.
        if !out.queue_control.is_empty() {
            let sum = |f: fn(&QueueControlStats) -> u64| {
                json!(out.queue_control.iter().map(f).sum::<u64>())
            };
            m.insert("bp_control_sent".into(), sum(|s| s.sent));
            m.insert("bp_control_entries_sent".into(), sum(|s| s.entries_sent));
            m.insert("bp_control_received".into(), sum(|s| s.received));
            m.insert("bp_control_lost".into(), sum(|s| s.lost));
        }
        return Value::Object(m);
    };
    m.insert("kind".into(), json!(r.kind));
    for &(name, v) in &r.totals {
        m.insert(name.into(), stat(v));
    }
    Value::Object(m)
}

fn stat(v: StatValue) -> Value {
    match v {
        StatValue::Count(n) => json!(n),
        StatValue::Real(x) => num(x),
        StatValue::Missing => Value::Null,
    }
}

/// Column-oriented end-of-run tables: `flows`, `drops`, `flow_drops` (drops of flows'
/// packets by flow, node, reason and whether the node is the packet's origin),
/// `nodes` (positions; null for a BSS's wired hosts, which are not on the channel),
/// `mac` (802.11 counters per node; empty for the wired medium), `mac_levels`
/// (802.11 data frames, failed attempts and retry-limit drops per node and priority
/// level), `routing` (AODV or OLSR counters per node; empty with static routing), one
/// table per transport that keeps one (its name and columns as the transport declares
/// them, one row per flow of it: `RunOutcome::transports`) and
/// `more` (one row per MORE flow: batches decoded, coded packets sent by the source and
/// by forwarders, innovative and redundant receptions, ACKs), `routes` (each flow's path,
/// [`routes_table`]) and `links` (neighbour pairs the PHY connects, [`links_table`]). The
/// per-bin tables are [`TraceColumns`].
pub fn tables(s: &Scenario, positions: &[[f64; 2]], out: &RunOutcome) -> Value {
    let m = &out.metrics;

    let mut flows = Columns::default();
    for (i, (spec, fm)) in s.flows.iter().zip(&m.flows).enumerate() {
        flows.push("id", json!(i));
        flows.push("kind", json!(spec.kind.name));
        flows.push("src", json!(spec.src));
        flows.push("dst", json!(spec.dst));
        flows.push("start_s", json!(spec.start_s));
        flows.push("stop_s", json!(spec.stop_s));
        flows.push("packet_size_bytes", json!(spec.packet_size_bytes));
        flows.push("goodput_bps", num(fm.goodput_bps()));
        flows.push("sent_bps", num(fm.sent_bps()));
        flows.push("packets_sent", json!(fm.packets_sent));
        flows.push("packets_delivered", json!(fm.packets_delivered));
        flows.push("bytes_delivered", json!(fm.bytes_delivered));
        flows.push("mean_delay_s", fm.mean_delay_s().map_or(Value::Null, num));
        flows.push("delay_std_s", fm.delay_std_s().map_or(Value::Null, num));
        flows.push(
            "delay_variation_s",
            fm.delay_variation_s().map_or(Value::Null, num),
        );
    }

    let mut drops = Columns::default();
    for (node, counts) in m.drops.iter().enumerate() {
        for (reason, &count) in DropReason::ALL.iter().zip(counts) {
            if count > 0 {
                drops.push("node", json!(node));
                drops.push("reason", json!(reason.name()));
                drops.push("packets", json!(count));
            }
        }
    }

    let mut flow_drops = Columns::default();
    for (k, &count) in &m.flow_drops {
        flow_drops.push("flow", json!(k.flow.0));
        flow_drops.push("node", json!(k.node.0));
        flow_drops.push("reason", json!(k.reason.name()));
        flow_drops.push("at_origin", json!(u8::from(k.at_origin)));
        flow_drops.push("packets", json!(count));
    }

    let mut mac = Columns::default();
    let mut mac_levels = Columns::default();
    let duration_s = out.simulated.as_secs_f64().max(1e-12);
    for (node, st) in out.mac.iter().enumerate() {
        mac.push("node", json!(node));
        mac.push("data_tx", json!(st.data_tx));
        mac.push("retries", json!(st.retries));
        mac.push("rts_tx", json!(st.rts_tx));
        mac.push("retry_limit_drops", json!(st.retry_limit_drops));
        mac.push("rx_ok", json!(st.rx_ok));
        mac.push("rx_failed", json!(st.rx_failed));
        mac.push("rx_sensed", json!(st.rx_sensed));
        mac.push("duplicates", json!(st.duplicates));
        mac.push("internal_collisions", json!(st.internal_collisions));
        mac.push(
            "busy_fraction",
            num(st.busy_time.as_secs_f64() / duration_s),
        );
        mac.push("data_airtime_s", num(st.data_airtime.as_secs_f64()));
        mac.push("tcp_ack_tx", json!(st.tcp_ack_tx));
        mac.push("tcp_ack_airtime_s", num(st.tcp_ack_airtime.as_secs_f64()));
        for (level, l) in st.by_level.iter().enumerate() {
            if l.data_tx + l.failed_attempts + l.retry_limit_drops > 0 {
                mac_levels.push("node", json!(node));
                mac_levels.push("level", json!(level));
                mac_levels.push("data_tx", json!(l.data_tx));
                mac_levels.push("failed_attempts", json!(l.failed_attempts));
                mac_levels.push("retry_limit_drops", json!(l.retry_limit_drops));
            }
        }
    }

    let mut more = Columns::default();
    for (flow, stats) in out.net.more.iter().enumerate() {
        let Some(x) = stats else { continue };
        more.push("flow", json!(flow));
        more.push("forwarders", json!(x.forwarders.len()));
        for (name, v) in more_counters(x) {
            more.push(name, json!(v));
        }
    }

    // The protocol's per-node report (empty with static routing).
    let routing = match &out.routing {
        Some(r) => stat_rows(
            "node",
            &r.columns,
            r.rows.iter().map(Vec::as_slice).enumerate(),
        ),
        None => stat_rows("node", &[], std::iter::empty()),
    };

    let mut nodes = Columns::default();
    for (i, p) in positions.iter().enumerate() {
        nodes.push("node", json!(i));
        nodes.push("x_m", json!(p[0]));
        nodes.push("y_m", json!(p[1]));
    }

    let mut tables = Map::new();
    tables.insert("flows".into(), flows.finish(&FLOW_COLUMNS));
    tables.insert("drops".into(), drops.finish(&["node", "reason", "packets"]));
    tables.insert(
        "flow_drops".into(),
        flow_drops.finish(&["flow", "node", "reason", "at_origin", "packets"]),
    );
    tables.insert("nodes".into(), nodes.finish(&["node", "x_m", "y_m"]));
    tables.insert("mac".into(), mac.finish(&MAC_COLUMNS));
    tables.insert(
        "mac_levels".into(),
        mac_levels.finish(&[
            "node",
            "level",
            "data_tx",
            "failed_attempts",
            "retry_limit_drops",
        ]),
    );
    // Each transport's per-flow table, as it declares it.
    for t in &out.transports.tables {
        let rows = t.rows.iter().map(|r| (r.flow.index(), r.values.as_slice()));
        tables.insert(t.spec.name.into(), stat_rows("flow", t.spec.columns, rows));
    }
    tables.insert("more".into(), more.finish(&MORE_COLUMNS));
    tables.insert("routing".into(), routing);
    tables.insert("routes".into(), routes_table(s, positions));
    tables.insert("links".into(), links_table(s, positions));
    Value::Object(tables)
}

/// A table of a component's rows of named values, each row keyed by its `key` column (a
/// node or flow id): the `routing` table, and the transports' tables.
fn stat_rows<'a>(
    key: &str,
    columns: &[&str],
    rows: impl Iterator<Item = (usize, &'a [StatValue])>,
) -> Value {
    let mut table = Columns::default();
    for (id, row) in rows {
        table.push(key, json!(id));
        for (&name, &v) in columns.iter().zip(row) {
            table.push(name, stat(v));
        }
    }
    let names: Vec<&str> = std::iter::once(key)
        .chain(columns.iter().copied())
        .collect();
    table.finish(&names)
}

/// `routes`: the path of every flow, one row per (flow, hop index, node) from the source
/// (hop 0) to the destination, over the static routing table the run builds (shortest
/// paths on the neighbour graph with `routing.metric`). Under AODV or OLSR this is the
/// path those protocols settle on in the idle network, not a record of where packets
/// went; backpressure and MORE forward off it. A flow without a route has no rows.
fn routes_table(s: &Scenario, positions: &[[f64; 2]]) -> Value {
    let table = static_routes(s, positions, &neighbour_graph(s, positions));
    let mut routes = Columns::default();
    for (i, f) in s.flows.iter().enumerate() {
        let (src, dst) = (NodeId(f.src), NodeId(f.dst));
        let mut path = vec![src];
        let mut at = src;
        while at != dst && path.len() <= positions.len() {
            let Some(next) = table.next_hop(at, dst) else {
                path.clear();
                break;
            };
            path.push(next);
            at = next;
        }
        if at != dst {
            continue;
        }
        for (hop, node) in path.iter().enumerate() {
            routes.push("flow", json!(i));
            routes.push("hop", json!(hop));
            routes.push("node", json!(node.0));
        }
    }
    routes.finish(&["flow", "hop", "node"])
}

/// `links`: one row per neighbour pair `a < b`. On the 802.11 medium a `radio` link is a
/// pair of radios whose received power under `radio.propagation` is at or above the
/// receive threshold (either direction: the model is symmetric), with that power; a
/// `wire` is a BSS's wire or, on the wired medium, a point-to-point link (no power).
fn links_table(s: &Scenario, positions: &[[f64; 2]]) -> Value {
    let mut links = Columns::default();
    let mut push = |a: usize, b: usize, kind: &str, power: Value| {
        let [xa, ya] = positions[a];
        let [xb, yb] = positions[b];
        links.push("a", json!(a));
        links.push("b", json!(b));
        links.push("kind", json!(kind));
        links.push("distance_m", num((xa - xb).hypot(ya - yb)));
        links.push("rx_power_dbm", power);
    };
    match s.medium {
        Medium::Wifi => {
            let r = &s.radio;
            let model = r.propagation.model(r.tx_range_m, r.cs_range_m);
            let radios = (s.topology.radio_nodes() as usize).min(positions.len());
            let tx = Dbm(r.tx_power_dbm);
            // Only pairs closer than where the power falls below the threshold can be
            // links: a sweep over x finds them without visiting all n^2 pairs.
            let reach_m = model.distance_below(tx, Dbm(r.rx_threshold_dbm).to_mw().0);
            let mut by_x: Vec<usize> = (0..radios).collect();
            by_x.sort_by(|&a, &b| positions[a][0].total_cmp(&positions[b][0]));
            let mut pairs = Vec::new();
            for (i, &a) in by_x.iter().enumerate() {
                let [xa, ya] = positions[a];
                for &b in by_x[i + 1..].iter() {
                    let [xb, yb] = positions[b];
                    if xb - xa > reach_m {
                        break;
                    }
                    let power = model.rx_power(tx, (xa - xb).hypot(ya - yb));
                    if power.0 >= r.rx_threshold_dbm {
                        pairs.push((a.min(b), a.max(b), power.0));
                    }
                }
            }
            pairs.sort_by_key(|&(a, b, _)| (a, b));
            for (a, b, power) in pairs {
                push(a, b, "radio", num(power));
            }
            for (a, b) in s.topology.wires() {
                push(a as usize, b as usize, "wire", Value::Null);
            }
        }
        Medium::Wired { .. } => {
            for (a, ns) in neighbour_graph(s, positions).iter().enumerate() {
                for &b in ns.iter().filter(|&&b| b as usize > a) {
                    push(a, b as usize, "wire", Value::Null);
                }
            }
        }
    }
    links.finish(&["a", "b", "kind", "distance_m", "rx_power_dbm"])
}

/// The counters of a MORE flow's row, by column name.
fn more_counters(x: &MoreFlowStats) -> [(&'static str, u64); 11] {
    [
        ("batches_decoded", x.batches_decoded),
        ("source_sent", x.source_sent),
        ("forwarder_sent", x.forwarder_sent),
        ("forwarder_innovative", x.forwarder_innovative),
        ("forwarder_redundant", x.forwarder_redundant),
        ("destination_innovative", x.destination_innovative),
        ("destination_redundant", x.destination_redundant),
        ("stale_credits", x.stale_credits),
        ("acks_sent", x.acks_sent),
        ("acks_received", x.acks_received),
        ("receive_overflow", x.receive_overflow),
    ]
}

const MORE_COLUMNS: [&str; 13] = [
    "flow",
    "forwarders",
    "batches_decoded",
    "source_sent",
    "forwarder_sent",
    "forwarder_innovative",
    "forwarder_redundant",
    "destination_innovative",
    "destination_redundant",
    "stale_credits",
    "acks_sent",
    "acks_received",
    "receive_overflow",
];

const MAC_COLUMNS: [&str; 14] = [
    "node",
    "data_tx",
    "retries",
    "rts_tx",
    "retry_limit_drops",
    "rx_ok",
    "rx_failed",
    "rx_sensed",
    "duplicates",
    "internal_collisions",
    "busy_fraction",
    "data_airtime_s",
    "tcp_ack_tx",
    "tcp_ack_airtime_s",
];

const FLOW_COLUMNS: [&str; 15] = [
    "id",
    "kind",
    "src",
    "dst",
    "start_s",
    "stop_s",
    "packet_size_bytes",
    "goodput_bps",
    "sent_bps",
    "packets_sent",
    "packets_delivered",
    "bytes_delivered",
    "mean_delay_s",
    "delay_std_s",
    "delay_variation_s",
];

/// Builds a table column by column; empty tables still list their columns.
#[derive(Default)]
struct Columns {
    cols: Map<String, Value>,
}

impl Columns {
    fn push(&mut self, col: &str, v: Value) {
        match self.cols.get_mut(col) {
            Some(Value::Array(a)) => a.push(v),
            _ => {
                self.cols.insert(col.to_string(), Value::Array(vec![v]));
            }
        }
    }

    fn finish(mut self, names: &[&str]) -> Value {
        for n in names {
            self.cols
                .entry(n.to_string())
                .or_insert_with(|| Value::Array(vec![]));
        }
        Value::Object(self.cols)
    }
}

/// One typed column of a trace table. Floats use NaN for null (a missing or non-finite
/// value, as `null` in the JSON tables); `OptInt` carries its own validity.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    Int(Vec<i64>),
    OptInt(Vec<Option<i64>>),
    Float(Vec<f64>),
    Text(Vec<&'static str>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::Int(v) => v.len(),
            Column::OptInt(v) => v.len(),
            Column::Float(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn clear(&mut self) {
        match self {
            Column::Int(v) => v.clear(),
            Column::OptInt(v) => v.clear(),
            Column::Float(v) => v.clear(),
            Column::Text(v) => v.clear(),
        }
    }

    fn ints(&mut self) -> &mut Vec<i64> {
        match self {
            Column::Int(v) => v,
            _ => unreachable!("column is not Int"),
        }
    }

    fn opt_ints(&mut self) -> &mut Vec<Option<i64>> {
        match self {
            Column::OptInt(v) => v,
            _ => unreachable!("column is not OptInt"),
        }
    }

    fn floats(&mut self) -> &mut Vec<f64> {
        match self {
            Column::Float(v) => v,
            _ => unreachable!("column is not Float"),
        }
    }

    fn texts(&mut self) -> &mut Vec<&'static str> {
        match self {
            Column::Text(v) => v,
            _ => unreachable!("column is not Text"),
        }
    }
}

/// A trace table's columns in their output order.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceTable {
    pub name: &'static str,
    pub columns: Vec<(&'static str, Column)>,
}

impl TraceTable {
    fn new(name: &'static str, columns: Vec<(&'static str, Column)>) -> Self {
        TraceTable { name, columns }
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    /// The table as JSON columns (`{"<column>": [values...]}`, null for NaN and `None`),
    /// as in the whole report of `api::run_json`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (name, col) in &self.columns {
            let values: Vec<Value> = match col {
                Column::Int(v) => v.iter().map(|x| json!(x)).collect(),
                Column::OptInt(v) => v
                    .iter()
                    .map(|x| x.map_or(Value::Null, |x| json!(x)))
                    .collect(),
                Column::Float(v) => v.iter().map(|&x| num(x)).collect(),
                Column::Text(v) => v.iter().map(|x| json!(x)).collect(),
            };
            m.insert((*name).to_string(), Value::Array(values));
        }
        Value::Object(m)
    }

    fn col(&mut self, i: usize) -> &mut Column {
        &mut self.columns[i].1
    }

    fn clear(&mut self) {
        self.columns.iter_mut().for_each(|(_, c)| c.clear());
    }
}

fn int() -> Column {
    Column::Int(Vec::new())
}
fn opt_int() -> Column {
    Column::OptInt(Vec::new())
}
fn float() -> Column {
    Column::Float(Vec::new())
}
fn text() -> Column {
    Column::Text(Vec::new())
}

/// A float cell: NaN (null) when not finite, as [`num`] writes `null`.
fn cell(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        f64::NAN
    }
}

/// The per-bin trace tables as typed columns: `timeseries` (each flow's deliveries and
/// goodput per bin), `queues` (per node at every bin boundary, the radio's queue plus the
/// queues of the wires leaving it; for a DQM access point also `q.ref` and the mean
/// queueing delay of the bin, null elsewhere), `cwnd` (TCP windows per bin) and `rates`
/// (the sending rate of every rate-controlled flow per bin, with the source queue its
/// controller reads). Filled from one drain of [`Traces`] at a time; the buffers are
/// reused, so flushing allocates only while they grow to one flush's size.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceColumns {
    pub tables: [TraceTable; 4],
    bin_s: f64,
    duration_s: f64,
}

impl TraceColumns {
    /// Empty tables for a run of `duration_s` seconds (the scenario's) with bins of `bin`.
    pub fn new(bin: Time, duration_s: f64) -> Self {
        TraceColumns {
            tables: [
                TraceTable::new(
                    "timeseries",
                    vec![
                        ("flow", int()),
                        ("t_start_s", float()),
                        ("t_end_s", float()),
                        ("packets_delivered", int()),
                        ("goodput_bps", float()),
                    ],
                ),
                TraceTable::new(
                    "queues",
                    vec![
                        ("t_s", float()),
                        ("node", int()),
                        ("len_pkts", int()),
                        ("q_ref_pkts", float()),
                        ("queue_delay_s", float()),
                    ],
                ),
                TraceTable::new(
                    "cwnd",
                    vec![
                        ("flow", int()),
                        ("t_s", float()),
                        ("cwnd_pkts", float()),
                        ("ssthresh_pkts", float()),
                        ("srtt_s", float()),
                        ("rto_s", float()),
                        ("retransmissions", int()),
                        ("timeouts", int()),
                    ],
                ),
                TraceTable::new(
                    "rates",
                    vec![
                        ("flow", int()),
                        ("t_s", float()),
                        ("kind", text()),
                        ("rate_bps", float()),
                        ("source_queue_pkts", opt_int()),
                    ],
                ),
            ],
            bin_s: bin.as_secs_f64(),
            duration_s,
        }
    }

    /// Rows held over every table.
    pub fn rows(&self) -> usize {
        self.tables.iter().map(TraceTable::rows).sum()
    }

    /// Replaces the rows held by those of `traces`.
    pub fn fill(&mut self, traces: &Traces) {
        self.tables.iter_mut().for_each(TraceTable::clear);
        let [ts, queues, cwnd, rates] = &mut self.tables;
        for r in &traces.bins {
            let t0 = r.bin as f64 * self.bin_s;
            let t1 = (t0 + self.bin_s).min(self.duration_s);
            ts.col(0).ints().push(r.flow.0 as i64);
            ts.col(1).floats().push(t0);
            ts.col(2).floats().push(t1);
            ts.col(3).ints().push(r.packets as i64);
            ts.col(4)
                .floats()
                .push(cell(r.bytes as f64 * 8.0 / (t1 - t0)));
        }
        for q in &traces.queues {
            queues.col(0).floats().push(q.at.as_secs_f64());
            queues.col(1).ints().push(q.node.0 as i64);
            queues.col(2).ints().push(q.len_pkts as i64);
            queues
                .col(3)
                .floats()
                .push(q.q_ref_pkts.map_or(f64::NAN, cell));
            queues
                .col(4)
                .floats()
                .push(q.queue_delay_s.map_or(f64::NAN, cell));
        }
        for c in &traces.cwnd {
            let x = &c.sample;
            cwnd.col(0).ints().push(c.flow.0 as i64);
            cwnd.col(1).floats().push(x.at.as_secs_f64());
            cwnd.col(2).floats().push(cell(x.cwnd_pkts));
            cwnd.col(3).floats().push(cell(x.ssthresh_pkts));
            cwnd.col(4)
                .floats()
                .push(x.srtt.map_or(f64::NAN, |r| cell(r.as_secs_f64())));
            cwnd.col(5).floats().push(cell(x.rto.as_secs_f64()));
            cwnd.col(6).ints().push(x.retransmissions as i64);
            cwnd.col(7).ints().push(x.timeouts as i64);
        }
        for r in &traces.rates {
            rates.col(0).ints().push(r.flow.0 as i64);
            rates.col(1).floats().push(r.at.as_secs_f64());
            rates.col(2).texts().push(r.kind.name());
            rates.col(3).floats().push(cell(r.rate_bps));
            rates
                .col(4)
                .opt_ints()
                .push(r.source_queue_pkts.map(i64::from));
        }
    }
}
