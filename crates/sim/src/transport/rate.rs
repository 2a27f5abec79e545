//! Source rate controllers: what paces a flow's packets from what its source sees
//! locally (its own queue for the flow, whether it could use its rate). The world asks
//! for an update per packet sent or every period ([`RateUpdate`]) and spaces packets at
//! the rate it gets back. DiffQ's source rate control (`diffq.rs`) and backpressure's
//! flow control for non-TCP flows (`flow_control.rs`) implement it.
//!
//! Each `[[flow]] cc` value is a [`RateScheme`] declared in its controller's module (its
//! table's keys, the queue it reads and needs, how to build one) and listed in
//! [`RATE_SCHEMES`]; the scenario reader validates `cc` and the tables from the
//! declarations, so adding a controller is its module plus one line there.

use super::diffq::RateUpdate;
use crate::qdisc::registry::{Key, Params, Problem, Scheme};
use airqueue_kernel::Time;
use serde::{Serialize, Serializer};
use std::fmt::Debug;

/// Every `cc` value but `"none"` (the transport's own control), in the order the reader
/// lists them.
pub static RATE_SCHEMES: &[&RateScheme] = &[
    &super::diffq::SCHEME,
    &super::flow_control::SCHEME,
    &EXTERNAL,
];

/// The scheme whose `cc` value is `name`, if it is registered.
pub fn rate_scheme(name: &str) -> Option<&'static RateScheme> {
    RATE_SCHEMES.iter().copied().find(|s| s.name == name)
}

/// A registered source rate controller.
#[derive(Debug)]
pub struct RateScheme {
    /// Its `[[flow]] cc` value, and the name of its top-level table.
    pub name: &'static str,
    /// One line: what it is and where it is specified.
    pub summary: &'static str,
    /// Its keys in the table `[<name>]` (which a queue discipline of the same name may
    /// share: DiffQ's); a scheme without keys takes no table.
    pub keys: &'static [Key],
    /// The `[[flow]] kind`s it paces.
    pub flow_kinds: &'static [&'static str],
    /// Flow kinds that may not take it, each with why and what to write instead (the
    /// message at `flow[i].cc`).
    pub refused_kinds: &'static [(&'static str, &'static str)],
    /// The source's queue its controller reads.
    pub reads: SourceQueue,
    /// The queue discipline it needs (`queue.kind`), with the message at `flow[i].cc`
    /// when another runs; `None`: any.
    pub needs_queue: Option<(&'static Scheme, &'static str)>,
    /// Whether its packets (a TCP flow's ACKs too) carry the per-destination
    /// queue-report header (`Packet::diffq`), which the queue discipline it runs with
    /// schedules by (DiffQ's).
    pub queue_report_header: bool,
    /// Its `kind` in the run's `rates` table.
    pub rates_kind: &'static str,
    /// Once every key is read: fills the derived defaults and checks between keys. A
    /// key that was invalid (already reported) reads as `None` through
    /// [`Params::value`].
    pub check: fn(&mut Params, &RateSetting) -> Vec<Problem>,
    /// Checks between its keys and the queue discipline's (`queue`, its params), run
    /// when a flow uses it; each problem is reported at `<name>.<key>`.
    pub check_with_queue: fn(&Params, &Scheme, &Params) -> Vec<Problem>,
    /// One controller for one flow; `None`: the code that runs the scenario installs it
    /// (`World::set_pacer`).
    pub build: Option<BuildRate>,
}

/// How a [`RateScheme`] builds one flow's controller from its keys.
pub type BuildRate = fn(&Params) -> Box<dyn RateController>;

/// Schemes are one per name.
impl PartialEq for RateScheme {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for RateScheme {}

/// As its `cc` value.
impl Serialize for RateScheme {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name)
    }
}

/// Which of its source's queues a paced flow's controller reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceQueue {
    /// The queue for the flow's destination (`QueueDiscipline::queue_len_for`: DiffQ's
    /// `|Q_src(dst)|`, seed 000, section 4.1; a FIFO's whole length).
    Destination,
    /// The queue of the flow's commodity (`QueueDiscipline::commodity_len`:
    /// backpressure's `U_src^s`, seed 002, eq. (5)).
    Commodity,
}

/// What a scheme's [`RateScheme::check`] may read besides its own keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSetting {
    /// `radio.data_rate`, bit/s; `None` when it was invalid.
    pub data_rate_bps: Option<f64>,
}

/// A registered controller and the values of its keys.
#[derive(Clone, Debug, PartialEq)]
pub struct RegisteredRate {
    pub scheme: &'static RateScheme,
    pub params: Params,
}

impl RegisteredRate {
    /// `scheme` with every key at its default, derived ones filled for `setting`;
    /// `Err` with the check's problems.
    pub fn resolved(
        scheme: &'static RateScheme,
        setting: &RateSetting,
    ) -> Result<Self, Vec<Problem>> {
        let mut params = Params::of_keys(scheme.keys.iter().collect());
        let problems = (scheme.check)(&mut params, setting);
        if problems.is_empty() && params.is_complete() {
            Ok(RegisteredRate { scheme, params })
        } else {
            Err(problems)
        }
    }

