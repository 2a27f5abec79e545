//! Reading a scenario file into the typed `Scenario`, checking every key and value and
//! reporting every problem at once with its key path and what would be valid.
//!
//! TOML and JSON both go through `serde_json::Value`, so the Python API (which hands over
//! JSON) and files get the same checks and the same messages. Placement-dependent checks
//! (reachability, connecting a random topology) live in `topology::validate_and_place`.

#[cfg(test)]
mod bp_flow_control_tests;
#[cfg(test)]
mod bss_tests;
#[cfg(test)]
mod dqm_tests;
mod fields;
pub(crate) mod moves;
#[cfg(test)]
mod moves_tests;
mod random_flows;
#[cfg(test)]
mod random_flows_tests;
#[cfg(test)]
mod ranges_tests;
mod rate_change;
#[cfg(test)]
mod rate_change_tests;
mod registered;
#[cfg(test)]
mod registered_tests;
#[cfg(test)]
mod tests;
pub(crate) mod wifi;
#[cfg(test)]
mod wifi_tests;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{ConfigError, ConfigErrors};
use crate::schema::RandomFlows;
use crate::schema::{
    Fading, FlowSpec, LinkFading, LinkSpec, MacKind, Medium, Outputs, QueueSpec, Routing,
    RoutingMetric, Scenario, TcpSpec, Topology,
};
use airqueue_sim::medium::wifi::tdma::SLOT_HEADROOM_BYTES;
use airqueue_sim::net::registry::routing_scheme;
use airqueue_sim::qdisc::registry::Params;
use airqueue_sim::qdisc::{backpressure, diffq, droptail, fq, registry};
use airqueue_sim::transport::{
    flow_kind, rate_scheme, RateScheme, RateSetting, RegisteredRate, FLOW_KINDS, RATE_SCHEMES,
};
use fields::{describe, number, short, within, Errs, Fields};

/// Largest topology accepted. Placement and neighbour search are set up for the few
/// hundred nodes of the seed papers; the cap keeps a typo such as `nodes = 1e9` from
/// exhausting memory instead of producing an error.
pub const MAX_NODES: u32 = 10_000;

/// Longest run accepted, in seconds. Time is a `u64` of nanoseconds (about 1.8e10 s);
/// the cap leaves ample headroom for timers scheduled past the end.
pub const MAX_DURATION_S: f64 = 1e9;

/// IEEE 802.11-2016 16.1.1 (DSSS/HR-DSSS, i.e. 802.11b): the four PHY rates in bit/s.
pub const DSSS_RATES_BPS: [f64; 4] = [1e6, 2e6, 5.5e6, 11e6];

/// Largest UDP payload accepted: below the 65,507 bytes an IPv4 UDP datagram can carry.
pub const MAX_PACKET_SIZE_BYTES: u32 = 65_000;

/// Largest queue, in packets, of any buffer (`queue.capacity`, `per_dest_capacity`,
/// `topology.wire_capacity`, AODV's `buffer_capacity`...): 150 MB of 1500-byte packets,
/// far beyond any router or access point, and memory the simulator can hold per node.
pub const MAX_QUEUE_PKTS: u32 = 100_000;

/// Largest distance accepted for spacings, radii, areas, positions and radio ranges, in
/// metres: no 802.11 link spans 1000 km, and coordinates stay far from overflowing.
pub const MAX_DISTANCE_M: f64 = 1e6;

/// Fastest wired link (`medium.bandwidth`, `topology.wire_bandwidth`), bit/s: 100 Gb/s
/// keeps the serialisation of the smallest packet (29 bytes) above the 1 ns clock tick.
pub const MAX_WIRE_BPS: f64 = 1e11;

/// Slowest rate of any bit/s key: below one bit per second is a unit slip, and a
/// 65,000-byte packet at this rate still fits the run's time scale.
pub const MIN_RATE_BPS: f64 = 1.0;

/// A source may offer at most this many times the fastest link of its scenario: enough
/// to overload any link (tests offer twice the link), not so much that a typo
/// (`rate = 1e308`) makes a run of packets due every 0 ns.
pub const MAX_OVERLOAD: f64 = 10.0;

/// The fastest 802.11b rate, bit/s: what a radio can send at most (IEEE 802.11-2016
/// 16.1.1).
const TOP_DSSS_BPS: f64 = 11e6;

/// Longest link delay (`medium.delay`, `topology.wire_delay`), seconds: an hour, far
/// beyond any propagation delay on Earth.
pub const MAX_LINK_DELAY_S: f64 = 3600.0;

/// Shortest period or timeout (`diffq.update_interval`, OLSR's and AODV's intervals,
/// `tcp.min_rto`, `outputs.bin`...), seconds: a microsecond keeps every timer well above the
/// 1 ns clock tick, below which it would round to 0 ns and fire without end.
pub const MIN_INTERVAL_S: f64 = 1e-6;

/// Most time-series bins a run may have (`duration / outputs.bin`): each bin stores a
/// sample per node and per flow, so a bin far below the run's time scale (`bin = 1e-6`
/// over hours) would fill memory; 10^8 still lets the default 1 s bin cover three years.
pub const MAX_BINS: f64 = 1e8;

const TOPOLOGY_KINDS: [&str; 6] = ["chain", "grid", "star", "random", "explicit", "bss"];

/// Which topology kinds take each kind-specific key; the source of the
/// "rows applies only to kind grid" messages.
const TOPOLOGY_KEYS: [(&str, &[&str]); 13] = [
    ("nodes", &["chain", "star", "random"]),
    ("spacing", &["chain", "grid"]),
    ("rows", &["grid"]),
    ("cols", &["grid"]),
    ("radius", &["star", "bss"]),
    ("area", &["random"]),
    ("connected", &["random"]),
    ("positions", &["explicit"]),
    ("stations", &["bss"]),
    ("wired_hosts", &["bss"]),
    ("wire_bandwidth", &["bss"]),
    ("wire_delay", &["bss"]),
    ("wire_capacity", &["bss"]),
];

/// Parses a scenario from TOML text.
pub fn from_toml_str(s: &str) -> Result<Scenario, ConfigErrors> {
    parse_value(&toml_to_json(s)?)
}

/// Parses a scenario from JSON text.
pub fn from_json_str(s: &str) -> Result<Scenario, ConfigErrors> {
    parse_value(&json_to_value(s)?)
}

