//! The world: owns every node, medium, flow and metric in flat vectors and runs the event
//! loop. This is the one place where layers meet (STYLE.md): media pull from queue
//! disciplines, arrivals go to forwarding, deliveries go to the flows' transport
//! endpoints (`transport::endpoint::FlowEndpoint`, `world/endpoints.rs`), the queue
//! reports decoded frames carry to the queue disciplines (`world/queue_reports.rs`),
//! paced sources to their rate controllers (`world/pacing.rs`), and routing control
//! packets, timers and MAC failures to the routing protocol, whose actions
//! `world/routing.rs` carries out (AODV and OLSR implement
//! `net::protocol::RoutingProtocol`). A flow that a network-layer scheme carries with
//! packets of its own (`net::scheme::NetScheme`) is the scheme's: its starts, ticks,
//! packets and their MAC fates go to the scheme, whose actions `world/net_scheme.rs`
//! carries out.

use crate::ids::{FlowId, LinkId, NodeId};
use crate::medium::wifi::{Mac, MacStats, WifiConfig, WifiEvent, WifiOutput};
use crate::medium::{configured_loss, WiredNet};
use crate::metrics::{Conservation, Metrics, QueueSample, Traces};
use crate::net::registry::RoutingSetup;
use crate::net::scheme::{NetFlow, NetReports};
use crate::net::{
    DropReason, Packet, ProtocolStats, RoutingProtocol, RoutingTable, RoutingTimer, TransportHeader,
};
use crate::qdisc::registry::BuildContext;
pub use crate::qdisc::registry::RegisteredQdisc;
use crate::qdisc::{DropTail, Qdisc, Queued};
use crate::transport::endpoint::{Emitted, FlowEndpoint};
pub use crate::transport::flow_kind::FlowKindConfig;
use crate::transport::flow_kind::{AnyEndpoint, EndpointSetup};
use crate::transport::rate::{RateScheme, RegisteredRate};
use crate::transport::{RateController, RateSummary, RateUpdate, TransportReports};
use airqueue_kernel::{EventQueue, RngStream, StreamKey, Time, TimerEvent, TimerId, Timers};
use airqueue_phy::access::Link;

mod control;
mod endpoints;
mod extend;
mod moves;
mod net_scheme;
mod pacing;
mod queue_control;
mod queue_reports;
mod rates;
mod routing;
mod source_refill;
mod spin;

use endpoints::TimerOwner;
use net_scheme::NetGlue;
use queue_control::QueueControlNet;
pub use queue_control::QueueControlStats;
use routing::RoutingGlue;
use source_refill::SourceRefill;

pub use spin::{SpinError, MAX_EVENTS_PER_INSTANT};

/// The discipline of `node`'s interface from its settings `qdisc` (`link_to`: the far
/// end of a wired link; `radio`: the rates and framing of an 802.11 interface,
/// `mac_levels` its MAC's priority levels). Random streams are keyed by (seed, node,
/// "qdisc.<name>"), per link direction on wired media.
#[allow(clippy::too_many_arguments)]
fn build_qdisc(
    qdisc: &RegisteredQdisc,
    seed: u64,
    node: NodeId,
    link_to: Option<NodeId>,
    radio: Option<Link>,
    link_loss: &[(NodeId, NodeId, f64)],
    mac_levels: usize,
    node_count: usize,
) -> Qdisc {
    let key = StreamKey::new(seed, node.0, &format!("qdisc.{}", qdisc.scheme.name));
    let mut ctx = BuildContext {
        node,
        link_to,
        node_count,
        radio,
        link_loss,
        mac_levels,
        rng: RngStream::new(match link_to {
            Some(to) => key.sub(to.0 as u64),
            None => key,
        }),
    };
    (qdisc.scheme.build)(&qdisc.params, &mut ctx)
}

/// The medium and its links.
#[derive(Clone, Debug, PartialEq)]
pub enum MediumConfig {
    /// Duplex point-to-point links between the listed node pairs.
    Wired {
        bandwidth_bps: f64,
        delay: Time,
        links: Vec<(NodeId, NodeId)>,
    },
    /// One shared 802.11 channel; who hears whom follows from `WorldConfig::positions`.
    Wifi(WifiConfig),
    /// The 802.11 channel among the nodes with `radio[node]` set, plus duplex wired links
    /// (an infrastructure BSS whose access point has wired hosts behind it). Nodes
    /// without a radio take no part in the channel: they neither sense nor receive, and
    /// reach others only over their wires. A node's packets towards a neighbour it is
    /// wired to take the wire, all others the radio. The radio interfaces keep the
    /// world's queue discipline; each wire direction has its own drop-tail queue.
    WifiAndWires {
        wifi: WifiConfig,
        /// One flag per node.
        radio: Vec<bool>,
        wires: WiresConfig,
    },
}

/// Duplex point-to-point links beside the 802.11 channel, alike in every direction.
#[derive(Clone, Debug, PartialEq)]
pub struct WiresConfig {
    pub bandwidth_bps: f64,
    pub delay: Time,
    /// Drop-tail capacity of each direction, in packets.
    pub capacity_pkts: u32,
    pub links: Vec<(NodeId, NodeId)>,
}

