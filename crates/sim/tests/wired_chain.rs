//! Validation ladder step 1 on the wired stand-in: a UDP flow over a chain of
//! point-to-point links gets exactly the analytic goodput.

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::{FlowConfig, FlowKindConfig, RunOutcome, World};

mod common;
use common::{flow, wired_chain};

const BANDWIDTH_BPS: f64 = 11e6;
const DELAY: Time = Time::from_micros(100);
const HEADERS_BYTES: u32 = 28; // IPv4 20 + UDP 8

fn chain(nodes: u32, flows: Vec<FlowConfig>, duration: Time) -> RunOutcome {
    World::new(wired_chain(nodes, BANDWIDTH_BPS, DELAY, flows, duration)).run()
}

fn udp(src: u32, dst: u32, rate: UdpRate, payload: u32, start: Time, stop: Time) -> FlowConfig {
    FlowConfig {
        start,
        ..flow(src, dst, payload, FlowKindConfig::Udp(rate), stop)
    }
}

#[test]
fn saturating_flow_gets_payload_share_of_link_rate_on_every_hop_count() {
    let payload = 1000;
    let start = Time::from_secs(1);
    let duration = Time::from_secs(30);
    let tx = Time::for_bits(((payload + HEADERS_BYTES) * 8) as u64, BANDWIDTH_BPS);
    for hops in 1..=6u32 {
        let out = chain(
            hops + 1,
            vec![udp(0, hops, UdpRate::Saturate, payload, start, duration)],
            duration,
        );
        let f = &out.metrics.flows[0];
        // Packet k leaves node 0 at start + (k+1) tx; store-and-forward adds tx + delay per
        // further hop and never queues (each relay finishes the previous packet exactly
        // when the next arrives), so it reaches the sink at start + (k+hops) tx + hops delay.
        let last_ok =
            (duration - start - DELAY.times(hops as u64)).as_nanos() / tx.as_nanos() - hops as u64;
        assert_eq!(f.packets_delivered, last_ok + 1, "hops {hops}");
        let analytic = BANDWIDTH_BPS * payload as f64 / (payload + HEADERS_BYTES) as f64;
        let rel = (f.goodput_bps() - analytic).abs() / analytic;
        // Only the pipeline fill of `hops` packets separates the two: < 0.05% over 29 s.
        assert!(
            rel < 5e-4,
            "hops {hops}: {} vs {analytic} ({rel})",
            f.goodput_bps()
        );
        assert!(out.conservation.holds(), "{:?}", out.conservation);
        assert_eq!(
            out.metrics.dropped, 0,
            "a saturating source never overflows its own queue"
        );
    }
}

#[test]
fn cbr_flow_below_capacity_gets_exactly_its_offered_rate() {
    let out = chain(
        5,
        vec![udp(
            0,
            4,
            UdpRate::Cbr { rate_bps: 2e6 },
            500,
            Time::from_secs(5),
            Time::from_secs(50),
        )],
        Time::from_secs(60),
    );
    let f = &out.metrics.flows[0];
    assert_eq!(f.packets_sent, 22_500); // 45 s at one 500-byte packet per 2 ms
    assert_eq!(f.packets_delivered, 22_500);
    assert_eq!(f.goodput_bps(), 2e6);
    // Unloaded path: 4 x (serialisation of 528 bytes + 100 us).
    let per_hop = Time::for_bits(528 * 8, BANDWIDTH_BPS) + DELAY;
    assert!((f.mean_delay_s().unwrap() - per_hop.times(4).as_secs_f64()).abs() < 1e-9);
    assert!(out.conservation.holds());
}

#[test]
fn overload_drops_at_the_bottleneck_and_conserves_packets() {
    // Two saturating flows share link 1->2; the relay's queue overflows.
    let d = Time::from_secs(10);
    let out = chain(
        4,
        vec![
            udp(0, 3, UdpRate::Saturate, 1000, Time::ZERO, d),
            udp(1, 3, UdpRate::Saturate, 1000, Time::ZERO, d),
        ],
        d,
    );
    let c = out.conservation;
    assert!(c.holds(), "{c:?}");
    assert!(c.in_flight > 0);
    assert!(
        out.metrics.drops[1][0] > 0,
        "node 1 drops on overflow: {:?}",
        out.metrics.drops
    );
    let total: f64 = out.metrics.flows.iter().map(|f| f.goodput_bps()).sum();
    let cap = BANDWIDTH_BPS * 1000.0 / 1028.0;
    assert!(
        total <= cap * 1.0001 && total > cap * 0.99,
        "{total} vs {cap}"
    );
}

#[test]
fn same_config_same_result() {
    let run = || {
        let out = chain(
            4,
            vec![udp(
                0,
                3,
                UdpRate::Cbr { rate_bps: 9e6 },
                700,
                Time::ZERO,
                Time::from_secs(5),
            )],
            Time::from_secs(5),
        );
        (
            out.events,
            out.metrics.flows[0].packets_delivered,
            out.metrics.flows[0].delay_sum_ns,
        )
    };
    assert_eq!(run(), run());
}
