//! Seed 000's Fig. 2 starvation scenario in miniature (issue 6 acceptance): a multi-hop TCP
//! flow starts first, then two one-hop flows join near its relays and contend with them.
//! This miniature keeps a four-hop chain with one one-hop flow beside each outer relay;
//! the `diffq-starvation` reproduction follows Fig. 2's caption (three hops, both one-hop
//! flows beside the first relay).
//!
//! ```text
//!              G (200,400)            I (600,400)
//!              ^ flow 1               ^ flow 2
//!              F (200,200)            H (600,200)
//!
//!   A ------- B ------- C ------- D ------- E        flow 0: A -> E, 4 hops
//!  (0,0)    (200,0)   (400,0)   (600,0)   (800,0)
//! ```
//!
//! 200 m between neighbours, 250 m decode range, 550 m carrier sense. F and H are 200 m
//! from the relays B and D, within carrier sense of A..D and B..E respectively. Flow 0
//! starts at 0 s, flow 1 at 10 s, flow 2 at 20 s; goodput counts over 25-60 s, when all
//! three are active.
//!
//! The paper has the long flow starve under TCP-SACK over drop-tail queues and DCF (Fig.
//! 2) and keep a fair share under DiffQ-TCP (DiffQ queues, the diffq8 EDCA table, DiffQ
//! AIMD rate control on all three flows). With the default radio (EIFS after frames
//! sensed but not decoded, capture only during the preamble) DiffQ-TCP's long flow clears
//! the paper's bar, but TCP-SACK's does not starve by the issue's measure (< 10% of its
//! fair share), so the bar for TCP-SACK is pinned by an ignored test. Every run checks
//! conservation, and the first test runs each scheme twice to check determinism.

use airqueue_kernel::Time;
use airqueue_sim::medium::wifi::WifiConfig;
use airqueue_sim::qdisc::droptail;
use airqueue_sim::{
    DiffqRateConfig, FlowConfig, RunOutcome, TcpFlowConfig, TcpVariant, WorldConfig,
};

mod common;
use common::{
    diffq8_wifi, diffq_queue, run_checked as run, run_twice_by, tcp_flow, tcp_stats, wifi_world,
};

const PAYLOAD: u32 = 1400;
const DURATION_S: u64 = 60;
const WARMUP_S: u64 = 25;

/// A..E, then F, G, H, I (see the diagram).
fn positions() -> Vec<[f64; 2]> {
    vec![
        [0.0, 0.0],
        [200.0, 0.0],
        [400.0, 0.0],
        [600.0, 0.0],
        [800.0, 0.0],
        [200.0, 200.0],
        [200.0, 400.0],
        [600.0, 200.0],
        [600.0, 400.0],
    ]
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// TCP-SACK, drop-tail 50, DCF.
    TcpSack,
    /// DiffQ-TCP: SACK reliability paced by DiffQ AIMD, DiffQ queues, diffq8 EDCA.
    DiffqTcp,
}

fn scenario(scheme: Scheme, seed: u64) -> WorldConfig {
    scenario_with(scheme, seed, false)
}

/// `delayed_ack`: RFC 5681 (4.2) delayed ACKs on every flow's receiver.
fn scenario_with(scheme: Scheme, seed: u64, delayed_ack: bool) -> WorldConfig {
    let duration = Time::from_secs(DURATION_S);
    let (wifi, qdisc, cc) = match scheme {
        Scheme::TcpSack => (WifiConfig::dsss_default(), droptail::config(50, None), None),
        Scheme::DiffqTcp => (
            diffq8_wifi(),
            diffq_queue(),
            Some(DiffqRateConfig::aimd().registered()),
        ),
    };
    let tcp = TcpFlowConfig {
        delayed_ack,
        ..TcpFlowConfig::new(TcpVariant::Sack)
    };
    let flow = |src: u32, dst: u32, start_s: u64| FlowConfig {
        start: Time::from_secs(start_s),
        cc: cc.clone(),
        ..tcp_flow(src, dst, PAYLOAD, tcp.clone(), duration)
    };
    let flows = vec![flow(0, 4, 0), flow(5, 6, 10), flow(7, 8, 20)];
    WorldConfig {
        warmup: Time::from_secs(WARMUP_S),
        qdisc,
        ..wifi_world(wifi, positions(), flows, duration, seed)
    }
}

