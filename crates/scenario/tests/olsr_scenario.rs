//! OLSR (RFC 3626) with ETX end to end through scenario files: convergence on a chain,
//! determinism, link quality under congestion, DiffQ over OLSR, configuration errors.

use airqueue_kernel::Time;
use airqueue_scenario::api::{run_json, run_value, Run};
use airqueue_scenario::build::{neighbour_graph, routing_table, world_config};
use airqueue_scenario::parse::toml_to_json;
use airqueue_scenario::validate_and_place;
use airqueue_sim::net::olsr::{OlsrNet, OlsrNode, OlsrStats};
use airqueue_sim::{NodeId, World};
use serde_json::Value;

mod common;

/// Each node's OLSR statistics, read back from the run's routing report.
fn olsr_stats(out: &airqueue_sim::RunOutcome) -> Vec<OlsrStats> {
    OlsrStats::from_report(out.routing.as_ref().expect("OLSR ran"))
}

/// `node`'s OLSR state machine.
fn olsr_node(world: &World, node: NodeId) -> Option<&OlsrNode> {
    world
        .routing_protocol()?
        .downcast_ref::<OlsrNet>()?
        .node(node)
}

fn run(text: &str) -> Run {
    run_value(toml_to_json(text).unwrap(), None, None).unwrap_or_else(|e| panic!("{e:?}"))
}

fn errors(text: &str) -> Vec<String> {
    match run_value(toml_to_json(text).unwrap(), None, None) {
        Ok(_) => panic!("expected an error for\n{text}"),
        Err(e) => e,
    }
}

/// Six nodes 200 m apart (250 m range), one CBR flow from end to end.
fn chain(routing: &str, duration: f64) -> String {
    format!(
        "duration = {duration}\nseed = 3\n[topology]\nkind = \"chain\"\nnodes = 6\n\
         spacing = 200.0\n[routing]\n{routing}\n\
         [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 5\nstart = 1.0\npacket_size = 512\nrate = 100e3\n"
    )
}

fn world(text: &str) -> (World, airqueue_sim::net::RoutingTable) {
    let (scenario, positions) = validate_and_place(&toml_to_json(text).unwrap()).unwrap();
    // The dense static table, to compare every pair with OLSR's.
    let table = routing_table(
        &scenario,
        &positions,
        &neighbour_graph(&scenario, &positions),
    );
    (World::new(world_config(&scenario, &positions)), table)
}

fn same_routes(a: &airqueue_sim::net::RoutingTable, b: &airqueue_sim::net::RoutingTable) {
    let n = a.node_count();
    for s in 0..n as u32 {
        for d in 0..n as u32 {
            let (s, d) = (NodeId(s), NodeId(d));
            assert_eq!(a.next_hop(s, d), b.next_hop(s, d), "{s:?} -> {d:?}");
            assert_eq!(a.hop_count(s, d), b.hop_count(s, d), "{s:?} -> {d:?}");
        }
    }
}

#[test]
fn a_chain_keeps_the_static_routes_and_delivers() {
    let text = chain("kind = \"olsr\"", 20.0);
    let (mut w, table) = world(&text);
    // Warm start: the converged routes from the first instant.
    same_routes(w.routing_table(), &table);
    w.run_until(Time::from_secs(20));
    same_routes(w.routing_table(), &table);
    let out = w.finish();
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    let f = &out.metrics.flows[0];
    assert!(
        f.packets_delivered as f64 >= 0.95 * f.packets_sent as f64,
        "{f:?}"
    );
    let r = &olsr_stats(&out);
    assert_eq!(r.len(), 6);
    // A HELLO every 2 s minus jitter (up to 0.5 s): 10 to 14 in 20 s.
    assert!(
        r.iter().all(|s| (10..=14).contains(&s.hellos_sent)),
        "{r:?}"
    );
    // The inner nodes are MPRs of their neighbours and send TCs; the ends are not.
    assert!((1..5).all(|i| r[i].tcs_originated >= 3 && r[i].mpr_selectors == 2));
    assert_eq!(r[0].tcs_originated + r[5].tcs_originated, 0);
    assert!(r[2].tcs_forwarded > 0 && r[0].tcs_forwarded == 0);
    // No route moved on an idle-enough chain.
    assert_eq!(r.iter().map(|s| s.route_changes).sum::<u64>(), 0);
    assert_eq!(r[0].sym_neighbors, 1);
    assert_eq!(r[2].sym_neighbors, 2);
    assert!(r.iter().all(|s| s.min_lq > 0.5), "{r:?}");
}

#[test]
fn without_warm_start_the_chain_converges_to_the_static_routes() {
    let text = chain("kind = \"olsr\"\nwarm_start = false", 20.0);
    let (mut w, table) = world(&text);
    assert_eq!(w.routing_table().next_hop(NodeId(0), NodeId(1)), None);
    w.run_until(Time::from_millis(100));
    assert_eq!(w.routing_table().next_hop(NodeId(0), NodeId(5)), None);
    // Links need two HELLO rounds, MPRs a third, TCs 5 s more to spread.
    w.run_until(Time::from_secs(20));
    same_routes(w.routing_table(), &table);
    let out = w.finish();
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    let f = &out.metrics.flows[0];
    // The first packets found no route and were dropped.
    assert!(f.packets_delivered > 0 && f.packets_delivered < f.packets_sent);
    let no_route = out.metrics.drops_by_reason()[airqueue_sim::net::DropReason::NoRoute.index()];
    assert!(no_route > 0);
}

