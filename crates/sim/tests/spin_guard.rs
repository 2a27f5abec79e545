//! The spin guard: a component that schedules events without end at one instant stops
//! the run with a `SpinError` naming it, instead of hanging.

use airqueue_kernel::Time;
use airqueue_sim::app::UdpRate;
use airqueue_sim::{FlowConfig, FlowKindConfig, World};

mod common;
use common::{flow, wired_chain};

/// A UDP source offering 1e308 bit/s: its packet interval rounds to 0 ns, so every packet
/// is due at its start (what the scenario checks now refuse; built here directly).
fn spinning_world(duration: Time) -> World {
    let start = Time::from_millis(100);
    let cbr = FlowConfig {
        start,
        ..flow(
            0,
            2,
            1000,
            FlowKindConfig::Udp(UdpRate::Cbr { rate_bps: 1e308 }),
            duration,
        )
    };
    World::new(wired_chain(
        3,
        11e6,
        Time::from_micros(100),
        vec![cbr],
        duration,
    ))
}

#[test]
fn a_source_due_every_0_ns_stops_the_run_naming_the_flow() {
    let duration = Time::from_secs(1);
    let mut world = spinning_world(duration);
    world.set_max_events_per_instant(10_000);
    world.run_until(duration);
    let spin = world.spin_error().expect("the guard fires").clone();
    assert_eq!(spin.at, Time::from_millis(100));
    assert_eq!(spin.events, 10_000);
    assert!(
        spin.component
            .contains("flow 0 (UDP source, node 0 -> node 2)"),
        "{spin}"
    );
    let text = spin.to_string();
    assert!(
        text.starts_with("simulation stopped at 0.100000000 s: flow 0"),
        "{text}"
    );
    // The run is over: later steps do nothing, and the outcome carries the error.
    world.run_until(duration);
    assert_eq!(world.now(), Time::from_millis(100));
    let out = world.finish();
    assert_eq!(out.spin, Some(spin));
    assert!(out.conservation.holds(), "{:?}", out.conservation);
}

#[test]
fn ordinary_runs_stay_below_the_bound() {
    let duration = Time::from_secs(2);
    let cbr = FlowConfig {
        start: Time::from_millis(100),
        ..flow(
            0,
            2,
            1000,
            FlowKindConfig::Udp(UdpRate::Cbr { rate_bps: 2e6 }),
            duration,
        )
    };
    let mut world = World::new(wired_chain(
        3,
        11e6,
        Time::from_micros(100),
        vec![cbr],
        duration,
    ));
    // Far below the default bound, far above what one instant of this run holds.
    world.set_max_events_per_instant(100);
    let out = world.run();
    assert_eq!(out.spin, None);
    assert!(out.metrics.flows[0].packets_delivered > 0);
}
