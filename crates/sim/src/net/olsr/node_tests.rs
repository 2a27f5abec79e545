//! Unit tests of one OLSR node's state machine, messages handed in by hand.

use super::wire::{HelloLink, LinkType, NeighType, TcLink};
use super::{warm_start, LqAlgorithm, OlsrConfig, OlsrNode, RouteScratch, TcLists, TcRedundancy};
use crate::ids::NodeId;
use crate::net::routing::NO_ROUTE;
use airqueue_kernel::Time;

fn t(ms: u64) -> Time {
    Time::from_millis(ms)
}

fn cfg() -> OlsrConfig {
    OlsrConfig::default()
}

/// The HELLO-window estimator: the fraction of the last `lq_window` HELLOs received.
fn window_cfg() -> OlsrConfig {
    OlsrConfig {
        lq_algorithm: LqAlgorithm::HelloWindow,
        ..OlsrConfig::default()
    }
}

/// The HELLO `node` would send now.
fn hello_of(node: &mut OlsrNode, now: Time) -> (u16, Vec<HelloLink>) {
    let mut body = Vec::new();
    let (_, seq) = node.hello(now, &mut body);
    (seq, body)
}

/// Exchanges HELLOs among `nodes` over the undirected `edges`, `rounds` times.
fn exchange(nodes: &mut [OlsrNode], edges: &[(u32, u32)], rounds: u32, start: Time) -> Time {
    let mut now = start;
    for _ in 0..rounds {
        for i in 0..nodes.len() {
            let (seq, body) = hello_of(&mut nodes[i], now);
            for &(a, b) in edges {
                let other = match (a as usize == i, b as usize == i) {
                    (true, _) => b,
                    (_, true) => a,
                    _ => continue,
                };
                nodes[other as usize].on_hello(NodeId(i as u32), seq, &body, now);
            }
        }
        now += Time::from_secs(2);
    }
    now
}

fn nodes(n: usize, c: OlsrConfig) -> Vec<OlsrNode> {
    (0..n)
        .map(|i| OlsrNode::new(NodeId(i as u32), n, c))
        .collect()
}

#[test]
fn a_heard_hello_makes_the_link_asymmetric_then_symmetric() {
    let mut ns = nodes(2, cfg());
    // 0 hears 1, but 1 has not heard 0: asymmetric at 0.
    let (seq, body) = hello_of(&mut ns[1], t(0));
    ns[0].on_hello(NodeId(1), seq, &body, t(0));
    let l = ns[0].link(NodeId(1));
    assert!(l.exists(t(1)) && !l.is_sym(t(1)));
    // 0's HELLO lists 1 as ASYM.
    let (seq0, body0) = hello_of(&mut ns[0], t(10));
    assert_eq!(body0.len(), 1);
    assert_eq!(
        (body0[0].link, body0[0].neigh),
        (LinkType::Asym, NeighType::Not)
    );
    // 1 hears it: it is listed, so 1's link is symmetric; then 0 hears 1 list it.
    ns[1].on_hello(NodeId(0), seq0, &body0, t(10));
    assert!(ns[1].link(NodeId(0)).is_sym(t(11)));
    let (seq, body) = hello_of(&mut ns[1], t(20));
    assert_eq!(body[0].link, LinkType::Sym);
    ns[0].on_hello(NodeId(1), seq, &body, t(20));
    assert!(ns[0].link(NodeId(1)).is_sym(t(21)));
    // Symmetric for NEIGHB_HOLD_TIME without news, gone after L_time.
    assert!(ns[0].link(NodeId(1)).is_sym(t(6019)));
    assert!(!ns[0].link(NodeId(1)).is_sym(t(6020)));
    assert!(!ns[0].link(NodeId(1)).exists(t(12020)));
}

