//! The link-layer sections: wifi as the default medium, `[radio]` and `[mac]` keys with
//! their defaults, presets and exact messages for every bad value.

use super::tests::{base_with, errors, ok, one_error, BASE};
use super::*;
use crate::schema::*;
use airqueue_phy::{threshold_for_range, Dbm, Propagation};
use airqueue_sim::medium::wifi::WifiConfig;

/// BASE plus the given sections.
fn with(sections: &str) -> String {
    format!("{BASE}{sections}")
}

/// The thresholds a model gives at 250 m and 550 m from 20 dBm.
fn thresholds(model: Propagation) -> (f64, f64) {
    (
        threshold_for_range(&model, Dbm(20.0), 250.0).0,
        threshold_for_range(&model, Dbm(20.0), 550.0).0,
    )
}

fn dcf_levels() -> Vec<Level> {
    vec![Level {
        aifsn: 2,
        cw_min: 31,
        cw_max: 1023,
    }]
}

// ---- valid scenarios -------------------------------------------------------------------

#[test]
fn a_file_without_medium_is_wifi_with_the_dsss_defaults() {
    let s = ok(BASE);
    let d = WifiConfig::dsss_default();
    assert_eq!(s.medium, Medium::Wifi);
    assert_eq!(
        s.radio,
        Radio {
            data_rate_bps: 11e6,
            basic_rate_bps: 1e6,
            tx_range_m: 250.0,
            cs_range_m: 550.0,
            propagation: PropagationKind::TwoRayGround,
            fading: Fading::None,
            tx_power_dbm: 20.0,
            rx_threshold_dbm: d.rx_threshold_dbm,
            cs_threshold_dbm: d.cs_threshold_dbm,
            noise_dbm: d.noise_dbm,
            capture_db: 10.0,
            sensed_frames: SensedFrames::RxError,
            late_capture: LateCapture::Preamble,
            preamble_detection_db: None,
            preamble: Preamble::Long,
        }
    );
    assert_eq!(
        s.mac,
        Mac {
            kind: MacKind::Dcf,
            levels: dcf_levels(),
            short_retry_limit: 7,
            long_retry_limit: 4,
            rts_threshold_bytes: None,
            nav_reset_after_rts: false,
            rate_control: RateControl::Constant,
            tx_buffer_frames: 1,
            tdma_slot_bytes: None,
            tdma_slots: Vec::new(),
        }
    );
    // An empty [medium] and an explicit kind = "wifi" mean the same.
    assert_eq!(ok(&with("[medium]\n")), s);
    assert_eq!(ok(&with("[medium]\nkind = \"wifi\"\n[mac]\n[radio]\n")), s);
}

#[test]
fn late_capture_takes_its_names_and_the_booleans_of_its_first_version() {
    for (value, expected) in [
        ("\"preamble\"", LateCapture::Preamble),
        ("\"always\"", LateCapture::Always),
        ("\"never\"", LateCapture::Never),
        ("true", LateCapture::Always),
        ("false", LateCapture::Never),
    ] {
        let s = ok(&with(&format!("[radio]\nlate_capture = {value}\n")));
        assert_eq!(s.radio.late_capture, expected, "{value}");
    }
}

#[test]
fn wired_keeps_its_keys_and_defaults() {
    let s = ok(&with("[medium]\nkind = \"wired\"\n"));
    assert_eq!(
        s.medium,
        Medium::Wired {
            bandwidth_bps: 11e6,
            delay_s: 2e-6
        }
    );
}

#[test]
fn every_radio_key_given() {
    let s = ok(&with(
        "[radio]\ndata_rate = 2e6\nbasic_rate = 2e6\ntx_range = 100\ncs_range = 200\n\
         propagation = \"log-distance\"\npath_loss_exponent = 3.5\nfading = \"rayleigh\"\n\
         tx_power_dbm = 15\nrx_threshold_dbm = -80\ncs_threshold_dbm = -90.5\nnoise_dbm = -95\n\
         capture_db = 0\npreamble = \"short\"\nsensed_frames = \"energy\"\nlate_capture = \"always\"\n\
         preamble_detection_db = 4.5\n",
    ));
    assert_eq!(
        s.radio,
        Radio {
            data_rate_bps: 2e6,
            basic_rate_bps: 2e6,
            tx_range_m: 100.0,
            cs_range_m: 200.0,
            propagation: PropagationKind::LogDistance { exponent: 3.5 },
            fading: Fading::Rayleigh,
            tx_power_dbm: 15.0,
            rx_threshold_dbm: -80.0,
            cs_threshold_dbm: -90.5,
            noise_dbm: -95.0,
            capture_db: 0.0,
            sensed_frames: SensedFrames::EnergyOnly,
            late_capture: LateCapture::Always,
            preamble_detection_db: Some(4.5),
            preamble: Preamble::Short,
        }
    );
}

