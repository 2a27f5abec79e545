//! TFRC (RFC 5348) and TFRC-ECN (seed 000's baseline) over the 802.11 medium: one hop
//! against saturating UDP, a 3-hop chain with and without ECN marking at the drop-tail
//! queues, determinism and packet conservation.

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::medium::wifi::WifiConfig;
use airqueue_sim::net::DropReason;
use airqueue_sim::qdisc::droptail;
use airqueue_sim::{FlowConfig, FlowId, FlowKindConfig, RunOutcome, TfrcFlowConfig, TfrcFlowStats};

mod common;
use common::{
    chain_positions, events_and_delivered, flow, run_twice_by, saturating_udp, tfrc_stats,
    wifi_world,
};

const PAYLOAD: u32 = 1000;
const SPACING_M: f64 = 200.0;

fn tfrc(src: u32, dst: u32, ecn: bool, stop: Time) -> FlowConfig {
    flow(
        src,
        dst,
        PAYLOAD,
        FlowKindConfig::Tfrc(TfrcFlowConfig { ecn }),
        stop,
    )
}

fn chain(
    nodes: u32,
    flows: Vec<FlowConfig>,
    duration: Time,
    ecn_mark_fraction: Option<f64>,
) -> airqueue_sim::WorldConfig {
    let positions = chain_positions(nodes, SPACING_M);
    let mut cfg = wifi_world(WifiConfig::dsss_default(), positions, flows, duration, 1);
    cfg.qdisc = droptail::config(50, ecn_mark_fraction);
    cfg
}

fn key(o: &RunOutcome) -> ((u64, Vec<u64>), Vec<u64>) {
    let sent = o.metrics.flows.iter().map(|f| f.packets_sent).collect();
    (events_and_delivered(o), sent)
}

fn overflows(o: &RunOutcome) -> u64 {
    o.metrics
        .drops
        .iter()
        .map(|d| d[DropReason::QueueOverflow as usize])
        .sum()
}

#[test]
fn one_hop_tfrc_gets_a_sizeable_share_of_udp_saturation() {
    let duration = Time::from_secs(30);
    let udp = run_twice_by(
        chain(
            2,
            vec![saturating_udp(0, 1, PAYLOAD, duration)],
            duration,
            None,
        ),
        key,
    );
    let udp_bps = udp.metrics.flows[0].goodput_bps();
    let out = run_twice_by(
        chain(2, vec![tfrc(0, 1, false, duration)], duration, None),
        key,
    );
    let got = out.metrics.flows[0].goodput_bps();
    let t = tfrc_stats(&out, 0);
    eprintln!(
        "one hop: TFRC {got:.0} b/s, UDP saturation {udp_bps:.0} b/s ({:.1}%); \
         X = {:.0} B/s, p = {:.5}, R = {:?}, loss events {}, feedback {}/{}",
        100.0 * got / udp_bps,
        t.rate_bytes_per_s,
        t.p,
        t.rtt_s,
        t.receiver.loss_events,
        t.packets.feedback_arrived,
        t.packets.feedback_created,
    );
    assert!(got > 0.6 * udp_bps, "{got} vs {udp_bps}");
    // No collapse: the second half delivers about as much as the first.
    let bins = &out.traces.bin_bytes(FlowId(0));
    let (a, b): (u64, u64) = (bins[5..15].iter().sum(), bins[15..30].iter().sum());
    assert!(b as f64 > 0.6 * a as f64 * 1.5, "first {a} B, second {b} B");
    // Feedback travels as real packets, about one per RTT.
    assert!(t.packets.feedback_arrived > 10);
    assert_eq!(t.sender.feedbacks, t.packets.feedback_arrived);
}

