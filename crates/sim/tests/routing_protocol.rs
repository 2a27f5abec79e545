//! Routing protocols of one's own behind `RoutingProtocol`: the world asks them for next
//! hops, fires their timers, carries their control messages, tells them what each node
//! hears and drops what they have no route for, with no change to the world.

mod common;

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::ids::NodeId;
use airqueue_sim::medium::wifi::{WifiConfig, BROADCAST};
use airqueue_sim::net::control::ControlQueues;
use airqueue_sim::net::protocol::Unqueued;
use airqueue_sim::net::{
    ControlMsg, DropReason, Packet, ProtocolStats, RoutingAction, RoutingProtocol, RoutingTable,
    RoutingTimer, StatValue, TransportHeader,
};
use airqueue_sim::qdisc::Dequeued;
use airqueue_sim::{FlowKindConfig, World};
use common::{assert_conserved, chain_positions, flow, wifi_world};

/// Routes by the static table until its one timer fires at `cut_at`; from then on
/// node 1 has no route to node 2. It counts what the world told it.
#[derive(Default)]
struct CutAtOne {
    cut_at: Time,
    cut: bool,
    started: u32,
    timers: u32,
    heard_by_2_from_1: u64,
    no_routes: u64,
    /// Never used: the protocol sends no control packets.
    unqueued: Unqueued,
}

impl RoutingProtocol for CutAtOne {
    fn start(&mut self, _table: &mut RoutingTable, out: &mut Vec<RoutingAction>) {
        self.started += 1;
        out.push(RoutingAction::Arm {
            node: NodeId(1),
            at: self.cut_at,
            timer: RoutingTimer { kind: 7, arg: 42 },
        });
    }

    fn on_control(&mut self, _: NodeId, _: NodeId, _: Packet, _: Time, _: &mut Vec<RoutingAction>) {
        unreachable!("no control packets are sent");
    }

    fn on_timer(
        &mut self,
        node: NodeId,
        timer: RoutingTimer,
        now: Time,
        _: &mut Vec<RoutingAction>,
    ) {
        assert_eq!(
            (node, timer, now),
            (NodeId(1), RoutingTimer { kind: 7, arg: 42 }, self.cut_at)
        );
        self.timers += 1;
        self.cut = true;
    }

    fn queue_control(
        &mut self,
        _: NodeId,
        _: Packet,
        _: NodeId,
        _: Option<Time>,
        _: Time,
    ) -> Option<Time> {
        unreachable!("no control packets are sent");
    }

    fn pop_control(&mut self, _: NodeId, _: Time) -> Option<Dequeued> {
        None
    }

    fn next_hop(
        &mut self,
        node: NodeId,
        pkt: &Packet,
        _prev: NodeId,
        _now: Time,
        table: &RoutingTable,
    ) -> Option<NodeId> {
        if self.cut && node == NodeId(1) {
            return None;
        }
        table.next_hop(node, pkt.dst)
    }

    fn no_route(
        &mut self,
        node: NodeId,
        _prev: NodeId,
        pkt: Packet,
        _now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        self.no_routes += 1;
        out.push(RoutingAction::Drop {
            node,
            reason: DropReason::NoRoute,
            pkt,
        });
    }

    fn on_heard(&mut self, node: NodeId, from: NodeId, _now: Time) {
        if (node, from) == (NodeId(2), NodeId(1)) {
            self.heard_by_2_from_1 += 1;
        }
    }

    fn stats(&mut self, _now: Time, _table: &RoutingTable) -> Option<ProtocolStats> {
        assert!(self.unqueued.is_empty());
        None
    }
}

#[test]
fn the_world_routes_by_a_protocol_it_does_not_know() {
    let cut_at = Time::from_secs(2);
    let flows = vec![flow(
        0,
        2,
        500,
        FlowKindConfig::Udp(UdpRate::Cbr { rate_bps: 80e3 }),
        Time::from_secs(4),
    )];
    let cfg = wifi_world(
        WifiConfig::dsss_default(),
        chain_positions(3, 200.0),
        flows,
        Time::from_secs(4),
        1,
    );
    let protocol = CutAtOne {
        cut_at,
        ..CutAtOne::default()
    };
    let mut world = World::with_routing_protocol(cfg, Box::new(protocol));
    world.run_until(Time::from_secs(4));
    let p = world
        .routing_protocol()
        .and_then(|p| p.downcast_ref::<CutAtOne>())
        .expect("the world keeps the protocol it was given");
    assert_eq!((p.started, p.timers), (1, 1));
    let (heard, no_routes) = (p.heard_by_2_from_1, p.no_routes);
    let out = world.finish();
    assert_conserved(&out);
    let f = &out.metrics.flows[0];
    // 20 packets a second for 4 s: those sent before the cut (less the ones in
    // flight) arrive, every later one dies at node 1.
    assert_eq!(f.packets_sent, 80);
    assert!(
        (35..=40).contains(&f.packets_delivered),
        "{}",
        f.packets_delivered
    );
    let dropped = out.metrics.drops_by_reason()[DropReason::NoRoute.index()];
    assert_eq!(dropped, no_routes);
    assert_eq!(dropped + f.packets_delivered, 80);
    // Node 2 heard node 1's data frames, each at least once.
    assert!(heard >= f.packets_delivered && heard > 0, "{heard}");
}