#[test]
fn thresholds_are_derived_from_the_ranges_under_each_model() {
    let cases = [
        ("two-ray-ground", Propagation::two_ray_ground_default()),
        ("friis", Propagation::friis_default()),
        ("log-distance", Propagation::log_distance(3.0)),
        ("range", Propagation::range(250.0, 550.0)),
    ];
    for (name, model) in cases {
        let s = ok(&with(&format!("[radio]\npropagation = \"{name}\"\n")));
        let (rx, cs) = thresholds(model);
        assert_eq!(
            (s.radio.rx_threshold_dbm, s.radio.cs_threshold_dbm),
            (rx, cs),
            "{name}"
        );
        assert!(cs < rx, "{name}");
    }
    let s = ok(&with(
        "[radio]\npropagation = \"log-distance\"\npath_loss_exponent = 2.5\n",
    ));
    assert_eq!(
        s.radio.propagation,
        PropagationKind::LogDistance { exponent: 2.5 }
    );
    assert_eq!(
        s.radio.rx_threshold_dbm,
        thresholds(Propagation::log_distance(2.5)).0
    );
    // Default exponent.
    let s = ok(&with("[radio]\npropagation = \"log-distance\"\n"));
    assert_eq!(
        s.radio.propagation,
        PropagationKind::LogDistance { exponent: 3.0 }
    );
    // A stronger transmitter raises both derived thresholds by as much.
    let s = ok(&with("[radio]\ntx_power_dbm = 23\n"));
    let (rx, cs) = thresholds(Propagation::two_ray_ground_default());
    assert!((s.radio.rx_threshold_dbm - (rx + 3.0)).abs() < 1e-9);
    assert!((s.radio.cs_threshold_dbm - (cs + 3.0)).abs() < 1e-9);
}

#[test]
fn explicit_thresholds_override_the_derived_ones() {
    let (rx, cs) = thresholds(Propagation::two_ray_ground_default());
    let s = ok(&with("[radio]\nrx_threshold_dbm = -75\n"));
    assert_eq!(
        (s.radio.rx_threshold_dbm, s.radio.cs_threshold_dbm),
        (-75.0, cs)
    );
    let s = ok(&with("[radio]\ncs_threshold_dbm = -99\n"));
    assert_eq!(
        (s.radio.rx_threshold_dbm, s.radio.cs_threshold_dbm),
        (rx, -99.0)
    );
    // Equal thresholds: sensing exactly as far as decoding is allowed.
    let s = ok(&with(
        "[radio]\nrx_threshold_dbm = -80\ncs_threshold_dbm = -80\n",
    ));
    assert_eq!(s.radio.cs_threshold_dbm, -80.0);
}

#[test]
fn edca_defaults_to_the_diffq8_preset() {
    let s = ok(&with("[mac]\nkind = \"edca\"\n"));
    assert_eq!(s.mac.kind, MacKind::Edca);
    let aifsn: Vec<u8> = s.mac.levels.iter().map(|l| l.aifsn).collect();
    let cw_min: Vec<u16> = s.mac.levels.iter().map(|l| l.cw_min).collect();
    let cw_max: Vec<u16> = s.mac.levels.iter().map(|l| l.cw_max).collect();
    assert_eq!(aifsn, [7, 6, 6, 6, 3, 3, 3, 2]);
    assert_eq!(cw_min, [31, 31, 31, 31, 15, 7, 3, 1]);
    assert_eq!(cw_max, [1023, 511, 255, 127, 31, 15, 7, 7]);
    assert_eq!(
        ok(&with("[mac]\nkind = \"edca\"\nlevels = \"diffq8\"\n")).mac,
        s.mac
    );
    // The dcf preset under edca: one level, same parameters as kind = "dcf".
    let one = ok(&with("[mac]\nkind = \"edca\"\nlevels = \"dcf\"\n"));
    assert_eq!(one.mac.levels, dcf_levels());
}

