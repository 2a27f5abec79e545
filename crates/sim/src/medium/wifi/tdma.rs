//! A fixed TDMA schedule in place of DCF (seed 001, section 3.3: "a Time Division
//! Multiple Access scheme ... The time slot was chosen such that a MAC frame carrying
//! single TCP packet could be transmitted in a time-slot").
//!
//! Slots follow one another from time 0, one per radio node in id order, round after
//! round: slot `k` starts at `k * slot` and belongs to the `k mod n`-th radio node
//! (`WifiConfig::tdma_slots` may give some nodes more per round, spread over it). In its
//! slot a node sends the frame at the head of its MAC buffer, if it has one, at once: no
//! carrier sense, no backoff, no RTS/CTS. A unicast frame is acknowledged as in 802.11
//! (the receiver answers SIFS after the frame, at the basic rate, 10.3.2.9); without the
//! ACK the frame stays at the head and goes again in the node's next slot, until
//! `short_retry_limit` attempts have failed. So the link-layer feedback that AODV's
//! link-break detection and the retry-limit drops rely on keeps its meaning; with one
//! transmitter at a time frames are lost only to configured link loss or fading.
//!
//! The slot lasts the DATA frame of an IP packet of `slot_bytes` at the data rate, SIFS
//! and the ACK ([`slot_duration`]); no guard, since the channel has no propagation
//! delay and every clock is exact. A longer frame (a broadcast at the basic rate, a
//! lower rate after a rate change) still goes out whole: its exchange runs into the
//! following slots, which stay unused, and the schedule resumes at the first slot that
//! starts after it, so transmissions never overlap.
//!
//! Reception goes through the shared [`Channel`], as with DCF: ranges, link loss, fading
//! and overhearing behave the same, and everything a radio decodes goes up
//! (`Received`, `Overheard`).

use super::channel::{Channel, RadioEvent};
use super::config::{Access, RateControl, WifiConfig};
use super::frame::{AirFrame, FrameKind, MacFrame, BROADCAST};
use super::mac::{MacStats, TxStatus, WifiEvent, WifiOutput};
use super::rate::RateTable;
use crate::ids::NodeId;
use crate::medium::port::Dequeued;
use crate::net::{Packet, TransportHeader};
use airqueue_kernel::{EventQueue, Time, TimerId, Timers};
use airqueue_phy::dsss::{self, ACK_BYTES};
use airqueue_phy::{frame_duration, DsssRate};
use std::collections::VecDeque;

/// Bytes a slot sized for a flow's packets leaves beyond the payload: the IP header (20)
/// and the largest TCP header (60: data offset 15 words, RFC 9293 3.1), so any TCP
/// segment of the flow fits, whatever its options.
pub const SLOT_HEADROOM_BYTES: u32 = 20 + 60;

/// The slot of a TDMA schedule: a DATA frame carrying an IP packet of `slot_bytes` at
/// the data rate, then SIFS and the ACK at the basic rate.
pub fn slot_duration(cfg: &WifiConfig, slot_bytes: u32) -> Time {
    frame_duration(
        slot_bytes + cfg.data_overhead_bytes,
        cfg.data_rate,
        cfg.preamble,
    ) + cfg.sifs()
        + dsss::ack_duration(cfg.basic_rate, cfg.preamble)
}

