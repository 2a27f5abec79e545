//! Scenario parsing: valid files of every kind, and malformed ones with their exact
//! messages (the messages are part of the user interface).

use super::*;
use crate::schema::*;
use crate::topology::validate_and_place;
use airqueue_kernel::Time;
use airqueue_sim::qdisc::backpressure::{
    BackpressureConfig, BackpressureVariant, ControlWhen, LinkEstimate, LossCount, UnknownNeighbour,
};
use airqueue_sim::transport::diffq as dq_rate;
use airqueue_sim::transport::udp;

/// A valid five-node chain with one flow; tests append or replace lines.
pub(super) const BASE: &str = r#"
duration = 60
[topology]
kind = "chain"
nodes = 5
spacing = 200
[[flow]]
kind = "udp"
src = 0
dst = 4
rate = 1e6
"#;

#[track_caller]
pub(super) fn errors(toml: &str) -> Vec<String> {
    match from_toml_str(toml) {
        Ok(s) => panic!("expected errors, parsed {s:#?}"),
        Err(e) => e.messages(),
    }
}

#[track_caller]
pub(super) fn one_error(toml: &str) -> String {
    let e = errors(toml);
    assert_eq!(e.len(), 1, "expected one error, got {e:#?}");
    e[0].clone()
}

#[track_caller]
pub(super) fn ok(toml: &str) -> Scenario {
    from_toml_str(toml).unwrap_or_else(|e| panic!("expected a valid scenario, got:\n{e}"))
}

/// BASE with `from` replaced by `to` (which must occur).
#[track_caller]
pub(super) fn base_with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from:?} not in BASE");
    BASE.replacen(from, to, 1)
}

/// The RED settings a scenario of kind = "red" reads as.
fn red_of(s: &Scenario) -> airqueue_sim::RedConfig {
    assert_eq!(s.queue.kind.name, "red");
    airqueue_sim::RedConfig::from_params(&s.queue.params)
}

/// The PI settings a scenario of kind = "pi" reads as.
fn pi_of(s: &Scenario) -> airqueue_sim::PiConfig {
    assert_eq!(s.queue.kind.name, "pi");
    airqueue_sim::PiConfig::from_params(&s.queue.params)
}

// ---- valid scenarios -------------------------------------------------------------------

#[test]
fn defaults_fill_every_optional_section() {
    let s = ok(BASE);
    assert_eq!(s.name, "unnamed");
    assert_eq!(s.duration_s, 60.0);
    assert_eq!(s.warmup_s, 0.0);
    assert_eq!(s.seed, 1);
    assert_eq!(
        s.topology,
        Topology::Chain {
            nodes: 5,
            spacing_m: 200.0
        }
    );
    assert!(s.links.is_empty());
    assert_eq!(s.medium, Medium::Wifi);
    assert_eq!(
        (
            s.radio.data_rate_bps,
            s.radio.basic_rate_bps,
            s.radio.tx_range_m,
            s.radio.cs_range_m
        ),
        (11e6, 1e6, 250.0, 550.0)
    );
    assert_eq!(s.mac.kind, MacKind::Dcf);
    assert_eq!(
        s.routing,
        Routing {
            protocol: None,
            metric: RoutingMetric::Hops,
            params: airqueue_sim::qdisc::registry::Params::of_keys(Vec::new()),
        }
    );
    assert_eq!(
        s.queue,
        QueueSpec {
            kind: &droptail::SCHEME,
            capacity_pkts: 50,
            params: droptail::config(50, None).params,
        }
    );
    assert_eq!(
        s.flows,
        vec![FlowSpec {
            kind: &udp::FLOW_KIND,
            src: 0,
            dst: 4,
            start_s: 0.0,
            stop_s: 60.0,
            packet_size_bytes: 1000,
            priority: 0,
            cc: None,
            params: {
                let mut p = udp::FLOW_KIND.defaults();
                p.set("rate", 1e6);
                p
            },
        }]
    );
    assert_eq!(s.outputs, Outputs { bin_s: 1.0 });
    assert_eq!(
        s.tcp,
        TcpSpec {
            min_rto_s: 0.2,
            initial_rto_s: 1.0,
            delayed_ack: false,
            max_window_pkts: 64,
            ecn: false,
            timestamps: false,
            network_coding: false,
            coding_block_pkts: 32,
            coding_repair_delay_s: 0.2,
        }
    );
    assert_eq!(
        s.rate_control(&dq_rate::SCHEME).params.value("max_rate"),
        Some(11e6),
        "max_rate defaults to the radio's data rate"
    );
}

#[test]
fn every_section_given_explicitly() {
    let s = ok(r#"
name = "full"
duration = 30.0
warmup = 5
seed = 42
[topology]
kind = "grid"
rows = 3
cols = 4
spacing = 100.0
[[link]]
a = 0
b = 1
loss = 0.25
[medium]
kind = "wired"
bandwidth = 2e6
delay = 0.001
[radio]
data_rate = 5.5e6
basic_rate = 2e6
tx_range = 150
cs_range = 300
[routing]
kind = "static"
metric = "etx"
[queue]
kind = "droptail"
capacity = 10
[[flow]]
kind = "udp"
src = 0
dst = 11
start = 1
stop = 20
packet_size = 512
rate = "saturate"
[outputs]
bin = 0.5
"#);
    assert_eq!(s.name, "full");
    assert_eq!((s.warmup_s, s.seed), (5.0, 42));
    assert_eq!(
        s.topology,
        Topology::Grid {
            rows: 3,
            cols: 4,
            spacing_m: 100.0
        }
    );
    assert_eq!(s.topology.node_count(), 12);
    assert_eq!(
        s.links,
        vec![LinkSpec {
            a: 0,
            b: 1,
            loss: 0.25,
            fading: LinkFading::None,
        }]
    );
    assert_eq!(
        s.medium,
        Medium::Wired {
            bandwidth_bps: 2e6,
            delay_s: 0.001
        }
    );
    assert_eq!(s.radio.cs_range_m, 300.0);
    assert_eq!(s.routing.metric, RoutingMetric::Etx);
    assert_eq!(s.queue.capacity_pkts, 10);
    assert_eq!((s.flows[0].start_s, s.flows[0].stop_s), (1.0, 20.0));
    assert_eq!(s.flows[0].params.rate_or_saturate("rate"), None, "saturate");
    assert_eq!(s.outputs.bin_s, 0.5);
}

#[test]
fn star_random_and_explicit_topologies() {
    let star = ok(&base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"star\"\nnodes = 5\nradius = 200",
    ));
    assert_eq!(
        star.topology,
        Topology::Star {
            nodes: 5,
            radius_m: 200.0
        }
    );

    let random = ok(&base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"random\"\nnodes = 5\narea = [500, 400.5]",
    ));
    assert_eq!(
        random.topology,
        Topology::Random {
            nodes: 5,
            area_m: [500.0, 400.5],
            connected: true
        }
    );

    let explicit = ok(&base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"explicit\"\npositions = [[0, 0], [100, 0], [200, 0], [300, 0], [400, -10.5]]",
    ));
    assert_eq!(explicit.topology.node_count(), 5);
    let (_, pos) = validate_and_place(&toml_to_json(&explicit_toml()).unwrap()).unwrap();
    assert_eq!(pos[4], [400.0, -10.5]);
}