#[test]
fn explicit_levels_table() {
    let s = ok(&with(
        "[mac]\nkind = \"edca\"\n\
         levels = [{ aifsn = 3, cw_min = 31, cw_max = 1023 }, { aifsn = 2, cw_min = 0, cw_max = 7 }]\n",
    ));
    assert_eq!(
        s.mac.levels,
        vec![
            Level {
                aifsn: 3,
                cw_min: 31,
                cw_max: 1023
            },
            Level {
                aifsn: 2,
                cw_min: 0,
                cw_max: 7
            },
        ]
    );
    // The array-of-tables spelling is the same thing.
    let t = ok(&with(
        "[mac]\nkind = \"edca\"\n[[mac.levels]]\naifsn = 3\ncw_min = 31\ncw_max = 1023\n\
         [[mac.levels]]\naifsn = 2\ncw_min = 0\ncw_max = 7\n",
    ));
    assert_eq!(t.mac, s.mac);
}

#[test]
fn rts_threshold_off_zero_and_bytes() {
    let rts = |v: &str| {
        ok(&with(&format!("[mac]\nrts_threshold = {v}\n")))
            .mac
            .rts_threshold_bytes
    };
    assert_eq!(rts("\"off\""), None);
    assert_eq!(rts("0"), Some(0));
    assert_eq!(rts("500"), Some(500));
    assert_eq!(rts("500.0"), Some(500));
}

#[test]
fn every_mac_key_given() {
    let s = ok(&with(
        "[mac]\nkind = \"dcf\"\nshort_retry_limit = 1\nlong_retry_limit = 255\n\
         rts_threshold = 2346\nnav_reset_after_rts = true\nrate_control = \"aarf\"\n\
         tx_buffer = 200\n",
    ));
    assert_eq!(
        s.mac,
        Mac {
            kind: MacKind::Dcf,
            levels: dcf_levels(),
            short_retry_limit: 1,
            long_retry_limit: 255,
            rts_threshold_bytes: Some(2346),
            nav_reset_after_rts: true,
            rate_control: RateControl::Aarf,
            tx_buffer_frames: 200,
            tdma_slot_bytes: None,
            tdma_slots: Vec::new(),
        }
    );
}

#[test]
fn tdma_slots_fit_the_largest_flow_packet_by_default() {
    // BASE's one flow sends 1000-byte payloads: 80 bytes of IP and TCP header on top.
    let s = ok(&with("[mac]\nkind = \"tdma\"\n"));
    assert_eq!(s.mac.kind, MacKind::Tdma);
    assert_eq!(s.mac.tdma_slot_bytes, Some(1080));
    assert_eq!(s.mac.levels, dcf_levels());
    let two = ok(&with(
        "[mac]\nkind = \"tdma\"\n[[flow]]\nkind = \"tcp\"\nsrc = 4\ndst = 0\npacket_size = 1460\n",
    ));
    assert_eq!(two.mac.tdma_slot_bytes, Some(1540));
    let given = ok(&with(
        "[mac]\nkind = \"tdma\"\ntdma_slot_bytes = 600\nshort_retry_limit = 2\n",
    ));
    assert_eq!(given.mac.tdma_slot_bytes, Some(600));
    assert_eq!(given.mac.short_retry_limit, 2);
}

#[test]
fn contention_keys_are_refused_with_tdma_and_the_slot_without_it() {
    assert_eq!(
        errors(&with(
            "[mac]\nkind = \"tdma\"\nlevels = \"diffq8\"\nrts_threshold = 0\n\
             long_retry_limit = 12\n"
        )),
        [
            "mac.levels: not used by kind \"tdma\": it has one buffer and no contention; remove it",
            "mac.rts_threshold: not used by kind \"tdma\": a slot carries no RTS/CTS; remove it",
            "mac.long_retry_limit: not used by kind \"tdma\": it counts frames protected by \
             RTS/CTS, which a slot never carries; short_retry_limit counts every attempt; remove it",
        ]
    );
    assert_eq!(
        one_error(&with(
            "[mac]\nkind = \"tdma\"\nnav_reset_after_rts = true\n"
        )),
        "mac.nav_reset_after_rts: not used by kind \"tdma\": a slot carries no RTS, so no NAV \
         is set from one; remove it"
    );
    assert_eq!(
        one_error(&with("[mac]\ntdma_slot_bytes = 1500\n")),
        "mac.tdma_slot_bytes: used only by kind = \"tdma\"; remove it or set kind = \"tdma\""
    );
    assert_eq!(
        one_error(&with("[mac]\nkind = \"tdma\"\ntdma_slot_bytes = 0\n")),
        "mac.tdma_slot_bytes: expected an integer number of bytes in 1..=65535, got 0"
    );
}