#[test]
fn hop_count_metric_routes_like_static_hops() {
    let text = chain("kind = \"olsr\"\nmetric = \"hops\"", 6.0);
    let (mut w, table) = world(&text);
    w.run_until(Time::from_secs(6));
    same_routes(w.routing_table(), &table);
}

/// The shared congested grid under OLSR.
fn grid(duration: f64, queue: &str, flow_extra: &str) -> String {
    common::congested_grid(duration, "kind = \"olsr\"", queue, flow_extra)
}

#[test]
fn a_congested_grid_loses_hellos_and_moves_routes() {
    let out = run(&grid(30.0, "", "")).outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    let r = &olsr_stats(&out);
    let changes: u64 = r.iter().map(|s| s.route_changes).sum();
    let min_lq = r.iter().map(|s| s.min_lq).fold(1.0, f64::min);
    assert!(changes > 0, "{changes} route changes");
    assert!(min_lq < 1.0, "lowest LQ {min_lq}");
    let etx = r.iter().map(|s| s.mean_link_etx).fold(0.0, f64::max);
    assert!(etx > 1.0, "{etx}");
    assert!(out.metrics.delivered > 0);
}

#[test]
fn full_tc_redundancy_floods_more_tcs_and_keeps_packets() {
    // Every node with a symmetric neighbour advertises under TC_REDUNDANCY 2, so more
    // TCs are originated than under 0, where only MPRs do (RFC 3626 15.1).
    let base = run(&grid(10.0, "", "")).outcome;
    let full =
        run(&grid(10.0, "", "").replace("kind = \"olsr\"", "kind = \"olsr\"\ntc_redundancy = 2"))
            .outcome;
    let tcs =
        |o: &airqueue_sim::RunOutcome| olsr_stats(o).iter().map(|s| s.tcs_originated).sum::<u64>();
    let originators = |o: &airqueue_sim::RunOutcome| {
        olsr_stats(o)
            .iter()
            .filter(|s| s.tcs_originated > 0)
            .count()
    };
    assert!(tcs(&full) > tcs(&base), "{} vs {}", tcs(&full), tcs(&base));
    assert_eq!(originators(&full), olsr_stats(&full).len());
    assert!(originators(&base) < olsr_stats(&base).len());
    assert!(full.conservation.holds(), "{:?}", full.conservation);
}

#[test]
fn same_scenario_and_seed_give_identical_outputs() {
    let text = toml_to_json(&grid(8.0, "", "")).unwrap().to_string();
    let strip = |s: String| {
        let mut v: Value = serde_json::from_str(&s).unwrap();
        let m = v["summary"].as_object_mut().unwrap();
        m.remove("wall_seconds");
        m.remove("events_per_second");
        v
    };
    let a = strip(run_json(&text, None, None));
    let b = strip(run_json(&text, None, None));
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["summary"]["routing"]["kind"], "olsr");
    assert!(a["summary"]["routing"]["hellos_sent"].as_u64().unwrap() > 0);
    assert_eq!(a, b);
    let c = strip(run_json(&text, Some(2), None));
    assert_ne!(a["summary"]["routing"], c["summary"]["routing"]);
}

#[test]
fn diffq_runs_over_olsr_and_conserves_packets() {
    let text = grid(
        10.0,
        "[mac]\nkind = \"edca\"\nlevels = \"diffq8\"\n[queue]\nkind = \"diffq\"\n",
        "cc = \"diffq\"\n",
    );
    let out = run(&text).outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    assert!(out.metrics.flows.iter().all(|f| f.packets_delivered > 0));
    assert!(olsr_stats(&out).iter().all(|s| s.hellos_sent > 0));
    // Backpressure and fair queuing read the table too.
    for q in [
        "[queue]\nkind = \"backpressure\"\n",
        "[queue]\nkind = \"fq\"\nclassify = \"destination\"\nbackpressure_threshold = 1\n",
    ] {
        let out = run(&grid(4.0, q, "")).outcome;
        assert!(out.conservation.holds(), "{q}: {:?}", out.conservation);
        assert!(out.metrics.delivered > 0, "{q}");
    }
}

