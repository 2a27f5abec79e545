//! The shared radio channel: who hears whom, how strongly, and which frames each radio
//! decodes.
//!
//! * **Link budgets** are computed once per transmitter: the radios its mean power reaches
//!   at the carrier-sense threshold (10 dB below it under Rayleigh fading), so a
//!   transmission costs its neighbours, not the network size. Propagation delay is zero
//!   (a fraction of a slot at these ranges). A node that moves ([`Channel::move_node`])
//!   has its pairs recomputed both ways; frames already on the air keep the power they
//!   started with.
//! * **Reception** is SINR with cumulative interference: an idle radio locks onto a frame
//!   above the receive threshold, decoded iff `S / (N + I_max)` reaches the rate's
//!   threshold and, if anything overlapped, `S / I_max` the capture threshold. Under the
//!   unit-disk model any overlap in carrier-sense range destroys the frame.
//! * **Late capture**: a stronger frame takes the receiver over only during the locked
//!   frame's PLCP preamble (IEEE 802.11-2016 16.2.2; [`LateCapture::Preamble`], the
//!   default, as Kochut et al., ICNP 2004, observed on 802.11b radios); after that both
//!   are lost and the radio stays busy until the later ends (ns-2's `collision()`), so
//!   EIFS follows the pair. [`LateCapture::Always`] is message-in-message capture (Lee et
//!   al., WiNTECH 2007); [`LateCapture::Never`] is ns-2's `Mac802_11::recv`.
//! * **Sensed frames** (above carrier sense, below receive): by default
//!   ([`SensedFrames::RxError`]) locked onto and failed, so the MAC defers EIFS (10.3.2.3.7):
//!   their 1 Mb/s PLCP header is decodable, so a DSSS receiver synchronises (clause 16), as
//!   in ns-2's `WirelessPhy::sendUp`. [`SensedFrames::EnergyOnly`] keeps them as energy
//!   alone (busy channel, no reception, no EIFS).
//! * **Preamble detection** (`preamble_detection_db`, off by default): as ns-3's
//!   `ThresholdPreambleDetectionModel`, a frame whose SINR over its first
//!   [`PREAMBLE_DETECTION`] misses the threshold is never received: energy only, so no
//!   PHY error and no EIFS. Two equal frames starting in the same slot then both vanish
//!   and their hearers defer DIFS, where a radio that syncs on one defers EIFS
//!   (10.3.2.3.7).
//! * **Faded links** ([`WifiConfig::faded_links`]): a listed directed link loses its
//!   `[[link]] loss` to Rayleigh fading rather than to an erasure: each frame's power at
//!   the receiver is exponential around the mean [`rayleigh_mean_mw`] derives from that
//!   loss, and it counts as such for sensing, interference and capture as well (seed 002,
//!   5.1: "a Rayleigh fading channel with average loss rates 0, 20, 30, 40, 50 percent").

use super::config::{Fading, LateCapture, SensedFrames, WifiConfig};
use crate::ids::NodeId;
use airqueue_kernel::{RngStream, StreamKey, Time};
use airqueue_phy::{Db, Dbm, DsssRate, Preamble, Propagation};

/// How long after a frame's start ns-3's preamble detection decides
/// (`WifiPhy::PreambleDetectionDuration`): frames starting within it compete for the radio.
pub const PREAMBLE_DETECTION: Time = Time::from_nanos(4_000);

/// A radio that hears a transmitter, with the mean power it receives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hearer {
    pub node: NodeId,
    pub mean_rx_mw: f64,
    /// Frame loss probability on this directed link (`[[link]] loss`): an independent
    /// erasure per frame, or the average loss of the link's own fading if `faded`.
    pub loss: f64,
    /// The link fades ([`WifiConfig::faded_links`]): `mean_rx_mw` is
    /// [`rayleigh_mean_mw`] of `loss`, not the path loss's, and no frame is erased.
    pub faded: bool,
}

/// Mean received power (mW) at which Rayleigh fading loses a fraction `loss` of the frames
/// on a link whose receiver decodes from `threshold_mw` up. Under Rayleigh fading the
/// received power `S` is exponential around its mean `m`, so a frame alone on the air is
/// lost with probability `P(S < T) = 1 - exp(-T / m)`; setting that to `loss` gives
/// `m = T / -ln(1 - loss)`. `loss` in (0, 1).
pub fn rayleigh_mean_mw(threshold_mw: f64, loss: f64) -> f64 {
    threshold_mw / -(-loss).ln_1p()
}

/// The links of [`WifiConfig::faded_links`], with the power they are decoded from.
#[derive(Clone, Debug)]
struct FadedLinks {
    /// Directed (from, to), sorted for binary search.
    pairs: Vec<(NodeId, NodeId)>,
    /// Weakest power a frame at the data rate is decoded from with nothing else on the
    /// air: the receive threshold or the rate's SINR threshold over the noise, the larger.
    threshold_mw: f64,
}

impl FadedLinks {
    fn new(cfg: &WifiConfig) -> Self {
        let mut pairs = cfg.faded_links.clone();
        pairs.sort_unstable();
        pairs.dedup();
        let sinr = airqueue_phy::dsss::sinr_threshold(cfg.data_rate).to_ratio();
        let threshold_mw = Dbm(cfg.rx_threshold_dbm)
            .to_mw()
            .0
            .max(Dbm(cfg.noise_dbm).to_mw().0 * sinr);
        FadedLinks {
            pairs,
            threshold_mw,
        }
    }

    /// `to` as a hearer of `from` at mean power `path_mw` (the path loss's), with the
    /// link's `loss`; a faded link with no loss keeps the path loss's power and no fading.
    fn hearer(&self, from: NodeId, to: NodeId, path_mw: f64, loss: f64) -> Hearer {
        let faded = loss > 0.0 && self.pairs.binary_search(&(from, to)).is_ok();
        Hearer {
            node: to,
            mean_rx_mw: if faded {
                rayleigh_mean_mw(self.threshold_mw, loss)
            } else {
                path_mw
            },
            loss,
            faded,
        }
    }
}

/// The frame a radio is locked onto.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Lock {
    from: NodeId,
    signal_mw: f64,
    max_interference_mw: f64,
    threshold: f64,
    erased: bool,
    /// Below the receive threshold: sensed, started, never decoded.
    sensed_only: bool,
    /// A stronger frame starting before this instant takes the radio over
    /// ([`LateCapture`]); `Time::MAX` under `Always`, `Time::ZERO` under `Never`.
    capture_until: Time,
    /// Without capture: the last frame that collided with this one and is still on
    /// the air, with its power here. If it outlasts this frame the failed reception
    /// carries on until it ends.
    collider: Option<(NodeId, f64)>,
    /// Lost in a collision, whatever the SINR (the tail of a collision pair).
    collided: bool,
    /// Until then the preamble is being detected: a frame starting meanwhile can make
    /// its SINR miss the detection threshold (`Time::ZERO` without preamble detection).
    detect_until: Time,
}