#[test]
fn tdma_slots_give_listed_nodes_more_slots_and_name_each_mistake() {
    let s = ok(&with(
        "[mac]\nkind = \"tdma\"\ntdma_slots = [[2, 4], [0, 1]]\n",
    ));
    assert_eq!(s.mac.tdma_slots, [(2, 4), (0, 1)]);
    assert!(ok(&with("[mac]\nkind = \"tdma\"\n"))
        .mac
        .tdma_slots
        .is_empty());
    let bad = |v: &str| {
        one_error(&with(&format!(
            "[mac]\nkind = \"tdma\"\ntdma_slots = {v}\n"
        )))
    };
    assert_eq!(
        bad("[[2, 0]]"),
        "mac.tdma_slots[0]: expected a [node, slots] pair: a node id and its slots per round \
         in 1..=64, got 0 slots"
    );
    assert!(bad("[[2]]").starts_with("mac.tdma_slots[0]: expected a [node, slots] pair"));
    assert!(bad("3").starts_with("mac.tdma_slots: expected an array of [node, slots] pairs"));
    assert_eq!(
        bad("[[1, 2], [99, 2]]"),
        "mac.tdma_slots[1]: node 99 does not exist; the topology has 5 nodes"
    );
    assert_eq!(
        bad("[[1, 2], [1, 3]]"),
        "mac.tdma_slots[1]: node 1 is listed twice; give each node one entry"
    );
    assert_eq!(
        one_error(&with("[mac]\ntdma_slots = [[1, 2]]\n")),
        "mac.tdma_slots: used only by kind = \"tdma\"; remove it or set kind = \"tdma\""
    );
}

#[test]
fn toml_and_equivalent_json_give_the_same_wifi_scenario() {
    let toml = ok(&with(
        "[medium]\nkind = \"wifi\"\n\
         [radio]\ndata_rate = 5.5e6\npropagation = \"range\"\nfading = \"rayleigh\"\ncs_range = 600\n\
         [mac]\nkind = \"edca\"\nlevels = [{ aifsn = 2, cw_min = 15, cw_max = 1023 }]\n\
         rts_threshold = \"off\"\nrate_control = \"aarf\"\ntx_buffer = 2\n",
    ));
    let json = from_json_str(
        r#"{"duration": 60, "topology": {"kind": "chain", "nodes": 5, "spacing": 200},
            "flow": [{"kind": "udp", "src": 0, "dst": 4, "rate": 1e6}],
            "medium": {"kind": "wifi", "bandwidth": null},
            "radio": {"data_rate": 5500000, "propagation": "range", "fading": "rayleigh",
                      "cs_range": 600.0, "rx_threshold_dbm": null},
            "mac": {"kind": "edca", "levels": [{"aifsn": 2.0, "cw_min": 15, "cw_max": 1023}],
                    "rts_threshold": "off", "rate_control": "aarf", "tx_buffer": 2}}"#,
    )
    .unwrap();
    assert_eq!(toml, json);
    assert_eq!(toml.radio.rx_threshold_dbm, 20.0);
    assert_eq!(toml.radio.cs_threshold_dbm, 19.0);
}

// ---- malformed: one problem each --------------------------------------------------------

