//! The MAC driven directly, frame by frame: broadcast without ACK, unicast with ACK and
//! the timeline of one exchange, and internal collisions between EDCA levels.

use airqueue_kernel::{EventQueue, Time};
use airqueue_phy::dsss::{self, DIFS, SIFS};
use airqueue_phy::frame_duration;
use airqueue_sim::ids::FlowId;
use airqueue_sim::medium::wifi::{WifiConfig, WifiEvent, WifiNet, WifiOutput, BROADCAST};
use airqueue_sim::net::packet::DEFAULT_TTL;
use airqueue_sim::net::{Packet, TransportHeader};
use airqueue_sim::qdisc::Dequeued;
use airqueue_sim::NodeId;

fn packet(src: u32, dst: NodeId, payload: u32) -> Packet {
    Packet {
        uid: 0,
        flow: FlowId(0),
        src: NodeId(src),
        dst,
        seq: 0,
        payload_bytes: payload,
        transport: TransportHeader::Udp,
        ttl: DEFAULT_TTL,
        priority: 0,
        diffq: None,
        report: None,
        created: Time::ZERO,
    }
}

/// Three stations 10 m apart; runs the medium until it is quiet and returns every output
/// with its time.
fn run(net: &mut WifiNet, q: &mut EventQueue<WifiEvent>) -> Vec<(Time, WifiOutput)> {
    let mut out = vec![];
    while let Some((t, ev)) = q.pop() {
        net.handle(ev, q);
        out.extend(net.out.drain(..).map(|o| (t, o)));
    }
    out
}

fn three_stations(cfg: WifiConfig) -> WifiNet {
    WifiNet::new(cfg, &[[0.0, 0.0], [10.0, 0.0], [20.0, 0.0]], 1, |_, _| 0.0)
}

#[test]
fn broadcast_reaches_everyone_once_without_ack() {
    let mut net = three_stations(WifiConfig::dsss_default());
    let mut q = EventQueue::new();
    let d = Dequeued {
        pkt: packet(0, BROADCAST, 100),
        next_hop: BROADCAST,
        priority: 0,
    };
    net.push_frame(NodeId(0), d, &mut q);
    let out = run(&mut net, &mut q);
    let received: Vec<u32> = out
        .iter()
        .filter_map(|(_, o)| match o {
            WifiOutput::Received { node, .. } => Some(node.0),
            _ => None,
        })
        .collect();
    assert_eq!(received, vec![1, 2]);
    assert!(
        !out.iter()
            .any(|(_, o)| matches!(o, WifiOutput::TxStatus(_))),
        "no feedback for broadcast"
    );
    assert_eq!(
        net.stats(NodeId(1)).acks_tx + net.stats(NodeId(2)).acks_tx,
        0
    );
    assert_eq!(net.stats(NodeId(0)).data_tx, 1);
}

/// ```text
/// t=0  frame arrives, medium idle since 0 -> waits DIFS
///      |DIFS|-----DATA (11 Mb/s)-----|SIFS|--ACK (1 Mb/s)--|
///                                    ^ receiver decodes     ^ sender: TxStatus ok
/// ```
#[test]
fn unicast_exchange_follows_the_timeline() {
    let cfg = WifiConfig::dsss_default();
    let overhead = cfg.data_overhead_bytes;
    let mut net = three_stations(cfg);
    let mut q = EventQueue::new();
    let pkt = packet(0, NodeId(1), 500);
    let bytes = pkt.size_bytes() + overhead;
    net.push_frame(
        NodeId(0),
        Dequeued {
            pkt,
            next_hop: NodeId(1),
            priority: 0,
        },
        &mut q,
    );
    let out = run(&mut net, &mut q);
    let data_end = DIFS + frame_duration(bytes, dsss::DsssRate::Mbps11, dsss::Preamble::Long);
    let ack_end = data_end + SIFS + dsss::ack_duration(dsss::DsssRate::Mbps1, dsss::Preamble::Long);
    let at =
        |want: &dyn Fn(&WifiOutput) -> bool| out.iter().find(|(_, o)| want(o)).map(|(t, _)| *t);
    assert_eq!(
        at(&|o| matches!(
            o,
            WifiOutput::Received {
                node: NodeId(1),
                ..
            }
        )),
        Some(data_end)
    );
    assert_eq!(
        at(&|o| matches!(
            o,
            WifiOutput::Overheard {
                node: NodeId(2),
                ..
            }
        )),
        Some(data_end)
    );
    assert_eq!(
        at(&|o| matches!(o, WifiOutput::TxStatus(s) if s.success && s.attempts == 1)),
        Some(ack_end)
    );
    assert_eq!(net.stats(NodeId(1)).acks_tx, 1);
}

#[test]
fn unicast_to_a_silent_station_gives_up_at_the_retry_limit() {
    let mut cfg = WifiConfig::dsss_default();
    cfg.short_retry_limit = 4;
    // Station 2 out of range of everyone: 10 km away.
    let mut net = WifiNet::new(
        cfg,
        &[[0.0, 0.0], [10.0, 0.0], [10_000.0, 0.0]],
        1,
        |_, _| 0.0,
    );
    let mut q = EventQueue::new();
    net.push_frame(
        NodeId(0),
        Dequeued {
            pkt: packet(0, NodeId(2), 500),
            next_hop: NodeId(2),
            priority: 0,
        },
        &mut q,
    );
    let out = run(&mut net, &mut q);
    let st = net.stats(NodeId(0));
    assert_eq!((st.data_tx, st.retries, st.retry_limit_drops), (4, 3, 1));
    assert!(out
        .iter()
        .any(|(_, o)| matches!(o, WifiOutput::TxStatus(s) if !s.success)));
    assert!(out
        .iter()
        .any(|(_, o)| matches!(o, WifiOutput::RetryLimitDrop { .. })));
}

#[test]
fn two_levels_due_in_the_same_slot_collide_internally() {
    let mut cfg = WifiConfig::dsss_default();
    cfg.tx_buffer_frames = 2;
    // Two levels with identical timing and no backoff spread: both become due together.
    let level = airqueue_phy::EdcaLevel {
        aifsn: 2,
        cw_min: 0,
        cw_max: 0,
    };
    cfg.levels = vec![level, level];
    let mut net = three_stations(cfg);
    let mut q = EventQueue::new();
    for prio in [0u8, 1] {
        let d = Dequeued {
            pkt: packet(0, NodeId(1), 200),
            next_hop: NodeId(1),
            priority: prio,
        };
        net.push_frame(NodeId(0), d, &mut q);
    }
    run(&mut net, &mut q);
    let st = net.stats(NodeId(0));
    assert_eq!(st.internal_collisions, 1, "{st:?}");
    // Each frame goes on the air once; the loser of the internal collision counts the
    // collision as a failed attempt (10.22.2.4), so it goes out flagged as a retry.
    assert_eq!((st.data_tx, st.retries), (2, 1), "{st:?}");
    assert_eq!(net.stats(NodeId(1)).acks_tx, 2);
}
