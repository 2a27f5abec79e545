//! The report's `routes` and `links` tables (what the run viewer draws): a flow's path
//! hop by hop over the static routes, and the neighbour pairs the PHY connects.

use airqueue_scenario::api::run_json;
use airqueue_scenario::parse::toml_to_json;
use serde_json::Value;

fn tables(text: &str) -> Value {
    let report: Value = serde_json::from_str(&run_json(
        &toml_to_json(text).unwrap().to_string(),
        None,
        None,
    ))
    .unwrap();
    assert_eq!(report["ok"], true, "{report}");
    report["tables"].clone()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

#[test]
fn a_chain_routes_hop_by_hop_over_its_radio_links() {
    let t = tables(
        "duration = 1.0\n[topology]\nkind = \"chain\"\nnodes = 4\nspacing = 200.0\n\
         [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 3\nrate = 1e5\n\
         [[flow]]\nkind = \"udp\"\nsrc = 2\ndst = 1\nrate = 1e5\n",
    );
    let routes = &t["routes"];
    assert_eq!(ints(&routes["flow"]), [0, 0, 0, 0, 1, 1]);
    assert_eq!(ints(&routes["hop"]), [0, 1, 2, 3, 0, 1]);
    assert_eq!(ints(&routes["node"]), [0, 1, 2, 3, 2, 1]);
    // 200 m apart with a 250 m decode range: neighbours only, no 400 m pairs.
    let links = &t["links"];
    assert_eq!(ints(&links["a"]), [0, 1, 2]);
    assert_eq!(ints(&links["b"]), [1, 2, 3]);
    for k in links["kind"].as_array().unwrap() {
        assert_eq!(k, "radio");
    }
    let power: Vec<f64> = links["rx_power_dbm"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(power
        .iter()
        .all(|p| (p - power[0]).abs() < 1e-9 && p.is_finite()));
}

#[test]
fn an_explicit_rx_threshold_sets_the_links_not_tx_range() {
    // A receive threshold far below the default makes the 400 m pairs radio links too.
    let text = |extra: &str| {
        format!(
            "duration = 1.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing = 200.0\n\
             [radio]\n{extra}\n[[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\nrate = 1e5\n"
        )
    };
    let near = tables(&text(""));
    assert_eq!(ints(&near["links"]["a"]).len(), 2);
    let far = tables(&text(
        "rx_threshold_dbm = -100.0\ncs_threshold_dbm = -101.0",
    ));
    assert_eq!(ints(&far["links"]["a"]), [0, 0, 1]);
    assert_eq!(ints(&far["links"]["b"]), [1, 2, 2]);
}

#[test]
fn a_bss_has_wires_to_its_hosts() {
    let t = tables(
        "duration = 1.0\n[topology]\nkind = \"bss\"\nstations = 2\nradius = 50.0\n\
         [[flow]]\nkind = \"udp\"\nsrc = 3\ndst = 1\nrate = 1e5\n",
    );
    let links = &t["links"];
    let kinds: Vec<&str> = links["kind"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["radio", "radio", "radio", "wire"]);
    assert_eq!(ints(&links["b"])[3], 3);
    assert!(links["rx_power_dbm"][3].is_null());
    assert_eq!(ints(&t["routes"]["node"]), [3, 0, 1]);
}

/// The links of a random mesh are exactly the pairs within decode range by the
/// definition (received power over the two-ray model at or above the receive threshold,
/// which the default `tx_range` of 250 m sets), found without the all-pairs loop.
#[test]
fn random_mesh_links_are_every_pair_within_decode_range() {
    let report: Value = serde_json::from_str(&run_json(
        &toml_to_json(
            "duration = 0.5\n[topology]\nkind = \"random\"\nnodes = 120\narea = [1500.0, 1500.0]\n\
             [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 1\nrate = 1e5\n",
        )
        .unwrap()
        .to_string(),
        None,
        None,
    ))
    .unwrap();
    let t = &report["tables"];
    let xs: Vec<f64> = t["nodes"]["x_m"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let ys: Vec<f64> = t["nodes"]["y_m"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let mut expected = Vec::new();
    for a in 0..xs.len() {
        for b in a + 1..xs.len() {
            let d = (xs[a] - xs[b]).hypot(ys[a] - ys[b]);
            // Two-ray ground is strictly decreasing, so within 1 mm of the range the
            // pair is left out of the comparison rather than decided by rounding.
            if (d - 250.0).abs() > 1e-3 && d < 250.0 {
                expected.push((a as i64, b as i64));
            }
        }
    }
    let got: Vec<(i64, i64)> = ints(&t["links"]["a"])
        .into_iter()
        .zip(ints(&t["links"]["b"]))
        .filter(|&(a, b)| {
            let d = (xs[a as usize] - xs[b as usize]).hypot(ys[a as usize] - ys[b as usize]);
            (d - 250.0).abs() > 1e-3
        })
        .collect();
    assert!(expected.len() > 100, "{}", expected.len());
    assert_eq!(got, expected);
}