/// Parses JSON text into a value, a syntax error becoming a `ConfigError` with its
/// line and column.
pub fn json_to_value(s: &str) -> Result<Value, ConfigErrors> {
    serde_json::from_str(s).map_err(|e| ConfigError::new("", format!("invalid JSON: {e}")).into())
}

/// Parses TOML text into the JSON value model that `parse_value` reads.
///
/// The conversion is done by hand rather than by deserialising straight into
/// `serde_json::Value`, because that silently turns `nan`/`inf` into `null` (which would
/// then read as "use the default") and dates into an odd private table. Here both are
/// errors at their key path.
pub fn toml_to_json(s: &str) -> Result<Value, ConfigErrors> {
    let table: toml::Table = toml::from_str(s)
        .map_err(|e| ConfigError::new("", format!("invalid TOML: {}", e.to_string().trim_end())))?;
    let mut errs = Vec::new();
    let value = toml_table(&table, "", &mut errs);
    if errs.is_empty() {
        Ok(value)
    } else {
        Err(ConfigErrors(errs))
    }
}

fn toml_table(t: &toml::Table, path: &str, errs: &mut Errs) -> Value {
    let map = t
        .iter()
        .map(|(k, v)| (k.clone(), toml_value(v, &fields::join(path, k), errs)))
        .collect();
    Value::Object(map)
}

fn toml_value(v: &toml::Value, path: &str, errs: &mut Errs) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => match serde_json::Number::from_f64(*f) {
            Some(n) => Value::Number(n),
            None => {
                errs.push(ConfigError::new(
                    path,
                    format!("expected a finite number, got {f}"),
                ));
                Value::Null
            }
        },
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => {
            errs.push(ConfigError::new(
                path,
                format!("dates are not valid here, got {d}"),
            ));
            Value::Null
        }
        toml::Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| toml_value(item, &format!("{path}[{i}]"), errs))
                .collect(),
        ),
        toml::Value::Table(t) => toml_table(t, path, errs),
    }
}

/// Reads and validates a whole scenario. Returns every problem found, or the scenario if
/// there are none.
pub fn parse_value(v: &Value) -> Result<Scenario, ConfigErrors> {
    let mut errs = Vec::new();
    let scenario = read_scenario(v, &mut errs);
    match (scenario, errs.is_empty()) {
        (Some(s), true) => Ok(s),
        (_, false) => Err(ConfigErrors(errs)),
        // Every `None` above is recorded as an error; reaching here is a reader bug, but it
        // must still surface as an error rather than a panic.
        (None, true) => Err(ConfigError::new(
            "",
            "internal error: scenario incomplete without a reported problem",
        )
        .into()),
    }
}