/// A flow as the core sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowConfig {
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub stop: Time,
    pub payload_bytes: u32,
    /// MAC priority level the flow's packets ask for (see `Packet::priority`).
    pub priority: u8,
    pub kind: FlowKindConfig,
    /// Source rate control on top of the transport (`[[flow]] cc`); `None`: the
    /// transport's own (none for UDP, the variant's window control for TCP). A paced
    /// flow sends one packet per tick at its controller's rate, updated on its source's
    /// queue ([`RateScheme::reads`]) every interval or once per emitted packet
    /// ([`RateUpdate`]). A UDP source sends one packet per tick (an application rate caps
    /// the pace, [`FlowEndpoint::rate_cap_bps`]: a CBR source offers no more; a
    /// saturating one leaves it to the controller alone). A TCP sender runs with its congestion control off
    /// (`airqueue_tcp::SenderConfig::congestion_control`): the variant's loss recovery
    /// decides what is sent, one data segment, retransmissions included, per tick
    /// (`airqueue_tcp::SenderConfig::paced`, `world/pacing.rs`); from the flow's stop on,
    /// pacing ends and recovery is unpaced. A network-layer scheme's source
    /// ([`FlowKindConfig::Net`]) is paced the same way, one tick at a time
    /// (`NetScheme::on_pace`). TFRC sets its own rate and ignores it. A scheme without a
    /// `build` (`cc = "external"`) takes its controller from [`World::set_pacer`].
    pub cc: Option<RegisteredRate>,
}

/// A paced source's tick times, for rate updates that fall between two ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PaceClock {
    /// The last tick.
    last: Time,
    /// The pending tick: the only `Event::Pace` of the flow that acts.
    due: Time,
    /// A tick since the last rate update found the source unable to send (a paced TCP
    /// sender's window full): the next update may not raise the rate.
    held: bool,
}

/// Everything needed to build a world. Produced from a scenario by `airqueue-scenario`.
#[derive(Clone, Debug)]
pub struct WorldConfig {
    pub seed: u64,
    pub duration: Time,
    pub warmup: Time,
    /// Width of time-series bins and the queue sampling period.
    pub bin: Time,
    pub node_count: usize,
    /// Node positions in metres (used by the wifi medium).
    pub positions: Vec<[f64; 2]>,
    /// Frame erasure probability per directed pair (a, b), from `[[link]] loss`; pairs not
    /// listed are loss-free.
    pub link_loss: Vec<(NodeId, NodeId, f64)>,
    pub medium: MediumConfig,
    /// Static next hops: the routes unless a routing protocol runs, which starts from
    /// this table and may replace it (OLSR's rows) or serve only the queue disciplines
    /// that read it when they dequeue (AODV's routes are its own).
    pub routing: RoutingTable,
    /// A registered routing protocol (`net/registry.rs`: AODV, OLSR) on the wifi medium,
    /// built from its keys; `None`: the static table.
    pub routing_protocol: Option<RoutingSetup>,
    /// Queue discipline settings, instantiated per interface: one per node on the wifi
    /// medium, one per link direction on wired links (except the wires beside an 802.11
    /// channel, which are drop-tail: see `MediumConfig::WifiAndWires`).
    pub qdisc: RegisteredQdisc,
    pub flows: Vec<FlowConfig>,
}

/// Events are small plain values; packets never travel inside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    FlowStart(FlowId),
    LinkTxEnd(LinkId),
    LinkArrive(LinkId),
    Wifi(WifiEvent),
    /// A transport endpoint's sender stops taking new data.
    FlowStop(FlowId),
    /// An endpoint's timer (owner looked up in `World::timers`).
    Timer(TimerEvent),
    /// A paced source's next packet is due (ignored unless it is the tick
    /// [`PaceClock::due`] names: a rate update may have re-timed it).
    Pace(FlowId),
    /// A paced source's periodic rate update ([`RateUpdate::Every`]).
    RateUpdate(FlowId),
    /// A back-pressure report holding an interface's queue back has expired.
    Wake(Iface),
    /// Time-series sample at a bin boundary.
    Sample,
    /// A timer of the routing protocol at a node.
    Routing(NodeId, RoutingTimer),
    /// A node's idle check for its queue discipline's control broadcasts
    /// (`world/queue_control.rs`).
    QueueControl(NodeId),
    /// The wifi medium's scheduled rate change number `k` takes effect (`world/rates.rs`).
    RateChange(u32),
    /// The wifi medium's scheduled move number `k` takes effect (`world/moves.rs`).
    Move(u32),
    /// A wake-up the network-layer scheme asked for at a node (`world/net_scheme.rs`).
    NetWake(NodeId),
}

impl From<WifiEvent> for Event {
    fn from(e: WifiEvent) -> Self {
        Event::Wifi(e)
    }
}

/// Per-flow state in the world.
#[derive(Debug)]
struct FlowState {
    src: NodeId,
    dst: NodeId,
    priority: u8,
    start: Time,
    stop: Time,
    payload_bytes: u32,
    app: FlowApp,
    /// Its endpoint is a greedy source ([`FlowEndpoint::greedy`]): unpaced, the world
    /// keeps its first queue full.
    greedy: bool,
    /// The first of its endpoint's timers (unused by other flows).
    first_timer: TimerId,
    /// Source rate control (`FlowConfig::cc`): its controller, `None` until the caller
    /// installs one for a scheme without a `build`.
    pacer: Option<Box<dyn RateController>>,
    /// Its scheme: the queue the pacer reads, whether packets carry the queue-report
    /// header.
    cc: Option<&'static RateScheme>,
    /// When the pacer last sent and sends next (periodic rate updates re-time it).
    clock: PaceClock,
}

impl FlowState {
    /// Whether the flow's source replaces each of its packets that leaves its first
    /// queue: a greedy endpoint, or a network-layer scheme's flow, when unpaced.
    #[inline]
    fn refills_own_queue(&self) -> bool {
        self.pacer.is_none() && (self.greedy || matches!(self.app, FlowApp::Net))
    }

    /// Whether a new packet of this flow carries the queue-report header (`Packet::diffq`):
    /// only a paced flow whose rate controller's scheme asks for it
    /// ([`RateScheme::queue_report_header`]).
    #[inline]
    fn carries_queue_report(&self) -> bool {
        match (&self.pacer, self.cc) {
            (Some(_), Some(cc)) => cc.queue_report_header,
            _ => false,
        }
    }
}