/// Physical state of one radio.
#[derive(Clone, Debug, Default)]
struct Radio {
    transmitting: bool,
    /// Sum of all signals currently arriving.
    energy_mw: f64,
    signals: u32,
    lock: Option<Lock>,
    busy: bool,
    /// When the PHY indicates (or will indicate) PHY-RXSTART for the latest frame it
    /// locked onto: the lock's start plus the frame's PLCP preamble and header
    /// (aRxPHYStartDelay). Read by the MAC's NAV reset (IEEE 802.11-2016 10.3.2.4).
    rx_start_at: Time,
    /// The latest PHY-RXSTART indicated before that lock began.
    rx_start_before: Time,
}

impl Radio {
    /// The radio locks onto a frame at `now` whose PLCP preamble and header last
    /// `plcp`.
    #[inline]
    fn note_lock(&mut self, now: Time, plcp: Time) {
        self.rx_start_before = self.last_rx_start(now);
        self.rx_start_at = now + plcp;
    }

    /// The lock taken at the last [`Radio::note_lock`] was dropped before its preamble
    /// was detected: it never gets to PHY-RXSTART.
    #[inline]
    fn forget_lock(&mut self) {
        self.rx_start_at = self.rx_start_before;
    }

    #[inline]
    fn last_rx_start(&self, now: Time) -> Time {
        if self.rx_start_at <= now {
            self.rx_start_at
        } else {
            self.rx_start_before
        }
    }
}

/// What the channel tells the MACs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioEvent {
    /// A frame from `from` that `node` was locked onto has ended.
    RxEnd {
        node: NodeId,
        from: NodeId,
        decoded: bool,
        /// The frame was below the receive threshold (sensed, never decodable).
        sensed_only: bool,
    },
    /// Carrier sense at `node` changed.
    Cca { node: NodeId, busy: bool },
}

/// Link budgets plus every radio's reception state.
pub struct Channel {
    /// Whether each node has a radio on this channel.
    on_channel: Vec<bool>,
    hearers: Vec<Vec<Hearer>>,
    /// Each hearer of the transmitter's current frame with the power it gets, kept so the
    /// end of the frame removes exactly what its start added, from exactly those radios,
    /// even if a node moved meanwhile.
    on_air: Vec<Vec<(NodeId, f64)>>,
    /// Where each node is, metres (read by [`Channel::move_node`]).
    positions: Vec<[f64; 2]>,
    propagation: Propagation,
    tx_power: Dbm,
    /// Weakest mean power that makes a radio a hearer.
    floor_mw: f64,
    faded: FadedLinks,
    radios: Vec<Radio>,
    rx_threshold_mw: f64,
    cs_threshold_mw: f64,
    noise_mw: f64,
    capture_ratio: f64,
    /// Each rate's decode threshold as an SINR ratio, indexed by `DsssRate as usize`
    /// (the order of [`DsssRate::ALL`]): worked out once, since the dB-to-ratio
    /// conversion is a `powf` and every frame start needs its rate's threshold.
    sinr_thresholds: [f64; 4],
    protocol_model: bool,
    /// Whether radios lock onto frames they can sense but not decode (EIFS after them).
    lock_sensed: bool,
    /// When a later, stronger frame takes a radio over.
    late_capture: LateCapture,
    /// Preamble detection threshold as an SINR ratio, if modelled.
    detection_ratio: Option<f64>,
    /// The PLCP preamble transmitters use (sets how long the `Preamble` capture window is).
    preamble: Preamble,
    fading: Fading,
    fading_rng: Vec<RngStream>,
    erasure_rng: Vec<RngStream>,
    /// Receptions abandoned because the radio started transmitting.
    pub aborted: u64,
    /// Receptions taken over by a stronger frame.
    pub captured: u64,
    /// Receptions lost to a later frame the radio could not switch to.
    pub collided: u64,
    /// Frames above the receive threshold whose preamble was not detected.
    pub undetected: u64,
}

impl Channel {
    /// Every node has a radio; `loss(a, b)` gives the erasure probability of frames from
    /// a to b.
    pub fn new(
        cfg: &WifiConfig,
        positions: &[[f64; 2]],
        seed: u64,
        loss: impl Fn(NodeId, NodeId) -> f64,
    ) -> Self {
        Self::with_radios(cfg, positions, |_| true, seed, loss)
    }

    /// Only the nodes for which `radio` holds are on the channel: the others are nobody's
    /// hearers and hear nobody (their positions are never read), so they never sense
    /// the channel busy and never receive. Random streams stay keyed by node id, so the
    /// radios' draws are those of the same nodes on a channel without the others.
    pub fn with_radios(
        cfg: &WifiConfig,
        positions: &[[f64; 2]],
        radio: impl Fn(NodeId) -> bool,
        seed: u64,
        loss: impl Fn(NodeId, NodeId) -> f64,
    ) -> Self {
        let n = positions.len();
        let on_channel: Vec<bool> = (0..n).map(|i| radio(NodeId(i as u32))).collect();
        let tx = Dbm(cfg.tx_power_dbm);
        let cs_threshold_mw = Dbm(cfg.cs_threshold_dbm).to_mw().0;
        let floor_mw = match cfg.fading {
            Fading::None => cs_threshold_mw,
            Fading::Rayleigh => cs_threshold_mw * 0.1,
        };
        let faded = FadedLinks::new(cfg);
        let mut hearers = vec![Vec::new(); n];
        // Only pairs closer than where the mean power falls below the floor can hear each
        // other: a sweep over the radios sorted by x compares just those, so a large
        // sparse layout costs about n log n, not n^2 (every model loses power with
        // distance).
        let reach_m = cfg.propagation.distance_below(tx, floor_mw);
        let mut order: Vec<usize> = (0..n).filter(|&i| on_channel[i]).collect();
        order.sort_by(|&a, &b| positions[a][0].total_cmp(&positions[b][0]).then(a.cmp(&b)));
        for (k, &a) in order.iter().enumerate() {
            let pa = positions[a];
            for &b in &order[k + 1..] {
                let pb = positions[b];
                if pb[0] - pa[0] > reach_m {
                    break;
                }
                let p = mean_rx_mw(&cfg.propagation, tx, pa, pb);
                if p >= floor_mw && p > 0.0 {
                    let (a, b) = (NodeId(a as u32), NodeId(b as u32));
                    for (from, to) in [(a, b), (b, a)] {
                        hearers[from.index()].push(faded.hearer(from, to, p, loss(from, to)));
                    }
                }
            }
        }
        // By hearer id, as a scan of every pair lists them.
        for list in &mut hearers {
            list.sort_unstable_by_key(|h: &Hearer| h.node);
        }
        let on_air = hearers
            .iter()
            .map(|h| Vec::with_capacity(h.len()))
            .collect();
        Channel {
            on_channel,
            hearers,
            on_air,
            positions: positions.to_vec(),
            propagation: cfg.propagation,
            tx_power: tx,
            floor_mw,
            faded,
            radios: vec![Radio::default(); n],
            rx_threshold_mw: Dbm(cfg.rx_threshold_dbm).to_mw().0,
            cs_threshold_mw,
            noise_mw: Dbm(cfg.noise_dbm).to_mw().0,
            capture_ratio: Db(cfg.capture_db).to_ratio(),
            sinr_thresholds: DsssRate::ALL
                .map(|rate| airqueue_phy::dsss::sinr_threshold(rate).to_ratio()),
            protocol_model: matches!(cfg.propagation, Propagation::Range { .. }),
            lock_sensed: cfg.sensed_frames == SensedFrames::RxError,
            late_capture: cfg.late_capture,
            detection_ratio: cfg.preamble_detection_db.map(|db| Db(db).to_ratio()),
            preamble: cfg.preamble,
            fading: cfg.fading,
            fading_rng: (0..n)
                .map(|i| RngStream::new(StreamKey::new(seed, i as u32, "phy.fading")))
                .collect(),
            erasure_rng: (0..n)
                .map(|i| RngStream::new(StreamKey::new(seed, i as u32, "phy.erasure")))
                .collect(),
            aborted: 0,
            captured: 0,
            collided: 0,
            undetected: 0,
        }
    }

