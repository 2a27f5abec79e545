//! Validation ladder step 2: the 802.11 MAC against analytic results.
//!
//! Every test runs whole worlds with saturating UDP sources and compares goodput with the
//! air-time budget or Bianchi's model (`airqueue-analytic`), or checks the qualitative
//! behaviour the standard implies (hidden terminals, EDCA priorities, AARF).

use airqueue_analytic::airtime::{saturation_goodput_bps, Link};
use airqueue_analytic::bianchi::{DsssSaturation, RetryLimit};
use airqueue_kernel::Time;
use airqueue_phy::dsss::{DATA_OVERHEAD_BYTES, LLC_SNAP_BYTES};
use airqueue_phy::{Dbm, DsssRate, EdcaLevel};
use airqueue_sim::app::UdpRate;
use airqueue_sim::medium::wifi::{Fading, RateControl, WifiConfig};
use airqueue_sim::{FlowConfig, FlowKindConfig, RunOutcome, WorldConfig};

mod common;
use common::{
    diffq8_wifi, events_and_delivered, flow, run_checked, saturating_udp, unit_disk_routing,
    wifi_world,
};

const PAYLOAD: u32 = 1000;
/// IPv4 + UDP headers carried in every data frame.
const IP_UDP: u32 = 28;

fn saturating(src: u32, dst: u32, duration: Time) -> FlowConfig {
    saturating_udp(src, dst, PAYLOAD, duration)
}

fn run(
    wifi: WifiConfig,
    positions: Vec<[f64; 2]>,
    flows: Vec<FlowConfig>,
    duration: Time,
    seed: u64,
) -> RunOutcome {
    run_checked(wifi_world(wifi, positions, flows, duration, seed))
}

/// Node 0 at the centre, `n` senders on a 5 m circle, all sending to node 0.
fn star(n: u32, wifi: WifiConfig, duration: Time, seed: u64) -> RunOutcome {
    let mut pos = vec![[0.0, 0.0]];
    for i in 0..n {
        let a = i as f64 * std::f64::consts::TAU / n as f64;
        pos.push([5.0 * a.cos(), 5.0 * a.sin()]);
    }
    let flows = (1..=n).map(|s| saturating(s, 0, duration)).collect();
    run(wifi, pos, flows, duration, seed)
}

fn aggregate(out: &RunOutcome) -> f64 {
    out.metrics.flows.iter().map(|f| f.goodput_bps()).sum()
}

#[test]
fn one_sender_gets_the_air_time_budget() {
    let duration = Time::from_secs(20);
    let out = star(1, WifiConfig::dsss_default(), duration, 1);
    let link = Link {
        mac_overhead_bytes: DATA_OVERHEAD_BYTES + LLC_SNAP_BYTES + IP_UDP,
        ..Link::default()
    };
    // DIFS + 15.5 slots + DATA + SIFS + ACK per 1000-byte payload.
    let budget = saturation_goodput_bps(PAYLOAD, &link, 31);
    let got = aggregate(&out);
    let err = (got - budget) / budget;
    eprintln!(
        "one sender: {got:.0} b/s, budget {budget:.0} b/s, error {:+.3}%",
        err * 100.0
    );
    assert!(err.abs() < 0.01, "{got} vs {budget}");
    assert_eq!(out.mac[1].retries, 0, "no contention, no retries");
}

#[test]
fn saturation_throughput_matches_bianchi() {
    let duration = Time::from_secs(20);
    let mut rows = vec![];
    for n in [5u32, 10, 20, 50] {
        let got = aggregate(&star(n, WifiConfig::dsss_default(), duration, 7));
        let mut model = DsssSaturation::new(n, PAYLOAD);
        model.header_bytes = DATA_OVERHEAD_BYTES + LLC_SNAP_BYTES + IP_UDP;
        model.backoff.retry = RetryLimit::Attempts(7);
        let eifs = model.evaluate().unwrap().throughput_bps;
        model.recovery = airqueue_analytic::bianchi::CollisionRecovery::Difs;
        let difs = model.evaluate().unwrap().throughput_bps;
        let err = (got - eifs) / eifs;
        rows.push((n, got, eifs, difs, err));
    }
    eprintln!("   n   sim Mb/s  Bianchi+EIFS  Bianchi+DIFS  error vs EIFS");
    for (n, got, eifs, difs, err) in &rows {
        eprintln!(
            "{n:4} {:10.3} {:13.3} {:13.3} {:+13.2}%",
            got / 1e6,
            eifs / 1e6,
            difs / 1e6,
            err * 100.0
        );
    }
    for (n, got, eifs, _, err) in rows {
        assert!(err.abs() < 0.03, "n = {n}: {got} vs Bianchi (EIFS) {eifs}");
    }
}