/// The traffic source of a flow.
#[derive(Debug)]
enum FlowApp {
    /// An end-to-end transport ([`FlowKindConfig::endpoint`]).
    Endpoint(AnyEndpoint),
    /// A flow the network-layer scheme carries (`World::net`), which keeps its state.
    Net,
}

/// The 802.11 medium of a world: the shared channel and one queue discipline per node,
/// which the MAC pulls from (nodes without a radio keep an unused one).
struct WifiMedium {
    net: Box<Mac>,
    qdiscs: Vec<Qdisc>,
    /// Fair queuing's exact view (seed 001, 4.2), by node id: the nodes that were held
    /// at their last pull waiting for this node's queue to shrink. This node's next
    /// dequeue wakes them (the paper's "stimulus" for a passive queue), and only them.
    waiters: Vec<Vec<NodeId>>,
    /// `[[link]] loss` of the world, for the pairs a scheduled move creates.
    link_loss: Vec<(NodeId, NodeId, f64)>,
}

impl WifiMedium {
    /// The channel among the nodes for which `radio` holds, with the world's discipline.
    fn new(cfg: &WorldConfig, wifi: &WifiConfig, radio: impl Fn(NodeId) -> bool) -> Self {
        let n = cfg.node_count;
        let loss = |a, b| configured_loss(&cfg.link_loss, a, b);
        let net = Mac::with_radios(wifi.clone(), &cfg.positions, radio, cfg.seed, loss);
        let link = Link {
            data_rate: wifi.data_rate,
            basic_rate: wifi.basic_rate,
            preamble: wifi.preamble,
            mac_overhead_bytes: wifi.data_overhead_bytes,
        };
        WifiMedium {
            net: Box::new(net),
            qdiscs: (0..n)
                .map(|i| {
                    let node = NodeId(i as u32);
                    let levels = wifi.levels.len();
                    let loss = &cfg.link_loss;
                    build_qdisc(
                        &cfg.qdisc,
                        cfg.seed,
                        node,
                        None,
                        Some(link),
                        loss,
                        levels,
                        n,
                    )
                })
                .collect(),
            waiters: vec![Vec::new(); n],
            link_loss: cfg.link_loss.clone(),
        }
    }

    /// Exact view: `node` is held; it waits on every neighbour its queued packets go to
    /// (back-pressure holds per class and neighbour, so any of them may free a packet).
    fn wait_for_neighbours(&mut self, node: NodeId) {
        for k in 0..self.qdiscs[node.index()].exact_queries() {
            if let Some((j, _)) = self.qdiscs[node.index()].exact_query(k) {
                let w = &mut self.waiters[j.index()];
                if !w.contains(&node) {
                    w.push(node);
                }
            }
        }
    }

    /// Exact view: writes into `node`'s fair queue the true length, at every neighbour
    /// its queued packets go to, of their class (no allocation: index by index).
    fn refresh_exact(&mut self, node: NodeId, now: Time) {
        for k in 0..self.qdiscs[node.index()].exact_queries() {
            if let Some((j, c)) = self.qdiscs[node.index()].exact_query(k) {
                let len = self.qdiscs[j.index()].class_len(c);
                self.qdiscs[node.index()].set_exact(j, c, len, now);
            }
        }
    }
}

/// The flows of `flows` that a network-layer scheme carries, as the scheme is built
/// from them.
fn net_flows(flows: &[FlowConfig]) -> Vec<NetFlow<'_>> {
    let flows = flows.iter().enumerate();
    (flows.filter_map(|(i, f)| match &f.kind {
        FlowKindConfig::Net(config) => Some(NetFlow {
            id: FlowId(i as u32),
            src: f.src,
            dst: f.dst,
            start: f.start,
            stop: f.stop,
            payload_bytes: f.payload_bytes,
            config,
        }),
        _ => None,
    }))
    .collect()
}

/// Each queue discipline of a node that sends for a scheme's flow whose packets carry
/// the queue-report header learns the neighbours that may take the flow's packets on
/// (`QueueDiscipline::set_multipath`; DiffQ's multi-path scheduling, seed 000, 4.2:
/// `F_ip`).
fn register_next_hop_sets(flows: &[FlowConfig], net: &NetGlue, qdiscs: &mut [Qdisc]) {
    for (i, f) in flows.iter().enumerate() {
        let reports = (f.cc.as_ref()).is_some_and(|cc| cc.scheme.queue_report_header);
        if let (FlowKindConfig::Net(_), true) = (&f.kind, reports) {
            for (node, list) in net.next_hop_sets(FlowId(i as u32)) {
                if let Some(q) = qdiscs.get_mut(node.index()) {
                    q.set_multipath(FlowId(i as u32), list.clone());
                }
            }
        }
    }
}

/// Where a node's packets towards a neighbour wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Iface {
    Link(LinkId),
    Wifi(NodeId),
}

/// A simulation ready to run.
pub struct World {
    events: EventQueue<Event>,
    duration: Time,
    bin: Time,
    node_count: usize,
    /// Wired links (none on a pure 802.11 world).
    wires: WiredNet,
    /// The queue discipline in front of each wired link direction, by `LinkId`.
    link_qdiscs: Vec<Qdisc>,
    /// Some interface's discipline drops at the head
    /// ([`QueueDiscipline::drops_at_head`](crate::qdisc::QueueDiscipline::drops_at_head)).
    head_drops: bool,
    /// The 802.11 channel (`None` on a pure wired world).
    wifi: Option<WifiMedium>,
    routing: RoutingTable,
    /// The routing protocol (`None`: the static table) and its reused lists.
    routing_glue: RoutingGlue,
    flows: Vec<FlowState>,
    /// Nodes whose self-refilling sources share a queue, and whose turn is next.
    source_refill: SourceRefill,
    metrics: Metrics,
    next_uid: u64,
    /// The endpoints' timers, `FlowEndpoint::timer_slots` per endpoint.
    timers: Timers<TimerOwner>,
    /// The packets an endpoint sent while it handled an event (reused).
    sends: Vec<Emitted>,
    /// The network-layer scheme that carries the `FlowApp::Net` flows, if any, and its
    /// reused action lists.
    net: NetGlue,
    /// The queue disciplines' idle control broadcasts, when theirs ask for them (wifi
    /// medium only).
    queue_control: Option<Box<QueueControlNet>>,
    /// Consecutive events at the current instant (the spin guard, `world/spin.rs`).
    instant: spin::InstantCount,
    /// Set when the spin guard stopped the run.
    spin: Option<SpinError>,
}

