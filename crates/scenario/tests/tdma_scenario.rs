//! The TDMA MAC (seed 001, section 3.3) end to end: a saturated chain gets exactly one
//! frame per node per round, a grid with TCP, UDP and AODV conserves packets and
//! repeats itself, and coded TCP, whose packets fill the slot, runs.

mod common;

use airqueue_phy::{frame_duration, DsssRate, Preamble};
use airqueue_scenario::api::run_value;
use airqueue_scenario::parse::toml_to_json;
use common::goodputs;

#[test]
fn a_saturated_chain_moves_one_packet_per_round_of_slots() {
    // Three nodes in a line, each hearing only its neighbours: the source and the relay
    // each own one slot of three, so the flow gets one 1000-byte packet per round.
    let text = "duration = 10.0\nwarmup = 1.0\n\
        [topology]\nkind = \"chain\"\nnodes = 3\nspacing = 200.0\n\
        [mac]\nkind = \"tdma\"\n\
        [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\npacket_size = 1000\nrate = 5e6\n";
    let g = goodputs(text);
    // The slot: DATA with 1000 + 80 bytes of IP packet and 36 of MAC framing at 11 Mb/s,
    // SIFS, then the ACK at 1 Mb/s (14 bytes).
    let slot = frame_duration(1000 + 80 + 36, DsssRate::Mbps11, Preamble::Long).as_secs_f64()
        + 10e-6
        + frame_duration(14, DsssRate::Mbps1, Preamble::Long).as_secs_f64();
    let expected = 1000.0 * 8.0 / (3.0 * slot);
    assert!(
        (g[0] - expected).abs() < 0.01 * expected,
        "goodput {} b/s, one packet per round gives {expected}",
        g[0]
    );
}

#[test]
fn a_node_given_two_slots_per_round_sends_twice_per_round() {
    // `mac.tdma_slots` (a counterfactual schedule): node 0 owns two slots of a round of
    // four, so its saturated one-hop flow gets two packets per round.
    let text = "duration = 10.0\nwarmup = 1.0\n\
        [topology]\nkind = \"chain\"\nnodes = 3\nspacing = 200.0\n\
        [mac]\nkind = \"tdma\"\ntdma_slots = [[0, 2]]\n\
        [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 1\npacket_size = 1000\nrate = 5e6\n";
    let g = goodputs(text);
    let slot = frame_duration(1000 + 80 + 36, DsssRate::Mbps11, Preamble::Long).as_secs_f64()
        + 10e-6
        + frame_duration(14, DsssRate::Mbps1, Preamble::Long).as_secs_f64();
    let expected = 2.0 * 1000.0 * 8.0 / (4.0 * slot);
    assert!(
        (g[0] - expected).abs() < 0.01 * expected,
        "goodput {} b/s, two packets per round of four slots give {expected}",
        g[0]
    );
}

#[test]
fn a_grid_with_tcp_udp_and_aodv_conserves_packets_and_repeats() {
    let text = "duration = 20.0\n\
        [topology]\nkind = \"grid\"\nrows = 3\ncols = 3\nspacing = 200.0\n\
        [radio]\ndata_rate = 2e6\nbasic_rate = 1e6\n\
        [mac]\nkind = \"tdma\"\nshort_retry_limit = 4\n\
        [routing]\nkind = \"aodv\"\n\
        [queue]\nkind = \"fq\"\nclassify = \"source\"\n\
        [[link]]\na = 1\nb = 4\nloss = 0.2\n[[link]]\na = 3\nb = 4\nloss = 0.2\n\
        [[link]]\na = 5\nb = 4\nloss = 0.2\n[[link]]\na = 7\nb = 4\nloss = 0.2\n\
        [[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 4\npacket_size = 1460\n\
        [[flow]]\nkind = \"tcp\"\nsrc = 8\ndst = 4\npacket_size = 1460\n\
        [[flow]]\nkind = \"udp\"\nsrc = 3\ndst = 5\nrate = 1e6\npacket_size = 1460\nstart = 5.0\n";
    let g = goodputs(text);
    assert!(g.iter().all(|&x| x > 0.0), "every flow delivers: {g:?}");
    // Frames are lost only on the lossy links around node 4 (one transmitter at a time):
    // the MAC table shows retries, and no failed reception at the corners, which hear
    // only lossless links.
    let run = run_value(toml_to_json(text).unwrap(), None, None).unwrap();
    let mac = &run.outcome.mac;
    assert!(mac.iter().map(|m| m.retries).sum::<u64>() > 0);
    assert!(mac[4].rx_failed > 0);
    for corner in [0, 2, 6, 8] {
        assert_eq!(mac[corner].rx_failed, 0, "node {corner}");
        assert!(mac[corner].rx_ok > 0, "node {corner}");
    }
    assert_eq!(mac.iter().map(|m| m.rts_tx).sum::<u64>(), 0);
}

#[test]
fn coded_tcp_packets_fill_the_default_slot_and_flow_from_slot_to_slot() {
    // The default slot carries the flows' packet plus 80 bytes of headers; a coded TCP
    // segment (IP, TCP, coding header and one coefficient per packet of a 32-packet
    // block) fills it exactly, so each ACK ends as the next slot starts.
    let text = "duration = 10.0\n\
        [topology]\nkind = \"chain\"\nnodes = 3\nspacing = 200.0\n\
        [mac]\nkind = \"tdma\"\n\
        [tcp]\nnetwork_coding = true\n\
        [[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 2\npacket_size = 1000\n";
    let g = goodputs(text);
    // The relay's one slot per round carries the data and the ACKs in turn, so the flow
    // gets at most half a packet per round of three slots; coding over drop-tail relays
    // keeps TCP from backing off (docs/scenario.md, `network_coding`), so well under.
    let slot = frame_duration(1000 + 80 + 36, DsssRate::Mbps11, Preamble::Long).as_secs_f64()
        + 10e-6
        + frame_duration(14, DsssRate::Mbps1, Preamble::Long).as_secs_f64();
    let bound = 1000.0 * 8.0 / (2.0 * 3.0 * slot);
    assert!(
        g[0] > 0.05 * bound && g[0] < bound,
        "goodput {} b/s, bound {bound}",
        g[0]
    );
}
