//! The typed scenario: what a scenario file means once it has been read and validated.
//!
//! File keys are SI units without suffixes (`duration = 60.0` seconds, `spacing = 200.0`
//! metres, `rate = 1e6` bit/s, `packet_size = 1000` bytes) because examples and outside
//! tests rely on those names; inside the core the unit goes into the field name.
//! Parsing and validation live in `parse.rs`; this file only says what a valid scenario is.

use airqueue_phy::Propagation;
use airqueue_sim::net::registry::RoutingScheme;
use airqueue_sim::qdisc::registry::{Params, Scheme};
use airqueue_sim::transport::{FlowKindScheme, RateScheme, RegisteredRate};
use serde::ser::SerializeMap;
use serde::Serialize;

/// The radio settings that are the core's own types (their names in the file are their
/// serialised names).
pub use airqueue_phy::Preamble;
pub use airqueue_sim::medium::wifi::{Fading, LateCapture, RateControl, SensedFrames};

/// A whole scenario, validated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    /// `name`; default "unnamed".
    pub name: String,
    /// `duration`: simulated seconds, > 0.
    pub duration_s: f64,
    /// `warmup`: seconds excluded from goodput figures, 0 <= warmup < duration.
    pub warmup_s: f64,
    /// `seed`: run seed, default 1.
    pub seed: u64,
    pub topology: Topology,
    /// `[[link]]`: per-pair settings.
    pub links: Vec<LinkSpec>,
    /// `[[rate_change]]`: scheduled data-rate changes of 802.11 links, in file order.
    pub rate_changes: Vec<RateChangeSpec>,
    /// `[[move]]`: scheduled jumps of 802.11 nodes, in file order.
    pub moves: Vec<MoveSpec>,
    pub medium: Medium,
    pub radio: Radio,
    pub mac: Mac,
    pub routing: Routing,
    pub queue: QueueSpec,
    /// `[tcp]`: settings shared by every TCP flow.
    pub tcp: TcpSpec,
    /// Every registered source rate controller (`airqueue_sim::transport::RATE_SCHEMES`,
    /// in that order) with the keys of its table (`[diffq]`, `[backpressure]`), read
    /// whatever the flows' `cc`; DiffQ's scheduler switches in `[diffq]` are the
    /// queue's keys, in `queue.params`.
    #[serde(serialize_with = "rate_tables")]
    pub rate_control: Vec<RegisteredRate>,
    /// `[[flow]]`, then (once placed, see `topology::validate_and_place`) the flows drawn
    /// by `[flows]`.
    pub flows: Vec<FlowSpec>,
    /// `[flows]`: how to draw random flows; `None` when the file has no such table.
    pub random_flows: Option<RandomFlows>,
    pub outputs: Outputs,
}

/// `[topology]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    /// Nodes 0..n-1 on a line, `spacing` metres apart.
    Chain { nodes: u32, spacing_m: f64 },
    /// `rows` x `cols` nodes, row-major ids, `spacing` metres apart.
    Grid {
        rows: u32,
        cols: u32,
        spacing_m: f64,
    },
    /// Node 0 at the centre, nodes 1..n-1 evenly on a circle of `radius` metres.
    Star { nodes: u32, radius_m: f64 },
    /// `nodes` placed uniformly in `area` (from the run seed); redrawn until connected
    /// under `radio.tx_range` when `connected`.
    Random {
        nodes: u32,
        area_m: [f64; 2],
        connected: bool,
    },
    /// Explicit `positions` in metres.
    Explicit { positions_m: Vec<[f64; 2]> },
    /// An infrastructure BSS: the access point (node 0) at the centre, `stations` radio
    /// stations (nodes 1..=stations, >= 1) evenly on a circle of `radius` metres (at most
    /// `radio.tx_range`), then `wired_hosts` hosts, each joined to the access point by a
    /// duplex wire. Wired hosts have no radio and are not on the 802.11 channel; the
    /// medium must be `wifi`.
    Bss {
        stations: u32,
        radius_m: f64,
        /// `wired_hosts` >= 0; default 1.
        wired_hosts: u32,
        /// `wire_bandwidth` bit/s of each direction of a wire; default 100e6.
        wire_bandwidth_bps: f64,
        /// `wire_delay` seconds of each direction; default 0.025.
        wire_delay_s: f64,
        /// `wire_capacity`: drop-tail packets of each direction's queue; default 1000.
        wire_capacity_pkts: u32,
    },
}