fn explicit_toml() -> String {
    base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"explicit\"\npositions = [[0, 0], [100, 0], [200, 0], [300, 0], [400, -10.5]]",
    )
}

#[test]
fn toml_and_equivalent_json_give_the_same_scenario() {
    let toml = ok(&base_with(
        "duration = 60",
        "name = \"same\"\nduration = 60\nseed = 7\n[radio]\ntx_range = 300",
    ));
    let json = from_json_str(
        r#"{"name": "same", "duration": 60.0, "seed": 7.0, "radio": {"tx_range": 300},
            "topology": {"kind": "chain", "nodes": 5.0, "spacing": 200},
            "flow": [{"kind": "udp", "src": 0, "dst": 4, "rate": 1000000, "stop": null}]}"#,
    )
    .unwrap();
    assert_eq!(toml, json);
}

#[test]
fn flows_may_be_absent() {
    let s = ok("duration = 1\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 1");
    assert!(s.flows.is_empty());
}

// ---- malformed scenarios: one problem each ----------------------------------------------

#[test]
fn unknown_top_level_key_suggests_the_nearest() {
    assert_eq!(
        one_error(&format!("durration = 5\n{BASE}")),
        "durration: unknown key; did you mean \"duration\"?"
    );
}

#[test]
fn unknown_nested_key_suggests_the_nearest() {
    assert_eq!(
        one_error(&format!("{BASE}[queue]\ncapacty = 3\n")),
        "queue.capacty: unknown key; did you mean \"capacity\"?"
    );
    assert_eq!(
        one_error(&format!("{BASE}[queue]\nzzz = 3\n")),
        "queue.zzz: unknown key; expected one of kind, capacity, ecn_mark"
    );
}

#[test]
fn wrong_type() {
    assert_eq!(
        one_error(&base_with("duration = 60", "duration = \"60\"")),
        "duration: expected a number of seconds > 0, got \"60\""
    );
    assert_eq!(
        one_error(&format!("{BASE}[topology2]\n")),
        "topology2: unknown key; did you mean \"topology\"?"
    );
    assert_eq!(
        one_error(&format!("radio = 3\n{BASE}")),
        "radio: expected a table, got 3"
    );
}

#[test]
fn negative_duration() {
    assert_eq!(
        one_error(&base_with("duration = 60", "duration = -5")),
        "duration: expected a number of seconds > 0, got -5"
    );
}

#[test]
fn missing_duration_and_topology() {
    assert_eq!(
        errors("[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 1\nrate = 1"),
        vec![
            "duration: missing required key; expected a number of seconds > 0",
            "topology: missing required table; expected [topology] with kind = one of chain, grid, star, random, explicit, bss",
        ]
    );
}

#[test]
fn warmup_not_below_duration() {
    assert_eq!(
        one_error(&base_with("duration = 60", "duration = 60\nwarmup = 60")),
        "warmup: must be less than duration (60 s), got 60"
    );
}

#[test]
fn unknown_topology_kind() {
    assert_eq!(
        one_error(&base_with("kind = \"chain\"", "kind = \"ring\"")),
        "topology.kind: unknown kind \"ring\"; expected one of chain, grid, star, random, explicit, bss"
    );
    assert_eq!(
        one_error(&base_with("kind = \"chain\"", "kind = \"chian\"")),
        "topology.kind: unknown kind \"chian\"; did you mean \"chain\"? expected one of chain, grid, star, random, explicit, bss"
    );
}

#[test]
fn key_not_valid_for_the_kind() {
    assert_eq!(
        one_error(&base_with("nodes = 5\n", "nodes = 5\nrows = 2\n")),
        "topology.rows: not used by kind \"chain\"; rows applies only to kind grid"
    );
    assert_eq!(
        one_error(&base_with(
            "nodes = 5\nspacing = 200",
            "nodes = 5\nradius = 1\nspacing = 200"
        )),
        "topology.radius: not used by kind \"chain\"; radius applies only to kinds star, bss"
    );
}

#[test]
fn flow_node_out_of_range() {
    assert_eq!(
        one_error(&base_with("dst = 4", "dst = 57")),
        "flow[0].dst: node 57 does not exist; the topology has 5 nodes (0..4)"
    );
}

#[test]
fn flow_src_equals_dst() {
    assert_eq!(
        one_error(&base_with("dst = 4", "dst = 0")),
        "flow[0].dst: same node as src (0); a flow needs two different nodes"
    );
}

#[test]
fn unreachable_destination() {
    let v = toml_to_json(&base_with("spacing = 200", "spacing = 300")).unwrap();
    let e = validate_and_place(&v).unwrap_err().messages();
    assert_eq!(
        e,
        vec![
            "flow[0].dst: node 4 is not reachable from node 0 under radio.tx_range = 250 m; the longest hop \
             on the best path between them is 300.0 m: raise radio.tx_range to at least that, move nodes \
             closer or add relays"
        ]
    );
}

#[test]
fn unconnectable_random_topology() {
    let v = toml_to_json(&base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"random\"\nnodes = 5\narea = [1e6, 1e6]",
    ))
    .unwrap();
    let e = validate_and_place(&v).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e.0[0].path, "topology");
    assert!(
        e.0[0]
            .message
            .contains("use a smaller area, more nodes or a larger radio.tx_range"),
        "{e}"
    );
}

#[test]
fn bad_rate_string() {
    assert_eq!(
        one_error(&base_with("rate = 1e6", "rate = \"fast\"")),
        "flow[0].rate: expected bit/s > 0 or \"saturate\", got \"fast\""
    );
    assert_eq!(
        one_error(&base_with("rate = 1e6", "rate = \"saturated\"")),
        "flow[0].rate: expected bit/s > 0 or \"saturate\", got \"saturated\"; did you mean \"saturate\"?"
    );
}

#[test]
fn zero_packet_size() {
    assert_eq!(
        one_error(&base_with("rate = 1e6", "rate = 1e6\npacket_size = 0")),
        "flow[0].packet_size: expected an integer number of bytes in 1..=65000, got 0"
    );
}

