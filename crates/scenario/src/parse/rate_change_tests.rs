//! `[[rate_change]]`: a valid schedule reaches the world, and each mistake gets its exact
//! message naming the key path.

use super::tests::{base_with, errors, ok, one_error};
use super::toml_to_json;
use crate::build::world_config;
use crate::schema::*;
use crate::topology::validate_and_place;
use airqueue_kernel::Time;
use airqueue_phy::DsssRate;
use airqueue_sim::medium::wifi::RateChange;
use airqueue_sim::{MediumConfig, NodeId};

/// A BSS of four stations and one wired host (node 5), plus `extra`.
fn bss(extra: &str) -> String {
    let s = base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"bss\"\nstations = 4\nradius = 10",
    );
    format!("{s}{extra}")
}

const DROP: &str = "[[rate_change]]\nat = 30.0\nnodes = [3, 4]\ndata_rate = 2e6\n";

#[test]
fn a_schedule_reaches_the_wifi_medium_in_file_order() {
    let text = bss(&format!(
        "{DROP}[[rate_change]]\nat = 10\nnodes = [0]\ndata_rate = 5.5e6\n"
    ));
    let s = ok(&text);
    assert_eq!(
        s.rate_changes,
        [
            RateChangeSpec {
                at_s: 30.0,
                nodes: vec![3, 4],
                data_rate_bps: 2e6,
            },
            RateChangeSpec {
                at_s: 10.0,
                nodes: vec![0],
                data_rate_bps: 5.5e6,
            },
        ]
    );
    let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    let MediumConfig::WifiAndWires { wifi, .. } = world_config(&s, &pos).medium else {
        panic!("a BSS has wires beside the channel")
    };
    assert_eq!(
        wifi.rate_changes,
        [
            RateChange {
                at: Time::from_secs(30),
                nodes: vec![NodeId(3), NodeId(4)],
                rate: DsssRate::Mbps2,
            },
            RateChange {
                at: Time::from_secs(10),
                nodes: vec![NodeId(0)],
                rate: DsssRate::Mbps5_5,
            },
        ]
    );
    // Without the key: no changes.
    assert!(ok(&bss("")).rate_changes.is_empty());
}

#[test]
fn bad_values_name_their_key_path() {
    let e = errors(&bss(
        "[[rate_change]]\nat = 60\nnodes = [9, 5, 1, 1]\ndata_rate = 3e6\n",
    ));
    assert_eq!(
        e,
        [
            "rate_change[0].at: 60 s is not within the run; give a time in [0, 60) \
             (duration = 60 s)",
            "rate_change[0].nodes[0]: node 9 does not exist; the topology has 6 nodes (0..5)",
            "rate_change[0].nodes[1]: node 5 is a wired host, not on the 802.11 channel; a \
             rate change applies to nodes with a radio (0..=4)",
            "rate_change[0].nodes[3]: node 1 is already listed at rate_change[0].nodes[2]; \
             list each node once",
            "rate_change[0].data_rate: expected an 802.11b rate in bit/s, one of 1e6, 2e6, \
             5.5e6, 11e6, got 3000000.0",
        ]
    );
    assert_eq!(
        one_error(&bss(
            "[[rate_change]]\nat = -1\nnodes = [1]\ndata_rate = 2e6\n"
        )),
        "rate_change[0].at: expected a time in seconds >= 0, got -1"
    );
    assert_eq!(
        one_error(&bss(
            "[[rate_change]]\nat = 1\nnodes = []\ndata_rate = 2e6\n"
        )),
        "rate_change[0].nodes: expected a non-empty array of node ids, e.g. nodes = [5, 6], \
         got an array"
    );
    assert_eq!(
        errors(&bss("[[rate_change]]\nnode = [1]\n")),
        [
            "rate_change[0].at: missing required key; expected a time in seconds >= 0",
            "rate_change[0].nodes: missing required key; expected a non-empty array of node \
             ids, e.g. nodes = [5, 6]",
            "rate_change[0].data_rate: missing required key; expected an 802.11b rate in \
             bit/s, one of 1e6, 2e6, 5.5e6, 11e6",
            "rate_change[0].node: unknown key; did you mean \"nodes\"?",
        ]
    );
}

#[test]
fn aarf_and_the_wired_medium_are_refused() {
    assert_eq!(
        one_error(&bss(&format!("{DROP}[mac]\nrate_control = \"aarf\"\n"))),
        "rate_change: sets link rates on a schedule, which does not go with \
         mac.rate_control = \"aarf\" (AARF picks its own rates); set mac.rate_control = \
         \"constant\" or remove [[rate_change]]"
    );
    let wired = format!(
        "{}[medium]\nkind = \"wired\"\nbandwidth = 1e6\ndelay = 0.001\n\
         [[rate_change]]\nat = 1\nnodes = [1]\ndata_rate = 2e6\n",
        super::tests::BASE
    );
    assert_eq!(
        one_error(&wired),
        "rate_change: changes the 802.11 data rate, but medium.kind is \"wired\"; remove \
         [[rate_change]] or set medium.kind = \"wifi\""
    );
}
