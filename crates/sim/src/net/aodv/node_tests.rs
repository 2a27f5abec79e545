use super::*;
use crate::net::aodv::wire::RERR_MAX_DESTS;

const N: usize = 8;

fn node(id: u32) -> AodvNode {
    AodvNode::new(NodeId(id), N, AodvConfig::default())
}

fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

/// The (TTL, timeout) of the request in `out`, which must be one jittered broadcast Send
/// and one Arm.
fn request(out: &[Action], now: Time) -> (u8, Time, u32, Rreq) {
    let [Action::Send {
        msg: AodvMsg::Rreq(r),
        to,
        ttl,
        jitter: true,
    }, Action::Arm {
        at,
        timer: AodvTimer::Discovery { generation, .. },
    }] = out
    else {
        panic!("expected a request and its timer, got {out:?}");
    };
    assert_eq!(*to, BROADCAST);
    (*ttl, *at - now, *generation, *r)
}

fn rreq(orig: u32, id: u32, dst: u32, dst_seq: Option<u32>, hops: u8) -> Rreq {
    Rreq {
        hop_count: hops,
        unknown_seq: dst_seq.is_none(),
        rreq_id: id,
        dst: NodeId(dst),
        dst_seq: dst_seq.unwrap_or(0),
        orig: NodeId(orig),
        orig_seq: 1,
    }
}

#[test]
fn expanding_ring_then_network_wide_backoff_then_failure() {
    let mut a = node(0);
    let mut out = Vec::new();
    let mut now = Time::ZERO;
    a.start_discovery(NodeId(5), now, &mut out);
    let mut seen = Vec::new();
    loop {
        let (ttl, wait, generation, r) = request(&out, now);
        assert_eq!(r.orig_seq, a.seq(), "own sequence number sent");
        seen.push((ttl, wait));
        out.clear();
        // A stale timer does nothing.
        a.on_discovery_timeout(generation.wrapping_sub(1), now + wait, &mut out);
        assert!(out.is_empty());
        now += wait;
        a.on_discovery_timeout(generation, now, &mut out);
        if out == [Action::DiscoveryFailed(NodeId(5))] {
            break;
        }
    }
    // RING_TRAVERSAL_TIME = 2 * 40 ms * (TTL + 2); then NET_TRAVERSAL_TIME = 2.8 s,
    // doubled on each of the two retries.
    assert_eq!(
        seen,
        [
            (1, ms(240)),
            (3, ms(400)),
            (5, ms(560)),
            (7, ms(720)),
            (35, ms(2800)),
            (35, ms(5600)),
            (35, ms(11200)),
        ]
    );
    assert_eq!(a.seq(), 7, "one increment per request originated");
    let s = a.stats;
    assert_eq!(
        (
            s.rreq_originated,
            s.discoveries_started,
            s.discoveries_failed
        ),
        (7, 1, 1)
    );
    assert!(!a.discovering(NodeId(5)));
}

#[test]
fn a_remembered_hop_count_sets_the_first_ring() {
    let mut a = node(0);
    let mut out = Vec::new();
    // An invalid entry 3 hops away: the first ring is 3 + TTL_INCREMENT.
    let o = Offer {
        next_hop: NodeId(1),
        hop_count: 3,
        seq: Some(4),
        lifetime: ms(1),
    };
    a.table.offer(NodeId(5), o, Time::ZERO);
    a.start_discovery(NodeId(5), ms(10), &mut out);
    let (ttl, _, _, r) = request(&out, ms(10));
    assert_eq!(ttl, 5);
    assert!(
        !r.unknown_seq && r.dst_seq == 4,
        "last known sequence number asked for"
    );
    out.clear();
    a.start_discovery(NodeId(5), ms(11), &mut out);
    assert!(out.is_empty(), "one discovery per destination at a time");
}

