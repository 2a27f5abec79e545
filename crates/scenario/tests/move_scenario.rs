//! `[[move]]` end to end (seed 004, section IV-B: stations that "move far away from the
//! AP"): a station moved beyond carrier-sense range is cut off, one moved to where only
//! 2 Mb/s decodes is served at 2 Mb/s once AARF has found it; determinism and packet
//! conservation hold across the move.

mod common;

use common::{bin_goodput, bss_three_stations, run_conserved};

/// Stations 2 and 3 leave at 10 s for 1000 m, beyond the default 550 m carrier sense.
const GONE: &str = "[[move]]\nat = 10.0\nnodes = [2, 3]\naway_from = 0\ndistance = 1000\n";

#[test]
fn frames_to_and_from_a_station_moved_out_of_range_fail() {
    let r = run_conserved(&bss_three_stations(GONE));
    for flow in [1, 2] {
        assert!(bin_goodput(&r, flow, 2, 10) > 5e5, "flow {flow} before");
        assert_eq!(bin_goodput(&r, flow, 11, 20), 0.0, "flow {flow} after");
    }
    // Station 1 has the channel to itself from then on.
    assert!(bin_goodput(&r, 0, 11, 20) > 1.5 * bin_goodput(&r, 0, 2, 10));
    // The AP keeps trying station 3 and gives up on each frame; station 2 on its own.
    assert!(r.outcome.mac[0].retry_limit_drops > 30);
    assert!(r.outcome.mac[2].retry_limit_drops > 100);
    let still = run_conserved(&bss_three_stations(""));
    assert_eq!(still.outcome.mac[0].retry_limit_drops, 0);
}

#[test]
fn deterministic_across_the_move() {
    let (a, b) = (
        run_conserved(&bss_three_stations(GONE)),
        run_conserved(&bss_three_stations(GONE)),
    );
    assert_eq!(a.outcome.events, b.outcome.events);
    assert_eq!(a.outcome.mac, b.outcome.mac);
    assert_eq!(a.outcome.traces.bins, b.outcome.traces.bins);
}

/// The receive threshold at the 1 Mb/s decode range of the default radio (two-ray
/// ground, 20 dBm, thermal noise: SNR -3.09 dB at 1236 m), so that the rates' SINR
/// thresholds, not the receive threshold, say what decodes where: 11 Mb/s to 618 m,
/// 5.5 to 735 m, 2 to 946 m. Station 2 moves to 840 m, where 2 Mb/s is the fastest.
const AARF_AT_2: &str = "[radio]\ntx_range = 1200\ncs_range = 2640\n[mac]\n\
                         rate_control = \"aarf\"\n[[move]]\nat = 10.0\nnodes = [2]\n\
                         away_from = 0\ndistance = 840\n";

#[test]
fn aarf_settles_at_the_fastest_rate_that_decodes_after_a_move() {
    let r = run_conserved(&bss_three_stations(AARF_AT_2));
    let still = run_conserved(&bss_three_stations(
        &AARF_AT_2.replace("distance = 840", "distance = 10"),
    ));
    // [1, 2, 5.5, 11] Mb/s data frames of station 2. AARF also steps down after
    // collisions, so the station that stays sends some frames below 11 Mb/s too; the
    // one that moves sends far more at 2 Mb/s, fewer at 11, and its probes at 5.5 Mb/s
    // (after runs of successes) add less than the collisions of its first 10 s did.
    let [_, at2, at5, at11] = r.outcome.mac[2].data_tx_by_rate;
    let [_, stay2, stay5, stay11] = still.outcome.mac[2].data_tx_by_rate;
    assert!(at2 > 2 * stay2, "{at2} frames at 2 Mb/s, {stay2} staying");
    assert!(at5 <= stay5, "{at5} frames at 5.5 Mb/s, {stay5} staying");
    assert!(
        10 * at11 < 7 * stay11,
        "{at11} frames at 11 Mb/s, {stay11} staying"
    );
    assert!(bin_goodput(&r, 1, 12, 20) < 0.6 * bin_goodput(&r, 1, 2, 10));
    assert!(bin_goodput(&r, 1, 12, 20) > 1e5);
}
