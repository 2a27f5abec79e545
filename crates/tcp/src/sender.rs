//! The congestion-controlled TCP sender as a pure state machine: slow start and congestion
//! avoidance (RFC 5681), NewReno (RFC 6582), SACK loss recovery (RFC 6675), CUBIC (RFC
//! 9438), Vegas, FeW, RTO (RFC 6298) and ECN (RFC 3168). Windows are in packets (see the
//! crate docs).

use std::collections::VecDeque;

use airqueue_kernel::Time;

use crate::cubic::Cubic;
use crate::rto::{RtoConfig, RtoEstimator};
use crate::scoreboard::Scoreboard;
use crate::wire::{TcpAck, TcpData};
use crate::{Outbox, TimerCmd};

/// The congestion control and loss recovery flavour. An enum, not a trait object, so the
/// per-ACK path is a plain `match`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    /// RFC 5681 slow start / congestion avoidance with RFC 6582 NewReno fast recovery.
    NewReno,
    /// RFC 5681 window growth with RFC 6675 SACK-based loss recovery.
    Sack,
    /// TCP Vegas (Brakmo & Peterson 1995): once per RTT, the queued estimate
    /// `diff = (cwnd/BaseRTT - cwnd/RTT) BaseRTT` packets is kept within `[alpha, beta]`;
    /// slow start ends when `diff > gamma`. Loss recovery is NewReno's, entered by
    /// Vegas's own retransmission rules (section 3.1): a duplicate ACK retransmits at once
    /// when the segment it waits for has been out longer than a fine-grained timeout, and
    /// so do the first two new ACKs after a retransmission; the window shrinks by a
    /// quarter, and only for a segment sent after the last decrease.
    Vegas { alpha: f64, beta: f64, gamma: f64 },
    /// FeW, fractional window increment (Nahm, Helmy, Kuo 2005): in congestion avoidance
    /// cwnd grows by `alpha` packets per RTT (`alpha / cwnd` per ACK); NewReno otherwise.
    Few { alpha: f64 },
    /// CUBIC (RFC 9438, [`crate::cubic`]) with RFC 6675 SACK loss recovery: Linux's
    /// default TCP from 2.6.19 on.
    Cubic,
}

impl Variant {
    /// Vegas with the paper's thresholds: alpha = 1, beta = 3, gamma = 1 packets.
    pub const VEGAS: Variant = Variant::Vegas {
        alpha: 1.0,
        beta: 3.0,
        gamma: 1.0,
    };
    /// FeW with the paper's default alpha = 0.01.
    pub const FEW: Variant = Variant::Few { alpha: 0.01 };

    /// Whether the variant recovers losses with SACK (RFC 6675); its receiver then
    /// sends SACK blocks.
    pub fn uses_sack(&self) -> bool {
        matches!(self, Variant::Sack | Variant::Cubic)
    }
}

/// How much data the application has handed to the sender, in segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppData {
    /// Bulk transfer that never ends (FTP in the ns-2 papers).
    Infinite,
    /// Segments `0..n` exist; nothing more.
    Finite(u32),
}

/// RFC 5681 (3.1): the initial window for a given SMSS, in segments.
pub fn rfc5681_initial_window(mss_bytes: u32) -> u32 {
    if mss_bytes > 2190 {
        2
    } else if mss_bytes > 1095 {
        3
    } else {
        4
    }
}

/// Sender parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    pub variant: Variant,
    /// Payload bytes per segment (SMSS).
    pub mss_bytes: u32,
    /// RFC 5681 (3.1): initial window in segments; defaults to [`rfc5681_initial_window`].
    pub initial_cwnd: u32,
    /// RFC 5681 (3.1): initial ssthresh, "arbitrarily high"; `None` means `max_window`.
    pub initial_ssthresh: Option<f64>,
    /// The most segments outstanding at once (the receiver's advertised window). cwnd is
    /// also capped at this value so that it cannot grow without bound while rwnd-limited.
    pub max_window: u32,
    pub rto: RtoConfig,
    /// RFC 7323: carry the Timestamps option and take RTT samples from TSecr (valid even
    /// for retransmissions). Off: samples are per-segment send times under Karn's rule.
    pub timestamps: bool,
    /// RFC 3168: negotiate ECN (send ECT, react to ECE).
    pub ecn: bool,
    /// RFC 5681 (3.2) / RFC 6675 (2): DupThresh, 3.
    pub dupthresh: u32,
    pub app: AppData,
    /// Window-based congestion control. `false` pins cwnd and ssthresh at `max_window`
    /// whatever happens (losses, RTOs, ECE, Vegas epochs), so only the receiver's window
    /// limits what is outstanding: the transport of DiffQ-TCP (seed 000, section 6.1:
    /// "retain TCP's reliability algorithm but switch off TCP's loss-based congestion
    /// control"), whose new data is paced from outside through
    /// [`TcpSender::add_app_data`]. Loss detection and recovery (dup ACKs, RFC 6675 SACK
    /// recovery, the RTO with its backoff and go-back-N) still decide *what* is sent;
    /// after an RTO only SND.UNA goes until the next ACK (RFC 5682 2.1 step 1), the
    /// part of the loss window of one segment that is loss detection.
    /// Default `true`.
    pub congestion_control: bool,
    /// Paced transmission: the sender puts a segment on the wire only when
    /// [`TcpSender::pace_tick`] asks for one, one per tick; ACKs and the RTO update its
    /// state and decide *what* goes next but send nothing themselves. Send times, RTT
    /// samples and the RTO timer therefore start when a segment really leaves, as in a
    /// TCP whose transmit path is gated by an external rate (DiffQ-TCP, seed 000 section
    /// 6.1: "the TCP source transmits packets at the rate dictated by the DiffQ source
    /// rate control"). [`TcpSender::end_pacing`] returns to window-clocked sending.
    /// Default `false`.
    pub paced: bool,
}

