//! DCF and EDCA channel access (IEEE 802.11-2016 clause 10.3 and 10.22.2) for every station
//! on the channel, driven by radio events and three timers per station.
//!
//! Backoff is computed, not ticked: while a station senses the medium free, each access
//! category (AC) with a frame or a pending backoff has a *grant time*
//! `idle_since + AIFS[AC] + slots * aSlotTime` (EIFS - DIFS + AIFS after a frame it could
//! not decode, 10.3.2.3.7). One timer fires at the earliest grant. When the medium turns
//! busy at `t`, every AC keeps the slots it has not yet counted
//! (`slots - floor((t - start) / slot)`, 10.3.4.3: the counter only moves at the end of an
//! idle slot). An AC whose grant is exactly `t` still transmits: a station cannot sense a
//! transmission that starts in the same slot, which is how two stations collide. Several
//! ACs of one station due at once resolve internally: the highest level sends, the others
//! behave as if they had collided (10.22.2.4).
//!
//! "Free" means: carrier sense idle, NAV expired, no exchange of the station's own in
//! progress (its DATA/RTS on the air, or waiting SIFS-separated ACK/CTS) and no response
//! pending. ACK and CTS go out SIFS after the frame they answer, without carrier sense
//! (10.3.2.9, 10.3.2.7).
//!
//! Optionally (`nav_reset_after_rts`) a NAV set by an overheard RTS is reset when no
//! reception starts within 10.3.2.4's NAVTimeout after it, so the overhearers of a
//! handshake that failed (no CTS, hence no DATA) are not held silent for the whole
//! announced exchange.

use super::channel::{Channel, RadioEvent};
use super::config::{RateControl, WifiConfig};
use super::frame::{AirFrame, FrameKind, MacFrame, BROADCAST};
use super::rate::RateTable;
use crate::ids::{FlowId, NodeId};
use crate::medium::port::Dequeued;
use crate::net::{Packet, TransportHeader};
use airqueue_kernel::{EventQueue, RngStream, StreamKey, Time, TimerEvent, TimerId, Timers};
use airqueue_phy::dsss::{self, ACK_BYTES, CTS_BYTES, EIFS, RTS_BYTES};
use airqueue_phy::{frame_duration, DsssRate, EdcaLevel};
use std::collections::VecDeque;

/// The idle time an AC waits before counting backoff slots: AIFS[AC], or after a frame
/// the station could not decode EIFS - DIFS + AIFS[AC] (10.22.2.4 / 10.3.2.3.7).
#[inline]
fn ifs(eifs: bool, params: EdcaLevel) -> Time {
    if eifs {
        EIFS - dsss::DIFS + params.aifs()
    } else {
        params.aifs()
    }
}

/// Events the wifi medium schedules for itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WifiEvent {
    /// The station's current transmission ends.
    TxEnd(NodeId),
    Timer(TimerEvent),
}

/// The four timers of a station (mutually exclusive uses share one timer each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimerKind {
    /// Earliest backoff grant.
    Access,
    /// ACK/CTS timeout, or the SIFS before DATA after a CTS.
    Exchange,
    /// SIFS before an ACK or CTS; also the end of the NAV.
    Response,
    /// The NAVTimeout after an RTS set the NAV (10.3.2.4; only with
    /// `nav_reset_after_rts`).
    NavReset,
}

/// What the medium tells the node (the world routes these to the network layer).
#[derive(Clone, Debug, PartialEq)]
pub enum WifiOutput {
    /// A data frame addressed to `node` (or broadcast) was decoded; duplicates filtered.
    Received {
        node: NodeId,
        from: NodeId,
        pkt: Packet,
    },
    /// A unicast data frame for someone else was decoded by `node` (DESIGN.md: everything
    /// a radio decodes goes up).
    Overheard {
        node: NodeId,
        from: NodeId,
        to: NodeId,
        pkt: Packet,
    },
    /// Link-layer feedback for a unicast frame (success or final failure).
    TxStatus(TxStatus),
    /// The MAC gave up on a packet the next hop never received.
    RetryLimitDrop { node: NodeId, pkt: Packet },
    /// The station has room in its transmit buffer: pull from the queue discipline.
    WantFrame(NodeId),
    /// A broadcast data packet (not routing control) left `node`'s MAC: its frame has
    /// ended, after every reception of it was reported. Broadcasts get no ACK and no
    /// retries, so this is the end of the packet's life at the MAC.
    BroadcastDone { node: NodeId, pkt: Packet },
}

/// Link-layer feedback (DESIGN.md: "Link-layer feedback goes up too").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TxStatus {
    pub node: NodeId,
    pub next_hop: NodeId,
    /// The flow of the frame's packet.
    pub flow: FlowId,
    pub success: bool,
    /// Attempts, internal collisions included (what the retry counters saw).
    pub attempts: u32,
    /// The rate the next frame to `next_hop` would use (after rate control learnt from
    /// this one).
    pub rate: DsssRate,
    pub airtime: Time,
    /// Attempts that went on the air (DATA, or the RTS opening an exchange); the last
    /// of them succeeded when `success`, every one failed otherwise.
    pub aired: u32,
    /// Sum of the aired attempts' data rates, units of 0.5 Mb/s: their mean rate is
    /// `aired_half_mbps * 500_000 / aired` bit/s.
    pub aired_half_mbps: u32,
    /// When the frame reached the head of the MAC ([`MacFrame::head_at`]); the status
    /// is sent at the end of its exchange (the ACK received, or the last timeout).
    pub head_at: Time,
    /// Backoff slots its attempts counted down ([`MacFrame::backoff_slots`]).
    pub backoff_slots: u32,
    /// Interframe spaces its aired attempts waited ([`MacFrame::ifs`]).
    pub ifs: Time,
}