#[test]
fn a_one_way_link_never_becomes_symmetric() {
    // 0 hears 1, 1 never hears 0.
    let mut ns = nodes(2, cfg());
    for k in 0..5u64 {
        let (seq, body) = hello_of(&mut ns[1], t(2000 * k));
        ns[0].on_hello(NodeId(1), seq, &body, t(2000 * k));
        let _ = hello_of(&mut ns[0], t(2000 * k + 1));
    }
    assert!(!ns[0].link(NodeId(1)).is_sym(t(10_000)));
    let mut next = vec![0; 2];
    let mut hops = vec![0; 2];
    ns[0].compute_routes(
        t(10_000),
        &TcLists::default(),
        &mut RouteScratch::default(),
        &mut next,
        &mut hops,
    );
    assert_eq!(
        next,
        [NO_ROUTE, NO_ROUTE],
        "no route over an asymmetric link"
    );
}

#[test]
fn a_lost_link_in_a_hello_ends_symmetry() {
    let mut ns = nodes(2, cfg());
    let now = exchange(&mut ns, &[(0, 1)], 2, t(0));
    assert!(ns[0].link(NodeId(1)).is_sym(now));
    let lost = [HelloLink {
        neighbor: NodeId(0),
        link: LinkType::Lost,
        neigh: NeighType::Not,
        lq: 255,
        nlq: 255,
    }];
    ns[0].on_hello(NodeId(1), 9, &lost, now);
    assert!(!ns[0].link(NodeId(1)).is_sym(now));
    assert!(ns[0].link(NodeId(1)).exists(now));
}

#[test]
fn etx_follows_the_hello_gaps_and_what_the_neighbour_reports() {
    let mut ns = nodes(2, window_cfg());
    let now = exchange(&mut ns, &[(0, 1)], 2, t(0));
    // 1's HELLOs 3..=12 at 0, with 5 and 6 lost: LQ 8/10 once the window is full.
    for seq in (3..=12u16).filter(|s| *s != 5 && *s != 6) {
        let body = [HelloLink {
            neighbor: NodeId(0),
            link: LinkType::Sym,
            neigh: NeighType::Sym,
            lq: 128, // 1 heard 128/255 of 0's HELLOs: NLQ at 0
            nlq: 255,
        }];
        ns[0].on_hello(NodeId(1), seq, &body, now);
    }
    let l = ns[0].link(NodeId(1));
    assert!((l.lq.lq() - 0.8).abs() < 1e-12, "{}", l.lq.lq());
    let nlq = 128.0 / 255.0;
    assert!((l.nlq - nlq).abs() < 1e-12);
    let etx = ns[0].link_cost(NodeId(1), now);
    assert!((etx - 1.0 / (0.8 * nlq)).abs() < 1e-9, "{etx}");
}

#[test]
fn mprs_are_announced_and_selectors_recorded() {
    // Chain 0 - 1 - 2: 1 is 0's MPR (the only way to 2) and 2's.
    let mut ns = nodes(3, cfg());
    let now = exchange(&mut ns, &[(0, 1), (1, 2)], 3, t(0));
    assert!(ns[0].is_mpr(NodeId(1)) && ns[2].is_mpr(NodeId(1)));
    assert!(!ns[1].is_mpr(NodeId(0)) && !ns[1].is_mpr(NodeId(2)));
    assert!(ns[1].link(NodeId(0)).is_selector(now));
    assert!(ns[1].link(NodeId(2)).is_selector(now));
    assert!(!ns[0].link(NodeId(1)).is_selector(now));
    // Only 1 has something to advertise.
    let mut body = Vec::new();
    assert!(ns[0].tc(now, &mut body).is_none());
    let (_, ansn) = ns[1]
        .tc(now, &mut body)
        .expect("1 advertises its selectors");
    assert_eq!(
        body.iter().map(|l| l.neighbor).collect::<Vec<_>>(),
        [NodeId(0), NodeId(2)]
    );
    // Same selectors, same ANSN.
    assert_eq!(ns[1].tc(now, &mut body).map(|x| x.1), Some(ansn));
}