    /// `node` jumps to `to` (metres): its link budgets towards every other radio are
    /// recomputed in both directions, as [`Channel::with_radios`] would with it there,
    /// `loss(a, b)` giving each pair's erasure probability. Costs one budget per radio on
    /// the channel. Frames on the air keep the power they started with; reception
    /// state is untouched. A node without a radio only has its position updated.
    pub fn move_node(&mut self, node: NodeId, to: [f64; 2], loss: impl Fn(NodeId, NodeId) -> f64) {
        self.positions[node.index()] = to;
        if !self.has_radio(node) {
            return;
        }
        let mut own = std::mem::take(&mut self.hearers[node.index()]);
        own.clear();
        for i in 0..self.positions.len() {
            let other = NodeId(i as u32);
            if other == node || !self.on_channel[i] {
                continue;
            }
            let p = mean_rx_mw(&self.propagation, self.tx_power, to, self.positions[i]);
            let heard = p >= self.floor_mw && p > 0.0;
            let theirs = &mut self.hearers[i];
            let at = theirs.binary_search_by_key(&node, |h| h.node);
            match (heard, at) {
                (true, Ok(k)) => theirs[k] = self.faded.hearer(other, node, p, theirs[k].loss),
                (true, Err(k)) => {
                    theirs.insert(k, self.faded.hearer(other, node, p, loss(other, node)));
                }
                (false, Ok(k)) => {
                    theirs.remove(k);
                }
                (false, Err(_)) => {}
            }
            if heard {
                own.push(self.faded.hearer(node, other, p, loss(node, other)));
            }
        }
        self.hearers[node.index()] = own;
    }

    /// Whether `node` has a radio on this channel.
    #[inline]
    pub fn has_radio(&self, node: NodeId) -> bool {
        self.on_channel[node.index()]
    }

    /// Radios that hear `node`'s transmissions.
    pub fn hearers(&self, node: NodeId) -> &[Hearer] {
        &self.hearers[node.index()]
    }

    pub fn is_busy(&self, node: NodeId) -> bool {
        self.radios[node.index()].busy
    }

    pub fn is_transmitting(&self, node: NodeId) -> bool {
        self.radios[node.index()].transmitting
    }

    /// Whether `node` is currently locked onto a frame.
    pub fn is_receiving(&self, node: NodeId) -> bool {
        self.radios[node.index()].lock.is_some()
    }

    /// The time of `node`'s latest PHY-RXSTART.indication up to `now` (`Time::ZERO` if
    /// none): the end of the PLCP header of the latest frame it locked onto and kept
    /// past preamble detection, sensed-only frames included, since the PHY starts
    /// receiving those too ([`SensedFrames::RxError`]).
    pub fn last_rx_start(&self, node: NodeId, now: Time) -> Time {
        self.radios[node.index()].last_rx_start(now)
    }

    fn update_cca(&mut self, node: NodeId, out: &mut Vec<RadioEvent>) {
        let r = &mut self.radios[node.index()];
        let busy = r.transmitting || r.lock.is_some() || r.energy_mw >= self.cs_threshold_mw;
        if busy != r.busy {
            r.busy = busy;
            out.push(RadioEvent::Cca { node, busy });
        }
    }

