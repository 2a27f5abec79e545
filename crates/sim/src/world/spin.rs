//! The spin guard: a run whose clock stops advancing ends with an error naming the
//! component, instead of hanging.
//!
//! A discrete-event run only ends if simulated time moves. A component that keeps
//! scheduling events at the instant it runs (a source whose packet interval rounds to 0 ns,
//! a zero-delay feedback loop) would spin forever. The run loop counts consecutive events at
//! one timestamp, a compare and an increment per event, and stops past
//! [`MAX_EVENTS_PER_INSTANT`].

use super::{Event, FlowApp, Iface, World};
use crate::medium::wifi::WifiEvent;
use crate::transport::endpoint::FlowEndpoint;
use airqueue_kernel::Time;
use std::fmt;

/// Most events a run executes at one simulated instant before it is declared spinning.
/// Legitimate bursts are far smaller: every node's timers, every flow's start and every
/// receiver of one transmission at once come to O(nodes + flows), at most a few hundred
/// thousand within the scenario limits (10,000 nodes, 100,000 drawn flows), so ten
/// million leaves a wide margin while bounding a spin to about a second of wall time.
pub const MAX_EVENTS_PER_INSTANT: u64 = 10_000_000;

/// How many further events at the spinning instant are examined to name the component
/// that schedules most of them.
const SAMPLED_EVENTS: usize = 1000;

/// Why a run stopped before its end: one component kept the clock from advancing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpinError {
    /// The instant the clock was stuck at.
    pub at: Time,
    /// Events executed at that instant before the run was stopped.
    pub events: u64,
    /// The component that scheduled most of the events at that instant, e.g.
    /// "flow 0 (UDP source, node 1 -> node 0)".
    pub component: String,
}

impl fmt::Display for SpinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "simulation stopped at {:.9} s: {} scheduled more than {} events at that one \
             instant without the clock advancing, so the run could never finish; a \
             configuration value probably rounds an interval to 0 ns (check that \
             component's rates and intervals), otherwise please report this scenario",
            self.at.as_secs_f64(),
            self.component,
            self.events
        )
    }
}

impl std::error::Error for SpinError {}

/// The run loop's count of consecutive events at one timestamp.
#[derive(Clone, Copy, Debug)]
pub(super) struct InstantCount {
    pub(super) at: Time,
    pub(super) events: u64,
    pub(super) limit: u64,
}

impl Default for InstantCount {
    fn default() -> Self {
        InstantCount {
            at: Time::ZERO,
            events: 0,
            limit: MAX_EVENTS_PER_INSTANT,
        }
    }
}

impl InstantCount {
    /// Counts one event due at `at`; `true` when the limit is passed.
    #[inline]
    pub(super) fn count(&mut self, at: Time) -> bool {
        if at == self.at {
            self.events += 1;
            self.events > self.limit
        } else {
            self.at = at;
            self.events = 1;
            false
        }
    }
}

impl World {
    /// Lowers (or raises) [`MAX_EVENTS_PER_INSTANT`] for this run; tests use it to make
    /// the guard fire quickly.
    pub fn set_max_events_per_instant(&mut self, limit: u64) {
        self.instant.limit = limit.max(1);
    }

    /// Why the run stopped early, if it did: after this is set, `run_until` does nothing.
    pub fn spin_error(&self) -> Option<&SpinError> {
        self.spin.as_ref()
    }

    /// Ends the run at `at`, naming the component behind most of the next events at that
    /// instant (`first` included). The sampled events are dropped unexecuted: the run is
    /// over.
    pub(super) fn stop_spinning(&mut self, at: Time, first: Event) {
        let mut names: Vec<(String, usize)> = Vec::new();
        let mut tally = |name: String| match names.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => names.push((name, 1)),
        };
        tally(self.component(first));
        for _ in 1..SAMPLED_EVENTS {
            match self.events.pop_until(at) {
                Some((_, ev)) => tally(self.component(ev)),
                None => break,
            }
        }
        let component = names
            .into_iter()
            .enumerate()
            .max_by_key(|(i, (_, c))| (*c, std::cmp::Reverse(*i)))
            .map(|(_, (n, _))| n)
            .unwrap_or_default();
        self.spin = Some(SpinError {
            at,
            events: self.instant.events - 1,
            component,
        });
    }

    /// The component an event belongs to, as a user would look for it in the scenario.
    fn component(&self, ev: Event) -> String {
        let flow = |f: crate::ids::FlowId, what: &str| {
            let s = &self.flows[f.index()];
            format!("flow {f} ({what}, node {} -> node {})", s.src, s.dst)
        };
        match ev {
            Event::FlowStart(f) | Event::FlowStop(f) => flow(f, "start/stop"),
            Event::Pace(f) => flow(f, "paced source"),
            Event::RateUpdate(f) => flow(f, "rate controller"),
            Event::LinkTxEnd(l) | Event::LinkArrive(l) => {
                let link = &self.wires.links[l.index()];
                format!("the wired link node {} -> node {}", link.from, link.to)
            }
            Event::Wifi(WifiEvent::TxEnd(n)) => format!("the 802.11 MAC of node {n}"),
            Event::Wifi(WifiEvent::Timer(_)) => "the 802.11 MAC timers".to_string(),
            Event::Timer(t) => {
                let f = self.timers.owner(t.id).flow;
                match &self.flows[f.index()].app {
                    FlowApp::Endpoint(ep) => flow(f, ep.name()),
                    FlowApp::Net => flow(f, "transport"),
                }
            }
            Event::Wake(Iface::Wifi(n)) => format!("the radio queue of node {n}"),
            Event::Wake(Iface::Link(l)) => {
                let link = &self.wires.links[l.index()];
                format!(
                    "the queue of the wired link node {} -> node {}",
                    link.from, link.to
                )
            }
            Event::Sample => "the time-series sampler (outputs.bin)".to_string(),
            Event::Routing(n, _) => format!("the routing protocol at node {n}"),
            Event::QueueControl(n) => format!("queue discipline control broadcasts at node {n}"),
            Event::RateChange(k) => format!("rate_change[{k}]"),
            Event::Move(k) => format!("scheduled node move {k}"),
            Event::NetWake(n) => format!("the network-layer scheme's process at node {n}"),
        }
    }
}
