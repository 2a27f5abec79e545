//! Backpressure (seed 002) from scenario files: two TCP-SACK flows from one node in the
//! paper's tree topology under shortest-path drop-tail, classical backpressure and
//! TCP-aware backpressure; runs conserve packets and are deterministic.
//!
//! Seed 002's Fig. 5a is a picture the text does not describe; this reading of the tree
//! puts A at the root with children B and C, and D under C (B-A-C-D, 200 m apart, 250 m
//! radio range): flow 1 goes A -> B (one hop), flow 2 A -> D (two hops). 802.11b at
//! 2 Mb/s, 1000-byte packets, 100-packet buffers, loss-free links (section 5).

mod common;
use common::goodputs;

/// The `[queue]` lines for configured link weights and no control packets: section 4.1
/// without footnote 2's estimates and 4.1.2's control packets.
const ORACLE: &str = "link_estimate = \"configured\"\ncontrol_interval = 0";

/// The tree with `queue` as the `[queue]` table body, run for `duration` seconds.
fn tree(queue: &str, duration: f64) -> String {
    format!(
        r#"
        duration = {duration}
        seed = 1
        [topology]
        kind = "explicit"
        positions = [[0.0, 0.0], [-200.0, 0.0], [200.0, 0.0], [400.0, 0.0]]
        [radio]
        data_rate = 2e6
        basic_rate = 1e6
        [queue]
        {queue}
        [[flow]]
        kind = "tcp"
        variant = "sack"
        src = 0
        dst = 1
        packet_size = 1000
        [[flow]]
        kind = "tcp"
        variant = "sack"
        src = 0
        dst = 3
        packet_size = 1000
        start = 0.5
        "#
    )
}

/// Seed 002's Example 2 (section 3) with eq. (2)'s differentials, configured link weights
/// and no control packets (`ORACLE`): the paper's direction holds (classical starves flow
/// 2, TCP-aware keeps it alive, the queue-blind drop-tail baseline serves both). The
/// paper's even split is not reached: the one-hop flow's queue at A grows past
/// `K = 100 / 2` and then wins every slot, and the 100-packet buffer never overflows to
/// push it back down. So only the direction is asserted, with margins that hold over
/// several seeds; the split under the schema's defaults is `airqueue reproduce
/// bp-tcp-aware`'s (docs/reproductions/backpressure.md).
#[test]
fn classical_backpressure_starves_the_two_hop_flow_and_tcp_aware_keeps_it() {
    let droptail = goodputs(&tree("kind = \"droptail\"\ncapacity = 100", 200.0));
    let classical = goodputs(&tree(
        &format!("kind = \"backpressure\"\nvariant = \"classical\"\n{ORACLE}"),
        200.0,
    ));
    let tcp_aware = goodputs(&tree(&format!("kind = \"backpressure\"\n{ORACLE}"), 200.0));
    // Shortest-path drop-tail serves both flows.
    assert!(droptail.iter().all(|g| *g > 300e3), "{droptail:?}");
    // Classical: flow 2 is starved while flow 1 runs.
    assert!(
        classical[1] < 1e3 && classical[0] > 500e3,
        "classical {classical:?}"
    );
    // TCP-aware: flow 2 survives and flow 1 still runs.
    assert!(
        tcp_aware[1] > 10e3 && tcp_aware[0] > 500e3,
        "tcp-aware {tcp_aware:?}"
    );
}

/// One TCP-SACK flow S -> D over a direct 200 m link that loses `loss` of its frames,
/// with two loss-free relays beside it (each 180 m from both ends): the situation of
/// `bp-grid`'s probe. `queue_extra` is added to the backpressure `[queue]`.
fn lossy_direct_link(loss: f64, queue_extra: &str, duration: f64) -> String {
    format!(
        r#"
        duration = {duration}
        seed = 1
        [topology]
        kind = "explicit"
        positions = [[0.0, 0.0], [200.0, 0.0], [100.0, 150.0], [100.0, -150.0]]
        [radio]
        data_rate = 2e6
        basic_rate = 1e6
        [queue]
        kind = "backpressure"
        {queue_extra}
        [[link]]
        a = 0
        b = 1
        loss = {loss}
        [[flow]]
        kind = "tcp"
        variant = "sack"
        src = 0
        dst = 1
        packet_size = 1000
        "#
    )
}