#[test]
fn tc_redundancy_widens_the_advertised_set() {
    // Star 1 - {0, 2, 3} plus 3 - 4: 1 is the MPR of 0 and 2 (to reach 3, 4 via 3), and
    // selects 3 as its own MPR (the only way to 4).
    let edges = [(0, 1), (1, 2), (1, 3), (3, 4)];
    let advertised = |r: TcRedundancy| {
        let mut ns = nodes(
            5,
            OlsrConfig {
                tc_redundancy: r,
                ..cfg()
            },
        );
        let now = exchange(&mut ns, &edges, 3, t(0));
        ns[1].select_mprs(now);
        assert!(ns[1].is_mpr(NodeId(3)) && !ns[1].is_mpr(NodeId(0)));
        let mut body = Vec::new();
        ns[1]
            .tc(now, &mut body)
            .expect("1 has neighbours to advertise");
        let mut ids: Vec<u32> = body.iter().map(|l| l.neighbor.0).collect();
        ids.sort_unstable();
        ids
    };
    // 0: the selectors (0, 2; 3 selected 1 too, to reach 0 and 2); 1: and the MPR 3;
    // 2: every symmetric neighbour, the same here plus nothing else.
    let sel = advertised(TcRedundancy::MprSelectors);
    assert!(sel.contains(&0) && sel.contains(&2), "{sel:?}");
    let with_mprs = advertised(TcRedundancy::SelectorsAndMprs);
    assert!(with_mprs.contains(&3), "{with_mprs:?}");
    assert_eq!(advertised(TcRedundancy::AllNeighbours), [0, 2, 3]);
    // A leaf with no selectors advertises nothing under 0 but its neighbour under 2.
    for (r, want) in [
        (TcRedundancy::MprSelectors, None),
        (TcRedundancy::AllNeighbours, Some(vec![1])),
    ] {
        let mut ns = nodes(
            5,
            OlsrConfig {
                tc_redundancy: r,
                ..cfg()
            },
        );
        let now = exchange(&mut ns, &edges, 3, t(0));
        let mut body = Vec::new();
        let got = ns[0]
            .tc(now, &mut body)
            .map(|_| body.iter().map(|l| l.neighbor.0).collect::<Vec<_>>());
        assert_eq!(got, want, "{r:?}");
    }
    for (v, want) in [
        (0, Some(TcRedundancy::MprSelectors)),
        (2, Some(TcRedundancy::AllNeighbours)),
        (3, None),
    ] {
        assert_eq!(TcRedundancy::from_rfc(v), want);
    }
}

#[test]
fn tcs_are_processed_once_and_forwarded_by_mprs_only() {
    // Chain 0 - 1 - 2 - 3: 1 selected 2 as MPR (to reach 3) and 3 selected 2 (to reach
    // 1), so 2 forwards what it hears first from 1 or 3.
    let mut ns = nodes(4, cfg());
    let now = exchange(&mut ns, &[(0, 1), (1, 2), (2, 3)], 3, t(0));
    assert!(ns[1].is_mpr(NodeId(2)) && ns[3].is_mpr(NodeId(2)));
    let adv = [TcLink {
        neighbor: NodeId(1),
        lq: 255,
        nlq: 255,
    }];
    let mut lists = TcLists::default();
    let (adv, none) = (
        lists.add(ns[2].metric(), &adv),
        lists.add(ns[2].metric(), &[]),
    );
    let lists = &lists;
    // A TC of 0 relayed by 1 (which selected 2 as MPR) reaches 2: processed, forwarded.
    assert!(ns[2].on_tc(NodeId(1), NodeId(0), 40, 1, 254, adv, lists, now));
    assert_eq!(
        ns[2].topology(NodeId(0)).dests(lists, now),
        &[(NodeId(1), 1.0)]
    );
    // The same message again, from 3: a duplicate, neither processed nor forwarded.
    assert!(!ns[2].on_tc(NodeId(3), NodeId(0), 40, 1, 253, adv, lists, now));
    assert_eq!(ns[2].stats.tc_duplicates, 1);
    assert_eq!(ns[2].stats.tcs_forwarded, 1);
    // From a node that is not a symmetric neighbour of 2: ignored (3.4 step 1).
    assert!(!ns[2].on_tc(NodeId(0), NodeId(3), 41, 1, 254, adv, lists, now));
    assert_eq!(ns[2].stats.tc_ignored, 1);
    // 0 selected 1 (its only way to 2): 1 forwards 0's own TC.
    assert!(ns[1].on_tc(NodeId(0), NodeId(0), 40, 1, 255, adv, lists, now));
    // TTL 1: processed but not forwarded.
    assert!(!ns[1].on_tc(NodeId(0), NodeId(0), 41, 2, 1, adv, lists, now));
    // An older ANSN is ignored.
    assert!(!ns[2].on_tc(NodeId(1), NodeId(0), 42, 0, 1, none, lists, now));
    assert_eq!(
        ns[2].topology(NodeId(0)).dests(lists, now),
        &[(NodeId(1), 1.0)]
    );
    // Topology tuples expire after TOP_HOLD_TIME.
    assert!(ns[2]
        .topology(NodeId(0))
        .dests(lists, now + Time::from_secs(15))
        .is_empty());
}