#[test]
fn fractional_integer_is_an_error() {
    assert_eq!(
        one_error(&base_with("nodes = 5", "nodes = 5.5")),
        "topology.nodes: expected an integer number of nodes in 2..=10000, got 5.5"
    );
    assert_eq!(
        one_error(&format!("seed = -1\n{BASE}")),
        "seed: expected a non-negative integer, got -1"
    );
}

#[test]
fn stop_not_after_start() {
    assert_eq!(
        one_error(&base_with("rate = 1e6", "rate = 1e6\nstart = 5\nstop = 5")),
        "flow[0].stop: must be greater than start (5 s), got 5"
    );
    assert_eq!(
        one_error(&base_with("rate = 1e6", "rate = 1e6\nstop = 61")),
        "flow[0].stop: must be at most duration (60 s), got 61"
    );
    assert_eq!(
        one_error(&base_with("rate = 1e6", "rate = 1e6\nstart = 60")),
        "flow[0].start: must be less than duration (60 s), got 60"
    );
}

#[test]
fn basic_rate_not_an_80211b_rate() {
    assert_eq!(
        one_error(&format!("{BASE}[radio]\nbasic_rate = 3e6\n")),
        "radio.basic_rate: expected an 802.11b rate in bit/s, one of 1e6, 2e6, 5.5e6, 11e6, got 3000000.0"
    );
}

#[test]
fn cs_range_below_tx_range() {
    assert_eq!(
        one_error(&format!("{BASE}[radio]\ntx_range = 600\n")),
        "radio.cs_range: must be >= radio.tx_range (600 m): a radio senses at least as far as it decodes, \
         got 550 (the default)"
    );
}

#[test]
fn link_loss_of_one() {
    assert_eq!(
        one_error(&format!("{BASE}[[link]]\na = 0\nb = 1\nloss = 1.0\n")),
        "link[0].loss: expected a probability in [0, 1), got 1.0"
    );
}

#[test]
fn link_problems() {
    assert_eq!(
        errors(&format!("{BASE}[[link]]\na = 2\nb = 2\nloss = 0\n[[link]]\na = 0\nb = 1\nloss = 0\n[[link]]\na = 1\nb = 0\nloss = 0.5\n")),
        vec![
            "link[0].b: same node as a (2); a link joins two different nodes",
            "link[2]: nodes 0 and 1 already have a link at link[1]; give each pair once",
        ]
    );
}

#[test]
fn link_fading() {
    let s = from_toml_str(&format!(
        "{BASE}[[link]]\na = 0\nb = 1\nloss = 0.3\nfading = \"rayleigh\"\n[[link]]\na = 1\nb = 2\nloss = 0.3\n"
    ))
    .unwrap();
    let fading: Vec<_> = s.links.iter().map(|l| l.fading).collect();
    assert_eq!(fading, [LinkFading::Rayleigh, LinkFading::None]);
    assert_eq!(
        one_error(&format!(
            "{BASE}[[link]]\na = 0\nb = 1\nloss = 0.3\nfading = \"rician\"\n"
        )),
        "link[0].fading: unknown fading \"rician\"; expected one of none, rayleigh"
    );
    assert_eq!(
        one_error(&format!(
            "{BASE}[radio]\nfading = \"rayleigh\"\n[[link]]\na = 0\nb = 1\nloss = 0.3\nfading = \"rayleigh\"\n"
        )),
        "link[0].fading: \"rayleigh\" gives this link its own fading with average loss `loss`, \
         and radio.fading = \"rayleigh\" already fades every link around its path loss; use one \
         of the two"
    );
    assert_eq!(
        one_error(&format!(
            "{BASE}[medium]\nkind = \"wired\"\n[[link]]\na = 0\nb = 1\nloss = 0.3\nfading = \"rayleigh\"\n"
        )),
        "link[0].fading: \"rayleigh\" needs medium.kind = \"wifi\": wired links do not fade; \
         remove the key"
    );
}

#[test]
fn too_few_nodes() {
    assert_eq!(
        one_error(&base_with(
            "kind = \"chain\"\nnodes = 5\nspacing = 200",
            "kind = \"explicit\"\npositions = [[0, 0]]"
        )),
        "topology.positions: expected 2..=10000 positions (one per node), got 1"
    );
    assert_eq!(
        one_error(&base_with(
            "kind = \"chain\"\nnodes = 5\nspacing = 200",
            "kind = \"star\"\nnodes = 1\nradius = 200"
        )),
        "topology.nodes: expected an integer number of nodes in 2..=10000, got 1"
    );
    assert_eq!(
        one_error(&base_with("nodes = 5", "nodes = 1")),
        "topology.nodes: expected an integer number of nodes in 2..=10000, got 1"
    );
}

#[test]
fn toml_syntax_error_has_line_and_column() {
    let e = one_error("duration = 60\n[topology\nkind = \"chain\"\n");
    assert!(
        e.starts_with("invalid TOML: TOML parse error at line 2, column"),
        "{e}"
    );
}

#[test]
fn json_syntax_error_has_line_and_column() {
    let e = from_json_str("{\"duration\": }").unwrap_err().messages();
    assert_eq!(e, vec!["invalid JSON: expected value at line 1 column 14"]);
    assert_eq!(
        from_json_str("[1]").unwrap_err().messages(),
        vec!["scenario: expected a table, got an array"]
    );
}

#[test]
fn non_finite_and_date_values_are_rejected_at_their_path() {
    assert_eq!(
        errors(&format!("warmup = nan\nwhen = 1979-05-27\n{BASE}")),
        vec![
            "warmup: expected a finite number, got NaN",
            "when: dates are not valid here, got 1979-05-27"
        ]
    );
}

#[test]
fn malformed_positions_and_area() {
    assert_eq!(
        errors(&base_with(
            "kind = \"chain\"\nnodes = 5\nspacing = 200",
            "kind = \"explicit\"\npositions = [[0, 0], [1], [2, \"x\"], 4, [5, 5]]",
        )),
        vec![
            "topology.positions[1]: expected [x, y] in metres, got an array of 1 items",
            "topology.positions[2]: expected [x, y] in metres, got an array",
            "topology.positions[3]: expected [x, y] in metres, got 4",
        ]
    );
    assert_eq!(
        one_error(&base_with(
            "kind = \"chain\"\nnodes = 5\nspacing = 200",
            "kind = \"random\"\nnodes = 5\narea = [0, 10]"
        )),
        "topology.area: expected [width, height] in metres, both > 0, got an array"
    );
}

