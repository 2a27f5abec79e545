//! AODV (RFC 3561) end to end through scenario files: discovery on a chain, determinism,
//! link breaks under congestion, and the configuration errors.

use airqueue_kernel::Time;
use airqueue_scenario::api::{run_json, run_value, Run};
use airqueue_scenario::build::world_config;
use airqueue_scenario::parse::toml_to_json;
use airqueue_scenario::validate_and_place;
use airqueue_sim::net::aodv::{AodvNet, AodvStats};
use airqueue_sim::net::DropReason;
use airqueue_sim::{NodeId, RunOutcome, World};
use serde_json::Value;

mod common;

/// Each node's AODV counters, read back from the run's routing report.
fn aodv_stats(out: &RunOutcome) -> Vec<AodvStats> {
    AodvStats::from_report(out.routing.as_ref().expect("AODV ran"))
}

/// The next hop and hop count of `node`'s active AODV route to `dst` at the world's time.
fn aodv_route(world: &World, node: NodeId, dst: NodeId) -> Option<(NodeId, u8)> {
    let aodv = world.routing_protocol()?.downcast_ref::<AodvNet>()?;
    aodv.route(node, dst, world.now())
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
fn chain(routing: &str) -> String {
    format!(
        "duration = 10.0\nseed = 3\n[topology]\nkind = \"chain\"\nnodes = 6\nspacing = 200.0\n\
         [routing]\n{routing}\n\
         [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 5\nstart = 1.0\npacket_size = 512\nrate = 100e3\n"
    )
}

#[test]
fn a_chain_discovers_the_static_route_and_delivers() {
    let aodv = run(&chain("kind = \"aodv\""));
    let stat = run(&chain("kind = \"static\""));
    let out = &aodv.outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    let r = &aodv_stats(out);
    assert_eq!(r.len(), 6);
    // One discovery by the source, answered by the destination; the middle nodes relay.
    assert_eq!(r[0].discoveries_started, 1);
    assert_eq!(r[0].discoveries_succeeded, 1);
    assert_eq!(r[5].rrep_by_destination, 1);
    assert!((1..5).all(|i| r[i].rreq_forwarded >= 1 && r[i].rrep_forwarded == 1));
    // Expanding ring: TTL 1 and 3 fall short of the 5 hops, TTL 5 reaches node 5
    // (TTL_START 1, TTL_INCREMENT 2).
    assert_eq!(r[0].rreq_originated, 3);
    let f = &out.metrics.flows[0];
    assert!(
        f.packets_delivered as f64 >= 0.95 * f.packets_sent as f64,
        "{f:?}"
    );
    // The first packets waited for the discovery: mean delay above the static one.
    let (d_aodv, d_static) = (
        f.mean_delay_s().unwrap(),
        stat.outcome.metrics.flows[0].mean_delay_s().unwrap(),
    );
    assert!(d_aodv > d_static, "aodv {d_aodv} static {d_static}");
    // No breaks on an uncongested chain.
    assert_eq!(r.iter().map(|s| s.link_breaks).sum::<u64>(), 0);
}

#[test]
fn the_route_found_has_the_static_hop_count_and_the_first_packet_waits() {
    // One packet only (the rate allows no second one in the run): its delay is the
    // discovery's. The rings TTL 1 and 3 time out (RING_TRAVERSAL_TIME 0.24 s and 0.4 s)
    // before TTL 5 reaches node 5, and five hops of a 512-byte frame take a few ms.
    let text = chain("kind = \"aodv\"").replace("rate = 100e3", "rate = 400.0");
    let out = run(&text).outcome;
    let f = &out.metrics.flows[0];
    assert_eq!((f.packets_sent, f.packets_delivered), (1, 1));
    let delay = f.mean_delay_s().unwrap();
    assert!(delay > 0.64 && delay < 0.75, "first packet delay {delay}");
    let stat = run(&chain("kind = \"static\"").replace("rate = 100e3", "rate = 400.0"));
    let d_static = stat.outcome.metrics.flows[0].mean_delay_s().unwrap();
    assert!(d_static < 0.05, "{d_static}");
    // The source's route, one second in, against the static table.
    let (scenario, positions) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    let cfg = world_config(&scenario, &positions);
    let table = cfg.routing.clone();
    let mut world = World::new(cfg);
    world.run_until(Time::from_secs(3));
    let (next, hops) = aodv_route(&world, NodeId(0), NodeId(5)).expect("route to 5");
    assert_eq!(Some(next), table.next_hop(NodeId(0), NodeId(5)));
    assert_eq!(Some(hops as u32), table.hop_count(NodeId(0), NodeId(5)));
    assert_eq!(hops, 5);
    // And the reverse route the request left at the destination.
    let (back, back_hops) = aodv_route(&world, NodeId(5), NodeId(0)).expect("route to 0");
    assert_eq!((back, back_hops), (NodeId(4), 5));
}

#[test]
fn same_scenario_and_seed_give_identical_outputs() {
    let text = toml_to_json(&grid(10.0)).unwrap().to_string();
    let strip = |s: String| {
        let mut v: Value = serde_json::from_str(&s).unwrap();
        let m = v["summary"].as_object_mut().unwrap();
        m.remove("wall_seconds");
        m.remove("events_per_second");
        v
    };
    let a = strip(run_json(&text, None, None));
    let b = strip(run_json(&text, None, None));
    assert_eq!(a["ok"], true);
    assert_eq!(a, b);
    let c = strip(run_json(&text, Some(2), None));
    assert_ne!(
        a["summary"]["routing"], c["summary"]["routing"],
        "another seed, another run"
    );
}

/// The shared congested grid under AODV with drop-tail queues.
fn grid(duration: f64) -> String {
    common::congested_grid(
        duration,
        "kind = \"aodv\"",
        "[queue]\nkind = \"droptail\"\n",
        "",
    )
}

#[test]
fn a_congested_grid_breaks_links_and_rediscovers_routes() {
    let out = run(&grid(20.0)).outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    let total = |f: fn(&airqueue_sim::net::aodv::AodvStats) -> u64| -> u64 {
        aodv_stats(&out).iter().map(f).sum()
    };
    let breaks = total(|s| s.link_breaks);
    let rerrs = total(|s| s.rerr_sent);
    let started = total(|s| s.discoveries_started);
    let succeeded = total(|s| s.discoveries_succeeded);
    assert!(breaks >= 5, "{breaks} link breaks");
    assert!(rerrs >= 5, "{rerrs} route errors");
    // Four flows need four discoveries; the others follow breaks.
    assert!(
        started > 8 && succeeded > 8,
        "{started} started, {succeeded} found"
    );
    let drops = out.metrics.drops_by_reason();
    assert!(drops[DropReason::MacRetryLimit.index()] > 0);
    assert!(drops[DropReason::LinkBroken.index()] > 0);
    assert!(drops[DropReason::NoRoute.index()] > 0);
    assert!(out.metrics.delivered > 0);
}

#[test]
fn tcp_runs_over_aodv_on_a_chain() {
    let text = chain("kind = \"aodv\"").replace(
        "kind = \"udp\"\nsrc = 0\ndst = 5\nstart = 1.0\npacket_size = 512\nrate = 100e3",
        "kind = \"tcp\"\nsrc = 0\ndst = 5\nstart = 1.0\npacket_size = 512",
    );
    let out = run(&text).outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    assert!(out.metrics.flows[0].packets_delivered > 100);
    // The ACKs found their way back on the reverse route the RREQ left: the destination
    // discovers a route only after a link of the path broke. (On this chain a hidden
    // sender three hops away can destroy a frame after its preamble, so a retry-limit
    // drop may break a link and make node 5 discover; without the reverse route node 5
    // would discover before its first ACK, break or not.)
    let breaks: u64 = aodv_stats(&out).iter().map(|s| s.link_breaks).sum();
    assert!(
        aodv_stats(&out)[5].discoveries_started <= breaks,
        "{} discoveries by the destination, {breaks} link breaks",
        aodv_stats(&out)[5].discoveries_started
    );
}

#[test]
fn fair_queuing_runs_with_aodv() {
    let text = grid(5.0).replace(
        "kind = \"droptail\"",
        "kind = \"fq\"\nclassify = \"source\"",
    );
    let out = run(&text).outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    assert!(out.metrics.delivered > 0);
}

#[test]
fn bad_aodv_configurations_are_refused_with_the_keys_named() {
    let base = chain("kind = \"aodv\"");
    let e = errors(&base.replace("kind = \"aodv\"", "kind = \"aodv\"\nttl_strat = 2"));
    assert!(
        e.iter()
            .any(|m| m.contains("routing.ttl_strat") && m.contains("ttl_start")),
        "{e:?}"
    );
    let e = errors(&base.replace("kind = \"aodv\"", "kind = \"aodv\"\nnet_diameter = 0"));
    assert!(
        e.iter().any(|m| m.starts_with("routing.net_diameter")),
        "{e:?}"
    );
    let e = errors(&base.replace(
        "kind = \"aodv\"",
        "kind = \"aodv\"\nactive_route_timeout = -1",
    ));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.active_route_timeout")),
        "{e:?}"
    );
    let e = errors(&base.replace("kind = \"aodv\"", "kind = \"aodv\"\nttl_threshold = 40"));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.ttl_threshold") && m.contains("net_diameter")),
        "{e:?}"
    );
    let e = errors(&base.replace("kind = \"aodv\"", "kind = \"aodv\"\nmetric = \"etx\""));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.metric") && m.contains("static")),
        "{e:?}"
    );
    let e = errors(&base.replace("kind = \"aodv\"", "kind = \"static\"\nbuffer_timeout = 3"));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.buffer_timeout") && m.contains("aodv")),
        "{e:?}"
    );
    let e = errors(&base.replace("kind = \"aodv\"", "kind = \"aodvv\""));
    assert!(
        e.iter().any(|m| m.contains("did you mean \"aodv\"")),
        "{e:?}"
    );
    let e = errors(&format!("{base}[queue]\nkind = \"red\"\n"));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.kind") && m.contains("queue.kind = \"red\"")),
        "{e:?}"
    );
    let e = errors(&format!(
        "{base}[medium]\nkind = \"wired\"\nbandwidth = 1e6\ndelay = 0.001\n"
    ));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.kind") && m.contains("medium.kind")),
        "{e:?}"
    );
}