/// What the measured estimates change: with configured weights a 1% loss is enough to
/// lose the direct link (`0.99 K R` of the destination loses to `K R` of every empty
/// relay, so the flow detours over two hops); measured estimates keep it, counting
/// packets (the default) or frame attempts alike. Per attempt, the direct link's `p~`
/// counts its failed attempts (erasures and collisions); per packet, only the packets
/// the MAC gave up on, none here. In both, an
/// idle relay link, without attempts of its own, counts as the node's links on average
/// (`estimate.rs`), which here is the direct link itself: the tie goes to the routing
/// next hop, the direct link. Runs conserve packets and are deterministic (`goodputs`).
#[test]
fn measured_estimates_keep_a_slightly_lossy_direct_link() {
    let configured = goodputs(&lossy_direct_link(
        0.01,
        "link_estimate = \"configured\"",
        60.0,
    ));
    let measured = goodputs(&lossy_direct_link(
        0.01,
        "link_estimate = \"measured\"",
        60.0,
    ));
    let attempts = goodputs(&lossy_direct_link(
        0.01,
        "link_estimate = \"measured\"\nloss_count = \"attempts\"",
        60.0,
    ));
    let clean = goodputs(&lossy_direct_link(0.0, "", 60.0));
    eprintln!(
        "1% loss on the direct link, b/s: configured {configured:?}, measured per packet \
         {measured:?}, per attempt {attempts:?}; no loss {clean:?}"
    );
    assert!(
        attempts[0] > configured[0],
        "attempts {attempts:?} configured {configured:?}"
    );
    assert!(
        measured[0] > configured[0],
        "measured {measured:?} configured {configured:?}"
    );
    assert!(
        clean[0] >= measured[0],
        "clean {clean:?} measured {measured:?}"
    );
}

/// Section 4.1.2's control packets: a saturating source always has data for its MAC and
/// sends none; a source that stops goes idle with a queue that just emptied and
/// announces the zero, then falls silent once nothing it held is recent. Off with
/// `control_interval = 0`.
#[test]
fn control_packets_only_when_idle() {
    use airqueue_scenario::api::run_value;
    use airqueue_scenario::parse::toml_to_json;
    let one_hop = |flow: &str, queue: &str| {
        let text = format!(
            "duration = 2.0\nseed = 1\n[topology]\nkind = \"chain\"\nnodes = 2\n\
             spacing = 200.0\n[queue]\nkind = \"backpressure\"\n{queue}\n[[flow]]\nkind = \"udp\"\nsrc = 0\n\
             dst = 1\nrate = \"saturate\"\npacket_size = 1000\n{flow}\n"
        );
        let run = run_value(toml_to_json(&text).unwrap(), None, None).unwrap();
        assert!(run.outcome.conservation.holds());
        run.outcome.queue_control
    };
    let busy = one_hop("", "");
    assert_eq!(busy[0].sent, 0, "{busy:?}");
    assert_eq!(busy[1].sent, 0, "the destination holds nothing: {busy:?}");
    let stops = one_hop("stop = 1.0", "");
    // Idle from about 1.0 s: its zero goes out within a report lifetime (50 ms, every
    // 25 ms less jitter), then nothing.
    assert!((1..=4).contains(&stops[0].sent), "{stops:?}");
    assert_eq!(stops[1].received, stops[0].sent, "{stops:?}");
    assert!(one_hop("stop = 1.0", "control_interval = 0").is_empty());
}