#[test]
fn multi_problem_file_reports_everything_at_once() {
    let e = errors(
        r#"
duration = -1
seeed = 3
[topology]
kind = "chain"
nodes = 46
spacing = 100
cols = 3
[radio]
basic_rate = 3e6
[queue]
capacity = 0
[[flow]]
kind = "udp"
src = 0
dst = 57
rate = "fast"
packet_size = 70000
[[flow]]
src = 1
dst = 1
rate = 1
"#,
    );
    assert_eq!(
        e,
        vec![
            "duration: expected a number of seconds > 0, got -1",
            "topology.cols: not used by kind \"chain\"; cols applies only to kind grid",
            "radio.basic_rate: expected an 802.11b rate in bit/s, one of 1e6, 2e6, 5.5e6, 11e6, got 3000000.0",
            "queue.capacity: expected an integer number of packets in 1..=100000, got 0",
            "flow[0].dst: node 57 does not exist; the topology has 46 nodes (0..45)",
            "flow[0].packet_size: expected an integer number of bytes in 1..=65000, got 70000",
            "flow[0].rate: expected bit/s > 0 or \"saturate\", got \"fast\"",
            "flow[1].kind: missing required key; expected one of udp, tcp, tfrc, more",
            "flow[1].dst: same node as src (1); a flow needs two different nodes",
            "seeed: unknown key; did you mean \"seed\"?",
        ]
    );
    assert_eq!(e.len(), 10);
}

#[test]
fn no_panic_on_odd_json_shapes() {
    for text in [
        "null",
        "{}",
        r#"{"topology": []}"#,
        r#"{"duration": 1, "topology": {"kind": 3}}"#,
        r#"{"duration": 1, "topology": {"kind": "grid", "rows": 100000, "cols": 100000, "spacing": 1}}"#,
        r#"{"duration": 1e300, "seed": 1e30, "flow": {"src": 0}}"#,
        r#"{"duration": 1, "flow": [1, null, {"src": -1, "dst": 4294967296}], "link": [[]]}"#,
    ] {
        let v: Value = serde_json::from_str(text).unwrap();
        assert!(validate_and_place(&v).is_err(), "{text}");
    }
}

#[test]
fn display_is_one_problem_per_line() {
    let e = from_toml_str("duration = 0").unwrap_err();
    assert_eq!(
        e.to_string(),
        "duration: expected a number of seconds > 0, got 0\n\
         topology: missing required table; expected [topology] with kind = one of chain, grid, star, random, explicit, bss"
    );
}

#[test]
fn flow_priority_must_name_a_mac_level() {
    let base = r#"
        duration = 10.0
        [topology]
        kind = "chain"
        nodes = 2
        spacing = 100.0
        [[flow]]
        kind = "udp"
        src = 0
        dst = 1
        rate = 1e6
        priority = 3
    "#;
    let errs = from_toml_str(base).unwrap_err();
    assert_eq!(
        errs.messages(),
        vec![
            "flow[0].priority: level 3 does not exist; the MAC has 1 level(s) (0..=0); use mac.kind = \"edca\" for more levels"
                .to_string()
        ]
    );
    let ok = format!("{base}\n[mac]\nkind = \"edca\"\n");
    assert_eq!(from_toml_str(&ok).unwrap().flows[0].priority, 3);
}

const TWO_NODES: &str = r#"
    duration = 10.0
    [topology]
    kind = "chain"
    nodes = 3
    spacing = 100.0
"#;

#[track_caller]
fn errors_of(extra: &str) -> Vec<String> {
    from_toml_str(&format!("{TWO_NODES}{extra}"))
        .unwrap_err()
        .messages()
}

#[test]
fn tcp_flows_read_variant_transfer_size_and_tcp_section() {
    let s = from_toml_str(&format!(
        "{TWO_NODES}[tcp]\nmin_rto = 1.0\ninitial_rto = 3.0\ndelayed_ack = true\nmax_window = 20\necn = true\n\
         network_coding = true\ncoding_block = 16\ncoding_repair_delay = 0.5\n\
         [[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 2\nvariant = \"vegas\"\npackets = 500\n"
    ))
    .unwrap();
    let f = &s.flows[0];
    assert_eq!(
        (
            f.kind.name,
            f.params.choice("variant"),
            f.params.optional_count("packets")
        ),
        ("tcp", Some("vegas"), Some(500))
    );
    assert_eq!(
        s.tcp,
        TcpSpec {
            min_rto_s: 1.0,
            initial_rto_s: 3.0,
            delayed_ack: true,
            max_window_pkts: 20,
            ecn: true,
            timestamps: false,
            network_coding: true,
            coding_block_pkts: 16,
            coding_repair_delay_s: 0.5,
        }
    );
}

#[test]
fn tcp_and_udp_keys_do_not_mix() {
    assert_eq!(
        errors_of("[[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 2\nrate = 1e6\nvariant = \"reno\"\n"),
        vec![
            "flow[0].rate: not used by kind \"tcp\"; rate applies only to kind udp",
            "flow[0].variant: unknown variant \"reno\"; expected one of newreno, sack, cubic, vegas, few",
        ]
    );
    assert_eq!(
        errors_of("[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = 1e6\nvariant = \"sack\"\npackets = 3\n"),
        vec![
            "flow[0].variant: not used by kind \"udp\"; variant applies only to kind tcp",
            "flow[0].packets: not used by kind \"udp\"; packets applies only to kind tcp",
        ]
    );
    assert_eq!(
        errors_of("[tcp]\nmax_window = 0\nmin_rto = -1\ninitial_rto = 0\n"),
        vec![
            "tcp.min_rto: expected a number of seconds in (0, 3600], got -1",
            "tcp.initial_rto: expected a number of seconds in (0, 60] (RFC 6298's RTO bound), got 0",
            "tcp.max_window: expected an integer number of packets in 1..=10000, got 0",
        ]
    );
    assert_eq!(
        errors_of("[tcp]\nnetwork_coding = 1\ncoding_block = 0\ncoding_repair_delay = 0\n"),
        vec![
            "tcp.network_coding: expected true or false, got 1",
            "tcp.coding_block: expected an integer number of packets in 1..=1024, got 0",
            "tcp.coding_repair_delay: expected a number of seconds in (0, 60], got 0",
        ]
    );
}

#[test]
fn diffq_queue_and_rate_control_keys() {
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"diffq\"\ncapacity = 100\nper_dest_capacity = 30\n\
         [mac]\nkind = \"edca\"\n[diffq]\nscheduling = false\nutility = \"log\"\nbeta = 0.7\n\
         [[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 2\nvariant = \"sack\"\ncc = \"diffq\"\n"
    ))
    .unwrap();
    assert_eq!(*s.queue.kind, diffq::SCHEME);
    let mut expected = diffq::config(100, 30).params;
    expected.set("scheduling", 0.0);
    assert_eq!(s.queue.params, expected);
    let p = &s.queue.params;
    assert!(!p.flag("scheduling") && p.flag("mac_priority"));
    let rate = s.rate_control(&dq_rate::SCHEME).params;
    assert_eq!(
        (rate.choice("utility"), rate.value("beta")),
        (Some("log"), Some(0.7))
    );
    assert_eq!(s.flows[0].cc, Some(&dq_rate::SCHEME));
}

