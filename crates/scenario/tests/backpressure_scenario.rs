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

/// Measured with seeds 1-5 over 200 s (goodput in kb/s, flow 1 / flow 2): drop-tail
/// 509-550 / 385-403; classical backpressure 1231-1234 / 0-0.3; TCP-aware backpressure
/// 1054-1142 / 33-66. The paper's direction holds (classical starves flow 2, TCP-aware
/// keeps it alive, the queue-blind baseline serves both), but TCP-aware is far from the
/// paper's even split (205.76 / 203.36 kb/s): the one-hop flow's queue at A grows past
/// `K = 100 / 2` and then wins every slot, and the 100-packet buffer never overflows to
/// push it back down. Only the direction is asserted, with margins the five seeds keep.
#[test]
fn classical_backpressure_starves_the_two_hop_flow_and_tcp_aware_keeps_it() {
    let droptail = goodputs(&tree("kind = \"droptail\"\ncapacity = 100", 200.0));
    let classical = goodputs(&tree(
        "kind = \"backpressure\"\nvariant = \"classical\"",
        200.0,
    ));
    let tcp_aware = goodputs(&tree("kind = \"backpressure\"", 200.0));
    // Shortest-path drop-tail serves both flows.
    assert!(droptail.iter().all(|g| *g > 300e3), "{droptail:?}");
    // Classical: flow 2 is starved (under 1 kb/s) while flow 1 runs.
    assert!(
        classical[1] < 1e3 && classical[0] > 500e3,
        "classical {classical:?}"
    );
    // TCP-aware: flow 2 survives (over 10 kb/s) and flow 1 still runs.
    assert!(
        tcp_aware[1] > 10e3 && tcp_aware[0] > 500e3,
        "tcp-aware {tcp_aware:?}"
    );
}