#[test]
fn bad_olsr_configurations_are_refused_with_the_keys_named() {
    let base = chain("kind = \"olsr\"", 5.0);
    let with = |extra: &str| {
        errors(&base.replace("kind = \"olsr\"", &format!("kind = \"olsr\"\n{extra}")))
    };
    let has = |e: &[String], key: &str, word: &str| {
        assert!(
            e.iter().any(|m| m.starts_with(key) && m.contains(word)),
            "{key} {word}: {e:?}"
        )
    };
    has(
        &with("hello_interval = 0"),
        "routing.hello_interval",
        "(0, 3600]",
    );
    has(
        &with("neighb_hold_time = 1.5"),
        "routing.neighb_hold_time",
        "hello_interval",
    );
    has(
        &with("tc_interval = 2\ntop_hold_time = 2"),
        "routing.top_hold_time",
        "tc_interval",
    );
    has(
        &with("lq_algorithm = \"hello_window\"\nlq_window = 65"),
        "routing.lq_window",
        "1..=64",
    );
    // The window belongs to the old estimator only, and the estimator's name is checked.
    has(&with("lq_window = 12"), "routing.lq_window", "hello_window");
    has(
        &with("lq_algorithm = \"etx_ff\"\nlq_window = 12"),
        "routing.lq_window",
        "lq_algorithm \"etx_ff\"",
    );
    has(
        &with("lq_algorithm = \"etx_fpm\""),
        "routing.lq_algorithm",
        "etx_ff",
    );
    has(&with("jitter = 0.6"), "routing.jitter", "RFC 5148");
    has(
        &with("warm_start = 1"),
        "routing.warm_start",
        "true or false",
    );
    has(&with("metric = \"ett\""), "routing.metric", "etx");
    has(&with("tc_redundancy = 3"), "routing.tc_redundancy", "15.1");
    let e = errors(&base.replace("kind = \"olsr\"", "kind = \"static\"\ntc_redundancy = 2"));
    has(&e, "routing.tc_redundancy", "olsr");
    let e = errors(&base.replace("kind = \"olsr\"", "kind = \"static\"\nlq_window = 5"));
    has(&e, "routing.lq_window", "olsr");
    let e = errors(&base.replace("kind = \"olsr\"", "kind = \"aodv\"\ntc_interval = 1"));
    has(&e, "routing.tc_interval", "olsr");
    // hello_interval is AODV's too (with link_detection = "hello"), not static routing's.
    let e = errors(&base.replace("kind = \"olsr\"", "kind = \"static\"\nhello_interval = 1"));
    has(&e, "routing.hello_interval", "olsr");
    let e = errors(&format!(
        "{base}[medium]\nkind = \"wired\"\nbandwidth = 1e6\ndelay = 0.001\n"
    ));
    has(&e, "routing.kind", "medium.kind");
}

/// A diamond 0 - {1, 2} - 3 (0 and 3 out of range) whose link 0-1 loses half its
/// frames both ways; a light flow from 0 to 3.
fn lossy_diamond(routing: &str) -> String {
    format!(
        "duration = 40.0\nseed = 5\n[topology]\nkind = \"explicit\"\n\
         positions = [[0.0, 0.0], [180.0, 100.0], [180.0, -100.0], [360.0, 0.0]]\n\
         [[link]]\na = 0\nb = 1\nloss = 0.5\n[routing]\n{routing}\n\
         [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 3\nstart = 1.0\npacket_size = 512\nrate = 20e3\n"
    )
}

#[test]
fn etx_measured_from_lost_hellos_routes_around_a_lossy_link() {
    // From empty tables: the LQ of 0-1 is learnt from HELLO gaps alone.
    let (mut w, table) = world(&lossy_diamond("kind = \"olsr\"\nwarm_start = false"));
    // Static ETX (from the configured loss) goes through 2; static hops would take 1.
    assert_eq!(table.next_hop(NodeId(0), NodeId(3)), Some(NodeId(2)));
    w.run_until(Time::from_secs(40));
    assert_eq!(
        w.routing_table().next_hop(NodeId(0), NodeId(3)),
        Some(NodeId(2))
    );
    let now = w.now();
    let n0 = olsr_node(&w, NodeId(0)).unwrap();
    let lq = n0.quality(NodeId(1)).0;
    assert!(lq > 0.1 && lq < 0.9, "LQ of 0-1 {lq}");
    assert!(n0.link_cost(NodeId(1), now) > 1.5);
    assert_eq!(n0.link_cost(NodeId(2), now), 1.0);
    let out = w.finish();
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    // The HELLO-window estimator learns the same from the HELLO gaps alone.
    let (mut w, _) = world(&lossy_diamond(
        "kind = \"olsr\"\nwarm_start = false\nlq_algorithm = \"hello_window\"",
    ));
    w.run_until(Time::from_secs(40));
    assert_eq!(
        w.routing_table().next_hop(NodeId(0), NodeId(3)),
        Some(NodeId(2))
    );
    let lq = olsr_node(&w, NodeId(0)).unwrap().quality(NodeId(1)).0;
    assert!(lq > 0.1 && lq < 0.9, "window LQ of 0-1 {lq}");
    // By hop count the tie goes to the lower id, lossy or not.
    let (mut w, _) = world(&lossy_diamond("kind = \"olsr\"\nmetric = \"hops\""));
    w.run_until(Time::from_secs(10));
    assert_eq!(
        w.routing_table().next_hop(NodeId(0), NodeId(3)),
        Some(NodeId(1))
    );
}