/// `[[link]]`: settings for the pair a <-> b.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    pub a: u32,
    pub b: u32,
    /// `loss`: frame loss probability in [0, 1), both directions.
    pub loss: f64,
    /// `fading`: how the link loses `loss` of its frames.
    pub fading: LinkFading,
}

/// `[[link]] fading`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkFading {
    /// Each frame is erased independently with probability `loss`.
    None,
    /// Rayleigh fading whose average frame loss is `loss` (seed 002, 5.1).
    Rayleigh,
}

/// `[[move]]`: at `at` each of `nodes` jumps to `distance` metres from node `away_from`,
/// along the line from it through the node (seed 004, section IV-B: uplink stations that
/// "move far away from the AP"); the channel recomputes their link budgets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveSpec {
    /// `at` seconds, in [0, duration).
    pub at_s: f64,
    /// `nodes`: distinct ids of nodes with a radio, at least one.
    pub nodes: Vec<u32>,
    /// `away_from`: a node with a radio, not in `nodes`.
    pub away_from: u32,
    /// `distance` metres, in (0, 1e6].
    pub distance_m: f64,
}

/// `[[rate_change]]`: from `at` on, every unicast data frame to or from one of `nodes`
/// (both directions of each of their links) goes at `data_rate`; control frames keep
/// `radio.basic_rate`. Positions and radio ranges do not change. Seed 004, section IV-B:
/// uplink stations moving away from the AP drop from 11 to 2 Mb/s at 100 s.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RateChangeSpec {
    /// `at` seconds, in [0, duration).
    pub at_s: f64,
    /// `nodes`: distinct ids of nodes with a radio, at least one.
    pub nodes: Vec<u32>,
    /// `data_rate` bit/s, one of 1e6, 2e6, 5.5e6, 11e6.
    pub data_rate_bps: f64,
}

/// `[medium]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Medium {
    /// The 802.11b channel (the default): radios set up by `[radio]`, channel access by
    /// `[mac]`, SINR reception, carrier sense, `[[link]] loss` as per-frame erasure.
    Wifi,
    /// Point-to-point full-duplex links between topology neighbours within
    /// `radio.tx_range`; each direction has its own `bandwidth` (bit/s) and `delay` (s)
    /// and is fed by its own queue of kind `queue.kind`.
    Wired { bandwidth_bps: f64, delay_s: f64 },
}

/// `[radio]`: the 802.11b radio. `tx_range` is also the neighbour rule of every medium
/// (routing graph, reachability of flows); the other keys only matter to `wifi`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Radio {
    /// `data_rate` bit/s, one of 1e6, 2e6, 5.5e6, 11e6.
    pub data_rate_bps: f64,
    /// `basic_rate` bit/s, one of 1e6, 2e6, 5.5e6, 11e6; control frames use it.
    pub basic_rate_bps: f64,
    /// `tx_range` metres: decoding range; the receive threshold is derived from it.
    pub tx_range_m: f64,
    /// `cs_range` metres, >= tx_range; the carrier-sense threshold is derived from it.
    pub cs_range_m: f64,
    /// `propagation` (and `path_loss_exponent`); default two-ray ground.
    pub propagation: PropagationKind,
    /// `fading`; default none.
    pub fading: Fading,
    /// `tx_power_dbm`; default 20 dBm.
    pub tx_power_dbm: f64,
    /// `rx_threshold_dbm` if given, else the power received at `tx_range` under
    /// `propagation` (resolved during validation).
    pub rx_threshold_dbm: f64,
    /// `cs_threshold_dbm` if given, else the power received at `cs_range`; never above
    /// `rx_threshold_dbm`.
    pub cs_threshold_dbm: f64,
    /// `noise_dbm`; default thermal noise over 22 MHz plus a 7 dB noise figure.
    pub noise_dbm: f64,
    /// `capture_db` >= 0; default 10 dB (ns-2's capture threshold).
    pub capture_db: f64,
    /// `sensed_frames`: what a frame sensed but too weak to decode does; default
    /// `rx_error` (a failed reception, then EIFS).
    pub sensed_frames: SensedFrames,
    /// `late_capture`: when a frame `capture_db` stronger than the one being received
    /// takes the receiver over; default `preamble`.
    pub late_capture: LateCapture,
    /// `preamble_detection_db`: SINR a frame's preamble needs to be received at all
    /// (ns-3's preamble detection), or `None` (`"off"`, the default).
    pub preamble_detection_db: Option<f64>,
    /// `preamble`; default long.
    pub preamble: Preamble,
}

