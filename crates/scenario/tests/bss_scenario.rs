//! An infrastructure BSS from a scenario file (`[topology] kind = "bss"`): an access point
//! (node 0) with stations on the 802.11 channel and a wired host behind a 100 Mb/s, 25 ms
//! wire. The wire adds its delay and nothing else: UDP gets its offered rate, TCP gets the
//! goodput of the one 802.11 hop; the wired host is never on the channel.

use airqueue_kernel::Time;
use airqueue_phy::dsss::{self, DsssRate, Preamble};
use airqueue_scenario::api::{run_json, run_value, Run};
use airqueue_scenario::parse::toml_to_json;
use airqueue_sim::net::DropReason;
use serde_json::Value;

/// Two stations 10 m from the AP and one wired host (node 3), 802.11b at 11 Mb/s.
const BSS: &str = "[topology]\nkind = \"bss\"\nstations = 2\nradius = 10\n";
/// The same AP and station 1 without the wire: one 802.11 hop.
const ONE_HOP: &str = "[topology]\nkind = \"star\"\nnodes = 2\nradius = 10\n";
const WIRED_HOST: u32 = 3;

#[track_caller]
fn run(topology: &str, rest: &str, duration_s: f64) -> Run {
    let text = format!("duration = {duration_s}\nwarmup = 2\n{topology}{rest}");
    let run = run_value(toml_to_json(&text).unwrap(), None, None)
        .unwrap_or_else(|e| panic!("{text}\n{e:?}"));
    assert!(
        run.outcome.conservation.holds(),
        "{:?}",
        run.outcome.conservation
    );
    run
}

fn udp(src: u32, dst: u32, rate: &str) -> String {
    format!(
        "[[flow]]\nkind = \"udp\"\nsrc = {src}\ndst = {dst}\nrate = {rate}\npacket_size = 1000\n"
    )
}

fn tcp(src: u32, dst: u32) -> String {
    format!("[[flow]]\nkind = \"tcp\"\nvariant = \"sack\"\nsrc = {src}\ndst = {dst}\npacket_size = 1000\n")
}

/// Goodput of flow 0 in bit/s.
fn goodput(run: &Run) -> f64 {
    run.outcome.metrics.flows[0].goodput_bps()
}

#[test]
fn udp_between_wired_host_and_station_gets_its_rate_and_the_wire_delay() {
    // The least one-way delay: the wire's 25 ms and serialisation (1028-byte IP packet
    // at 100 Mb/s), then the data frame at 11 Mb/s with at least MAC header and FCS
    // added (no wait before it: the medium was idle for DIFS already, so the MAC sends
    // at once, IEEE 802.11-2016 10.3.4.2).
    let ip_bytes = 1028;
    let floor = Time::from_millis(25)
        + Time::for_bits(ip_bytes * 8, 100e6)
        + dsss::frame_duration(
            ip_bytes as u32 + dsss::DATA_OVERHEAD_BYTES,
            DsssRate::Mbps11,
            Preamble::Long,
        );
    for (src, dst) in [(WIRED_HOST, 1), (1, WIRED_HOST)] {
        let r = run(BSS, &udp(src, dst, "1e6"), 12.0);
        let f = &r.outcome.metrics.flows[0];
        let (gp, delay) = (goodput(&r), f.mean_delay_s().unwrap());
        eprintln!("UDP {src} -> {dst}: goodput {gp:.0} b/s, mean one-way delay {delay:.5} s");
        assert!((gp - 1e6).abs() < 0.01e6, "{src} -> {dst}: {gp} b/s");
        assert!(delay >= floor.as_secs_f64(), "{src} -> {dst}: {delay} s");
        assert!(
            delay < floor.as_secs_f64() + 0.005,
            "{src} -> {dst}: {delay} s"
        );
        assert_eq!(r.outcome.metrics.dropped, 0);
    }
}