    /// `from` starts transmitting a frame at `rate` at time `now`. A reception in progress
    /// at `from` is abandoned (a half-duplex radio cannot receive while it sends).
    pub fn start_tx(&mut self, from: NodeId, rate: DsssRate, now: Time, out: &mut Vec<RadioEvent>) {
        debug_assert!(self.has_radio(from), "{from:?} has no radio");
        let threshold = self.threshold(rate);
        let plcp = airqueue_phy::dsss::plcp_duration(rate, self.preamble);
        let capture_until = match self.late_capture {
            LateCapture::Always => Time::MAX,
            LateCapture::Preamble => {
                now + airqueue_phy::dsss::preamble_duration(rate, self.preamble)
            }
            LateCapture::Never => Time::ZERO,
        };
        {
            let r = &mut self.radios[from.index()];
            debug_assert!(!r.transmitting, "{from:?} already transmitting");
            r.transmitting = true;
            // The PHY abandons the frame before its end: no PHY-RXEND, hence no EIFS.
            if r.lock.take().is_some() {
                self.aborted += 1;
            }
        }
        self.update_cca(from, out);
        self.on_air[from.index()].clear();
        for i in 0..self.hearers[from.index()].len() {
            let h = self.hearers[from.index()][i];
            let p = match self.fading {
                Fading::None if !h.faded => h.mean_rx_mw,
                Fading::None | Fading::Rayleigh => {
                    h.mean_rx_mw * self.fading_rng[h.node.index()].exponential(1.0)
                }
            };
            self.on_air[from.index()].push((h.node, p));
            let erased =
                !h.faded && h.loss > 0.0 && self.erasure_rng[h.node.index()].bernoulli(h.loss);
            let r = &mut self.radios[h.node.index()];
            let others = r.energy_mw;
            r.energy_mw += p;
            r.signals += 1;
            if !r.transmitting {
                let sensed_only = p < self.rx_threshold_mw;
                let lockable = !sensed_only || (self.lock_sensed && p >= self.cs_threshold_mw);
                let detect_until = match self.detection_ratio {
                    Some(_) => now + PREAMBLE_DETECTION,
                    None => Time::ZERO,
                };
                let newcomer = Lock {
                    from,
                    signal_mw: p,
                    max_interference_mw: others,
                    threshold,
                    erased,
                    sensed_only,
                    capture_until,
                    collider: None,
                    collided: false,
                    detect_until,
                };
                let detecting = r.lock.is_some_and(|l| now < l.detect_until);
                match &mut r.lock {
                    Some(lock) if detecting => {
                        // Both preambles are being detected: the stronger frame is kept
                        // if it clears the threshold over everything else on the air,
                        // otherwise neither is received (no PHY-RXEND, no EIFS).
                        let ratio = self.detection_ratio.unwrap_or(0.0);
                        let best = lock.signal_mw.max(p);
                        if best / (self.noise_mw + r.energy_mw - best) < ratio {
                            r.lock = None;
                            r.forget_lock();
                            self.undetected += 1;
                        } else if p > lock.signal_mw && lockable {
                            *lock = Lock {
                                max_interference_mw: r.energy_mw - p,
                                ..newcomer
                            };
                            r.rx_start_at = now + plcp;
                        } else {
                            let interference = r.energy_mw - lock.signal_mw;
                            lock.max_interference_mw = lock.max_interference_mw.max(interference);
                        }
                    }
                    Some(lock) => {
                        let capturable = now < lock.capture_until;
                        if !self.protocol_model
                            && capturable
                            && p >= lock.signal_mw * self.capture_ratio
                        {
                            // Capture: the stronger newcomer takes the receiver over; the
                            // PHY resynchronises and the first frame just disappears.
                            *lock = newcomer;
                            r.note_lock(now, plcp);
                            self.captured += 1;
                        } else {
                            let interference = r.energy_mw - lock.signal_mw;
                            lock.max_interference_mw = lock.max_interference_mw.max(interference);
                            // ns-2's collision(): past the capture window, a lockable
                            // newcomer the locked frame does not beat by the capture
                            // threshold destroys both.
                            if !capturable
                                && !self.protocol_model
                                && lockable
                                && lock.signal_mw < p * self.capture_ratio
                            {
                                lock.collided = true;
                                lock.collider = Some((from, p));
                                self.collided += 1;
                            }
                        }
                    }
                    None if lockable => {
                        let detected = self
                            .detection_ratio
                            .is_none_or(|ratio| p / (self.noise_mw + others) >= ratio);
                        if detected {
                            r.lock = Some(newcomer);
                            r.note_lock(now, plcp);
                        } else if !sensed_only {
                            self.undetected += 1;
                        }
                    }
                    None => {}
                }
            }
            self.update_cca(h.node, out);
        }
    }

    /// `from`'s frame ends: hearers locked onto it learn whether they decoded it.
    pub fn end_tx(&mut self, from: NodeId, out: &mut Vec<RadioEvent>) {
        self.radios[from.index()].transmitting = false;
        self.update_cca(from, out);
        for i in 0..self.on_air[from.index()].len() {
            let (node, p) = self.on_air[from.index()][i];
            let r = &mut self.radios[node.index()];
            r.signals -= 1;
            // Exact zero when the air is silent, so rounding never leaves phantom energy.
            r.energy_mw = if r.signals == 0 {
                0.0
            } else {
                (r.energy_mw - p).max(0.0)
            };
            if let Some(lock) = &mut r.lock {
                if lock.from == from {
                    let lock = *lock;
                    r.lock = None;
                    if let Some((later, later_mw)) = lock.collider {
                        // The colliding frame outlasts this one: the failed reception
                        // goes on until it ends (ns-2 keeps the longer of the pair).
                        r.lock = Some(Lock {
                            from: later,
                            signal_mw: later_mw,
                            max_interference_mw: lock.signal_mw,
                            threshold: lock.threshold,
                            erased: false,
                            sensed_only: later_mw < self.rx_threshold_mw,
                            // A failed reception's tail: nothing takes it over.
                            capture_until: Time::ZERO,
                            collider: None,
                            collided: true,
                            detect_until: Time::ZERO,
                        });
                    } else {
                        let decoded = !lock.sensed_only
                            && !lock.collided
                            && !lock.erased
                            && self.decodes(&lock);
                        out.push(RadioEvent::RxEnd {
                            node,
                            from,
                            decoded,
                            sensed_only: lock.sensed_only,
                        });
                    }
                } else if lock.collider.is_some_and(|(c, _)| c == from) {
                    // The colliding frame ended first: this one ends the pair.
                    lock.collider = None;
                }
            }
            self.update_cca(node, out);
        }
    }

    fn decodes(&self, lock: &Lock) -> bool {
        if self.protocol_model {
            return lock.max_interference_mw <= 0.0;
        }
        let sinr = lock.signal_mw / (self.noise_mw + lock.max_interference_mw);
        let sir_ok = lock.max_interference_mw <= 0.0
            || lock.signal_mw >= lock.max_interference_mw * self.capture_ratio;
        sinr >= lock.threshold && sir_ok
    }

    #[inline]
    fn threshold(&self, rate: DsssRate) -> f64 {
        self.sinr_thresholds[rate as usize]
    }
}

