//! CoDel (RFC 8289) and FQ-CoDel (RFC 8290) on a wired bottleneck: 10 Mb/s, 20 ms each
//! way, five long TCP flows (windows up to 1000 packets, so a FIFO of 1000 fills) and a
//! 100 kb/s CBR flow of small packets, all through node 0's interface.

use airqueue_scenario::api::{run_value, Run};
use airqueue_scenario::parse::toml_to_json;
use airqueue_sim::net::DropReason;

const TARGET_S: f64 = 0.005;
const LINK_BPS: f64 = 10e6;
const ONE_WAY_S: f64 = 0.02;

fn bottleneck(queue: &str) -> Run {
    let flows = (0..5)
        .map(|_| "[[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 1\n")
        .collect::<String>();
    let text = format!(
        r#"
        duration = 30.0
        warmup = 5.0
        [topology]
        kind = "chain"
        nodes = 2
        spacing = 200.0
        [medium]
        kind = "wired"
        bandwidth = 10e6
        delay = 0.02
        [queue]
        {queue}
        [tcp]
        max_window = 1000
        {flows}
        [[flow]]
        kind = "udp"
        src = 0
        dst = 1
        rate = 100e3
        packet_size = 200
        "#
    );
    run_value(toml_to_json(&text).unwrap(), None, None).unwrap()
}

/// Mean of the per-bin mean sojourn at node 0 after the warmup.
fn mean_sojourn_s(run: &Run) -> f64 {
    let samples: Vec<f64> = (run.outcome.traces.queues.iter())
        .filter(|q| q.node.0 == 0 && q.at.as_secs_f64() > 5.0)
        .filter_map(|q| q.queue_delay_s)
        .collect();
    assert!(samples.len() >= 20);
    samples.iter().sum::<f64>() / samples.len() as f64
}

/// Share of the link's bit rate the TCP flows' packets (headers included) used.
fn tcp_utilisation(run: &Run) -> f64 {
    let flows = &run.outcome.metrics.flows;
    let tcp_wire_bps: f64 = flows[..5]
        .iter()
        .map(|f| f.goodput_bps() * 1040.0 / 1000.0)
        .sum();
    let udp_wire_bps = flows[5].goodput_bps() * 228.0 / 200.0;
    (tcp_wire_bps + udp_wire_bps) / LINK_BPS
}

/// The CBR flow's mean queueing delay: its mean delay less propagation and its own
/// serialisation.
fn cbr_queueing_s(run: &Run) -> f64 {
    let cbr = &run.outcome.metrics.flows[5];
    cbr.mean_delay_s().unwrap() - ONE_WAY_S - 228.0 * 8.0 / LINK_BPS
}

#[test]
fn codel_keeps_the_sojourn_near_target_at_full_utilisation() {
    let codel = bottleneck("kind = \"codel\"");
    let fifo = bottleneck("kind = \"droptail\"\ncapacity = 1000");
    assert!(codel.outcome.conservation.holds());
    let (sojourn, util) = (mean_sojourn_s(&codel), tcp_utilisation(&codel));
    // CoDel acts on the minimum over an interval, so the mean sits above target.
    assert!(sojourn > TARGET_S && sojourn < 2.5 * TARGET_S, "{sojourn}");
    assert!(util >= 0.95, "{util}");
    let aqm = DropReason::ALL
        .iter()
        .position(|r| *r == DropReason::Aqm)
        .unwrap();
    assert!(codel.outcome.metrics.drops_by_reason()[aqm] > 0);
    // The same load fills a 1000-packet FIFO: hundreds of ms of queue.
    assert!(cbr_queueing_s(&fifo) > 0.2, "{}", cbr_queueing_s(&fifo));
    assert!(tcp_utilisation(&fifo) >= 0.95);
}

#[test]
fn fq_codel_keeps_a_sparse_flow_s_delay_under_target_beside_saturating_tcp() {
    let fq = bottleneck("kind = \"fq_codel\"");
    let codel = bottleneck("kind = \"codel\"");
    assert!(fq.outcome.conservation.holds());
    // The CBR flow's queue is new at almost every packet: it goes ahead of the TCP
    // queues and waits at most for the packet on the wire.
    let sparse = cbr_queueing_s(&fq);
    assert!((0.0..0.2 * TARGET_S).contains(&sparse), "{sparse}");
    // Under one CoDel FIFO it waits behind the TCP flows' standing queue.
    assert!(
        cbr_queueing_s(&codel) > TARGET_S,
        "{}",
        cbr_queueing_s(&codel)
    );
    assert!(tcp_utilisation(&fq) >= 0.95);
    // The TCP flows share the link evenly.
    let tcp: Vec<f64> = fq.outcome.metrics.flows[..5]
        .iter()
        .map(|f| f.goodput_bps())
        .collect();
    let jain = tcp.iter().sum::<f64>().powi(2) / (5.0 * tcp.iter().map(|x| x * x).sum::<f64>());
    assert!(jain > 0.99, "{jain}");
}
