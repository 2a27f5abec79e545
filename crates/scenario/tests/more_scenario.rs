//! MORE (Chachulski et al., SIGCOMM 2007) from scenario files: a chain delivers whole
//! batches, conserves packets and repeats itself; in a lossy diamond both middle nodes
//! forward, and MORE outdoes single-path TCP on the same links.

mod common;
use common::goodputs;

use airqueue_kernel::Time;
use airqueue_scenario::api::{run_value, Run};
use airqueue_scenario::build::world_config;
use airqueue_scenario::parse::toml_to_json;
use airqueue_scenario::validate_and_place;
use airqueue_sim::net::more::{MoreFlowStats, MoreNet};
use airqueue_sim::net::DropReason;
use airqueue_sim::{FlowId, World};

/// A 4-node 802.11b chain 200 m apart (3 hops at 11 Mb/s) with one flow 0 -> 3 for
/// `duration` s; `flow` is the flow's kind line and extras, `extra` top-level tables.
fn chain(duration: f64, flow: &str, extra: &str) -> String {
    format!(
        "duration = {duration}\nseed = 1\n[topology]\nkind = \"chain\"\nnodes = 4\n\
         spacing = 200.0\n[routing]\nmetric = \"etx\"\n{extra}\n\
         [[flow]]\n{flow}\nsrc = 0\ndst = 3\npacket_size = 1400\n"
    )
}

/// S=0 and D=3 out of each other's range, A=1 and B=2 between them and out of each
/// other's range; every S-A, S-B link loses half its frames, every A-D, B-D link 20%.
/// `sensed_frames`: the `[radio]` key's value.
fn diamond(flow: &str, sensed_frames: &str) -> String {
    let mut s = format!(
        "duration = 20.0\nseed = 1\n[topology]\nkind = \"explicit\"\n\
         positions = [[0.0, 0.0], [200.0, 130.0], [200.0, -130.0], [400.0, 0.0]]\n\
         [routing]\nmetric = \"etx\"\n[radio]\nsensed_frames = \"{sensed_frames}\"\n",
    );
    for (a, b, loss) in [(0, 1, 0.5), (0, 2, 0.5), (1, 3, 0.2), (2, 3, 0.2)] {
        s += &format!("[[link]]\na = {a}\nb = {b}\nloss = {loss}\n");
    }
    s + &format!("[[flow]]\n{flow}\nsrc = 0\ndst = 3\npacket_size = 1400\n")
}

fn run(text: &str) -> Run {
    run_value(toml_to_json(text).unwrap(), None, None).unwrap()
}

fn more_stats(r: &Run) -> MoreFlowStats {
    r.outcome.net.more[0].clone().expect("a MORE flow")
}

/// The world of a scenario text, built but not run.
fn world(text: &str) -> World {
    let (scenario, positions) = validate_and_place(&toml_to_json(text).unwrap()).unwrap();
    World::new(world_config(&scenario, &positions))
}

#[test]
fn only_a_world_with_more_flows_runs_the_network_layer_scheme() {
    let mut more = world(&chain(2.0, "kind = \"more\"", ""));
    let scheme = more.net_scheme().expect("MORE's flows need the scheme");
    assert!(scheme.downcast_ref::<MoreNet>().is_some());
    more.run_until(Time::from_secs(1));
    let out = more.finish();
    assert!(out.conservation.holds(), "{:?}", out.conservation);
    assert!(out.net.more[0].as_ref().is_some_and(|m| m.source_sent > 0));
    let udp = world(&chain(2.0, "kind = \"udp\"\nrate = 1e5", ""));
    assert!(udp.net_scheme().is_none(), "no scheme without its flows");
    assert!(udp.finish().net.more.iter().all(Option::is_none));
}