/// Two sources in each other's range that start at the same instant: their first RREQs
/// would go on the air together and collide, and with the same deterministic retry
/// schedule collide again on every retry, so neither ever found a route. Originated
/// RREQs are jittered like relayed ones (RFC 5148 section 5), which breaks the tie.
#[test]
fn simultaneous_sources_that_hear_each_other_both_find_routes() {
    let text = "duration = 5.0\nseed = 1\n[topology]\nkind = \"star\"\nnodes = 3\nradius = 100.0\n\
                [routing]\nkind = \"aodv\"\n\
                [[flow]]\nkind = \"udp\"\nsrc = 1\ndst = 0\nstart = 1.0\npacket_size = 512\nrate = 100e3\n\
                [[flow]]\nkind = \"udp\"\nsrc = 2\ndst = 0\nstart = 1.0\npacket_size = 512\nrate = 100e3\n";
    let out = run(text).outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    for src in [1, 2] {
        assert_eq!(
            aodv_stats(&out)[src].discoveries_succeeded,
            1,
            "{:?}",
            aodv_stats(&out)[src]
        );
    }
    for f in &out.metrics.flows {
        assert!(
            f.packets_delivered as f64 >= 0.9 * f.packets_sent as f64,
            "{f:?}"
        );
    }
}

const HELLO: &str = "kind = \"aodv\"\nlink_detection = \"hello\"";

