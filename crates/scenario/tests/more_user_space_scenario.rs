//! MORE in user space (`send_cost`, `receive_cost`; seed 000 section 6.1): each node's
//! process bounds what the node sends and receives, the relays' processes share their
//! time between the two, a full socket buffer loses receptions, and every packet is
//! still accounted for.

mod common;
use common::goodputs;

use airqueue_scenario::api::{run_value, Run};
use airqueue_scenario::parse::toml_to_json;
use airqueue_sim::net::more::MoreFlowStats;
use airqueue_sim::net::DropReason;

const PAYLOAD_BITS: f64 = 1400.0 * 8.0;
const DURATION_S: f64 = 10.0;
/// The flow's time on (its goodput's window): it starts at 1 s.
const ON_S: f64 = DURATION_S - 1.0;

/// An 802.11b chain of `hops` hops 200 m apart (neighbours only hear each other), one
/// MORE flow from end to end from 1 s on; `flow` adds keys to it, `extra` top-level
/// tables.
fn chain(hops: u32, flow: &str, extra: &str) -> String {
    format!(
        "duration = {DURATION_S}\nseed = 2\n[topology]\nkind = \"chain\"\nnodes = {}\n\
         spacing = 200.0\n[routing]\nmetric = \"etx\"\n{extra}\n\
         [[flow]]\nkind = \"more\"\nsrc = 0\ndst = {hops}\npacket_size = 1400\nstart = 1.0\n\
         {flow}\n",
        hops + 1
    )
}

/// The flow keys of a process that takes `cost` seconds per packet either way.
fn both(cost: f64) -> String {
    format!("send_cost = {cost}\nreceive_cost = {cost}")
}

fn run(text: &str) -> Run {
    run_value(toml_to_json(text).unwrap(), None, None).unwrap()
}

fn more_stats(r: &Run) -> MoreFlowStats {
    r.outcome.net.more[0].clone().expect("a MORE flow")
}

/// The run's goodput (checked to repeat and conserve packets), its MORE counters, and
/// checks that the destination's processed innovative packets are the MORE deliveries.
fn run_checked(text: &str) -> (f64, MoreFlowStats, Run) {
    let g = goodputs(text)[0];
    let r = run(text);
    let m = more_stats(&r);
    let c = &r.outcome.conservation;
    assert_eq!(c.delivered, m.destination_innovative + m.acks_received);
    (g, m, r)
}

#[test]
fn the_source_process_makes_one_packet_per_cost() {
    let cost = 0.004;
    let (g, m, _) = run_checked(&chain(1, &both(cost), ""));
    // Processor times vary around the cost (uniform, half to one and a half times it).
    let made = ON_S / cost;
    assert!((m.source_sent as f64 - made).abs() < 0.05 * made, "{m:?}");
    // Over one hop the radio would carry about twice as much: the process decides.
    let (free, _, _) = run_checked(&chain(1, "", ""));
    let bound = PAYLOAD_BITS / cost;
    assert!(free > 1.5 * bound, "{free} vs {bound}");
    assert!(g <= bound && g > 0.7 * bound, "{g} vs {bound}");
}

#[test]
fn a_relay_process_shares_its_time_between_receiving_and_sending() {
    // The relay takes every packet the source sends up to its process (the redundant
    // ones too) and makes one per innovative packet heard (TX credit 1 on a loss-free
    // line): at least two jobs per packet delivered. The source makes a packet per
    // cost, so the relay's socket overflows.
    let cost = 0.004;
    let (g, m, _) = run_checked(&chain(2, &both(cost), ""));
    let bound = PAYLOAD_BITS / (2.0 * cost);
    assert!(g <= bound && g > 0.1 * bound, "{g} vs {bound}: {m:?}");
    assert!(m.receive_overflow > 0, "{m:?}");
    let handled = m.forwarder_innovative + m.forwarder_redundant + m.forwarder_sent;
    assert!(handled as f64 * cost <= 1.05 * ON_S, "{m:?}");
    let (free, _, _) = run_checked(&chain(2, "", ""));
    assert!(free > 1.5 * bound, "{free} vs {bound}");
}

#[test]
fn a_relay_that_receives_for_free_keeps_up_with_its_source() {
    // Sending costs, receiving does not: source and relay each make a packet per cost,
    // and the radio carries both.
    let cost = 0.004;
    let (one, _, _) = run_checked(&chain(1, &format!("send_cost = {cost}"), ""));
    let (two, m, _) = run_checked(&chain(2, &format!("send_cost = {cost}"), ""));
    assert!(two <= PAYLOAD_BITS / cost, "{two}");
    assert!(two > 0.8 * one, "{two} vs {one}: {m:?}");
    assert_eq!(m.receive_overflow, 0, "{m:?}");
}