#[test]
fn duplicate_requests_are_dropped_for_path_discovery_time() {
    let mut b = node(1);
    let mut out = Vec::new();
    let q = rreq(0, 7, 5, None, 0);
    b.on_rreq(NodeId(0), 10, q, Time::ZERO, &mut out);
    assert!(matches!(
        out[..],
        [Action::Send {
            to: BROADCAST,
            ttl: 9,
            jitter: true,
            ..
        }]
    ));
    out.clear();
    // The same request via another neighbour, within PATH_DISCOVERY_TIME (5.6 s).
    b.on_rreq(NodeId(2), 10, q, ms(5599), &mut out);
    assert!(out.is_empty());
    assert_eq!(b.stats.rreq_duplicates, 1);
    // A new id from the same originator is a new request.
    b.on_rreq(NodeId(2), 10, rreq(0, 8, 5, None, 0), ms(5599), &mut out);
    assert_eq!(out.len(), 1);
    out.clear();
    // Forgotten after PATH_DISCOVERY_TIME.
    b.on_rreq(NodeId(2), 10, q, ms(5600), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(b.stats.rreq_forwarded, 3);
    // TTL 1 is not relayed, but still sets up the reverse route.
    out.clear();
    b.on_rreq(NodeId(3), 1, rreq(6, 1, 5, None, 2), ms(6000), &mut out);
    assert!(out.is_empty());
    let r = b.table().active(NodeId(6), ms(6000)).unwrap();
    assert_eq!((r.next_hop, r.hop_count), (NodeId(3), 3));
}

#[test]
fn the_destination_replies_and_catches_up_its_sequence_number() {
    let mut d = node(5);
    let mut out = Vec::new();
    d.on_rreq(
        NodeId(4),
        30,
        rreq(0, 1, 5, Some(1), 3),
        Time::ZERO,
        &mut out,
    );
    let [Action::Send {
        msg: AodvMsg::Rrep(r),
        to,
        ..
    }] = out[..]
    else {
        panic!("{out:?}")
    };
    assert_eq!(to, NodeId(4));
    assert_eq!(
        (r.hop_count, r.dst, r.dst_seq, r.orig),
        (0, NodeId(5), 1, NodeId(0))
    );
    assert_eq!(r.lifetime, Time::from_secs(6), "MY_ROUTE_TIMEOUT");
    // A request asking for a number two ahead does not move it.
    out.clear();
    d.on_rreq(
        NodeId(4),
        30,
        rreq(0, 2, 5, Some(3), 3),
        Time::ZERO,
        &mut out,
    );
    assert!(matches!(
        out[..],
        [Action::Send {
            msg: AodvMsg::Rrep(Rrep { dst_seq: 1, .. }),
            ..
        }]
    ));
    assert_eq!(d.stats.rrep_by_destination, 2);
}

#[test]
fn an_intermediate_node_replies_only_from_a_fresh_enough_route() {
    let mut b = node(2);
    let mut out = Vec::new();
    let now = Time::from_secs(1);
    // Route 2 -> 5 via 3, 2 hops, sequence number 5, valid for 3 s.
    let o = Offer {
        next_hop: NodeId(3),
        hop_count: 2,
        seq: Some(5),
        lifetime: Time::from_secs(4),
    };
    b.table.offer(NodeId(5), o, now);
    // Asked for 6: too old here, so relayed.
    b.on_rreq(NodeId(1), 10, rreq(0, 1, 5, Some(6), 1), now, &mut out);
    assert!(matches!(
        out[..],
        [Action::Send {
            msg: AodvMsg::Rreq(_),
            ..
        }]
    ));
    out.clear();
    // Asked for 5: answered from the route.
    b.on_rreq(NodeId(1), 10, rreq(0, 2, 5, Some(5), 1), now, &mut out);
    let [Action::Send {
        msg: AodvMsg::Rrep(r),
        to,
        ..
    }] = out[..]
    else {
        panic!("{out:?}")
    };
    assert_eq!(to, NodeId(1));
    assert_eq!(
        (r.hop_count, r.dst_seq, r.lifetime),
        (2, 5, Time::from_secs(3))
    );
    // Precursors: 1 for the forward route, 3 for the reverse one.
    assert_eq!(b.table().get(NodeId(5)).unwrap().precursors, [NodeId(1)]);
    assert_eq!(b.table().get(NodeId(0)).unwrap().precursors, [NodeId(3)]);
    assert_eq!(b.stats.rrep_by_intermediate, 1);
    // Once the route has expired, the request is relayed instead.
    out.clear();
    let later = Time::from_secs(5);
    b.on_rreq(NodeId(1), 10, rreq(0, 3, 5, None, 1), later, &mut out);
    assert!(
        matches!(out[..], [Action::Send { msg: AodvMsg::Rreq(q), .. }] if q.dst_seq == 5 && !q.unknown_seq)
    );
}

#[test]
fn replies_build_forward_routes_and_finish_the_discovery() {
    // 0 - 1 - 2: 1 relays 2's reply to 0.
    let mut b = node(1);
    let mut out = Vec::new();
    b.on_rreq(NodeId(0), 10, rreq(0, 1, 2, None, 0), Time::ZERO, &mut out);
    out.clear();
    let rrep = Rrep {
        hop_count: 0,
        dst: NodeId(2),
        dst_seq: 9,
        orig: NodeId(0),
        lifetime: Time::from_secs(6),
    };
    b.on_rrep(NodeId(2), rrep, ms(5), &mut out);
    let [Action::Send {
        msg: AodvMsg::Rrep(r),
        to,
        ..
    }] = out[..]
    else {
        panic!("{out:?}")
    };
    assert_eq!((to, r.hop_count), (NodeId(0), 1));
    assert_eq!(b.table().get(NodeId(2)).unwrap().precursors, [NodeId(0)]);
    assert_eq!(b.table().get(NodeId(0)).unwrap().precursors, [NodeId(2)]);
    // The same reply again changes nothing and is not relayed twice.
    out.clear();
    b.on_rrep(NodeId(2), rrep, ms(6), &mut out);
    assert!(out.is_empty());
    // At the originator, the reply ends the discovery.
    let mut a = node(0);
    a.start_discovery(NodeId(2), Time::ZERO, &mut out);
    out.clear();
    a.on_rrep(NodeId(1), r, ms(7), &mut out);
    assert_eq!(out, [Action::RouteFound(NodeId(2))]);
    assert_eq!(a.next_hop(NodeId(2), ms(7)), Some(NodeId(1)));
    assert_eq!(a.table().get(NodeId(2)).unwrap().hop_count, 2);
    assert_eq!(a.stats.discoveries_succeeded, 1);
    // A node looking for 2 that relays someone else's reply for 2 has its route too.
    let mut c = node(1);
    c.start_discovery(NodeId(2), Time::ZERO, &mut out);
    c.on_rreq(NodeId(0), 10, rreq(0, 1, 2, None, 0), Time::ZERO, &mut out);
    out.clear();
    c.on_rrep(NodeId(2), rrep, ms(5), &mut out);
    assert!(
        matches!(
            out[..],
            [Action::RouteFound(NodeId(2)), Action::Send { .. }]
        ),
        "{out:?}"
    );
    assert!(!c.discovering(NodeId(2)));
    out.clear();
    // Using the route keeps it alive past its RREP lifetime.
    let late = ms(7) + Time::from_secs(5);
    assert_eq!(
        a.use_route(NodeId(0), NodeId(2), NodeId(0), late),
        Some(NodeId(1))
    );
    assert!(a.next_hop(NodeId(2), late + Time::from_secs(2)).is_some());
}

fn route(n: &mut AodvNode, dst: u32, next: u32, seq: u32, precursors: &[u32]) {
    let o = Offer {
        next_hop: NodeId(next),
        hop_count: 2,
        seq: Some(seq),
        lifetime: Time::from_secs(100),
    };
    n.table.offer(NodeId(dst), o, Time::ZERO);
    for &p in precursors {
        n.table
            .get_mut(NodeId(dst))
            .unwrap()
            .add_precursor(NodeId(p));
    }
}

#[test]
fn a_link_break_reports_to_the_precursors_of_the_lost_routes() {
    let mut b = node(1);
    let mut out = Vec::new();
    route(&mut b, 3, 2, 10, &[0]);
    route(&mut b, 4, 2, 20, &[0, 5]);
    route(&mut b, 6, 2, 30, &[]);
    route(&mut b, 7, 0, 40, &[5]);
    b.on_link_break(NodeId(2), Time::from_secs(1), &mut out);
    let [Action::Send {
        msg: AodvMsg::Rerr(e),
        to: BROADCAST,
        jitter: true,
        ..
    }] = out[..]
    else {
        panic!("{out:?}")
    };
    // Sequence numbers incremented; 6 has no precursor so it is not listed.
    assert_eq!(e.dests(), [(NodeId(3), 11), (NodeId(4), 21)]);
    let now = Time::from_secs(1);
    for d in [3, 4, 6] {
        assert!(
            b.table().active(NodeId(d), now).is_none(),
            "route to {d} broken"
        );
    }
    assert!(
        b.table().active(NodeId(7), now).is_some(),
        "other next hop untouched"
    );
    assert!(b.table().get(NodeId(4)).unwrap().precursors.is_empty());
    // One precursor only: unicast.
    out.clear();
    b.on_link_break(NodeId(0), now, &mut out);
    assert!(matches!(
        out[..],
        [Action::Send {
            msg: AodvMsg::Rerr(_),
            to: NodeId(5),
            jitter: false,
            ..
        }]
    ));
    assert_eq!((b.stats.link_breaks, b.stats.rerr_sent), (2, 2));
    // Nothing left through 2: no error.
    out.clear();
    b.on_link_break(NodeId(2), now, &mut out);
    assert!(out.is_empty());
}

#[test]
fn errors_propagate_only_for_routes_through_the_sender() {
    let mut b = node(1);
    let mut out = Vec::new();
    route(&mut b, 3, 2, 10, &[0]);
    route(&mut b, 4, 5, 20, &[0]);
    let mut e = Rerr::new();
    e.push(NodeId(3), 12);
    e.push(NodeId(4), 22);
    b.on_rerr(NodeId(2), e, Time::from_secs(1), &mut out);
    let [Action::Send {
        msg: AodvMsg::Rerr(f),
        to: NodeId(0),
        ..
    }] = out[..]
    else {
        panic!("{out:?}")
    };
    assert_eq!(
        f.dests(),
        [(NodeId(3), 12)],
        "the number reported is copied"
    );
    assert!(b.table().active(NodeId(4), Time::from_secs(1)).is_some());
}

#[test]
fn no_route_at_a_forwarder_tells_the_previous_hop() {
    let mut b = node(1);
    let mut out = Vec::new();
    b.on_no_route(NodeId(6), NodeId(0), Time::ZERO, &mut out);
    assert!(
        matches!(out[..], [Action::Send { msg: AodvMsg::Rerr(e), to: NodeId(0), .. }] if e.dests() == [(NodeId(6), 0)])
    );
    // Many lost destinations go in several messages, and at most RERR_RATELIMIT a second.
    let mut c = node(2);
    for d in 3..8 {
        route(&mut c, d, 1, 1, &[0]);
    }
    out.clear();
    c.on_link_break(NodeId(1), Time::ZERO, &mut out);
    assert_eq!(out.len(), 2);
    assert!(
        matches!(out[0], Action::Send { msg: AodvMsg::Rerr(e), .. } if e.dests().len() == RERR_MAX_DESTS)
    );
    for k in 0..20 {
        c.on_no_route(NodeId(7), NodeId(0), ms(k), &mut out);
    }
    assert_eq!(c.stats.rerr_sent, RERR_RATELIMIT as u64);
    assert_eq!(c.stats.rerr_rate_limited, 12);
}

fn hello_node(id: u32) -> AodvNode {
    let cfg = AodvConfig {
        link_detection: LinkDetection::Hello,
        ..AodvConfig::default()
    };
    AodvNode::new(NodeId(id), N, cfg)
}

/// Node 1 with an active route to 3 through its neighbour 2, learnt at `now` from 2's
/// reply (so 2 was heard then), and one data packet of its own sent along it.
fn hello_route(now: Time) -> AodvNode {
    let mut b = hello_node(1);
    let mut out = Vec::new();
    b.heard(NodeId(2), now);
    let reply = Rrep {
        hop_count: 1,
        dst: NodeId(3),
        dst_seq: 4,
        orig: NodeId(1),
        lifetime: Time::from_secs(6),
    };
    b.on_rrep(NodeId(2), reply, now, &mut out);
    assert_eq!(
        b.use_route(NodeId(1), NodeId(3), NodeId(1), now),
        Some(NodeId(2))
    );
    b
}

fn hellos(out: &[Action]) -> Vec<Rrep> {
    out.iter()
        .filter_map(|a| match a {
            Action::Send {
                msg: AodvMsg::Rrep(r),
                to: BROADCAST,
                ttl: 1,
                jitter: true,
            } => Some(*r),
            _ => None,
        })
        .collect()
}

#[test]
fn hellos_only_while_on_an_active_route_and_not_after_a_broadcast() {
    let mut out = Vec::new();
    // Idle: the timer only re-arms itself.
    let mut a = hello_node(1);
    a.on_hello_timer(Time::from_secs(1), &mut out);
    assert_eq!(
        out,
        [Action::Arm {
            at: Time::from_secs(2),
            timer: AodvTimer::Hello
        }]
    );
    // MAC detection: no timer work at all.
    out.clear();
    node(1).on_hello_timer(Time::from_secs(1), &mut out);
    assert!(out.is_empty());
    // On an active route: a HELLO for itself, its own sequence number, lifetime
    // ALLOWED_HELLO_LOSS * HELLO_INTERVAL.
    let t0 = Time::from_secs(10);
    let mut b = hello_route(t0);
    out.clear();
    b.heard(NodeId(2), t0 + ms(900));
    b.on_hello_timer(t0 + ms(1000), &mut out);
    let h = hellos(&out);
    assert_eq!(
        h,
        [Rrep {
            hop_count: 0,
            dst: NodeId(1),
            dst_seq: b.seq(),
            orig: NodeId(1),
            lifetime: Time::from_secs(2),
        }]
    );
    assert_eq!(b.stats.hellos_sent, 1);
    // Another broadcast within the interval replaces the next HELLO.
    out.clear();
    b.sent_broadcast(t0 + ms(1500));
    b.heard(NodeId(2), t0 + ms(1900));
    b.on_hello_timer(t0 + ms(2000), &mut out);
    assert!(hellos(&out).is_empty());
    // No data for ACTIVE_ROUTE_TIMEOUT (3 s): no longer part of an active route.
    out.clear();
    b.heard(NodeId(2), t0 + ms(2900));
    b.on_hello_timer(t0 + ms(3000), &mut out);
    assert!(hellos(&out).is_empty());
    assert_eq!(b.stats.hellos_sent, 1);
}

#[test]
fn silence_beyond_the_allowed_loss_breaks_the_link_and_hearing_refreshes() {
    let t0 = Time::from_secs(10);
    let mut out = Vec::new();
    // Heard 1.5 s later: alive at t0 + 2.5 s.
    let mut b = hello_route(t0);
    b.heard(NodeId(2), t0 + ms(1500));
    b.on_hello_timer(t0 + ms(2500), &mut out);
    assert!(!out.contains(&Action::LinkBroken(NodeId(2))), "{out:?}");
    // Exactly ALLOWED_HELLO_LOSS * HELLO_INTERVAL of silence is still allowed.
    let mut b = hello_route(t0);
    out.clear();
    b.on_hello_timer(t0 + ms(2000), &mut out);
    assert!(!out.contains(&Action::LinkBroken(NodeId(2))), "{out:?}");
    // More is a break, reported once.
    out.clear();
    b.on_hello_timer(t0 + ms(2500), &mut out);
    let broken: Vec<_> = out
        .iter()
        .filter(|a| matches!(a, Action::LinkBroken(_)))
        .collect();
    assert_eq!(broken, [&Action::LinkBroken(NodeId(2))]);
    // The caller's break invalidates the routes through 2; no further report.
    out.clear();
    b.on_link_break(NodeId(2), t0 + ms(2500), &mut out);
    assert!(b.next_hop(NodeId(3), t0 + ms(2500)).is_none());
    out.clear();
    b.on_hello_timer(t0 + ms(3500), &mut out);
    assert!(!out.iter().any(|a| matches!(a, Action::LinkBroken(_))));
}

#[test]
fn a_hello_gives_a_route_to_its_sender_and_is_not_relayed() {
    let mut b = hello_node(1);
    let mut out = Vec::new();
    let now = Time::from_secs(5);
    let hello = Rrep {
        hop_count: 0,
        dst: NodeId(2),
        dst_seq: 9,
        orig: NodeId(2),
        lifetime: Time::from_secs(2),
    };
    b.on_rrep(NodeId(2), hello, now, &mut out);
    assert!(out.is_empty(), "{out:?}");
    let r = b.table().active(NodeId(2), now).unwrap();
    assert_eq!(
        (r.next_hop, r.hop_count, r.seq, r.valid_seq),
        (NodeId(2), 1, 9, true)
    );
}

// Local repair (RFC 3561 6.12).

fn repair_node(id: u32) -> AodvNode {
    let cfg = AodvConfig {
        local_repair: true,
        ..AodvConfig::default()
    };
    AodvNode::new(NodeId(id), N, cfg)
}

/// An active route of `n` to `dst` through `next`, `hops` long, with `precursors`.
fn route_hops(n: &mut AodvNode, dst: u32, next: u32, seq: u32, hops: u8, precursors: &[u32]) {
    route(n, dst, next, seq, precursors);
    n.table.get_mut(NodeId(dst)).unwrap().hop_count = hops;
}

/// The RERRs in `out`, with their recipients.
fn rerrs(out: &[Action]) -> Vec<(NodeId, Rerr)> {
    out.iter()
        .filter_map(|a| match a {
            Action::Send {
                msg: AodvMsg::Rerr(e),
                to,
                ..
            } => Some((*to, *e)),
            _ => None,
        })
        .collect()
}

#[test]
fn repairs_start_only_for_relayed_routes_within_max_repair_ttl() {
    let t = Time::from_secs(1);
    let mut out = Vec::new();
    for repair in [false, true] {
        let mut b = if repair { repair_node(1) } else { node(1) };
        route_hops(&mut b, 3, 2, 10, 10, &[0]); // MAX_REPAIR_TTL = 0.3 * 35 = 10 hops
        route_hops(&mut b, 4, 2, 20, 11, &[0]); // one hop too far
        route_hops(&mut b, 5, 2, 30, 2, &[]); // no precursor: nobody relays through here
        out.clear();
        b.on_link_break(NodeId(2), t, &mut out);
        let reported: Vec<_> = rerrs(&out)
            .iter()
            .flat_map(|(_, e)| e.dests().to_vec())
            .collect();
        if !repair {
            assert_eq!(reported, [(NodeId(3), 11), (NodeId(4), 21)]);
            out.clear();
            assert!(!b.start_repair(NodeId(3), NodeId(0), t, &mut out));
            assert!(out.is_empty());
            continue;
        }
        // The route to 3 waits for a repair: not reported, still has its precursor.
        assert_eq!(reported, [(NodeId(4), 21)]);
        assert!(b.table().active(NodeId(3), t).is_none());
        assert_eq!(b.table().get(NodeId(3)).unwrap().precursors, [NodeId(0)]);
        out.clear();
        assert!(
            !b.start_repair(NodeId(4), NodeId(0), t, &mut out),
            "too far"
        );
        assert!(
            !b.start_repair(NodeId(5), NodeId(0), t, &mut out),
            "not relayed"
        );
        assert!(out.is_empty());
        // The flag lasts ACTIVE_ROUTE_TIMEOUT.
        let late = t + Time::from_secs(3);
        assert!(!b.start_repair(NodeId(3), NodeId(0), late, &mut out));
        assert!(b.start_repair(NodeId(3), NodeId(0), late - ms(1), &mut out));
        assert_eq!(b.stats.local_repairs, 1);
    }
}

#[test]
fn a_repair_request_has_the_repair_ttl_and_the_incremented_sequence_number() {
    let t = Time::from_secs(1);
    let mut b = repair_node(1);
    let mut out = Vec::new();
    route_hops(&mut b, 3, 2, 10, 2, &[0]);
    route_hops(&mut b, 6, 0, 7, 9, &[]); // the originator of the packet, 9 hops back
    b.on_link_break(NodeId(2), t, &mut out);
    assert!(out.is_empty(), "no error while the repair may still happen");
    assert!(b.start_repair(NodeId(3), NodeId(6), t, &mut out));
    let (ttl, wait, _, r) = request(&out, t);
    // max(MIN_REPAIR_TTL = 2, ceil(0.5 * 9) = 5) + LOCAL_ADD_TTL = 7, waiting one ring.
    assert_eq!(ttl, 7);
    assert_eq!(wait, b.cfg.ring_traversal_time(7));
    assert_eq!((r.dst, r.dst_seq, r.unknown_seq), (NodeId(3), 11, false));
    assert_eq!((r.orig, r.orig_seq), (NodeId(1), b.seq()));
    assert!(b.repairing(NodeId(3)) && b.discovering(NodeId(3)));
    // More packets for 3 join the repair without a second request.
    out.clear();
    assert!(b.start_repair(NodeId(3), NodeId(6), t + ms(5), &mut out));
    assert!(out.is_empty());
    assert_eq!((b.stats.local_repairs, b.stats.rreq_originated), (1, 1));
    assert_eq!(b.stats.discoveries_started, 0, "repairs are counted apart");
    // An originator close by: MIN_REPAIR_TTL dominates.
    let mut c = repair_node(1);
    route_hops(&mut c, 3, 2, 10, 4, &[0]);
    out.clear();
    c.on_link_break(NodeId(2), t, &mut out);
    assert!(c.start_repair(NodeId(3), NodeId(0), t, &mut out));
    assert_eq!(request(&out, t).0, 6);
}

/// A node 1 relaying 0 -> 3 through 2 (`hops` to 3), whose link to 2 broke and which
/// started a repair.
fn repairing(hops: u8) -> (AodvNode, Time, u32) {
    let t = Time::from_secs(1);
    let mut b = repair_node(1);
    let mut out = Vec::new();
    route_hops(&mut b, 3, 2, 10, hops, &[0]);
    b.on_link_break(NodeId(2), t, &mut out);
    assert!(b.start_repair(NodeId(3), NodeId(0), t, &mut out));
    let (_, _, generation, _) = request(&out, t);
    (b, t, generation)
}

#[test]
fn a_successful_repair_releases_the_packets_and_flags_a_longer_route() {
    let reply = |hops: u8| Rrep {
        hop_count: hops,
        dst: NodeId(3),
        dst_seq: 11,
        orig: NodeId(1),
        lifetime: Time::from_secs(6),
    };
    // As long as before (2 hops, through 5 now): the packets go, nobody is told.
    let (mut b, t, _) = repairing(2);
    let mut out = Vec::new();
    b.on_rrep(NodeId(5), reply(1), t + ms(50), &mut out);
    assert_eq!(out, [Action::RouteFound(NodeId(3))]);
    assert_eq!(b.next_hop(NodeId(3), t + ms(50)), Some(NodeId(5)));
    assert!(!b.repairing(NodeId(3)));
    // Longer (3 hops): an error with the N flag to the precursors, who keep the route.
    let (mut b, t, _) = repairing(2);
    out.clear();
    b.on_rrep(NodeId(5), reply(2), t + ms(50), &mut out);
    assert_eq!(out[0], Action::RouteFound(NodeId(3)));
    let sent = rerrs(&out);
    assert_eq!(sent.len(), 1);
    let (to, e) = sent[0];
    assert_eq!(to, NodeId(0), "unicast to the only precursor");
    assert!(e.is_no_delete());
    assert_eq!(e.dests(), [(NodeId(3), 11)]);
    assert_eq!(b.table().get(NodeId(3)).unwrap().precursors, [NodeId(0)]);
    assert_eq!(
        (b.stats.local_repairs, b.stats.local_repair_failures),
        (1, 0)
    );
    // The precursor keeps its route; one with precursors of its own passes the error on.
    let mut a = node(0);
    route(&mut a, 3, 1, 10, &[7]);
    out.clear();
    a.on_rerr(NodeId(1), e, t + ms(60), &mut out);
    assert!(a.table().active(NodeId(3), t + ms(60)).is_some());
    let passed = rerrs(&out);
    assert_eq!(passed.len(), 1);
    assert_eq!(passed[0].0, NodeId(7));
    assert!(passed[0].1.is_no_delete());
}

#[test]
fn a_failed_repair_reports_the_destination_and_drops_the_packets() {
    let (mut b, t, generation) = repairing(2);
    let mut out = Vec::new();
    let wait = b.cfg.ring_traversal_time(b.cfg.repair_ttl(2, 0));
    b.on_discovery_timeout(generation, t + wait, &mut out);
    assert_eq!(out[0], Action::DiscoveryFailed(NodeId(3)));
    let sent = rerrs(&out);
    assert_eq!(sent.len(), 1, "{out:?}");
    let (to, e) = sent[0];
    assert_eq!(to, NodeId(0));
    assert!(!e.is_no_delete());
    assert_eq!(
        e.dests(),
        [(NodeId(3), 11)],
        "incremented once, at the break"
    );
    assert_eq!(
        (b.stats.local_repairs, b.stats.local_repair_failures),
        (1, 1)
    );
    assert!(!b.repairing(NodeId(3)));
    assert!(b.table().get(NodeId(3)).unwrap().precursors.is_empty());
    // One request only, and no second repair for the reported route.
    assert_eq!(b.stats.rreq_originated, 1);
    out.clear();
    assert!(!b.start_repair(NodeId(3), NodeId(0), t + wait, &mut out));
    assert!(out.is_empty());
}