/// `radio.propagation`: the large-scale path-loss model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PropagationKind {
    /// ns-2's two-ray ground reflection at 2.412 GHz, antennas 1.5 m high.
    TwoRayGround,
    /// Log-distance with `path_loss_exponent` (> 0, default 3.0), free-space loss at 1 m.
    LogDistance { exponent: f64 },
    /// Free space at 2.412 GHz.
    Friis,
    /// Unit disk: decodable within `tx_range`, sensed within `cs_range`, nothing beyond.
    Range,
}

impl PropagationKind {
    /// The core's propagation model; `range` takes the unit disks from `radio.tx_range`
    /// and `radio.cs_range`.
    pub fn model(self, tx_range_m: f64, cs_range_m: f64) -> Propagation {
        match self {
            PropagationKind::TwoRayGround => Propagation::two_ray_ground_default(),
            PropagationKind::LogDistance { exponent } => Propagation::log_distance(exponent),
            PropagationKind::Friis => Propagation::friis_default(),
            PropagationKind::Range => Propagation::range(tx_range_m, cs_range_m),
        }
    }
}

/// `[mac]`: 802.11 channel access, used by `medium.kind = "wifi"`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mac {
    /// `kind`; default dcf.
    pub kind: MacKind,
    /// `levels`, resolved: one level for dcf; for edca a preset name (default "diffq8")
    /// or an explicit table, lowest priority first.
    pub levels: Vec<Level>,
    /// `short_retry_limit` in 1..=255; default 7 (dot11ShortRetryLimit).
    pub short_retry_limit: u32,
    /// `long_retry_limit` in 1..=255; default 4 (dot11LongRetryLimit).
    pub long_retry_limit: u32,
    /// `rts_threshold` bytes: frames whose MPDU exceeds it use RTS/CTS (0: all frames);
    /// `None` (`"off"`, the default): never.
    pub rts_threshold_bytes: Option<u32>,
    /// `nav_reset_after_rts`: reset a NAV set by an RTS when no reception starts within
    /// 10.3.2.4's NAVTimeout; default false.
    pub nav_reset_after_rts: bool,
    /// `rate_control`; default constant.
    pub rate_control: RateControl,
    /// `tx_buffer`: frames the MAC holds before it stops pulling from the queue
    /// discipline, 1..=64; default 1.
    pub tx_buffer_frames: u32,
    /// `tdma_slot_bytes` (kind tdma only): the IP packet one slot carries, in
    /// 1..=65535 bytes; default: the largest `packet_size` of the scenario's flows plus
    /// 80 bytes of IP and TCP header (1460 + 80 without flows). Resolved for tdma,
    /// `None` otherwise.
    pub tdma_slot_bytes: Option<u32>,
    /// `tdma_slots` (kind tdma only): `[node, slots]` pairs giving the listed nodes more
    /// than one slot per round, a counterfactual (seed 001's schedule gives every node
    /// one); empty by default.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tdma_slots: Vec<(u32, u32)>,
}

/// `mac.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MacKind {
    /// Legacy DCF: one level, AIFSN 2, CWmin 31, CWmax 1023.
    Dcf,
    /// EDCA with `levels` priority levels (IEEE 802.11-2016 10.22.2).
    Edca,
    /// A fixed round-robin TDMA schedule, one slot per radio node (seed 001, 3.3).
    Tdma,
}

/// One entry of `mac.levels`: contention parameters of one priority level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Level {
    /// AIFSN >= 2: AIFS = SIFS + aifsn slots.
    pub aifsn: u8,
    /// CWmin in slots, 2^k - 1.
    pub cw_min: u16,
    /// CWmax in slots, 2^k - 1, >= cw_min.
    pub cw_max: u16,
}