impl TxStatus {
    /// The status of `f`, a frame that leaves `node`'s MAC now; `attempts` as the
    /// retry counters saw them, `rate` the next frame's to `f.next_hop`.
    pub fn of(node: NodeId, f: &MacFrame, success: bool, attempts: u32, rate: DsssRate) -> Self {
        TxStatus {
            node,
            next_hop: f.next_hop,
            flow: f.pkt.flow,
            success,
            attempts,
            rate,
            airtime: f.airtime,
            aired: f.aired,
            aired_half_mbps: f.aired_half_mbps,
            head_at: f.head_at,
            backoff_slots: f.backoff_slots,
            ifs: f.ifs,
        }
    }
}

/// Per-station MAC counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacStats {
    /// Data frames put on the air (first attempts and retries).
    pub data_tx: u64,
    /// The same, by rate: 1, 2, 5.5, 11 Mb/s.
    pub data_tx_by_rate: [u64; 4],
    pub retries: u64,
    pub rts_tx: u64,
    pub acks_tx: u64,
    pub retry_limit_drops: u64,
    /// Frames this radio locked onto above the receive threshold but could not decode
    /// (collisions, interference, erasures).
    pub rx_failed: u64,
    /// Frames this radio sensed below the receive threshold and received in error
    /// ([`SensedFrames::RxError`](super::config::SensedFrames::RxError)); each starts EIFS.
    pub rx_sensed: u64,
    pub rx_ok: u64,
    pub duplicates: u64,
    pub internal_collisions: u64,
    /// Time carrier sense reported busy (own transmissions included).
    pub busy_time: Time,
    /// Air time of the data frames in `data_tx` (DATA only: RTS, CTS and ACK left out).
    pub data_airtime: Time,
    /// Data frames in `data_tx` whose packet is a pure TCP ACK, and their air time: the
    /// return traffic whose channel share seed 001 section 3.3 discusses.
    pub tcp_ack_tx: u64,
    pub tcp_ack_airtime: Time,
    /// Data frames, failed attempts and retry-limit drops by access category (priority
    /// level; levels above the last are counted in the last).
    pub by_level: [LevelStats; STATS_LEVELS],
}

/// How many access categories [`MacStats::by_level`] tells apart.
pub const STATS_LEVELS: usize = 8;

/// Per-access-category MAC counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelStats {
    /// Data frames put on the air at this level (first attempts and retries).
    pub data_tx: u64,
    /// Attempts that failed: no ACK/CTS in time, or an internal collision.
    pub failed_attempts: u64,
    pub retry_limit_drops: u64,
}

