//! Seed 004's setting (`examples/bss-downlink.toml`: four downlink and four uplink TCP
//! flows through an access point, ECN on) under drop-tail, PI and DQM at the access
//! point's radio queue: the uplink/downlink goodput ratio, Jain's index over the eight
//! flows and the aggregate goodput, for a few seeds.
//!
//! Asserted: what seed 004 claims in direction (section IV.A: DQM's up/down ratio close
//! to 1, its fairness index higher than the baseline's), per seed. Not asserted: the
//! aggregate (the paper reports no loss for DQM; docs/reproductions/dqm.md compares), and anything
//! about PI, which runs at every radio interface (stations too) and is here for
//! reference only.

use airqueue_scenario::api::{run_value, Run};
use airqueue_scenario::parse::toml_to_json;

const EXAMPLE: &str = include_str!("../../../examples/bss-downlink.toml");
const SEEDS: [u64; 3] = [1, 2, 3];

/// What one run gives: uplink/downlink aggregate ratio, Jain's index, aggregate (b/s).
#[derive(Clone, Copy, Debug)]
struct Outcome {
    ratio: f64,
    jain: f64,
    aggregate_bps: f64,
}

/// The example with ECN on and `queue` as its `[queue]` section.
fn scenario(queue: &str) -> String {
    let text = EXAMPLE.replace("[tcp]\n", "[tcp]\necn = true\n");
    let old = "[queue]\nkind = \"droptail\"\ncapacity = 100\n";
    assert!(text.contains(old));
    text.replace(old, &format!("[queue]\n{queue}"))
}

#[track_caller]
fn run(queue: &str, seed: u64) -> Outcome {
    let r: Run = run_value(toml_to_json(&scenario(queue)).unwrap(), Some(seed), None)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        r.outcome.conservation.holds(),
        "{:?}",
        r.outcome.conservation
    );
    let gp: Vec<f64> = r
        .outcome
        .metrics
        .flows
        .iter()
        .map(|f| f.goodput_bps())
        .collect();
    assert_eq!(gp.len(), 8);
    // Flows 0-3: wired host -> stations 1-4 (downlink); 4-7: stations 5-8 -> host.
    let (down, up): (f64, f64) = (gp[..4].iter().sum(), gp[4..].iter().sum());
    let sum: f64 = gp.iter().sum();
    let squares: f64 = gp.iter().map(|x| x * x).sum();
    Outcome {
        ratio: up / down.max(1.0),
        jain: sum * sum / (gp.len() as f64 * squares),
        aggregate_bps: sum,
    }
}

#[test]
fn dqm_against_drop_tail_and_pi_at_the_access_point() {
    let kinds = [
        ("droptail", "kind = \"droptail\"\ncapacity = 100\n"),
        ("pi", "kind = \"pi\"\ncapacity = 100\necn = true\n"),
        ("dqm", "kind = \"dqm\"\n"),
    ];
    let mut table = Vec::new();
    for (name, queue) in kinds {
        for seed in SEEDS {
            let o = run(queue, seed);
            eprintln!(
                "{name:8} seed {seed}: up/down {:6.2}  Jain {:.3}  aggregate {:.2} Mb/s",
                o.ratio,
                o.jain,
                o.aggregate_bps / 1e6
            );
            table.push((name, seed, o));
        }
    }
    let of = |name: &str, seed: u64| table.iter().find(|t| t.0 == name && t.1 == seed).unwrap().2;
    for seed in SEEDS {
        let (tail, dqm) = (of("droptail", seed), of("dqm", seed));
        // Closer to 1 on a log scale: the ratio's distance from even shares.
        assert!(
            dqm.ratio.ln().abs() < tail.ratio.ln().abs(),
            "seed {seed}: DQM up/down {} against drop-tail's {}",
            dqm.ratio,
            tail.ratio
        );
        assert!(
            (0.5..=2.0).contains(&dqm.ratio),
            "seed {seed}: DQM up/down {}",
            dqm.ratio
        );
        assert!(
            dqm.jain > tail.jain,
            "seed {seed}: DQM Jain {} against drop-tail's {}",
            dqm.jain,
            tail.jain
        );
    }
}

#[test]
fn dqm_runs_repeat_themselves() {
    let a = run("kind = \"dqm\"\n", 4);
    let b = run("kind = \"dqm\"\n", 4);
    assert_eq!(
        (
            a.ratio.to_bits(),
            a.jain.to_bits(),
            a.aggregate_bps.to_bits()
        ),
        (
            b.ratio.to_bits(),
            b.jain.to_bits(),
            b.aggregate_bps.to_bits()
        )
    );
}

/// Seed 004, Fig. 5: the `queues` samples carry DQM's `q.ref` and the mean queueing
/// delay of each bin for the access point (node 0) only.
///
/// The delay exceeds `D_ref`, because `q.ref = D_ref / mean T_pkt` counts one
/// uncontended access per packet while the AP contends with eight stations. Asserted:
/// a positive delay in every bin after the start, with a mean between a few
/// milliseconds and a few `D_ref`.
#[test]
fn dqm_samples_q_ref_and_queueing_delay_at_the_access_point_only() {
    let text = scenario("kind = \"dqm\"\n");
    let r: Run = run_value(toml_to_json(&text).unwrap(), Some(1), Some(20.0))
        .unwrap_or_else(|e| panic!("{e:?}"));
    let samples = &r.outcome.traces.queues;
    assert!(!samples.is_empty());
    for q in samples.iter().filter(|q| q.node.0 != 0) {
        assert_eq!((q.q_ref_pkts, q.queue_delay_s), (None, None), "{q:?}");
    }
    let ap: Vec<_> = samples.iter().filter(|q| q.node.0 == 0).collect();
    assert!(ap.len() >= 19, "{}", ap.len());
    for q in &ap {
        // 50 ms over T_pkt between a 40-byte ACK's (922 us) and a 1500-byte datagram's
        // (1984 us) at 11 Mb/s: 25-55 packets.
        let q_ref = q.q_ref_pkts.expect("DQM node without q.ref");
        assert!((25.0..=55.0).contains(&q_ref), "{q:?}");
        if let Some(d) = q.queue_delay_s {
            assert!(d >= 0.0 && d.is_finite(), "{q:?}");
        }
    }
    // After the first seconds traffic flows: every bin has departures, and their mean
    // delay is positive and of D_ref's order.
    let late: Vec<f64> = ap
        .iter()
        .filter(|q| q.at.as_secs_f64() >= 5.0)
        .map(|q| q.queue_delay_s.expect("a bin without departures"))
        .collect();
    assert!(!late.is_empty());
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    eprintln!("AP mean queueing delay from 5 s: {:.2} ms", mean * 1e3);
    assert!(late.iter().all(|&d| d > 0.0), "{late:?}");
    assert!((0.002..=0.3).contains(&mean), "{mean}");
}