#[test]
fn diffq_mistakes_are_named() {
    assert_eq!(
        errors_of("[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = 1e6\ncc = \"diffq\"\n"),
        vec!["flow[0].cc: \"diffq\" rate control reads the source's DiffQ queue; set queue.kind = \"diffq\""]
    );
    assert_eq!(
        errors_of("[medium]\nkind = \"wired\"\n[queue]\nkind = \"diffq\"\n"),
        vec!["queue.kind: \"diffq\" needs the 802.11 medium (medium.kind = \"wifi\"), where neighbours overhear each other's queue reports"]
    );
    assert_eq!(
        errors_of("[queue]\nper_dest_capacity = 5\n"),
        vec!["queue.per_dest_capacity: not used by kind \"droptail\" (the default); per_dest_capacity applies only to kind diffq"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"diffq\"\ncapacity = 10\nper_dest_capacity = 20\n[diffq]\nbeta = 1.5\nmin_rate = 2e6\nmax_rate = 1e6\n"),
        vec![
            "queue.per_dest_capacity: must be at most capacity (10 packets), got 20",
            "diffq.beta: expected a factor in (0, 1), got 1.5",
            "diffq.min_rate: must be at most max_rate (1000000 bit/s), got 2000000",
        ]
    );
    assert_eq!(
        errors_of("[diffq]\ninitial_rate = 100\n"),
        vec!["diffq.initial_rate: must lie in [min_rate, max_rate] = [10000, 11000000] bit/s, got 100"]
    );
    // The scheduler switches in [diffq] are checked whatever the queue kind, and a
    // misspelt one is suggested among every key of the table.
    for queue in ["", "[queue]\nkind = \"diffq\"\n"] {
        assert_eq!(
            errors_of(&format!(
                "{queue}[diffq]\nscheduling = 3\nmac_priorty = false\n"
            )),
            vec![
                "diffq.scheduling: expected true or false, got 3",
                "diffq.mac_priorty: unknown key; did you mean \"mac_priority\"?",
            ],
            "{queue}"
        );
    }
    // The rate clock: two names, and a period in (0, 10] s.
    assert_eq!(
        errors_of("[diffq]\nrate_update = \"ack\"\nupdate_interval = 0\n"),
        vec![
            "diffq.rate_update: unknown rate_update \"ack\"; expected one of interval, packet",
            "diffq.update_interval: expected a number of seconds in (0, 10], got 0",
        ]
    );
    assert_eq!(
        errors_of("[tcp]\nmin_rto = 4000\n"),
        vec!["tcp.min_rto: expected a number of seconds in (0, 3600], got 4000"]
    );
    // AIMD with a threshold the destination queue cannot exceed never slows down; the
    // log rule has no threshold, and without a DiffQ flow the key is harmless.
    let flow = "[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = \"saturate\"\ncc = \"diffq\"\n";
    let queue = "[queue]\nkind = \"diffq\"\nper_dest_capacity = 8\n";
    assert_eq!(
        errors_of(&format!("{queue}[diffq]\nqueue_threshold = 8\n{flow}")),
        vec!["diffq.queue_threshold: must be below queue.per_dest_capacity (8 packets), got 8: the source's queue can never exceed it, so the rate would never decrease"]
    );
    for ok in [
        format!("{queue}[diffq]\nqueue_threshold = 7\n{flow}"),
        format!("{queue}[diffq]\nqueue_threshold = 8\nutility = \"log\"\n{flow}"),
        format!("{queue}[diffq]\nqueue_threshold = 8\n"),
    ] {
        from_toml_str(&format!("{TWO_NODES}{ok}")).unwrap();
    }
}

#[test]
fn tfrc_flows_read_ecn_and_droptail_marking() {
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\necn_mark = 0.75\n\
         [[flow]]\nkind = \"tfrc\"\nsrc = 0\ndst = 2\necn = true\n\
         [[flow]]\nkind = \"tfrc\"\nsrc = 2\ndst = 0\npacket_size = 500\n"
    ))
    .unwrap();
    assert_eq!(*s.queue.kind, droptail::SCHEME);
    let params = &s.queue.params;
    assert_eq!(params.optional_real("ecn_mark"), Some(0.75));
    let (a, b) = (&s.flows[0], &s.flows[1]);
    assert_eq!(
        (a.kind.name, a.params.flag("ecn"), a.cc),
        ("tfrc", true, None)
    );
    assert_eq!(
        (b.kind.name, b.params.flag("ecn"), b.packet_size_bytes),
        ("tfrc", false, 500)
    );
}

#[test]
fn the_resolved_scenario_gives_each_flow_its_own_kinds_keys() {
    let s = from_toml_str(&format!(
        "{TWO_NODES}[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = 1e5\n\
         [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = \"saturate\"\n\
         [[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 2\nvariant = \"vegas\"\npackets = 500\n\
         [[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 2\n\
         [[flow]]\nkind = \"tfrc\"\nsrc = 0\ndst = 2\necn = true\n\
         [[flow]]\nkind = \"more\"\nsrc = 0\ndst = 2\nbatch = 8\n"
    ))
    .unwrap();
    let resolved = serde_json::to_value(&s.flows).unwrap();
    let common = serde_json::json!({
        "src": 0, "dst": 2, "start_s": 0.0, "stop_s": 10.0, "packet_size_bytes": 1000,
        "priority": 0, "cc": "none",
    });
    let own = [
        serde_json::json!({"kind": "udp", "rate": {"bps": 1e5}}),
        serde_json::json!({"kind": "udp", "rate": "saturate"}),
        serde_json::json!({"kind": "tcp", "variant": "vegas", "transfer_pkts": 500}),
        serde_json::json!({"kind": "tcp", "variant": "newreno", "transfer_pkts": null}),
        serde_json::json!({"kind": "tfrc", "ecn": true}),
        serde_json::json!({"kind": "more", "batch": 8, "send_cost": 0.0, "receive_cost": 0.0,
            "receive_buffer": 50, "process_acks": false}),
    ];
    for (got, own) in resolved.as_array().unwrap().iter().zip(own) {
        let mut expected = common.as_object().unwrap().clone();
        expected.extend(own.as_object().unwrap().clone());
        assert_eq!(got.as_object().unwrap(), &expected);
    }
}