#[derive(Clone, Debug)]
struct Ac {
    params: EdcaLevel,
    queue: VecDeque<MacFrame>,
    /// Sequence number of this level's next frame: one counter per TID (IEEE
    /// 802.11-2016 10.3.2.11.2), so that the receiver's cache tells a retry apart from
    /// the frames of other levels sent in between.
    next_seq: u16,
    cw: u16,
    /// Slots still to count; `None` when no backoff is pending.
    backoff: Option<u32>,
    /// When this AC will transmit if the medium stays free.
    grant: Option<Time>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exchange {
    None,
    /// Own DATA (or RTS) on the air; `after_cts` for DATA protected by RTS/CTS.
    Sending {
        level: u8,
        after_cts: bool,
    },
    WaitAck {
        level: u8,
        after_cts: bool,
    },
    WaitCts {
        level: u8,
    },
    /// CTS received; DATA goes out after SIFS.
    DataAfterCts {
        level: u8,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Response {
    kind: FrameKind,
    to: NodeId,
    nav: Time,
}

#[derive(Clone, Debug)]
struct Station {
    acs: Vec<Ac>,
    exchange: Exchange,
    response: Option<Response>,
    /// What the radio is sending now.
    on_air: Option<AirFrame>,
    nav_until: Time,
    /// When the RTS that last set the NAV ended (its PHY-RXEND), while a NAV reset is
    /// pending for it; `None` otherwise.
    nav_rts_end: Option<Time>,
    eifs: bool,
    free: bool,
    idle_since: Time,
    busy_since: Time,
    cca_busy: bool,
    /// Last sequence number accepted per transmitter and level (TID): the receiver's
    /// cache of 10.3.2.11.3 duplicate detection.
    last_seq: Vec<(NodeId, u8, u16)>,
    rates: RateTable,
    buffered: u32,
    timers: [TimerId; 4],
    stats: MacStats,
}

/// Every station's MAC plus the channel they share.
pub struct WifiNet {
    cfg: WifiConfig,
    pub channel: Channel,
    stations: Vec<Station>,
    timers: Timers<(NodeId, TimerKind)>,
    backoff_rng: Vec<RngStream>,
    radio_events: Vec<RadioEvent>,
    touched: Vec<NodeId>,
    /// Outputs of the last call, drained by the world.
    pub out: Vec<WifiOutput>,
    ack_duration: Time,
    ack_timeout: Time,
    cts_duration: Time,
    /// 10.3.2.4's NAVTimeout after an RTS at the basic rate: (2 x aSIFSTime) + CTS_Time
    /// + aRxPHYStartDelay + (2 x aSlotTime).
    nav_reset_timeout: Time,
}

impl WifiNet {
    /// Every node has a radio at its position; `loss(a, b)` is the erasure probability
    /// of frames from a to b.
    pub fn new(
        cfg: WifiConfig,
        positions: &[[f64; 2]],
        seed: u64,
        loss: impl Fn(NodeId, NodeId) -> f64,
    ) -> Self {
        Self::with_radios(cfg, positions, |_| true, seed, loss)
    }

    /// Only the nodes for which `radio` holds are on the channel (see
    /// [`Channel::with_radios`]); the others keep an idle MAC that is never given a frame.
    pub fn with_radios(
        cfg: WifiConfig,
        positions: &[[f64; 2]],
        radio: impl Fn(NodeId) -> bool,
        seed: u64,
        loss: impl Fn(NodeId, NodeId) -> f64,
    ) -> Self {
        let channel = Channel::with_radios(&cfg, positions, radio, seed, loss);
        let mut timers = Timers::new();
        let stations = (0..positions.len())
            .map(|i| {
                let node = NodeId(i as u32);
                Station {
                    acs: cfg
                        .levels
                        .iter()
                        .map(|&params| Ac {
                            params,
                            queue: VecDeque::new(),
                            next_seq: 0,
                            cw: params.cw_min,
                            backoff: None,
                            grant: None,
                        })
                        .collect(),
                    exchange: Exchange::None,
                    response: None,
                    on_air: None,
                    nav_until: Time::ZERO,
                    nav_rts_end: None,
                    eifs: false,
                    free: true,
                    idle_since: Time::ZERO,
                    busy_since: Time::ZERO,
                    cca_busy: false,
                    last_seq: Vec::new(),
                    rates: match cfg.rate_control {
                        RateControl::Constant => RateTable::constant(cfg.data_rate),
                        RateControl::Aarf => RateTable::Aarf {
                            start: cfg.data_rate,
                            peers: Vec::new(),
                        },
                    },
                    buffered: 0,
                    timers: [
                        timers.create((node, TimerKind::Access)),
                        timers.create((node, TimerKind::Exchange)),
                        timers.create((node, TimerKind::Response)),
                        timers.create((node, TimerKind::NavReset)),
                    ],
                    stats: MacStats::default(),
                }
            })
            .collect();
        let ack_duration = dsss::ack_duration(cfg.basic_rate, cfg.preamble);
        let ack_timeout = dsss::ack_timeout(cfg.basic_rate, cfg.preamble);
        let cts_duration = frame_duration(CTS_BYTES, cfg.basic_rate, cfg.preamble);
        let nav_reset_timeout = cfg.sifs().times(2)
            + cts_duration
            + dsss::plcp_duration(cfg.basic_rate, cfg.preamble)
            + cfg.slot().times(2);
        WifiNet {
            backoff_rng: (0..positions.len())
                .map(|i| RngStream::new(StreamKey::new(seed, i as u32, "mac.backoff")))
                .collect(),
            cfg,
            channel,
            stations,
            timers,
            radio_events: Vec::with_capacity(64),
            touched: Vec::with_capacity(64),
            out: Vec::with_capacity(16),
            ack_duration,
            ack_timeout,
            cts_duration,
            nav_reset_timeout,
        }
    }

    pub fn config(&self) -> &WifiConfig {
        &self.cfg
    }

    /// Whether `node` has a radio on the channel.
    #[inline]
    pub fn has_radio(&self, node: NodeId) -> bool {
        self.channel.has_radio(node)
    }

    pub fn stats(&self, node: NodeId) -> MacStats {
        self.stations[node.index()].stats
    }

    /// The rate of `from`'s next unicast data frame to `to` (what the queue discipline at
    /// either end may plan with; seed 004, III-B: the AP "is also aware of the bit-rates
    /// towards different destinations").
    pub fn link_rate(&self, from: NodeId, to: NodeId) -> DsssRate {
        self.stations[from.index()].rates.current(to)
    }

    /// Sets the data rate of both directions of every link of each of `nodes` (see
    /// [`super::config::RateChange`]): on each listed node's table towards every other
    /// station with a radio, and on theirs towards it. Frames already on the air or
    /// between attempts keep nothing of the old rate: each attempt reads the table.
    pub fn set_link_rates(&mut self, nodes: &[NodeId], rate: DsssRate) {
        for &v in nodes {
            if !self.channel.has_radio(v) {
                continue;
            }
            for u in (0..self.stations.len() as u32).map(NodeId) {
                if u == v || !self.channel.has_radio(u) {
                    continue;
                }
                self.stations[u.index()].rates.set_rate(v, rate);
                self.stations[v.index()].rates.set_rate(u, rate);
            }
        }
    }

    /// Whether the station would accept another frame from its queue discipline.
    pub fn wants_frame(&self, node: NodeId) -> bool {
        self.stations[node.index()].buffered < self.cfg.tx_buffer_frames
    }

    /// Every packet in the stations' transmit buffers (end-of-run checks).
    pub fn buffered_packets(&self) -> impl Iterator<Item = &Packet> {
        (self.stations.iter())
            .flat_map(|s| s.acs.iter())
            .flat_map(|a| a.queue.iter().map(|f| &f.pkt))
    }

    /// Data packets held by MACs that no next hop has accepted yet (end-of-run
    /// accounting; routing control packets are not counted).
    pub fn in_flight(&self) -> usize {
        self.stations
            .iter()
            .flat_map(|s| s.acs.iter())
            .flat_map(|a| a.queue.iter())
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

    /// Hands a frame pulled from the queue discipline to the MAC.
    pub fn push_frame<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        d: Dequeued,
        q: &mut EventQueue<E>,
    ) {
        let now = q.now();
        let st = &mut self.stations[node.index()];
        let level = (d.priority as usize).min(st.acs.len() - 1);
        st.buffered += 1;
        let ac = &mut st.acs[level];
        let seq = ac.next_seq;
        ac.next_seq = ac.next_seq.wrapping_add(1) & 0x0fff; // 12-bit sequence number (9.2.4.4)
        ac.queue.push_back(MacFrame {
            pkt: d.pkt,
            next_hop: d.next_hop,
            level: level as u8,
            seq,
            short_retries: 0,
            long_retries: 0,
            handed_over: false,
            airtime: Time::ZERO,
            aired: 0,
            aired_half_mbps: 0,
            head_at: now,
            backoff_slots: 0,
            ifs: Time::ZERO,
        });
        let free = st.free;
        if ac.queue.len() == 1 {
            if ac.backoff.is_none() && !free {
                // 10.3.4.2: a frame arriving while the medium is busy waits a random backoff.
                ac.backoff = Some(self.backoff_rng[node.index()].below_inclusive(ac.cw as u32));
            }
            // The frame is at the head: it waits what the counter holds now.
            let slots = self.slots_left(node, level, now);
            let ac = &mut self.stations[node.index()].acs[level];
            ac.queue.front_mut().expect("just pushed").backoff_slots = slots;
        }
        if free {
            self.schedule_access(node, now, q);
        }
    }

    /// Handles one of the medium's own events; results land in `self.out`.
    pub fn handle<E: From<WifiEvent>>(&mut self, ev: WifiEvent, q: &mut EventQueue<E>) {
        match ev {
            WifiEvent::TxEnd(node) => self.tx_end(node, q),
            WifiEvent::Timer(t) => {
                let Some((node, kind)) = self.timers.fire(t, q, |e| WifiEvent::Timer(e).into())
                else {
                    return;
                };
                match kind {
                    TimerKind::Access => self.access_due(node, q),
                    TimerKind::Exchange => self.exchange_timer(node, q),
                    TimerKind::Response => self.response_timer(node, q),
                    TimerKind::NavReset => self.nav_reset_timer(node, q),
                }
            }
        }
    }

    // ----- carrier sense and access -----------------------------------------------------

    /// Re-evaluates whether `node` may count backoff and acts on a change.
    fn refresh<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let now = q.now();
        let busy = self.channel.is_busy(node);
        let st = &mut self.stations[node.index()];
        if busy != st.cca_busy {
            if busy {
                st.busy_since = now;
            } else {
                st.stats.busy_time += now - st.busy_since;
            }
            st.cca_busy = busy;
        }
        let free =
            !busy && now >= st.nav_until && st.exchange == Exchange::None && st.response.is_none();
        if free == st.free {
            return;
        }
        st.free = free;
        if free {
            st.idle_since = now;
            self.schedule_access(node, now, q);
        } else {
            self.freeze(node, now);
        }
    }

    /// Computes every AC's grant and arms the access timer at the earliest, in one pass
    /// over the ACs: this runs each time the medium turns free for a station, so for
    /// every frame at most of its hearers, and eight-level EDCA made a separate table of
    /// grants (cleared, filled, copied back) its main cost.
    fn schedule_access<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        now: Time,
        q: &mut EventQueue<E>,
    ) {
        let slot = self.cfg.slot();
        let st = &mut self.stations[node.index()];
        let (idle_since, eifs) = (st.idle_since, st.eifs);
        let mut earliest: Option<Time> = None;
        for ac in st.acs.iter_mut() {
            ac.grant = if ac.queue.is_empty() && ac.backoff.is_none() {
                None
            } else {
                let start = idle_since + ifs(eifs, ac.params);
                let g = (start + slot.times(ac.backoff.unwrap_or(0) as u64)).max(now);
                earliest = Some(earliest.map_or(g, |e: Time| e.min(g)));
                Some(g)
            };
        }
        let timer = st.timers[TimerKind::Access as usize];
        match earliest {
            Some(at) => self
                .timers
                .arm(timer, at, q, |e| WifiEvent::Timer(e).into()),
            None => self.timers.cancel(timer),
        }
    }

    /// The medium turned busy at `now`: keep the slots not yet counted.
    fn freeze(&mut self, node: NodeId, now: Time) {
        let slot = self.cfg.slot();
        let mut due = false;
        let idle_since = self.stations[node.index()].idle_since;
        let eifs = self.stations[node.index()].eifs;
        let st = &mut self.stations[node.index()];
        for ac in st.acs.iter_mut() {
            match ac.grant {
                // Granted in this very slot: it transmits regardless (see module doc).
                Some(g) if g == now => due = true,
                _ => {
                    if let Some(k) = ac.backoff {
                        let start = idle_since + ifs(eifs, ac.params);
                        let counted = if now > start {
                            (now - start).as_nanos() / slot.as_nanos()
                        } else {
                            0
                        };
                        ac.backoff = Some(k - (counted.min(k as u64) as u32));
                    }
                    ac.grant = None;
                }
            }
        }
        if !due {
            self.timers.cancel(st.timers[TimerKind::Access as usize]);
        }
    }

    /// The slots `level`'s backoff counter still holds at `now`: while the medium is
    /// free the counter runs from its grant's start (as [`WifiNet::freeze`] counts), else
    /// it is frozen at its stored value.
    fn slots_left(&self, node: NodeId, level: usize, now: Time) -> u32 {
        let st = &self.stations[node.index()];
        let ac = &st.acs[level];
        let Some(k) = ac.backoff else {
            return 0;
        };
        if !st.free || ac.grant.is_none() {
            return k;
        }
        let start = st.idle_since + ifs(st.eifs, ac.params);
        let counted = if now > start {
            (now - start).as_nanos() / self.cfg.slot().as_nanos()
        } else {
            0
        };
        k - counted.min(k as u64) as u32
    }

    /// The access timer fired: the due ACs transmit (the highest level) or finish their
    /// post-backoff.
    fn access_due<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let now = q.now();
        let blocked = self.channel.is_transmitting(node) || {
            let st = &self.stations[node.index()];
            st.exchange != Exchange::None || st.response.is_some()
        };
        let st = &mut self.stations[node.index()];
        // Bit i: AC i has a frame and is granted now (the scenario layer allows at most
        // `MAX_LEVELS` = 64 levels).
        let mut due: u64 = 0;
        for (i, ac) in st.acs.iter_mut().enumerate() {
            if ac.grant != Some(now) {
                continue;
            }
            ac.grant = None;
            ac.backoff = None;
            if ac.queue.is_empty() {
                continue; // post-backoff finished
            }
            if blocked {
                // A response of ours is on the air: go again after the next idle IFS.
                ac.backoff = Some(0);
                continue;
            }
            debug_assert!(i < 64, "at most 64 EDCA levels");
            due |= 1 << i;
        }
        if due != 0 {
            // Levels rise in priority. 10.22.2.4: lower ACs due in the same slot suffer an
            // internal collision.
            let winner = 63 - due.leading_zeros() as usize;
            for i in 0..winner {
                if due & (1 << i) != 0 {
                    self.stations[node.index()].stats.internal_collisions += 1;
                    self.attempt_failed(node, i, false, now);
                }
            }
            self.start_exchange(node, winner, false, q);
        }
        if self.stations[node.index()].free {
            self.schedule_access(node, now, q);
        }
    }