fn read_scenario(v: &Value, errs: &mut Errs) -> Option<Scenario> {
    let mut top = Fields::table(v, "", errs);
    let name = top.string(errs, "name", "unnamed").map(str::to_string);
    let duration = top.number(errs, "duration", None, "a number of seconds > 0", |x| {
        x > 0.0
    });
    let duration = duration.filter(|d| {
        let ok = *d <= MAX_DURATION_S;
        if !ok {
            errs.push(ConfigError::new(
                "duration",
                format!("{d:e} s is too long; the simulator runs at most {MAX_DURATION_S:e} s"),
            ));
        }
        ok
    });
    let warmup = top.number(errs, "warmup", Some(0.0), "a number of seconds >= 0", |x| {
        x >= 0.0
    });
    if let (Some(w), Some(d)) = (warmup, duration) {
        if w >= d {
            errs.push(ConfigError::new(
                "warmup",
                format!("must be less than duration ({d} s), got {w}"),
            ));
        }
    }
    let seed = top.integer(
        errs,
        "seed",
        Some(1),
        "a non-negative integer",
        0..=u64::MAX,
    );

    let topology = match top.take("topology") {
        Some(t) => read_topology(t, errs),
        None => {
            if !top.is_broken() {
                errs.push(ConfigError::new(
                    "topology",
                    format!(
                        "missing required table; expected [topology] with kind = one of {}",
                        fields::list(&TOPOLOGY_KINDS)
                    ),
                ));
            }
            None
        }
    };
    let nodes = topology.as_ref().map(Topology::node_count);

    let links = read_links(top.tables(errs, "link"), nodes, errs);
    let medium = wifi::read_medium(top.section("medium", errs), errs);
    let radio = wifi::read_radio(top.section("radio", errs), errs);
    let mac = wifi::read_mac(top.section("mac", errs), nodes, errs);
    let routing = read_routing(top.section("routing", errs), errs);
    // RED counts idle time in packet times at the medium's bit rate.
    let rate_bps = match (&medium, &radio) {
        (Some(Medium::Wired { bandwidth_bps, .. }), _) => Some(*bandwidth_bps),
        (Some(Medium::Wifi), Some(r)) => Some(r.data_rate_bps),
        _ => None,
    };
    let queue_table = top.section("queue", errs);
    let tcp_table = top.section("tcp", errs);
    let mut scheme_tables = registered::SchemeTables::take(&mut top, errs);
    let queue = read_queue(queue_table, &mut scheme_tables, rate_bps, errs);
    // What a source may offer at most: MAX_OVERLOAD x the fastest link of the scenario.
    let fastest_bps = fastest_link(&medium, &topology);
    let max_offered_bps = fastest_bps.map(|f| (MAX_OVERLOAD * f, f));
    let tcp = read_tcp(tcp_table, errs);
    let rate_setting = RateSetting {
        data_rate_bps: radio.as_ref().map(|r| r.data_rate_bps),
    };
    // `[diffq]` holds DiffQ's scheduler switches (read with the queue) and its sources'
    // rate control.
    let rate_control =
        registered::read_rate_tables(&mut top, &mut scheme_tables, &rate_setting, errs);
    scheme_tables.finish(errs);
    let flows = read_flows(
        top.tables(errs, "flow"),
        nodes,
        duration,
        max_offered_bps,
        errs,
    );
    let outputs = read_outputs(top.section("outputs", errs), duration, errs);
    let rate_changes = rate_change::read_and_check(
        top.tables(errs, "rate_change"),
        topology.as_ref(),
        duration,
        (medium.as_ref(), mac.as_ref()),
        errs,
    );
    let moves = moves::read_and_check(
        top.tables(errs, "move"),
        topology.as_ref(),
        duration,
        medium.as_ref(),
        errs,
    );

    let random_flows = random_flows::read(top.take("flows"), duration, max_offered_bps, errs);
    top.finish(errs);

    // A flow's priority must name a level the MAC has.
    if let Some(mac) = &mac {
        let levels = mac.levels.len();
        let listed = flows.iter().flatten().enumerate();
        let listed = listed.map(|(i, f)| (format!("flow[{i}]"), f));
        let drawn = random_flows.iter().flatten();
        let drawn = drawn.map(|r| ("flows".to_string(), &r.template));
        for (path, f) in listed.chain(drawn) {
            if f.priority as usize >= levels {
                errs.push(ConfigError::new(
                    format!("{path}.priority"),
                    format!(
                        "level {} does not exist; the MAC has {levels} level(s) (0..={}); \
                         use mac.kind = \"edca\" for more levels",
                        f.priority,
                        levels - 1
                    ),
                ));
            }
        }
    }

    // A BSS puts its access point and stations on the 802.11 channel and wires its wired
    // hosts itself.
    if let (Some(Topology::Bss { .. }), Some(Medium::Wired { .. })) = (&topology, &medium) {
        errs.push(ConfigError::new(
            "medium.kind",
            "\"wired\" does not go with topology.kind = \"bss\", whose access point and \
             stations share the 802.11 channel and whose wired hosts are wired by the topology \
             (topology.wire_bandwidth, topology.wire_delay); remove [medium] or set \
             medium.kind = \"wifi\"",
        ));
    }
    // DQM splits an access point's downlink buffer by what it sends and receives.
    if let (Some(t), Some(s)) = (&topology, queue.as_ref().map(|q| q.kind)) {
        if s.runs_at_access_point && !matches!(t, Topology::Bss { .. }) {
            errs.push(ConfigError::new(
                "queue.kind",
                format!(
                    "\"{}\" runs at the access point of an infrastructure WLAN: it needs \
                     topology.kind = \"bss\"",
                    s.name
                ),
            ));
        }
    }
    // `[[link]] loss` erases frames on the channel, which a wired host is not on.
    if let (Some(t @ Topology::Bss { .. }), Some(links)) = (&topology, &links) {
        let radios = t.radio_nodes();
        for (i, l) in links.iter().enumerate() {
            if let Some(host) = [l.a, l.b].into_iter().find(|&n| n >= radios) {
                errs.push(ConfigError::new(
                    format!("link[{i}]"),
                    format!(
                        "node {host} is a wired host of the bss topology, not on the 802.11 \
                         channel; [[link]] loss applies to radio links between nodes 0..={}",
                        radios - 1
                    ),
                ));
            }
        }
    }
    // A faded link is a radio link, and its fading replaces the radio's on that link.
    for (i, l) in links.iter().flatten().enumerate() {
        if l.fading != LinkFading::Rayleigh {
            continue;
        }
        if let Some(Medium::Wired { .. }) = &medium {
            errs.push(ConfigError::new(
                format!("link[{i}].fading"),
                "\"rayleigh\" needs medium.kind = \"wifi\": wired links do not fade; remove \
                 the key",
            ));
        }
        if radio.as_ref().is_some_and(|r| r.fading == Fading::Rayleigh) {
            errs.push(ConfigError::new(
                format!("link[{i}].fading"),
                "\"rayleigh\" gives this link its own fading with average loss `loss`, and \
                 radio.fading = \"rayleigh\" already fades every link around its path loss; \
                 use one of the two",
            ));
        }
    }
    // A routing protocol's control messages (and AODV's link breaks) come from the
    // 802.11 MAC. AODV re-routes the packets queued for a broken link, which the
    // discipline must hand back (drop-tail and fair queues do; the other disciplines
    // read the static table for their neighbours). OLSR keeps that table up to date, so
    // it goes with every discipline.
    if let Some(p) = routing.as_ref().and_then(|r| r.protocol) {
        let kind = p.name;
        if let Some(Medium::Wired { .. }) = &medium {
            errs.push(ConfigError::new(
                "routing.kind",
                format!(
                    "\"{kind}\" needs medium.kind = \"wifi\": its messages travel over the \
                     802.11 MAC; use routing.kind = \"static\" on wired links"
                ),
            ));
        }
        if let Some(Topology::Bss { .. }) = &topology {
            errs.push(ConfigError::new(
                "routing.kind",
                format!(
                    "\"{kind}\" does not go with topology.kind = \"bss\", whose wired hosts \
                     are not on the 802.11 channel; use routing.kind = \"static\""
                ),
            ));
        }
        match &queue {
            Some(q) if p.reroutes_queued_packets && !q.kind.moves_packets_on_link_break => {
                let name = q.kind.name;
                errs.push(ConfigError::new(
                    "routing.kind",
                    format!(
                        "\"{kind}\" does not go with queue.kind = \"{name}\", which reads the \
                         static routing table; use queue.kind = \"droptail\" or \"fq\", or \
                         routing.kind = \"static\""
                    ),
                ));
            }
            _ => {}
        }
    }
    // DiffQ and backpressure work on the shared channel, where one queue per node hears
    // its neighbours' reports; DiffQ rate control reads the source's DiffQ destination
    // queue.
    if let (Some(q), Some(m)) = (&queue, &medium) {
        let kind = [&diffq::SCHEME, &backpressure::SCHEME]
            .into_iter()
            .find(|s| *s == q.kind)
            .map(|s| s.name);
        let fq_exact =
            *q.kind == fq::SCHEME && q.params.choice("backpressure_view") == Some("exact");
        if fq_exact && !matches!(m, Medium::Wifi) {
            errs.push(ConfigError::new(
                "queue.backpressure_view",
                "\"exact\" reads the neighbours' queues on the 802.11 medium: set \
                 medium.kind = \"wifi\" or backpressure_view = \"overheard\"",
            ));
        }
        if let (Some(kind), false) = (kind, matches!(m, Medium::Wifi)) {
            errs.push(ConfigError::new(
                "queue.kind",
                format!(
                    "\"{kind}\" needs the 802.11 medium (medium.kind = \"wifi\"), where \
                     neighbours overhear each other's queue reports"
                ),
            ));
        }
    }
    check_flow_medium(&flows, &random_flows, &medium, &topology, &routing, errs);
    if let Some(q) = &queue {
        let listed = flows.iter().flatten().enumerate();
        let listed = listed.map(|(i, f)| (format!("flow[{i}]"), f));
        let drawn = random_flows.iter().flatten();
        let drawn = drawn.map(|r| ("flows".to_string(), &r.template));
        let mut used: Vec<&'static RateScheme> = Vec::new();
        let aqm = q.kind.refuses_saturating_source.then_some(q.kind.name);
        for (path, f) in listed.chain(drawn) {
            // A saturating source keeps its first queue full; an AQM there refuses
            // arrivals before it is full, so the source would offer packets without end.
            if let (Some(aqm), Some(key)) = (aqm, (f.kind.keeps_queue_full)(&f.params)) {
                errs.push(ConfigError::new(
                    format!("{path}.{key}"),
                    format!(
                        "\"saturate\" keeps the source's queue full, which an active queue \
                         manager (queue.kind = \"{aqm}\") does not allow; give a rate in bit/s \
                         above what the path carries instead"
                    ),
                ));
            }
            // A kind may need a queue discipline unless a rate controller paces it (MORE
            // sends from each node's FIFO, DiffQ-MORE from DiffQ's destination queues).
            if let (Some((queue, message)), None) = (f.kind.unpaced_queue, f.cc) {
                if q.kind != queue {
                    errs.push(ConfigError::new(format!("{path}.kind"), message));
                }
            }
            // A controller reads its source's queue of the discipline it needs.
            let Some(cc) = f.cc else { continue };
            if !used.contains(&cc) {
                used.push(cc);
            }
            if let Some((kind, message)) = cc.needs_queue {
                if q.kind != kind {
                    errs.push(ConfigError::new(format!("{path}.cc"), message));
                }
            }
        }
        // What a controller some flow uses checks against the queue's keys (DiffQ's AIMD
        // threshold below the destination queue's capacity).
        for (scheme, params) in &rate_control {
            if let (true, Some(p)) = (used.contains(scheme), params) {
                for problem in (scheme.check_with_queue)(p, q.kind, &q.params) {
                    let path = fields::join(scheme.name, problem.key);
                    errs.push(ConfigError::new(path, problem.message));
                }
            }
        }
    }
    let rate_control: Option<Vec<_>> = (rate_control.into_iter())
        .map(|(scheme, params)| params.map(|params| RegisteredRate { scheme, params }))
        .collect();

    // A TDMA slot carries one packet of the scenario's flows (seed 001, 3.3: "a MAC frame
    // carrying single TCP packet"), unless `mac.tdma_slot_bytes` sizes it.
    let mut mac = mac;
    if let Some(m) = mac.as_mut().filter(|m| m.kind == MacKind::Tdma) {
        if m.tdma_slot_bytes.is_none() {
            let listed = flows.iter().flatten().map(|f| f.packet_size_bytes);
            let drawn = random_flows.iter().flatten();
            let largest = (listed
                .chain(drawn.map(|r| r.template.packet_size_bytes))
                .max())
            .unwrap_or(wifi::DEFAULT_TDMA_PAYLOAD_BYTES);
            m.tdma_slot_bytes =
                Some((largest + SLOT_HEADROOM_BYTES).min(wifi::MAX_TDMA_SLOT_BYTES));
        }
    }

    Some(Scenario {
        name: name?,
        duration_s: duration?,
        warmup_s: warmup?,
        seed: seed?,
        topology: topology?,
        links: links?,
        rate_changes: rate_changes?,
        moves: moves?,
        medium: medium?,
        radio: radio?,
        mac: mac?,
        routing: routing?,
        queue: queue?,
        tcp: tcp?,
        rate_control: rate_control?,
        flows: flows?,
        random_flows: random_flows?,
        outputs: outputs?,
    })
}

