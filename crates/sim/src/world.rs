//! The world: owns every node, medium, flow and metric in flat vectors and runs the event
//! loop. This is the one place where layers meet (STYLE.md): media pull from queue
//! disciplines, arrivals go to forwarding, deliveries go to metrics.

use crate::app::{UdpRate, UdpSource};
use crate::ids::{FlowId, LinkId, NodeId};
use crate::medium::WiredNet;
use crate::metrics::{Conservation, Metrics, QueueSample};
use crate::net::packet::DEFAULT_TTL;
use crate::net::{DropReason, Packet, RoutingTable, TransportHeader};
use crate::qdisc::{DropTail, Qdisc, Queued};
use airqueue_kernel::{EventQueue, Time};

/// Queue discipline settings, instantiated per interface.
#[derive(Clone, Debug, PartialEq)]
pub enum QdiscConfig {
    DropTail { capacity_pkts: u32 },
}

impl QdiscConfig {
    fn build(&self) -> Qdisc {
        match self {
            QdiscConfig::DropTail { capacity_pkts } => {
                Qdisc::DropTail(DropTail::new(*capacity_pkts as usize))
            }
        }
    }
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
}

/// A flow as the core sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowConfig {
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub stop: Time,
    pub payload_bytes: u32,
    pub kind: FlowKindConfig,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FlowKindConfig {
    Udp(UdpRate),
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
    pub medium: MediumConfig,
    pub routing: RoutingTable,
    pub qdisc: QdiscConfig,
    pub flows: Vec<FlowConfig>,
}

/// Events are small plain values; packets never travel inside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    FlowStart(FlowId),
    /// CBR packet number `k` of a flow is due.
    CbrSend(FlowId, u64),
    LinkTxEnd(LinkId),
    LinkArrive(LinkId),
    /// Time-series sample at a bin boundary.
    Sample,
}

/// Per-flow state in the world.
#[derive(Clone, Debug)]
struct FlowState {
    src: NodeId,
    dst: NodeId,
    udp: UdpSource,
}

/// Media in this world.
#[derive(Clone, Debug)]
enum Medium {
    Wired(WiredNet),
}

/// A simulation ready to run.
pub struct World {
    events: EventQueue<Event>,
    duration: Time,
    bin: Time,
    node_count: usize,
    medium: Medium,
    routing: RoutingTable,
    flows: Vec<FlowState>,
    metrics: Metrics,
    next_uid: u64,
}

/// What a finished run hands back.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub metrics: Metrics,
    pub conservation: Conservation,
    pub events: u64,
    pub simulated: Time,
}

impl World {
    pub fn new(cfg: WorldConfig) -> Self {
        let n = cfg.node_count;
        let medium = match &cfg.medium {
            MediumConfig::Wired {
                bandwidth_bps,
                delay,
                links,
            } => {
                let proto = cfg.qdisc.build();
                let mut net = WiredNet::new(n);
                for &(a, b) in links {
                    net.add_duplex(a, b, *bandwidth_bps, *delay, &proto);
                }
                Medium::Wired(net)
            }
        };
        let windows: Vec<(Time, Time)> = cfg
            .flows
            .iter()
            .map(|f| (f.start.max(cfg.warmup), f.stop.min(cfg.duration)))
            .collect();
        let metrics = Metrics::new(n, &windows, cfg.duration, cfg.warmup, cfg.bin);
        let flows = cfg
            .flows
            .iter()
            .map(|f| {
                let FlowKindConfig::Udp(rate) = f.kind;
                FlowState {
                    src: f.src,
                    dst: f.dst,
                    udp: UdpSource::new(rate, f.payload_bytes, f.start, f.stop),
                }
            })
            .collect();
        let mut events = EventQueue::with_capacity(1024);
        for (i, f) in cfg.flows.iter().enumerate() {
            if f.start < cfg.duration {
                events.schedule_in(f.start, Event::FlowStart(FlowId(i as u32)));
            }
        }
        events.schedule_in(cfg.bin.min(cfg.duration), Event::Sample);
        World {
            events,
            duration: cfg.duration,
            bin: cfg.bin,
            node_count: n,
            medium,
            routing: cfg.routing,
            flows,
            metrics,
            next_uid: 0,
        }
    }

    /// Runs until the configured duration and returns the metrics.
    pub fn run(mut self) -> RunOutcome {
        while let Some((_, ev)) = self.events.pop_until(self.duration) {
            self.handle(ev);
        }
        self.events.advance_to(self.duration);
        let conservation = self.conservation();
        debug_assert!(
            conservation.holds(),
            "packet conservation violated: {conservation:?}"
        );
        RunOutcome {
            conservation,
            events: self.events.executed(),
            simulated: self.events.now(),
            metrics: self.metrics,
        }
    }

    fn handle(&mut self, ev: Event) {
        let now = self.events.now();
        match ev {
            Event::FlowStart(f) => self.start_flow(f),
            Event::CbrSend(f, k) => {
                self.send_app_packet(f);
                self.schedule_cbr(f, k + 1);
            }
            Event::LinkTxEnd(l) => {
                let Medium::Wired(net) = &mut self.medium;
                let arrival = net.links[l.index()].finish_tx(now);
                self.events.schedule_in(arrival - now, Event::LinkArrive(l));
                self.kick_link(l);
            }
            Event::LinkArrive(l) => {
                let Medium::Wired(net) = &mut self.medium;
                let link = &mut net.links[l.index()];
                let to = link.to;
                let pkt = link.arrive();
                self.receive(to, pkt);
            }
            Event::Sample => {
                self.sample_queues(now);
                if now + self.bin <= self.duration {
                    self.events.schedule_in(self.bin, Event::Sample);
                }
            }
        }
    }