#[test]
fn medium_kind_and_wired_keys_under_wifi() {
    assert_eq!(
        one_error(&with("[medium]\nkind = \"wireless\"\n")),
        "medium.kind: unknown kind \"wireless\"; expected one of wifi, wired"
    );
    assert_eq!(
        one_error(&with("[medium]\nkind = \"wiffi\"\n")),
        "medium.kind: unknown kind \"wiffi\"; did you mean \"wifi\"? expected one of wifi, wired"
    );
    assert_eq!(
        errors(&with("[medium]\nbandwidth = 2e6\ndelay = 0.001\n")),
        vec![
            "medium.bandwidth: not used by kind \"wifi\" (the default); bandwidth applies only to kind wired",
            "medium.delay: not used by kind \"wifi\" (the default); delay applies only to kind wired",
        ]
    );
    assert_eq!(
        one_error(&with("[medium]\nkind = \"wifi\"\nbandwidth = 2e6\n")),
        "medium.bandwidth: not used by kind \"wifi\"; bandwidth applies only to kind wired"
    );
    assert_eq!(
        one_error(&with("[medium]\nkind = \"wired\"\nbandwidht = 2e6\n")),
        "medium.bandwidht: unknown key; did you mean \"bandwidth\"?"
    );
    assert_eq!(
        one_error(&with("[medium]\nkind = \"wired\"\nbandwidth = 0\n")),
        "medium.bandwidth: expected bit/s > 0, got 0"
    );
}

#[test]
fn bad_radio_values() {
    let cases = [
        (
            "propagation = \"two-ray\"",
            "radio.propagation: unknown propagation \"two-ray\"; expected one of two-ray-ground, \
             log-distance, friis, range",
        ),
        (
            "propagation = \"frii\"",
            "radio.propagation: unknown propagation \"frii\"; did you mean \"friis\"? expected one \
             of two-ray-ground, log-distance, friis, range",
        ),
        (
            "propagation = 2",
            "radio.propagation: expected one of two-ray-ground, log-distance, friis, range (a \
             string), got 2",
        ),
        (
            "propagation = \"log-distance\"\npath_loss_exponent = 0",
            "radio.path_loss_exponent: expected a path-loss exponent > 0 (2 is free space, 4 the \
             two-ray asymptote), got 0",
        ),
        (
            "path_loss_exponent = 3",
            "radio.path_loss_exponent: not used by propagation \"two-ray-ground\" (the default); \
             path_loss_exponent applies only to propagation log-distance",
        ),
        (
            "propagation = \"friis\"\npath_loss_exponent = 3",
            "radio.path_loss_exponent: not used by propagation \"friis\"; path_loss_exponent \
             applies only to propagation log-distance",
        ),
        (
            "fading = \"rayleig\"",
            "radio.fading: unknown fading \"rayleig\"; did you mean \"rayleigh\"? expected one of \
             none, rayleigh",
        ),
        (
            "fading = false",
            "radio.fading: expected one of none, rayleigh (a string), got false",
        ),
        (
            "capture_db = -1",
            "radio.capture_db: expected a power ratio in dB >= 0, got -1",
        ),
        (
            "sensed_frames = \"eifs\"",
            "radio.sensed_frames: unknown sensed_frames \"eifs\"; expected one of rx_error, energy",
        ),
        (
            "late_capture = \"no\"",
            "radio.late_capture: unknown late_capture \"no\"; expected one of preamble, always, never",
        ),
        (
            "late_capture = 1",
            "radio.late_capture: expected \"preamble\", \"always\" or \"never\" (or true / false \
             for \"always\" / \"never\"), got 1",
        ),
        (
            "preamble_detection_db = \"on\"",
            "radio.preamble_detection_db: expected an SINR in dB in [0, 300] (ns-3 uses 4) or \
             \"off\", got \"on\"",
        ),
        (
            "preamble_detection_db = -1",
            "radio.preamble_detection_db: expected an SINR in dB in [0, 300] (ns-3 uses 4) or \
             \"off\", got -1",
        ),
        (
            "preamble = \"medium\"",
            "radio.preamble: unknown preamble \"medium\"; expected one of long, short",
        ),
        (
            "tx_power_dbm = \"20\"",
            "radio.tx_power_dbm: expected a transmit power in dBm, got \"20\"",
        ),
        (
            "rx_threshold_dbm = [1]",
            "radio.rx_threshold_dbm: expected a receive threshold in dBm, got an array",
        ),
        (
            "cs_threshold_dbm = \"low\"",
            "radio.cs_threshold_dbm: expected a carrier-sense threshold in dBm, got \"low\"",
        ),
        (
            "noise_dbm = true",
            "radio.noise_dbm: expected a noise power in dBm, got true",
        ),
        (
            "tx_powr_dbm = 20",
            "radio.tx_powr_dbm: unknown key; did you mean \"tx_power_dbm\"?",
        ),
    ];
    for (radio, message) in cases {
        assert_eq!(one_error(&with(&format!("[radio]\n{radio}\n"))), message);
    }
}