/// What a finished run hands back.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub metrics: Metrics,
    pub conservation: Conservation,
    pub events: u64,
    pub simulated: Time,
    /// Per-node MAC counters (empty for the wired medium; all zero for a node without
    /// a radio).
    pub mac: Vec<MacStats>,
    /// The transports' per-flow tables (every declared one, each with a row per flow
    /// of its transport).
    pub transports: TransportReports,
    /// Final state of each flow's rate controller (`FlowConfig::cc`); `None` for flows
    /// without one.
    pub rate_control: Vec<Option<RateSummary>>,
    /// Per-bin trace rows not drained while the run went: all of them for a run
    /// nobody drained ([`World::traces_mut`]).
    pub traces: Traces,
    /// The routing protocol's report (`None` with static routing).
    pub routing: Option<ProtocolStats>,
    /// The network-layer schemes' per-flow counters.
    pub net: NetReports,
    /// Per-node counters of the queue disciplines' control broadcasts (empty when off).
    pub queue_control: Vec<QueueControlStats>,
    /// Set when the run stopped early because one component kept the clock from
    /// advancing (`World::spin_error`); the counters then cover the run up to `simulated`.
    pub spin: Option<SpinError>,
}

impl World {
    /// The world of `cfg`, routed by its registered protocol, or else its static table.
    pub fn new(cfg: WorldConfig) -> Self {
        let protocol = (cfg.routing_protocol.as_ref()).map(|r| r.build(cfg.node_count, cfg.seed));
        Self::build(cfg, protocol)
    }

    /// The world of `cfg` routed by `protocol` (in place of `cfg.routing_protocol`;
    /// `cfg.routing` is the table it starts with).
    pub fn with_routing_protocol(cfg: WorldConfig, protocol: Box<dyn RoutingProtocol>) -> Self {
        Self::build(cfg, Some(protocol))
    }