/// The fastest link of a scenario in bit/s: the top 802.11b rate on the wifi medium
/// (which AARF or a `[[rate_change]]` may reach whatever `radio.data_rate` is), a BSS's
/// wires, or the wired medium's bandwidth. `None` when those keys were invalid.
fn fastest_link(medium: &Option<Medium>, topology: &Option<Topology>) -> Option<f64> {
    match (medium.as_ref()?, topology) {
        (Medium::Wired { bandwidth_bps, .. }, _) => Some(*bandwidth_bps),
        (
            Medium::Wifi,
            Some(Topology::Bss {
                wire_bandwidth_bps,
                wired_hosts,
                ..
            }),
        ) if *wired_hosts > 0 => Some(wire_bandwidth_bps.max(TOP_DSSS_BPS)),
        (Medium::Wifi, _) => Some(TOP_DSSS_BPS),
    }
}

/// An offered rate in bit/s: at least [`MIN_RATE_BPS`], at most `max` = (MAX_OVERLOAD x
/// the fastest link, the fastest link). With `max = None` (the links were invalid, or
/// the key belongs to a rate controller whose defaults follow `radio.data_rate`), at most
/// MAX_OVERLOAD x [`MAX_WIRE_BPS`].
pub(crate) fn offered_rate(
    errs: &mut Errs,
    path: &str,
    x: Option<f64>,
    max: Option<(f64, f64)>,
) -> Option<f64> {
    let Some((max_bps, link_bps)) = max else {
        return within(
            errs,
            path,
            x,
            (MIN_RATE_BPS, MAX_OVERLOAD * MAX_WIRE_BPS),
            "bit/s",
            "ten times the fastest wired link, 100 Gb/s",
        );
    };
    within(
        errs,
        path,
        x,
        (MIN_RATE_BPS, max_bps),
        "bit/s",
        &format!(
            "a source offers at most {} times the fastest link of this scenario, {} bit/s; \
             more only fills its first queue, with packets due ever closer to 0 ns apart",
            short(MAX_OVERLOAD),
            short(link_bps)
        ),
    )
}

