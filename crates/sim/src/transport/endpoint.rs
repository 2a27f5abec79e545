//! The end-to-end transport of a flow as the world runs it: one state machine pair with a
//! sender at the flow's source and a receiver at its destination (TCP with its optional
//! coding layer in `tcp.rs`, TFRC in `tfrc.rs`).
//!
//! Sans-I/O: the world calls an endpoint on the flow's events (start, stop, timers, a
//! packet reaching one of its ends, a pacing tick) and hands it an [`EndpointIo`]. What
//! the endpoint sends is queued there and forwarded, in order, once it returns; timer
//! commands take effect at once (so they are queued ahead of the packets' events, as
//! the machines' outboxes order them), or after the packets left
//! ([`EndpointIo::timer_after_sends`]); deliveries to the application are counted
//! directly. An endpoint never reaches into the world, nor does the world know which
//! transport it runs: UDP's datagram source (`udp.rs`) is an endpoint like TCP and TFRC.

use crate::ids::{FlowId, NodeId};
use crate::metrics::Metrics;
use crate::net::{DropReason, Packet, TransportHeader};
use crate::transport::report::TransportReports;
use airqueue_kernel::Time;
use airqueue_tcp::TimerCmd;
use std::fmt::Debug;

/// A flow's end-to-end transport: the required core is starting and reacting to its own
/// packets; everything else has a no-op default.
pub trait FlowEndpoint: Debug {
    /// How many timers it uses: slots `0..timer_slots()` of [`EndpointIo::timer`].
    fn timer_slots(&self) -> u8 {
        0
    }

    /// What it is, as a user would look for it in the scenario (for error messages).
    fn name(&self) -> &'static str {
        "transport"
    }

    /// Whether the flow is a session whose destination answers its source (TCP, TFRC):
    /// a session hears [`FlowEndpoint::stop`] at its stop time, and one whose window is
    /// empty or that runs from a node to itself (each packet answered within the same
    /// instant, forever) never starts. A datagram source (UDP) keeps to its window
    /// itself and starts whatever its ends.
    fn session(&self) -> bool {
        true
    }

    /// Whether it is a greedy source: unpaced, the world keeps its first queue full,
    /// calling [`FlowEndpoint::fill`] from its start on while that queue has room, and
    /// again whenever one of its packets leaves it or routing lets it send again.
    fn greedy(&self) -> bool {
        false
    }

    /// A greedy source sends one more packet. Returns whether one left.
    fn fill(&mut self, _io: &mut EndpointIo) -> bool {
        false
    }

    /// The application's own rate, bit/s, which caps a source rate controller's pace
    /// (a CBR source offers no more); `None`: the controller's rate alone.
    fn rate_cap_bps(&self) -> Option<f64> {
        None
    }

    /// Whether a source rate controller (`[[flow]] cc`) may pace it: if so the world
    /// calls [`FlowEndpoint::on_pace`] once per tick.
    fn takes_pacer(&self) -> bool {
        false
    }

    /// The flow's start time (for a paced flow, just before its first tick).
    fn start(&mut self, io: &mut EndpointIo);

    /// The flow's stop time: the sender takes no new data.
    fn stop(&mut self, _io: &mut EndpointIo) {}

    /// Timer `slot` expired.
    fn on_timer(&mut self, _slot: u8, _io: &mut EndpointIo) {}

    /// One of the flow's packets reached the end it is addressed to, `node`.
    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, io: &mut EndpointIo);

    /// A pacing tick: the sender may send one packet. Returns whether one left.
    fn on_pace(&mut self, _io: &mut EndpointIo) -> bool {
        false
    }

    /// A queue at the end that made `pkt` (its `src`: the source for data, the
    /// destination for acknowledgements) dropped it for `reason`.
    fn on_source_drop(&mut self, _pkt: &Packet, _reason: DropReason) {}

    /// Packets the receiver has acknowledged, for rate controllers that read it.
    fn acked_pkts(&self) -> Option<u64> {
        None
    }

    /// Once per bin from the flow's start on: its trace rows.
    fn sample(&self, _flow: FlowId, _now: Time, _metrics: &mut Metrics) {}

    /// End of run: its row of its transport's table ([`TransportReports::push`]), for a
    /// transport that keeps one.
    fn report(&self, _flow: FlowId, _reports: &mut TransportReports) {}
}

/// Which end of the flow a packet leaves from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The source, towards the destination (data).
    Source,
    /// The destination, towards the source (acknowledgements, feedback).
    Destination,
}