/// Node 0 with neighbours 1 and 2 that both reach 3; 1 and 2's links to 3 carry the
/// costs given (ETX from LQ/NLQ bytes).
fn diamond(lq_13: u8, lq_23: u8) -> OlsrNode {
    let mut ns = nodes(4, window_cfg());
    let now = exchange(&mut ns, &[(0, 1), (0, 2)], 2, t(0));
    let mut me = ns.swap_remove(0);
    for (x, lq, seq) in [(1u32, lq_13, 50u16), (2, lq_23, 50)] {
        let body = [
            HelloLink {
                neighbor: NodeId(0),
                link: LinkType::Sym,
                neigh: NeighType::Sym,
                lq: 255,
                nlq: 255,
            },
            HelloLink {
                neighbor: NodeId(3),
                link: LinkType::Sym,
                neigh: NeighType::Sym,
                lq,
                nlq: 255,
            },
        ];
        me.on_hello(NodeId(x), seq, &body, now);
    }
    me
}

/// `me`'s routes from its links and 2-hop sets alone (no TC), as (next hops, hops).
fn routes_of(me: &mut OlsrNode, now: Time, n: usize) -> (Vec<u32>, Vec<u32>) {
    let (mut next, mut hops) = (vec![0; n], vec![0; n]);
    let (lists, mut s) = (TcLists::default(), RouteScratch::default());
    me.compute_routes(now, &lists, &mut s, &mut next, &mut hops);
    (next, hops)
}

#[test]
fn routes_take_the_lower_etx_path_and_ties_the_lowest_next_hop() {
    let now = t(4000);
    // Through 1 the second link has LQ 0.5 (ETX 2), through 2 it is clean.
    let (next, hops) = routes_of(&mut diamond(128, 255), now, 4);
    assert_eq!(next[3], 2);
    assert_eq!(hops[3], 2);
    assert_eq!((next[1], next[2], next[0]), (1, 2, NO_ROUTE));
    // Equal costs: the lower id.
    assert_eq!(routes_of(&mut diamond(255, 255), now, 4).0[3], 1);
    // The other way round.
    assert_eq!(routes_of(&mut diamond(255, 128), now, 4).0[3], 1);
}

#[test]
fn hop_count_ignores_link_quality() {
    let c = OlsrConfig {
        etx: false,
        ..cfg()
    };
    let mut ns = nodes(3, c);
    let now = exchange(&mut ns, &[(0, 1), (1, 2), (0, 2)], 3, t(0));
    let (next, hops) = routes_of(&mut ns[0], now, 3);
    assert_eq!((next[2], hops[2]), (2, 1));
}