/// What a flow kind needs of the medium and routing: the 802.11 channel at every node
/// for a kind that broadcasts there, static routes for one that answers over them
/// (MORE's batch ACKs: the shortest ETX path).
fn check_flow_medium(
    flows: &Option<Vec<FlowSpec>>,
    random_flows: &Option<Option<RandomFlows>>,
    medium: &Option<Medium>,
    topology: &Option<Topology>,
    routing: &Option<Routing>,
    errs: &mut Errs,
) {
    let listed = flows.iter().flatten().enumerate();
    let listed = listed.map(|(i, f)| (format!("flow[{i}]"), f));
    let drawn = random_flows.iter().flatten();
    let drawn = drawn.map(|r| ("flows".to_string(), &r.template));
    for (path, f) in listed.chain(drawn) {
        let wifi = matches!(medium, Some(Medium::Wifi));
        let bss = matches!(topology, Some(Topology::Bss { .. }));
        if let (Some(message), true) = (f.kind.needs_radio_everywhere, !wifi || bss) {
            errs.push(ConfigError::new(format!("{path}.kind"), message));
        }
        let protocol = routing.as_ref().is_some_and(|r| r.protocol.is_some());
        if let (Some(message), true) = (f.kind.needs_static_routes, protocol) {
            errs.push(ConfigError::new(format!("{path}.kind"), message));
        }
    }
}

/// "a topology needs 2..=10000 nodes", shared by every kind.
fn nodes_expected() -> String {
    format!("an integer number of nodes in 2..={MAX_NODES}")
}

fn to_u32(n: Option<u64>) -> Option<u32> {
    n.and_then(|n| u32::try_from(n).ok())
}

fn read_topology(v: &Value, errs: &mut Errs) -> Option<Topology> {
    let mut f = Fields::table(v, "topology", errs);
    let kind = f.choice(errs, "kind", None, &TOPOLOGY_KINDS, &[]);
    f.only_for(errs, "kind", kind, true, &TOPOLOGY_KEYS);
    let topology = read_topology_keys(&mut f, kind, errs);
    // After the kind's keys, even invalid or missing ones: a misspelt required key is
    // both missing and unknown, and the unknown one carries the "did you mean".
    f.finish(errs);
    topology
}

/// The keys of topology kind `kind` (`None`: invalid, already reported).
fn read_topology_keys(f: &mut Fields, kind: Option<&str>, errs: &mut Errs) -> Option<Topology> {
    let spacing = |f: &mut Fields, errs: &mut Errs| {
        let x = f.number(errs, "spacing", None, "a distance in metres > 0", |x| {
            x > 0.0
        });
        distance(errs, &f.path("spacing"), x)
    };
    let radius = |f: &mut Fields, errs: &mut Errs| {
        let x = f.number(errs, "radius", None, "a distance in metres > 0", |x| {
            x > 0.0
        });
        distance(errs, &f.path("radius"), x)
    };
    let node_count = |f: &mut Fields, errs: &mut Errs| {
        to_u32(f.integer(
            errs,
            "nodes",
            None,
            &nodes_expected(),
            2..=u64::from(MAX_NODES),
        ))
    };
    match kind {
        Some("chain") => {
            let nodes = node_count(f, errs);
            let spacing = spacing(f, errs);
            Some(Topology::Chain {
                nodes: nodes?,
                spacing_m: spacing?,
            })
        }
        Some("grid") => {
            let expected =
                format!("an integer number >= 1 (rows x cols must be in 2..={MAX_NODES})");
            let rows = to_u32(f.integer(errs, "rows", None, &expected, 1..=u64::from(MAX_NODES)));
            let cols = to_u32(f.integer(errs, "cols", None, &expected, 1..=u64::from(MAX_NODES)));
            let spacing = spacing(f, errs);
            if let (Some(r), Some(c)) = (rows, cols) {
                let n = u64::from(r) * u64::from(c);
                if !(2..=u64::from(MAX_NODES)).contains(&n) {
                    errs.push(ConfigError::new(
                        "topology",
                        format!("a {r} x {c} grid has {n} nodes; a topology needs 2..={MAX_NODES} nodes"),
                    ));
                }
            }
            Some(Topology::Grid {
                rows: rows?,
                cols: cols?,
                spacing_m: spacing?,
            })
        }
        Some("star") => {
            let nodes = node_count(f, errs);
            let radius = radius(f, errs);
            Some(Topology::Star {
                nodes: nodes?,
                radius_m: radius?,
            })
        }
        Some("bss") => read_bss(f, errs),
        Some("random") => {
            let nodes = node_count(f, errs);
            let area = read_area(f, errs);
            let connected = f.boolean(errs, "connected", true);
            Some(Topology::Random {
                nodes: nodes?,
                area_m: area?,
                connected: connected?,
            })
        }
        Some("explicit") => {
            read_positions(f, errs).map(|positions_m| Topology::Explicit { positions_m })
        }
        _ => None,
    }
}

/// A distance in metres at most [`MAX_DISTANCE_M`].
fn distance(errs: &mut Errs, path: &str, x: Option<f64>) -> Option<f64> {
    within(
        errs,
        path,
        x,
        (0.0, MAX_DISTANCE_M),
        "m",
        "no 802.11 link spans 1000 km; for positions this bounds |x| and |y|",
    )
}

/// A wired link's bandwidth in `[MIN_RATE_BPS, MAX_WIRE_BPS]`.
pub(crate) fn wire_bandwidth(errs: &mut Errs, path: &str, x: Option<f64>) -> Option<f64> {
    within(
        errs,
        path,
        x,
        (MIN_RATE_BPS, MAX_WIRE_BPS),
        "bit/s",
        "a wired link from 1 bit/s to 100 Gb/s, whose smallest packet still takes a \
         nanosecond, the clock's tick",
    )
}

/// A wired link's delay of at most [`MAX_LINK_DELAY_S`].
pub(crate) fn link_delay(errs: &mut Errs, path: &str, x: Option<f64>) -> Option<f64> {
    within(
        errs,
        path,
        x,
        (0.0, MAX_LINK_DELAY_S),
        "s",
        "a link delay of at most an hour",
    )
}

