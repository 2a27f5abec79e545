//! Scenario files on the 802.11 medium, end to end: the default medium runs, delivers and
//! conserves packets, with plain DCF and with EDCA levels.

use airqueue_scenario::api::run_value;
use airqueue_scenario::parse::toml_to_json;

fn run(extra: &str) -> airqueue_scenario::api::Run {
    let text = format!(
        "duration = 3.0\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing = 200.0\n\
         [[flow]]\nkind = \"udp\"\nsrc = 0\ndst = 2\npacket_size = 1000\nrate = 5e5\n{extra}"
    );
    run_value(toml_to_json(&text).unwrap(), None, None).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn a_file_without_medium_runs_on_wifi_and_delivers() {
    for extra in [
        "",
        "[mac]\nkind = \"edca\"\nrts_threshold = 0\n",
        "[radio]\npropagation = \"range\"\n[mac]\nrate_control = \"aarf\"\ntx_buffer = 2\n",
    ] {
        let r = run(extra);
        assert!(
            r.outcome.conservation.holds(),
            "{extra}: {:?}",
            r.outcome.conservation
        );
        assert!(
            r.outcome.metrics.delivered > 0,
            "{extra}: nothing delivered"
        );
    }
}