#[test]
fn tcp_over_the_wire_matches_one_802_11_hop() {
    // The window covers the wire's bandwidth-delay product at what one 802.11b hop can
    // carry (below the airtime bound of `airqueue_analytic::airtime`, about 6 Mb/s, x 52 ms
    // = 39 packets), so the radio hop stays the bottleneck.
    let tcp_cfg = "[tcp]\nmax_window = 64\n";
    let one_hop = goodput(&run(ONE_HOP, &format!("{tcp_cfg}{}", tcp(0, 1)), 20.0));
    let one_hop_up = goodput(&run(ONE_HOP, &format!("{tcp_cfg}{}", tcp(1, 0)), 20.0));
    for (src, dst, reference) in [(WIRED_HOST, 1, one_hop), (1, WIRED_HOST, one_hop_up)] {
        let gp = goodput(&run(BSS, &format!("{tcp_cfg}{}", tcp(src, dst)), 20.0));
        eprintln!(
            "TCP {src} -> {dst}: {gp:.0} b/s; one 802.11 hop without the wire: {reference:.0} b/s \
             ({:.1} %)",
            100.0 * gp / reference
        );
        assert!(
            (gp - reference).abs() <= 0.1 * reference,
            "{src} -> {dst}: {gp} b/s against {reference} b/s"
        );
    }
}

#[test]
fn a_bss_run_conserves_packets_and_repeats_itself() {
    let text = format!(
        "duration = 8\n{BSS}{}{}{}",
        tcp(WIRED_HOST, 1),
        tcp(2, WIRED_HOST),
        udp(WIRED_HOST, 2, "2e6")
    );
    let v = toml_to_json(&text).unwrap().to_string();
    let a: Value = serde_json::from_str(&run_json(&v, None, None)).unwrap();
    let b: Value = serde_json::from_str(&run_json(&v, None, None)).unwrap();
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["summary"]["conservation"]["holds"], true);
    // Everything but the wall clock (and the events per wall second) is the same.
    let same = |k: &str| {
        k == "wall_seconds" || k == "events_per_second" || a["summary"][k] == b["summary"][k]
    };
    assert!(
        a["summary"]
            .as_object()
            .unwrap()
            .keys()
            .all(|k| same(k.as_str())),
        "{a}\n{b}"
    );
    assert_eq!(a["tables"], b["tables"]);
    // The wired host is not on the channel: its position is unknown (null in JSON).
    assert_eq!(
        a["tables"]["nodes"]["x_m"][WIRED_HOST as usize],
        Value::Null
    );
    assert_eq!(a["tables"]["nodes"]["x_m"][1], 10.0);
}

#[test]
fn the_wired_host_is_not_on_the_channel() {
    // Traffic both ways through the AP: the wired host's radio never senses, receives or
    // sends anything, while the others do.
    let r = run(
        BSS,
        &format!("{}{}", udp(WIRED_HOST, 1, "1e6"), udp(2, WIRED_HOST, "1e6")),
        5.0,
    );
    let mac = &r.outcome.mac;
    assert_eq!(mac.len(), 4);
    assert_eq!(mac[WIRED_HOST as usize], Default::default());
    for (node, m) in mac[..3].iter().enumerate() {
        assert!(m.rx_ok > 0 && m.busy_time > Time::ZERO, "{node}");
    }
    assert_eq!(r.outcome.metrics.dropped, 0);
}

#[test]
fn wires_are_drop_tail_of_wire_capacity_and_the_radio_keeps_the_queue_kind() {
    // 8 Mb/s from the wired host: the 100 Mb/s wire carries it, the AP's radio cannot, so
    // the AP's queue (capacity 7) overflows.
    let r = run(
        BSS,
        &format!("[queue]\ncapacity = 7\n{}", udp(WIRED_HOST, 1, "8e6")),
        4.0,
    );
    let m = &r.outcome.metrics;
    let at = |node: u32| m.drops[node as usize][DropReason::QueueOverflow.index()];
    assert!(at(0) > 0 && at(WIRED_HOST) == 0, "{m:?}");
    let ap_max = (r.outcome.traces.queues.iter())
        .filter(|q| q.node.0 == 0)
        .map(|q| q.len_pkts)
        .max();
    assert_eq!(ap_max, Some(7));
    // A 1 Mb/s wire with room for 5 packets drops at the wired host instead.
    let narrow = BSS.replace(
        "radius = 10\n",
        "radius = 10\nwire_bandwidth = 1e6\nwire_capacity = 5\n",
    );
    let r = run(&narrow, &udp(WIRED_HOST, 1, "2e6"), 4.0);
    let m = &r.outcome.metrics;
    let at = |node: u32| m.drops[node as usize][DropReason::QueueOverflow.index()];
    assert!(at(WIRED_HOST) > 0 && at(0) == 0, "{m:?}");
    let host_max = (r.outcome.traces.queues.iter())
        .filter(|q| q.node.0 == WIRED_HOST)
        .map(|q| q.len_pkts)
        .max();
    assert_eq!(host_max, Some(5));
}