#[test]
fn hello_detection_on_a_chain_discovers_delivers_and_sends_hellos() {
    let out = run(&chain(HELLO)).outcome;
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    let r = &aodv_stats(&out);
    assert_eq!(
        (r[0].discoveries_started, r[0].discoveries_succeeded),
        (1, 1)
    );
    let f = &out.metrics.flows[0];
    assert!(
        f.packets_delivered as f64 >= 0.95 * f.packets_sent as f64,
        "{f:?}"
    );
    // Every node of the route carries data for 9 s: HELLOs from each of them (one per
    // HELLO_INTERVAL at most). A node declares a next hop lost only after missing
    // ALLOWED_HELLO_LOSS (2) of its HELLOs (RFC 3561 6.9), so every break comes with at
    // least two failed receptions at the node that declares it. (Node 4 can lose node 5's
    // HELLOs to node 2's frames, which it senses from 400 m and node 5 does not: node 5 is
    // a hidden terminal for them.)
    for (i, s) in r.iter().enumerate() {
        assert!(s.hellos_sent >= 3 && s.hellos_sent <= 10, "node {i}: {s:?}");
        if s.link_breaks > 0 {
            assert!(
                out.mac[i].rx_failed >= 2,
                "node {i}: {s:?}, {:?}",
                out.mac[i]
            );
        }
    }
    // MAC detection sends none, and the default is MAC detection, bit for bit.
    let mac = run(&chain("kind = \"aodv\"")).outcome;
    assert_eq!(
        aodv_stats(&mac).iter().map(|s| s.hellos_sent).sum::<u64>(),
        0
    );
    let explicit = run(&chain("kind = \"aodv\"\nlink_detection = \"mac\"")).outcome;
    assert_eq!(mac.routing, explicit.routing);
    assert_eq!(
        format!("{:?}", mac.metrics.flows),
        format!("{:?}", explicit.metrics.flows)
    );
}