/// Steady-state queue-overflow drops: the drops of a run to `duration` minus those of
/// the same run cut at `warmup` (runs are deterministic, so the two share their prefix).
fn steady_overflows(nodes: u32, ecn: bool, mark: Option<f64>, warmup: Time, end: Time) -> u64 {
    let early = run_twice_by(
        chain(nodes, vec![tfrc(0, nodes - 1, ecn, end)], warmup, mark),
        key,
    );
    let full = run_twice_by(
        chain(nodes, vec![tfrc(0, nodes - 1, ecn, end)], end, mark),
        key,
    );
    overflows(&full) - overflows(&early)
}

#[test]
fn tfrc_ecn_keeps_chain_queues_below_capacity() {
    let (warmup, end) = (Time::from_secs(10), Time::from_secs(40));
    let ecn = run_twice_by(chain(4, vec![tfrc(0, 3, true, end)], end, Some(0.75)), key);
    let loss = run_twice_by(chain(4, vec![tfrc(0, 3, false, end)], end, None), key);
    let (te, tl) = (tfrc_stats(&ecn, 0), tfrc_stats(&loss, 0));
    let ecn_steady = steady_overflows(4, true, Some(0.75), warmup, end);
    let loss_steady = steady_overflows(4, false, None, warmup, end);
    let max_q = |o: &RunOutcome| {
        o.traces
            .queues
            .iter()
            .filter(|s| s.at >= warmup)
            .map(|s| s.len_pkts)
            .max()
            .unwrap_or(0)
    };
    eprintln!(
        "3 hops: TFRC-ECN {:.0} b/s, {} overflows ({} after {warmup:?}), marks {}, events {}, \
         p {:.5}, max sampled queue {}; TFRC {:.0} b/s, {} overflows ({} after), events {}, \
         p {:.5}, max sampled queue {}",
        ecn.metrics.flows[0].goodput_bps(),
        overflows(&ecn),
        ecn_steady,
        te.receiver.ce_received,
        te.receiver.loss_events,
        te.p,
        max_q(&ecn),
        loss.metrics.flows[0].goodput_bps(),
        overflows(&loss),
        loss_steady,
        tl.receiver.loss_events,
        tl.p,
        max_q(&loss),
    );
    assert!(te.receiver.ce_received > 0);
    assert!(te.receiver.loss_events > 0);
    // Marking at 75% of the queue leaves 12 packets of headroom; the sender learns of a
    // mark only when the receiver's feedback returns, and marks within one round trip
    // count as one loss event (RFC 5348 5.2, 6.1), so a burst can still overflow now and
    // then: ECN lowers the steady-state overflows without removing them.
    assert!(
        ecn_steady < loss_steady,
        "TFRC-ECN: {ecn_steady} steady-state overflows, loss-based TFRC {loss_steady}"
    );
    assert!(max_q(&ecn) < 50);
    assert!(loss_steady > 0, "loss-based TFRC should fill the queue");
    assert!(ecn.metrics.flows[0].goodput_bps() > 0.0);
}

#[test]
fn tfrc_conserves_packets_and_is_deterministic_with_cross_traffic() {
    let duration = Time::from_secs(10);
    let flows = vec![
        tfrc(0, 2, false, duration),
        tfrc(2, 0, true, duration),
        flow(
            1,
            2,
            PAYLOAD,
            FlowKindConfig::Udp(UdpRate::Cbr { rate_bps: 1e6 }),
            Time::from_secs(5),
        ),
    ];
    let out = run_twice_by(chain(3, flows, duration, Some(0.75)), key);
    for f in 0..2 {
        let t = tfrc_stats(&out, f);
        let c = t.packets;
        assert!(c.data_created >= c.data_arrived && c.feedback_created >= c.feedback_arrived);
        assert_eq!(out.metrics.flows[f].packets_sent, c.data_created);
        assert_eq!(out.metrics.flows[f].packets_delivered, c.data_arrived);
        assert!(c.data_arrived > 0, "flow {f}: {t:?}");
    }
    let tcp_rows = &out.transports.table("tcp").expect("declared").rows;
    assert!(out.transports.stats::<TfrcFlowStats>(FlowId(2)).is_none() && tcp_rows.is_empty());
}