/// `control_when = "changed"` (4.1.2 read as "send when there is news"): a slow flow over
/// a relay empties every queue between packets, and each frame that empties one reports
/// its zero, so no control packet repeats it; the default repeats the zeros while they
/// are recent. Both deliver the same packets.
#[test]
fn control_packets_on_change_only_skip_what_the_last_report_told() {
    use airqueue_scenario::api::run_value;
    use airqueue_scenario::parse::toml_to_json;
    let relayed = |queue: &str| {
        let text = format!(
            "duration = 5.0\nseed = 1\n[topology]\nkind = \"chain\"\nnodes = 3\n\
             spacing = 200.0\n[queue]\nkind = \"backpressure\"\n{queue}\n[[flow]]\n\
             kind = \"udp\"\nsrc = 0\ndst = 2\nrate = 4e4\npacket_size = 1000\n"
        );
        let run = run_value(toml_to_json(&text).unwrap(), None, None).unwrap();
        assert!(run.outcome.conservation.holds());
        let delivered = run.outcome.metrics.flows[0].packets_delivered;
        let sent: u64 = run.outcome.queue_control.iter().map(|s| s.sent).sum();
        (delivered, sent)
    };
    let (idle_delivered, idle_sent) = relayed("");
    let (changed_delivered, changed_sent) = relayed("control_when = \"changed\"");
    assert!(idle_delivered > 20, "{idle_delivered}");
    assert_eq!(changed_delivered, idle_delivered);
    assert!(idle_sent >= idle_delivered, "{idle_sent} {idle_delivered}");
    assert_eq!(changed_sent, 0);
}

/// Footnote 5 ("a node does not transmit packets to a next hop if there is possibility
/// of overflow in the next hop"): two saturating UDP sources, 0 and 1, share relay 2
/// towards 3 over a link losing half its frames (both ways). Each source's own backlog
/// difference `max(K, U_i) - U_2` stays positive while 2 holds fewer than 100 packets of
/// *its* flow, so without the rule the relay's buffer of 100 overflows. With it (the
/// default) the sources count 2's reports of both flows and overflow it less, but not
/// never: 2 seldom gets a frame through, its reports expire after `report_lifetime`, and
/// neither source sees what the other handed it since.
#[test]
fn footnote_5_cuts_a_shared_relay_s_overflows() {
    use airqueue_scenario::api::run_value;
    use airqueue_scenario::parse::toml_to_json;
    use airqueue_sim::net::DropReason;
    let overflows = |extra: &str| {
        let mut text = format!(
            "duration = 10.0\nseed = 1\n[topology]\nkind = \"explicit\"\n\
             positions = [[-200.0, 0.0], [0.0, 200.0], [0.0, 0.0], [200.0, 0.0]]\n\
             [radio]\ndata_rate = 2e6\nbasic_rate = 1e6\n\
             [[link]]\na = 2\nb = 3\nloss = 0.5\n\
             [queue]\nkind = \"backpressure\"\n{extra}\n"
        );
        for src in [0, 1] {
            text += &format!(
                "[[flow]]\nkind = \"udp\"\nsrc = {src}\ndst = 3\nrate = \"saturate\"\n\
                 packet_size = 1000\n"
            );
        }
        let run = run_value(toml_to_json(&text).unwrap(), None, None).unwrap();
        assert!(run.outcome.conservation.holds());
        let mut relay = 0;
        for (k, n) in &run.outcome.metrics.flow_drops {
            if k.reason == DropReason::QueueOverflow && !k.at_origin {
                assert_eq!(k.node.index(), 2, "only 2 relays");
                relay += n;
            }
        }
        let delivered: Vec<u64> = (run.outcome.metrics.flows.iter())
            .map(|f| f.packets_delivered)
            .collect();
        (relay, delivered)
    };
    let (without, delivered_without) = overflows("avoid_overflow = false");
    let (with, delivered_with) = overflows("");
    assert!(
        without > 100,
        "the relay overflows without the rule: {without}"
    );
    assert!(with * 5 < without * 4, "{with} against {without}");
    assert!(with > 0, "stale reports still let it overflow");
    for d in [&delivered_without, &delivered_with] {
        assert!(d.iter().all(|&n| n > 10), "both flows get through: {d:?}");
    }
}