/// `[topology] kind = "bss"`: the access point, its stations and its wired hosts.
fn read_bss(f: &mut Fields, errs: &mut Errs) -> Option<Topology> {
    let most = u64::from(MAX_NODES - 1);
    let stations = to_u32(f.integer(
        errs,
        "stations",
        None,
        &format!("an integer number of stations in 1..={most}"),
        1..=most,
    ));
    let radius = f.number(errs, "radius", None, "a distance in metres > 0", |x| {
        x > 0.0
    });
    let radius = distance(errs, &f.path("radius"), radius);
    let wired_hosts = to_u32(f.integer(
        errs,
        "wired_hosts",
        Some(1),
        &format!("an integer number of hosts in 0..={most}"),
        0..=most,
    ));
    let bandwidth = f.number(errs, "wire_bandwidth", Some(100e6), "bit/s > 0", |x| {
        x > 0.0
    });
    let bandwidth = wire_bandwidth(errs, &f.path("wire_bandwidth"), bandwidth);
    let delay = f.number(
        errs,
        "wire_delay",
        Some(0.025),
        "a number of seconds >= 0",
        |x| x >= 0.0,
    );
    let delay = link_delay(errs, &f.path("wire_delay"), delay);
    let capacity = f.packets(errs, "wire_capacity", Some(1000));
    let (stations, wired_hosts) = (stations?, wired_hosts?);
    let n = 1 + u64::from(stations) + u64::from(wired_hosts);
    if n > u64::from(MAX_NODES) {
        errs.push(ConfigError::new(
            "topology",
            format!(
                "an access point with {stations} stations and {wired_hosts} wired hosts has \
                 {n} nodes; a topology may have at most {MAX_NODES}"
            ),
        ));
        return None;
    }
    Some(Topology::Bss {
        stations,
        radius_m: radius?,
        wired_hosts,
        wire_bandwidth_bps: bandwidth?,
        wire_delay_s: delay?,
        wire_capacity_pkts: capacity?,
    })
}

/// A list of exactly two finite numbers; `ok` checks each.
fn read_pair(
    v: &Value,
    path: &str,
    errs: &mut Errs,
    expected: &str,
    ok: impl Fn(f64) -> bool,
) -> Option<[f64; 2]> {
    let bad = |errs: &mut Errs| {
        errs.push(ConfigError::new(
            path,
            format!("expected {expected}, got {}", describe(v)),
        ));
        None
    };
    match v.as_array().map(Vec::as_slice) {
        Some([x, y]) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) if x.is_finite() && y.is_finite() && ok(x) && ok(y) => Some([x, y]),
            _ => bad(errs),
        },
        Some(items) => {
            errs.push(ConfigError::new(
                path,
                format!("expected {expected}, got an array of {} items", items.len()),
            ));
            None
        }
        None => bad(errs),
    }
}

fn read_area(f: &mut Fields, errs: &mut Errs) -> Option<[f64; 2]> {
    const EXPECTED: &str = "[width, height] in metres, both > 0";
    match f.take("area") {
        Some(v) => read_pair(v, &f.path("area"), errs, EXPECTED, |x| x > 0.0).filter(|a| {
            let side = a[0].max(a[1]);
            distance(errs, &f.path("area"), Some(side)).is_some()
        }),
        None => {
            errs.push(ConfigError::new(
                f.path("area"),
                format!("missing required key; expected {EXPECTED}"),
            ));
            None
        }
    }
}

fn read_positions(f: &mut Fields, errs: &mut Errs) -> Option<Vec<[f64; 2]>> {
    const EXPECTED: &str = "[x, y] in metres";
    let path = f.path("positions");
    let items = match f.take("positions") {
        Some(Value::Array(items)) => items,
        Some(v) => {
            errs.push(ConfigError::new(
                path,
                format!(
                    "expected an array of [x, y] positions in metres, got {}",
                    describe(v)
                ),
            ));
            return None;
        }
        None => {
            errs.push(ConfigError::new(
                path,
                "missing required key; expected an array of [x, y] positions in metres",
            ));
            return None;
        }
    };
    if items.len() < 2 || items.len() > MAX_NODES as usize {
        errs.push(ConfigError::new(
            path,
            format!(
                "expected 2..={MAX_NODES} positions (one per node), got {}",
                items.len()
            ),
        ));
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut all_ok = true;
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let p = read_pair(item, &at, errs, EXPECTED, |_| true).filter(|p| {
            let far = p[0].abs().max(p[1].abs());
            distance(errs, &at, Some(far)).is_some()
        });
        match p {
            Some(p) => out.push(p),
            None => all_ok = false,
        }
    }
    all_ok.then_some(out)
}

/// Checks that `id` names a node of a topology with `nodes` nodes (unknown when the
/// topology itself is invalid, in which case only the form of the id was checked).
fn check_node(id: Option<u32>, nodes: Option<u32>, path: &str, errs: &mut Errs) -> Option<u32> {
    match (id, nodes) {
        (Some(id), Some(n)) if id >= n => {
            errs.push(ConfigError::new(
                path,
                format!(
                    "node {id} does not exist; the topology has {n} nodes (0..{})",
                    n - 1
                ),
            ));
            None
        }
        _ => id,
    }
}

fn read_links(items: &[Value], nodes: Option<u32>, errs: &mut Errs) -> Option<Vec<LinkSpec>> {
    let mut links = Vec::with_capacity(items.len());
    let mut all_ok = true;
    // First link index per unordered pair, for the duplicate check.
    let mut seen: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("link[{i}]");
        let mut f = Fields::table(item, path.clone(), errs);
        let a = f.node(errs, "a");
        let a = check_node(a, nodes, &f.path("a"), errs);
        let b = f.node(errs, "b");
        let b = check_node(b, nodes, &f.path("b"), errs);
        let loss = f.number(errs, "loss", None, "a probability in [0, 1)", |p| {
            (0.0..1.0).contains(&p)
        });
        let fading = match f.choice(errs, "fading", Some("none"), &["none", "rayleigh"], &[]) {
            Some("rayleigh") => Some(LinkFading::Rayleigh),
            Some(_) => Some(LinkFading::None),
            None => None,
        };
        f.finish(errs);
        let link = match (a, b, loss, fading) {
            (Some(a), Some(b), Some(loss), Some(fading)) => Some(LinkSpec { a, b, loss, fading }),
            _ => None,
        };
        match link {
            Some(l) if l.a == l.b => {
                errs.push(ConfigError::new(
                    format!("{path}.b"),
                    format!("same node as a ({}); a link joins two different nodes", l.a),
                ));
                all_ok = false;
            }
            Some(l) => {
                let key = (l.a.min(l.b), l.a.max(l.b));
                if let Some(first) = seen.get(&key) {
                    errs.push(ConfigError::new(
                        path,
                        format!("nodes {} and {} already have a link at link[{first}]; give each pair once", key.0, key.1),
                    ));
                    all_ok = false;
                } else {
                    seen.insert(key, i);
                    links.push(l);
                }
            }
            None => all_ok = false,
        }
    }
    all_ok.then_some(links)
}

