//! The world's side of the flows' end-to-end transports ([`FlowEndpoint`]): it calls
//! an endpoint on its flow's events, then forwards what it sent, in order, from the end
//! it left, then applies the timer command meant for after the sends. Timers are the
//! kernel's, one slot per endpoint timer, owned by (flow, slot).

use super::{AnyEndpoint, Event, FlowApp, World};
use crate::ids::{FlowId, NodeId};
use crate::net::{DropReason, Packet};
use crate::transport::endpoint::{Emitted, End, EndpointIo, FlowEndpoint, TimerPort};
use crate::transport::report::TransportReports;
use airqueue_kernel::{EventQueue, Time, TimerId, Timers};
use airqueue_tcp::TimerCmd;

/// Who owns a world timer: an endpoint's slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TimerOwner {
    pub flow: FlowId,
    pub slot: u8,
}

/// One flow's timer slots, `first..first + n`, in the world's table.
struct FlowTimers<'a> {
    timers: &'a mut Timers<TimerOwner>,
    events: &'a mut EventQueue<Event>,
    first: TimerId,
}

impl FlowTimers<'_> {
    fn id(&self, slot: u8) -> TimerId {
        TimerId(self.first.0 + slot as u32)
    }
}

impl TimerPort for FlowTimers<'_> {
    fn command(&mut self, slot: u8, cmd: TimerCmd) {
        let id = self.id(slot);
        match cmd {
            TimerCmd::Arm(at) => self.timers.arm(id, at, self.events, Event::Timer),
            TimerCmd::Cancel => self.timers.cancel(id),
        }
    }

    fn deadline(&self, slot: u8) -> Option<Time> {
        self.timers.deadline(self.id(slot))
    }
}

/// Creates the timers of flow `flow`'s endpoint; returns the first.
pub(super) fn create_timers(
    timers: &mut Timers<TimerOwner>,
    flow: FlowId,
    ep: &dyn FlowEndpoint,
) -> TimerId {
    let first = TimerId(timers.len() as u32);
    for slot in 0..ep.timer_slots() {
        timers.create(TimerOwner { flow, slot });
    }
    first
}

impl World {
    /// Runs `act` on flow `f`'s endpoint, then forwards what it sent, then applies its
    /// [`EndpointIo::timer_after_sends`]. Returns what `act` returns.
    #[inline]
    pub(super) fn endpoint_call<R>(
        &mut self,
        f: FlowId,
        act: impl FnOnce(&mut AnyEndpoint, &mut EndpointIo) -> R,
    ) -> R {
        let fl = &mut self.flows[f.index()];
        let FlowApp::Endpoint(ep) = &mut fl.app else {
            unreachable!("transport event of a flow without an endpoint")
        };
        let (src, dst) = (fl.src, fl.dst);
        let mut timers = FlowTimers {
            timers: &mut self.timers,
            events: &mut self.events,
            first: fl.first_timer,
        };
        let mut io = EndpointIo {
            now: timers.events.now(),
            flow: f,
            src,
            dst,
            payload_bytes: fl.payload_bytes,
            sends: &mut self.sends,
            timers: &mut timers,
            metrics: &mut self.metrics,
            after_sends: None,
        };
        let r = act(ep, &mut io);
        let after_sends = io.after_sends;
        if !self.sends.is_empty() {
            self.forward_sends(f, src, dst);
        }
        if let Some((slot, cmd)) = after_sends {
            let mut timers = FlowTimers {
                timers: &mut self.timers,
                events: &mut self.events,
                first: self.flows[f.index()].first_timer,
            };
            timers.command(slot, cmd);
        }
        r
    }

    /// Forwards, in order, what flow `f`'s endpoint sent (`src`, `dst`: the flow's ends).
    /// A nested call (a packet delivered where it was made) takes a list of its own.
    fn forward_sends(&mut self, f: FlowId, src: NodeId, dst: NodeId) {
        // One packet (a datagram, most segments): taken off the list before it goes.
        if self.sends.len() == 1 {
            let e = self.sends.pop().expect("one send");
            return self.forward_emitted(f, src, dst, e);
        }
        let mut sends = std::mem::take(&mut self.sends);
        for e in sends.drain(..) {
            self.forward_emitted(f, src, dst, e);
        }
        self.sends = sends;
    }

    /// Makes and forwards one packet an endpoint of flow `f` sent.
    #[inline]
    fn forward_emitted(&mut self, f: FlowId, src: NodeId, dst: NodeId, e: Emitted) {
        let (from, to) = match e.from {
            End::Source => (src, dst),
            End::Destination => (dst, src),
        };
        let pkt = self.flow_packet(f, from, to, e.seq, e.payload_bytes, e.transport);
        match e.from {
            End::Source => self.metrics.on_created(&pkt),
            End::Destination => self.metrics.on_created_control(),
        }
        self.forward(from, pkt);
    }

    /// A queue at `node` dropped `pkt`: the endpoint of its flow hears of it if `node` made
    /// the packet (either end of the flow).
    pub(super) fn endpoint_source_drop(&mut self, node: NodeId, reason: DropReason, pkt: &Packet) {
        if node != pkt.src {
            return;
        }
        if let Some(FlowApp::Endpoint(ep)) =
            self.flows.get_mut(pkt.flow.index()).map(|f| &mut f.app)
        {
            ep.on_source_drop(pkt, reason);
        }
    }

    /// Every started endpoint's trace rows of this bin boundary.
    pub(super) fn endpoint_sample(&mut self, now: Time) {
        for (i, fl) in self.flows.iter().enumerate() {
            if let (FlowApp::Endpoint(ep), true) = (&fl.app, now >= fl.start) {
                ep.sample(FlowId(i as u32), now, &mut self.metrics);
            }
        }
    }

    /// The endpoints' end-of-run tables.
    pub(super) fn endpoint_reports(&self) -> TransportReports {
        let mut reports = TransportReports::declared();
        for (i, fl) in self.flows.iter().enumerate() {
            if let FlowApp::Endpoint(ep) = &fl.app {
                ep.report(FlowId(i as u32), &mut reports);
            }
        }
        reports
    }

    /// A packet of flow `f` from `from` to `to`, created now, with the flow's priority and
    /// queue-report header.
    pub(super) fn flow_packet(
        &mut self,
        f: FlowId,
        from: NodeId,
        to: NodeId,
        seq: u64,
        payload_bytes: u32,
        transport: crate::net::TransportHeader,
    ) -> Packet {
        let fl = &self.flows[f.index()];
        let pkt = Packet {
            uid: self.next_uid,
            flow: f,
            src: from,
            dst: to,
            seq,
            payload_bytes,
            transport,
            ttl: crate::net::packet::DEFAULT_TTL,
            priority: fl.priority,
            created: self.events.now(),
            diffq: fl.carries_queue_report().then(Default::default),
            report: None,
        };
        self.next_uid += 1;
        pkt
    }
}