impl SenderConfig {
    pub fn new(variant: Variant) -> Self {
        let mss_bytes = 1460;
        SenderConfig {
            variant,
            mss_bytes,
            initial_cwnd: rfc5681_initial_window(mss_bytes),
            initial_ssthresh: None,
            max_window: 64,
            rto: RtoConfig::default(),
            timestamps: false,
            ecn: false,
            dupthresh: 3,
            app: AppData::Infinite,
            congestion_control: true,
            paced: false,
        }
    }
}

impl Default for SenderConfig {
    fn default() -> Self {
        SenderConfig::new(Variant::NewReno)
    }
}

/// Loss-recovery state. `recover` (RFC 6582) / RecoveryPoint (RFC 6675) lives outside the
/// enum because it outlives the episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Slow start or congestion avoidance (RFC 5681 3.1), also after an RTO.
    Open,
    /// NewReno fast recovery (RFC 6582 3.2); counts the partial ACKs seen.
    FastRecovery { partial_acks: u32 },
    /// SACK loss recovery (RFC 6675 5): HighRxt and RescueRxt as segment numbers.
    SackRecovery { high_rxt: u32, rescue_rxt: u32 },
}

/// Counters for per-flow traces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    pub retransmissions: u64,
    /// Loss-recovery episodes started by duplicate ACKs / SACK (fast retransmits).
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Timeouts found spurious by the Eifel algorithm (RFC 3522) and undone (RFC 4015).
    pub spurious_timeouts: u64,
    /// RFC 3168 window reductions caused by ECE.
    pub ecn_reductions: u64,
    /// Valid RTT samples taken.
    pub rtt_samples: u64,
}

/// RFC 3522 (Eifel detection) and RFC 4015 (Eifel response) state of one timeout episode.
#[derive(Clone, Copy, Debug)]
struct Eifel {
    /// RetransmitTS: the TSval (send time) of the first retransmission after the timeout;
    /// `None` until it has left (a paced sender sends it at its next tick).
    retransmit_ts: Option<Time>,
    /// RFC 4015 (4): pipe_prev = max(FlightSize, ssthresh) before the timeout.
    pipe_prev: f64,
    /// `recover` before the timeout moved it to SND.MAX (RFC 6582 3.2 step 4, RFC 6675
    /// 5.1), restored if the timeout is undone.
    recover_prev: u32,
    /// CUBIC's state before the timeout, restored if it is undone (RFC 9438 4.9).
    cubic_prev: Cubic,
}

#[derive(Clone, Debug, Default)]
struct VegasState {
    /// Minimum RTT ever seen (BaseRTT).
    base_rtt: Option<Time>,
    /// Minimum RTT seen in the current epoch (one RTT's worth of ACKs).
    epoch_min: Option<Time>,
    /// The epoch ends when this segment is cumulatively acknowledged.
    epoch_end: u32,
    /// Fine-grained retransmission timeout (section 3.1), backed off by each Vegas
    /// retransmission until the next RTT sample; `None` before the first sample.
    timeout: Option<Time>,
    /// New ACKs left to check for an expired segment after a retransmission (at most 2).
    worried: u32,
    /// When cwnd was last decreased for a loss (or a timeout); `None` before the first.
    last_decrease: Option<Time>,
}

/// The TCP sender. See the module documentation.
#[derive(Clone, Debug)]
pub struct TcpSender {
    cfg: SenderConfig,
    rto: RtoEstimator,
    /// Outstanding segments `[snd_una, snd_max)` with their send times and SACK bits.
    board: Scoreboard,
    /// Next segment the window-based sender transmits; below `snd_max` after an RTO
    /// (go-back-N).
    snd_nxt: u32,
    cwnd: f64,
    ssthresh: f64,
    phase: Phase,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint, as one past the highest segment sent
    /// when recovery (or the last RTO) began. A new episode needs `snd_una >= recover`.
    recover: u32,
    dupacks: u32,
    /// RFC 3168 (6.1.2): no new ECE reaction until an ACK covers data sent after this.
    ecn_recover: Option<u32>,
    /// RFC 3168 (6.1.2): set CWR on the next new data segment.
    cwr_pending: bool,
    rto_deadline: Option<Time>,
    vegas: VegasState,
    /// CUBIC's curve (only `Variant::Cubic` reads it).
    cubic: Cubic,
    stats: SenderStats,
    /// Paced mode: retransmissions that loss recovery decided on an ACK (RFC 6582 3.2
    /// steps 2-3, RFC 6675 4.3), waiting for the next ticks, oldest first.
    deferred: VecDeque<u32>,
    /// Paced mode: segments the current tick may still send (0 outside a tick).
    budget: u32,
    /// A timeout whose spuriousness is still to be decided (timestamps only).
    eifel: Option<Eifel>,
    /// Congestion control off: an RTO has fired and no acceptable ACK has arrived since,
    /// so only SND.UNA may be (re)sent (RFC 5682 section 2.1 step 1).
    ///
    /// Why: with congestion control on, the loss window of one segment (RFC 5681 3.1)
    /// holds the go-back-N until the first ACK after the timeout, which lets Eifel
    /// (RFC 3522) undo a spurious timeout before old data goes out again. With it off
    /// (DiffQ-TCP) cwnd stays at the receiver's window, and without this hold the
    /// whole window would be resent, paced, before that ACK could come back: on long
    /// DiffQ paths nearly all of it arrives as duplicates. F-RTO sends one segment and
    /// waits for the ACKs to tell a spurious timeout from a loss, which is loss
    /// detection, not congestion control (Linux, the seed testbeds' stack, runs it by
    /// default and leaves the window to congestion control).
    rto_probe: bool,
}