#[test]
fn a_full_socket_buffer_at_the_destination_loses_the_packets() {
    // Two one-hop flows into node 1 from either side, the sources 200 m apart in range
    // of each other: its process takes one packet per cost, the two sources make one
    // each.
    let flow = |src| {
        format!(
            "[[flow]]\nkind = \"more\"\nsrc = {src}\ndst = 1\npacket_size = 1400\n\
             send_cost = 0.004\nreceive_cost = 0.004\nreceive_buffer = 4\n"
        )
    };
    let text = format!(
        "duration = 10.0\nseed = 2\n[topology]\nkind = \"explicit\"\n\
         positions = [[-100.0, 0.0], [0.0, 0.0], [100.0, 0.0]]\n[routing]\nmetric = \"etx\"\n{}{}",
        flow(0),
        flow(2)
    );
    let g = goodputs(&text);
    let r = run(&text);
    let m: Vec<MoreFlowStats> = (r.outcome.net.more.iter()).flatten().cloned().collect();
    let lost: u64 = m.iter().map(|m| m.receive_overflow).sum();
    let drops = r.outcome.metrics.drops_by_reason();
    assert_eq!(drops[DropReason::QueueOverflow.index()], lost);
    assert!(lost > 0 && g.iter().all(|&x| x > 0.0), "{g:?} {m:?}");
    let processed: u64 = (m.iter())
        .map(|m| m.destination_innovative + m.destination_redundant)
        .sum();
    assert!(processed as f64 * 0.004 <= 1.05 * 10.0, "{m:?}");
    let innovative: u64 = m.iter().map(|m| m.destination_innovative).sum();
    let acks: u64 = m.iter().map(|m| m.acks_received).sum();
    assert_eq!(r.outcome.conservation.delivered, innovative + acks);
}

#[test]
fn a_paced_source_ticks_no_faster_than_its_process() {
    let diffq = "[queue]\nkind = \"diffq\"\n";
    let cost = 0.004;
    let flow = format!("cc = \"diffq\"\n{}", both(cost));
    let (g, m, _) = run_checked(&chain(3, &flow, diffq));
    assert!(g > 0.0, "{m:?}");
    assert!(m.source_sent as f64 <= 1.05 * ON_S / cost, "{m:?}");
}

#[test]
fn many_user_space_flows_on_a_mesh_conserve_packets() {
    let text = "duration = 5.0\nseed = 3\n[topology]\nkind = \"random\"\nnodes = 30\n\
                area = [700.0, 700.0]\n[routing]\nmetric = \"etx\"\n\
                [flows]\nrandom = 12\nkind = \"more\"\nbatch = 16\nstart = [0.0, 1.0]\n\
                send_cost = 0.001\nreceive_cost = 0.001\nreceive_buffer = 8\n";
    let g = goodputs(text);
    assert!(g.iter().any(|&x| x > 0.0), "{g:?}");
}

#[test]
fn a_cost_out_of_range_is_refused_naming_the_key() {
    let text = chain(1, "receive_cost = -0.001", "");
    let errs = run_value(toml_to_json(&text).unwrap(), None, None)
        .err()
        .expect("refused")
        .join("\n");
    assert!(
        errs.contains("flow[0].receive_cost") && errs.contains("[0, 0.1]"),
        "{errs}"
    );
}

#[test]
fn batch_acks_that_go_up_to_the_relays_processes_arrive_later() {
    // With `process_acks` a batch ACK waits at each relay behind the work its process
    // has queued, so the source goes on making packets of a decoded batch for longer:
    // more coded packets per batch decoded, and fewer batches, than with ACKs passed at
    // kernel speed. Every ACK still reaches the source or stays accounted for.
    let costs = "send_cost = 0.006\nreceive_cost = 0.001";
    let (g_kernel, kernel, _) = run_checked(&chain(3, costs, ""));
    let (g_process, process, _) =
        run_checked(&chain(3, &format!("{costs}\nprocess_acks = true"), ""));
    let per_batch = |m: &MoreFlowStats| m.source_sent as f64 / m.batches_decoded as f64;
    assert!(process.batches_decoded > 0, "{process:?}");
    assert!(
        per_batch(&process) > per_batch(&kernel) && g_process < g_kernel,
        "{g_process} vs {g_kernel}: {process:?} against {kernel:?}"
    );
    assert!(process.acks_received <= process.acks_sent, "{process:?}");
}