/// One round of the schedule: every radio node once in id order, and a node given `w`
/// slots per round (`WifiConfig::tdma_slots`, a counterfactual) `w - 1` more, spread
/// evenly over the round: its `j`-th slot sits `j / w` of a round after its own place.
/// Ties keep the node's own slot first, then node id.
fn schedule(radios: &[NodeId], slots: &[(NodeId, u32)]) -> Vec<NodeId> {
    let n = radios.len() as u64;
    let weight = |v: NodeId| {
        slots
            .iter()
            .find(|(u, _)| *u == v)
            .map_or(1, |&(_, w)| w.max(1))
    };
    // (place as the fraction num / den of a round, j, node)
    let mut places: Vec<(u64, u64, u32, NodeId)> = Vec::new();
    for (i, &v) in radios.iter().enumerate() {
        let w = u64::from(weight(v));
        for j in 0..w {
            let num = (i as u64 * w + j * n) % (n * w);
            places.push((num, w, j as u32, v));
        }
    }
    places.sort_by(|a, b| {
        (u128::from(a.0) * u128::from(b.1))
            .cmp(&(u128::from(b.0) * u128::from(a.1)))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    places.into_iter().map(|p| p.3).collect()
}

/// The two timers of the schedule: the next slot's start, and the SIFS before an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TdmaTimer {
    Slot,
    Respond,
}

#[derive(Clone, Debug)]
struct Station {
    /// The MAC buffer, head first.
    queue: VecDeque<MacFrame>,
    next_seq: u16,
    /// Last sequence number accepted per transmitter (10.3.2.11 duplicate detection).
    last_seq: Vec<(NodeId, u16)>,
    rates: RateTable,
    cca_busy: bool,
    busy_since: Time,
    stats: MacStats,
}

/// The frame on the air.
#[derive(Clone, Copy, Debug)]
struct OnAir {
    from: NodeId,
    frame: AirFrame,
    ends_at: Time,
}

/// Every station's TDMA MAC plus the channel they share.
pub struct TdmaNet {
    cfg: WifiConfig,
    pub channel: Channel,
    stations: Vec<Station>,
    /// The radio nodes in id order: slot `k` is `order[k % order.len()]`'s.
    order: Vec<NodeId>,
    slot: Time,
    timers: Timers<TdmaTimer>,
    slot_timer: TimerId,
    respond_timer: TimerId,
    /// The first slot index that may still start (slots before it have started or were
    /// covered by a longer exchange).
    next_slot: u64,
    on_air: Option<OnAir>,
    /// The ACK owed SIFS after the current DATA frame: (its sender, its receiver).
    response: Option<(NodeId, NodeId)>,
    /// The station whose DATA frame waits for its ACK.
    awaiting_ack: Option<NodeId>,
    /// The current slot's exchange (DATA, SIFS, ACK) ends then.
    busy_until: Time,
    /// Frames in all MAC buffers; with none the schedule sleeps (no slot events).
    buffered: usize,
    ack_duration: Time,
    radio_events: Vec<RadioEvent>,
    /// Outputs of the last call, drained by the world.
    pub out: Vec<WifiOutput>,
}

impl TdmaNet {
    /// Only the nodes for which `radio` holds are on the channel and in the schedule;
    /// `loss(a, b)` is the erasure probability of frames from a to b. `cfg.access` gives
    /// the slot (`Access::Tdma`).
    pub fn with_radios(
        cfg: WifiConfig,
        positions: &[[f64; 2]],
        radio: impl Fn(NodeId) -> bool,
        seed: u64,
        loss: impl Fn(NodeId, NodeId) -> f64,
    ) -> Self {
        let slot_bytes = match cfg.access {
            Access::Tdma { slot_bytes } => slot_bytes,
            Access::Contention => panic!("TdmaNet built for a contention MAC"),
        };
        let channel = Channel::with_radios(&cfg, positions, radio, seed, loss);
        let radios: Vec<NodeId> = (0..positions.len() as u32)
            .map(NodeId)
            .filter(|&n| channel.has_radio(n))
            .collect();
        let order = schedule(&radios, &cfg.tdma_slots);
        let stations = (0..positions.len())
            .map(|_| Station {
                queue: VecDeque::new(),
                next_seq: 0,
                last_seq: Vec::new(),
                rates: match cfg.rate_control {
                    RateControl::Constant => RateTable::constant(cfg.data_rate),
                    RateControl::Aarf => RateTable::Aarf {
                        start: cfg.data_rate,
                        peers: Vec::new(),
                    },
                },
                cca_busy: false,
                busy_since: Time::ZERO,
                stats: MacStats::default(),
            })
            .collect();
        let mut timers = Timers::new();
        let slot_timer = timers.create(TdmaTimer::Slot);
        let respond_timer = timers.create(TdmaTimer::Respond);
        TdmaNet {
            slot: slot_duration(&cfg, slot_bytes),
            ack_duration: dsss::ack_duration(cfg.basic_rate, cfg.preamble),
            cfg,
            channel,
            stations,
            order,
            timers,
            slot_timer,
            respond_timer,
            next_slot: 0,
            on_air: None,
            response: None,
            awaiting_ack: None,
            busy_until: Time::ZERO,
            buffered: 0,
            radio_events: Vec::with_capacity(64),
            out: Vec::with_capacity(16),
        }
    }

    pub fn config(&self) -> &WifiConfig {
        &self.cfg
    }

    /// The length of one slot.
    pub fn slot(&self) -> Time {
        self.slot
    }

    #[inline]
    pub fn has_radio(&self, node: NodeId) -> bool {
        self.channel.has_radio(node)
    }

    pub fn stats(&self, node: NodeId) -> MacStats {
        self.stations[node.index()].stats
    }

    /// The rate of `from`'s next unicast data frame to `to`.
    pub fn link_rate(&self, from: NodeId, to: NodeId) -> DsssRate {
        self.stations[from.index()].rates.current(to)
    }

    /// Sets the data rate of both directions of every link of each of `nodes` (as
    /// [`super::mac::WifiNet::set_link_rates`]).
    pub fn set_link_rates(&mut self, nodes: &[NodeId], rate: DsssRate) {
        for &v in nodes {
            if !self.channel.has_radio(v) {
                continue;
            }
            for &u in &self.order {
                if u != v {
                    self.stations[u.index()].rates.set_rate(v, rate);
                    self.stations[v.index()].rates.set_rate(u, rate);
                }
            }
        }
    }

    /// Whether the station would accept another frame from its queue discipline.
    pub fn wants_frame(&self, node: NodeId) -> bool {
        self.stations[node.index()].queue.len() < self.cfg.tx_buffer_frames as usize
    }

    /// Every packet in the stations' MAC buffers.
    pub fn buffered_packets(&self) -> impl Iterator<Item = &Packet> {
        (self.stations.iter())
            .flat_map(|s| s.queue.iter())
            .map(|f| &f.pkt)
    }

    /// Data packets held by MACs that no next hop has accepted yet (routing control
    /// packets are not counted).
    pub fn in_flight(&self) -> usize {
        (self.stations.iter())
            .flat_map(|s| s.queue.iter())
            .filter(|f| !f.handed_over && !f.pkt.transport.is_control())
            .count()
    }

    /// Adds busy time still open at the end of the run to the statistics.
    pub fn close_stats(&mut self, now: Time) {
        for st in &mut self.stations {
            if st.cca_busy {
                st.stats.busy_time += now.saturating_sub(st.busy_since);
                st.busy_since = now;
            }
        }
    }

    /// Hands a frame pulled from the queue discipline to the MAC; it goes out in one of
    /// the node's next slots. TDMA has one buffer: the MAC level is not used.
    pub fn push_frame<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        d: Dequeued,
        q: &mut EventQueue<E>,
    ) {
        let st = &mut self.stations[node.index()];
        let seq = st.next_seq;
        st.next_seq = st.next_seq.wrapping_add(1) & 0x0fff; // 12-bit sequence number (9.2.4.4)
        st.queue.push_back(MacFrame {
            pkt: d.pkt,
            next_hop: d.next_hop,
            level: 0,
            seq,
            short_retries: 0,
            long_retries: 0,
            handed_over: false,
            airtime: Time::ZERO,
            aired: 0,
            aired_half_mbps: 0,
            head_at: q.now(),
            backoff_slots: 0,
            ifs: Time::ZERO,
        });
        self.buffered += 1;
        if !self.timers.is_armed(self.slot_timer) {
            self.arm_next_slot(q);
        }
    }

    /// Handles one of the medium's own events; results land in `self.out`.
    pub fn handle<E: From<WifiEvent>>(&mut self, ev: WifiEvent, q: &mut EventQueue<E>) {
        match ev {
            WifiEvent::TxEnd(node) => self.tx_end(node, q),
            WifiEvent::Timer(t) => match self.timers.fire(t, q, |e| WifiEvent::Timer(e).into()) {
                Some(TdmaTimer::Slot) => self.slot_start(q),
                Some(TdmaTimer::Respond) => self.send_ack(q),
                None => {}
            },
        }
    }

    // ----- the schedule -------------------------------------------------------------------

    /// Arms the slot timer at the first slot that starts at or after both now and the
    /// end of the current exchange.
    fn arm_next_slot<E: From<WifiEvent>>(&mut self, q: &mut EventQueue<E>) {
        let from = q.now().max(self.busy_until).as_nanos();
        let slot = self.slot.as_nanos();
        let k = from.div_ceil(slot).max(self.next_slot);
        self.next_slot = k;
        self.timers
            .arm(self.slot_timer, self.slot.times(k), q, |e| {
                WifiEvent::Timer(e).into()
            });
    }

    /// Slot `next_slot` starts now: its owner sends its head frame, if it has one.
    fn slot_start<E: From<WifiEvent>>(&mut self, q: &mut EventQueue<E>) {
        if let Some(on_air) = self.on_air {
            // An exchange that fills its slot to the nanosecond ends as this slot starts,
            // but its ACK's end was scheduled after this timer: start the slot again at
            // the same instant, after that end (or later, if the frame runs on).
            self.busy_until = self.busy_until.max(on_air.ends_at);
            self.arm_next_slot(q);
            return;
        }
        let k = self.next_slot;
        self.next_slot = k + 1;
        let owner = self.order[(k % self.order.len() as u64) as usize];
        if !self.stations[owner.index()].queue.is_empty() {
            self.send_data(owner, q);
        }
        if self.buffered > 0 {
            self.arm_next_slot(q);
        }
    }

    // ----- transmissions ------------------------------------------------------------------

    /// `node` sends the frame at the head of its buffer.
    fn send_data<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let (data_rate, basic_rate, preamble) =
            (self.cfg.data_rate, self.cfg.basic_rate, self.cfg.preamble);
        let overhead = self.cfg.data_overhead_bytes;
        let st = &mut self.stations[node.index()];
        let f = st.queue.front_mut().expect("the slot's owner has a frame");
        let dst = f.next_hop;
        let rate = if dst != BROADCAST {
            st.rates.rate_for(dst)
        } else if f.pkt.transport.broadcast_at_data_rate() {
            data_rate
        } else {
            basic_rate
        };
        let duration = frame_duration(f.pkt.size_bytes() + overhead, rate, preamble);
        let retry = f.short_retries > 0;
        f.aired += 1;
        f.aired_half_mbps += (rate.bps() / 500_000) as u32;
        f.airtime += duration;
        let is_tcp_ack = matches!(f.pkt.transport, TransportHeader::TcpAck(_));
        let stats = &mut st.stats;
        stats.data_tx += 1;
        stats.data_airtime += duration;
        if is_tcp_ack {
            stats.tcp_ack_tx += 1;
            stats.tcp_ack_airtime += duration;
        }
        stats.by_level[0].data_tx += 1;
        stats.data_tx_by_rate[DsssRate::ALL.iter().position(|r| *r == rate).unwrap_or(0)] += 1;
        stats.retries += retry as u64;
        let frame = AirFrame {
            kind: FrameKind::Data,
            dst,
            rate,
            nav: Time::ZERO,
            seq: f.seq,
            retry,
            level: 0,
        };
        let now = q.now();
        self.busy_until = if dst == BROADCAST {
            now + duration
        } else {
            now + duration + self.cfg.sifs() + self.ack_duration
        };
        self.transmit(node, frame, duration, q);
    }

    /// The receiver of the last DATA frame answers with its ACK.
    fn send_ack<E: From<WifiEvent>>(&mut self, q: &mut EventQueue<E>) {
        let Some((sender, receiver)) = self.response.take() else {
            return;
        };
        let frame = AirFrame {
            kind: FrameKind::Ack,
            dst: sender,
            rate: self.cfg.basic_rate,
            nav: Time::ZERO,
            seq: 0,
            retry: false,
            level: 0,
        };
        self.stations[receiver.index()].stats.acks_tx += 1;
        debug_assert_eq!(
            self.ack_duration,
            frame_duration(ACK_BYTES, frame.rate, self.cfg.preamble)
        );
        self.transmit(receiver, frame, self.ack_duration, q);
    }

    fn transmit<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        frame: AirFrame,
        duration: Time,
        q: &mut EventQueue<E>,
    ) {
        debug_assert!(self.on_air.is_none(), "two TDMA transmissions overlap");
        let ends_at = q.now() + duration;
        self.on_air = Some(OnAir {
            from: node,
            frame,
            ends_at,
        });
        self.radio_events.clear();
        self.channel
            .start_tx(node, frame.rate, q.now(), &mut self.radio_events);
        self.process_radio_events(q);
        q.schedule_in(duration, WifiEvent::TxEnd(node).into());
    }

    fn tx_end<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let now = q.now();
        let on_air = self.on_air.expect("tx end without a frame");
        debug_assert_eq!(on_air.from, node);
        // Receivers decode (and the addressee schedules its ACK) before the sender moves on.
        self.radio_events.clear();
        self.channel.end_tx(node, &mut self.radio_events);
        self.process_radio_events(q);
        self.on_air = None;
        let frame = on_air.frame;
        match frame.kind {
            FrameKind::Data if frame.dst == BROADCAST => self.broadcast_done(node, now),
            FrameKind::Data => {
                if self.response.is_some() {
                    self.awaiting_ack = Some(node);
                } else {
                    // No ACK will come: the sender's timeout would expire within the slot,
                    // and its next attempt waits for its next slot either way.
                    self.attempt_failed(node, now);
                }
            }
            FrameKind::Ack => {
                // Decoding the ACK (in the events above) cleared `awaiting_ack`.
                if self.awaiting_ack.take() == Some(frame.dst) {
                    self.attempt_failed(frame.dst, now);
                }
            }
            FrameKind::Rts | FrameKind::Cts => unreachable!("TDMA sends no RTS/CTS"),
        }
    }

    fn process_radio_events<E: From<WifiEvent>>(&mut self, q: &mut EventQueue<E>) {
        let now = q.now();
        for i in 0..self.radio_events.len() {
            match self.radio_events[i] {
                RadioEvent::RxEnd {
                    node,
                    from,
                    decoded,
                    sensed_only,
                } => self.rx_end(node, from, decoded, sensed_only, q),
                RadioEvent::Cca { node, busy } => {
                    let st = &mut self.stations[node.index()];
                    if busy != st.cca_busy {
                        if busy {
                            st.busy_since = now;
                        } else {
                            st.stats.busy_time += now - st.busy_since;
                        }
                        st.cca_busy = busy;
                    }
                }
            }
        }
    }

    /// A frame from `from` that `node` was locked onto has ended.
    fn rx_end<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        from: NodeId,
        decoded: bool,
        sensed_only: bool,
        q: &mut EventQueue<E>,
    ) {
        let st = &mut self.stations[node.index()];
        if !decoded {
            if sensed_only {
                st.stats.rx_sensed += 1;
            } else {
                st.stats.rx_failed += 1;
            }
            return;
        }
        st.stats.rx_ok += 1;
        let frame = self.on_air.expect("decoded frame has a sender").frame;
        match frame.kind {
            FrameKind::Data => {
                let head = self.stations[from.index()].queue.front();
                let pkt = head.expect("data buffered").pkt.clone();
                if frame.dst == BROADCAST {
                    self.out.push(WifiOutput::Received { node, from, pkt });
                } else if frame.dst == node {
                    let st = &mut self.stations[node.index()];
                    let dup = match st.last_seq.iter_mut().find(|(n, _)| *n == from) {
                        Some((_, last)) => {
                            let dup = frame.retry && *last == frame.seq;
                            *last = frame.seq;
                            dup
                        }
                        None => {
                            st.last_seq.push((from, frame.seq));
                            false
                        }
                    };
                    if dup {
                        st.stats.duplicates += 1;
                    } else {
                        self.out.push(WifiOutput::Received { node, from, pkt });
                        let head = self.stations[from.index()].queue.front_mut();
                        head.expect("data buffered").handed_over = true;
                    }
                    self.response = Some((from, node));
                    let at = q.now() + self.cfg.sifs();
                    self.timers
                        .arm(self.respond_timer, at, q, |e| WifiEvent::Timer(e).into());
                } else {
                    self.out.push(WifiOutput::Overheard {
                        node,
                        from,
                        to: frame.dst,
                        pkt,
                    });
                }
            }
            FrameKind::Ack => {
                if frame.dst == node && self.awaiting_ack == Some(node) {
                    self.awaiting_ack = None;
                    self.acknowledged(node, q.now());
                }
            }
            FrameKind::Rts | FrameKind::Cts => {}
        }
    }

    // ----- outcomes -----------------------------------------------------------------------

    /// Takes `node`'s head frame, which leaves the MAC at `now`; the next one reaches
    /// the head then.
    fn pop_head(&mut self, node: NodeId, now: Time) -> MacFrame {
        let st = &mut self.stations[node.index()];
        let f = st.queue.pop_front().expect("head frame buffered");
        if let Some(next) = st.queue.front_mut() {
            next.head_at = now;
        }
        self.buffered -= 1;
        f
    }

    /// The head frame of `node` was acknowledged at `now`.
    fn acknowledged(&mut self, node: NodeId, now: Time) {
        let f = self.pop_head(node, now);
        let st = &mut self.stations[node.index()];
        st.rates.report(f.next_hop, true);
        let rate = st.rates.rate_for(f.next_hop);
        let status = TxStatus::of(node, &f, true, f.attempts(), rate);
        self.out.push(WifiOutput::TxStatus(status));
        self.out.push(WifiOutput::WantFrame(node));
    }

    /// `node`'s broadcast frame has ended at `now`: no ACK, no retry.
    fn broadcast_done(&mut self, node: NodeId, now: Time) {
        let f = self.pop_head(node, now);
        if !f.pkt.transport.is_control() {
            self.out
                .push(WifiOutput::BroadcastDone { node, pkt: f.pkt });
        }
        self.out.push(WifiOutput::WantFrame(node));
    }

    /// `node`'s unicast attempt got no ACK: retry in its next slot, or give up at the
    /// retry limit (10.3.4.4; without RTS every attempt counts against the short limit).
    fn attempt_failed(&mut self, node: NodeId, now: Time) {
        let limit = self.cfg.short_retry_limit;
        let st = &mut self.stations[node.index()];
        let f = st.queue.front_mut().expect("failed frame buffered");
        st.rates.report(f.next_hop, false);
        st.stats.by_level[0].failed_attempts += 1;
        f.short_retries += 1;
        if f.short_retries < limit {
            return;
        }
        st.stats.retry_limit_drops += 1;
        st.stats.by_level[0].retry_limit_drops += 1;
        let f = self.pop_head(node, now);
        let rate = self.stations[node.index()].rates.rate_for(f.next_hop);
        let status = TxStatus::of(node, &f, false, f.attempts() - 1, rate);
        self.out.push(WifiOutput::TxStatus(status));
        if !f.handed_over {
            self.out
                .push(WifiOutput::RetryLimitDrop { node, pkt: f.pkt });
        }
        self.out.push(WifiOutput::WantFrame(node));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::net::packet::DEFAULT_TTL;

    const SLOT_BYTES: u32 = 1540;

    #[test]
    fn a_round_gives_every_radio_one_slot_in_id_order_unless_told_otherwise() {
        let radios: Vec<NodeId> = [0, 1, 2, 3, 4, 5].map(NodeId).to_vec();
        assert_eq!(schedule(&radios, &[]), radios);
        assert_eq!(schedule(&radios, &[(NodeId(4), 1)]), radios);
        // Node 2 with three slots: its own, then a third and two thirds of a round on.
        let ids = |v: Vec<NodeId>| v.into_iter().map(|n| n.0).collect::<Vec<_>>();
        assert_eq!(
            ids(schedule(&radios, &[(NodeId(2), 3)])),
            [0, 2, 1, 2, 3, 4, 2, 5]
        );
        // Two weighted nodes share the round; every node keeps its count.
        let order = schedule(&radios, &[(NodeId(0), 2), (NodeId(5), 4)]);
        let count = |v: u32| order.iter().filter(|n| n.0 == v).count();
        assert_eq!((order.len(), count(0), count(5), count(3)), (10, 2, 4, 1));
    }

    fn cfg() -> WifiConfig {
        WifiConfig {
            data_rate: DsssRate::Mbps2,
            access: Access::Tdma {
                slot_bytes: SLOT_BYTES,
            },
            tx_buffer_frames: 4,
            short_retry_limit: 3,
            ..WifiConfig::dsss_default()
        }
    }

    /// Three stations 10 m apart, every one in range of the others.
    fn three(cfg: WifiConfig, loss: impl Fn(NodeId, NodeId) -> f64) -> TdmaNet {
        let at = [[0.0, 0.0], [10.0, 0.0], [20.0, 0.0]];
        TdmaNet::with_radios(cfg, &at, |_| true, 1, loss)
    }

    fn frame(src: u32, next_hop: NodeId, uid: u64) -> Dequeued {
        Dequeued {
            pkt: Packet {
                uid,
                flow: FlowId(0),
                src: NodeId(src),
                dst: next_hop,
                seq: 0,
                payload_bytes: 1000,
                transport: TransportHeader::Udp,
                ttl: DEFAULT_TTL,
                priority: 0,
                diffq: None,
                report: None,
                created: Time::ZERO,
            },
            next_hop,
            priority: 0,
        }
    }

    fn run(net: &mut TdmaNet, q: &mut EventQueue<WifiEvent>) -> Vec<(Time, WifiOutput)> {
        let mut out = vec![];
        while let Some((t, ev)) = q.pop() {
            net.handle(ev, q);
            out.extend(net.out.drain(..).map(|o| (t, o)));
        }
        out
    }

    /// (time, receiver, sender) of every `Received`.
    fn receptions(out: &[(Time, WifiOutput)]) -> Vec<(Time, u32, u32)> {
        (out.iter())
            .filter_map(|(t, o)| match o {
                WifiOutput::Received { node, from, .. } => Some((*t, node.0, from.0)),
                _ => None,
            })
            .collect()
    }

    /// Two frames at each of the three stations, each for the next station round the ring.
    fn push_two_to_each_next(net: &mut TdmaNet, q: &mut EventQueue<WifiEvent>) {
        for n in 0..3 {
            for k in 0..2 {
                let to = NodeId((n + 1) % 3);
                net.push_frame(NodeId(n), frame(n, to, (2 * n + k) as u64), q);
            }
        }
    }

    /// (time, receiver, sender) of `count` frames sent one per slot round the ring, each
    /// received `data` after its slot starts.
    fn one_per_slot(slot: Time, data: Time, count: u32) -> Vec<(Time, u32, u32)> {
        (0..count)
            .map(|k| (slot.times(k as u64) + data, (k + 1) % 3, k % 3))
            .collect()
    }

    fn data_time(cfg: &WifiConfig) -> Time {
        frame_duration(
            1000 + 28 + cfg.data_overhead_bytes,
            cfg.data_rate,
            cfg.preamble,
        )
    }

    #[test]
    fn the_slot_is_one_data_frame_then_sifs_and_the_ack() {
        let c = cfg();
        let data = frame_duration(SLOT_BYTES + 36, DsssRate::Mbps2, c.preamble);
        let ack = frame_duration(ACK_BYTES, DsssRate::Mbps1, c.preamble);
        assert_eq!(slot_duration(&c, SLOT_BYTES), data + dsss::SIFS + ack);
        assert_eq!(three(c, |_, _| 0.0).slot(), data + dsss::SIFS + ack);
    }

    #[test]
    fn slots_go_round_in_id_order_with_one_frame_each() {
        let c = cfg();
        let mut net = three(c.clone(), |_, _| 0.0);
        let mut q = EventQueue::new();
        push_two_to_each_next(&mut net, &mut q);
        assert_eq!(net.in_flight(), 6);
        let out = run(&mut net, &mut q);
        assert_eq!(receptions(&out), one_per_slot(net.slot(), data_time(&c), 6));
        for n in 0..3 {
            let s = net.stats(NodeId(n));
            assert_eq!((s.data_tx, s.acks_tx, s.retries), (2, 2, 0));
            assert_eq!(s.rts_tx, 0);
        }
        let ok = out
            .iter()
            .filter(|(_, o)| matches!(o, WifiOutput::TxStatus(s) if s.success));
        assert_eq!(ok.count(), 6);
        // Every frame left the MACs: nothing in flight, nothing buffered.
        assert_eq!(net.in_flight(), 0);
        assert_eq!(net.buffered_packets().count(), 0);
    }

    #[test]
    fn a_station_with_nothing_to_send_leaves_its_slot_idle() {
        let c = cfg();
        let mut net = three(c.clone(), |_, _| 0.0);
        let mut q = EventQueue::new();
        net.push_frame(NodeId(2), frame(2, NodeId(0), 1), &mut q);
        net.push_frame(NodeId(2), frame(2, NodeId(0), 2), &mut q);
        let out = run(&mut net, &mut q);
        let slot = net.slot();
        // Node 2 waits for slots 2 and 5; slots 0, 1, 3, 4 stay silent.
        let want = vec![
            (slot.times(2) + data_time(&c), 0, 2),
            (slot.times(5) + data_time(&c), 0, 2),
        ];
        assert_eq!(receptions(&out), want);
        assert_eq!(
            net.stats(NodeId(0)).data_tx + net.stats(NodeId(1)).data_tx,
            0
        );
    }

    #[test]
    fn a_frame_pushed_while_idle_waits_for_its_owners_next_slot() {
        let c = cfg();
        let mut net = three(c.clone(), |_, _| 0.0);
        let mut q: EventQueue<WifiEvent> = EventQueue::new();
        let slot = net.slot();
        // Advance the clock into slot 4 (node 1's) with an event nobody handles.
        q.schedule_in(
            slot.times(4) + Time::from_micros(1),
            WifiEvent::TxEnd(NodeId(2)),
        );
        q.pop();
        net.push_frame(NodeId(0), frame(0, NodeId(1), 1), &mut q);
        let out = run(&mut net, &mut q);
        assert_eq!(
            receptions(&out),
            vec![(slot.times(6) + data_time(&c), 1, 0)]
        );
    }

    #[test]
    fn unacknowledged_frames_go_again_in_later_slots_until_the_retry_limit() {
        let c = cfg();
        // Everything from 0 to 1 is erased.
        let mut net = three(c, |a, b| if (a.0, b.0) == (0, 1) { 1.0 } else { 0.0 });
        let mut q = EventQueue::new();
        net.push_frame(NodeId(0), frame(0, NodeId(1), 7), &mut q);
        let out = run(&mut net, &mut q);
        let s = net.stats(NodeId(0));
        assert_eq!((s.data_tx, s.retries, s.retry_limit_drops), (3, 2, 1));
        assert_eq!(s.by_level[0].failed_attempts, 3);
        let drops: Vec<Time> = (out.iter())
            .filter(|(_, o)| matches!(o, WifiOutput::RetryLimitDrop { pkt, .. } if pkt.uid == 7))
            .map(|(t, _)| *t)
            .collect();
        // Attempts in node 0's slots 0, 3 and 6; given up after the third.
        let slot = net.slot();
        assert_eq!(drops.len(), 1);
        assert!(drops[0] > slot.times(6) && drops[0] < slot.times(7));
        let status = out.iter().find_map(|(_, o)| match o {
            WifiOutput::TxStatus(st) => Some(*st),
            _ => None,
        });
        let status = status.expect("feedback");
        assert!(!status.success);
        assert_eq!((status.attempts, status.aired), (3, 3));
        // Node 2 overheard every attempt.
        let overheard = out.iter().filter(|(_, o)| {
            matches!(o, WifiOutput::Overheard { node, to, .. } if node.0 == 2 && to.0 == 1)
        });
        assert_eq!(overheard.count(), 3);
        assert_eq!(net.in_flight(), 0);
    }

    #[test]
    fn a_lost_ack_brings_a_retry_that_the_receiver_filters() {
        let c = cfg();
        // ACKs from 1 to 0 are erased; the DATA gets through.
        let mut net = three(c, |a, b| if (a.0, b.0) == (1, 0) { 1.0 } else { 0.0 });
        let mut q = EventQueue::new();
        net.push_frame(NodeId(0), frame(0, NodeId(1), 7), &mut q);
        let out = run(&mut net, &mut q);
        assert_eq!(receptions(&out).len(), 1, "delivered once");
        assert_eq!(net.stats(NodeId(1)).duplicates, 2);
        assert_eq!(net.stats(NodeId(1)).acks_tx, 3);
        // The packet reached its next hop: the retry-limit drop loses nothing.
        assert!(!out
            .iter()
            .any(|(_, o)| matches!(o, WifiOutput::RetryLimitDrop { .. })));
        assert_eq!(net.stats(NodeId(0)).retry_limit_drops, 1);
        assert_eq!(net.in_flight(), 0);
    }

    #[test]
    fn a_frame_that_fills_its_slot_exactly_hands_over_to_the_next_slot_on_time() {
        // Slots sized for exactly the 1028-byte IP packet: each ACK ends as the next
        // slot starts, and the next owner sends then, not over the ACK.
        let c = WifiConfig {
            access: Access::Tdma { slot_bytes: 1028 },
            ..cfg()
        };
        let mut net = three(c.clone(), |_, _| 0.0);
        let mut q = EventQueue::new();
        push_two_to_each_next(&mut net, &mut q);
        let out = run(&mut net, &mut q);
        let slot = net.slot();
        assert_eq!(slot, data_time(&c) + dsss::SIFS + net.ack_duration);
        assert_eq!(receptions(&out), one_per_slot(slot, data_time(&c), 6));
        assert_eq!(net.in_flight(), 0);
    }

    #[test]
    fn a_frame_longer_than_a_slot_holds_the_next_slots() {
        // Slots sized for 100-byte packets: node 0's 1000-byte broadcast at 1 Mb/s
        // outlasts several of them.
        let c = WifiConfig {
            access: Access::Tdma { slot_bytes: 100 },
            ..cfg()
        };
        let mut net = three(c.clone(), |_, _| 0.0);
        let mut q = EventQueue::new();
        net.push_frame(NodeId(0), frame(0, BROADCAST, 1), &mut q);
        net.push_frame(NodeId(1), frame(1, NodeId(2), 2), &mut q);
        let out = run(&mut net, &mut q);
        let slot = net.slot();
        let bcast = frame_duration(1028 + c.data_overhead_bytes, DsssRate::Mbps1, c.preamble);
        let got = receptions(&out);
        assert_eq!(got[..2], [(bcast, 1, 0), (bcast, 2, 0)]);
        // Node 1 sends in the first of its slots that starts after the broadcast.
        let k = (0..)
            .find(|&k| k % 3 == 1 && slot.times(k) >= bcast)
            .unwrap();
        assert_eq!(got[2], (slot.times(k) + data_time(&c), 2, 1));
        assert!(out
            .iter()
            .any(|(_, o)| matches!(o, WifiOutput::BroadcastDone { node, .. } if node.0 == 0)));
    }
}
