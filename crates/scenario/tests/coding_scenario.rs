//! The network-coding layer of seed 002 (4.1.3, 4.2.1) under TCP-SACK, from scenario
//! files: what it costs on a clean path, that it masks losses in the network from TCP,
//! and that it shows TCP the congestion drops at the source.

mod common;
use common::goodputs;

use airqueue_scenario::api::{run_value, Run};
use airqueue_scenario::parse::toml_to_json;
use airqueue_sim::{FlowId, TcpFlowStats};

/// A 3-hop 802.11b chain (200 m apart, 2 Mb/s) with one TCP-SACK flow 0 -> 3 for 60 s;
/// `extra` is added at the top level (`[tcp]`, `[mac]`, `[queue]`, `[[link]]`).
fn chain(extra: &str) -> String {
    format!(
        "duration = 60.0\nseed = 1\n[topology]\nkind = \"chain\"\nnodes = 4\n\
         spacing = 200.0\n[radio]\ndata_rate = 2e6\nbasic_rate = 1e6\n{extra}\n\
         [[flow]]\nkind = \"tcp\"\nvariant = \"sack\"\nsrc = 0\ndst = 3\npacket_size = 1000\n"
    )
}

const CODED: &str = "[tcp]\nnetwork_coding = true\n";

/// Goodput (bit/s, conservation and determinism checked) and TCP trace of a run.
fn run(text: &str) -> (f64, TcpFlowStats) {
    let g = goodputs(text)[0];
    let r: Run = run_value(toml_to_json(text).unwrap(), None, None).unwrap();
    let t = r.outcome.transports.stats::<TcpFlowStats>(FlowId(0));
    (g, t.expect("a TCP flow").clone())
}

/// On a loss-free chain the layer costs only its bytes: the coding header and one
/// coefficient byte per combined packet (8 + 16.5 bytes on average with 32-packet
/// blocks, 2.4% of a 1040-byte packet). Every block decodes; nothing is repaired
/// beyond the odd collision loss.
#[test]
fn coding_costs_its_header_bytes_on_a_clean_chain() {
    let (plain, _) = run(&chain("[queue]\nkind = \"droptail\"\ncapacity = 100\n"));
    let (coded, t) = run(&chain(&format!(
        "{CODED}[queue]\nkind = \"droptail\"\ncapacity = 100\n"
    )));
    let ratio = coded / plain;
    assert!((0.93..=1.0).contains(&ratio), "{coded} / {plain} = {ratio}");
    let c = t.coding.expect("coding stats");
    assert_eq!(t.segments_delivered, c.blocks_decoded * 32);
    assert!(c.blocks_decoded > 50, "{c:?}");
    assert!(
        c.repair_packets <= 5 && c.redundant_packets <= c.repair_packets,
        "{c:?}"
    );
    assert_eq!(c.unmasked_losses, 0);
}

/// A lossy link with a 2-attempt MAC loses about a quarter of the frames crossing it
/// (`1 - 0.7^2` per attempt, data or its MAC ACK, twice). Plain TCP takes each loss as
/// congestion and times out often; under coding the decoder's ACKs keep TCP's window
/// moving and the repairs refill the blocks (section 4.1.3: coding "masks wireless
/// losses"). The window is 8 segments so that the relays' queues never overflow: the
/// losses are the channel's, not congestion.
#[test]
fn coding_masks_losses_in_the_network_from_tcp() {
    let lossy = "[mac]\nshort_retry_limit = 2\n[[link]]\na = 1\nb = 2\nloss = 0.3\n";
    let (plain, tp) = run(&chain(&format!("[tcp]\nmax_window = 8\n{lossy}")));
    let (coded, tc) = run(&chain(&format!(
        "[tcp]\nnetwork_coding = true\nmax_window = 8\n{lossy}"
    )));
    assert!(coded > 1.5 * plain, "coded {coded} plain {plain}");
    assert!(
        tc.timeouts * 5 < tp.timeouts,
        "{} vs {}",
        tc.timeouts,
        tp.timeouts
    );
    let c = tc.coding.expect("coding stats");
    assert!(
        c.repair_requests > 0 && c.repair_packets >= c.repair_requests,
        "{c:?}"
    );
    assert_eq!(c.unmasked_losses, 0, "no queue drops at the source");
}

/// Section 4.2.1: a drop in the source's own queue is not masked. With 5-packet
/// queues the source overflows; TCP sees each such drop as duplicate ACKs (fast
/// retransmit, as without coding) and keeps its goodput.
#[test]
fn drops_at_the_source_reach_tcp() {
    let small = "[queue]\nkind = \"droptail\"\ncapacity = 5\n";
    let (plain, tp) = run(&chain(small));
    let (coded, tc) = run(&chain(&format!("{CODED}{small}")));
    let c = tc.coding.expect("coding stats");
    assert!(c.unmasked_losses > 50, "{c:?}");
    assert!(tc.fast_retransmits > 50, "{}", tc.fast_retransmits);
    assert!(tp.fast_retransmits > 50, "{}", tp.fast_retransmits);
    assert!(coded > 0.9 * plain, "coded {coded} plain {plain}");
}

/// A finite transfer (100 segments, blocks of 32) is delivered whole: its last block
/// holds the 4 segments left and decodes like the others.
#[test]
fn a_finite_transfer_is_delivered_whole() {
    let text = chain(CODED).replace(
        "packet_size = 1000\n",
        "packet_size = 1000\npackets = 100\n",
    );
    let (_, t) = run(&text);
    assert_eq!(t.segments_delivered, 100);
    assert_eq!(t.coding.expect("coding stats").blocks_decoded, 4);
}
