//! TCP over the wired stand-in medium: a bulk transfer fills a chain of point-to-point
//! links, a finite transfer completes exactly, and a stopped flow stops sending new data.

use airqueue_kernel::Time;
use airqueue_sim::{FlowConfig, FlowId, RunOutcome, TcpFlowConfig, TcpVariant, WorldConfig};

mod common;
use common::{events_and_delivered, run_twice_by, tcp_flow, tcp_stats, wired_chain};

const BANDWIDTH_BPS: f64 = 10e6;
const DELAY: Time = Time::from_millis(1);
const MSS: u32 = 1000;
/// IPv4 + TCP headers without options.
const IP_TCP: u32 = 40;

fn chain(nodes: u32, flows: Vec<FlowConfig>, duration: Time) -> WorldConfig {
    wired_chain(nodes, BANDWIDTH_BPS, DELAY, flows, duration)
}

fn tcp(cfg: TcpFlowConfig, dst: u32, stop: Time) -> FlowConfig {
    tcp_flow(0, dst, MSS, cfg, stop)
}

/// Runs twice, checks conservation and that both runs are identical.
#[track_caller]
fn run_twice(cfg: WorldConfig) -> RunOutcome {
    run_twice_by(cfg, events_and_delivered)
}

#[test]
fn bulk_transfer_fills_a_three_hop_chain() {
    let duration = Time::from_secs(20);
    // RTT about 3 x (2 ms + 0.83 ms) ~ 9 ms = 11 segments in flight at 10 Mb/s; a window
    // of 40 covers it without overflowing the 50-packet queues.
    for variant in [
        TcpVariant::NewReno,
        TcpVariant::Sack,
        TcpVariant::Cubic,
        TcpVariant::FEW,
    ] {
        let cfg = TcpFlowConfig {
            max_window: 40,
            ..TcpFlowConfig::new(variant)
        };
        let out = run_twice(chain(4, vec![tcp(cfg, 3, duration)], duration));
        let capacity = BANDWIDTH_BPS * MSS as f64 / (MSS + IP_TCP) as f64;
        let got = out.metrics.flows[0].goodput_bps();
        let t = tcp_stats(&out, 0);
        eprintln!(
            "{variant:?}: {got:.0} b/s of {capacity:.0} b/s ({:.2}%), srtt {:?}",
            100.0 * got / capacity,
            t.srtt
        );
        assert!(
            got > 0.98 * capacity && got <= capacity,
            "{got} vs {capacity}"
        );
        assert_eq!((t.retransmissions, t.timeouts), (0, 0));
        // srtt is the bare RTT plus the standing queue of (window - BDP) segments.
        assert!(t.srtt.unwrap() < Time::from_millis(60), "{:?}", t.srtt);
    }
}

#[test]
fn window_above_the_queue_overflows_and_recovers() {
    let duration = Time::from_secs(20);
    for variant in [TcpVariant::NewReno, TcpVariant::Sack] {
        let cfg = TcpFlowConfig {
            max_window: 200,
            ..TcpFlowConfig::new(variant)
        };
        let out = run_twice(chain(4, vec![tcp(cfg, 3, duration)], duration));
        let t = tcp_stats(&out, 0);
        let capacity = BANDWIDTH_BPS * MSS as f64 / (MSS + IP_TCP) as f64;
        let got = out.metrics.flows[0].goodput_bps();
        eprintln!(
            "{variant:?} window 200: {got:.0} b/s, fast retransmits {}, timeouts {}, \
             retransmissions {}",
            t.fast_retransmits, t.timeouts, t.retransmissions
        );
        assert!(t.fast_retransmits > 0, "{variant:?}");
        assert!(got > 0.9 * capacity, "{got} vs {capacity}");
        // Duplicates reach the receiver but goodput counts each segment once.
        let f = &out.metrics.flows[0];
        assert_eq!(f.packets_delivered, t.segments_delivered);
        assert!(f.packets_sent > f.packets_delivered);
    }
}

#[test]
fn finite_transfer_completes_and_stop_ends_new_data() {
    let duration = Time::from_secs(10);
    let finite = TcpFlowConfig {
        transfer_pkts: Some(500),
        ..TcpFlowConfig::default()
    };
    let out = run_twice(chain(3, vec![tcp(finite, 2, duration)], duration));
    let t = tcp_stats(&out, 0);
    assert_eq!(t.segments_delivered, 500);
    assert_eq!(out.metrics.flows[0].bytes_delivered, 500 * MSS as u64);
    assert_eq!(out.conservation.in_flight, 0);

    // A bulk flow stopped at 3 s: nothing is delivered after the last segments drain.
    let stopped = run_twice(chain(
        3,
        vec![tcp(TcpFlowConfig::default(), 2, Time::from_secs(3))],
        duration,
    ));
    let bins = stopped.traces.bin_bytes(FlowId(0));
    assert!(bins[..3].iter().all(|&b| b > 0), "{bins:?}");
    assert!(bins[4..].iter().all(|&b| b == 0), "{bins:?}");
    assert_eq!(stopped.conservation.in_flight, 0);
}
