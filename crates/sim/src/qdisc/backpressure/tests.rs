use super::*;
use crate::net::TransportHeader;
use airqueue_kernel::StreamKey;

const T0: Time = Time::ZERO;
const RATE: f64 = 2e6;

fn cfg(variant: BackpressureVariant) -> BackpressureConfig {
    BackpressureConfig::configured(20, variant, Time::from_millis(50))
}

/// Node 1 with loss-free 2 Mb/s links to every other node of 10.
fn bp(variant: BackpressureVariant) -> Backpressure {
    bp_with(cfg(variant))
}

/// [`bp`] under the configuration `c`.
fn bp_with(c: BackpressureConfig) -> Backpressure {
    let rng = RngStream::new(StreamKey::new(1, 1, "qdisc.backpressure"));
    let mut b = Backpressure::new(c, NodeId(1), 10, rng);
    for j in 0..10 {
        b.set_link(NodeId(j), RATE, 0.0);
    }
    b
}

/// A packet of `flow` towards `dst`, sequence `seq`, held by node 1.
fn pkt(flow: u32, dst: u32, seq: u64) -> Queued {
    Queued {
        pkt: Packet {
            uid: flow as u64 * 1000 + seq,
            flow: FlowId(flow),
            src: NodeId(1),
            dst: NodeId(dst),
            seq,
            payload_bytes: 1000,
            transport: TransportHeader::Udp,
            ttl: 64,
            priority: 0,
            created: T0,
            diffq: None,
            report: None,
        },
        next_hop: NodeId(dst),
        prev_hop: NodeId(1),
    }
}

/// A frame from a neighbour reporting `qlen` for (flow, dst).
fn report(flow: u32, dst: u32, qlen: u16) -> Packet {
    let mut p = pkt(flow, dst, 0).pkt;
    p.diffq = Some(DiffqHeader { qlen });
    p
}

fn fill(b: &mut Backpressure, flow: u32, dst: u32, n: u64) {
    for s in 0..n {
        b.enqueue(pkt(flow, dst, s)).unwrap();
    }
}

/// Routing: node 1 reaches 5 through 2, every other node directly.
fn via2(d: NodeId) -> Option<NodeId> {
    Some(if d == NodeId(5) { NodeId(2) } else { d })
}

#[test]
fn classical_and_tcp_aware_differentials_and_k() {
    let mut c = bp(BackpressureVariant::Classical);
    let mut t = bp(BackpressureVariant::TcpAware);
    for b in [&mut c, &mut t] {
        fill(b, 0, 5, 3);
        fill(b, 1, 6, 1);
        b.on_report(NodeId(2), &report(0, 5, 7), T0);
    }
    // K = B / |S| = 20 / 2.
    assert_eq!(t.k(), 10);
    let c0 = (FlowId(0), NodeId(5));
    assert_eq!(c.differential(c0, NodeId(2), T0), Some(3 - 7));
    assert_eq!(t.differential(c0, NodeId(2), T0), Some(10 - 7));
    // Unheard neighbours count as empty (`UnknownNeighbour::Zero`).
    assert_eq!(
        c.differential((FlowId(1), NodeId(6)), NodeId(2), T0),
        Some(1)
    );
    assert_eq!(
        t.differential((FlowId(1), NodeId(6)), NodeId(2), T0),
        Some(10)
    );
    // Own queue above K: max(K, U_i) = U_i.
    fill(&mut t, 0, 5, 12);
    assert_eq!(t.differential(c0, NodeId(2), T0), Some(15 - 7));
}

#[test]
fn the_destination_has_no_backlog_and_reports_expire() {
    let mut b = bp(BackpressureVariant::Classical);
    fill(&mut b, 0, 5, 4);
    b.on_report(NodeId(5), &report(0, 5, 9), T0);
    b.on_report(NodeId(2), &report(0, 5, 9), T0);
    let c = (FlowId(0), NodeId(5));
    assert_eq!(
        b.neighbour_len(NodeId(5), c, T0),
        0,
        "U_j = 0 at the destination"
    );
    assert_eq!(b.neighbour_len(NodeId(2), c, T0), 9);
    assert_eq!(b.neighbour_len(NodeId(2), c, Time::from_millis(50)), 0);
}