/// Runs twice, checks both runs are identical, returns the first.
#[track_caller]
fn run_twice(cfg: WorldConfig) -> RunOutcome {
    run_twice_by(cfg, |o| {
        (
            o.events,
            o.metrics
                .flows
                .iter()
                .map(|f| (f.packets_sent, f.packets_delivered, f.window_bytes))
                .collect::<Vec<_>>(),
        )
    })
}

/// Per-flow goodputs (b/s) and the long flow's share of a fair third of the aggregate.
fn report(name: &str, out: &RunOutcome) -> (Vec<f64>, f64) {
    let g: Vec<f64> = out.metrics.flows.iter().map(|f| f.goodput_bps()).collect();
    let fair = g.iter().sum::<f64>() / 3.0;
    let share = g[0] / fair;
    eprintln!(
        "{name}: goodput (kb/s, {WARMUP_S}-{DURATION_S} s) long A->E {:.0}, F->G {:.0}, H->I \
         {:.0}; aggregate {:.0}; long flow at {:.1}% of its fair share; drops {:?}",
        g[0] / 1e3,
        g[1] / 1e3,
        g[2] / 1e3,
        3.0 * fair / 1e3,
        share * 100.0,
        out.metrics.drops_by_reason(),
    );
    for i in 0..out.metrics.flows.len() {
        let t = tcp_stats(out, i);
        let rate = out.rate_control[i].as_ref().map_or(String::new(), |r| {
            format!(
                ", final DiffQ rate {:.0} kb/s ({} updates, {} decreases)",
                r.rate_bps / 1e3,
                r.updates,
                r.decreases
            )
        });
        eprintln!(
            "  flow {i}: {} segments sent, {} retransmissions, {} timeouts, {} fast \
             retransmits, srtt {:?}{rate}",
            t.segments_sent, t.retransmissions, t.timeouts, t.fast_retransmits, t.srtt,
        );
    }
    (g, share)
}

#[test]
fn diffq_tcp_gives_the_long_flow_more_than_tcp_sack() {
    let tcp = run_twice(scenario(Scheme::TcpSack, 1));
    let (_, tcp_share) = report("TCP-SACK", &tcp);
    let diffq = run_twice(scenario(Scheme::DiffqTcp, 1));
    let (g, diffq_share) = report("DiffQ-TCP", &diffq);
    let delack = run(scenario_with(Scheme::DiffqTcp, 1, true));
    report("DiffQ-TCP, delayed ACKs", &delack);
    assert!(
        diffq_share > tcp_share,
        "DiffQ-TCP: long flow at {diffq_share} of fair share, TCP-SACK {tcp_share}"
    );
    assert!(g.iter().all(|&x| x > 0.0), "{g:?}");
}

/// Issue 6's acceptance bar for DiffQ-TCP.
#[test]
fn diffq_tcp_gives_the_long_flow_half_its_fair_share() {
    for seed in 1..=3 {
        let (_, share) = report("DiffQ-TCP", &run(scenario(Scheme::DiffqTcp, seed)));
        assert!(
            share > 0.50,
            "seed {seed}: long flow at {share} of fair share"
        );
    }
}

/// Issue 6's acceptance bar for TCP-SACK (Fig. 2). Fails today: see the module docs.
#[test]
#[ignore = "open: TCP-SACK's long flow keeps 21-22% of its fair share here; the paper has it starve (< 10%)"]
fn tcp_sack_starves_the_long_flow() {
    let shares: Vec<f64> = (1..=3)
        .map(|seed| report("TCP-SACK", &run(scenario(Scheme::TcpSack, seed))).1)
        .collect();
    assert!(
        shares.iter().all(|&s| s < 0.10),
        "long flow's share of its fair share, seeds 1-3: {shares:?}"
    );
}