#[test]
fn tfrc_mistakes_are_named() {
    assert_eq!(
        errors_of(
            "[[flow]]\nkind = \"tfrc\"\nsrc = 0\ndst = 2\nrate = 1e6\nvariant = \"sack\"\n\
             packets = 3\ncc = \"diffq\"\necn = 1\n"
        ),
        vec![
            "flow[0].rate: not used by kind \"tfrc\"; rate applies only to kind udp",
            "flow[0].variant: not used by kind \"tfrc\"; variant applies only to kind tcp",
            "flow[0].packets: not used by kind \"tfrc\"; packets applies only to kind tcp",
            "flow[0].cc: not used by kind \"tfrc\"; cc applies only to kinds udp, tcp, more",
            "flow[0].ecn: expected true or false, got 1",
        ]
    );
    assert_eq!(
        errors_of("[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = 1e6\necn = true\n"),
        vec!["flow[0].ecn: not used by kind \"udp\"; ecn applies only to kind tfrc"]
    );
    assert_eq!(
        errors_of("[queue]\necn_mark = 0\n"),
        vec!["queue.ecn_mark: expected a fraction of the capacity in (0, 1], got 0"]
    );
    assert_eq!(
        errors_of("[queue]\necn_mark = 1.5\n"),
        vec!["queue.ecn_mark: expected a fraction of the capacity in (0, 1], got 1.5"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"diffq\"\necn_mark = 0.5\n"),
        vec!["queue.ecn_mark: not used by kind \"diffq\"; ecn_mark applies only to kind droptail"]
    );
}

#[test]
fn fq_queue_keys() {
    use airqueue_kernel::Time;
    use airqueue_sim::qdisc::{HeldPackets, ReportView};
    use airqueue_sim::{Classify, FqConfig};
    let fq_of = |s: &Scenario| {
        assert_eq!(*s.queue.kind, fq::SCHEME);
        FqConfig::from_params(&s.queue.params)
    };
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"fq\"\ncapacity = 40\nclassify = \"destination\"\n\
         per_flow_capacity = 5\nbackpressure_threshold = 1\nreport_lifetime = 0.02\n"
    ))
    .unwrap();
    let expected = FqConfig {
        capacity_pkts: 40,
        per_flow_capacity: 5,
        classify: Classify::Destination,
        backpressure_threshold: Some(1),
        report_lifetime: Time::from_millis(20),
        view: ReportView::Overheard,
        held: HeldPackets::All,
    };
    assert_eq!(fq_of(&s), expected);
    let udp = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"fq\"\nbackpressure_threshold = 1\nbackpressure_classes = \"udp\"\n"
    ))
    .unwrap();
    assert_eq!(fq_of(&udp).held, HeldPackets::Udp);
    let expected_udp = FqConfig {
        held: HeldPackets::Udp,
        ..fq_of(&udp)
    };
    assert_eq!(expected_udp.qdisc().params, udp.queue.params);
    assert_eq!(expected.qdisc().params, s.queue.params);
    let v = serde_json::to_value(&s.queue).unwrap();
    assert_eq!(
        (
            &v["classify"],
            &v["backpressure_threshold"],
            &v["backpressure_view"]
        ),
        (
            &serde_json::json!("destination"),
            &serde_json::json!(1),
            &serde_json::json!("overheard")
        )
    );
    // Defaults: by source, quota 10, no back-pressure; fq works on wired links too.
    let s = from_toml_str(&format!(
        "{TWO_NODES}[medium]\nkind = \"wired\"\n[queue]\nkind = \"fq\"\n"
    ))
    .unwrap();
    let cfg = fq_of(&s);
    assert_eq!(
        (
            cfg.classify,
            cfg.per_flow_capacity,
            cfg.backpressure_threshold,
            cfg.report_lifetime
        ),
        (Classify::Source, 10, None, Time::from_millis(50))
    );
    assert!(serde_json::to_value(&s.queue).unwrap()["backpressure_threshold"].is_null());
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"fq\"\nbackpressure_threshold = 1\nbackpressure_view = \"exact\"\n"
    ))
    .unwrap();
    assert_eq!(fq_of(&s).view, ReportView::Exact);
    for (key, kind) in [
        ("next_hop", Classify::NextHop),
        ("previous_hop", Classify::PreviousHop),
        ("source", Classify::Source),
    ] {
        let s = from_toml_str(&format!(
            "{TWO_NODES}[queue]\nkind = \"fq\"\nclassify = \"{key}\"\n"
        ))
        .unwrap();
        assert_eq!(fq_of(&s).classify, kind);
    }
}

#[test]
fn fq_mistakes_are_named() {
    assert_eq!(
        errors_of("[queue]\nclassify = \"source\"\nbackpressure_threshold = 1\n"),
        vec![
            "queue.classify: not used by kind \"droptail\" (the default); classify applies only to kind fq",
            "queue.backpressure_threshold: not used by kind \"droptail\" (the default); backpressure_threshold applies only to kind fq",
        ]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"diffq\"\nper_flow_capacity = 3\n"),
        vec!["queue.per_flow_capacity: not used by kind \"diffq\"; per_flow_capacity applies only to kind fq"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"fq\"\ncapacity = 10\nper_flow_capacity = 20\nbackpressure_threshold = 0\n"),
        vec![
            "queue.backpressure_threshold: expected an integer number of packets in 1..=100000, got 0",
            "queue.per_flow_capacity: must be at most capacity (10 packets), got 20",
        ]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"fq\"\nbackpressure_view = \"exact\"\n"),
        vec!["queue.backpressure_view: applies only with back-pressure: set backpressure_threshold too, or drop this key"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"fq\"\nbackpressure_classes = \"udp\"\n"),
        vec!["queue.backpressure_classes: applies only with back-pressure: set backpressure_threshold too, or drop this key"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"fq\"\nbackpressure_threshold = 1\nbackpressure_classes = \"tcp\"\n"),
        vec!["queue.backpressure_classes: unknown backpressure_classes \"tcp\"; expected one of all, udp"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"droptail\"\nbackpressure_classes = \"udp\"\n"),
        vec!["queue.backpressure_classes: not used by kind \"droptail\"; backpressure_classes applies only to kind fq"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"fq\"\nbackpressure_threshold = 1\nbackpressure_view = \"global\"\n"),
        vec!["queue.backpressure_view: unknown backpressure_view \"global\"; expected one of overheard, exact"]
    );
    assert_eq!(
        errors_of("[medium]\nkind = \"wired\"\n[queue]\nkind = \"fq\"\nbackpressure_threshold = 1\nbackpressure_view = \"exact\"\n"),
        vec!["queue.backpressure_view: \"exact\" reads the neighbours' queues on the 802.11 medium: set medium.kind = \"wifi\" or backpressure_view = \"overheard\""]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"fq\"\nclassify = \"next_hop\"\nbackpressure_threshold = 1\n"),
        vec!["queue.backpressure_threshold: applies only to classify = \"source\" or \"destination\" (queue reports are kept per IP source or destination)"]
    );
    assert_eq!(
        one_error(&format!(
            "{BASE}[queue]\nkind = \"fq\"\nclasify = \"source\"\n"
        )),
        "queue.clasify: unknown key; did you mean \"classify\"?"
    );
}