/// `[routing]`: `kind` and `metric` here, a protocol's own keys as its module declares
/// them (`registered::read_routing`).
fn read_routing(mut f: Fields, errs: &mut Errs) -> Option<Routing> {
    let kinds = registered::routing_kinds();
    let kind = f.choice(errs, "kind", Some("static"), &kinds, &[]);
    let given = f.has("kind");
    let keys_by_kind = registered::routing_keys_by_kind();
    let keys_by_kind: Vec<(&str, &[&str])> = (keys_by_kind.iter())
        .map(|(k, kinds)| (*k, kinds.as_slice()))
        .collect();
    f.only_for(errs, "kind", kind, given, &keys_by_kind);
    let protocol = kind.and_then(routing_scheme);
    let default_metric = match (kind, protocol) {
        (Some("static"), _) => Some("hops"),
        (_, Some(p)) => p.default_metric,
        _ => None,
    };
    let metric = match default_metric {
        Some(d) => f.choice(errs, "metric", Some(d), &["hops", "etx"], &[]),
        None => Some("hops"),
    };
    let params = match protocol {
        Some(p) => registered::read_routing(&mut f, errs, p),
        None => Some(Params::of_keys(Vec::new())),
    };
    f.finish(errs);
    kind?;
    let metric = match metric? {
        "etx" => RoutingMetric::Etx,
        _ => RoutingMetric::Hops,
    };
    Some(Routing {
        protocol,
        metric,
        params: params?,
    })
}

fn read_queue(
    mut f: Fields,
    scheme_tables: &mut registered::SchemeTables,
    rate_bps: Option<f64>,
    errs: &mut Errs,
) -> Option<QueueSpec> {
    let kinds = registered::queue_kinds();
    let kind = f.choice(errs, "kind", Some("droptail"), &kinds, &[]);
    let scheme = kind.and_then(registry::scheme);
    let default_capacity = scheme.map_or(droptail::SCHEME.default_capacity_pkts, |s| {
        s.default_capacity_pkts
    });
    let capacity = f.packets(errs, "capacity", Some(default_capacity));
    let given = f.has("kind");
    let keys_by_kind = registered::keys_by_kind(&kinds);
    let keys_by_kind: Vec<(&str, &[&str])> = (keys_by_kind.iter())
        .map(|(k, kinds)| (*k, kinds.as_slice()))
        .collect();
    f.only_for(errs, "kind", kind, given, &keys_by_kind);
    let setting = registry::Setting {
        capacity_pkts: capacity,
        rate_bps,
    };
    let scheme_params = scheme.map(|s| registered::read(&mut f, scheme_tables, errs, s, &setting));
    scheme_tables.check_unselected(errs, scheme);
    f.finish(errs);
    Some(QueueSpec {
        kind: scheme?,
        capacity_pkts: capacity?,
        params: scheme_params??,
    })
}

fn read_tcp(mut f: Fields, errs: &mut Errs) -> Option<TcpSpec> {
    let min_rto = f.interval(
        errs,
        "min_rto",
        Some(0.2),
        "a number of seconds in (0, 3600]",
        |x| x > 0.0 && x <= 3600.0,
    );
    let initial_rto = f.interval(
        errs,
        "initial_rto",
        Some(1.0),
        "a number of seconds in (0, 60] (RFC 6298's RTO bound)",
        |x| x > 0.0 && x <= 60.0,
    );
    let delayed_ack = f.boolean(errs, "delayed_ack", false);
    let max_window = to_u32(f.integer(
        errs,
        "max_window",
        Some(64),
        "an integer number of packets in 1..=10000",
        1..=10_000,
    ));
    let ecn = f.boolean(errs, "ecn", false);
    let timestamps = f.boolean(errs, "timestamps", false);
    let network_coding = f.boolean(errs, "network_coding", false);
    let coding_block = to_u32(f.integer(
        errs,
        "coding_block",
        Some(32),
        "an integer number of packets in 1..=1024",
        1..=1024,
    ));
    let coding_repair_delay = f.interval(
        errs,
        "coding_repair_delay",
        Some(0.2),
        "a number of seconds in (0, 60]",
        |x| x > 0.0 && x <= 60.0,
    );
    f.finish(errs);
    Some(TcpSpec {
        min_rto_s: min_rto?,
        initial_rto_s: initial_rto?,
        delayed_ack: delayed_ack?,
        max_window_pkts: max_window?,
        ecn: ecn?,
        timestamps: timestamps?,
        network_coding: network_coding?,
        coding_block_pkts: coding_block?,
        coding_repair_delay_s: coding_repair_delay?,
    })
}

fn read_flows(
    items: &[Value],
    nodes: Option<u32>,
    duration: Option<f64>,
    max_offered_bps: Option<(f64, f64)>,
    errs: &mut Errs,
) -> Option<Vec<FlowSpec>> {
    let mut flows = Vec::with_capacity(items.len());
    let mut all_ok = true;
    for (i, item) in items.iter().enumerate() {
        let path = format!("flow[{i}]");
        match read_flow(item, &path, nodes, duration, max_offered_bps, errs) {
            Some(flow) => flows.push(flow),
            None => all_ok = false,
        }
    }
    all_ok.then_some(flows)
}

