//! The typed scenario: what a scenario file means once it has been read and validated.
//!
//! File keys are SI units without suffixes (`duration = 60.0` seconds, `spacing = 200.0`
//! metres, `rate = 1e6` bit/s, `packet_size = 1000` bytes) because examples and outside
//! tests rely on those names; inside the core the unit goes into the field name.
//! Parsing and validation live in `parse.rs`; this file only says what a valid scenario is.

use serde::Serialize;

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
    pub medium: Medium,
    pub radio: Radio,
    pub routing: Routing,
    pub queue: QueueSpec,
    /// `[[flow]]`.
    pub flows: Vec<FlowSpec>,
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
}

/// `[[link]]`: settings for the pair a <-> b.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    pub a: u32,
    pub b: u32,
    /// `loss`: frame erasure probability in [0, 1), both directions.
    pub loss: f64,
}

/// `[medium]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Medium {
    /// Point-to-point full-duplex links between topology neighbours within
    /// `radio.tx_range`; each direction has its own `bandwidth` (bit/s) and `delay` (s)
    /// and is fed by its own queue of kind `queue.kind`.
    Wired { bandwidth_bps: f64, delay_s: f64 },
}

/// `[radio]`: parsed and validated now; used by the 802.11 medium.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Radio {
    /// `data_rate` bit/s, one of 1e6, 2e6, 5.5e6, 11e6.
    pub data_rate_bps: f64,
    /// `basic_rate` bit/s, one of 1e6, 2e6, 5.5e6, 11e6; control frames use it.
    pub basic_rate_bps: f64,
    /// `tx_range` metres: decoding range, also the neighbour rule of the wired medium.
    pub tx_range_m: f64,
    /// `cs_range` metres, >= tx_range.
    pub cs_range_m: f64,
}

/// `[routing]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Routing {
    pub kind: RoutingKind,
    pub metric: RoutingMetric,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutingKind {
    /// Shortest paths computed once before the run.
    Static,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutingMetric {
    Hops,
    /// Expected transmission count 1/((1-p_ab)(1-p_ba)) from `[[link]] loss`.
    Etx,
}

/// `[queue]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueSpec {
    pub kind: QueueKind,
    /// `capacity` in packets, >= 1.
    pub capacity_pkts: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueKind {
    Droptail,
}

/// `[[flow]]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSpec {
    pub kind: FlowKind,
    pub src: u32,
    pub dst: u32,
    /// `start` seconds, in [0, duration).
    pub start_s: f64,
    /// `stop` seconds, in (start, duration]; default end of run.
    pub stop_s: f64,
    /// `packet_size`: application payload bytes per packet, 1..=65000.
    pub packet_size_bytes: u32,
    pub rate: Rate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    Udp,
}

/// `rate`: offered application bit/s, or "saturate".
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rate {
    Bps(f64),
    /// Keep the sender's queue full.
    Saturate,
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
        }
    }
}