#[test]
fn warm_start_matches_a_lossless_exchange() {
    // Chain 0 - 1 - 2 - 3 - 4.
    let edges = [(0u32, 1u32), (1, 2), (2, 3), (3, 4)];
    let graph: Vec<Vec<(NodeId, f64)>> = (0..5u32)
        .map(|i| {
            edges
                .iter()
                .filter_map(|&(a, b)| match (a == i, b == i) {
                    (true, _) => Some((NodeId(b), 1.0)),
                    (_, true) => Some((NodeId(a), 1.0)),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut ns = nodes(5, cfg());
    let mut lists = TcLists::default();
    warm_start(&mut ns, &graph, &mut lists, Time::ZERO);
    let mut next = vec![0; 5];
    let mut hops = vec![0; 5];
    for i in 0..5 {
        ns[i].compute_routes(
            Time::ZERO,
            &lists,
            &mut RouteScratch::default(),
            &mut next,
            &mut hops,
        );
        for d in 0..5u32 {
            if d as usize == i {
                assert_eq!(next[i], NO_ROUTE);
                continue;
            }
            let want = if (d as usize) > i { i + 1 } else { i - 1 };
            assert_eq!(next[d as usize], want as u32, "{i} -> {d}");
            assert_eq!(
                hops[d as usize],
                (d as i64 - i as i64).unsigned_abs() as u32
            );
        }
    }
    assert!(ns[1].link(NodeId(0)).is_selector(Time::ZERO));
    assert_eq!(
        ns[0].stats.tcs_originated, 0,
        "the warm start sends nothing"
    );
}

/// Two warm-started neighbours with perfect links both ways.
fn warm_pair(c: OlsrConfig) -> Vec<OlsrNode> {
    let graph = vec![vec![(NodeId(1), 1.0)], vec![(NodeId(0), 1.0)]];
    let mut ns = nodes(2, c);
    warm_start(&mut ns, &graph, &mut TcLists::default(), Time::ZERO);
    ns
}

#[test]
fn etx_ff_a_silent_neighbour_loses_lq_before_its_link_expires() {
    let mut ns = warm_pair(cfg());
    assert_eq!(ns[0].quality(NodeId(1)), (1.0, 1.0));
    // 1 falls silent from t = 0 (its last HELLO); 0's LQ timer ticks every second.
    // Loss timer: 3 s, then 5 s; two missed HELLOs age the window at the 5.5 s tick.
    let mut lq_at = Vec::new();
    for k in 0..6u64 {
        let now = t(500 + 1000 * k);
        ns[0].lq_tick(now);
        lq_at.push(ns[0].quality(NodeId(1)).0);
    }
    assert!(lq_at[..5].iter().all(|&q| q == 1.0), "{lq_at:?}");
    let aged = lq_at[5];
    assert!(aged < 0.9, "{lq_at:?}");
    assert!(
        ns[0].link(NodeId(1)).is_sym(t(5500)),
        "still within NEIGHB_HOLD_TIME"
    );
    assert!(ns[0].link_cost(NodeId(1), t(5500)) > 1.1);
    // A third missed HELLO moves the measured LQ by less than a tenth: not published;
    // a fourth is.
    ns[0].lq_tick(t(7500));
    assert_eq!(ns[0].quality(NodeId(1)).0, aged);
    ns[0].lq_tick(t(9500));
    assert!(ns[0].quality(NodeId(1)).0 < aged);
    // Recovery: 1 is heard again (a HELLO listing 0), aging stops, LQ is back at once
    // (a rise to 255 is always published).
    let (_, body) = hello_of(&mut ns[1], t(9600));
    ns[0].on_packet(NodeId(1), 1, t(9600));
    ns[0].on_hello(NodeId(1), 1, &body, t(9600));
    ns[0].lq_tick(t(10_500));
    assert_eq!(ns[0].quality(NodeId(1)).0, 1.0);
}

#[test]
fn etx_ff_hello_window_ignores_timers_and_packets() {
    // The old estimator: no aging, no packet counting.
    let mut ns = warm_pair(window_cfg());
    ns[0].on_packet(NodeId(1), 40, t(100));
    assert!(!ns[0].lq_tick(t(5500)));
    assert_eq!(ns[0].quality(NodeId(1)).0, 1.0);
    // etx_ff counts packets only from a neighbour it has a link with.
    let mut ns = nodes(2, cfg());
    ns[0].on_packet(NodeId(1), 7, t(100));
    assert!(!ns[0].link(NodeId(1)).exists(t(100)));
    assert!(!ns[0].lq_tick(t(1000)), "no link, nothing to publish");
}

#[test]
fn etx_ff_lost_packets_lower_lq_only_past_the_hysteresis() {
    let mut ns = warm_pair(cfg());
    // 1's packets arrive every 0.5 s (HELLOs every 2 s, the rest TCs), one in `lose`
    // lost; 0 ticks every second.
    let mut seq = 0u16;
    let mut published = Vec::new();
    let mut tick = t(1000);
    for k in 1..=120u64 {
        let now = t(500 * k);
        seq = seq.wrapping_add(1);
        if !seq.is_multiple_of(5) {
            ns[0].on_packet(NodeId(1), seq, now);
            if k.is_multiple_of(4) {
                let (_, body) = hello_of(&mut ns[1], now);
                ns[0].on_hello(NodeId(1), seq, &body, now);
            }
        }
        if now >= tick {
            ns[0].lq_tick(now);
            published.push(ns[0].quality(NodeId(1)).0);
            tick += Time::from_secs(1);
        }
    }
    // 4 of 5 packets: the measured LQ settles near 0.8; what is published moves in
    // steps of more than a tenth, so it changes only a few times.
    let last = *published.last().unwrap();
    assert!((last - 0.8).abs() < 0.06, "{published:?}");
    let steps = published.windows(2).filter(|w| w[0] != w[1]).count();
    assert!((1..=4).contains(&steps), "{steps} steps: {published:?}");
}

proptest::proptest! {
    /// Skipping a route calculation (or MPR selection) whose inputs did not change or
    /// expire gives what a full one gives, after random sequences of lossy HELLOs, TCs,
    /// link-quality ticks and waits, with either estimator.
    #[test]
    fn skipped_calculations_equal_full_ones(
        ops in proptest::collection::vec((0u8..4, 0usize..6, 0u32..64, 0u64..3000), 1..120),
        window in proptest::bool::ANY,
    ) {
        // Two triangles joined by one link, plus a pendant node.
        let edges = [(0u32, 1u32), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5), (3, 5), (5, 1)];
        let n = 6;
        let mut ns = nodes(n, if window { window_cfg() } else { cfg() });
        let mut lists = TcLists::default();
        let mut now = t(0);
        let mut routes = vec![(vec![NO_ROUTE; n], vec![NO_ROUTE; n]); n];
        let (mut next, mut hops) = (vec![0; n], vec![0; n]);
        for (op, i, mask, wait) in ops {
            match op {
                // A HELLO of i, lost at the neighbours whose bit of `mask` is set.
                0 => {
                    let (seq, body) = hello_of(&mut ns[i], now);
                    for (k, &(a, b)) in edges.iter().enumerate() {
                        let other = match (a as usize == i, b as usize == i) {
                            (true, _) => b,
                            (_, true) => a,
                            _ => continue,
                        };
                        if mask & (1 << (k % 6)) == 0 {
                            ns[other as usize].on_packet(NodeId(i as u32), seq, now);
                            ns[other as usize].on_hello(NodeId(i as u32), seq, &body, now);
                        }
                    }
                }
                // A TC of i handed to every node that has i's neighbours as neighbours.
                1 => {
                    let mut body = Vec::new();
                    if let Some((seq, ansn)) = ns[i].tc(now, &mut body) {
                        let dests = lists.add(ns[i].metric(), &body);
                        for (k, node) in ns.iter_mut().enumerate() {
                            if k != i && mask & (1 << k) == 0 {
                                let from = NodeId(((k + 1) % n) as u32);
                                node.on_tc(from, NodeId(i as u32), seq, ansn, 255, dests, &lists, now);
                            }
                        }
                    }
                }
                2 => {
                    ns[i].lq_tick(now);
                }
                _ => now += t(wait),
            }
            for (k, node) in ns.iter_mut().enumerate() {
                let mut full = node.clone();
                full.forget_last_calculation();
                if node.compute_routes(now, &lists, &mut RouteScratch::default(), &mut next, &mut hops) {
                    routes[k] = (next.clone(), hops.clone());
                }
                let (mut fnext, mut fhops) = (vec![0; n], vec![0; n]);
                proptest::prop_assert!(full.compute_routes(now, &lists, &mut RouteScratch::default(), &mut fnext, &mut fhops));
                proptest::prop_assert_eq!(&routes[k].0, &fnext, "node {} at {:?}", k, now);
                proptest::prop_assert_eq!(&routes[k].1, &fhops, "node {} at {:?}", k, now);
                for x in 0..n as u32 {
                    proptest::prop_assert_eq!(node.is_mpr(NodeId(x)), full.is_mpr(NodeId(x)));
                }
            }
        }
    }
}

#[test]
fn a_change_no_path_can_use_leaves_the_routes_and_skips_the_calculation() {
    // A diamond 0-1-3, 0-2-3 with a tail 3-4, every link perfect.
    let pairs = [(0u32, 1u32), (0, 2), (1, 3), (2, 3), (3, 4)];
    let mut graph = vec![Vec::new(); 5];
    for &(a, b) in &pairs {
        graph[a as usize].push((NodeId(b), 1.0));
        graph[b as usize].push((NodeId(a), 1.0));
    }
    let mut ns = nodes(5, cfg());
    let mut lists = TcLists::default();
    warm_start(&mut ns, &graph, &mut lists, Time::ZERO);
    let (mut next, mut hops) = (vec![0; 5], vec![0; 5]);
    let mut s = RouteScratch::default();
    let me = &mut ns[0];
    assert!(me.compute_routes(t(1), &lists, &mut s, &mut next, &mut hops));
    assert_eq!((next[3], next[4]), (1, 1), "ties go to the lower next hop");
    let tc = |to: u32, lq: u8| {
        [TcLink {
            neighbor: NodeId(to),
            lq,
            nlq: 255,
        }]
    };
    // Node 4 now advertises only a poor link back to 3: no path from 0 can gain by it.
    let ansn = me.topology(NodeId(4)).ansn.wrapping_add(1);
    let poor = lists.add(me_metric(), &tc(3, 100));
    me.on_tc(NodeId(1), NodeId(4), 900, ansn, 255, poor, &lists, t(2));
    assert!(
        !me.compute_routes(t(100), &lists, &mut s, &mut next, &mut hops),
        "skipped"
    );
    let mut full = me.clone();
    full.forget_last_calculation();
    let (mut fnext, mut fhops) = (vec![0; 5], vec![0; 5]);
    assert!(full.compute_routes(
        t(100),
        &lists,
        &mut RouteScratch::default(),
        &mut fnext,
        &mut fhops
    ));
    assert_eq!((&next, &hops), (&fnext, &fhops));
    // Node 3's link to 4, the last link of the path to 4, turns poor: the calculation
    // runs (and the path, the only one, costs more).
    let ansn = me.topology(NodeId(3)).ansn.wrapping_add(1);
    let poor = lists.add(me_metric(), &tc(4, 100));
    me.on_tc(NodeId(1), NodeId(3), 901, ansn, 255, poor, &lists, t(200));
    assert!(
        me.compute_routes(t(300), &lists, &mut s, &mut next, &mut hops),
        "ran"
    );
    assert!((s.cost(NodeId(4)) - (2.0 + 255.0 / 100.0)).abs() < 1e-9);
}

fn me_metric() -> super::Metric {
    OlsrNode::new(NodeId(0), 1, cfg()).metric()
}