/// Mean power (mW) a radio at `b` receives from one at `a`; symmetric to the bit, as both
/// squared differences are.
#[inline]
fn mean_rx_mw(model: &Propagation, tx: Dbm, a: [f64; 2], b: [f64; 2]) -> f64 {
    let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    model.rx_power(tx, d).to_mw().0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(xs: &[f64], cfg: &WifiConfig) -> Channel {
        let pos: Vec<[f64; 2]> = xs.iter().map(|&x| [x, 0.0]).collect();
        Channel::new(cfg, &pos, 1, |_, _| 0.0)
    }

    /// Every node's hearers, as (hearer, mean power bits, loss bits, faded).
    fn budgets(ch: &Channel) -> Vec<Vec<(u32, u64, u64, bool)>> {
        (0..ch.positions.len() as u32)
            .map(|n| {
                ch.hearers(NodeId(n))
                    .iter()
                    .map(|h| (h.node.0, h.mean_rx_mw.to_bits(), h.loss.to_bits(), h.faded))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn budgets_after_a_move_equal_those_of_a_channel_built_with_the_node_there() {
        // Links 0 -> 3 and 3 -> 1 fade: their mean power stays set by their loss.
        let cfg = WifiConfig {
            faded_links: vec![(NodeId(0), NodeId(3)), (NodeId(3), NodeId(1))],
            ..WifiConfig::dsss_default()
        };
        let loss = |a: NodeId, b: NodeId| f64::from(a.0 * 10 + b.0) / 1000.0;
        let radio = |n: NodeId| n.0 != 4;
        let before = [
            [0.0, 0.0],
            [100.0, 0.0],
            [300.0, 50.0],
            [700.0, 0.0],
            [5.0, 5.0],
        ];
        // Node 3 comes into range of everyone, then node 1 leaves everyone's range.
        for (node, to) in [(3, [150.0, 40.0]), (1, [2000.0, -900.0])] {
            let mut ch = Channel::with_radios(&cfg, &before, radio, 1, loss);
            ch.move_node(NodeId(node), to, loss);
            let mut after = before;
            after[node as usize] = to;
            let built = Channel::with_radios(&cfg, &after, radio, 1, loss);
            assert_eq!(budgets(&ch), budgets(&built), "node {node} to {to:?}");
        }
        // A node without a radio stays off the channel wherever it goes.
        let mut ch = Channel::with_radios(&cfg, &before, radio, 1, loss);
        ch.move_node(NodeId(4), [1.0, 1.0], loss);
        assert!(budgets(&ch)[4].is_empty());
        assert!(budgets(&ch).iter().flatten().all(|h| h.0 != 4));
    }

    #[test]
    fn frames_to_a_node_moved_out_of_range_fail_and_one_on_the_air_ends_cleanly() {
        let cfg = WifiConfig::dsss_default(); // 250 m decode, 550 m sense
        let mut ch = line(&[0.0, 100.0], &cfg);
        let mut out = vec![];
        // Node 1 leaves during node 0's frame: that frame keeps the power it started with.
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.move_node(NodeId(1), [1000.0, 0.0], |_, _| 0.0);
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        assert_eq!(ends_at(&out, 1), vec![(0, true, false)]);
        assert!(!ch.is_busy(NodeId(1)));
        // From then on node 1 neither hears node 0 nor is heard by it.
        out.clear();
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        assert!(!ch.is_busy(NodeId(1)) && !ch.is_receiving(NodeId(1)));
        ch.end_tx(NodeId(0), &mut out);
        ch.start_tx(NodeId(1), DsssRate::Mbps11, Time::ZERO, &mut out);
        assert!(!ch.is_busy(NodeId(0)));
        ch.end_tx(NodeId(1), &mut out);
        assert!(ends_at(&out, 1).is_empty() && ends_at(&out, 0).is_empty());
        // Between decode and sense range the frame is only sensed; back in range, decoded.
        ch.move_node(NodeId(1), [400.0, 0.0], |_, _| 0.0);
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.end_tx(NodeId(0), &mut out);
        assert_eq!(ends_at(&out, 1), vec![(0, false, true)]);
        out.clear();
        ch.move_node(NodeId(1), [0.0, 200.0], |_, _| 0.0);
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.end_tx(NodeId(0), &mut out);
        assert_eq!(ends_at(&out, 1), vec![(0, true, false)]);
    }

    #[test]
    fn precomputed_thresholds_match_the_rate_table() {
        let ch = line(&[0.0, 100.0], &WifiConfig::dsss_default());
        for (i, &rate) in DsssRate::ALL.iter().enumerate() {
            assert_eq!(rate as usize, i);
            let exact = airqueue_phy::dsss::sinr_threshold(rate).to_ratio();
            assert_eq!(ch.threshold(rate).to_bits(), exact.to_bits());
        }
    }

    #[test]
    fn hearers_follow_carrier_sense_range() {
        let cfg = WifiConfig::dsss_default(); // 250 m decode, 550 m sense
        let ch = line(&[0.0, 200.0, 500.0, 600.0], &cfg);
        let h: Vec<u32> = ch.hearers(NodeId(0)).iter().map(|h| h.node.0).collect();
        assert_eq!(h, vec![1, 2]);
    }

    #[test]
    fn a_node_without_a_radio_neither_hears_nor_is_heard() {
        // Node 1 sits between two radios, where it would hear both and be heard by both;
        // node 3 has no position at all.
        let cfg = WifiConfig::dsss_default();
        let pos = [[0.0, 0.0], [10.0, 0.0], [20.0, 0.0], [f64::NAN, f64::NAN]];
        let radio = |n: NodeId| matches!(n.0, 0 | 2);
        let mut ch = Channel::with_radios(&cfg, &pos, radio, 1, |_, _| 0.0);
        let heard = |ch: &Channel, n: u32| -> Vec<u32> {
            ch.hearers(NodeId(n)).iter().map(|h| h.node.0).collect()
        };
        assert_eq!(heard(&ch, 0), vec![2]);
        assert_eq!(heard(&ch, 2), vec![0]);
        assert!(heard(&ch, 1).is_empty() && heard(&ch, 3).is_empty());
        assert!(ch.has_radio(NodeId(2)) && !ch.has_radio(NodeId(1)));
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        assert!(ch.is_receiving(NodeId(2)));
        assert!(!ch.is_busy(NodeId(1)) && !ch.is_receiving(NodeId(1)));
        ch.end_tx(NodeId(0), &mut out);
        assert!(out.iter().all(|e| match e {
            RadioEvent::RxEnd { node, .. } | RadioEvent::Cca { node, .. } => node.0 != 1,
        }));
    }

    #[test]
    fn lone_frame_is_decoded_in_range_and_only_sensed_beyond() {
        let mut cfg = WifiConfig::dsss_default();
        cfg.sensed_frames = SensedFrames::EnergyOnly;
        let mut ch = line(&[0.0, 200.0, 400.0], &cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        assert!(ch.is_busy(NodeId(1)) && ch.is_busy(NodeId(2)));
        assert!(ch.is_receiving(NodeId(1)) && !ch.is_receiving(NodeId(2)));
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(1),
            from: NodeId(0),
            decoded: true,
            sensed_only: false
        }));
        assert!(!out.iter().any(|e| matches!(
            e,
            RadioEvent::RxEnd {
                node: NodeId(2),
                ..
            }
        )));
        assert!(!ch.is_busy(NodeId(1)) && !ch.is_busy(NodeId(2)));
    }

    #[test]
    fn equal_power_overlap_destroys_both_frames() {
        let cfg = WifiConfig::dsss_default();
        // 0 and 2 both 100 m from 1.
        let mut ch = line(&[0.0, 100.0, 200.0], &cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps11, Time::ZERO, &mut out);
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        ch.end_tx(NodeId(2), &mut out);
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(1),
            from: NodeId(0),
            decoded: false,
            sensed_only: false
        }));
    }

    #[test]
    fn with_preamble_detection_equal_frames_in_one_slot_leave_no_rx_error() {
        // ns-3's ThresholdPreambleDetectionModel: both preambles at 0 dB SINR miss the
        // 4 dB threshold, so node 1 receives neither and reports no error (no EIFS).
        let mut cfg = WifiConfig::dsss_default();
        cfg.preamble_detection_db = Some(4.0);
        let mut ch = line(&[0.0, 100.0, 200.0], &cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps11, Time::ZERO, &mut out);
        assert!(!ch.is_receiving(NodeId(1)) && ch.is_busy(NodeId(1)));
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        ch.end_tx(NodeId(2), &mut out);
        assert!(!out.iter().any(|e| matches!(e, RadioEvent::RxEnd { .. })));
        assert_eq!(ch.undetected, 1);
        // A frame starting after the detection window is a collision as before: the
        // receiver synchronised on the first one, fails, and reports it (EIFS follows).
        let mut ch = line(&[0.0, 100.0, 200.0], &cfg);
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps11, PREAMBLE_DETECTION, &mut out);
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(1),
            from: NodeId(0),
            decoded: false,
            sensed_only: false
        }));
    }

    #[test]
    fn rx_start_is_indicated_after_the_plcp_header_of_a_frame_kept_past_detection() {
        // PHY-RXSTART of node 1's reception of node 0's 1 Mb/s frame comes 192 us (long
        // PLCP preamble and header) after its start; a pair whose preambles both miss
        // detection never gets there, and the earlier indication stands.
        let mut cfg = WifiConfig::dsss_default();
        cfg.preamble_detection_db = Some(4.0);
        let us = Time::from_micros;
        let mut ch = line(&[0.0, 100.0, 200.0], &cfg);
        let mut out = vec![];
        assert_eq!(ch.last_rx_start(NodeId(1), us(1000)), Time::ZERO);
        ch.start_tx(NodeId(0), DsssRate::Mbps1, us(10), &mut out);
        assert_eq!(ch.last_rx_start(NodeId(1), us(201)), Time::ZERO);
        assert_eq!(ch.last_rx_start(NodeId(1), us(202)), us(202));
        ch.end_tx(NodeId(0), &mut out);
        ch.start_tx(NodeId(0), DsssRate::Mbps1, us(5000), &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps1, us(5000), &mut out);
        assert!(!ch.is_receiving(NodeId(1)));
        assert_eq!(ch.last_rx_start(NodeId(1), us(6000)), us(202));
    }

    #[test]
    fn with_preamble_detection_the_stronger_of_two_frames_in_one_slot_is_received() {
        let mut cfg = WifiConfig::dsss_default();
        cfg.preamble_detection_db = Some(4.0);
        // Node 1 at 20 m from 2, 240 m from 0; node 0's frame starts first.
        let mut ch = line(&[0.0, 240.0, 260.0], &cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps1, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps1, Time::ZERO, &mut out);
        out.clear();
        ch.end_tx(NodeId(2), &mut out);
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(1),
            from: NodeId(2),
            decoded: true,
            sensed_only: false
        }));
    }

    #[test]
    fn much_stronger_frame_survives_a_weak_overlap() {
        let cfg = WifiConfig::dsss_default();
        // Node 1 at 20 m from 0 and 240 m from 2: tens of dB apart.
        let mut ch = line(&[0.0, 20.0, 260.0], &cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps11, Time::ZERO, &mut out);
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(1),
            from: NodeId(0),
            decoded: true,
            sensed_only: false
        }));
    }

    #[test]
    fn stronger_late_frame_captures_the_receiver_at_any_time_under_always() {
        // Node 1: weak from node 0 (240 m), strong from node 2 (20 m), which starts 1 ms
        // into node 0's frame, long after its preamble.
        let cfg = with_capture(LateCapture::Always);
        let seen = overlap(
            &cfg,
            &[0.0, 240.0, 260.0],
            DsssRate::Mbps1,
            Time::from_micros(1000),
        );
        assert_eq!(
            seen,
            Overlap {
                counts: (1, 0),
                at_first_end: vec![],
                at_second_end: vec![(2, true, false)],
            }
        );
    }

    #[test]
    fn by_default_a_stronger_frame_captures_only_during_the_preamble() {
        // Kochut et al. (ICNP 2004), 802.11b: capture of a later frame only within the
        // first frame's PLCP preamble (SYNC + SFD: 144 us long, 72 us short). Past it the
        // pair collides as under `Never`.
        let cfg = WifiConfig::dsss_default();
        assert_eq!(cfg.late_capture, LateCapture::Preamble);
        let xs = [0.0, 240.0, 260.0];
        let captured = Overlap {
            counts: (1, 0),
            at_first_end: vec![],
            at_second_end: vec![(2, true, false)],
        };
        let collided = Overlap {
            counts: (0, 1),
            at_first_end: vec![],
            at_second_end: vec![(2, false, false)],
        };
        let us = Time::from_micros;
        assert_eq!(overlap(&cfg, &xs, DsssRate::Mbps11, Time::ZERO), captured);
        assert_eq!(overlap(&cfg, &xs, DsssRate::Mbps11, us(143)), captured);
        assert_eq!(overlap(&cfg, &xs, DsssRate::Mbps11, us(144)), collided);
        let short = WifiConfig {
            preamble: Preamble::Short,
            ..cfg.clone()
        };
        assert_eq!(overlap(&short, &xs, DsssRate::Mbps11, us(71)), captured);
        assert_eq!(overlap(&short, &xs, DsssRate::Mbps11, us(72)), collided);
        // A 1 Mb/s frame always carries the long preamble (16.2.2.3).
        assert_eq!(overlap(&short, &xs, DsssRate::Mbps1, us(143)), captured);
        assert_eq!(overlap(&short, &xs, DsssRate::Mbps1, us(144)), collided);
    }

    #[test]
    fn unit_disk_model_loses_any_overlapped_frame() {
        let mut cfg = WifiConfig::dsss_default();
        cfg.propagation = Propagation::range(250.0, 550.0);
        let tx = Dbm(cfg.tx_power_dbm);
        cfg.rx_threshold_dbm = airqueue_phy::threshold_for_range(&cfg.propagation, tx, 250.0).0;
        cfg.cs_threshold_dbm = airqueue_phy::threshold_for_range(&cfg.propagation, tx, 550.0).0;
        let mut ch = line(&[0.0, 10.0, 500.0], &cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps11, Time::ZERO, &mut out);
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(1),
            from: NodeId(0),
            decoded: false,
            sensed_only: false
        }));
    }

    #[test]
    fn rayleigh_mean_gives_the_average_loss_to_a_frame_alone_on_the_air() {
        for loss in [0.01, 0.2, 0.5, 0.9] {
            let threshold_mw = 1.3e-7;
            let mean_mw = rayleigh_mean_mw(threshold_mw, loss);
            let outage = 1.0 - (-threshold_mw / mean_mw).exp();
            assert!(
                (outage - loss).abs() < 1e-12,
                "loss {loss}: outage {outage}"
            );
        }
    }

    #[test]
    fn a_faded_link_loses_its_average_loss_in_both_directions_at_both_rates() {
        // Nodes 200 m apart; the link fades both ways with average loss `loss`, which sets
        // its mean power, and no frame is erased. Node 2, 100 m from node 0 over a
        // loss-free link, keeps the path loss's power and decodes every frame.
        let frames = 20_000;
        for (rate, loss) in [(DsssRate::Mbps2, 0.2), (DsssRate::Mbps1, 0.5)] {
            let cfg = WifiConfig {
                data_rate: DsssRate::Mbps2,
                faded_links: vec![(NodeId(0), NodeId(1)), (NodeId(1), NodeId(0))],
                ..WifiConfig::dsss_default()
            };
            let pos = [[0.0, 0.0], [200.0, 0.0], [-100.0, 0.0]];
            let link = |a: NodeId, b: NodeId| if a.0 + b.0 == 1 { loss } else { 0.0 };
            let mut ch = Channel::new(&cfg, &pos, 7, link);
            let to_1 = ch.hearers(NodeId(0))[0];
            assert!(to_1.faded && to_1.node == NodeId(1));
            let threshold_mw = Dbm(cfg.rx_threshold_dbm).to_mw().0;
            assert_eq!(to_1.mean_rx_mw, rayleigh_mean_mw(threshold_mw, loss));
            assert!(!ch.hearers(NodeId(0))[1].faded);
            for (from, to) in [(0, 1), (1, 0)] {
                let mut lost = 0;
                let mut out = vec![];
                for _ in 0..frames {
                    out.clear();
                    ch.start_tx(NodeId(from), rate, Time::ZERO, &mut out);
                    ch.end_tx(NodeId(from), &mut out);
                    let decoded = ends_at(&out, to).iter().any(|&(f, ok, _)| f == from && ok);
                    lost += usize::from(!decoded);
                    if from == 0 {
                        assert_eq!(ends_at(&out, 2), vec![(0, true, false)]);
                    }
                }
                // Binomial: within 4 standard deviations of the average loss.
                let measured = lost as f64 / frames as f64;
                let sd = (loss * (1.0 - loss) / frames as f64).sqrt();
                assert!(
                    (measured - loss).abs() < 4.0 * sd,
                    "{rate:?} {from} -> {to}: lost {measured}, average loss {loss}"
                );
            }
        }
    }

    #[test]
    fn erased_link_never_decodes() {
        let cfg = WifiConfig::dsss_default();
        let pos = [[0.0, 0.0], [100.0, 0.0]];
        let mut ch = Channel::new(
            &cfg,
            &pos,
            1,
            |a, _| if a == NodeId(0) { 0.9999999 } else { 0.0 },
        );
        let mut out = vec![];
        for _ in 0..50 {
            ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
            ch.end_tx(NodeId(0), &mut out);
        }
        assert!(!out
            .iter()
            .any(|e| matches!(e, RadioEvent::RxEnd { decoded: true, .. })));
    }

    #[test]
    fn a_frame_sensed_beyond_decode_range_ends_in_a_reception_error() {
        // The default: node 2 (400 m) starts receiving node 0's frame and fails it, so its
        // MAC will defer EIFS; node 3 (600 m) is beyond carrier sense and sees nothing.
        let cfg = WifiConfig::dsss_default();
        assert_eq!(cfg.sensed_frames, SensedFrames::RxError);
        let mut ch = line(&[0.0, 200.0, 400.0, 600.0], &cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
        assert!(ch.is_receiving(NodeId(1)) && ch.is_receiving(NodeId(2)));
        assert!(!ch.is_busy(NodeId(3)) && !ch.is_receiving(NodeId(3)));
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(1),
            from: NodeId(0),
            decoded: true,
            sensed_only: false
        }));
        assert!(out.contains(&RadioEvent::RxEnd {
            node: NodeId(2),
            from: NodeId(0),
            decoded: false,
            sensed_only: true
        }));
        assert!(!out.iter().any(|e| matches!(
            e,
            RadioEvent::RxEnd {
                node: NodeId(3),
                ..
            }
        )));
    }

    #[test]
    fn a_strong_frame_captures_a_radio_locked_on_a_sensed_one_during_its_preamble() {
        // Node 1 is 500 m from node 0 (sensed only) and 20 m from node 2: node 2's frame,
        // far more than 10 dB stronger, is decoded if it starts during node 0's preamble
        // (or at any time under `Always`); later it is lost with node 0's.
        let cfg = WifiConfig::dsss_default();
        let xs = [0.0, 500.0, 520.0];
        let early = overlap(&cfg, &xs, DsssRate::Mbps11, Time::from_micros(100));
        assert_eq!(early.counts, (1, 0));
        assert!(early.at_first_end.is_empty());
        assert_eq!(early.at_second_end, vec![(2, true, false)]);
        let late = overlap(&cfg, &xs, DsssRate::Mbps11, Time::from_micros(400));
        assert_eq!(late.counts, (0, 1));
        assert_eq!(late.at_second_end, vec![(2, false, false)]);
        let always = with_capture(LateCapture::Always);
        let late = overlap(&always, &xs, DsssRate::Mbps11, Time::from_micros(400));
        assert_eq!(late.counts, (1, 0));
        assert_eq!(late.at_second_end, vec![(2, true, false)]);
    }

    #[test]
    fn a_decodable_frame_not_10_db_above_a_sensed_one_is_lost_either_way() {
        // Node 1: node 0 at 300 m (sensed only), node 2 at 240 m (decodable, but only
        // 40 log10(300/240) = 3.9 dB stronger under two-ray ground). With the sensed lock
        // the newcomer is interference; without it the newcomer locks and fails the
        // capture test. Same loss, but only the default ends in EIFS for node 0's frame.
        for (mode, sensed_end) in [
            (SensedFrames::RxError, true),
            (SensedFrames::EnergyOnly, false),
        ] {
            let mut cfg = WifiConfig::dsss_default();
            cfg.sensed_frames = mode;
            let mut ch = line(&[0.0, 300.0, 540.0], &cfg);
            let mut out = vec![];
            ch.start_tx(NodeId(0), DsssRate::Mbps11, Time::ZERO, &mut out);
            ch.start_tx(NodeId(2), DsssRate::Mbps11, Time::ZERO, &mut out);
            out.clear();
            ch.end_tx(NodeId(0), &mut out);
            ch.end_tx(NodeId(2), &mut out);
            let ends: Vec<_> = out
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        RadioEvent::RxEnd {
                            node: NodeId(1),
                            ..
                        }
                    )
                })
                .collect();
            assert!(ends
                .iter()
                .all(|e| matches!(e, RadioEvent::RxEnd { decoded: false, .. })));
            assert_eq!(
                ends.iter().any(|e| matches!(
                    e,
                    RadioEvent::RxEnd {
                        from: NodeId(0),
                        sensed_only: true,
                        ..
                    }
                )),
                sensed_end,
                "{mode:?}"
            );
        }
    }

    /// The reception ends `out` reports at `node`, as (from, decoded, sensed_only).
    fn ends_at(out: &[RadioEvent], node: u32) -> Vec<(u32, bool, bool)> {
        out.iter()
            .filter_map(|e| match *e {
                RadioEvent::RxEnd {
                    node: n,
                    from,
                    decoded,
                    sensed_only,
                } if n.0 == node => Some((from.0, decoded, sensed_only)),
                _ => None,
            })
            .collect()
    }

    /// What node 1 sees on a line at `xs` when node 0's frame starts at time zero, node
    /// 2's starts during it (`after` later), and they end in that order.
    #[derive(Debug, PartialEq)]
    struct Overlap {
        /// The channel's (captured, collided) counts.
        counts: (u64, u64),
        /// Node 1's reception ends when node 0's frame ends, and when node 2's does.
        at_first_end: Vec<(u32, bool, bool)>,
        at_second_end: Vec<(u32, bool, bool)>,
    }

    /// Runs [`Overlap`]'s sequence under `cfg`; every caller's node 1 locks onto node 0's
    /// frame first (checked).
    fn overlap(cfg: &WifiConfig, xs: &[f64], rate: DsssRate, after: Time) -> Overlap {
        let mut ch = line(xs, cfg);
        let mut out = vec![];
        ch.start_tx(NodeId(0), rate, Time::ZERO, &mut out);
        assert!(ch.is_receiving(NodeId(1)));
        ch.start_tx(NodeId(2), rate, after, &mut out);
        out.clear();
        ch.end_tx(NodeId(0), &mut out);
        let at_first_end = ends_at(&out, 1);
        out.clear();
        ch.end_tx(NodeId(2), &mut out);
        Overlap {
            counts: (ch.captured, ch.collided),
            at_first_end,
            at_second_end: ends_at(&out, 1),
        }
    }

    fn with_capture(late_capture: LateCapture) -> WifiConfig {
        WifiConfig {
            late_capture,
            ..WifiConfig::dsss_default()
        }
    }

    fn ns2_reception() -> WifiConfig {
        with_capture(LateCapture::Never)
    }

    #[test]
    fn never_capturing_a_stronger_later_frame_is_lost_with_the_first() {
        // The geometry of `stronger_late_frame_captures_the_receiver_at_any_time_under_always`: under ns-2's
        // reception node 2's frame collides with node 0's instead of taking over, and the
        // failed reception lasts until node 2's frame, the later to end, is over.
        let mut ch = line(&[0.0, 240.0, 260.0], &ns2_reception());
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps1, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps1, Time::ZERO, &mut out);
        assert_eq!((ch.captured, ch.collided), (0, 1));
        ch.end_tx(NodeId(0), &mut out);
        assert!(ends_at(&out, 1).is_empty());
        assert!(ch.is_receiving(NodeId(1)));
        ch.end_tx(NodeId(2), &mut out);
        assert_eq!(ends_at(&out, 1), vec![(2, false, false)]);
        assert!(!ch.is_receiving(NodeId(1)));
    }

    #[test]
    fn never_capturing_the_pair_ends_with_the_longer_frame() {
        // Node 2's frame is the shorter: the failed reception ends with node 0's.
        let mut ch = line(&[0.0, 240.0, 260.0], &ns2_reception());
        let mut out = vec![];
        ch.start_tx(NodeId(0), DsssRate::Mbps1, Time::ZERO, &mut out);
        ch.start_tx(NodeId(2), DsssRate::Mbps1, Time::ZERO, &mut out);
        ch.end_tx(NodeId(2), &mut out);
        assert!(ends_at(&out, 1).is_empty());
        assert!(ch.is_receiving(NodeId(1)));
        ch.end_tx(NodeId(0), &mut out);
        assert_eq!(ends_at(&out, 1), vec![(0, false, false)]);
        // A new frame from node 2 after the pair is an ordinary reception again.
        out.clear();
        ch.start_tx(NodeId(2), DsssRate::Mbps1, Time::ZERO, &mut out);
        ch.end_tx(NodeId(2), &mut out);
        assert_eq!(ends_at(&out, 1), vec![(2, true, false)]);
    }

    #[test]
    fn never_capturing_a_sensed_frame_destroys_a_later_strong_one() {
        // `a_strong_frame_captures_a_radio_locked_on_a_sensed_one_during_its_preamble` under ns-2's reception:
        // the radio locked on a frame it can only sense loses the strong one as well.
        let seen = overlap(
            &ns2_reception(),
            &[0.0, 500.0, 520.0],
            DsssRate::Mbps11,
            Time::ZERO,
        );
        assert_eq!(seen.counts, (0, 1));
        assert!(seen.at_first_end.is_empty());
        assert_eq!(seen.at_second_end, vec![(2, false, false)]);
    }

    #[test]
    fn never_capturing_a_much_weaker_later_frame_is_only_interference() {
        // `much_stronger_frame_survives_a_weak_overlap` under ns-2's reception: node 2's
        // frame is tens of dB below node 0's, so ns-2 ignores it and node 0's survives.
        let seen = overlap(
            &ns2_reception(),
            &[0.0, 20.0, 260.0],
            DsssRate::Mbps11,
            Time::ZERO,
        );
        assert_eq!(seen.counts, (0, 0));
        assert_eq!(seen.at_first_end, vec![(0, true, false)]);
        assert!(seen.at_second_end.is_empty());
    }
}