#[test]
fn next_hop_maximises_backlog_difference_times_link_quality() {
    let mut b = bp(BackpressureVariant::Classical);
    fill(&mut b, 0, 5, 10);
    let c = (FlowId(0), NodeId(5));
    // Differentials: via 2: 10 - 6 = 4; via 3: 10 - 2 = 8; via 4: 10 - 0 = 10.
    b.on_report(NodeId(2), &report(0, 5, 6), T0);
    b.on_report(NodeId(3), &report(0, 5, 2), T0);
    b.set_link(NodeId(4), RATE, 0.5); // 10 * 0.5 < 8 * 1
    let n = [NodeId(2), NodeId(3), NodeId(4)];
    let choice = b.choose(&n, via2, T0).unwrap();
    assert_eq!((choice.next_hop, choice.differential), (NodeId(3), 8));
    assert_eq!(choice.commodity, c);
    let d = b.dequeue(&n, via2, T0).unwrap();
    assert_eq!(d.next_hop, NodeId(3));
    assert_eq!(d.pkt.seq, 0, "FIFO within a flow");
    assert_eq!(
        d.pkt.diffq,
        Some(DiffqHeader { qlen: 9 }),
        "reports what is left"
    );
    // What went to 3 counts on top of its report until it reports again.
    assert_eq!(b.neighbour_len(NodeId(3), c, T0), 3);
    // Equal weights: the routing next hop wins.
    let mut b = bp(BackpressureVariant::Classical);
    fill(&mut b, 0, 5, 3);
    let d = b.dequeue(&n, via2, T0).unwrap();
    assert_eq!(d.next_hop, NodeId(2));
}

#[test]
fn the_larger_differential_wins_between_flows() {
    let mut b = bp(BackpressureVariant::Classical);
    fill(&mut b, 0, 5, 6);
    fill(&mut b, 1, 6, 3);
    // Flow 0: 6 - 5 = 1 via 2, 6 - 6 = 0 via 6; flow 1: 3 - 0 via its destination 6.
    b.on_report(NodeId(2), &report(0, 5, 5), T0);
    b.on_report(NodeId(6), &report(0, 5, 6), T0);
    let d = b.dequeue(&[NodeId(2), NodeId(6)], via2, T0).unwrap();
    assert_eq!((d.pkt.flow, d.next_hop), (FlowId(1), NodeId(6)));
}

#[test]
fn holds_when_no_weight_is_positive_until_a_report_expires() {
    let mut b = bp(BackpressureVariant::Classical);
    fill(&mut b, 0, 5, 2);
    b.on_report(NodeId(2), &report(0, 5, 2), T0);
    let at = Time::from_millis(10);
    assert_eq!(b.dequeue(&[NodeId(2)], via2, at), None, "2 - 2 = 0: hold");
    assert_eq!(b.held(), 1);
    assert_eq!(b.len(), 2);
    assert_eq!(b.release_at(at), Some(Time::from_millis(50)));
    // TCP-aware sends the same packets: max(K, 2) - 2 > 0.
    let mut t = bp(BackpressureVariant::TcpAware);
    fill(&mut t, 0, 5, 2);
    t.on_report(NodeId(2), &report(0, 5, 2), T0);
    assert!(t.dequeue(&[NodeId(2)], via2, at).is_some());
    // A newer, smaller report releases the classical queue.
    assert!(b.on_report(NodeId(2), &report(0, 5, 0), at));
    assert_eq!(
        b.dequeue(&[NodeId(2)], via2, at).unwrap().next_hop,
        NodeId(2)
    );
    // Nothing queued: nothing to wait for.
    let empty = bp(BackpressureVariant::Classical);
    assert_eq!(empty.release_at(at), None);
}

#[test]
fn overflow_drops_from_the_largest_flow_queue() {
    let mut b = bp(BackpressureVariant::TcpAware);
    fill(&mut b, 0, 5, 12);
    fill(&mut b, 1, 6, 8);
    assert!(!b.has_room());
    // An arrival of the short flow pushes out the long flow's tail.
    let (gone, reason) = b.enqueue(pkt(1, 6, 100)).unwrap_err();
    assert_eq!((gone.pkt.flow, gone.pkt.seq), (FlowId(0), 11));
    assert_eq!(reason, DropReason::QueueOverflow);
    assert_eq!(
        (
            b.queue_len(FlowId(0), NodeId(5)),
            b.queue_len(FlowId(1), NodeId(6))
        ),
        (11, 9)
    );
    // An arrival of the longest flow is itself dropped.
    let (gone, _) = b.enqueue(pkt(0, 5, 200)).unwrap_err();
    assert_eq!(gone.pkt.seq, 200);
    assert_eq!(b.len(), 20);
    let c = b.counters();
    assert!(c.consistent_with(b.len()), "{c:?}");
    assert_eq!(b.iter().count(), b.len());
}

