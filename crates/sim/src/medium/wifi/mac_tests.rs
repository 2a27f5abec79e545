//! The MAC driven event by event on small lines of stations.

use super::*;
use crate::ids::FlowId;
use crate::net::packet::DEFAULT_TTL;

/// A 1000-byte UDP packet from `src` to `dst`.
fn packet(src: NodeId, dst: NodeId) -> Packet {
    Packet {
        uid: 0,
        flow: FlowId(0),
        src,
        dst,
        seq: 0,
        payload_bytes: 1000,
        transport: TransportHeader::Udp,
        ttl: DEFAULT_TTL,
        priority: 0,
        created: Time::ZERO,
        diffq: None,
        report: None,
    }
}

/// Stations on the x axis at `xs`, RTS/CTS before every frame, one attempt per frame.
fn line(xs: &[f64], nav_reset_after_rts: bool) -> WifiNet {
    let cfg = WifiConfig {
        rts_threshold_bytes: 0,
        short_retry_limit: 1,
        nav_reset_after_rts,
        ..WifiConfig::dsss_default()
    };
    let pos: Vec<[f64; 2]> = xs.iter().map(|&x| [x, 0.0]).collect();
    WifiNet::new(cfg, &pos, 1, |_, _| 0.0)
}

/// Runs the medium's events up to and including `until`; the outputs are dropped (no
/// queue discipline refills the MACs).
fn run_until(net: &mut WifiNet, q: &mut EventQueue<WifiEvent>, until: Time) {
    while let Some((_, ev)) = q.pop_until(until) {
        net.handle(ev, q);
        net.out.clear();
    }
    q.advance_to(until);
}

/// Node 0 sends one frame to node 1; runs until node 2's NAV is first set, by node 0's
/// RTS, and returns that instant (the RTS's end) and the NAV's end.
fn overhear_rts(net: &mut WifiNet, q: &mut EventQueue<WifiEvent>) -> (Time, Time) {
    let d = Dequeued {
        pkt: packet(NodeId(0), NodeId(1)),
        next_hop: NodeId(1),
        priority: 0,
    };
    net.push_frame(NodeId(0), d, q);
    while let Some((_, ev)) = q.pop() {
        net.handle(ev, q);
        net.out.clear();
        let nav = net.stations[2].nav_until;
        if nav > Time::ZERO {
            assert_eq!(net.stations[0].stats.rts_tx, 1);
            return (q.now(), nav);
        }
    }
    panic!("node 2 never set its NAV");
}

// Node 1 is out of everyone's reach, so node 0's RTS gets no CTS; node 2 overhears the
// RTS and sets its NAV for the whole announced exchange:
//
//   node 0   |RTS|.......CTS timeout, gives up (retry limit 1)
//   node 2       ^ NAV set ............................................| NAV end
//                |<- 2 SIFS + CTS + aRxPHYStartDelay + 2 slots ->| reset (option on)
#[test]
fn nav_from_an_rts_without_cts_is_reset_after_the_nav_timeout() {
    let mut net = line(&[0.0, 5000.0, 200.0], true);
    let mut q = EventQueue::new();
    let (rts_end, nav_end) = overhear_rts(&mut net, &mut q);
    let timeout = Time::from_micros(2 * 10 + 304 + 192 + 2 * 20);
    assert_eq!(net.nav_reset_timeout, timeout);
    assert!(
        nav_end > rts_end + timeout.times(2),
        "the RTS announces DATA and ACK"
    );
    run_until(&mut net, &mut q, rts_end + timeout - Time::from_nanos(1));
    assert!(
        !net.stations[2].free,
        "still deferring just before the timeout"
    );
    run_until(&mut net, &mut q, rts_end + timeout);
    assert_eq!(net.stations[2].nav_until, rts_end + timeout);
    assert!(net.stations[2].free, "free again at the timeout");
}