/// Each node broadcasts one beacon of its own message type at `0.5 + 0.1 * id` seconds
/// and records whom it heard one from.
struct Beacons {
    control: ControlQueues,
    heard: Vec<Vec<(NodeId, u32)>>,
}

impl RoutingProtocol for Beacons {
    fn start(&mut self, _table: &mut RoutingTable, out: &mut Vec<RoutingAction>) {
        for i in 0..self.heard.len() {
            out.push(RoutingAction::Arm {
                node: NodeId(i as u32),
                at: Time::from_millis(500 + 100 * i as u64),
                timer: RoutingTimer { kind: 0, arg: 0 },
            });
        }
    }

    fn on_control(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        _: Time,
        _: &mut Vec<RoutingAction>,
    ) {
        let TransportHeader::Control(m) = pkt.transport else {
            panic!("not a beacon: {:?}", pkt.transport);
        };
        assert_eq!((m.kind, m.bytes, pkt.src), (9, 24, from));
        self.heard[node.index()].push((from, m.body));
    }

    fn on_timer(&mut self, node: NodeId, _: RoutingTimer, _: Time, out: &mut Vec<RoutingAction>) {
        let msg = ControlMsg {
            kind: 9,
            body: 1000 + node.0,
            bytes: 24,
        };
        out.push(RoutingAction::Send {
            node,
            to: BROADCAST,
            transport: TransportHeader::Control(msg),
            ttl: 1,
            delay: Some(Time::ZERO),
        });
    }

    fn queue_control(
        &mut self,
        node: NodeId,
        pkt: Packet,
        to: NodeId,
        delay: Option<Time>,
        now: Time,
    ) -> Option<Time> {
        let delay = delay.unwrap_or(Time::ZERO);
        self.control
            .push(node, pkt, to, now + delay)
            .then_some(delay)
    }

    fn pop_control(&mut self, node: NodeId, now: Time) -> Option<Dequeued> {
        self.control.pop(node, now)
    }

    /// Beacons heard per node, in the protocol's own words.
    fn stats(&mut self, _now: Time, _table: &RoutingTable) -> Option<ProtocolStats> {
        let rows =
            (self.heard.iter()).map(|h| [("beacons_heard", StatValue::Count(h.len() as u64))]);
        let mut stats = ProtocolStats::of_rows("beacons", rows);
        stats.totals = stats.summed_counts();
        Some(stats)
    }
}

#[test]
fn a_protocol_of_ones_own_sends_its_own_control_messages() {
    let cfg = wifi_world(
        WifiConfig::dsss_default(),
        chain_positions(3, 200.0),
        vec![],
        Time::from_secs(2),
        1,
    );
    let protocol = Beacons {
        control: ControlQueues::new(3, 1, "beacons.jitter", 8),
        heard: vec![Vec::new(); 3],
    };
    let mut world = World::with_routing_protocol(cfg, Box::new(protocol));
    world.run_until(Time::from_secs(2));
    let p = world
        .routing_protocol()
        .and_then(|p| p.downcast_ref::<Beacons>())
        .expect("the protocol");
    // Neighbours are 200 m apart in a 250 m decode range: 0 and 2 hear only 1.
    assert_eq!(p.heard[0], vec![(NodeId(1), 1001)]);
    assert_eq!(p.heard[1], vec![(NodeId(0), 1000), (NodeId(2), 1002)]);
    assert_eq!(p.heard[2], vec![(NodeId(1), 1001)]);
    let out = world.finish();
    // Control packets take air time but belong to no flow.
    assert_eq!(out.conservation.created, 0);
    assert!(out.mac.iter().all(|m| m.data_tx == 1), "{:?}", out.mac);
    // Its report reaches the run's outcome as it wrote it.
    let report = out.routing.expect("the protocol's report");
    assert_eq!(report.kind, "beacons");
    assert_eq!(report.columns, ["beacons_heard"]);
    let heard: Vec<_> = (0..3).map(|n| report.count(n, "beacons_heard")).collect();
    assert_eq!(heard, [Some(1), Some(2), Some(1)]);
    assert_eq!(report.totals, [("beacons_heard", StatValue::Count(4))]);
}