    /// The flow's controller; `None` for one the caller installs.
    pub fn build(&self) -> Option<Box<dyn RateController>> {
        self.scheme.build.map(|build| build(&self.params))
    }
}

/// `cc = "external"`: a source rate controller given through the API (`aq.run(scenario,
/// cc=...)`, a Python `airqueue.RateController`, installed with `World::set_pacer`): the
/// flow is paced like DiffQ-UDP or DiffQ-TCP on its source's queue for the destination,
/// and its packets carry no header of their own.
pub static EXTERNAL: RateScheme = RateScheme {
    name: "external",
    summary: "a rate controller the code that runs the scenario supplies",
    keys: &[],
    flow_kinds: &["udp", "tcp"],
    refused_kinds: &[],
    reads: SourceQueue::Destination,
    needs_queue: None,
    queue_report_header: false,
    rates_kind: "external",
    check: no_rate_checks,
    check_with_queue: no_queue_checks,
    build: None,
};

/// No derived keys, no checks between keys.
pub fn no_rate_checks(_: &mut Params, _: &RateSetting) -> Vec<Problem> {
    Vec::new()
}

/// No checks against the queue discipline's keys.
pub fn no_queue_checks(_: &Params, _: &Scheme, _: &Params) -> Vec<Problem> {
    Vec::new()
}

/// A source rate controller (bit/s of application payload).
pub trait RateController: Debug + Send {
    /// The current rate.
    fn rate_bps(&self) -> f64;

    /// When the world updates it: as each packet is sent, or every period.
    fn update_clock(&self) -> RateUpdate;

    /// One update on the length of the source's queue for the flow
    /// (`source_queue_pkts`); `may_rise` is false when the source had data its window kept
    /// back since the last update. Returns the new rate.
    fn on_update(&mut self, source_queue_pkts: usize, may_rise: bool) -> f64;

    /// One update on everything the source sees locally ([`SourceView`]); by default
    /// [`RateController::on_update`] on its queue and `may_rise`. Controllers that read
    /// more (the Python ones of `crates/py`) override it.
    fn on_update_seen(&mut self, seen: &SourceView) -> f64 {
        self.on_update(seen.queue_pkts, seen.may_rise)
    }

    /// Whether the source's queue it reads is the larger of the source's own and its
    /// next hop's (an oracle: the world reads the next hop's discipline); false, the
    /// default: the source's own.
    fn reads_next_hop(&self) -> bool {
        false
    }

    /// Updates made and how many lowered the rate, for the run's outcome.
    fn counts(&self) -> (u64, u64) {
        (0, 0)
    }

    /// Time between two packets of `payload_bytes` at the current rate, capped by
    /// `cap_bps` (an application that offers less), never zero.
    fn interval(&self, payload_bytes: u32, cap_bps: Option<f64>) -> Time {
        let rate = self.rate_bps();
        let rate = cap_bps.map_or(rate, |c| rate.min(c.max(1.0)));
        let t = Time::from_secs_f64(payload_bytes.max(1) as f64 * 8.0 / rate);
        t.max(Time::from_nanos(1))
    }
}

/// What a source sees locally when its controller updates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceView {
    pub now: Time,
    /// The source's queue for the flow (the destination's queue of the source's
    /// discipline; a FIFO's whole length).
    pub queue_pkts: usize,
    /// False when the source had data its window kept back since the last update.
    pub may_rise: bool,
    /// Packets the source has put on the network so far (retransmissions included).
    pub sent_pkts: u64,
    /// Where the transport has feedback (TCP): segments cumulatively acknowledged so far.
    pub acked_pkts: Option<u64>,
}

/// A controller's state at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSummary {
    pub rate_bps: f64,
    pub updates: u64,
    pub decreases: u64,
}

impl RateSummary {
    pub fn of(c: &dyn RateController) -> Self {
        let (updates, decreases) = c.counts();
        RateSummary {
            rate_bps: c.rate_bps(),
            updates,
            decreases,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::registry::assert_sound;

    #[test]
    fn names_are_unique_and_every_scheme_resolves_and_builds_from_its_defaults() {
        let setting = RateSetting {
            data_rate_bps: Some(2e6),
        };
        for (i, s) in RATE_SCHEMES.iter().enumerate() {
            assert!(
                RATE_SCHEMES[..i].iter().all(|o| o.name != s.name),
                "{}",
                s.name
            );
            assert_ne!(
                s.name, "none",
                "the transport's own control is not a scheme"
            );
            s.keys.iter().for_each(assert_sound);
            let r = RegisteredRate::resolved(s, &setting).unwrap();
            match r.build() {
                Some(c) => {
                    let rate = c.rate_bps();
                    assert!(rate >= 1.0 && rate.is_finite(), "{}: {rate}", s.name);
                }
                None => assert_eq!(s.name, "external"),
            }
            assert_eq!(rate_scheme(s.name), Some(*s));
            assert!(!s.flow_kinds.is_empty() && !s.summary.is_empty());
        }
    }
}