#[test]
fn hello_detection_is_deterministic() {
    let text = toml_to_json(&grid(10.0).replace("kind = \"aodv\"", HELLO))
        .unwrap()
        .to_string();
    let strip = |s: String| {
        let mut v: Value = serde_json::from_str(&s).unwrap();
        let m = v["summary"].as_object_mut().unwrap();
        m.remove("wall_seconds");
        m.remove("events_per_second");
        v
    };
    let a = strip(run_json(&text, None, None));
    assert_eq!(a["ok"], true);
    assert!(a["summary"]["routing"]["hellos_sent"].as_u64().unwrap() > 0);
    assert_eq!(a, strip(run_json(&text, None, None)));
}

/// The congested grid with both detectors: MAC failures from hidden terminals are
/// link breaks with MAC detection, only drops with hello detection.
#[test]
fn a_congested_grid_breaks_fewer_links_with_hellos() {
    let count = |text: &str| {
        let out = run(text).outcome;
        assert!(out.conservation.holds(), "{:?}", out.conservation);
        let sum = |f: fn(&airqueue_sim::net::aodv::AodvStats) -> u64| -> u64 {
            aodv_stats(&out).iter().map(f).sum()
        };
        let drops = out.metrics.drops_by_reason();
        (
            sum(|s| s.link_breaks),
            sum(|s| s.discoveries_started),
            sum(|s| s.hellos_sent),
            drops[DropReason::MacRetryLimit.index()],
            out.metrics.delivered,
        )
    };
    let mac = count(&grid(20.0));
    let hello = count(&grid(20.0).replace("kind = \"aodv\"", HELLO));
    eprintln!(
        "grid 20 s (link_breaks, discoveries, hellos, mac_retry_drops, delivered): \
         mac {mac:?} hello {hello:?}"
    );
    assert_eq!(mac.2, 0);
    assert!(hello.2 > 0);
    assert!(hello.0 < mac.0, "mac {mac:?} hello {hello:?}");
    assert!(hello.4 > 0);
}