#[test]
fn without_the_option_the_nav_lasts_the_announced_exchange() {
    let mut net = line(&[0.0, 5000.0, 200.0], false);
    let mut q = EventQueue::new();
    let (rts_end, nav_end) = overhear_rts(&mut net, &mut q);
    run_until(&mut net, &mut q, nav_end - Time::from_nanos(1));
    assert!(rts_end + net.nav_reset_timeout < nav_end);
    assert_eq!(net.stations[2].nav_until, nav_end);
    assert!(!net.stations[2].free);
    run_until(&mut net, &mut q, nav_end);
    assert!(net.stations[2].free);
}

#[test]
fn a_reception_that_starts_within_the_timeout_keeps_the_nav() {
    // Node 2 sits between 0 and 1 and decodes the CTS: its PHY-RXSTART (SIFS + 192 us
    // after the RTS) comes within the timeout, so the NAV stands and the exchange goes
    // on: DATA, then ACK. (A station that hears the sender but not the CTS keeps its
    // NAV too: the DATA's PHY-RXSTART, 2 SIFS + CTS + 192 us after the RTS, is also
    // inside the timeout. Only a failed handshake frees the overhearers.)
    let mut net = line(&[0.0, 200.0, 100.0], true);
    let mut q = EventQueue::new();
    let (rts_end, nav_end) = overhear_rts(&mut net, &mut q);
    let timeout = net.nav_reset_timeout;
    run_until(&mut net, &mut q, rts_end + timeout);
    assert_eq!(net.stations[2].nav_until, nav_end);
    run_until(&mut net, &mut q, nav_end - Time::from_nanos(1));
    assert_eq!(net.stations[2].nav_until, nav_end);
    assert!(!net.stations[2].free);
    assert_eq!(net.stats(NodeId(1)).rx_ok, 2, "RTS and DATA");
    assert_eq!(net.stats(NodeId(0)).data_tx, 1);
}

/// A driver's pool of transmit descriptors behind the queue discipline (MadWiFi's
/// `ATH_TXBUF`, 200, shared by its per-AC hardware queues): the station takes frames
/// until the pool is full, whatever their levels, keeps each level's frames in order,
/// sends a higher level's backlog ahead of a lower one's, and asks for more only once a
/// frame has left.
#[test]
fn a_driver_pool_of_200_frames_holds_per_level_fifos() {
    let cfg = WifiConfig {
        levels: airqueue_phy::edca::DIFFQ8.to_vec(),
        tx_buffer_frames: 200,
        ..WifiConfig::dsss_default()
    };
    let mut net = WifiNet::new(cfg, &[[0.0, 0.0], [100.0, 0.0]], 1, |_, _| 0.0);
    let mut q = EventQueue::new();
    // 100 frames at level 0, then 100 at level 7, handed down at the same instant.
    for i in 0..200u64 {
        assert!(net.wants_frame(NodeId(0)), "room for frame {i}");
        let mut pkt = packet(NodeId(0), NodeId(1));
        pkt.seq = i;
        let priority = if i < 100 { 0 } else { 7 };
        net.push_frame(
            NodeId(0),
            Dequeued {
                pkt,
                next_hop: NodeId(1),
                priority,
            },
            &mut q,
        );
    }
    assert!(!net.wants_frame(NodeId(0)), "the pool is full at 200");
    assert_eq!(net.buffered_packets().count(), 200);
    let mut received = Vec::new();
    let mut wants = 0;
    while let Some((_, ev)) = q.pop() {
        net.handle(ev, &mut q);
        for out in net.out.drain(..) {
            match out {
                WifiOutput::Received { pkt, .. } => received.push(pkt.seq),
                WifiOutput::WantFrame(n) => {
                    assert_eq!(n, NodeId(0));
                    wants += 1;
                }
                _ => {}
            }
        }
    }
    assert_eq!(received.len(), 200, "every frame delivered on a clean link");
    assert_eq!(wants, 200, "one request for a frame per frame that left");
    assert!(net.wants_frame(NodeId(0)));
    let level = |s: u64| usize::from(s >= 100);
    for l in 0..2 {
        let order: Vec<u64> = received
            .iter()
            .copied()
            .filter(|&s| level(s) == l)
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "level {l} is a FIFO");
    }
    // Level 7 (AIFSN 2, CW 1) wins nearly every round against level 0 (AIFSN 7, CW 31):
    // its 100 frames are through before half of level 0's.
    let last_high = received
        .iter()
        .rposition(|&s| s >= 100)
        .expect("level 7 sent");
    assert!(
        last_high < 150,
        "level 7's backlog ends at position {last_high}"
    );
}