/// `[routing]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Routing {
    /// `kind`: `None` for "static" (shortest paths computed once before the run), else
    /// the routing protocol, by its name: "aodv" (RFC 3561) or "olsr" (RFC 3626), each
    /// declaring its keys in its module (`airqueue_sim::net::registry`). A protocol's
    /// messages travel over the 802.11 MAC.
    #[serde(rename = "kind", serialize_with = "routing_kind_name")]
    pub protocol: Option<&'static RoutingScheme>,
    /// `metric` (static routing, and a protocol with a default metric: olsr's is etx):
    /// default hops for static.
    pub metric: RoutingMetric,
    /// The protocol's keys, as its module declares them (none for static routing).
    #[serde(flatten)]
    pub params: Params,
}

impl Routing {
    /// `routing.kind`.
    pub fn kind_name(&self) -> &'static str {
        self.protocol.map_or("static", |p| p.name)
    }

    /// The protocol's keys when `scheme` is the one that runs.
    pub fn params_of(&self, scheme: &RoutingScheme) -> Option<&Params> {
        (self.protocol == Some(scheme)).then_some(&self.params)
    }
}

fn routing_kind_name<S: serde::Serializer>(
    protocol: &Option<&'static RoutingScheme>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_str(protocol.map_or("static", |p| p.name))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutingMetric {
    Hops,
    /// Expected transmission count 1/((1-p_ab)(1-p_ba)) from `[[link]] loss`.
    Etx,
}

/// `[queue]`: a discipline that declares its own keys (`airqueue_sim::qdisc::registry`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueSpec {
    /// `kind`, by its name: "droptail" (default), "fq", "red", "pi", "dqm", "codel",
    /// "fq_codel", "diffq" or "backpressure".
    #[serde(serialize_with = "scheme_name")]
    pub kind: &'static Scheme,
    /// `capacity` in packets, >= 1: the interface queue (drop-tail; RED's and PI's hard
    /// limit) or the node buffer over all destinations (diffq) or flows (backpressure).
    /// Default: the kind's `default_capacity_pkts` (100 for dqm, seed 004's Table II,
    /// and for backpressure, seed 002's buffer; 50, ns-2's interface queue, for most).
    pub capacity_pkts: u32,
    /// The kind's keys, as its module declares them (with those it keeps in its own
    /// table, such as `[diffq] scheduling`), derived defaults filled.
    #[serde(flatten)]
    pub params: Params,
}

fn scheme_name<S: serde::Serializer>(scheme: &&'static Scheme, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(scheme.name)
}

/// As a map of each table (a scheme with keys) to its keys.
fn rate_tables<S: serde::Serializer>(rates: &[RegisteredRate], s: S) -> Result<S::Ok, S::Error> {
    let with_keys = rates.iter().filter(|r| !r.scheme.keys.is_empty());
    let mut map = s.serialize_map(None)?;
    for r in with_keys {
        map.serialize_entry(r.scheme.name, &r.params)?;
    }
    map.end()
}

impl Scenario {
    /// The source rate controller `scheme` as this scenario configures it (its table's
    /// keys).
    pub fn rate_control(&self, scheme: &'static RateScheme) -> RegisteredRate {
        match self.rate_control.iter().find(|r| r.scheme == scheme) {
            Some(r) => r.clone(),
            None => RegisteredRate {
                scheme,
                params: Params::of_keys(scheme.keys.iter().collect()),
            },
        }
    }
}

/// `[tcp]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpSpec {
    /// `min_rto` seconds (RFC 6298 (2.4) floor); default 0.2, in (0, 3600].
    pub min_rto_s: f64,
    /// `initial_rto` seconds, the RTO before the first RTT sample (RFC 6298 (2.1)); default
    /// 1, in (0, 60], raised to `min_rto`. 3 is RFC 2988's, which Linux used before 3.1 and
    /// ns-2 uses.
    pub initial_rto_s: f64,
    /// `delayed_ack` (RFC 5681 4.2); default false.
    pub delayed_ack: bool,
    /// `max_window` packets; default 64, 1..=10000.
    pub max_window_pkts: u32,
    /// `ecn` (RFC 3168); default false.
    pub ecn: bool,
    /// `timestamps` (RFC 7323 option on every segment); default false.
    pub timestamps: bool,
    /// `network_coding` (seed 002, 4.1.3: a coding layer at both ends); default false.
    pub network_coding: bool,
    /// `coding_block` packets per block (`H`); default 32, 1..=1024.
    pub coding_block_pkts: u32,
    /// `coding_repair_delay` seconds; default 0.2, in (0, 60].
    pub coding_repair_delay_s: f64,
}

