//! Sources that refill their own queue (saturating UDP, MORE) sharing one node's FIFO:
//! a flow that starts while another holds every slot still gets its turn, and the
//! flows split the node's transmissions evenly.

mod common;
use common::goodputs;

/// Node 0 with two one-hop neighbours (50 m, 802.11b at 11 Mb/s) and a drop-tail FIFO
/// of 50; one flow of `kind` (with `extra` lines) to each neighbour, the first from
/// 0 s, the second from `second_start` s, both to the end of a `duration` s run;
/// goodput counts from 1 s (`warmup`).
fn two_flows_from_one_node(kind: &str, extra: &str, second_start: f64, duration: f64) -> String {
    let mut s = format!(
        "duration = {duration}\nwarmup = 1.0\nseed = 3\n[topology]\nkind = \"explicit\"\n\
         positions = [[0.0, 0.0], [50.0, 0.0], [0.0, 50.0]]\n\
         [queue]\nkind = \"droptail\"\ncapacity = 50\n"
    );
    for (dst, start) in [(1, 0.0), (2, second_start)] {
        s += &format!(
            "[[flow]]\nkind = \"{kind}\"\nsrc = 0\ndst = {dst}\nstart = {start}\n\
             packet_size = 1000\n{extra}\n"
        );
    }
    s
}

const SATURATE: &str = "rate = \"saturate\"";

#[test]
fn a_saturating_flow_started_behind_a_full_queue_gets_half_the_node() {
    // The first flow fills all 50 slots a second before the second starts.
    let both = two_flows_from_one_node("udp", SATURATE, 1.0, 11.0);
    let g = goodputs(&both);
    let (first, second) = (g[0], g[1]);
    assert!(second > 1e6, "the later flow sends: {g:?}");
    let ratio = second / first;
    assert!((0.95..=1.05).contains(&ratio), "an even split: {g:?}");
    // Together they carry what one saturated sender alone does.
    let alone = goodputs(&both[..both.rfind("[[flow]]").unwrap()]);
    let shared = first + second;
    assert!(
        (shared / alone[0] - 1.0).abs() < 0.02,
        "{shared} against {alone:?}"
    );
}

#[test]
fn three_saturating_flows_at_one_node_split_it_in_thirds() {
    let mut s = two_flows_from_one_node("udp", SATURATE, 0.5, 10.0);
    s = s.replace(
        "[50.0, 0.0], [0.0, 50.0]]",
        "[50.0, 0.0], [0.0, 50.0], [-50.0, 0.0]]",
    );
    s += "[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 3\nstart = 0.7\npacket_size = 1000\n\
          rate = \"saturate\"\n";
    let g = goodputs(&s);
    let mean = g.iter().sum::<f64>() / 3.0;
    for (i, x) in g.iter().enumerate() {
        assert!((x / mean - 1.0).abs() < 0.05, "flow {i}: {g:?}");
    }
}

#[test]
fn a_more_flow_started_behind_a_full_queue_decodes_batches() {
    let g = goodputs(&two_flows_from_one_node("more", "", 1.0, 11.0));
    assert!(g[1] > 0.0, "the later MORE flow decodes: {g:?}");
    let ratio = g[1] / g[0];
    assert!((0.8..=1.25).contains(&ratio), "a fair split: {g:?}");
}
