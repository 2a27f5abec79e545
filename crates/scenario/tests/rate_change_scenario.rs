//! `[[rate_change]]` end to end (seed 004, section IV-B): from its time on, frames to and
//! from the listed stations go at the new rate, which slows their links and, through
//! 802.11's equal access, everybody else's (the "performance anomaly" the paper
//! mentions); determinism and packet conservation hold across the change.

mod common;

use airqueue_scenario::api::Run;
use common::{bin_goodput, bss_three_stations, run_conserved};

const DROP: &str = "[[rate_change]]\nat = 10.0\nnodes = [2, 3]\ndata_rate = 2e6\n";

/// (before, after) goodput of each flow: bins 2..10 and 12..20.
fn before_after(r: &Run) -> Vec<(f64, f64)> {
    (0..3)
        .map(|f| (bin_goodput(r, f, 2, 10), bin_goodput(r, f, 12, 20)))
        .collect()
}

/// Data frames sent at 2 and at 11 Mb/s by `node`.
fn frames(r: &Run, node: usize) -> (u64, u64) {
    let by_rate = r.outcome.mac[node].data_tx_by_rate;
    (by_rate[1], by_rate[3])
}

#[test]
fn listed_links_switch_rate_at_the_given_time() {
    let r = run_conserved(&bss_three_stations(DROP));
    // Station 2 and the AP (towards station 3) sent at both rates; station 1, unlisted
    // and talking only to the AP, never at 2 Mb/s; station 3 sends no data.
    let (s2_slow, s2_fast) = frames(&r, 2);
    let (ap_slow, ap_fast) = frames(&r, 0);
    assert!(
        s2_slow > 0 && s2_fast > 0,
        "station 2: {s2_slow}, {s2_fast}"
    );
    assert!(ap_slow > 0 && ap_fast > 0, "AP: {ap_slow}, {ap_fast}");
    assert_eq!(frames(&r, 1).0, 0);
    assert_eq!(frames(&r, 3), (0, 0));
    let g = before_after(&r);
    eprintln!("with the drop: {g:?}");
    // The slowed links carry much less: a 1028-byte frame takes 4.3 ms instead of 0.9.
    for f in [1, 2] {
        assert!(g[f].1 < 0.5 * g[f].0, "flow {f}: {:?}", g[f]);
    }
    // The performance anomaly: station 1 keeps 11 Mb/s but loses about as much, and
    // ends up with about what the slow station gets (equal access, equal frames).
    assert!(g[0].1 < 0.6 * g[0].0, "flow 0: {:?}", g[0]);
    assert!((g[0].1 / g[1].1 - 1.0).abs() < 0.2, "{g:?}");
}

#[test]
fn without_the_change_nothing_moves() {
    let r = run_conserved(&bss_three_stations(""));
    for node in 0..4 {
        assert_eq!(frames(&r, node).0, 0, "node {node}");
    }
    let g = before_after(&r);
    eprintln!("without: {g:?}");
    for (f, (before, after)) in g.iter().enumerate() {
        assert!(
            (after / before - 1.0).abs() < 0.1,
            "flow {f}: {before} -> {after}"
        );
    }
}

#[test]
fn deterministic_across_the_change() {
    let a = run_conserved(&bss_three_stations(DROP));
    let b = run_conserved(&bss_three_stations(DROP));
    assert_eq!(a.outcome.events, b.outcome.events);
    assert_eq!(a.outcome.mac, b.outcome.mac);
    assert_eq!(a.outcome.traces.bins, b.outcome.traces.bins);
    // A change at the end of the run (within it, but too late to matter) is harmless.
    let late = "[[rate_change]]\nat = 19.999\nnodes = [0]\ndata_rate = 1e6\n";
    run_conserved(&bss_three_stations(late));
}

/// Seed 004's setting with two downlink stations (1, 2) and two uplink ones (3, 4),
/// ECN TCP, the uplink stations' links at 2 Mb/s from 15 s of 30; `queue` at the AP.
fn tcp_bss(queue: &str) -> String {
    let flow = |src: u32, dst: u32| {
        format!("[[flow]]\nkind = \"tcp\"\nvariant = \"sack\"\nsrc = {src}\ndst = {dst}\n")
    };
    let flows: String = [(5, 1), (5, 2), (3, 5), (4, 5)]
        .iter()
        .map(|&(s, d)| flow(s, d))
        .collect();
    format!(
        "duration = 30\n[topology]\nkind = \"bss\"\nstations = 4\nradius = 10\n\
         [queue]\n{queue}\n[tcp]\necn = true\nmax_window = 43\n{flows}\
         [[rate_change]]\nat = 15.0\nnodes = [3, 4]\ndata_rate = 2e6\n"
    )
}

/// R_up/R_dn over bins 20..30 (after the drop).
fn gamma_after(r: &Run) -> f64 {
    let dn = bin_goodput(r, 0, 20, 30) + bin_goodput(r, 1, 20, 30);
    let up = bin_goodput(r, 2, 20, 30) + bin_goodput(r, 3, 20, 30);
    up / dn.max(1.0)
}

/// DQM charges each class at its links' real rates (III-B), so after the drop the slow
/// uplink flows get about the channel time of the fast downlink ones: the time-fair ratio
/// is (1649 + 922) / (5170 + 1170) us = 0.41 (DQM's T_pkt of a segment and its ACK at
/// 11 and at 2 Mb/s). Drop-tail keeps favouring the uplink.
#[test]
fn dqm_gives_the_slow_uplink_its_time_share() {
    let dqm = run_conserved(&tcp_bss("kind = \"dqm\""));
    let base = run_conserved(&tcp_bss("kind = \"droptail\"\ncapacity = 100"));
    let (g_dqm, g_base) = (gamma_after(&dqm), gamma_after(&base));
    eprintln!("R_up/R_dn after the drop: DQM {g_dqm:.3}, drop-tail {g_base:.3}");
    assert!((0.3..0.55).contains(&g_dqm), "{g_dqm}");
    assert!(g_base > 1.0, "{g_base}");
    let again = run_conserved(&tcp_bss("kind = \"dqm\""));
    assert_eq!(dqm.outcome.events, again.outcome.events);
    assert_eq!(dqm.outcome.mac, again.outcome.mac);
}
