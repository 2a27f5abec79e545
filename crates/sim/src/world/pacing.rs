//! Paced sources under a registered source rate controller (`[[flow]] cc`,
//! [`RateScheme`](crate::transport::rate::RateScheme)): DiffQ's source rate control
//! (seed 000, section 4.1), backpressure flow control (seed 002, eq. (5)) and a
//! controller the caller installs (`cc = "external"`).
//!
//! * **Ticks**: a paced flow has one acting `Pace` event (`PaceClock::due`); each tick
//!   emits one packet and the next is `payload * 8 / rate` later. The controller reads the
//!   source's queue its scheme names (`RateScheme::reads`: the queue for the destination,
//!   or the flow's commodity) at every tick (`RateUpdate::PerPacket`) or at its own
//!   interval event (`RateUpdate::Every`), which re-times the pending tick so the source
//!   always sends at the current rate.
//! * **Paced TCP** (DiffQ-TCP, seed 000, 6.1: "the TCP source transmits packets at the
//!   rate dictated by the DiffQ source rate control") paces every segment, retransmissions
//!   included: the TCP sender in paced mode sends one segment per tick, so a segment's
//!   send time, RTT sample and RTO start when it leaves the source, not when TCP chose it.
//! * **Rates table**: every started paced flow's rate and source queue, once per bin.

use super::{Event, FlowApp, RateUpdate, World};
use crate::ids::{FlowId, NodeId};
use crate::metrics::{RateKind, RateRow};
use crate::transport::endpoint::FlowEndpoint;
use crate::transport::{SourceQueue, SourceView};
use airqueue_kernel::Time;

impl World {
    /// A paced flow starts: an endpoint opens (a paced TCP sender sends nothing by
    /// itself), then the first tick.
    pub(super) fn start_paced(&mut self, f: FlowId) {
        let fl = &self.flows[f.index()];
        if let FlowApp::Net = fl.app {
            self.net_flow_start(f, true);
        }
        let fl = &self.flows[f.index()];
        if let FlowApp::Endpoint(_) = fl.app {
            if fl.src == fl.dst && self.endpoint_is_session(f) {
                return; // see `endpoint_start`
            }
            self.endpoint_call(f, |ep, io| ep.start(io));
        }
        let now = self.events.now();
        self.flows[f.index()].clock.due = now;
        self.pace(f);
        if let RateUpdate::Every(period) = self.rate_update_clock(f) {
            self.schedule_while_paced(f, now + period, Event::RateUpdate(f));
        }
    }

    fn rate_update_clock(&self, f: FlowId) -> RateUpdate {
        let pacer = self.flows[f.index()].pacer.as_ref();
        pacer.expect("paced flow").update_clock()
    }

    /// Schedules `event` of paced flow `f` at `at`, unless the flow or the run has ended
    /// by then (ticks and rate updates alike stop with the flow).
    fn schedule_while_paced(&mut self, f: FlowId, at: Time, event: Event) {
        let (fl, now) = (&self.flows[f.index()], self.events.now());
        if at < fl.stop && at < self.duration {
            self.events.schedule_in(at - now, event);
        }
    }

    /// A periodic rate update of flow `f` ([`RateUpdate::Every`]): the controller reads
    /// the source's queue once, and the pending tick moves to the new rate.
    pub(super) fn rate_update(&mut self, f: FlowId) {
        let now = self.events.now();
        let RateUpdate::Every(period) = self.rate_update_clock(f) else {
            return;
        };
        let qlen = self.source_queue_len(f);
        let used = !std::mem::take(&mut self.flows[f.index()].clock.held);
        let seen = self.source_view(f, qlen, used);
        let pacer = self.flows[f.index()].pacer.as_mut().expect("paced flow");
        pacer.on_update_seen(&seen);
        let fl = &self.flows[f.index()];
        let due = (fl.clock.last + self.pace_interval(f)).max(now);
        let clock = &mut self.flows[f.index()].clock;
        if due != clock.due {
            clock.due = due;
            self.schedule_while_paced(f, due, Event::Pace(f));
        }
        self.schedule_while_paced(f, now + period, Event::RateUpdate(f));
    }