#[test]
fn ties_between_flows_are_broken_at_random_but_reproducibly() {
    let picks = |seed: u64| {
        let rng = RngStream::new(StreamKey::new(seed, 1, "qdisc.backpressure"));
        let mut b = Backpressure::new(cfg(BackpressureVariant::TcpAware), NodeId(1), 10, rng);
        let mut out = vec![];
        for round in 0..40 {
            b.enqueue(pkt(0, 6, round)).unwrap();
            b.enqueue(pkt(1, 7, round)).unwrap();
            out.push(
                b.dequeue(&[NodeId(6), NodeId(7)], via2, T0)
                    .unwrap()
                    .pkt
                    .flow
                    .0,
            );
            b.dequeue(&[NodeId(6), NodeId(7)], via2, T0).unwrap();
        }
        out
    };
    let a = picks(1);
    assert_eq!(a, picks(1));
    let zeros = a.iter().filter(|f| **f == 0).count();
    assert!((8..=32).contains(&zeros), "{a:?}");
}

/// Node 1 with measured estimates over `T` = 1 s (frame attempts) and control packets on.
fn measured(variant: BackpressureVariant) -> Backpressure {
    measured_by(variant, LossCount::Attempts)
}

fn measured_by(variant: BackpressureVariant, count: LossCount) -> Backpressure {
    let rng = RngStream::new(StreamKey::new(1, 1, "qdisc.backpressure"));
    let mut c = cfg(variant);
    c.link_estimate = LinkEstimate::Measured {
        interval: Time::from_secs(1),
        count,
    };
    c.control_interval = Some(Time::from_millis(25));
    let mut b = Backpressure::new(c, NodeId(1), 10, rng);
    for j in 0..10 {
        // A configured loss the measured weights must ignore.
        b.set_link(NodeId(j), RATE, 0.5);
    }
    b
}

#[test]
fn measured_weights_follow_the_mac_not_the_configured_loss() {
    let mut b = measured(BackpressureVariant::TcpAware);
    fill(&mut b, 0, 5, 4);
    let n = [NodeId(3), NodeId(5)];
    // No transmissions yet: both links plan with the configured rate and no loss; the
    // tie goes to the routing next hop (5 directly).
    let direct = |d: NodeId| Some(d);
    let t = Time::from_millis(10);
    let c = b.choose(&n, direct, t).unwrap();
    assert_eq!(c.next_hop, NodeId(5));
    assert_eq!(c.weight, 20.0 * RATE);
    // Nine failed attempts in ten on the direct link: the idle relay 3 has no estimate
    // of its own and counts as the node's links on average, the same: a tie, which the
    // routing next hop wins.
    b.on_tx_status(NodeId(5), t, 10, true, 40);
    assert_eq!(b.link_estimate(NodeId(5), t), Some((0.9, RATE)));
    assert_eq!(b.link_estimate(NodeId(3), t), None);
    let c = b.choose(&n, direct, t).unwrap();
    assert_eq!(c.next_hop, NodeId(5));
    assert!((c.weight - 20.0 * RATE * 0.1).abs() < 1e-6);
    // Three clean attempts give the relay an estimate of its own, no loss, better than
    // the direct link's 9 of 10 failed: the relay wins.
    b.on_tx_status(NodeId(3), t, 1, true, 4);
    b.on_tx_status(NodeId(3), t, 1, true, 4);
    b.on_tx_status(NodeId(3), t, 1, true, 4);
    assert_eq!(b.link_estimate(NodeId(3), t), Some((0.0, RATE)));
    assert_eq!(b.choose(&n, direct, t).unwrap().next_hop, NodeId(3));
    // A window later everything is forgotten: configured rate, no loss, a tie again.
    let later = Time::from_millis(1100);
    assert_eq!(b.link_estimate(NodeId(5), later), None);
    let c = b.choose(&n, direct, later).unwrap();
    assert_eq!((c.next_hop, c.weight), (NodeId(5), 20.0 * RATE));
}

