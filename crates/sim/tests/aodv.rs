//! AODV (RFC 3561) in the world, where the scenario layer cannot go: a destination no
//! request reaches (validation rejects unreachable flows), so discovery fails and the
//! packets waiting for it leave by each of AODV's drop reasons.

mod common;

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::medium::wifi::WifiConfig;
use airqueue_sim::net::aodv::keys::SCHEME as AODV;
use airqueue_sim::net::aodv::AodvStats;
use airqueue_sim::net::registry::RoutingSetup;
use airqueue_sim::net::DropReason;
use airqueue_sim::{FlowKindConfig, RunOutcome, WorldConfig};
use common::{flow, run_twice_by, saturating_udp, wifi_world};

/// Nodes 0-1-2 in a chain 200 m apart and node 3 far away; flows from 0 to 3; AODV with
/// its defaults but for `keys` (`[routing]` names, values in the keys' units).
fn island(flows: Vec<airqueue_sim::FlowConfig>, keys: &[(&str, f64)], secs: u64) -> WorldConfig {
    let positions = vec![[0.0, 0.0], [200.0, 0.0], [400.0, 0.0], [5000.0, 0.0]];
    let mut params = AODV.defaults().expect("AODV's defaults pass its checks");
    for &(k, v) in keys {
        assert!(params.set(k, v), "AODV has no key {k}");
    }
    WorldConfig {
        routing_protocol: Some(RoutingSetup {
            scheme: &AODV,
            params,
            etx: false,
            neighbours: Vec::new(),
        }),
        ..wifi_world(
            WifiConfig::dsss_default(),
            positions,
            flows,
            Time::from_secs(secs),
            1,
        )
    }
}

/// Each node's AODV counters, read back from the run's routing report.
fn aodv_stats(out: &RunOutcome) -> Vec<AodvStats> {
    AodvStats::from_report(out.routing.as_ref().expect("AODV ran"))
}

/// 10 packets a second of 100 bytes from 0 to 3 during the first 5 s.
fn cbr_to_nowhere() -> Vec<airqueue_sim::FlowConfig> {
    vec![flow(
        0,
        3,
        100,
        FlowKindConfig::Udp(UdpRate::Cbr { rate_bps: 8000.0 }),
        Time::from_secs(5),
    )]
}

fn drops(out: &RunOutcome, r: DropReason) -> u64 {
    out.metrics.drops_by_reason()[r.index()]
}

fn key(o: &RunOutcome) -> (u64, Vec<u64>) {
    (o.events, o.metrics.drops_by_reason().to_vec())
}

#[test]
fn a_failed_discovery_drops_what_the_full_buffer_kept() {
    let out = run_twice_by(
        island(cbr_to_nowhere(), &[("buffer_capacity", 8.0)], 30),
        key,
    );
    let r = &aodv_stats(&out)[0];
    // Rings TTL 1, 3, 5, 7 (0.24 + 0.4 + 0.56 + 0.72 s), then network-wide requests
    // waiting 2.8, 5.6 and 11.2 s: the discovery fails at 21.52 s.
    assert_eq!((r.discoveries_started, r.discoveries_failed), (1, 1));
    assert_eq!(r.rreq_originated, 7);
    // Nodes 1 and 2 relay the rings that reach them; the island never hears.
    assert_eq!(aodv_stats(&out)[3].rreq_forwarded, 0);
    assert!(aodv_stats(&out)[1].rreq_forwarded >= 6);
    let sent = out.metrics.flows[0].packets_sent;
    assert_eq!(sent, 50);
    assert_eq!(drops(&out, DropReason::NoRouteBufferFull), sent - 8);
    assert_eq!(drops(&out, DropReason::RouteDiscoveryFailed), 8);
    assert_eq!(out.metrics.delivered, 0);
}

#[test]
fn packets_waiting_too_long_time_out() {
    let out = run_twice_by(
        island(cbr_to_nowhere(), &[("buffer_timeout", 1.0)], 30),
        key,
    );
    assert_eq!(drops(&out, DropReason::NoRouteTimeout), 50);
    assert_eq!(drops(&out, DropReason::NoRouteBufferFull), 0);
    assert_eq!(drops(&out, DropReason::RouteDiscoveryFailed), 0);
    assert_eq!(aodv_stats(&out)[0].discoveries_failed, 1);
}

#[test]
fn a_saturating_source_tries_again_after_a_failure() {
    let flows = vec![saturating_udp(0, 3, 100, Time::from_secs(50))];
    let out = run_twice_by(island(flows, &[], 50), key);
    let r = &aodv_stats(&out)[0];
    // Failures at 21.52 s and 43.04 s, each followed by a new packet and discovery.
    assert_eq!((r.discoveries_started, r.discoveries_failed), (3, 2));
    assert_eq!(out.metrics.flows[0].packets_sent, 3);
    assert_eq!(drops(&out, DropReason::RouteDiscoveryFailed), 2);
    assert_eq!(
        out.conservation.in_flight, 1,
        "the third packet still waits"
    );
}