    /// One pacing tick of flow `f`.
    pub(super) fn pace(&mut self, f: FlowId) {
        let now = self.events.now();
        let fl = &self.flows[f.index()];
        if now >= fl.stop || now != fl.clock.due {
            return; // stopped, or a tick a rate update has re-timed
        }
        let per_packet = self.rate_update_clock(f) == RateUpdate::PerPacket;
        let qlen = self.source_queue_len(f);
        // A window-blocked paced TCP sender with nothing to (re)send lets the tick pass;
        // its rate does not grow meanwhile.
        let sent = match &self.flows[f.index()].app {
            FlowApp::Endpoint(_) => self.endpoint_call(f, |ep, io| ep.on_pace(io)),
            FlowApp::Net => self.net_pace(f),
        };
        if !sent {
            self.flows[f.index()].clock.held = true;
        } else if per_packet {
            let seen = self.source_view(f, qlen, true);
            let pacer = self.flows[f.index()].pacer.as_mut().expect("paced flow");
            pacer.on_update_seen(&seen);
        }
        let next = now + self.pace_interval(f);
        let clock = &mut self.flows[f.index()].clock;
        clock.last = now;
        clock.due = next;
        self.schedule_while_paced(f, next, Event::Pace(f));
    }

    /// Time between two ticks of flow `f` at its current rate, capped by the source's
    /// own rate ([`FlowEndpoint::rate_cap_bps`](crate::transport::endpoint::FlowEndpoint::rate_cap_bps)).
    fn pace_interval(&self, f: FlowId) -> Time {
        let fl = &self.flows[f.index()];
        let cap = match &fl.app {
            FlowApp::Endpoint(ep) => ep.rate_cap_bps(),
            FlowApp::Net => None,
        };
        let pacer = fl.pacer.as_ref().expect("paced flow");
        pacer.interval(fl.payload_bytes, cap)
    }

    /// Records every started paced flow's rate and the source queue its controller
    /// reads (the `rates` table), once per bin: not per event, so the hot path is
    /// untouched.
    pub(super) fn pace_sample(&mut self, now: Time) {
        for i in 0..self.flows.len() {
            let fl = &self.flows[i];
            let (Some(pacer), Some(cc)) = (&fl.pacer, fl.cc) else {
                continue;
            };
            if now < fl.start {
                continue;
            }
            let kind = RateKind::Paced(cc.rates_kind);
            let row = RateRow {
                flow: FlowId(i as u32),
                at: now,
                kind,
                rate_bps: pacer.rate_bps(),
                source_queue_pkts: Some(
                    self.source_queue_len(FlowId(i as u32))
                        .min(u32::MAX as usize) as u32,
                ),
            };
            self.metrics.record_rate(row);
        }
    }

    /// What flow `f`'s source sees at an update: its queue `qlen`, whether its rate may
    /// rise, the packets it has sent and, for an endpoint that counts them (TCP), the
    /// segments acknowledged.
    fn source_view(&self, f: FlowId, qlen: usize, may_rise: bool) -> SourceView {
        let acked_pkts = match &self.flows[f.index()].app {
            FlowApp::Endpoint(ep) => ep.acked_pkts(),
            _ => None,
        };
        SourceView {
            now: self.events.now(),
            queue_pkts: qlen,
            may_rise,
            sent_pkts: self.metrics.flow(f).packets_sent,
            acked_pkts,
        }
    }

    /// The queue flow `f`'s controller reads at its source (0 when unroutable): the
    /// source's queue for the destination (DiffQ's `|Q_src(dst)|`) or for the flow's
    /// commodity (backpressure flow control's `U_src^s`, seed 002, eq. (5)).
    fn source_queue_len(&self, f: FlowId) -> usize {
        let fl = &self.flows[f.index()];
        let next = self.routing.next_hop(fl.src, fl.dst);
        let q = next
            .and_then(|next| self.iface_towards(fl.src, next))
            .map(|iface| self.qdisc(iface));
        let own = match fl.cc.map(|cc| cc.reads) {
            Some(SourceQueue::Commodity) => q.map_or(0, |q| q.commodity_len(f, fl.dst)),
            _ => q.map_or(0, |q| q.queue_len_for(fl.dst)),
        };
        match (&fl.pacer, next) {
            (Some(p), Some(next)) if p.reads_next_hop() && next != fl.dst => {
                own.max(self.next_hop_queue_len(fl.src, next, fl.dst))
            }
            _ => own,
        }
    }

    /// The queue for `dst` at `next`, `node`'s neighbour, on the interface `next` sends
    /// on towards `dst` (0 when it has no route): what an oracle of the next hop's memory
    /// reads ([`RateController::reads_next_hop`](crate::transport::RateController)).
    fn next_hop_queue_len(&self, node: NodeId, next: NodeId, dst: NodeId) -> usize {
        debug_assert_ne!(node, next);
        (self.routing.next_hop(next, dst))
            .and_then(|after| self.iface_towards(next, after))
            .map_or(0, |iface| self.qdisc(iface).queue_len_for(dst))
    }
}