/// Counted as packets (footnote 2's words), a frame that got through after retries is
/// one successful packet and one the MAC gave up on is one failed packet; `R~` is the
/// mean rate of the packet's attempts.
#[test]
fn packet_counts_see_a_packet_s_fate_not_its_retries() {
    let mut b = measured_by(BackpressureVariant::TcpAware, LossCount::Packets);
    let t = Time::from_millis(10);
    // Nine failed attempts, then success, at 2 Mb/s each (4 half-Mb/s units per attempt).
    b.on_tx_status(NodeId(5), t, 10, true, 40);
    assert_eq!(b.link_estimate(NodeId(5), t), Some((0.0, RATE)));
    b.on_tx_status(NodeId(5), t, 7, false, 28);
    assert_eq!(b.link_estimate(NodeId(5), t), Some((0.5, RATE)));
    // The same reports counted as attempts: 16 failures in 17.
    let mut a = measured(BackpressureVariant::TcpAware);
    a.on_tx_status(NodeId(5), t, 10, true, 40);
    a.on_tx_status(NodeId(5), t, 7, false, 28);
    let (loss, _) = a.link_estimate(NodeId(5), t).unwrap();
    assert!((loss - 16.0 / 17.0).abs() < 1e-12);
}

#[test]
fn control_packets_advertise_queues_and_recent_zeros() {
    let mut b = measured(BackpressureVariant::Classical);
    fill(&mut b, 0, 5, 1);
    fill(&mut b, 2, 7, 3);
    let n = [NodeId(5), NodeId(7)];
    let direct = |d: NodeId| Some(d);
    // Flow 0's only packet leaves at 10 ms: its queue empties.
    let mut out = Vec::new();
    loop {
        let d = b.dequeue(&n, direct, Time::from_millis(10)).unwrap();
        if d.pkt.flow == FlowId(0) {
            break;
        }
    }
    b.advertised(Time::from_millis(20), &mut out);
    let len2 = b.queue_len(FlowId(2), NodeId(7)) as u16;
    assert_eq!(
        out,
        vec![(FlowId(0), NodeId(5), 0), (FlowId(2), NodeId(7), len2)]
    );
    // Older than the report lifetime (50 ms), the zero is dropped.
    b.advertised(Time::from_millis(60), &mut out);
    assert_eq!(out, vec![(FlowId(2), NodeId(7), len2)]);
    // A receiver records them as piggybacked reports.
    let mut r = bp(BackpressureVariant::Classical);
    assert!(r.on_control_report(NodeId(1), &out, T0));
    assert_eq!(
        r.neighbour_len(NodeId(1), (FlowId(2), NodeId(7)), T0),
        len2 as u32
    );
    assert!(!r.on_control_report(NodeId(1), &[], T0));
}

/// The commodities with packets, as the scheduler and `iter` visit them.
fn order(b: &Backpressure) -> Vec<(u32, u32)> {
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for q in b.iter() {
        let c = (q.pkt.flow.0, q.pkt.dst.0);
        if seen.last() != Some(&c) {
            seen.push(c);
        }
    }
    seen
}

#[test]
fn commodities_are_visited_in_commodity_order_whatever_their_arrival() {
    let mut b = bp(BackpressureVariant::TcpAware);
    // Flows arrive out of order; flow 3 has two destinations (data and ACKs).
    fill(&mut b, 3, 7, 1);
    fill(&mut b, 0, 9, 2);
    fill(&mut b, 3, 2, 1);
    fill(&mut b, 1, 5, 1);
    assert_eq!(order(&b), vec![(0, 9), (1, 5), (3, 2), (3, 7)]);
    assert_eq!(b.k(), 20 / 4);
    // A queue that empties leaves S_i (K grows) and rejoins it in its place. Node 5,
    // flow 1's destination, is full of the others: only flow 1 goes to it.
    for (f, d) in [(0, 9), (3, 2), (3, 7)] {
        b.on_report(NodeId(5), &report(f, d, 50), T0);
    }
    let d = b.dequeue(&[NodeId(5)], Some, T0).unwrap();
    assert_eq!((d.pkt.flow, d.next_hop), (FlowId(1), NodeId(5)));
    assert_eq!(order(&b), vec![(0, 9), (3, 2), (3, 7)]);
    assert_eq!(b.k(), 20 / 3);
    assert_eq!(b.queue_len(FlowId(1), NodeId(5)), 0);
    fill(&mut b, 1, 5, 2);
    assert_eq!(order(&b), vec![(0, 9), (1, 5), (3, 2), (3, 7)]);
    assert_eq!(b.queue_len(FlowId(1), NodeId(5)), 2);
    assert_eq!(b.dest_len(NodeId(5)), 2);
    assert_eq!((b.len(), b.iter().count()), (6, 6));
}