#[test]
fn carrier_sense_threshold_above_receive_threshold() {
    assert_eq!(
        one_error(&with(
            "[radio]\nrx_threshold_dbm = -80\ncs_threshold_dbm = -70\n"
        )),
        "radio.cs_threshold_dbm: must be <= radio.rx_threshold_dbm (-80 dBm): carrier sense must \
         be at least as sensitive as decoding, got -70"
    );
    assert_eq!(
        one_error(&with("[radio]\ncs_threshold_dbm = -60\n")),
        "radio.cs_threshold_dbm: must be <= radio.rx_threshold_dbm (-68.87 dBm, derived from \
         radio.tx_range = 250 m): carrier sense must be at least as sensitive as decoding, got -60"
    );
    assert_eq!(
        one_error(&with("[radio]\nrx_threshold_dbm = -90\n")),
        "radio.rx_threshold_dbm: must be >= radio.cs_threshold_dbm (-82.57 dBm, derived from \
         radio.cs_range = 550 m): carrier sense must be at least as sensitive as decoding, got \
         -90; raise it or set radio.cs_threshold_dbm"
    );
    // A bad range is reported once, not again as a threshold problem.
    assert_eq!(
        one_error(&with("[radio]\ncs_range = 100\n")),
        "radio.cs_range: must be >= radio.tx_range (250 m): a radio senses at least as far as it \
         decodes, got 100"
    );
}

#[test]
fn levels_are_not_for_dcf() {
    assert_eq!(
        one_error(&with("[mac]\nlevels = \"diffq8\"\n")),
        "mac.levels: not used by kind \"dcf\" (the default), which is one level (aifsn 2, cw_min \
         31, cw_max 1023); set kind = \"edca\" to give levels"
    );
    assert_eq!(
        one_error(&with(
            "[mac]\nkind = \"dcf\"\nlevels = [{ aifsn = 2, cw_min = 31, cw_max = 1023 }]\n"
        )),
        "mac.levels: not used by kind \"dcf\", which is one level (aifsn 2, cw_min 31, cw_max \
         1023); set kind = \"edca\" to give levels"
    );
}

#[test]
fn bad_levels() {
    let edca = |levels: &str| with(&format!("[mac]\nkind = \"edca\"\nlevels = {levels}\n"));
    assert_eq!(
        one_error(&edca("\"diffq\"")),
        "mac.levels: unknown preset \"diffq\"; did you mean \"diffq8\"? expected a preset name \
         (dcf, diffq8) or an array of { aifsn, cw_min, cw_max } tables, lowest priority first"
    );
    assert_eq!(
        one_error(&edca("3")),
        "mac.levels: expected a preset name (dcf, diffq8) or an array of { aifsn, cw_min, cw_max } \
         tables, lowest priority first, got 3"
    );
    let level = "{ aifsn = 2, cw_min = 15, cw_max = 1023 }";
    assert_eq!(
        one_error(&edca(&format!("[{}]", vec![level; 65].join(", ")))),
        "mac.levels: expected at most 64 levels (the MAC resolves internal collisions over a \
         64-bit mask), got 65; merge levels with equal parameters"
    );
    let s = ok(&edca(&format!("[{}]", vec![level; 64].join(", "))));
    assert_eq!(s.mac.levels.len(), 64);
    assert_eq!(
        one_error(&edca("[]")),
        "mac.levels: expected at least one level: a preset name (dcf, diffq8) or an array of { \
         aifsn, cw_min, cw_max } tables, lowest priority first"
    );
    assert_eq!(
        errors(&edca(
            "[{ aifsn = 2, cw_min = 31, cw_max = 1023 }, \
              { aifsn = 1, cw_min = 31, cw_max = 1023 }, \
              { aifsn = 2, cw_min = 30, cw_max = 1023 }, \
              { aifsn = 2, cw_min = 63, cw_max = 31 }, \
              { aifsn = 2, cw_min = 15 }, \
              { aifsn = 2, cw_min = 15, cw_max = 65535, cwmax = 3 }, \
              7]"
        )),
        vec![
            "mac.levels[1].aifsn: expected an AIFSN in 2..=255 (AIFS = SIFS + aifsn slots; 2 gives \
             DIFS), got 1",
            "mac.levels[2].cw_min: expected a contention window in slots, 2^k - 1 in 0..=32767 \
             (such as 15, 31, 1023), got 30; the nearest valid values are 15 and 31",
            "mac.levels[3].cw_max: must be >= cw_min (63), got 31",
            "mac.levels[4].cw_max: missing required key; expected a contention window in slots, \
             2^k - 1 in 0..=32767 (such as 15, 31, 1023)",
            "mac.levels[5].cw_max: expected a contention window in slots, 2^k - 1 in 0..=32767 \
             (such as 15, 31, 1023), got 65535",
            "mac.levels[5].cwmax: unknown key; did you mean \"cw_max\"?",
            "mac.levels[6]: expected a table, got 7",
        ]
    );
}