#[test]
fn red_queue_keys() {
    use airqueue_kernel::Time;
    use airqueue_sim::RedConfig;
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"red\"\ncapacity = 60\nmin_threshold = 10\n\
         max_threshold = 40\nmax_p = 0.05\nweight = 0.01\ngentle = false\necn = true\n\
         mean_pkt_time = 0.001\n"
    ))
    .unwrap();
    assert_eq!(s.queue.capacity_pkts, 60);
    assert_eq!(
        red_of(&s),
        RedConfig {
            capacity_pkts: 60,
            min_th: 10.0,
            max_th: 40.0,
            max_p: 0.05,
            weight: 0.01,
            gentle: false,
            ecn: true,
            mean_pkt_time: Time::from_millis(1),
        }
    );
    // Defaults: ns-2's; the idle-time unit is 500 bytes at the wired link's rate (here
    // 4 Mb/s: 1 ms); max_threshold follows min_threshold.
    let s = from_toml_str(&format!(
        "{TWO_NODES}[medium]\nkind = \"wired\"\nbandwidth = 4e6\n[queue]\nkind = \"red\"\n"
    ))
    .unwrap();
    assert_eq!(red_of(&s), RedConfig::ns2(50, 4e6));
    assert_eq!(red_of(&s).mean_pkt_time, Time::from_millis(1));
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"red\"\nmin_threshold = 8\n"
    ))
    .unwrap();
    assert_eq!((red_of(&s).min_th, red_of(&s).max_th), (8.0, 24.0));
    // The resolved scenario shows the derived values.
    let v = serde_json::to_value(&s.queue).unwrap();
    assert_eq!(
        (v["max_threshold"].as_f64(), v["mean_pkt_time"].as_f64()),
        (Some(24.0), Some(0.000363637))
    );
}

#[test]
fn pi_queue_keys() {
    use airqueue_kernel::Time;
    use airqueue_sim::PiConfig;
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"pi\"\ncapacity = 100\nq_ref = 30\na = 2e-5\nb = 1.9e-5\n\
         sample_hz = 100\necn = true\n"
    ))
    .unwrap();
    assert_eq!(
        pi_of(&s),
        PiConfig {
            capacity_pkts: 100,
            q_ref: 30.0,
            a: 2e-5,
            b: 1.9e-5,
            period: Time::from_millis(10),
            ecn: true,
        }
    );
    let v = serde_json::to_value(&s.queue).unwrap();
    assert_eq!(
        (v["q_ref"].as_f64(), v["sample_hz"].as_f64()),
        (Some(30.0), Some(100.0))
    );
    // Defaults: Hollot et al.'s gains at 160 Hz, aiming at half the buffer.
    let s = from_toml_str(&format!("{TWO_NODES}[queue]\nkind = \"pi\"\n")).unwrap();
    assert_eq!(
        (s.queue.capacity_pkts, pi_of(&s)),
        (50, PiConfig::hollot(50))
    );
    assert_eq!(pi_of(&s).q_ref, 25.0);
}

#[test]
fn red_and_pi_mistakes_are_named() {
    assert_eq!(
        errors_of("[queue]\nkind = \"red\"\nmin_threshold = 5\nmax_threshold = 3\n"),
        vec!["queue.max_threshold: must be greater than min_threshold (5 packets), got 3"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"red\"\ncapacity = 10\n"),
        vec!["queue.max_threshold: must be at most capacity (10 packets), got 15 (the default, 3 x min_threshold)"]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"red\"\nmin_threshold = -1\nmax_p = 0\nweight = 1.5\ngentle = 1\nmean_pkt_time = 0\n"),
        vec![
            "queue.min_threshold: expected a number of packets >= 0, got -1",
            "queue.max_p: expected a probability in (0, 1], got 0",
            "queue.weight: expected a weight in (0, 1], got 1.5",
            "queue.gentle: expected true or false, got 1",
            "queue.mean_pkt_time: expected a number of seconds in (0, 3600], got 0",
        ]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"pi\"\ncapacity = 40\nq_ref = 40\na = 1e-5\nb = 2e-5\nsample_hz = 0\n"),
        vec![
            "queue.sample_hz: expected a sampling rate in (0, 1e6] Hz, got 0",
            "queue.q_ref: must be below capacity (40 packets), got 40",
            "queue.b: must be at most a (0.00001), got 0.00002: a - b is the integral gain, which must not be negative",
        ]
    );
    // Keys of one kind under another: named, with the kinds that take them.
    assert_eq!(
        errors_of("[queue]\nkind = \"pi\"\nmin_threshold = 5\nq_ref = 10\n"),
        vec![
            "queue.min_threshold: not used by kind \"pi\"; min_threshold applies only to kind red"
        ]
    );
    assert_eq!(
        errors_of("[queue]\necn = true\nsample_hz = 100\n"),
        vec![
            "queue.ecn: not used by kind \"droptail\" (the default); ecn applies only to kinds red, pi, codel, fq_codel",
            "queue.sample_hz: not used by kind \"droptail\" (the default); sample_hz applies only to kinds pi, dqm",
        ]
    );
    // A saturating source cannot keep an AQM queue full; a CBR rate can overload it.
    assert_eq!(
        errors_of("[queue]\nkind = \"pi\"\n[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = \"saturate\"\n"),
        vec!["flow[0].rate: \"saturate\" keeps the source's queue full, which an active queue manager (queue.kind = \"pi\") does not allow; give a rate in bit/s above what the path carries instead"]
    );
    ok(&format!(
        "{TWO_NODES}[queue]\nkind = \"red\"\n[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = 20e6\n\
         [[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 2\n"
    ));
    assert_eq!(
        one_error(&format!("{BASE}[queue]\nkind = \"rde\"\n")),
        "queue.kind: unknown kind \"rde\"; did you mean \"red\"? expected one of droptail, fq, red, pi, dqm, codel, fq_codel, diffq, backpressure"
    );
    assert_eq!(
        one_error(&format!(
            "{BASE}[queue]\nkind = \"red\"\nmax_treshold = 20\n"
        )),
        "queue.max_treshold: unknown key; did you mean \"max_threshold\"?"
    );
}

/// The backpressure settings the world gets from a two-node scenario with `queue`.
fn bp_of(queue: &str) -> BackpressureConfig {
    let s = from_toml_str(&format!(
        "{TWO_NODES}[queue]\nkind = \"backpressure\"\n{queue}\n"
    ))
    .unwrap();
    assert_eq!(*s.queue.kind, backpressure::SCHEME);
    assert_eq!(s.queue.params.capacity_pkts, s.queue.capacity_pkts);
    BackpressureConfig::from_params(&s.queue.params)
}