#[test]
fn a_report_alone_creates_no_queue() {
    let mut b = bp(BackpressureVariant::TcpAware);
    // A flow first heard of in a report: believed, but nothing queued here.
    assert!(b.on_report(NodeId(2), &report(4, 5, 6), T0));
    let c = (FlowId(4), NodeId(5));
    assert_eq!(b.neighbour_len(NodeId(2), c, T0), 6);
    assert_eq!(b.neighbour_len(NodeId(3), c, T0), 0);
    assert_eq!(b.queue_len(FlowId(4), NodeId(5)), 0);
    assert_eq!((b.k(), b.len()), (20, 0));
    assert!(b.iter().next().is_none());
    assert_eq!(
        b.release_at(T0),
        None,
        "nothing queued: nothing to wait for"
    );
    let mut out = Vec::new();
    b.advertised(T0, &mut out);
    assert!(out.is_empty());
    // Flows never heard of read as empty everywhere.
    assert_eq!(b.neighbour_len(NodeId(2), (FlowId(9), NodeId(5)), T0), 0);
    assert_eq!(b.queue_len(FlowId(9), NodeId(5)), 0);
    // Its first packet finds the report.
    fill(&mut b, 4, 5, 1);
    assert_eq!(b.differential(c, NodeId(2), T0), Some(20 - 6));
    assert_eq!(b.release_at(T0), Some(Time::from_millis(50)));
}

#[test]
fn release_at_reads_only_the_reports_of_queued_commodities() {
    let mut b = bp(BackpressureVariant::Classical);
    fill(&mut b, 0, 5, 1);
    // An older report of the queued commodity, a newer one of a commodity not queued
    // here (same flow, other destination) and of another flow.
    b.on_report(NodeId(2), &report(0, 5, 1), T0);
    b.on_report(NodeId(3), &report(0, 6, 1), Time::from_millis(20));
    b.on_report(NodeId(3), &report(1, 5, 1), Time::from_millis(30));
    let at = Time::from_millis(10);
    assert_eq!(b.release_at(at), Some(Time::from_millis(50)));
    // A second neighbour's later report of the queued commodity: the earliest counts
    // while it is live, then the later one.
    b.on_report(NodeId(4), &report(0, 5, 1), Time::from_millis(40));
    assert_eq!(b.release_at(at), Some(Time::from_millis(50)));
    assert_eq!(
        b.release_at(Time::from_millis(50)),
        Some(Time::from_millis(90))
    );
    assert_eq!(b.release_at(Time::from_millis(90)), None);
}

#[test]
fn overflow_ties_go_to_the_smallest_commodity_not_the_first_arrived() {
    let mut b = bp(BackpressureVariant::TcpAware);
    fill(&mut b, 2, 5, 8);
    fill(&mut b, 1, 6, 8);
    fill(&mut b, 3, 7, 4);
    let (gone, _) = b.enqueue(pkt(3, 7, 100)).unwrap_err();
    assert_eq!((gone.pkt.flow, gone.pkt.seq), (FlowId(1), 7));
    assert_eq!(b.queue_len(FlowId(1), NodeId(6)), 7);
    assert_eq!(b.queue_len(FlowId(3), NodeId(7)), 5);
    // A new commodity's arrival into a full buffer: it pushes out too and joins S_i.
    let (gone, _) = b.enqueue(pkt(0, 8, 0)).unwrap_err();
    assert_eq!((gone.pkt.flow, gone.pkt.seq), (FlowId(2), 7));
    assert_eq!(order(&b), vec![(0, 8), (1, 6), (2, 5), (3, 7)]);
    assert!(b.counters().consistent_with(b.len()));
}