/// A packet an endpoint sends; the world gives it its identity, priority and TTL. What
/// the source sends is the flow's data (it counts towards the flow's packets sent);
/// what the destination sends is signalling (conservation only).
#[derive(Clone, Debug, PartialEq)]
pub struct Emitted {
    pub from: End,
    pub seq: u64,
    pub payload_bytes: u32,
    pub transport: TransportHeader,
}

/// The world's timers as one flow's endpoint sees them: its own slots.
pub trait TimerPort {
    fn command(&mut self, slot: u8, cmd: TimerCmd);
    fn deadline(&self, slot: u8) -> Option<Time>;
}

/// What an endpoint may do while it handles one event.
pub struct EndpointIo<'a> {
    pub now: Time,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// The flow's payload size (`[[flow]] packet_size`).
    pub payload_bytes: u32,
    pub(crate) sends: &'a mut Vec<Emitted>,
    pub(crate) timers: &'a mut dyn TimerPort,
    pub(crate) metrics: &'a mut Metrics,
    /// The command of [`EndpointIo::timer_after_sends`], applied by the caller.
    pub(crate) after_sends: Option<(u8, TimerCmd)>,
}

impl EndpointIo<'_> {
    /// Queues a packet from `from`; the world forwards it once the endpoint returns.
    pub fn send(&mut self, from: End, seq: u64, payload_bytes: u32, transport: TransportHeader) {
        self.sends.push(Emitted {
            from,
            seq,
            payload_bytes,
            transport,
        });
    }

    /// Applies a machine's timer command to slot `slot`.
    pub fn timer(&mut self, slot: u8, cmd: Option<TimerCmd>) {
        if let Some(cmd) = cmd {
            self.timers.command(slot, cmd);
        }
    }

    /// Applies a timer command to slot `slot` once the packets sent in this call have
    /// been forwarded (the last such command of the call): for a source that times its
    /// next send from after its packet left, so the timer's event queues behind those
    /// the packet set off (a CBR application's next packet).
    pub fn timer_after_sends(&mut self, slot: u8, cmd: TimerCmd) {
        self.after_sends = Some((slot, cmd));
    }

    /// When slot `slot` fires, if armed.
    pub fn deadline(&self, slot: u8) -> Option<Time> {
        self.timers.deadline(slot)
    }

    /// A data packet reached the transport that keeps no order of its own (TFRC): its
    /// payload counts as delivered to the application now.
    pub fn delivered(&mut self, pkt: &Packet) {
        self.metrics.on_delivered(pkt, self.now);
    }

    /// A packet reached its end, which takes it over (conservation); application bytes
    /// are counted by [`EndpointIo::released`].
    pub fn arrived(&mut self) {
        self.metrics.on_transport_delivered();
    }

    /// The receiver released `packets` segments of `bytes` in order to the application,
    /// on the arrival of a packet created at `created`.
    pub fn released(&mut self, packets: u64, bytes: u64, created: Time) {
        (self.metrics).on_app_delivered(self.flow, packets, bytes, created, self.now);
    }

    /// The end at `node` discarded `pkt` for `reason`.
    pub fn discarded(&mut self, node: NodeId, reason: DropReason, pkt: &Packet) {
        self.metrics.on_packet_dropped(node, reason, pkt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::UdpRate;
    use crate::transport::tcp::{TcpFlow, TcpFlowConfig};
    use crate::transport::tfrc::{TfrcFlow, TfrcFlowConfig};
    use crate::transport::udp::UdpFlow;

    /// Timer slots recorded as the endpoint commands them.
    #[derive(Default)]
    struct Slots {
        deadlines: [Option<Time>; 4],
        commands: Vec<(u8, TimerCmd)>,
    }

    impl TimerPort for Slots {
        fn command(&mut self, slot: u8, cmd: TimerCmd) {
            self.commands.push((slot, cmd));
            self.deadlines[slot as usize] = match cmd {
                TimerCmd::Arm(at) => Some(at),
                TimerCmd::Cancel => None,
            };
        }
        fn deadline(&self, slot: u8) -> Option<Time> {
            self.deadlines[slot as usize]
        }
    }

    /// Runs `act` on `ep` at `now` as the world would, and returns what it sent.
    fn call(
        ep: &mut dyn FlowEndpoint,
        slots: &mut Slots,
        metrics: &mut Metrics,
        now: Time,
        act: impl FnOnce(&mut dyn FlowEndpoint, &mut EndpointIo),
    ) -> Vec<Emitted> {
        let mut sends = Vec::new();
        let mut io = EndpointIo {
            now,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(3),
            payload_bytes: 1000,
            sends: &mut sends,
            timers: slots,
            metrics,
            after_sends: None,
        };
        act(ep, &mut io);
        if let Some((slot, cmd)) = io.after_sends {
            io.timers.command(slot, cmd);
        }
        sends
    }

    /// Flow 0's packet from node 0 to node 3, made at time zero.
    fn packet(seq: u64, payload_bytes: u32, transport: TransportHeader) -> Packet {
        Packet {
            uid: 0,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(3),
            seq,
            payload_bytes,
            transport,
            ttl: 64,
            priority: 0,
            created: Time::ZERO,
            diffq: None,
            report: None,
        }
    }

    fn metrics() -> Metrics {
        let end = Time::from_secs(10);
        Metrics::new(4, &[(Time::ZERO, end)], end, Time::from_secs(1))
    }

    #[test]
    fn a_tcp_sender_starts_with_its_initial_window_from_the_source_and_arms_its_rto() {
        let mut tcp = TcpFlow::new(&TcpFlowConfig::default(), 1000, false);
        let (mut slots, mut m) = (Slots::default(), metrics());
        assert_eq!(tcp.timer_slots(), 2);
        let sent = call(&mut tcp, &mut slots, &mut m, Time::ZERO, |ep, io| {
            ep.start(io)
        });
        assert!(!sent.is_empty());
        assert!(sent
            .iter()
            .all(|e| e.from == End::Source && e.payload_bytes == 1000));
        let seqs: Vec<u64> = sent.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (0..sent.len() as u64).collect::<Vec<_>>());
        assert!(matches!(slots.commands.as_slice(), [(0, TimerCmd::Arm(_))]));
        assert_eq!(tcp.counts.data_created, sent.len() as u64);
    }

    #[test]
    fn a_tcp_receiver_answers_a_segment_from_the_destination_and_releases_it() {
        let mut tcp = TcpFlow::new(&TcpFlowConfig::default(), 1000, false);
        let (mut slots, mut m) = (Slots::default(), metrics());
        let sent = call(&mut tcp, &mut slots, &mut m, Time::ZERO, |ep, io| {
            ep.start(io)
        });
        let first = packet(sent[0].seq, sent[0].payload_bytes, sent[0].transport);
        let at = Time::from_millis(5);
        let acks = call(&mut tcp, &mut slots, &mut m, at, |ep, io| {
            ep.on_arrival(NodeId(3), &first, io)
        });
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].from, End::Destination);
        assert!(matches!(acks[0].transport, TransportHeader::TcpAck(_)));
        assert_eq!(m.flows[0].packets_delivered, 1);
        assert_eq!(m.delivered, 1);
    }

    fn cbr_8kbps(window: (Time, Time), run_end: Time) -> UdpFlow {
        // 1000-byte datagrams at 8 kb/s: one a second.
        UdpFlow::new(UdpRate::Cbr { rate_bps: 8e3 }, 1000, window, run_end)
    }

    #[test]
    fn a_cbr_source_sends_at_start_and_arms_its_next_packet_only_once_the_first_left() {
        let end = Time::from_secs(10);
        let mut udp = cbr_8kbps((Time::ZERO, Time::from_millis(2500)), end);
        let (mut slots, mut m) = (Slots::default(), metrics());
        assert_eq!(
            (udp.timer_slots(), udp.session(), udp.greedy()),
            (1, false, false)
        );
        let sent = call(&mut udp, &mut slots, &mut m, Time::ZERO, |ep, io| {
            ep.start(io);
            // Not yet armed: the world applies it after forwarding the datagram.
            assert_eq!(io.deadline(0), None);
        });
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].from, sent[0].seq), (End::Source, 0));
        assert_eq!(sent[0].transport, TransportHeader::Udp);
        assert_eq!(slots.commands, vec![(0, TimerCmd::Arm(Time::from_secs(1)))]);
        // Packet k is due at start + k s; none is due at or after the flow's stop.
        let seqs: Vec<u64> = [1, 2]
            .into_iter()
            .flat_map(|k| {
                let at = Time::from_secs(k);
                slots.deadlines[0] = None;
                call(&mut udp, &mut slots, &mut m, at, |ep, io| {
                    ep.on_timer(0, io)
                })
            })
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, vec![1, 2]);
        assert_eq!(slots.commands.len(), 2, "{:?}", slots.commands);
        assert_eq!(slots.deadline(0), None);
    }

    #[test]
    fn a_cbr_source_arms_no_packet_due_at_the_end_of_the_run() {
        let end = Time::from_millis(1500);
        let mut udp = cbr_8kbps((Time::ZERO, Time::from_secs(5)), end);
        let (mut slots, mut m) = (Slots::default(), metrics());
        call(&mut udp, &mut slots, &mut m, Time::ZERO, |ep, io| {
            ep.start(io)
        });
        slots.deadlines[0] = None;
        let at = Time::from_secs(1);
        let sent = call(&mut udp, &mut slots, &mut m, at, |ep, io| {
            ep.on_timer(0, io)
        });
        assert_eq!(sent.len(), 1);
        assert_eq!(
            slots.deadline(0),
            None,
            "packet 2 would be due after the run"
        );
    }

    #[test]
    fn a_saturating_source_sends_only_when_asked_to_fill_and_caps_no_pace() {
        let end = Time::from_secs(10);
        let mut udp = UdpFlow::new(UdpRate::Saturate, 500, (Time::ZERO, end), end);
        let (mut slots, mut m) = (Slots::default(), metrics());
        assert_eq!((udp.timer_slots(), udp.greedy()), (0, true));
        assert_eq!(udp.rate_cap_bps(), None);
        let none = call(&mut udp, &mut slots, &mut m, Time::ZERO, |ep, io| {
            ep.start(io)
        });
        assert!(none.is_empty());
        let mut seqs = Vec::new();
        for _ in 0..3 {
            let sent = call(&mut udp, &mut slots, &mut m, Time::ZERO, |ep, io| {
                assert!(ep.fill(io));
            });
            seqs.extend(sent.iter().map(|e| (e.seq, e.payload_bytes)));
        }
        assert_eq!(seqs, vec![(0, 500), (1, 500), (2, 500)]);
        assert!(slots.commands.is_empty());
    }

    #[test]
    fn a_paced_cbr_source_sends_only_on_ticks_and_caps_the_pace_at_its_rate() {
        let end = Time::from_secs(10);
        let mut udp = cbr_8kbps((Time::ZERO, end), end).paced(true);
        let (mut slots, mut m) = (Slots::default(), metrics());
        assert_eq!((udp.timer_slots(), udp.greedy()), (0, false));
        assert_eq!(udp.rate_cap_bps(), Some(8e3));
        let none = call(&mut udp, &mut slots, &mut m, Time::ZERO, |ep, io| {
            ep.start(io);
            assert!(!ep.fill(io), "a CBR source is not greedy");
        });
        assert!(none.is_empty());
        let sent = call(&mut udp, &mut slots, &mut m, Time::ZERO, |ep, io| {
            assert!(ep.on_pace(io));
        });
        assert_eq!(sent.len(), 1);
        assert!(slots.commands.is_empty());
    }

    #[test]
    fn a_udp_datagram_counts_as_delivered_where_it_arrives_and_nothing_answers() {
        let end = Time::from_secs(10);
        let mut udp = cbr_8kbps((Time::ZERO, end), end);
        let (mut slots, mut m) = (Slots::default(), metrics());
        let pkt = packet(0, 1000, TransportHeader::Udp);
        let at = Time::from_millis(5);
        let sent = call(&mut udp, &mut slots, &mut m, at, |ep, io| {
            ep.on_arrival(NodeId(3), &pkt, io)
        });
        assert!(sent.is_empty());
        assert_eq!(m.flows[0].packets_delivered, 1);
        assert_eq!(m.delivered, 1);
    }

    #[test]
    fn tfrc_sends_one_packet_per_pacing_tick_and_moves_its_clock_on() {
        let mut tfrc = TfrcFlow::new(&TfrcFlowConfig::default(), 1000);
        let (mut slots, mut m) = (Slots::default(), metrics());
        assert_eq!(tfrc.timer_slots(), 3);
        let sent = call(&mut tfrc, &mut slots, &mut m, Time::ZERO, |ep, io| {
            ep.start(io)
        });
        assert_eq!(sent.len(), 1);
        assert!(matches!(sent[0].transport, TransportHeader::TfrcData(_)));
        let pace_arms = |s: &Slots| {
            (s.commands.iter())
                .filter(|(slot, c)| *slot == 0 && matches!(c, TimerCmd::Arm(_)))
                .count()
        };
        assert_eq!(pace_arms(&slots), 1);
        let due = slots.deadline(0).expect("the pacing clock runs");
        // The pacing timer fires: the next packet leaves and the clock moves on once.
        slots.deadlines[0] = None;
        let sent = call(&mut tfrc, &mut slots, &mut m, due, |ep, io| {
            ep.on_timer(0, io)
        });
        assert_eq!(sent.len(), 1);
        assert_eq!(pace_arms(&slots), 2);
        assert!(slots.deadline(0).is_some_and(|t| t > due));
    }
}