/// Runs a 10 s chain scenario (`goodputs` checks conservation and that a second run
/// gives the same bits) and checks that it decoded batches and that goodput is decoded
/// batches x K x packet size over the run.
fn run_chain_of_batches(text: &str) -> (Run, MoreFlowStats) {
    let g = goodputs(text)[0];
    let r = run(text);
    let m = more_stats(&r);
    assert!(m.batches_decoded > 10, "{m:?}");
    let expect = m.batches_decoded as f64 * 32.0 * 1400.0 * 8.0 / 10.0;
    assert!((g - expect).abs() < 1e-6 * expect, "{g} vs {expect}");
    (r, m)
}

#[test]
fn chain_delivers_whole_batches_and_conserves_packets() {
    let (r, m) = run_chain_of_batches(&chain(10.0, "kind = \"more\"", ""));
    // Every decoded batch was ACKed once and the source moved on; the ACKs made it
    // over the three hops ahead of the data.
    assert_eq!(m.acks_received, m.batches_decoded);
    // Both relays forward (credit 1 on a loss-free line: z = 1 everywhere).
    assert_eq!(m.forwarders.len(), 2);
    assert!(m.forwarders.iter().all(|&(_, c)| (c - 1.0).abs() < 1e-12));
    assert!(m.forwarder_sent > m.source_sent, "{m:?}");
    // The destination's innovative receptions are the decoded batches plus the part of
    // the batch under way.
    assert!(m.destination_innovative >= 32 * m.batches_decoded);
    assert!(m.destination_innovative < 32 * (m.batches_decoded + 1));
    // Innovative receptions at the destination are the only MORE deliveries; every other
    // coded packet ended as coding_redundancy.
    let c = &r.outcome.conservation;
    assert!(c.holds(), "{c:?}");
    let redundant = r.outcome.metrics.drops_by_reason()[DropReason::CodingRedundancy.index()];
    assert!(redundant > 0);
    assert_eq!(c.delivered, m.destination_innovative + m.acks_received);
}

#[test]
fn broadcasts_go_at_the_data_rate() {
    let r = run(&chain(2.0, "kind = \"more\"", ""));
    // All of the source's data frames went at 11 Mb/s (index 3 of the DSSS rates).
    let mac = &r.outcome.mac[0];
    assert!(mac.data_tx > 0);
    assert_eq!(mac.data_tx_by_rate[3], mac.data_tx, "{mac:?}");
}

#[test]
fn lossy_diamond_uses_both_middle_nodes() {
    for sensed in ["rx_error", "energy"] {
        let r = run(&diamond("kind = \"more\"", sensed));
        let m = more_stats(&r);
        assert_eq!(m.forwarders.len(), 2, "{sensed}: {m:?}");
        assert!(
            m.forwarders.iter().all(|&(_, c)| c > 0.0),
            "{sensed}: {m:?}"
        );
        for relay in [1, 2] {
            assert!(
                r.outcome.mac[relay].data_tx > 100,
                "{sensed}: relay {relay} idle"
            );
        }
        assert!(m.batches_decoded > 5, "{sensed}: {m:?}");
    }
}

#[test]
fn more_beats_single_path_tcp_in_the_lossy_diamond() {
    // The MORE paper's comparison, with and without EIFS after sensed frames.
    for sensed in ["rx_error", "energy"] {
        let more = goodputs(&diamond("kind = \"more\"", sensed))[0];
        let tcp = goodputs(&diamond("kind = \"tcp\"\nvariant = \"sack\"", sensed))[0];
        assert!(more > tcp, "{sensed}: MORE {more} vs TCP {tcp}");
    }
}