#[test]
fn a_commodity_emptied_twice_is_advertised_once() {
    let mut b = measured(BackpressureVariant::Classical);
    let n = [NodeId(5)];
    let direct = |d: NodeId| Some(d);
    let mut out = Vec::new();
    for t in [10, 30] {
        fill(&mut b, 0, 5, 1);
        b.dequeue(&n, direct, Time::from_millis(t)).unwrap();
    }
    b.advertised(Time::from_millis(40), &mut out);
    assert_eq!(out, vec![(FlowId(0), NodeId(5), 0)]);
    // The zero lives from the last emptying (30 ms), not the first.
    b.advertised(Time::from_millis(70), &mut out);
    assert_eq!(out, vec![(FlowId(0), NodeId(5), 0)]);
    b.advertised(Time::from_millis(80), &mut out);
    assert!(out.is_empty());
    // Forgotten, then emptied again: advertised again.
    fill(&mut b, 0, 5, 1);
    b.dequeue(&n, direct, Time::from_millis(90)).unwrap();
    b.advertised(Time::from_millis(100), &mut out);
    assert_eq!(out, vec![(FlowId(0), NodeId(5), 0)]);
}

/// Node 1 (TCP-aware, `B` = 20) holding 4 packets towards 5, which it reaches through 2
/// (`via2`); 3 and 4 are unheard neighbours, 2 reports 3 packets, `unknown` as given.
fn unknown_case(unknown: UnknownNeighbour) -> Backpressure {
    let mut c = cfg(BackpressureVariant::TcpAware);
    c.unknown_neighbour = unknown;
    let mut b = bp_with(c);
    fill(&mut b, 0, 5, 4);
    b.on_report(NodeId(2), &report(0, 5, 3), T0);
    b
}

/// Section 4.1.2 uses "the most recent report"; a neighbour without one counts as empty
/// (`Zero`), is no candidate (`Exclude`) or counts at `K` (`AtK`); the routing next hop
/// and the destination stay candidates at 0.
#[test]
fn unknown_neighbours_count_as_empty_are_excluded_or_count_at_k() {
    let c = (FlowId(0), NodeId(5));
    let n = [NodeId(2), NodeId(3), NodeId(4)];
    // K = 20 / 1: towards 2, 20 - 3; towards the unheard 3 and 4, 20 - 0 (the smaller id).
    let mut zero = unknown_case(UnknownNeighbour::Zero);
    assert_eq!(zero.differential(c, NodeId(3), T0), Some(20));
    let choice = zero.choose(&n, via2, T0).unwrap();
    assert_eq!((choice.next_hop, choice.differential), (NodeId(3), 20));

    let mut exclude = unknown_case(UnknownNeighbour::Exclude);
    assert_eq!(exclude.differential(c, NodeId(3), T0), None);
    let choice = exclude.choose(&n, via2, T0).unwrap();
    assert_eq!((choice.next_hop, choice.differential), (NodeId(2), 17));
    // Once 3 reports, it is a candidate with its report.
    exclude.on_report(NodeId(3), &report(0, 5, 1), T0);
    let choice = exclude.choose(&n, via2, T0).unwrap();
    assert_eq!((choice.next_hop, choice.differential), (NodeId(3), 19));
    // The report expires: excluded again.
    let later = Time::from_millis(50);
    exclude.on_report(NodeId(2), &report(0, 5, 3), later);
    let choice = exclude.choose(&n, via2, later).unwrap();
    assert_eq!(choice.next_hop, NodeId(2));

    let mut at_k = unknown_case(UnknownNeighbour::AtK);
    assert_eq!(at_k.differential(c, NodeId(3), T0), Some(0));
    let choice = at_k.choose(&n, via2, T0).unwrap();
    assert_eq!((choice.next_hop, choice.differential), (NodeId(2), 17));
    // Unknown neighbours only win over an own queue above K: with a second commodity
    // K = 10, and 12 packets give 12 - 10 towards 3 against 12 - 11 towards 2.
    fill(&mut at_k, 1, 6, 1);
    fill(&mut at_k, 0, 5, 8);
    at_k.on_report(NodeId(2), &report(0, 5, 11), T0);
    let choice = at_k.choose(&n, via2, T0).unwrap();
    assert_eq!((choice.next_hop, choice.differential), (NodeId(3), 2));
}