impl TcpSender {
    pub fn new(cfg: SenderConfig) -> Self {
        let max_window = cfg.max_window.max(1);
        let cfg = SenderConfig { max_window, ..cfg };
        let ssthresh = match cfg.initial_ssthresh {
            Some(s) if s.is_finite() && s >= 2.0 => s,
            Some(_) => 2.0,
            None => max_window as f64,
        };
        let cwnd = if cfg.congestion_control {
            (cfg.initial_cwnd.max(1) as f64).min(max_window as f64)
        } else {
            max_window as f64
        };
        let ssthresh = if cfg.congestion_control {
            ssthresh
        } else {
            max_window as f64
        };
        TcpSender {
            rto: RtoEstimator::new(cfg.rto),
            board: Scoreboard::with_capacity(max_window as usize),
            snd_nxt: 0,
            cwnd,
            ssthresh,
            phase: Phase::Open,
            recover: 0,
            dupacks: 0,
            ecn_recover: None,
            cwr_pending: false,
            rto_deadline: None,
            vegas: VegasState::default(),
            cubic: Cubic::default(),
            stats: SenderStats::default(),
            deferred: VecDeque::new(),
            budget: 0,
            eifel: None,
            rto_probe: false,
            cfg,
        }
    }

    // ---- getters for traces -------------------------------------------------------------

    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }
    pub fn rto(&self) -> Time {
        self.rto.rto()
    }
    pub fn rto_estimator(&self) -> &RtoEstimator {
        &self.rto
    }
    /// Oldest unacknowledged segment.
    pub fn snd_una(&self) -> u32 {
        self.board.base()
    }
    /// Next segment the window-based transmit path would send.
    pub fn snd_nxt(&self) -> u32 {
        self.snd_nxt
    }
    /// One past the highest segment ever sent.
    pub fn snd_max(&self) -> u32 {
        self.board.end()
    }
    /// RFC 5681 FlightSize: sent but not cumulatively acknowledged, in segments.
    pub fn flight_size(&self) -> u32 {
        self.board.end() - self.board.base()
    }
    /// RFC 6675 (4) pipe, meaningful during SACK recovery.
    pub fn pipe(&self) -> u32 {
        match self.phase {
            Phase::SackRecovery { high_rxt, .. } => {
                self.board.pipe(Some(high_rxt), self.cfg.dupthresh)
            }
            _ => self.board.pipe(None, self.cfg.dupthresh),
        }
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn in_recovery(&self) -> bool {
        self.phase != Phase::Open
    }
    pub fn recover(&self) -> u32 {
        self.recover
    }
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// Vegas's BaseRTT (minimum RTT seen), tracked for every variant.
    pub fn base_rtt(&self) -> Option<Time> {
        self.vegas.base_rtt
    }
    /// The RTO deadline this sender asked for, if armed.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }
    /// Whether a finite transfer has been fully acknowledged.
    pub fn is_done(&self) -> bool {
        matches!(self.cfg.app, AppData::Finite(n) if self.board.base() >= n)
    }

    // ---- application ----------------------------------------------------------------------

    /// Replaces how much data the application has (a transfer can only grow; shrinking
    /// below what has been sent is clamped).
    pub fn set_app_data(&mut self, app: AppData) {
        self.cfg.app = match app {
            AppData::Finite(n) => AppData::Finite(n.max(self.board.end())),
            AppData::Infinite => AppData::Infinite,
        };
    }

    /// Adds `n` segments to a finite transfer (no effect on an infinite one).
    pub fn add_app_data(&mut self, n: u32) {
        if let AppData::Finite(total) = self.cfg.app {
            self.cfg.app = AppData::Finite(total.saturating_add(n));
        }
    }

    fn app_has(&self, seq: u32) -> bool {
        match self.cfg.app {
            AppData::Infinite => seq < u32::MAX,
            AppData::Finite(n) => seq < n,
        }
    }

    // ---- inputs ---------------------------------------------------------------------------

    /// Sends whatever the window and the application allow now (nothing in paced mode:
    /// see [`TcpSender::pace_tick`]).
    pub fn poll_send(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        self.transmit(now, out);
    }

    /// Paced mode: one transmission opportunity. Sends at most one segment: a
    /// retransmission that recovery deferred, else what the window rules pick next
    /// (RFC 6675 NextSeg in SACK recovery, `snd_nxt` otherwise). Returns whether a
    /// segment left; `false` when the window or the application has nothing to send.
    pub fn pace_tick(&mut self, now: Time, out: &mut Outbox<TcpData>) -> bool {
        debug_assert!(self.cfg.paced, "pace_tick on an unpaced sender");
        self.budget = 1;
        while let Some(seq) = self.deferred.pop_front() {
            // Skip what an ACK has covered since the decision.
            if self.still_missing(seq) {
                self.emit(seq, now, out);
                break;
            }
        }
        self.transmit(now, out);
        let sent = self.budget == 0;
        self.budget = 0;
        sent
    }

    /// Leaves paced mode: deferred retransmissions and whatever the window allows go out
    /// now, and from here on the sender is clocked by ACKs and the RTO again.
    pub fn end_pacing(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        self.cfg.paced = false;
        for seq in std::mem::take(&mut self.deferred) {
            if self.still_missing(seq) {
                self.emit(seq, now, out);
            }
        }
        self.transmit(now, out);
    }

    /// Processes one ACK: RTT sampling, window growth, loss detection and recovery, ECN,
    /// the RTO timer (RFC 6298 5.2/5.3), then transmits what the window allows.
    pub fn on_ack(&mut self, ack: &TcpAck, now: Time, out: &mut Outbox<TcpData>) {
        let cum = ack.cumulative;
        // RFC 5681 (2): an ACK below SND.UNA is old; one above SND.MAX acknowledges data
        // never sent. Both are ignored.
        if cum < self.board.base() || cum > self.board.end() {
            return;
        }
        // RFC 5682 2.1 step 2: the first ACK after the timeout decides. If it makes the
        // timeout spurious, Eifel below resumes with new data; otherwise (a duplicate
        // ACK, or new data acknowledged by the retransmission) the go-back-N goes on
        // (step 2a, conventional recovery).
        self.rto_probe = false;
        let acked = self.board.advance(cum);
        let newly_sacked = if self.cfg.variant.uses_sack() {
            self.board.apply_sack(ack.sack.iter())
        } else {
            0
        };
        if self.snd_nxt < cum {
            self.snd_nxt = cum;
        }

        if acked.segments > 0 {
            let undone = self.eifel_check(ack, acked.segments);
            // RFC 7323 (4.1) with timestamps; otherwise RFC 6298 (3) Karn: no sample when
            // any newly acknowledged segment was retransmitted.
            let sample = match (self.cfg.timestamps, ack.tsecr) {
                (true, Some(ts)) => Some(now.saturating_sub(ts)),
                _ if acked.any_retransmitted => None,
                _ => acked.newest_sent_at.map(|t| now.saturating_sub(t)),
            };
            if let Some(r) = sample {
                self.rto.sample(r);
                self.stats.rtt_samples += 1;
                self.vegas.base_rtt = Some(self.vegas.base_rtt.map_or(r, |b| b.min(r)));
                self.vegas.epoch_min = Some(self.vegas.epoch_min.map_or(r, |b| b.min(r)));
                self.vegas.timeout = self.vegas_fine_timeout();
            }
            // The Eifel response sets cwnd for this ACK itself (RFC 4015 (7)).
            self.on_new_ack(acked.segments, ack.ece, !undone, now, out);
            self.vegas_check_worried(now, out);
        } else if self.flight_size() > 0 && cum == self.board.base() {
            // RFC 5681 (2): a duplicate ACK. RFC 6675 (2): for SACK, only one that SACKs
            // new data counts.
            let dup = !self.cfg.variant.uses_sack() || newly_sacked > 0;
            self.on_dup_ack(dup, now, out);
        }

        // RFC 3168 (6.1.2): react to ECE at most once per window, never on top of a loss
        // reduction in the same window.
        if self.cfg.ecn && ack.ece && self.phase == Phase::Open {
            let allowed = match self.ecn_recover {
                None => true,
                Some(r) => cum > r,
            };
            if allowed {
                if self.cfg.variant == Variant::Cubic {
                    // RFC 9438 (4.6): an ECE is a congestion event like a loss.
                    self.ssthresh = self.cubic.on_congestion(self.cwnd);
                    self.cwnd = self.ssthresh;
                } else {
                    self.cwnd = (self.cwnd / 2.0).max(1.0);
                    self.ssthresh = self.cwnd.max(2.0);
                }
                self.ecn_recover = Some(self.board.end());
                self.cwr_pending = true;
                self.stats.ecn_reductions += 1;
            }
        }

        self.transmit(now, out);
    }

    /// The RTO timer fired at `now`. A stale expiry (before the deadline this sender asked
    /// for, or with no timer armed) is ignored.
    pub fn on_rto(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        match self.rto_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        self.rto_deadline = None;
        if self.flight_size() == 0 {
            out.timer = Some(TimerCmd::Cancel);
            return;
        }
        self.stats.timeouts += 1;
        // RFC 3522 (3.2) step (1) / RFC 4015 (4): with timestamps, remember what the
        // first timeout of the episode changes, to undo it if it proves spurious. A
        // repeated timeout keeps the first retransmission's timestamp.
        if self.cfg.timestamps && self.eifel.is_none() {
            self.eifel = Some(Eifel {
                retransmit_ts: None,
                pipe_prev: (self.flight_size() as f64).max(self.ssthresh),
                recover_prev: self.recover,
                cubic_prev: self.cubic,
            });
        }
        // RFC 5681 (3.1) eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS), except that it is
        // held constant when the same data times out again (RTO still backed off);
        // CUBIC's from its window (RFC 9438 4.8).
        if self.rto.backoffs() == 0 {
            self.ssthresh = match self.cfg.variant {
                Variant::Cubic => self.cubic.on_timeout(self.cwnd),
                _ => (self.flight_size() as f64 / 2.0).max(2.0),
            };
        }
        // RFC 5681 (3.1): loss window of one segment.
        self.cwnd = 1.0;
        // RFC 6582 (4) / RFC 6675 (5.1): recovery ends; remember the highest segment sent
        // so duplicate ACKs for older data do not start a new episode.
        self.phase = Phase::Open;
        self.dupacks = 0;
        self.recover = self.board.end();
        self.ecn_recover = Some(self.board.end());
        // RFC 2018 (8) / RFC 6675 (5.1): forget SACK information; later SACKs are used.
        self.board.clear_sacks();
        // Paced mode: the go-back-N below starts at SND.UNA and covers what recovery
        // had deferred.
        self.deferred.clear();
        // Go-back-N from SND.UNA (RFC 5681 3.1 retransmits the earliest unacked segment;
        // the rest follows as the window opens again). Without congestion control no
        // window closes, so the rest waits for the first ACK (`rto_probe`).
        self.snd_nxt = self.board.base();
        self.rto_probe = !self.cfg.congestion_control;
        // RFC 6298 (5.5): back off; (5.4)/(5.6): retransmit and restart the timer.
        self.rto.backoff();
        self.vegas.epoch_end = self.board.end();
        self.vegas.epoch_min = None;
        self.vegas.worried = 0;
        self.vegas.last_decrease = Some(now);
        self.transmit(now, out);
    }

    // ---- ACK processing -------------------------------------------------------------------

    /// RFC 3522 (3.2) steps (3)-(4): the first acceptable ACK after a timeout decides it.
    /// If it echoes a timestamp older than the first retransmission, the original
    /// transmission reached the receiver: the timeout was spurious. The response (RFC
    /// 4015 3.2 steps (6)-(7)) resumes with unsent data instead of going back over data
    /// already on its way (SND.NXT = SND.MAX), and restores the congestion state:
    /// ssthresh = pipe_prev, cwnd = FlightSize + min(acked, IW) (in segments), and
    /// `recover` as it was before the timeout. Step (8),
    /// the RTO re-initialisation, is left to the timestamp RTT sample this ACK carries.
    /// Linux TCP, the paper testbeds' stack, does the same through its timestamp-based
    /// undo of a loss state.
    /// Returns whether the timeout was undone.
    fn eifel_check(&mut self, ack: &TcpAck, acked_segments: u32) -> bool {
        let Some(e) = self.eifel.take() else {
            return false;
        };
        let spurious = match (e.retransmit_ts, ack.tsecr) {
            // A paced sender whose retransmission has not left yet: the ACK can only be
            // for the original.
            (None, _) => true,
            (Some(rt), Some(ts)) => ts < rt,
            (Some(_), None) => false,
        };
        if !spurious {
            return false;
        }
        self.stats.spurious_timeouts += 1;
        self.snd_nxt = self.snd_nxt.max(self.board.end());
        // The timeout's guard against a new recovery episode goes with it: it is there
        // so the duplicate ACKs of a go-back-N do not start one, and an undone timeout
        // resent SND.UNA at most. Left in place, a real hole among the delayed segments
        // (SACKed all around) would wait for the next, backed-off, RTO instead of SACK
        // recovery; Linux's undo likewise leaves its Loss state for Open.
        self.recover = e.recover_prev;
        self.cubic = e.cubic_prev;
        self.ssthresh = e.pipe_prev.max(2.0);
        let iw = self.cfg.initial_cwnd.max(1).min(acked_segments) as f64;
        self.cwnd = (self.flight_size() as f64 + iw).min(self.cfg.max_window as f64);
        true
    }

    /// An ACK that advanced SND.UNA by `n` segments.
    fn on_new_ack(&mut self, n: u32, ece: bool, grow: bool, now: Time, out: &mut Outbox<TcpData>) {
        self.dupacks = 0;
        let cum = self.board.base();
        let mut restart_timer = true;
        match self.phase {
            // RFC 5681 (3.1): grow, unless the ACK carries ECE (RFC 3168 6.1.2).
            Phase::Open => {
                if grow && !(self.cfg.ecn && ece) {
                    self.grow(n, now);
                }
            }
            // RFC 6582 (3.2) step 3: a full ACK ends fast recovery; cwnd set to
            // min(ssthresh, max(FlightSize, 1) + 1) (option 1).
            Phase::FastRecovery { .. } if cum >= self.recover => {
                let flight = self.flight_size().max(1) as f64;
                self.cwnd = self.ssthresh.min(flight + 1.0);
                self.phase = Phase::Open;
            }
            // RFC 6582 (3.2) step 3: a partial ACK retransmits the first unacknowledged
            // segment, deflates cwnd by the amount acknowledged and adds back one segment;
            // only the first partial ACK restarts the timer ("Impatient" variant).
            Phase::FastRecovery { partial_acks } => {
                self.retransmit_now(cum, now, out);
                self.cwnd = (self.cwnd - n as f64 + 1.0).max(1.0);
                self.phase = Phase::FastRecovery {
                    partial_acks: partial_acks + 1,
                };
                restart_timer = partial_acks == 0;
            }
            // RFC 6675 (5) step (A): a cumulative ACK covering RecoveryPoint ends recovery;
            // the scoreboard above SND.UNA is kept. cwnd is already ssthresh (4.2).
            Phase::SackRecovery { .. } if cum >= self.recover => {
                self.phase = Phase::Open;
            }
            // RFC 6675 (5) step (B): scoreboard already updated; (C) runs in transmit().
            Phase::SackRecovery { .. } => {}
        }
        self.vegas_epoch();
        // RFC 6298 (5.2): all data acknowledged -> stop the timer; (5.3) otherwise restart.
        if self.flight_size() == 0 {
            self.cancel_timer(out);
        } else if restart_timer {
            self.arm_timer(now, out);
        }
    }

    fn on_dup_ack(&mut self, dup: bool, now: Time, out: &mut Outbox<TcpData>) {
        if dup {
            self.dupacks = self.dupacks.saturating_add(1);
        }
        let una = self.board.base();
        match self.phase {
            Phase::Open => {
                // RFC 6582 (3.2) step 2 / RFC 6675 (5.1): no new episode until SND.UNA has
                // passed the previous recovery point.
                if una < self.recover {
                    return;
                }
                if self.cfg.variant.uses_sack() {
                    // RFC 6675 (5) step (3): DupThresh dup ACKs or IsLost(HighACK + 1).
                    if self.dupacks >= self.cfg.dupthresh
                        || self.board.is_lost(una, self.cfg.dupthresh)
                    {
                        self.enter_sack_recovery(now, out);
                    }
                } else if dup
                    && (self.dupacks == self.cfg.dupthresh
                        || (self.dupacks < self.cfg.dupthresh && self.vegas_expired(una, now)))
                {
                    self.enter_fast_recovery(now, out);
                }
            }
            // RFC 6582 (3.2) step 4 / RFC 5681 (3.2) step 4: inflate by one per dup ACK.
            Phase::FastRecovery { .. } => {
                if dup {
                    self.cwnd += 1.0;
                }
            }
            // RFC 6675 (5) step (B)/(C): handled by the scoreboard and transmit().
            Phase::SackRecovery { .. } => {}
        }
    }

    /// RFC 5681 (3.1) eq. (4): max(FlightSize / 2, 2 SMSS).
    fn halved_flight(&self) -> f64 {
        (self.flight_size() as f64 / 2.0).max(2.0)
    }

    /// RFC 6582 (3.2) step 2 / RFC 5681 (3.2) steps 2-3: record `recover`, ssthresh =
    /// FlightSize / 2, retransmit SND.UNA, cwnd = ssthresh + DupThresh.
    /// Vegas (Brakmo & Peterson 1995, 3.1) keeps NewReno's recovery but sets the window
    /// its own way (`vegas_loss_window`) and enters on fewer than DupThresh duplicate ACKs
    /// when the fine-grained timeout says the segment is lost.
    fn enter_fast_recovery(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        self.stats.fast_retransmits += 1;
        self.recover = self.board.end();
        self.ecn_recover = Some(self.board.end());
        let una = self.board.base();
        if matches!(self.cfg.variant, Variant::Vegas { .. }) {
            self.ssthresh = self.vegas_loss_window(una, now);
            self.cwnd = self.ssthresh + self.dupacks as f64;
        } else {
            self.ssthresh = self.halved_flight();
            self.cwnd = self.ssthresh + self.cfg.dupthresh as f64;
        }
        self.phase = Phase::FastRecovery { partial_acks: 0 };
        self.retransmit_now(una, now, out);
    }

    /// Vegas's fine-grained timeout: SRTT + 2 RTTVAR plus a sixteenth, the value ns-2's
    /// Vegas (which seed 002 ran) derives from its fine-grained RTT samples. Brakmo &
    /// Peterson (3.1) time segments with the fine clock instead of TCP's 500 ms ticks;
    /// RFC 6298's 1 s floor would defeat the purpose, so none is applied.
    fn vegas_fine_timeout(&self) -> Option<Time> {
        self.rto.smoothed().map(|(srtt, rttvar)| {
            let t = srtt.as_nanos().saturating_add(2 * rttvar.as_nanos());
            Time::from_nanos(t + t / 16)
        })
    }

    /// Whether Vegas would call outstanding segment `seq` lost at `now`: sent longer
    /// than the fine-grained timeout ago (Brakmo & Peterson 3.1). Never for other
    /// variants, or before the first RTT sample.
    fn vegas_expired(&self, seq: u32, now: Time) -> bool {
        if !matches!(self.cfg.variant, Variant::Vegas { .. }) {
            return false;
        }
        match (self.vegas.timeout, self.board.sent(seq)) {
            (Some(timeout), Some((sent_at, _))) => now.saturating_sub(sent_at) >= timeout,
            _ => false,
        }
    }

    /// Vegas's window after a loss of `lost` (Brakmo & Peterson 3.1): decreased only if
    /// the segment was sent after the last decrease (a loss from an older window was paid
    /// for already), then to 2 from a window of 3 or less, by half for a segment lost
    /// twice, else by a quarter. Backs the fine-grained timeout off (doubled after a
    /// repeated loss, else an eighth more), as ns-2's Vegas does; every later
    /// retransmission of the episode checks against the backed-off value. Also arms the
    /// check of the next two new ACKs.
    fn vegas_loss_window(&mut self, lost: u32, now: Time) -> f64 {
        let (sent_at, again) = self.board.sent(lost).unwrap_or((now, false));
        if let Some(t) = self.vegas.timeout {
            let n = t.as_nanos();
            self.vegas.timeout = Some(Time::from_nanos(if again {
                n.saturating_mul(2)
            } else {
                n + n / 8
            }));
        }
        self.vegas.worried = 2.min(self.flight_size());
        if self.vegas.last_decrease.is_some_and(|t| t >= sent_at) {
            return self.cwnd.max(2.0);
        }
        self.vegas.last_decrease = Some(now);
        let win = self.cwnd.floor();
        if win <= 3.0 {
            2.0
        } else if again {
            (win / 2.0).floor().max(2.0)
        } else {
            (win - (win / 4.0).floor()).max(2.0)
        }
    }

    /// Vegas (Brakmo & Peterson 3.1): the first and second new ACKs after a
    /// retransmission retransmit the segment they now wait for if it has been out longer
    /// than the fine-grained timeout, without another window decrease. Outside loss
    /// recovery only: inside it NewReno's partial ACKs retransmit that segment anyway.
    fn vegas_check_worried(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        if self.vegas.worried == 0 || self.phase != Phase::Open {
            return;
        }
        self.vegas.worried -= 1;
        let una = self.board.base();
        if una < self.board.end() && self.vegas_expired(una, now) {
            self.retransmit_now(una, now, out);
        } else {
            self.vegas.worried = 0;
        }
    }

    /// RFC 6675 (5) step (4): RecoveryPoint = HighData (4.1); ssthresh = cwnd =
    /// FlightSize / 2 (4.2); retransmit HighACK + 1 and set HighRxt = RescueRxt to it
    /// (4.3); then step (C) in transmit() (4.4-4.5).
    fn enter_sack_recovery(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        self.stats.fast_retransmits += 1;
        self.recover = self.board.end();
        self.ecn_recover = Some(self.board.end());
        self.ssthresh = match self.cfg.variant {
            // RFC 9438 (4.6): CUBIC's decrease, then RFC 6675's recovery from it.
            Variant::Cubic => self.cubic.on_congestion(self.cwnd),
            _ => self.halved_flight(),
        };
        self.cwnd = self.ssthresh;
        let una = self.board.base();
        self.phase = Phase::SackRecovery {
            high_rxt: una,
            rescue_rxt: una,
        };
        self.retransmit_now(una, now, out);
    }

    /// Window growth on an ACK for `n` new segments in the Open phase at `now`.
    fn grow(&mut self, n: u32, now: Time) {
        let slow_start = self.cwnd < self.ssthresh;
        match self.cfg.variant {
            // RFC 5681 (3.1) eq. (2): cwnd += min(N, SMSS), i.e. one segment per ACK.
            _ if slow_start && n > 0 => self.cwnd += 1.0,
            // Vegas adjusts once per RTT in vegas_epoch(), not per ACK.
            Variant::Vegas { .. } => {}
            // RFC 5681 (3.1) eq. (3): cwnd += SMSS * SMSS / cwnd, i.e. ~1 segment per RTT.
            Variant::NewReno | Variant::Sack => self.cwnd += 1.0 / self.cwnd,
            // FeW: alpha segments per RTT.
            Variant::Few { alpha } => self.cwnd += alpha / self.cwnd,
            // RFC 9438 (4.2-4.5), timed by the smoothed RTT.
            Variant::Cubic => {
                let srtt = self.rto.srtt().unwrap_or(Time::ZERO);
                self.cwnd = self.cubic.grow(self.cwnd, n, now, srtt);
            }
        }
        self.cwnd = self.cwnd.min(self.cfg.max_window as f64);
    }

    /// Vegas: at the end of each RTT epoch, compare expected and actual throughput.
    fn vegas_epoch(&mut self) {
        let Variant::Vegas { alpha, beta, gamma } = self.cfg.variant else {
            return;
        };
        if self.board.base() < self.vegas.epoch_end {
            return;
        }
        if let (Phase::Open, Some(base), Some(rtt)) =
            (self.phase, self.vegas.base_rtt, self.vegas.epoch_min)
        {
            let rtt = rtt.as_nanos().max(1) as f64;
            let base = base.as_nanos() as f64;
            // expected = cwnd / BaseRTT, actual = cwnd / RTT; diff in packets is
            // (expected - actual) * BaseRTT = cwnd - target with target = cwnd BaseRTT/RTT.
            let target = self.cwnd * base / rtt;
            let diff = self.cwnd - target;
            if self.cwnd < self.ssthresh {
                // Slow start ends when the queue exceeds gamma packets.
                if diff > gamma {
                    self.cwnd = self.cwnd.min(target.floor() + 1.0).max(2.0);
                    self.ssthresh = self.cwnd;
                }
            } else if diff < alpha {
                self.cwnd = (self.cwnd + 1.0).min(self.cfg.max_window as f64);
            } else if diff > beta {
                // Keep ssthresh at or below cwnd so that the decrease does not re-enter
                // slow start.
                self.cwnd = (self.cwnd - 1.0).max(2.0);
                self.ssthresh = self.ssthresh.min(self.cwnd);
            }
        }
        self.vegas.epoch_end = self.board.end().max(self.board.base() + 1);
        self.vegas.epoch_min = None;
    }

    // ---- transmission ---------------------------------------------------------------------

    /// Sends what the current phase allows.
    fn transmit(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        // Every input ends here, so this one place undoes whatever window change the
        // input made when congestion control is off.
        if !self.cfg.congestion_control {
            self.cwnd = self.cfg.max_window as f64;
            self.ssthresh = self.cfg.max_window as f64;
        }
        // Each iteration sends one segment and raises pipe / snd_nxt, so the loop is
        // bounded by the window; the cap is a belt against bugs, never reached.
        let cap = 2 * self.cfg.max_window as usize + 4;
        for _ in 0..cap {
            // Paced mode: only a tick sends, and one segment.
            if self.cfg.paced && self.budget == 0 {
                return;
            }
            let next = match self.phase {
                Phase::SackRecovery { .. } => self.sack_next_seg(),
                _ => self.window_next_seg(),
            };
            match next {
                Some(seq) => self.emit(seq, now, out),
                None => return,
            }
        }
        debug_assert!(false, "transmit loop did not terminate");
    }

    /// RFC 5681 window rule: send `snd_nxt` while it lies below
    /// SND.UNA + min(cwnd, max_window). After an RTO this walks back over old data
    /// (go-back-N), skipping segments SACKed since.
    fn window_next_seg(&mut self) -> Option<u32> {
        let una = self.board.base();
        let end = self.board.end();
        while self.snd_nxt < end && self.board.is_sacked(self.snd_nxt) {
            self.snd_nxt += 1;
        }
        let wnd = if self.rto_probe {
            1
        } else {
            (self.cwnd.floor() as u32).min(self.cfg.max_window)
        };
        let seq = self.snd_nxt;
        if seq >= una.saturating_add(wnd) || (seq >= end && !self.app_has(seq)) {
            return None;
        }
        self.snd_nxt += 1;
        Some(seq)
    }

    /// RFC 6675 (5) step (C): while cwnd - pipe >= 1, send NextSeg() (rules 1-4 of
    /// section 4) and update HighRxt / RescueRxt (C.3).
    fn sack_next_seg(&mut self) -> Option<u32> {
        let Phase::SackRecovery {
            mut high_rxt,
            mut rescue_rxt,
        } = self.phase
        else {
            return None;
        };
        let dupthresh = self.cfg.dupthresh;
        let pipe = self.board.pipe(Some(high_rxt), dupthresh);
        if self.cwnd - (pipe as f64) < 1.0 {
            return None;
        }
        let una = self.board.base();
        let end = self.board.end();
        let seq = if let Some(s) = self.board.next_lost(Some(high_rxt), dupthresh) {
            // Rule 1: the first lost un-SACKed segment above HighRxt.
            high_rxt = s;
            s
        } else if self.app_has(end) && end < una.saturating_add(self.cfg.max_window) {
            // Rule 2: new data, within the receiver's window.
            end
        } else if let Some(s) = self.board.next_unsacked_below_high_sack(Some(high_rxt)) {
            // Rule 3: un-SACKed, above HighRxt, below the highest SACKed segment.
            high_rxt = s;
            s
        } else if una > rescue_rxt.saturating_add(1) {
            // Rule 4: one rescue retransmission of the highest un-SACKed segment per
            // episode (HighACK > RescueRxt); HighRxt is not updated.
            let s = self.board.highest_unsacked()?;
            rescue_rxt = self.recover.saturating_sub(1);
            s
        } else {
            return None;
        };
        self.phase = Phase::SackRecovery {
            high_rxt,
            rescue_rxt,
        };
        if seq >= self.snd_nxt {
            self.snd_nxt = seq + 1;
        }
        Some(seq)
    }

    /// Whether deferred retransmission `seq` is still outstanding and un-SACKed.
    fn still_missing(&self, seq: u32) -> bool {
        seq >= self.board.base() && seq < self.board.end() && !self.board.is_sacked(seq)
    }

    /// A retransmission that loss recovery wants at once: sent now, or in paced mode
    /// deferred to the next tick.
    fn retransmit_now(&mut self, seq: u32, now: Time, out: &mut Outbox<TcpData>) {
        if self.cfg.paced && self.budget == 0 {
            if !self.deferred.contains(&seq) {
                self.deferred.push_back(seq);
            }
        } else {
            self.emit(seq, now, out);
        }
    }

    /// Puts segment `seq` on the wire.
    fn emit(&mut self, seq: u32, now: Time, out: &mut Outbox<TcpData>) {
        let end = self.board.end();
        debug_assert!(seq >= self.board.base() && seq <= end);
        let retransmission = seq < end;
        self.board.on_send(seq, now);
        // RFC 3168 (6.1.5): retransmissions are not ECN-capable; (6.1.2) CWR goes on the
        // next new data segment after a reduction.
        let ect = self.cfg.ecn && !retransmission;
        let cwr = ect && std::mem::take(&mut self.cwr_pending);
        out.items.push(TcpData {
            seq,
            payload_bytes: self.cfg.mss_bytes,
            retransmission,
            sent_at: now,
            timestamps: self.cfg.timestamps,
            cwr,
            ect,
            ce: false,
        });
        self.stats.segments_sent += 1;
        self.budget = self.budget.saturating_sub(1);
        if retransmission {
            self.stats.retransmissions += 1;
            if let Some(e) = self.eifel.as_mut() {
                e.retransmit_ts.get_or_insert(now);
            }
        }
        // RFC 6298 (5.1): start the timer when sending data if it is not running.
        if self.rto_deadline.is_none() {
            self.arm_timer(now, out);
        }
    }

    fn arm_timer(&mut self, now: Time, out: &mut Outbox<TcpData>) {
        let d = now.saturating_add(self.rto.rto());
        self.rto_deadline = Some(d);
        out.timer = Some(TimerCmd::Arm(d));
    }

    fn cancel_timer(&mut self, out: &mut Outbox<TcpData>) {
        if self.rto_deadline.take().is_some() {
            out.timer = Some(TimerCmd::Cancel);
        }
    }
}

#[cfg(test)]
mod tests;