#[test]
fn more_needs_drop_tail_static_routes_and_the_802_11_medium() {
    let bad = |extra: &str| {
        let text = chain(5.0, "kind = \"more\"", extra);
        match run_value(toml_to_json(&text).unwrap(), None, None) {
            Ok(_) => panic!("accepted: {extra}"),
            Err(errs) => errs.join("\n"),
        }
    };
    let e = bad("[queue]\nkind = \"red\"\n");
    assert!(e.contains("flow[0].kind") && e.contains("droptail"), "{e}");
    let e = bad("[medium]\nkind = \"wired\"\n");
    assert!(e.contains("flow[0].kind") && e.contains("wifi"), "{e}");
    let text = chain(5.0, "kind = \"more\"\nbatch = 33", "");
    let errs = run_value(toml_to_json(&text).unwrap(), None, None)
        .err()
        .unwrap();
    assert!(errs.join("\n").contains("flow[0].batch"), "{errs:?}");
    let text = chain(5.0, "kind = \"udp\"\nrate = 1e5\nbatch = 8", "");
    let errs = run_value(toml_to_json(&text).unwrap(), None, None)
        .err()
        .unwrap();
    assert!(errs.join("\n").contains("flow[0].batch"), "{errs:?}");
}

#[test]
fn a_smaller_batch_decodes_more_batches() {
    let r8 = run(&chain(5.0, "kind = \"more\"\nbatch = 8", ""));
    let r32 = run(&chain(5.0, "kind = \"more\"", ""));
    let (m8, m32) = (more_stats(&r8), more_stats(&r32));
    assert!(
        m8.batches_decoded > 2 * m32.batches_decoded,
        "{m8:?} {m32:?}"
    );
    assert!(r8.outcome.conservation.holds());
}

/// DiffQ-MORE (seed 000, 4.2 and 6.2): DiffQ's queues and EDCA levels, the source paced
/// by DiffQ's rate control.
const DIFFQ: &str = "[queue]\nkind = \"diffq\"\n[mac]\nkind = \"edca\"\n";

#[test]
fn diffq_more_delivers_conserves_and_repeats_itself() {
    let (r, m) = run_chain_of_batches(&chain(10.0, "kind = \"more\"\ncc = \"diffq\"", DIFFQ));
    // The source is paced: its rate controller ran and it sent one coded packet per
    // tick, never more than the plain MORE source, which keeps its queue full.
    let rate = r.outcome.rate_control[0].as_ref().expect("a DiffQ pacer");
    assert!(rate.rate_bps > 0.0);
    let plain = more_stats(&run(&chain(10.0, "kind = \"more\"", "")));
    assert!(m.source_sent < plain.source_sent, "{m:?} vs {plain:?}");
}

#[test]
fn diffq_more_is_refused_where_it_makes_no_sense() {
    let errs = |flow: &str, extra: &str| {
        let text = chain(5.0, flow, extra);
        run_value(toml_to_json(&text).unwrap(), None, None)
            .err()
            .expect("refused")
            .join("\n")
    };
    // DiffQ rate control without DiffQ's queues.
    let e = errs("kind = \"more\"\ncc = \"diffq\"", "");
    assert!(
        e.contains("flow[0].cc") && e.contains("queue.kind = \"diffq\""),
        "{e}"
    );
    // MORE with backpressure: neither its flow control nor its queues.
    let e = errs("kind = \"more\"\ncc = \"backpressure\"", "");
    assert!(e.contains("flow[0].cc"), "{e}");
    let e = errs("kind = \"more\"", "[queue]\nkind = \"backpressure\"\n");
    assert!(e.contains("flow[0].kind") && e.contains("droptail"), "{e}");
    // Plain MORE under DiffQ's queues points at DiffQ-MORE.
    let e = errs("kind = \"more\"", DIFFQ);
    assert!(e.contains("cc = \"diffq\""), "{e}");
}