    fn build(cfg: WorldConfig, protocol: Option<Box<dyn RoutingProtocol>>) -> Self {
        let n = cfg.node_count;
        let mut wires = WiredNet::new(n);
        // Each wired link direction's queue discipline, by `LinkId`.
        let mut link_qdiscs: Vec<Qdisc> = Vec::new();
        let wifi = match &cfg.medium {
            MediumConfig::Wired {
                bandwidth_bps,
                delay,
                links,
            } => {
                for &(a, b) in links {
                    wires.add_duplex(a, b, *bandwidth_bps, *delay);
                    for (from, to) in [(a, b), (b, a)] {
                        link_qdiscs.push(build_qdisc(
                            &cfg.qdisc,
                            cfg.seed,
                            from,
                            Some(to),
                            None,
                            &[],
                            1,
                            n,
                        ));
                    }
                }
                None
            }
            MediumConfig::Wifi(wifi) => Some(WifiMedium::new(&cfg, wifi, |_| true)),
            MediumConfig::WifiAndWires {
                wifi,
                radio,
                wires: w,
            } => {
                for &(a, b) in &w.links {
                    wires.add_duplex(a, b, w.bandwidth_bps, w.delay);
                    for _ in 0..2 {
                        link_qdiscs.push(Box::new(DropTail::new(w.capacity_pkts as usize)));
                    }
                }
                let radio = |node: NodeId| radio.get(node.index()).copied().unwrap_or(false);
                Some(WifiMedium::new(&cfg, wifi, radio))
            }
        };
        let windows: Vec<(Time, Time)> = cfg
            .flows
            .iter()
            .map(|f| (f.start.max(cfg.warmup), f.stop.min(cfg.duration)))
            .collect();
        let metrics = Metrics::new(n, &windows, cfg.duration, cfg.bin);
        let mut timers = Timers::new();
        let flows = cfg
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let id = FlowId(i as u32);
                let setup = EndpointSetup {
                    payload_bytes: f.payload_bytes,
                    start: f.start,
                    stop: f.stop,
                    run_end: cfg.duration,
                    paced: f.cc.is_some(),
                };
                let app = match f.kind.endpoint(&setup) {
                    Some(ep) => FlowApp::Endpoint(ep),
                    None => FlowApp::Net,
                };
                // An endpoint that sets its own rate ignores `cc`.
                let cc = match &app {
                    FlowApp::Endpoint(ep) if !ep.takes_pacer() => None,
                    _ => f.cc.as_ref(),
                };
                let pacer = cc.and_then(RegisteredRate::build);
                let first_timer = match &app {
                    FlowApp::Endpoint(ep) => endpoints::create_timers(&mut timers, id, ep),
                    _ => TimerId(0),
                };
                FlowState {
                    greedy: matches!(&app, FlowApp::Endpoint(ep) if ep.greedy()),
                    first_timer,
                    src: f.src,
                    dst: f.dst,
                    priority: f.priority,
                    start: f.start,
                    stop: f.stop,
                    payload_bytes: f.payload_bytes,
                    app,
                    pacer,
                    cc: cc.map(|cc| cc.scheme),
                    clock: PaceClock::default(),
                }
            })
            .collect::<Vec<FlowState>>();
        let refilling = flows.iter().map(|f| (f.src, f.refills_own_queue()));
        let source_refill = SourceRefill::new(n, refilling);
        let net = NetGlue::new(crate::net::scheme::build(
            &net_flows(&cfg.flows),
            n,
            cfg.seed,
        ));
        let mut wifi = wifi;
        if let Some(w) = &mut wifi {
            register_next_hop_sets(&cfg.flows, &net, &mut w.qdiscs);
        }
        let mut events = EventQueue::with_capacity(1024);
        rates::schedule(&cfg, &mut events);
        moves::schedule(&cfg, &mut events);
        for (i, (f, state)) in cfg.flows.iter().zip(&flows).enumerate() {
            let session = matches!(&state.app, FlowApp::Endpoint(ep) if ep.session());
            if f.start < cfg.duration && !(session && f.stop <= f.start) {
                events.schedule_in(f.start, Event::FlowStart(FlowId(i as u32)));
                // A session's sender takes no new data from `stop` on (other sources
                // keep to their window themselves).
                if session && f.stop < cfg.duration {
                    events.schedule_in(f.stop, Event::FlowStop(FlowId(i as u32)));
                }
            }
        }
        events.schedule_in(cfg.bin.min(cfg.duration), Event::Sample);
        let routing = cfg.routing;
        // The queue disciplines' idle control broadcasts, on the 802.11 medium.
        let queue_control = wifi
            .as_ref()
            .and_then(|w| w.qdiscs.iter().find_map(|q| q.control_interval()))
            .map(|t| Box::new(QueueControlNet::new(n, cfg.seed, t)));
        let head_drops = (link_qdiscs.iter())
            .chain(wifi.iter().flat_map(|w| w.qdiscs.iter()))
            .any(|q| q.drops_at_head());
        let mut world = World {
            head_drops,
            instant: spin::InstantCount::default(),
            spin: None,
            queue_control,
            events,
            duration: cfg.duration,
            bin: cfg.bin,
            node_count: n,
            wires,
            link_qdiscs,
            wifi,
            routing,
            routing_glue: RoutingGlue::new(protocol),
            flows,
            source_refill,
            metrics,
            next_uid: 0,
            timers,
            sends: Vec::new(),
            net,
        };
        world.routing_start();
        world.queue_control_start();
        world
    }

    /// Runs until the configured duration and returns the metrics.
    pub fn run(mut self) -> RunOutcome {
        self.run_until(self.duration);
        self.finish()
    }

    /// Runs every event due at or before `t` (capped at the configured duration) and
    /// stops with the clock at `t`, so a test can look inside between steps.
    /// `run_until(a); run_until(b)` executes exactly what `run_until(b)` does.
    /// If one instant takes more than [`MAX_EVENTS_PER_INSTANT`] events the run stops
    /// there instead (see [`World::spin_error`]) and later calls do nothing.
    pub fn run_until(&mut self, t: Time) {
        if self.spin.is_some() {
            return;
        }
        let t = t.min(self.duration);
        while let Some((at, ev)) = self.events.pop_until(t) {
            if self.instant.count(at) {
                self.stop_spinning(at, ev);
                return;
            }
            self.handle(ev);
        }
        self.events.advance_to(t);
    }

    /// The simulated time reached.
    pub fn now(&self) -> Time {
        self.events.now()
    }

    /// The trace rows closed since the last drain: a driver hands them to its sink and
    /// clears them between `run_until` steps, so they never hold more than one step.
    pub fn traces_mut(&mut self) -> &mut Traces {
        &mut self.metrics.traces
    }

    /// Whether trace rows are recorded at all (default on); a run whose traces nobody
    /// reads turns them off. Tracing only observes: results are the same either way.
    pub fn set_keep_traces(&mut self, keep: bool) {
        self.metrics.keep_traces = keep;
    }

    /// Ends the run where the clock stands and returns the metrics (what `run` returns
    /// after `run_until(duration)`).
    pub fn finish(mut self) -> RunOutcome {
        self.metrics.close_all_bins();
        let conservation = self.conservation();
        debug_assert!(
            conservation.holds(),
            "packet conservation violated: {conservation:?}"
        );
        debug_assert_eq!(self.net_check(), Ok(()), "network-layer scheme bookkeeping");
        let mac = match &mut self.wifi {
            None => Vec::new(),
            Some(WifiMedium { net, .. }) => {
                net.close_stats(self.duration);
                (0..self.node_count)
                    .map(|i| net.stats(NodeId(i as u32)))
                    .collect()
            }
        };
        let transports = self.endpoint_reports();
        let rate_control = (self.flows.iter())
            .map(|f| f.pacer.as_deref().map(RateSummary::of))
            .collect();
        let net = self.net_report();
        let now = self.events.now();
        let routing =
            (self.routing_glue.protocol.as_deref_mut()).and_then(|p| p.stats(now, &self.routing));
        let queue_control = self
            .queue_control
            .as_ref()
            .map_or_else(Vec::new, |c| c.stats());
        RunOutcome {
            spin: self.spin.take(),
            queue_control,
            net,
            routing,
            transports,
            rate_control,
            traces: std::mem::take(&mut self.metrics.traces),
            conservation,
            events: self.events.executed(),
            simulated: self.events.now(),
            metrics: self.metrics,
            mac,
        }
    }

    fn handle(&mut self, ev: Event) {
        let now = self.events.now();
        match ev {
            Event::FlowStart(f) => self.start_flow(f),
            Event::LinkTxEnd(l) => {
                let arrival = self.wires.links[l.index()].finish_tx(now);
                self.events.schedule_in(arrival - now, Event::LinkArrive(l));
                self.kick(Iface::Link(l));
            }
            Event::LinkArrive(l) => {
                let link = &mut self.wires.links[l.index()];
                let (from, to) = (link.from, link.to);
                let pkt = link.arrive();
                self.routing_heard(to, from);
                self.deliver_queue_report(to, from, &pkt);
                self.receive(to, from, pkt);
            }
            Event::Wifi(w) => {
                let Some(WifiMedium { net, .. }) = &mut self.wifi else {
                    unreachable!("wifi event without wifi")
                };
                net.handle(w, &mut self.events);
                self.drain_wifi_outputs();
            }
            Event::FlowStop(f) => self.endpoint_call(f, |ep, io| ep.stop(io)),
            Event::Pace(f) => self.pace(f),
            Event::RateUpdate(f) => self.rate_update(f),
            Event::Wake(iface) => self.kick(iface),
            Event::Routing(node, t) => self.routing_timer(node, t),
            Event::QueueControl(node) => self.queue_control_check(node),
            Event::NetWake(node) => self.net_wake(node),
            Event::Timer(t) => {
                if let Some(o) = self.timers.fire(t, &mut self.events, Event::Timer) {
                    self.endpoint_call(o.flow, |ep, io| ep.on_timer(o.slot, io));
                }
            }
            Event::RateChange(k) => self.rate_change(k),
            Event::Move(k) => self.move_node(k),
            Event::Sample => {
                self.metrics.close_bins_before(now);
                self.sample_queues(now);
                self.endpoint_sample(now);
                self.pace_sample(now);
                if now + self.bin <= self.duration {
                    self.events.schedule_in(self.bin, Event::Sample);
                }
            }
        }
    }

    /// Acts on what the MACs reported, until they have nothing more to say.
    fn drain_wifi_outputs(&mut self) {
        loop {
            let Some(WifiMedium { net, .. }) = &mut self.wifi else {
                return;
            };
            if net.out_mut().is_empty() {
                return;
            }
            let mut outs = std::mem::take(net.out_mut());
            for o in outs.drain(..) {
                match o {
                    WifiOutput::Received { node, from, pkt } if pkt.transport.is_control() => {
                        self.routing_heard(node, from);
                        match pkt.transport {
                            TransportHeader::QueueReports(m) => {
                                self.queue_control_receive(node, from, m)
                            }
                            _ => self.routing_control(node, from, pkt),
                        }
                    }
                    // A network-layer scheme's packets go to the scheme, not to IP
                    // forwarding.
                    WifiOutput::Received { node, from, pkt } if self.net.claims(&pkt) => {
                        self.deliver_queue_report(node, from, &pkt);
                        self.net_receive(node, from, pkt)
                    }
                    WifiOutput::BroadcastDone { node, pkt } if self.net.claims(&pkt) => {
                        self.net_broadcast_done(node, pkt)
                    }
                    // Only a scheme broadcasts data (other broadcasts are control).
                    WifiOutput::BroadcastDone { .. } => {}
                    WifiOutput::Received { node, from, pkt } => {
                        self.routing_heard(node, from);
                        let now = self.events.now();
                        self.qdisc_mut(Iface::Wifi(node))
                            .on_received(from, &pkt, now);
                        self.deliver_queue_report(node, from, &pkt);
                        self.receive(node, from, pkt)
                    }
                    WifiOutput::Overheard {
                        node, from, pkt, ..
                    } => {
                        self.routing_heard(node, from);
                        self.deliver_queue_report(node, from, &pkt)
                    }
                    WifiOutput::RetryLimitDrop { node, pkt } if pkt.transport.is_control() => {
                        self.routing_control_lost(node)
                    }
                    WifiOutput::RetryLimitDrop { node, pkt } if self.net.claims(&pkt) => {
                        self.net_retry_exhausted(node, pkt)
                    }
                    WifiOutput::RetryLimitDrop { node, pkt } => {
                        self.metrics
                            .on_packet_dropped(node, DropReason::MacRetryLimit, &pkt);
                        self.routing_relay_failed(node, &pkt);
                    }
                    WifiOutput::WantFrame(node) => self.kick(Iface::Wifi(node)),
                    WifiOutput::TxStatus(st) => {
                        let now = self.events.now();
                        if let Some(WifiMedium { qdiscs, .. }) = &mut self.wifi {
                            qdiscs[st.node.index()].on_tx_status(&st, now);
                        }
                        if !st.success {
                            self.routing_tx_failed(st.node, st.next_hop);
                        }
                    }
                }
            }
            let Some(WifiMedium { net, .. }) = &mut self.wifi else {
                return;
            };
            if net.out_mut().is_empty() {
                *net.out_mut() = outs; // keep the allocation
            }
        }
    }

    fn start_flow(&mut self, f: FlowId) {
        if self.flows[f.index()].pacer.is_some() {
            return self.start_paced(f);
        }
        match &self.flows[f.index()].app {
            FlowApp::Endpoint(_) => {
                self.endpoint_start(f);
                if self.flows[f.index()].greedy {
                    self.top_up(f);
                }
            }
            FlowApp::Net => self.net_flow_start(f, false),
        }
    }

    /// The interface through which `node` reaches its neighbour `next`: the wire that
    /// joins them if there is one, else `node`'s radio if it has one.
    #[inline]
    fn iface_towards(&self, node: NodeId, next: NodeId) -> Option<Iface> {
        if let Some(l) = self.wires.link_to(node, next) {
            return Some(Iface::Link(l));
        }
        let wifi = self.wifi.as_ref()?;
        wifi.net.has_radio(node).then_some(Iface::Wifi(node))
    }

    fn qdisc(&self, iface: Iface) -> &Qdisc {
        match (iface, &self.wifi) {
            (Iface::Link(l), _) => &self.link_qdiscs[l.index()],
            (Iface::Wifi(n), Some(w)) => &w.qdiscs[n.index()],
            (Iface::Wifi(_), None) => unreachable!("radio interface without wifi"),
        }
    }

    fn qdisc_mut(&mut self, iface: Iface) -> &mut Qdisc {
        match (iface, &mut self.wifi) {
            (Iface::Link(l), _) => &mut self.link_qdiscs[l.index()],
            (Iface::Wifi(n), Some(w)) => &mut w.qdiscs[n.index()],
            (Iface::Wifi(_), None) => unreachable!("radio interface without wifi"),
        }
    }

    /// Fills greedy flow `f`'s first-hop queue to capacity (its destination's queue,
    /// for a per-destination discipline), within the flow's window `[start, stop)`.
    fn top_up(&mut self, f: FlowId) {
        self.top_up_with(f, true);
    }

    /// [`Self::top_up`]; without a route, one packet is made and dropped only if
    /// `unroutable_drop`.
    fn top_up_with(&mut self, f: FlowId, unroutable_drop: bool) {
        let now = self.events.now();
        let fl = &self.flows[f.index()];
        let (src, dst, paced) = (fl.src, fl.dst, fl.pacer.is_some());
        if now < fl.start || now >= fl.stop {
            return;
        }
        let next = self.routing_peek_next_hop(src, dst);
        let Some((next, iface)) =
            next.and_then(|next| Some((next, self.iface_towards(src, next)?)))
        else {
            // Unroutable: one packet is created and dropped so the failure shows in drops
            // (with AODV, it waits for a route discovery).
            if unroutable_drop {
                self.endpoint_call(f, |ep, io| ep.fill(io));
            }
            return;
        };
        while self.qdisc(iface).has_room(src, dst, next, paced) {
            if !self.endpoint_call(f, |ep, io| ep.fill(io)) {
                return;
            }
        }
    }

    /// A packet arrived at `node` from its neighbour `from`.
    fn receive(&mut self, node: NodeId, from: NodeId, mut pkt: Packet) {
        if pkt.dst == node {
            self.routing_delivered(node, from, &pkt);
            self.deliver(node, pkt);
            return;
        }
        // RFC 791: a forwarder decrements TTL and discards at zero.
        pkt.ttl = pkt.ttl.saturating_sub(1);
        if pkt.ttl == 0 {
            self.metrics.on_packet_dropped(node, DropReason::Ttl, &pkt);
            return;
        }
        self.forward_from(node, from, pkt);
    }

    /// A packet reached its destination `node`: an endpoint's packets go to the flow's
    /// endpoint. Control messages were handed to the routing protocol or the queue
    /// discipline on reception, a network-layer scheme's packets to the scheme.
    fn deliver(&mut self, node: NodeId, pkt: Packet) {
        let Some(fl) = self.flows.get(pkt.flow.index()) else {
            return;
        };
        if let FlowApp::Endpoint(_) = &fl.app {
            self.endpoint_call(pkt.flow, |ep, io| ep.on_arrival(node, &pkt, io))
        }
    }

    /// An endpoint's flow starts. A session from a node to itself never starts (its
    /// packets would be answered within the same instant, forever).
    fn endpoint_start(&mut self, f: FlowId) {
        let fl = &self.flows[f.index()];
        if fl.src != fl.dst || !self.endpoint_is_session(f) {
            self.endpoint_call(f, |ep, io| ep.start(io));
        }
    }

    /// Whether flow `f`'s endpoint is a session ([`FlowEndpoint::session`]).
    fn endpoint_is_session(&self, f: FlowId) -> bool {
        matches!(&self.flows[f.index()].app, FlowApp::Endpoint(ep) if ep.session())
    }

    /// Hands a packet `node` generated to the queue towards its next hop.
    fn forward(&mut self, node: NodeId, pkt: Packet) {
        self.forward_from(node, node, pkt)
    }

    /// Hands a packet held by `node`, received from `prev_hop` (`node` itself: generated
    /// here), to the queue towards its next hop.
    fn forward_from(&mut self, node: NodeId, prev_hop: NodeId, pkt: Packet) {
        if pkt.dst == node {
            self.deliver(node, pkt);
            return;
        }
        let next = self.routing_next_hop(node, &pkt, prev_hop);
        let Some((next, iface)) =
            next.and_then(|next| Some((next, self.iface_towards(node, next)?)))
        else {
            return self.routing_no_route(node, prev_hop, pkt);
        };
        let now = self.events.now();
        let uid = pkt.uid;
        match self.qdisc_mut(iface).enqueue(
            Queued {
                pkt,
                next_hop: next,
                prev_hop,
            },
            now,
        ) {
            Ok(()) => self.kick(iface),
            Err((q, reason)) => {
                let pushed_out = q.pkt.uid != uid;
                if reason == DropReason::QueueOverflow && prev_hop != node {
                    self.relay_overflow(node, prev_hop, &q.pkt);
                }
                self.metrics.on_packet_dropped(node, reason, &q.pkt);
                self.endpoint_source_drop(node, reason, &q.pkt);
                // Backpressure pushed another packet out and kept the arrival.
                if pushed_out {
                    self.kick(iface);
                }
            }
        }
    }

    /// Lets an interface pull from its queue discipline if it has room.
    fn kick(&mut self, iface: Iface) {
        let now = self.events.now();
        match iface {
            Iface::Link(l) => {
                let link = &self.wires.links[l.index()];
                let from = link.from;
                if !link.is_busy() {
                    let qdisc = &mut self.link_qdiscs[l.index()];
                    if let Some(d) = qdisc.dequeue(&self.routing, now) {
                        let tx = self.wires.links[l.index()].start(now, d.pkt);
                        self.events.schedule_in(tx.ends - now, Event::LinkTxEnd(l));
                        self.after_dequeue(from, tx.flow, tx.src);
                    } else if let Some(at) = qdisc.release_at(now) {
                        self.events.schedule_in(at - now, Event::Wake(iface));
                    }
                }
                self.take_head_drops(iface, from);
            }
            Iface::Wifi(node) => loop {
                let Some(WifiMedium { net, qdiscs, .. }) = &mut self.wifi else {
                    return;
                };
                if !net.wants_frame(node) {
                    return;
                }
                // Routing control packets go ahead of the data (ns-2's PriQueue).
                let control = match self.routing_glue.protocol.as_deref_mut() {
                    Some(p) => p.pop_control(node, now),
                    None => None,
                };
                // So do the queue discipline's control broadcasts.
                let control = match &mut self.queue_control {
                    Some(c) if control.is_none() => c.pop_control(node, now),
                    _ => control,
                };
                // So do a network-layer scheme's control frames.
                if let Some(d) = control.or_else(|| self.net.pop_control(node)) {
                    net.push_frame(node, d, &mut self.events);
                    continue;
                }
                let exact = qdiscs[node.index()].exact_queries() > 0;
                let Some(w) = &mut self.wifi else { return };
                if exact {
                    w.refresh_exact(node, now);
                }
                let qdiscs = &mut w.qdiscs;
                let Some(mut d) = qdiscs[node.index()].dequeue(&self.routing, now) else {
                    // Held back by back-pressure: try again when the report expires.
                    if let Some(at) = qdiscs[node.index()].release_at(now) {
                        self.events.schedule_in(at - now, Event::Wake(iface));
                        if exact {
                            let w = self.wifi.as_mut().expect("wifi medium");
                            w.wait_for_neighbours(node);
                        }
                    }
                    self.take_head_drops(iface, node);
                    return;
                };
                if exact {
                    self.wake_waiters(node);
                }
                let (flow, src) = (d.pkt.flow, d.pkt.src);
                if let Some(c) = &mut self.queue_control {
                    c.on_data(node, now);
                }
                // A network-layer scheme fills in its packet now, or refuses it.
                if let Err(reason) = self.net_dequeue(node, &mut d.pkt) {
                    self.metrics.on_packet_dropped(node, reason, &d.pkt);
                    self.after_dequeue(node, flow, src);
                    self.take_head_drops(iface, node);
                    continue;
                }
                let Some(WifiMedium { net, .. }) = &mut self.wifi else {
                    return;
                };
                net.push_frame(node, d, &mut self.events);
                self.after_dequeue(node, flow, src);
                // After the frame is with the MAC: a refill may pull again.
                self.take_head_drops(iface, node);
            },
        }
    }

    /// Exact view: `node`'s queue just shrank, so the nodes held waiting on it are asked
    /// again, at this instant, through an event (not from inside this pull).
    fn wake_waiters(&mut self, node: NodeId) {
        let Some(w) = &mut self.wifi else { return };
        for waiter in w.waiters[node.index()].drain(..) {
            self.events
                .schedule_in(Time::ZERO, Event::Wake(Iface::Wifi(waiter)));
        }
    }

    /// A greedy source replaces each of its packets that leaves its first queue.
    /// Accounts for the packets `iface`'s discipline dropped while handing out others
    /// (CoDel's head drops); a greedy source among them refills its queue.
    fn take_head_drops(&mut self, iface: Iface, node: NodeId) {
        if !self.head_drops {
            return;
        }
        while let Some((q, reason)) = self.qdisc_mut(iface).take_dropped() {
            self.metrics.on_packet_dropped(node, reason, &q.pkt);
            self.after_dequeue(node, q.pkt.flow, q.pkt.src);
        }
    }

    fn after_dequeue(&mut self, node: NodeId, flow: FlowId, src: NodeId) {
        if src != node || flow.index() >= self.flows.len() {
            return;
        }
        let fl = &self.flows[flow.index()];
        // A scheme's packets are made by forwarders too: only the source's count here.
        if fl.refills_own_queue() && node == fl.src {
            self.refill_source(node, flow);
        }
    }

    fn sample_queues(&mut self, now: Time) {
        for node in 0..self.node_count {
            let id = NodeId(node as u32);
            let wired: usize = (self.wires.links_from(id))
                .map(|l| self.link_qdiscs[l.index()].len())
                .sum();
            let radio = self.wifi.as_ref().map_or(0, |w| w.qdiscs[node].len());
            let len = wired + radio;
            // The radio's sample, else the first wired interface's that has one.
            let mut sample = (self.wifi.as_mut()).and_then(|w| w.qdiscs[node].sample());
            for l in self.wires.links_from(id) {
                let wired = self.link_qdiscs[l.index()].sample();
                sample = sample.or(wired);
            }
            self.metrics.record_queue(QueueSample {
                at: now,
                node: id,
                len_pkts: len as u32,
                q_ref_pkts: sample.and_then(|s| s.reference_pkts),
                queue_delay_s: sample.and_then(|s| s.mean_sojourn_s),
            });
        }
    }

    fn conservation(&self) -> Conservation {
        let wired: usize = self
            .wires
            .links
            .iter()
            .map(|l| l.in_flight())
            .sum::<usize>()
            + self.link_qdiscs.iter().map(|q| q.len()).sum::<usize>();
        let radio = self.wifi.as_ref().map_or(0, |w| {
            w.qdiscs.iter().map(|q| q.len()).sum::<usize>() + w.net.in_flight()
        });
        let waiting = self.routing_waiting() + self.net.held();
        let in_flight = wired + radio + waiting;
        Conservation {
            created: self.metrics.created,
            delivered: self.metrics.delivered,
            dropped: self.metrics.dropped,
            in_flight: in_flight as u64,
        }
    }
}

#[cfg(test)]
mod event_size {
    /// Events sit in the kernel's binary heap by value; every byte is moved on each sift.
    /// AODV's discovery timer once carried its destination and grew them from 16 to 24
    /// bytes, which cost 8-15% of whole-scenario speed (criterion `star20`,
    /// `chain-wired`).
    #[test]
    fn events_stay_16_bytes() {
        assert_eq!(std::mem::size_of::<super::Event>(), 16);
    }
}