/// One `[[flow]]` (or `[flows]`' template): the keys every flow has, then its kind's
/// own as the kind declares them (`FLOW_KINDS`). `max_offered_bps`: see
/// [`offered_rate`].
fn read_flow(
    item: &Value,
    path: &str,
    nodes: Option<u32>,
    duration: Option<f64>,
    max_offered_bps: Option<(f64, f64)>,
    errs: &mut Errs,
) -> Option<FlowSpec> {
    let mut f = Fields::table(item, path, errs);
    let kinds: Vec<&str> = FLOW_KINDS.iter().map(|k| k.name).collect();
    let kind = f.choice(errs, "kind", None, &kinds, &[]);
    let src = f.node(errs, "src");
    let src = check_node(src, nodes, &f.path("src"), errs);
    let dst = f.node(errs, "dst");
    let dst = check_node(dst, nodes, &f.path("dst"), errs);
    if let (Some(s), Some(d)) = (src, dst) {
        if s == d {
            errs.push(ConfigError::new(
                f.path("dst"),
                format!("same node as src ({s}); a flow needs two different nodes"),
            ));
        }
    }
    let start = f.number(errs, "start", Some(0.0), "a number of seconds >= 0", |x| {
        x >= 0.0
    });
    let start = start.filter(|s| match duration {
        Some(d) if *s >= d => {
            errs.push(ConfigError::new(
                f.path("start"),
                format!("must be less than duration ({d} s), got {s}"),
            ));
            false
        }
        _ => true,
    });
    // Absent `stop` means the end of the run; no error of its own when duration is invalid.
    let stop = if f.has("stop") {
        f.number(errs, "stop", None, "a number of seconds > 0", |x| x > 0.0)
    } else {
        let _ = f.take("stop"); // registers the key (a JSON null reads as absent)
        duration
    };
    let stop = match (stop, start, duration) {
        (Some(t), Some(s), _) if t <= s => {
            errs.push(ConfigError::new(
                f.path("stop"),
                format!("must be greater than start ({s} s), got {t}"),
            ));
            None
        }
        (Some(t), _, Some(d)) if t > d => {
            errs.push(ConfigError::new(
                f.path("stop"),
                format!("must be at most duration ({d} s), got {t}"),
            ));
            None
        }
        (stop, _, _) => stop,
    };
    let packet_size = to_u32(f.integer(
        errs,
        "packet_size",
        Some(1000),
        &format!("an integer number of bytes in 1..={MAX_PACKET_SIZE_BYTES}"),
        1..=u64::from(MAX_PACKET_SIZE_BYTES),
    ));
    // Keys only some kinds take; the others get "not used by kind ..." and are skipped.
    let keys_by_kind = registered::flow_keys_by_kind();
    let keys_by_kind: Vec<(&str, &[&str])> = (keys_by_kind.iter())
        .map(|(k, kinds)| (*k, kinds.as_slice()))
        .collect();
    f.only_for(errs, "kind", kind, true, &keys_by_kind);
    // Without a valid kind the keys are still checked as the first kind's (UDP's
    // required `rate`).
    let scheme = kind.map_or(Some(FLOW_KINDS[0]), flow_kind);
    let params = scheme.map(|s| registered::read_flow_keys(&mut f, errs, s, max_offered_bps));
    let cc = match kind.and_then(flow_kind) {
        Some(s) if s.takes_cc => read_cc(&mut f, s.name, errs),
        _ => Some(None),
    };
    let priority = f.integer(
        errs,
        "priority",
        Some(0),
        "an integer MAC level in 0..=15",
        0..=15,
    );
    f.finish(errs);

    let kind = flow_kind(kind?)?;
    let cc = cc?;
    match (src, dst) {
        (Some(s), Some(d)) if s == d => None,
        (src, dst) => Some(FlowSpec {
            kind,
            src: src?,
            dst: dst?,
            start_s: start?,
            stop_s: stop?,
            packet_size_bytes: packet_size?,
            priority: priority? as u8,
            cc,
            params: params??,
        }),
    }
}

/// `cc` of a flow of `kind`: "none" (the transport's own control, the default) or a
/// registered source rate controller that paces that kind; one that refuses the kind
/// says why (`RateScheme::refused_kinds`).
fn read_cc(f: &mut Fields, kind: &str, errs: &mut Errs) -> Option<Option<&'static RateScheme>> {
    let offered = RATE_SCHEMES.iter().filter(|s| {
        s.flow_kinds.contains(&kind) || s.refused_kinds.iter().any(|(k, _)| *k == kind)
    });
    let names: Vec<&'static str> = std::iter::once("none")
        .chain(offered.map(|s| s.name))
        .collect();
    let Some(scheme) = rate_scheme(f.choice(errs, "cc", Some("none"), &names, &[])?) else {
        return Some(None); // "none"
    };
    match scheme.refused_kinds.iter().find(|(k, _)| *k == kind) {
        Some((_, why)) => {
            errs.push(ConfigError::new(f.path("cc"), *why));
            None
        }
        None => Some(Some(scheme)),
    }
}

/// A source's `key` (`[[flow]] rate`): bit/s, or `"saturate"` as infinity.
fn read_rate(
    f: &mut Fields,
    key: &'static str,
    max_offered_bps: Option<(f64, f64)>,
    errs: &mut Errs,
) -> Option<f64> {
    const EXPECTED: &str = "bit/s > 0 or \"saturate\"";
    let path = f.path(key);
    match f.take(key) {
        Some(Value::String(s)) if s == "saturate" => Some(f64::INFINITY),
        Some(Value::String(s)) => {
            let hint = if fields::closest(s, &["saturate"]).is_some() {
                "; did you mean \"saturate\"?"
            } else {
                ""
            };
            errs.push(ConfigError::new(
                path,
                format!("expected {EXPECTED}, got {s:?}{hint}"),
            ));
            None
        }
        Some(v) => {
            let x = number(v, &path, errs, EXPECTED, |x| x > 0.0);
            let rate = offered_rate(errs, &path, x, max_offered_bps);
            if let (Some(_), None, Some(e)) = (x, rate, errs.last_mut()) {
                e.message
                    .push_str(", or \"saturate\" to keep the source's queue full");
            }
            rate
        }
        None => {
            if !f.is_broken() {
                errs.push(ConfigError::new(
                    path,
                    format!("missing required key; expected {EXPECTED}"),
                ));
            }
            None
        }
    }
}

fn read_outputs(mut f: Fields, duration: Option<f64>, errs: &mut Errs) -> Option<Outputs> {
    let given = f.has("bin");
    let bin = f.interval(errs, "bin", Some(1.0), "a number of seconds > 0", |x| {
        x > 0.0
    });
    let bin = bin.filter(|b| match duration {
        Some(d) if d / b > MAX_BINS => {
            let default = if given { "" } else { " (the default)" };
            errs.push(ConfigError::new(
                f.path("bin"),
                format!(
                    "{} s{default} cuts duration ({} s) into {} bins; a run keeps at most {} \
                     (a sample per node and flow in each): use a bin of at least {} s",
                    short(*b),
                    short(d),
                    short((d / b).ceil()),
                    short(MAX_BINS),
                    short(d / MAX_BINS)
                ),
            ));
            false
        }
        _ => true,
    });
    f.finish(errs);
    Some(Outputs { bin_s: bin? })
}