/// `[[flow]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// `kind`: a registered flow kind, which declares its own keys (`params`).
    pub kind: &'static FlowKindScheme,
    pub src: u32,
    pub dst: u32,
    /// `start` seconds, in [0, duration).
    pub start_s: f64,
    /// `stop` seconds, in (start, duration]; default end of run.
    pub stop_s: f64,
    /// `packet_size`: application payload bytes per packet, 1..=65000.
    pub packet_size_bytes: u32,
    /// `priority`: the MAC (EDCA) level the flow's packets ask for, like an IP DSCP
    /// mapped to an 802.11e access category; 0 (default) is the lowest. Must name one of
    /// `mac.levels`.
    pub priority: u8,
    /// `cc`: a registered source rate controller on top of the transport; `None`
    /// ("none", the default) for the transport's own control.
    pub cc: Option<&'static RateScheme>,
    /// The values of the kind's own keys.
    pub params: Params,
}

/// As a map of the common keys, then the kind's own keys under their resolved names.
impl Serialize for FlowSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", self.kind.name)?;
        map.serialize_entry("src", &self.src)?;
        map.serialize_entry("dst", &self.dst)?;
        map.serialize_entry("start_s", &self.start_s)?;
        map.serialize_entry("stop_s", &self.stop_s)?;
        map.serialize_entry("packet_size_bytes", &self.packet_size_bytes)?;
        map.serialize_entry("priority", &self.priority)?;
        map.serialize_entry("cc", self.cc.map_or("none", |c| c.name))?;
        (self.params).serialize_entries(&mut map, |key| self.kind.resolved_name(key))?;
        map.end()
    }
}

/// `[flows]`: `count` distinct (src, dst) pairs drawn from the run seed among the pairs
/// whose hop count on the unit-disk graph under `radio.tx_range` lies in
/// `min_hops..=max_hops`. Each drawn flow is `template` with its src, dst and start set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RandomFlows {
    /// `random`: how many flows to draw, >= 1.
    pub count: u32,
    /// `start`: each flow starts uniformly in `[lo, hi)`; `lo == hi` for a fixed start.
    pub start_s: [f64; 2],
    /// `min_hops` >= 1; default 1.
    pub min_hops: u32,
    /// `max_hops` >= `min_hops`; `None` (the default): any reachable destination.
    pub max_hops: Option<u32>,
    /// The other keys (`kind`, `rate`, `packet_size`, `stop`, `priority`, ...) read as a
    /// `[[flow]]` would read them; its `src`, `dst` and `start_s` are placeholders.
    pub template: FlowSpec,
}

/// `[outputs]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outputs {
    /// `bin`: width of time-series bins in seconds, > 0; default 1.0.
    pub bin_s: f64,
}

impl Topology {
    /// Number of nodes. Saturates rather than overflowing on a grid that validation would
    /// reject anyway, so that callers holding an unvalidated value cannot panic.
    pub fn node_count(&self) -> u32 {
        match self {
            Topology::Chain { nodes, .. }
            | Topology::Star { nodes, .. }
            | Topology::Random { nodes, .. } => *nodes,
            Topology::Grid { rows, cols, .. } => rows.saturating_mul(*cols),
            Topology::Explicit { positions_m } => positions_m.len() as u32,
            Topology::Bss {
                stations,
                wired_hosts,
                ..
            } => 1u32.saturating_add(*stations).saturating_add(*wired_hosts),
        }
    }

    /// How many nodes have a radio: they are the ids `0..radio_nodes()`, and the rest (a
    /// BSS's wired hosts) are reached by wire only.
    pub fn radio_nodes(&self) -> u32 {
        match self {
            Topology::Bss { stations, .. } => stations.saturating_add(1),
            other => other.node_count(),
        }
    }

    /// The wires as (a, b) node pairs, a < b: a BSS's access point to each wired host.
    pub fn wires(&self) -> Vec<(u32, u32)> {
        (self.radio_nodes()..self.node_count())
            .map(|host| (0, host))
            .collect()
    }
}