#[test]
fn backpressure_queue_keys() {
    let cfg = bp_of("variant = \"classical\"\nreport_lifetime = 0.2");
    assert_eq!(
        (cfg.variant, cfg.capacity_pkts),
        (BackpressureVariant::Classical, 100),
        "seed 002's 100-packet buffer by default"
    );
    assert_eq!(cfg.report_lifetime, Time::from_millis(200));
    let cfg = bp_of("capacity = 40");
    assert_eq!(
        (cfg.variant, cfg.capacity_pkts),
        (BackpressureVariant::TcpAware, 40)
    );
    let defaults = BackpressureConfig::from_params(&backpressure::config(40).params);
    assert_eq!(cfg, defaults);
}

#[test]
fn backpressure_mistakes_are_named() {
    assert_eq!(
        errors_of("[queue]\nkind = \"backpressure\"\nvariant = \"fast\"\ncapacity = 0\n"),
        vec![
            "queue.capacity: expected an integer number of packets in 1..=100000, got 0",
            "queue.variant: unknown variant \"fast\"; expected one of tcp_aware, classical",
        ]
    );
    assert_eq!(
        errors_of("[queue]\nvariant = \"classical\"\n"),
        vec!["queue.variant: not used by kind \"droptail\" (the default); variant applies only to kind backpressure"]
    );
    // Its keys come from its scheme: a misspelling is matched against them, and the
    // intervals keep their own wording.
    assert_eq!(
        errors_of(
            "[queue]\nkind = \"backpressure\"\ncontol_interval = 0.1\nestimate_interval = 0\n"
        ),
        vec![
            "queue.estimate_interval: expected a number of seconds in (0, 3600] (seed 002's T, \
             footnote 2), got 0",
            "queue.contol_interval: unknown key; did you mean \"control_interval\"?",
        ]
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"backpressure\"\ncontrol_interval = 1e-9\n"),
        vec![
            "queue.control_interval: 1e-9 s is below 1e-6 s, the shortest period or timeout \
              accepted (the clock ticks in nanoseconds, and a timer rounded to 0 ns would fire \
              without end at one instant); use at least 1e-6 s"
        ]
    );
    assert_eq!(
        errors_of("[medium]\nkind = \"wired\"\n[queue]\nkind = \"backpressure\"\n"),
        vec!["queue.kind: \"backpressure\" needs the 802.11 medium (medium.kind = \"wifi\"), where neighbours overhear each other's queue reports"]
    );
}

#[test]
fn backpressure_link_estimate_and_control_keys() {
    let cfg = bp_of("link_estimate = \"configured\"\nreport_lifetime = 0.2");
    assert_eq!(cfg.link_estimate, LinkEstimate::Configured);
    // Default: half the report lifetime.
    assert_eq!(cfg.control_interval, Some(Time::from_millis(100)));
    assert_eq!(
        bp_of("estimate_interval = 0.5").link_estimate,
        LinkEstimate::Measured {
            interval: Time::from_millis(500),
            count: LossCount::Packets
        }
    );
    let bad = |body: &str, key: &str| {
        let text = errors_of(&format!("[queue]\n{body}\n")).join("\n");
        assert!(text.contains(key), "{text}");
    };
    bad(
        "kind = \"backpressure\"\nlink_estimate = \"oracle\"",
        "queue.link_estimate",
    );
    bad(
        "kind = \"backpressure\"\nestimate_interval = 0",
        "queue.estimate_interval",
    );
    bad(
        "kind = \"backpressure\"\ncontrol_interval = -1",
        "queue.control_interval",
    );
    bad(
        "kind = \"droptail\"\ncontrol_interval = 0.1",
        "queue.control_interval",
    );
    assert_eq!(
        bp_of("loss_count = \"attempts\"").link_estimate,
        LinkEstimate::Measured {
            interval: Time::from_secs(1),
            count: LossCount::Attempts
        }
    );
    assert!(bp_of("").avoid_overflow, "footnote 5's rule by default");
    assert!(!bp_of("avoid_overflow = false").avoid_overflow);
    bad(
        "kind = \"backpressure\"\navoid_overflow = \"yes\"",
        "queue.avoid_overflow",
    );
    bad(
        "kind = \"fq\"\navoid_overflow = true",
        "queue.avoid_overflow",
    );
    assert_eq!(
        bp_of("control_when = \"changed\"").control_when,
        ControlWhen::Changed
    );
    bad(
        "kind = \"backpressure\"\ncontrol_when = \"always\"",
        "queue.control_when: unknown control_when \"always\"",
    );
    bad(
        "kind = \"backpressure\"\ncontrol_interval = 0\ncontrol_when = \"changed\"",
        "queue.control_when: control packets are off (control_interval = 0)",
    );
    for (value, kind) in [
        ("zero", UnknownNeighbour::Zero),
        ("exclude", UnknownNeighbour::Exclude),
        ("k", UnknownNeighbour::AtK),
    ] {
        let cfg = bp_of(&format!("unknown_neighbour = \"{value}\""));
        assert_eq!(cfg.unknown_neighbour, kind);
    }
    bad(
        "kind = \"backpressure\"\nunknown_neighbour = \"ignore\"",
        "queue.unknown_neighbour: unknown unknown_neighbour \"ignore\"",
    );
    bad(
        "kind = \"droptail\"\nunknown_neighbour = \"exclude\"",
        "queue.unknown_neighbour",
    );
    bad(
        "kind = \"backpressure\"\nloss_count = \"frames\"",
        "queue.loss_count: unknown loss_count \"frames\"",
    );
    assert_eq!(
        errors_of("[queue]\nkind = \"backpressure\"\nlink_estimate = \"configured\"\nloss_count = \"packets\"\n"),
        vec!["queue.loss_count: applies only to measured estimates: drop it, or set link_estimate = \"measured\""]
    );
}

#[test]
fn outputs_bin_is_a_period_between_the_clock_tick_and_the_longest_run() {
    // A bin past the longest run would overflow the clock at its first sample.
    assert_eq!(
        errors_of("[outputs]\nbin = 9223372036854775807\n"),
        vec![
            "outputs.bin: 9.223372036854776e18 s is longer than the longest run (1e9 s); use \
             at most 1e9 s"
        ]
    );
    assert_eq!(
        errors_of("[outputs]\nbin = 1e-7\n")[0],
        "outputs.bin: 1e-7 s is below 1e-6 s, the shortest period or timeout accepted (the \
         clock ticks in nanoseconds, and a timer rounded to 0 ns would fire without end at \
         one instant); use at least 1e-6 s"
    );
    let one_bin = from_toml_str(&format!("{TWO_NODES}[outputs]\nbin = 1e9\n")).unwrap();
    assert_eq!(one_bin.outputs.bin_s, 1e9);
}