#[test]
fn bad_hello_configurations_are_refused_with_the_keys_named() {
    let base = chain("kind = \"aodv\"");
    let with = |extra: &str| base.replace("kind = \"aodv\"", &format!("kind = \"aodv\"\n{extra}"));
    let e = errors(&with("link_detection = \"helo\""));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.link_detection") && m.contains("\"hello\"")),
        "{e:?}"
    );
    for bad in ["hello_interval = 0", "hello_interval = 3601"] {
        let e = errors(&with(bad));
        assert!(
            e.iter().any(|m| m.starts_with("routing.hello_interval")),
            "{bad}: {e:?}"
        );
    }
    for bad in ["allowed_hello_loss = 0", "allowed_hello_loss = 256"] {
        let e = errors(&with(bad));
        assert!(
            e.iter()
                .any(|m| m.starts_with("routing.allowed_hello_loss")),
            "{bad}: {e:?}"
        );
    }
    let e = errors(&base.replace(
        "kind = \"aodv\"",
        "kind = \"static\"\nlink_detection = \"hello\"",
    ));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.link_detection") && m.contains("aodv")),
        "{e:?}"
    );
    let e = errors(&base.replace(
        "kind = \"aodv\"",
        "kind = \"static\"\nallowed_hello_loss = 3",
    ));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.allowed_hello_loss") && m.contains("aodv")),
        "{e:?}"
    );
}

/// The summary of a run of `text` without its wall-clock fields.
fn summary(text: &str) -> Value {
    let mut v: Value = serde_json::from_str(&run_json(
        &toml_to_json(text).unwrap().to_string(),
        None,
        None,
    ))
    .unwrap();
    assert_eq!(v["ok"], true, "{v}");
    let m = v["summary"].as_object_mut().unwrap();
    m.remove("wall_seconds");
    m.remove("events_per_second");
    v["summary"].take()
}

#[test]
fn local_repair_repairs_relayed_routes_on_the_congested_grid() {
    let repair = grid(20.0).replace("kind = \"aodv\"", "kind = \"aodv\"\nlocal_repair = true");
    let on = run(&repair).outcome;
    let off = run(&grid(20.0)).outcome;
    assert!(on.conservation.holds(), "{:?}", on.conservation);
    let total = |o: &airqueue_sim::RunOutcome,
                 f: fn(&airqueue_sim::net::aodv::AodvStats) -> u64|
     -> u64 { aodv_stats(o).iter().map(f).sum() };
    let repairs = total(&on, |s| s.local_repairs);
    let failures = total(&on, |s| s.local_repair_failures);
    assert!(repairs >= 3, "{repairs} local repairs");
    assert!(failures < repairs, "{failures} of {repairs} repairs failed");
    assert_eq!(total(&off, |s| s.local_repairs), 0);
    // Relays that repair drop fewer packets with their broken links.
    let broken =
        |o: &airqueue_sim::RunOutcome| o.metrics.drops_by_reason()[DropReason::LinkBroken.index()];
    assert!(
        broken(&on) < broken(&off),
        "{} vs {}",
        broken(&on),
        broken(&off)
    );
    eprintln!(
        "grid 20 s local repair: repairs {repairs}, failed {failures}, link_broken drops {} (off {}), \
         delivered {} (off {}), route_discovery_failed {}",
        broken(&on),
        broken(&off),
        on.metrics.delivered,
        off.metrics.delivered,
        on.metrics.drops_by_reason()[DropReason::RouteDiscoveryFailed.index()],
    );
    // The summary reports the repairs, and the same file and seed give the same bits.
    let s = summary(&repair);
    assert_eq!(s["routing"]["local_repairs"], repairs);
    assert_eq!(s["routing"]["local_repair_failures"], failures);
    assert_eq!(s, summary(&repair));
}

#[test]
fn local_repair_off_reports_what_it_did_before() {
    let explicit = grid(10.0).replace("kind = \"aodv\"", "kind = \"aodv\"\nlocal_repair = false");
    let s = summary(&grid(10.0));
    assert_eq!(s, summary(&explicit));
    let routing = s["routing"].as_object().unwrap();
    assert!(
        !routing.contains_key("local_repairs") && !routing.contains_key("local_repair_failures")
    );
    let e = errors(&chain("kind = \"aodv\"\nlocal_repair = 1"));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.local_repair") && m.contains("true or false")),
        "{e:?}"
    );
    let e = errors(&chain("kind = \"static\"\nlocal_repair = true"));
    assert!(
        e.iter()
            .any(|m| m.starts_with("routing.local_repair") && m.contains("aodv")),
        "{e:?}"
    );
}