/// With `Exclude` or `AtK` an unheard routing next hop still counts as empty, so a flow
/// through a relay that holds none of it yet starts; a direct destination counts as 0.
#[test]
fn an_unheard_routing_next_hop_and_the_destination_stay_candidates() {
    for unknown in [UnknownNeighbour::Exclude, UnknownNeighbour::AtK] {
        let mut c = cfg(BackpressureVariant::TcpAware);
        c.unknown_neighbour = unknown;
        let mut b = bp_with(c);
        fill(&mut b, 0, 5, 2);
        let n = [NodeId(2), NodeId(3), NodeId(6)];
        for _ in 0..2 {
            let d = b.dequeue(&n, via2, T0).unwrap();
            assert_eq!(d.next_hop, NodeId(2), "{unknown:?}: 5 through 2, never 3");
        }
        fill(&mut b, 1, 6, 1);
        let d = b.dequeue(&n, via2, T0).unwrap();
        assert_eq!(
            (d.pkt.dst, d.next_hop),
            (NodeId(6), NodeId(6)),
            "{unknown:?}"
        );
    }
}

/// `ControlWhen::Changed` sends a control packet only when a queue size differs from
/// what the node last reported, piggybacked on a data frame or in a control packet.
#[test]
fn queue_sizes_changed_since_the_last_report() {
    let mut b = bp(BackpressureVariant::TcpAware);
    let mut out = Vec::new();
    assert!(!b.changed_since_report(), "nothing held, nothing to tell");
    fill(&mut b, 0, 5, 3);
    assert!(b.changed_since_report(), "never reported");
    b.advertised(T0, &mut out);
    assert_eq!(out, vec![(FlowId(0), NodeId(5), 3)]);
    assert!(!b.changed_since_report(), "the control packet told 3");
    fill(&mut b, 1, 6, 1);
    assert!(b.changed_since_report(), "a new queue");
    b.advertised(T0, &mut out);
    assert!(!b.changed_since_report());
    // A data frame of flow 0 reports its 2 remaining packets; flow 1's 1 is unchanged.
    let n = [NodeId(2)];
    let d = b.dequeue(&n, |_| Some(NodeId(2)), T0).unwrap();
    let remaining = d.pkt.diffq.unwrap().qlen;
    assert!(!b.changed_since_report(), "the frame told {remaining}");
    // An arrival changes a size; the frames that empty the queues report their zeros.
    fill(&mut b, 0, 5, 1);
    assert!(b.changed_since_report());
    while b.dequeue(&n, |_| Some(NodeId(2)), T0).is_some() {}
    assert!(b.is_empty());
    assert!(!b.changed_since_report());
}

/// Footnote 5: with `avoid_overflow` no packet goes to a neighbour whose reported queues,
/// over every commodity and with what this node handed it since, fill its buffer (`B`
/// = 20 here); the destination takes packets whatever it reports.
#[test]
fn no_packet_goes_to_a_neighbour_believed_full() {
    let n = [NodeId(2)];
    let make = |avoid: bool| {
        let mut c = cfg(BackpressureVariant::TcpAware);
        c.avoid_overflow = avoid;
        let mut b = bp_with(c);
        fill(&mut b, 0, 5, 15);
        // 2 holds 3 of this flow and 17 of another: 20, full.
        b.on_report(NodeId(2), &report(0, 5, 3), T0);
        b.on_report(NodeId(2), &report(7, 8, 17), T0);
        b
    };
    let mut plain = make(false);
    assert_eq!(plain.believed_occupancy(NodeId(2), T0), 20);
    assert_eq!(plain.dequeue(&n, via2, T0).unwrap().next_hop, NodeId(2));
    let mut guarded = make(true);
    assert!(guarded.dequeue(&n, via2, T0).is_none(), "2 is full");
    // The other flow's report expires after 50 ms, though it is not queued here.
    assert_eq!(guarded.release_at(T0), Some(Time::from_millis(50)));
    // 2 sends one packet of the other flow: 19, room for one.
    guarded.on_report(NodeId(2), &report(7, 8, 16), T0);
    assert_eq!(guarded.dequeue(&n, via2, T0).unwrap().next_hop, NodeId(2));
    assert_eq!(guarded.believed_occupancy(NodeId(2), T0), 20);
    assert!(guarded.dequeue(&n, via2, T0).is_none(), "full again");
    // The destination itself is never full for its own packets.
    fill(&mut guarded, 1, 2, 1);
    let d = guarded.dequeue(&n, via2, T0).unwrap();
    assert_eq!((d.pkt.dst, d.next_hop), (NodeId(2), NodeId(2)));
}