    fn start_flow(&mut self, f: FlowId) {
        match self.flows[f.index()].udp.rate {
            UdpRate::Cbr { .. } => {
                self.send_app_packet(f);
                self.schedule_cbr(f, 1);
            }
            UdpRate::Saturate => self.top_up(f),
        }
    }

    fn schedule_cbr(&mut self, f: FlowId, k: u64) {
        let udp = &self.flows[f.index()].udp;
        if let Some(at) = udp.cbr_due(k) {
            if at < udp.stop && at < self.duration {
                // `at` is never in the past: due times grow with k and k-1 ran now.
                let delay = at.saturating_sub(self.events.now());
                self.events.schedule_in(delay, Event::CbrSend(f, k));
            }
        }
    }

    /// Fills a saturating flow's first-hop queue to capacity.
    fn top_up(&mut self, f: FlowId) {
        let now = self.events.now();
        let (src, dst) = (self.flows[f.index()].src, self.flows[f.index()].dst);
        if !self.flows[f.index()].udp.active(now) {
            return;
        }
        let Some(next) = self.routing.next_hop(src, dst) else {
            // Unroutable: one packet is created and dropped so the failure shows in drops.
            self.send_app_packet(f);
            return;
        };
        let Medium::Wired(net) = &self.medium;
        let Some(link) = net.link_to(src, next) else {
            return;
        };
        while self.link_has_room(link) {
            self.send_app_packet(f);
        }
    }

    fn link_has_room(&self, l: LinkId) -> bool {
        let Medium::Wired(net) = &self.medium;
        net.links[l.index()].qdisc.has_room()
    }

    /// Creates one application packet of flow `f` at its source and forwards it.
    fn send_app_packet(&mut self, f: FlowId) {
        let now = self.events.now();
        let flow = &mut self.flows[f.index()];
        let pkt = Packet {
            uid: self.next_uid,
            flow: f,
            src: flow.src,
            dst: flow.dst,
            seq: flow.udp.take_seq(),
            payload_bytes: flow.udp.payload_bytes,
            transport: TransportHeader::Udp,
            ttl: DEFAULT_TTL,
            created: now,
        };
        self.next_uid += 1;
        self.metrics.on_created(&pkt);
        let src = pkt.src;
        self.forward(src, pkt);
    }

    /// A packet arrived at `node` from a neighbour.
    fn receive(&mut self, node: NodeId, mut pkt: Packet) {
        if pkt.dst == node {
            self.metrics.on_delivered(&pkt, self.events.now());
            return;
        }
        // RFC 791: a forwarder decrements TTL and discards at zero.
        pkt.ttl = pkt.ttl.saturating_sub(1);
        if pkt.ttl == 0 {
            self.metrics.on_dropped(node, DropReason::Ttl);
            return;
        }
        self.forward(node, pkt);
    }

    /// Hands a packet held by `node` to the queue towards its next hop.
    fn forward(&mut self, node: NodeId, pkt: Packet) {
        if pkt.dst == node {
            self.metrics.on_delivered(&pkt, self.events.now());
            return;
        }
        let Some(next) = self.routing.next_hop(node, pkt.dst) else {
            self.metrics.on_dropped(node, DropReason::NoRoute);
            return;
        };
        let Medium::Wired(net) = &mut self.medium;
        let Some(l) = net.link_to(node, next) else {
            self.metrics.on_dropped(node, DropReason::NoRoute);
            return;
        };
        match net.links[l.index()].qdisc.enqueue(Queued {
            pkt,
            next_hop: next,
        }) {
            Ok(()) => self.kick_link(l),
            Err((_, reason)) => self.metrics.on_dropped(node, reason),
        }
    }

    /// Starts a transmission on an idle link with a non-empty queue.
    fn kick_link(&mut self, l: LinkId) {
        let now = self.events.now();
        let Medium::Wired(net) = &mut self.medium;
        let link = &mut net.links[l.index()];
        let from = link.from;
        if let Some(tx) = link.try_start(now) {
            self.events.schedule_in(tx.ends - now, Event::LinkTxEnd(l));
            // A saturating source replaces each of its packets that leaves its queue.
            if tx.src == from && tx.flow.index() < self.flows.len() {
                let flow = &self.flows[tx.flow.index()];
                if flow.udp.rate == UdpRate::Saturate && flow.udp.active(now) {
                    self.top_up(tx.flow);
                }
            }
        }
    }

    fn sample_queues(&mut self, now: Time) {
        let Medium::Wired(net) = &self.medium;
        for node in 0..self.node_count {
            let len: usize = net
                .links_from(NodeId(node as u32))
                .map(|l| net.links[l.index()].qdisc.len())
                .sum();
            self.metrics.queue_samples.push(QueueSample {
                at: now,
                node: NodeId(node as u32),
                len_pkts: len as u32,
            });
        }
    }

    fn conservation(&self) -> Conservation {
        let Medium::Wired(net) = &self.medium;
        let in_flight: usize = net.links.iter().map(|l| l.in_flight()).sum();
        Conservation {
            created: self.metrics.created,
            delivered: self.metrics.delivered,
            dropped: self.metrics.dropped,
            in_flight: in_flight as u64,
        }
    }
}