    /// Draws `level`'s backoff after a frame's attempt (10.3.4.3) and books the slots to
    /// the frame at the head: to the same frame after a failed attempt (`retry`), else
    /// to the next frame, which reaches the head at `now`.
    fn draw_backoff(&mut self, node: NodeId, level: usize, retry: bool, now: Time) {
        let cw = self.stations[node.index()].acs[level].cw;
        let slots = self.backoff_rng[node.index()].below_inclusive(cw as u32);
        let ac = &mut self.stations[node.index()].acs[level];
        ac.backoff = Some(slots);
        if let Some(f) = ac.queue.front_mut() {
            if retry {
                f.backoff_slots += slots;
            } else {
                f.head_at = now;
                f.backoff_slots = slots;
            }
        }
    }

    // ----- transmissions ------------------------------------------------------------------

    fn data_bytes(&self, f: &MacFrame) -> u32 {
        f.pkt.size_bytes() + self.cfg.data_overhead_bytes
    }

    /// Sends the head frame of `level`: its RTS, or the DATA itself (`after_cts` when the
    /// RTS/CTS handshake has just succeeded).
    fn start_exchange<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        level: usize,
        after_cts: bool,
        q: &mut EventQueue<E>,
    ) {
        let (dst, bytes, seq, retry, fast_broadcast) = {
            let f = self.stations[node.index()].acs[level]
                .queue
                .front()
                .expect("winner has a frame");
            (
                f.next_hop,
                self.data_bytes(f),
                f.seq,
                f.short_retries + f.long_retries > 0,
                f.pkt.transport.broadcast_at_data_rate(),
            )
        };
        let basic = self.cfg.basic_rate;
        let rate = if dst == BROADCAST {
            if fast_broadcast {
                self.cfg.data_rate
            } else {
                basic
            }
        } else {
            self.stations[node.index()].rates.rate_for(dst)
        };
        if !after_cts {
            // A new attempt goes on the air (DATA after a CTS continues the same one),
            // after the IFS its grant counted from.
            let st = &mut self.stations[node.index()];
            let wait = ifs(st.eifs, st.acs[level].params);
            let f = st.acs[level].queue.front_mut().expect("winner has a frame");
            f.ifs += wait;
            f.aired += 1;
            f.aired_half_mbps += (rate.bps() / 500_000) as u32;
        }
        let data_time = frame_duration(bytes, rate, self.cfg.preamble);
        let sifs = self.cfg.sifs();
        let use_rts = !after_cts && dst != BROADCAST && bytes > self.cfg.rts_threshold_bytes;
        let frame = if use_rts {
            // 9.2.5.2: RTS reserves CTS + DATA + ACK and three SIFS.
            let nav = sifs.times(3) + self.cts_duration + data_time + self.ack_duration;
            AirFrame {
                kind: FrameKind::Rts,
                dst,
                rate: basic,
                nav,
                seq,
                retry,
                level: level as u8,
            }
        } else {
            let nav = if dst == BROADCAST {
                Time::ZERO
            } else {
                sifs + self.ack_duration
            };
            AirFrame {
                kind: FrameKind::Data,
                dst,
                rate,
                nav,
                seq,
                retry,
                level: level as u8,
            }
        };
        self.transmit(node, frame, after_cts, q);
    }

    fn frame_airtime(&self, f: &AirFrame, node: NodeId) -> Time {
        let bytes = match f.kind {
            FrameKind::Data => {
                let st = &self.stations[node.index()];
                self.data_bytes(
                    st.acs[f.level as usize]
                        .queue
                        .front()
                        .expect("data frame buffered"),
                )
            }
            FrameKind::Ack => ACK_BYTES,
            FrameKind::Cts => CTS_BYTES,
            FrameKind::Rts => RTS_BYTES,
        };
        frame_duration(bytes, f.rate, self.cfg.preamble)
    }

    fn transmit<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        frame: AirFrame,
        after_cts: bool,
        q: &mut EventQueue<E>,
    ) {
        let duration = self.frame_airtime(&frame, node);
        {
            let st = &mut self.stations[node.index()];
            st.on_air = Some(frame);
            match frame.kind {
                FrameKind::Data | FrameKind::Rts => {
                    st.exchange = Exchange::Sending {
                        level: frame.level,
                        after_cts,
                    };
                    let f = st.acs[frame.level as usize]
                        .queue
                        .front_mut()
                        .expect("frame buffered");
                    f.airtime += duration;
                    if frame.kind == FrameKind::Data {
                        let is_tcp_ack = matches!(f.pkt.transport, TransportHeader::TcpAck(_));
                        st.stats.data_tx += 1;
                        st.stats.data_airtime += duration;
                        if is_tcp_ack {
                            st.stats.tcp_ack_tx += 1;
                            st.stats.tcp_ack_airtime += duration;
                        }
                        st.stats.by_level[(frame.level as usize).min(STATS_LEVELS - 1)].data_tx +=
                            1;
                        st.stats.data_tx_by_rate[DsssRate::ALL
                            .iter()
                            .position(|r| *r == frame.rate)
                            .unwrap_or(0)] += 1;
                        st.stats.retries += frame.retry as u64;
                    } else {
                        st.stats.rts_tx += 1;
                    }
                }
                FrameKind::Ack | FrameKind::Cts => st.stats.acks_tx += 1,
            }
        }
        self.radio_events.clear();
        self.channel
            .start_tx(node, frame.rate, q.now(), &mut self.radio_events);
        q.schedule_in(duration, WifiEvent::TxEnd(node).into());
        self.process_radio_events(node, q);
    }

    fn tx_end<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let now = q.now();
        let frame = self.stations[node.index()]
            .on_air
            .expect("tx end without a frame");
        // Receivers decode (and may answer) before the sender's own state moves on.
        self.radio_events.clear();
        self.channel.end_tx(node, &mut self.radio_events);
        self.process_radio_events(node, q);
        let st = &mut self.stations[node.index()];
        st.on_air = None;
        let exchange_timer = st.timers[TimerKind::Exchange as usize];
        let after_cts = matches!(
            st.exchange,
            Exchange::Sending {
                after_cts: true,
                ..
            }
        );
        match frame.kind {
            FrameKind::Data if frame.dst == BROADCAST => {
                st.exchange = Exchange::None;
                self.complete(node, frame.level as usize, true, now);
            }
            FrameKind::Data => {
                st.exchange = Exchange::WaitAck {
                    level: frame.level,
                    after_cts,
                };
                self.timers
                    .arm(exchange_timer, now + self.ack_timeout, q, |e| {
                        WifiEvent::Timer(e).into()
                    });
            }
            FrameKind::Rts => {
                st.exchange = Exchange::WaitCts { level: frame.level };
                let t = dsss::cts_timeout(self.cfg.basic_rate, self.cfg.preamble);
                self.timers
                    .arm(exchange_timer, now + t, q, |e| WifiEvent::Timer(e).into());
            }
            FrameKind::Ack | FrameKind::Cts => {}
        }
        self.refresh(node, q);
    }

    /// Routes channel events to the stations they concern, then re-evaluates those
    /// stations' access.
    fn process_radio_events<E: From<WifiEvent>>(&mut self, sender: NodeId, q: &mut EventQueue<E>) {
        self.touched.clear();
        self.touched.push(sender);
        let mut i = 0;
        while i < self.radio_events.len() {
            match self.radio_events[i] {
                RadioEvent::RxEnd {
                    node,
                    from,
                    decoded,
                    sensed_only,
                } => {
                    self.rx_end(node, from, decoded, sensed_only, q);
                    self.touch(node);
                }
                RadioEvent::Cca { node, .. } => self.touch(node),
            }
            i += 1;
        }
        let mut j = 0;
        while j < self.touched.len() {
            let n = self.touched[j];
            self.refresh(n, q);
            j += 1;
        }
    }

    /// Adds `node` to the stations to refresh, unless it was the last one added. The
    /// channel reports a hearer's reception end and its carrier-sense change one right
    /// after the other, and the sender's own change right after the sender, so a
    /// quarter of the entries (`mesh46`) would repeat their predecessor. Skipping them
    /// changes nothing: a refresh only changes its own station and timers, so a second
    /// one in a row finds nothing new and returns early.
    #[inline]
    fn touch(&mut self, node: NodeId) {
        if self.touched.last() != Some(&node) {
            self.touched.push(node);
        }
    }

    /// 10.3.2.4: the NAV only grows; `from_rts` when the frame that sets it is an RTS.
    fn set_nav<E: From<WifiEvent>>(
        &mut self,
        node: NodeId,
        until: Time,
        from_rts: bool,
        q: &mut EventQueue<E>,
    ) {
        let st = &mut self.stations[node.index()];
        if until > st.nav_until {
            st.nav_until = until;
            if self.cfg.nav_reset_after_rts {
                let t = st.timers[TimerKind::NavReset as usize];
                if from_rts {
                    let now = q.now();
                    st.nav_rts_end = Some(now);
                    self.timers.arm(t, now + self.nav_reset_timeout, q, |e| {
                        WifiEvent::Timer(e).into()
                    });
                } else {
                    st.nav_rts_end = None;
                    self.timers.cancel(t);
                }
            }
            // The NAV's end is a possible busy-to-free transition: wake up then, unless a
            // response is scheduled on this timer (it refreshes when it fires anyway).
            if st.response.is_none() {
                let t = st.timers[TimerKind::Response as usize];
                self.timers.arm(t, until, q, |e| WifiEvent::Timer(e).into());
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
        let now = q.now();
        if !decoded {
            let st = &mut self.stations[node.index()];
            st.eifs = true; // 10.3.2.3.7: the PHY reported an error
            if sensed_only {
                st.stats.rx_sensed += 1;
            } else {
                st.stats.rx_failed += 1;
            }
            return;
        }
        let frame = self.stations[from.index()]
            .on_air
            .expect("decoded frame has a sender");
        {
            let st = &mut self.stations[node.index()];
            st.eifs = false; // 10.3.2.3.7: a correct frame ends the EIFS condition
            st.stats.rx_ok += 1;
        }
        let for_me = frame.dst == node;
        match frame.kind {
            FrameKind::Data => {
                let sender = &self.stations[from.index()];
                let pkt = sender.acs[frame.level as usize]
                    .queue
                    .front()
                    .expect("data buffered")
                    .pkt
                    .clone();
                if frame.dst == BROADCAST {
                    self.out.push(WifiOutput::Received { node, from, pkt });
                } else if for_me {
                    let st = &mut self.stations[node.index()];
                    let cached = (st.last_seq.iter_mut())
                        .find(|(n, level, _)| *n == from && *level == frame.level);
                    let dup = match cached {
                        Some((_, _, last)) => {
                            let dup = frame.retry && *last == frame.seq;
                            *last = frame.seq;
                            dup
                        }
                        None => {
                            st.last_seq.push((from, frame.level, frame.seq));
                            false
                        }
                    };
                    if dup {
                        st.stats.duplicates += 1;
                    } else {
                        self.out.push(WifiOutput::Received { node, from, pkt });
                        self.stations[from.index()].acs[frame.level as usize]
                            .queue
                            .front_mut()
                            .expect("data buffered")
                            .handed_over = true;
                    }
                    self.respond(
                        node,
                        Response {
                            kind: FrameKind::Ack,
                            to: from,
                            nav: Time::ZERO,
                        },
                        q,
                    );
                } else {
                    self.out.push(WifiOutput::Overheard {
                        node,
                        from,
                        to: frame.dst,
                        pkt,
                    });
                    self.set_nav(node, now + frame.nav, false, q);
                }
            }
            FrameKind::Ack => {
                let st = &mut self.stations[node.index()];
                match st.exchange {
                    Exchange::WaitAck { level, .. } if for_me => {
                        st.exchange = Exchange::None;
                        self.timers.cancel(st.timers[TimerKind::Exchange as usize]);
                        self.complete(node, level as usize, true, now);
                    }
                    _ => self.set_nav(node, now + frame.nav, false, q),
                }
            }
            FrameKind::Rts => {
                if for_me {
                    // 10.3.2.7: answer only if the NAV does not forbid it.
                    if self.stations[node.index()].nav_until <= now
                        && !self.channel.is_transmitting(node)
                    {
                        let nav = frame
                            .nav
                            .saturating_sub(self.cfg.sifs() + self.cts_duration);
                        self.respond(
                            node,
                            Response {
                                kind: FrameKind::Cts,
                                to: from,
                                nav,
                            },
                            q,
                        );
                    }
                } else {
                    self.set_nav(node, now + frame.nav, true, q);
                }
            }
            FrameKind::Cts => {
                let st = &mut self.stations[node.index()];
                match st.exchange {
                    Exchange::WaitCts { level } if for_me => {
                        st.exchange = Exchange::DataAfterCts { level };
                        let t = st.timers[TimerKind::Exchange as usize];
                        let sifs = self.cfg.sifs();
                        self.timers
                            .arm(t, now + sifs, q, |e| WifiEvent::Timer(e).into());
                    }
                    _ => self.set_nav(node, now + frame.nav, false, q),
                }
            }
        }
    }

    /// The NAVTimeout after the RTS that last set the NAV: reset the NAV unless a
    /// reception started (PHY-RXSTART) since the RTS ended (10.3.2.4).
    fn nav_reset_timer<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let now = q.now();
        let Some(rts_end) = self.stations[node.index()].nav_rts_end.take() else {
            return;
        };
        if self.channel.last_rx_start(node, now) > rts_end {
            return;
        }
        let st = &mut self.stations[node.index()];
        if st.nav_until > now {
            st.nav_until = now;
            self.refresh(node, q);
        }
    }

    fn respond<E: From<WifiEvent>>(&mut self, node: NodeId, r: Response, q: &mut EventQueue<E>) {
        let st = &mut self.stations[node.index()];
        if st.response.is_some() {
            return; // one response at a time; the earlier one stands
        }
        st.response = Some(r);
        let t = st.timers[TimerKind::Response as usize];
        let at = q.now() + self.cfg.sifs();
        self.timers.arm(t, at, q, |e| WifiEvent::Timer(e).into());
    }

    fn response_timer<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let Some(r) = self.stations[node.index()].response.take() else {
            // NAV expiry.
            self.refresh(node, q);
            return;
        };
        // Re-arm for a NAV that outlasts the response.
        let nav_until = self.stations[node.index()].nav_until;
        if nav_until > q.now() {
            let t = self.stations[node.index()].timers[TimerKind::Response as usize];
            self.timers
                .arm(t, nav_until, q, |e| WifiEvent::Timer(e).into());
        }
        if self.channel.is_transmitting(node) {
            self.refresh(node, q);
            return;
        }
        let frame = AirFrame {
            kind: r.kind,
            dst: r.to,
            rate: self.cfg.basic_rate,
            nav: r.nav,
            seq: 0,
            retry: false,
            level: 0,
        };
        self.transmit(node, frame, false, q);
    }

    fn exchange_timer<E: From<WifiEvent>>(&mut self, node: NodeId, q: &mut EventQueue<E>) {
        let now = q.now();
        let exchange = self.stations[node.index()].exchange;
        match exchange {
            Exchange::WaitAck { level, after_cts } => {
                let st = &mut self.stations[node.index()];
                st.exchange = Exchange::None;
                if let Some(dst) = st.acs[level as usize].queue.front().map(|f| f.next_hop) {
                    st.rates.report(dst, false);
                }
                // 10.3.4.4: DATA protected by RTS/CTS counts against the long retry limit.
                self.attempt_failed(node, level as usize, after_cts, now);
                self.refresh(node, q);
            }
            Exchange::WaitCts { level } => {
                self.stations[node.index()].exchange = Exchange::None;
                self.attempt_failed(node, level as usize, false, now);
                self.refresh(node, q);
            }
            Exchange::DataAfterCts { level } => self.start_exchange(node, level as usize, true, q),
            Exchange::None | Exchange::Sending { .. } => {}
        }
    }

    /// A failed attempt (no ACK/CTS, or an internal collision): double CW and retry, or
    /// give up at the retry limit (10.3.4.4).
    fn attempt_failed(&mut self, node: NodeId, level: usize, long: bool, now: Time) {
        let (short_limit, long_limit) = (self.cfg.short_retry_limit, self.cfg.long_retry_limit);
        let st = &mut self.stations[node.index()];
        let ac = &mut st.acs[level];
        let Some(f) = ac.queue.front_mut() else {
            return;
        };
        let lv = level.min(STATS_LEVELS - 1);
        st.stats.by_level[lv].failed_attempts += 1;
        if long {
            f.long_retries += 1;
        } else {
            f.short_retries += 1;
        }
        let retry = f.short_retries < short_limit && f.long_retries < long_limit;
        if !retry {
            let f = ac.queue.pop_front().expect("front exists");
            ac.cw = ac.params.cw_min;
            st.buffered -= 1;
            st.stats.retry_limit_drops += 1;
            st.stats.by_level[lv].retry_limit_drops += 1;
            let rate = st.rates.rate_for(f.next_hop);
            self.out.push(WifiOutput::TxStatus(TxStatus::of(
                node,
                &f,
                false,
                f.attempts() - 1,
                rate,
            )));
            if !f.handed_over {
                self.out
                    .push(WifiOutput::RetryLimitDrop { node, pkt: f.pkt });
            }
            self.out.push(WifiOutput::WantFrame(node));
        } else {
            ac.cw = ac.params.next_cw(ac.cw);
        }
        self.draw_backoff(node, level, retry, now);
    }

    /// The frame at the head of `level` is done (acknowledged, or broadcast sent).
    fn complete(&mut self, node: NodeId, level: usize, success: bool, now: Time) {
        let st = &mut self.stations[node.index()];
        let ac = &mut st.acs[level];
        let Some(f) = ac.queue.pop_front() else {
            return;
        };
        ac.cw = ac.params.cw_min;
        st.buffered -= 1;
        if f.next_hop == BROADCAST && !f.pkt.transport.is_control() {
            self.out
                .push(WifiOutput::BroadcastDone { node, pkt: f.pkt });
        } else if f.next_hop != BROADCAST {
            st.rates.report(f.next_hop, success);
            let rate = st.rates.rate_for(f.next_hop);
            self.out.push(WifiOutput::TxStatus(TxStatus::of(
                node,
                &f,
                success,
                f.attempts(),
                rate,
            )));
        }
        // 10.3.4.3: a backoff follows every transmission, even with nothing queued.
        self.draw_backoff(node, level, false, now);
        self.out.push(WifiOutput::WantFrame(node));
    }
}

#[cfg(test)]
#[path = "mac_tests.rs"]
mod tests;