#[test]
fn bad_mac_values() {
    let cases = [
        (
            "kind = \"csma\"",
            "mac.kind: unknown kind \"csma\"; expected one of dcf, edca, tdma",
        ),
        (
            "kind = \"edc\"",
            "mac.kind: unknown kind \"edc\"; did you mean \"edca\"? expected one of dcf, edca, \
             tdma",
        ),
        (
            "short_retry_limit = 0",
            "mac.short_retry_limit: expected an integer number of attempts in 1..=255, got 0",
        ),
        (
            "long_retry_limit = 256",
            "mac.long_retry_limit: expected an integer number of attempts in 1..=255, got 256",
        ),
        (
            "rts_threshold = \"Off\"",
            "mac.rts_threshold: expected an MPDU size in bytes (an integer >= 0; 0 protects every \
             frame) or \"off\", got \"Off\"; did you mean \"off\"?",
        ),
        (
            "rts_threshold = \"never\"",
            "mac.rts_threshold: expected an MPDU size in bytes (an integer >= 0; 0 protects every \
             frame) or \"off\", got \"never\"",
        ),
        (
            "rts_threshold = -1",
            "mac.rts_threshold: expected an MPDU size in bytes (an integer >= 0; 0 protects every \
             frame) or \"off\", got -1",
        ),
        (
            "rts_threshold = 1.5",
            "mac.rts_threshold: expected an MPDU size in bytes (an integer >= 0; 0 protects every \
             frame) or \"off\", got 1.5",
        ),
        (
            "rate_control = \"arf\"",
            "mac.rate_control: unknown rate_control \"arf\"; did you mean \"aarf\"? expected one of \
             constant, aarf",
        ),
        (
            "tx_buffer = 0",
            "mac.tx_buffer: expected an integer number of frames in 1..=512, got 0",
        ),
        (
            "tx_buffer = 513",
            "mac.tx_buffer: expected an integer number of frames in 1..=512, got 513",
        ),
        (
            "retry_limit = 3",
            "mac.retry_limit: unknown key; expected one of kind, levels, short_retry_limit, \
             long_retry_limit, rts_threshold, nav_reset_after_rts, rate_control, tx_buffer, \
             tdma_slot_bytes, tdma_slots",
        ),
        (
            "nav_reset_after_rts = 1",
            "mac.nav_reset_after_rts: expected true or false, got 1",
        ),
    ];
    for (mac, message) in cases {
        assert_eq!(one_error(&with(&format!("[mac]\n{mac}\n"))), message);
    }
    assert_eq!(
        one_error(&format!("mac = \"edca\"\n{BASE}")),
        "mac: expected a table, got \"edca\""
    );
}

#[test]
fn link_layer_problems_are_reported_together() {
    assert_eq!(
        errors(&base_with(
            "duration = 60",
            "duration = 60\n[medium]\nkind = \"wifi\"\ndelay = 1\n\
             [radio]\npropagation = \"range\"\npath_loss_exponent = 2\ncapture_db = -3\n\
             [mac]\nlevels = \"dcf\"\ntx_buffer = 1000\n"
        )),
        vec![
            "medium.delay: not used by kind \"wifi\"; delay applies only to kind wired",
            "radio.path_loss_exponent: not used by propagation \"range\"; path_loss_exponent \
             applies only to propagation log-distance",
            "radio.capture_db: expected a power ratio in dB >= 0, got -3",
            "mac.levels: not used by kind \"dcf\" (the default), which is one level (aifsn 2, \
             cw_min 31, cw_max 1023); set kind = \"edca\" to give levels",
            "mac.tx_buffer: expected an integer number of frames in 1..=512, got 1000",
        ]
    );
}
