//! Property test over whole scenarios: whatever mix of media, queues, transports and
//! schemes a valid scenario combines, the run finishes without a panic, every packet is
//! accounted for (the conservation law of DESIGN.md), and the same scenario gives the
//! same bits twice. Media: wired; 802.11 with drop-tail + ECN marking; DiffQ with EDCA
//! (half of it with a 200-frame driver buffer under fading);
//! 802.11 with per-flow fair queuing and back-pressure; wired RED and 802.11 PI, with or
//! without ECN; on 802.11, chains and access points with a wired host.

use airqueue_scenario::api::run_value;
use proptest::prelude::*;
use serde_json::{json, Value};

/// One flow of any kind the schema offers; `diffq` says whether DiffQ is available (wifi
/// medium with DiffQ queues), since DiffQ rate control needs it.
fn flow(nodes: u32, diffq: bool) -> impl Strategy<Value = Value> {
    (0..nodes, 1..nodes, 0u8..6, any::<bool>(), 0.0f64..1.5, prop_oneof![Just(200u32), Just(1000), Just(1400)]).prop_map(
        move |(src, step, kind, flag, start, size)| {
            let dst = (src + step) % nodes;
            let mut f = match kind {
                0 => json!({"kind": "udp", "rate": 300e3 + 2e6 * start}),
                1 => json!({"kind": "udp", "rate": "saturate"}),
                2 => {
                    let variant = ["sack", "newreno", "cubic"][(start * 2.0) as usize % 3];
                    json!({"kind": "tcp", "variant": variant})
                }
                3 => json!({"kind": "tcp", "variant": if flag { "vegas" } else { "few" }}),
                4 => json!({"kind": "tfrc", "ecn": flag}),
                _ if diffq => json!({"kind": if flag { "tcp" } else { "udp" }, "cc": "diffq", "rate": "saturate"}),
                _ => json!({"kind": "udp", "rate": 1e6}),
            };
            if f["kind"] == "tcp" {
                f.as_object_mut().unwrap().remove("rate");
                if f.get("variant").is_none() {
                    f["variant"] = json!("sack");
                }
            }
            f["src"] = json!(src);
            f["dst"] = json!(dst);
            f["start"] = json!(start);
            f["packet_size"] = json!(size);
            f
        },
    )
}

fn scenario() -> impl Strategy<Value = Value> {
    (3u32..7, 0u8..5, any::<bool>(), any::<u64>())
        .prop_flat_map(|(nodes, medium, fading, seed)| {
            let diffq = medium == 2;
            (
                Just((nodes, medium, fading, seed)),
                proptest::collection::vec(flow(nodes, diffq), 1..4),
            )
        })
        .prop_map(|((nodes, medium, fading, seed), flows)| {
            let mut s = json!({
                "duration": 3.0,
                "seed": seed,
                "topology": {"kind": "chain", "nodes": nodes, "spacing": 180.0},
                "flow": flows,
                "tcp": {"max_window": 32},
            });
            match medium {
                0 => s["medium"] = json!({"kind": "wired", "bandwidth": 2e6, "delay": 0.001}),
                1 => {
                    s["radio"] = json!({"fading": if fading { "rayleigh" } else { "none" }});
                    s["queue"] = json!({"kind": "droptail", "capacity": 20, "ecn_mark": 0.75});
                    s["mac"] = json!({"rts_threshold": if fading { 0 } else { 4000 }});
                }
                2 => {
                    // Half with a driver buffer and fading: frames of several levels wait
                    // in the MAC at once and some ACKs are lost, so retries interleave.
                    s["mac"] = json!({"kind": "edca", "levels": "diffq8", "tx_buffer": if fading { 200 } else { 1 }});
                    s["radio"] = json!({"fading": if fading { "rayleigh" } else { "none" }});
                    s["queue"] = json!({"kind": "diffq", "capacity": 60, "per_dest_capacity": 20});
                }
                3 => {
                    s["medium"] = json!({"kind": "wired", "bandwidth": 2e6, "delay": 0.001});
                    s["queue"] = json!({"kind": "red", "capacity": 30, "ecn": fading});
                    s["tcp"]["ecn"] = json!(fading);
                }
                _ => {
                    s["queue"] = json!({"kind": "pi", "capacity": 40, "q_ref": 10, "ecn": fading});
                    s["tcp"]["ecn"] = json!(fading);
                }
            }
            // On 802.11, half the cases are an access point with stations 100 m away and
            // one wired host instead of the chain (the same node count).
            if medium % 3 != 0 && seed % 2 == 0 {
                s["topology"] = json!({
                    "kind": "bss", "stations": nodes - 2, "radius": 100.0, "wire_delay": 0.01,
                    "wire_capacity": 20,
                });
            }
            // An AQM does not let a source keep its queue full: overload it at a rate.
            if medium >= 3 {
                for f in s["flow"].as_array_mut().unwrap() {
                    if f["rate"] == "saturate" {
                        f["rate"] = json!(3e6);
                    }
                }
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_valid_scenario_runs_conserves_packets_and_repeats_itself(s in scenario()) {
        let a = run_value(s.clone(), None, None);
        prop_assert!(a.is_ok(), "scenario rejected: {:?}\n{s}", a.err());
        let a = a.unwrap();
        let c = a.outcome.conservation;
        prop_assert!(c.holds(), "conservation {c:?}\n{s}");
        prop_assert!(c.created > 0, "nothing sent\n{s}");
        let b = run_value(s.clone(), None, None).unwrap();
        prop_assert_eq!(a.outcome.events, b.outcome.events);
        let delivered = |r: &airqueue_scenario::api::Run| -> Vec<u64> {
            r.outcome.metrics.flows.iter().map(|f| f.packets_delivered).collect()
        };
        prop_assert_eq!(delivered(&a), delivered(&b));
    }
}
