//! Every message a bad `[routing]` table gives, word for word: an unknown key with its
//! did-you-mean, a key of another kind or of another `lq_algorithm`, out of range, of the
//! wrong type, an unknown choice, and the checks between keys. Each case is the body of
//! `[routing]` in a six-node 802.11 chain that is otherwise valid.

use airqueue_scenario::parse::from_toml_str;

/// (body of `[routing]`, every message, in order).
const CASES: &[(&str, &[&str])] = &[
    (
        "kind = \"aodvv\"",
        &[
            "routing.kind: unknown kind \"aodvv\"; did you mean \"aodv\"? expected one of static, aodv, olsr",
        ],
    ),
    (
        "kind = 3",
        &[
            "routing.kind: expected one of static, aodv, olsr (a string), got 3",
        ],
    ),
    (
        "kind = \"static\"\ntc_interval = 1",
        &[
            "routing.tc_interval: not used by kind \"static\"; tc_interval applies only to kind olsr",
        ],
    ),
    (
        "kind = \"static\"\nhello_interval = 1",
        &[
            "routing.hello_interval: not used by kind \"static\"; hello_interval applies only to kinds aodv, olsr",
        ],
    ),
    (
        "buffer_timeout = 3",
        &[
            "routing.buffer_timeout: not used by kind \"static\" (the default); buffer_timeout applies only to kind aodv",
        ],
    ),
    (
        "kind = \"aodv\"\nmetric = \"etx\"",
        &[
            "routing.metric: not used by kind \"aodv\"; metric applies only to kinds static, olsr",
        ],
    ),
    (
        "kind = \"olsr\"\nmetric = \"ett\"",
        &[
            "routing.metric: unknown metric \"ett\"; did you mean \"etx\"? expected one of hops, etx",
        ],
    ),
    (
        "kind = \"static\"\nmetric = 1",
        &[
            "routing.metric: expected one of hops, etx (a string), got 1",
        ],
    ),
    (
        "kind = \"static\"\nmetric = \"etx\"\nlocal_repair = true\nlq_window = 3",
        &[
            "routing.local_repair: not used by kind \"static\"; local_repair applies only to kind aodv",
            "routing.lq_window: not used by kind \"static\"; lq_window applies only to kind olsr",
        ],
    ),
    (
        "kind = \"bogus\"\nlocal_repair = true\ntc_interval = 1",
        &[
            "routing.kind: unknown kind \"bogus\"; expected one of static, aodv, olsr",
        ],
    ),
    (
        "kind = \"static\"\nhello_intervall = 1",
        &[
            "routing.hello_intervall: unknown key; expected one of kind, metric",
        ],
    ),
    (
        "kind = \"aodv\"\nttl_strat = 2",
        &[
            "routing.ttl_strat: unknown key; did you mean \"ttl_start\"?",
        ],
    ),
    (
        "kind = \"aodv\"\nnet_diameter = 0",
        &[
            "routing.net_diameter: expected an integer number of hops in 1..=255, got 0",
        ],
    ),
    (
        "kind = \"aodv\"\nnet_diameter = 256",
        &[
            "routing.net_diameter: expected an integer number of hops in 1..=255, got 256",
        ],
    ),
    (
        "kind = \"aodv\"\nnet_diameter = 35.5",
        &[
            "routing.net_diameter: expected an integer number of hops in 1..=255, got 35.5",
        ],
    ),
    (
        "kind = \"aodv\"\nactive_route_timeout = -1",
        &[
            "routing.active_route_timeout: expected seconds in (0, 3600], got -1",
        ],
    ),
    (
        "kind = \"aodv\"\nactive_route_timeout = 1e-9",
        &[
            "routing.active_route_timeout: 1e-9 s is below 1e-6 s, the shortest period or timeout accepted (the clock ticks in nanoseconds, and a timer rounded to 0 ns would fire without end at one instant); use at least 1e-6 s",
        ],
    ),
    (
        "kind = \"aodv\"\nactive_route_timeout = \"3\"",
        &[
            "routing.active_route_timeout: expected seconds in (0, 3600], got \"3\"",
        ],
    ),
    (
        "kind = \"aodv\"\nnode_traversal_time = 11",
        &[
            "routing.node_traversal_time: expected seconds in (0, 10], got 11",
        ],
    ),
    (
        "kind = \"aodv\"\nrreq_retries = 17",
        &[
            "routing.rreq_retries: expected an integer in 0..=16, got 17",
        ],
    ),
    (
        "kind = \"aodv\"\nrreq_retries = 2.5",
        &[
            "routing.rreq_retries: expected an integer in 0..=16, got 2.5",
        ],
    ),
    (
        "kind = \"aodv\"\nttl_threshold = 40",
        &[
            "routing.ttl_threshold: must be at most net_diameter (35), got 40: past the threshold requests cover the whole network with TTL = net_diameter",
        ],
    ),
    (
        "kind = \"aodv\"\nttl_start = 9",
        &[
            "routing.ttl_start: must be at most ttl_threshold (7), got 9: the expanding ring starts at ttl_start and widens up to ttl_threshold",
        ],
    ),
    (
        "kind = \"aodv\"\nttl_start = 5\nttl_threshold = 3\nnet_diameter = 2",
        &[
            "routing.ttl_start: must be at most ttl_threshold (3), got 5: the expanding ring starts at ttl_start and widens up to ttl_threshold",
        ],
    ),
    (
        "kind = \"aodv\"\nttl_increment = 0",
        &[
            "routing.ttl_increment: expected an integer number of hops in 1..=255, got 0",
        ],
    ),
    (
        "kind = \"aodv\"\nbuffer_capacity = 0",
        &[
            "routing.buffer_capacity: expected an integer number of packets in 1..=100000, got 0",
        ],
    ),
    (
        "kind = \"aodv\"\nbuffer_capacity = 100001",
        &[
            "routing.buffer_capacity: expected an integer number of packets in 1..=100000, got 100001",
        ],
    ),
    (
        "kind = \"aodv\"\nbuffer_timeout = 0",
        &[
            "routing.buffer_timeout: expected seconds in (0, 3600], got 0",
        ],
    ),
    (
        "kind = \"aodv\"\nlink_detection = \"helo\"",
        &[
            "routing.link_detection: unknown link_detection \"helo\"; did you mean \"hello\"? expected one of mac, hello",
        ],
    ),
    (
        "kind = \"aodv\"\nlink_detection = true",
        &[
            "routing.link_detection: expected one of mac, hello (a string), got true",
        ],
    ),
    (
        "kind = \"aodv\"\nhello_interval = 0",
        &[
            "routing.hello_interval: expected seconds in (0, 3600], got 0",
        ],
    ),
    (
        "kind = \"aodv\"\nhello_interval = 1e-9",
        &[
            "routing.hello_interval: 1e-9 s is below 1e-6 s, the shortest period or timeout accepted (the clock ticks in nanoseconds, and a timer rounded to 0 ns would fire without end at one instant); use at least 1e-6 s",
        ],
    ),
    (
        "kind = \"aodv\"\nallowed_hello_loss = 0",
        &[
            "routing.allowed_hello_loss: expected an integer in 1..=255, got 0",
        ],
    ),
    (
        "kind = \"aodv\"\nlocal_repair = 1",
        &[
            "routing.local_repair: expected true or false, got 1",
        ],
    ),
    (
        "kind = \"aodv\"\ntc_redundancy = 2",
        &[
            "routing.tc_redundancy: not used by kind \"aodv\"; tc_redundancy applies only to kind olsr",
        ],
    ),
    (
        "kind = \"aodv\"\nlq_windw = 3",
        &[
            "routing.lq_windw: unknown key; expected one of kind, active_route_timeout, net_diameter, node_traversal_time, rreq_retries, ttl_start, ttl_increment, ttl_threshold, buffer_capacity, buffer_timeout, link_detection, hello_interval, allowed_hello_loss, local_repair",
        ],
    ),
    (
        "kind = \"aodv\"\nxyz = 1",
        &[
            "routing.xyz: unknown key; expected one of kind, active_route_timeout, net_diameter, node_traversal_time, rreq_retries, ttl_start, ttl_increment, ttl_threshold, buffer_capacity, buffer_timeout, link_detection, hello_interval, allowed_hello_loss, local_repair",
        ],
    ),
    (
        "kind = \"aodv\"\nnet_diameter = 0\nttl_start = 0\nlocal_repair = \"yes\"",
        &[
            "routing.net_diameter: expected an integer number of hops in 1..=255, got 0",
            "routing.ttl_start: expected an integer number of hops in 1..=255, got 0",
            "routing.local_repair: expected true or false, got \"yes\"",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_interval = 0",
        &[
            "routing.hello_interval: expected seconds in (0, 3600], got 0",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_interval = 4000",
        &[
            "routing.hello_interval: expected seconds in (0, 3600], got 4000",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_interval = 1e-9",
        &[
            "routing.hello_interval: 1e-9 s is below 1e-6 s, the shortest period or timeout accepted (the clock ticks in nanoseconds, and a timer rounded to 0 ns would fire without end at one instant); use at least 1e-6 s",
        ],
    ),
    (
        "kind = \"olsr\"\nneighb_hold_time = 1.5",
        &[
            "routing.neighb_hold_time: expected seconds in (2, 3600], more than hello_interval, got 1.5",
        ],
    ),
    (
        "kind = \"olsr\"\nneighb_hold_time = 1.0",
        &[
            "routing.neighb_hold_time: expected seconds in (2, 3600], more than hello_interval, got 1.0",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_interval = 1\nneighb_hold_time = 4000",
        &[
            "routing.neighb_hold_time: expected seconds in (1, 3600], more than hello_interval, got 4000",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_interval = 0\nneighb_hold_time = 1",
        &[
            "routing.hello_interval: expected seconds in (0, 3600], got 0",
            "routing.neighb_hold_time: expected seconds in (2, 3600], more than hello_interval, got 1",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_interval = 0.5\nneighb_hold_time = \"x\"",
        &[
            "routing.neighb_hold_time: expected seconds in (0.5, 3600], more than hello_interval, got \"x\"",
        ],
    ),
    (
        "kind = \"olsr\"\ntc_interval = 2\ntop_hold_time = 2",
        &[
            "routing.top_hold_time: expected seconds in (2, 3600], more than tc_interval, got 2",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_algorithm = \"etx_fpm\"",
        &[
            "routing.lq_algorithm: unknown lq_algorithm \"etx_fpm\"; did you mean \"etx_ff\"? expected one of etx_ff, hello_window",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_algorithm = 1",
        &[
            "routing.lq_algorithm: expected one of etx_ff, hello_window (a string), got 1",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_algorithm = \"hello_window\"\nlq_window = 65",
        &[
            "routing.lq_window: expected an integer number of HELLOs in 1..=64, got 65",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_algorithm = \"hello_window\"\nlq_window = 0",
        &[
            "routing.lq_window: expected an integer number of HELLOs in 1..=64, got 0",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_window = 12",
        &[
            "routing.lq_window: not used by lq_algorithm \"etx_ff\" (the default); lq_window applies only to lq_algorithm hello_window",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_algorithm = \"etx_ff\"\nlq_window = 12",
        &[
            "routing.lq_window: not used by lq_algorithm \"etx_ff\"; lq_window applies only to lq_algorithm hello_window",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_algorithm = \"bogus\"\nlq_window = 12",
        &[
            "routing.lq_algorithm: unknown lq_algorithm \"bogus\"; expected one of etx_ff, hello_window",
        ],
    ),
    (
        "kind = \"olsr\"\njitter = 0.6",
        &[
            "routing.jitter: expected seconds in [0, 0.5], at most a quarter of the shorter of hello_interval and tc_interval (RFC 5148), got 0.6",
        ],
    ),
    (
        "kind = \"olsr\"\njitter = -0.1",
        &[
            "routing.jitter: expected seconds in [0, 0.5], at most a quarter of the shorter of hello_interval and tc_interval (RFC 5148), got -0.1",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_interval = 0.4\njitter = 0.2",
        &[
            "routing.jitter: expected seconds in [0, 0.1], at most a quarter of the shorter of hello_interval and tc_interval (RFC 5148), got 0.2",
        ],
    ),
    (
        "kind = \"olsr\"\ntc_interval = 1\njitter = 0.5",
        &[
            "routing.jitter: expected seconds in [0, 0.25], at most a quarter of the shorter of hello_interval and tc_interval (RFC 5148), got 0.5",
        ],
    ),
    (
        "kind = \"olsr\"\nwarm_start = 1",
        &[
            "routing.warm_start: expected true or false, got 1",
        ],
    ),
    (
        "kind = \"olsr\"\ntc_redundancy = 3",
        &[
            "routing.tc_redundancy: expected TC_REDUNDANCY of RFC 3626 section 15.1: 0 (MPR selectors), 1 (and MPRs) or 2 (every symmetric neighbour, olsrd's default), got 3",
        ],
    ),
    (
        "kind = \"olsr\"\ntc_redundancy = -1",
        &[
            "routing.tc_redundancy: expected TC_REDUNDANCY of RFC 3626 section 15.1: 0 (MPR selectors), 1 (and MPRs) or 2 (every symmetric neighbour, olsrd's default), got -1",
        ],
    ),
    (
        "kind = \"olsr\"\nlocal_repair = true",
        &[
            "routing.local_repair: not used by kind \"olsr\"; local_repair applies only to kind aodv",
        ],
    ),
    (
        "kind = \"olsr\"\nhello_intervall = 1",
        &[
            "routing.hello_intervall: unknown key; did you mean \"hello_interval\"?",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_windw = 3",
        &[
            "routing.lq_windw: unknown key; expected one of kind, metric, hello_interval, tc_interval, neighb_hold_time, top_hold_time, lq_algorithm, jitter, warm_start, tc_redundancy",
        ],
    ),
    (
        "kind = \"olsr\"\nlq_algorithm = \"hello_window\"\nlq_windw = 3",
        &[
            "routing.lq_windw: unknown key; did you mean \"lq_window\"?",
        ],
    ),
    (
        "kind = \"olsr\"\nzzz = 1",
        &[
            "routing.zzz: unknown key; expected one of kind, metric, hello_interval, tc_interval, neighb_hold_time, top_hold_time, lq_algorithm, jitter, warm_start, tc_redundancy",
        ],
    ),
];

#[test]
fn bad_routing_tables_give_these_messages() {
    let mut wrong = Vec::new();
    for (body, expected) in CASES {
        let text = format!(
            "duration = 10.0\n[topology]\nkind = \"chain\"\nnodes = 6\nspacing = 200.0\n\
             [routing]\n{body}\n\
             [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 5\nrate = 100e3\n"
        );
        let got = match from_toml_str(&text) {
            Ok(_) => Vec::new(),
            Err(e) => e.messages(),
        };
        if got != *expected {
            wrong.push(format!(
                "[routing]\n{body}\n  expected {expected:#?}\n  got {got:#?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_cases_are_distinct_and_each_is_refused() {
    for (i, (body, expected)) in CASES.iter().enumerate() {
        assert!(!expected.is_empty(), "{body}");
        assert!(CASES[..i].iter().all(|(b, _)| b != body), "{body}");
    }
}