/// Many flows crossing one another on a random mesh, plain and under DiffQ: packets are
/// conserved, and (in debug builds, `World::finish`) every code-vector slot still held
/// belongs to a frame in a MAC buffer.
#[test]
fn many_flows_on_a_mesh_conserve_packets() {
    for (flow, extra) in [("", ""), ("cc = \"diffq\"\n", DIFFQ)] {
        let text = format!(
            "duration = 5.0\nseed = 3\n[topology]\nkind = \"random\"\nnodes = 30\n\
             area = [700.0, 700.0]\n[routing]\nmetric = \"etx\"\n{extra}\n\
             [flows]\nrandom = 12\nkind = \"more\"\nbatch = 16\nstart = [0.0, 1.0]\n{flow}"
        );
        let g = goodputs(&text);
        assert!(g.iter().any(|&x| x > 0.0), "{g:?}");
    }
}

#[test]
fn diffq_more_in_the_lossy_diamond_still_uses_both_relays() {
    let text = diamond("kind = \"more\"\ncc = \"diffq\"", "rx_error") + DIFFQ;
    let g = goodputs(&text)[0];
    let r = run(&text);
    assert!(g > 0.0);
    for relay in [1, 2] {
        assert!(r.outcome.mac[relay].data_tx > 100, "relay {relay} idle");
    }
}

/// Table 2's chain of `diffq-more --param fading=rayleigh` (its `chain_scenario`):
/// `hops` hops 200 m apart at 11 Mb/s, MadWiFi's 11 transmit attempts and 199-packet
/// queue, one MORE flow from the first node to the last from 1 s to `duration`.
fn fading_chain(hops: u32, duration: f64) -> String {
    format!(
        "duration = {duration}\nseed = 1\n[topology]\nkind = \"chain\"\nnodes = {}\n\
         spacing = 200.0\n[radio]\nfading = \"rayleigh\"\n[routing]\nmetric = \"etx\"\n\
         [mac]\nshort_retry_limit = 11\n[queue]\nkind = \"droptail\"\ncapacity = 199\n\
         [[flow]]\nkind = \"more\"\nsrc = 0\ndst = {hops}\nstart = 1.0\npacket_size = 1400\n",
        hops + 1
    )
}

#[test]
fn the_destination_acks_each_batch_once() {
    // Two hops under fading: the destination hears the source's frames but can decode
    // none (400 m), so it hears the decoded batch through the relay until its ACK
    // reaches the source. Its ACK frames rarely get through on the first attempt, so
    // repeating the ACK meanwhile would queue ACKs faster than its MAC sends them: the
    // ACK is reliable hop by hop instead, and made once per batch.
    let text = fading_chain(2, 20.0);
    goodputs(&text);
    let m = more_stats(&run(&text));
    assert!(m.batches_decoded > 0, "{m:?}");
    assert_eq!(m.acks_sent, m.batches_decoded, "{m:?}");
    // Every ACK but the last one's, perhaps still under way, reached the source.
    assert!(m.acks_received + 1 >= m.batches_decoded, "{m:?}");
}

#[test]
fn a_batch_ack_the_mac_gives_up_on_is_sent_again() {
    // Four hops under fading: the relays the ACK has passed flush the batch and ignore
    // its packets, so if a later hop's MAC dropped the ACK (after 11 attempts) the
    // destination would never hear the batch again and the source would send the ACKed
    // batch for the rest of the run. The hop queues the ACK again instead.
    let text = fading_chain(4, 30.0);
    goodputs(&text);
    let r = run(&text);
    let m = more_stats(&r);
    assert!(m.acks_received + 1 >= m.batches_decoded, "{m:?}");
    // Batches keep being decoded: some in every 5 s after the first second.
    let per_s = r.outcome.metrics.bin.as_secs_f64();
    let bins = &r.outcome.traces.bin_bytes(FlowId(0));
    let window = (5.0 / per_s).round() as usize;
    let from = (1.0 / per_s).round() as usize;
    for (i, w) in bins[from..].chunks(window).enumerate() {
        assert!(w.iter().sum::<u64>() > 0, "no batch in window {i}: {m:?}");
    }
    assert_eq!(
        r.outcome.metrics.drops_by_reason()[DropReason::MacRetryLimit.index()],
        0
    );
}