#[test]
fn equal_stations_share_equally() {
    let out = star(4, WifiConfig::dsss_default(), Time::from_secs(20), 3);
    let g: Vec<f64> = out.metrics.flows.iter().map(|f| f.goodput_bps()).collect();
    let mean = g.iter().sum::<f64>() / g.len() as f64;
    for x in &g {
        assert!((x - mean).abs() / mean < 0.05, "{g:?}");
    }
}

/// Two senders 480 m apart on either side of a receiver; carrier sense reaches 300 m, so
/// they cannot hear each other (out of each other's sensing range) unless `cs_range_m`
/// is large.
fn hidden_pair(cs_range_m: f64, rts: bool) -> f64 {
    let mut wifi = WifiConfig::dsss_default();
    let tx = Dbm(wifi.tx_power_dbm);
    wifi.cs_threshold_dbm = airqueue_phy::threshold_for_range(&wifi.propagation, tx, cs_range_m).0;
    if rts {
        wifi.rts_threshold_bytes = 0;
    }
    let d = Time::from_secs(10);
    let pos = vec![[0.0, 0.0], [240.0, 0.0], [480.0, 0.0]];
    let out = run(
        wifi,
        pos,
        vec![saturating(0, 1, d), saturating(2, 1, d)],
        d,
        5,
    );
    // Fraction of data frames lost (not acknowledged on the first try or at all).
    let tx: u64 = out.mac[0].data_tx + out.mac[2].data_tx;
    let delivered: u64 = out.metrics.flows.iter().map(|f| f.packets_delivered).sum();
    1.0 - delivered as f64 / tx as f64
}

#[test]
fn hidden_terminals_lose_frames_and_rts_cts_recovers_part() {
    let hidden = hidden_pair(300.0, false);
    let heard = hidden_pair(550.0, false);
    let hidden_rts = hidden_pair(300.0, true);
    eprintln!("frame loss: hidden {hidden:.3}, hearing each other {heard:.3}, hidden + RTS/CTS {hidden_rts:.3}");
    assert!(
        hidden > 0.3,
        "hidden senders should collide a lot: {hidden}"
    );
    assert!(heard < 0.1 && hidden > 5.0 * heard, "{hidden} vs {heard}");
    assert!(
        hidden_rts < hidden * 0.7,
        "RTS/CTS should recover part of the loss: {hidden_rts} vs {hidden}"
    );
}

/// Two saturated stations at MAC levels `low` and `high` of seed 000's 8-level table.
fn edca_pair(low: u8, high: u8) -> (f64, f64) {
    let wifi = diffq8_wifi();
    let d = Time::from_secs(10);
    let pos = vec![[0.0, 0.0], [5.0, 0.0], [-5.0, 0.0]];
    let flows = vec![
        FlowConfig {
            priority: low,
            ..saturating(1, 0, d)
        },
        FlowConfig {
            priority: high,
            ..saturating(2, 0, d)
        },
    ];
    let out = run(wifi, pos, flows, d, 2);
    (
        out.metrics.flows[0].goodput_bps(),
        out.metrics.flows[1].goodput_bps(),
    )
}

#[test]
fn higher_edca_level_gets_a_larger_share() {
    for (low, high) in [(0, 1), (0, 4), (3, 4), (4, 7), (6, 7)] {
        let (l, h) = edca_pair(low, high);
        eprintln!("EDCA levels {low} vs {high}: {l:.0} vs {h:.0} b/s");
        assert!(
            h > 1.05 * l,
            "level {high} should beat level {low}: {h} vs {l}"
        );
        if high - low >= 3 {
            assert!(
                h > 2.0 * l,
                "levels {low} and {high} are far apart: {h} vs {l}"
            );
        }
    }
}