/// Node 0 and node 1, 100 m apart, without RTS/CTS; every frame from node 0 to node 1
/// is erased with probability `loss`.
fn pair(loss: f64) -> WifiNet {
    let pos = [[0.0, 0.0], [100.0, 0.0]];
    WifiNet::new(WifiConfig::dsss_default(), &pos, 1, move |a, _| {
        if a == NodeId(0) {
            loss
        } else {
            0.0
        }
    })
}

/// Node 0 hands `n` frames for node 1 to its MAC at time 0; runs every event and
/// returns the transmit statuses with the instants they came at.
fn statuses_of(net: &mut WifiNet, n: usize) -> Vec<(Time, TxStatus)> {
    let mut q = EventQueue::new();
    for _ in 0..n {
        let d = Dequeued {
            pkt: packet(NodeId(0), NodeId(1)),
            next_hop: NodeId(1),
            priority: 0,
        };
        net.push_frame(NodeId(0), d, &mut q);
    }
    let mut found = Vec::new();
    while let Some((_, ev)) = q.pop() {
        net.handle(ev, &mut q);
        for o in net.out.drain(..) {
            if let WifiOutput::TxStatus(s) = o {
                found.push((q.now(), s));
            }
        }
    }
    found
}

/// Seed 004's `T_pkt` of an outgoing packet (III-B.1) from the transmit status: with
/// nobody else on the channel, the frame's time from the head of the MAC to the end of
/// its exchange is exactly its IFS, the backoff slots it counted (10.3.4.3), its DATA,
/// SIFS and ACK. The first frame finds the medium idle and no backoff pending
/// (10.3.4.2: it goes after DIFS); the second reaches the head when the first is
/// acknowledged and waits the backoff drawn then.
#[test]
fn a_transmit_status_reports_the_backoff_slots_and_ifs_its_frame_waited() {
    let mut net = pair(0.0);
    let found = statuses_of(&mut net, 2);
    assert_eq!(found.len(), 2);
    let answer = dsss::SIFS + net.ack_duration;
    for (end, s) in &found {
        assert!(s.success);
        assert_eq!((s.aired, s.ifs, s.flow), (1, dsss::DIFS, FlowId(0)));
        let drawn = s.ifs + dsss::SLOT.times(s.backoff_slots as u64) + s.airtime + answer;
        assert_eq!(*end - s.head_at, drawn);
    }
    let ((first_end, first), (_, second)) = (found[0], found[1]);
    assert_eq!((first.head_at, first.backoff_slots), (Time::ZERO, 0));
    assert_eq!(second.head_at, first_end);
    assert!(second.backoff_slots <= 31);
}

/// Retransmissions count: each failed attempt adds its IFS, its doubled-window draw and
/// its DATA, and waits the ACK timeout before the next (10.3.2.9, 10.3.4.4).
#[test]
fn a_transmit_status_sums_the_attempts_of_a_frame_that_reached_the_retry_limit() {
    let mut net = pair(1.0);
    let found = statuses_of(&mut net, 1);
    let [(end, s)] = found[..] else {
        panic!("one status: {found:?}");
    };
    let limit = net.config().short_retry_limit;
    assert!(!s.success);
    assert_eq!((s.aired, s.ifs), (limit, dsss::DIFS.times(limit as u64)));
    assert!(s.backoff_slots > 0, "six retries drew no slot");
    let waited = s.ifs
        + dsss::SLOT.times(s.backoff_slots as u64)
        + s.airtime
        + net.ack_timeout.times(s.aired as u64);
    assert_eq!(end - s.head_at, waited);
}