/// Every level keeps its own access timing however many a table has. One station gets
/// a packet at level 19 (AIFSN 15) and then one at level 15 (AIFSN 2) of a 20-level
/// table at the same instant on an idle channel: level 15's AIFS ends 13 slots sooner,
/// so its packet goes first. (A MAC keeping grants in a fixed 16-slot table would give
/// levels 15 and up the last one's grant: both would become due at level 19's AIFS and
/// the internal collision would send level 19's packet first.)
#[test]
fn levels_beyond_the_sixteenth_keep_their_own_timing() {
    let mut wifi = WifiConfig::dsss_default();
    let level = |aifsn| EdcaLevel {
        aifsn,
        cw_min: 15,
        cw_max: 1023,
    };
    wifi.levels = vec![level(15); 20];
    wifi.levels[15] = level(2);
    // Room in the MAC for both packets at once.
    wifi.tx_buffer_frames = 4;
    let d = Time::from_millis(100);
    // One packet each, at t = 0 (the next would come 8 s later).
    let one = |priority| FlowConfig {
        priority,
        ..flow(
            1,
            0,
            PAYLOAD,
            FlowKindConfig::Udp(UdpRate::Cbr { rate_bps: 1e3 }),
            d,
        )
    };
    let out = run(
        wifi,
        vec![[0.0, 0.0], [5.0, 0.0]],
        vec![one(19), one(15)],
        d,
        1,
    );
    let delay = |i: usize| out.metrics.flows[i].mean_delay_s().expect("delivered");
    let (late, early) = (delay(0), delay(1));
    eprintln!("level 19 / 15 of 20: delivered after {late:.6} / {early:.6} s");
    assert!(early < late, "level 15 should go first: {early} vs {late}");
}

#[test]
fn equal_edca_levels_share_equally() {
    let mut wifi = WifiConfig::dsss_default();
    wifi.levels = vec![EdcaLevel {
        aifsn: 3,
        cw_min: 15,
        cw_max: 255,
    }];
    let out = star(3, wifi, Time::from_secs(20), 4);
    let g: Vec<f64> = out.metrics.flows.iter().map(|f| f.goodput_bps()).collect();
    let mean = g.iter().sum::<f64>() / 3.0;
    assert!(g.iter().all(|x| (x - mean).abs() / mean < 0.05), "{g:?}");
}

/// Share of data frames sent at each rate by an AARF sender starting at 1 Mb/s, with a
/// receiver at a distance where the mean SNR is `snr_db` and Rayleigh fading.
fn aarf_rate_shares(snr_db: f64) -> [f64; 4] {
    let mut wifi = WifiConfig::dsss_default();
    wifi.rate_control = RateControl::Aarf;
    wifi.data_rate = DsssRate::Mbps1;
    wifi.fading = Fading::Rayleigh;
    // A sensitive receiver, so the rates' SINR thresholds (not a range cut-off) decide.
    wifi.rx_threshold_dbm = wifi.noise_dbm - 6.0;
    wifi.cs_threshold_dbm = wifi.noise_dbm - 6.0;
    let d_m = wifi
        .propagation
        .range_for_threshold(Dbm(wifi.tx_power_dbm), Dbm(wifi.noise_dbm + snr_db));
    let d = Time::from_secs(10);
    let pos = vec![[0.0, 0.0], [d_m, 0.0]];
    let out = run_checked(WorldConfig {
        routing: unit_disk_routing(&pos, d_m + 1.0),
        routing_protocol: None,
        ..wifi_world(wifi, pos, vec![saturating(0, 1, d)], d, 9)
    });
    let by_rate = out.mac[0].data_tx_by_rate;
    let total = by_rate.iter().sum::<u64>() as f64;
    by_rate.map(|c| c as f64 / total)
}

#[test]
fn aarf_climbs_on_a_clean_link_and_settles_lower_on_a_lossy_one() {
    let clean = aarf_rate_shares(40.0);
    let lossy = aarf_rate_shares(11.0);
    eprintln!("AARF share of frames at 1/2/5.5/11 Mb/s: clean {clean:.3?}, lossy {lossy:.3?}");
    assert!(
        clean[3] > 0.95,
        "clean link should run at 11 Mb/s: {clean:?}"
    );
    assert!(
        lossy[3] < 0.5,
        "lossy link should mostly run below 11 Mb/s: {lossy:?}"
    );
    assert!(lossy[0] + lossy[1] + lossy[2] > 0.5, "{lossy:?}");
}

#[test]
fn same_seed_same_bits_other_seed_other_bits() {
    let d = Time::from_secs(3);
    let a = star(10, WifiConfig::dsss_default(), d, 11);
    let b = star(10, WifiConfig::dsss_default(), d, 11);
    let c = star(10, WifiConfig::dsss_default(), d, 12);
    assert_eq!(events_and_delivered(&a), events_and_delivered(&b));
    assert_ne!(events_and_delivered(&a), events_and_delivered(&c));
}
