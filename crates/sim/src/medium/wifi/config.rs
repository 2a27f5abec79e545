//! Settings of the 802.11 medium, as the core sees them (the scenario layer fills them in).

use crate::ids::NodeId;
use airqueue_kernel::Time;
use airqueue_phy::{DsssRate, EdcaLevel, Preamble, Propagation};
use serde::Serialize;

/// Per-frame small-scale fading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fading {
    None,
    /// Rayleigh: received power multiplied by an Exp(1) draw per frame and receiver.
    Rayleigh,
}

/// How the data rate towards each neighbour is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateControl {
    /// Always `data_rate`.
    Constant,
    /// Adaptive ARF (Lacage, Manshaei, Turletti, MSWiM 2004), starting at `data_rate`.
    Aarf,
}

/// A scheduled change of data rate (seed 004, section IV-B: the uplink stations "move far
/// away from the AP at t0 = 100 s, hence their bit-rates change from 11 Mbps to 2 Mbps").
/// From `at` on, every unicast data frame to or from one of `nodes` is sent at `rate`:
/// both directions of every link of a listed node. Control frames (RTS, CTS, ACK) and
/// broadcasts keep the basic rate. Only the rate moves: positions, radio ranges and
/// reception thresholds stay, so the paper's stations stay associated and decodable,
/// just slower. A later change overrides an earlier one on the links they share. Meant
/// for [`RateControl::Constant`]; under AARF the adaptation towards each affected peer
/// restarts at `rate` (the scenario layer refuses that combination).
#[derive(Clone, Debug, PartialEq)]
pub struct RateChange {
    pub at: Time,
    pub nodes: Vec<NodeId>,
    pub rate: DsssRate,
}

/// A scheduled jump of one node (seed 004, section IV-B: the uplink stations "move far
/// away from the AP at the time of t0"). At `at` the node is at `to` (metres) and the
/// channel recomputes its link budgets both ways; rate control, routes and queues are
/// left to find out from the frames that follow.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeMove {
    pub at: Time,
    pub node: NodeId,
    pub to_m: [f64; 2],
}

/// What a radio does with a frame it senses (above the carrier-sense threshold) but cannot
/// decode (below the receive threshold).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SensedFrames {
    /// The PHY starts receiving it (its 1 Mb/s PLCP header is above the noise) and the
    /// reception ends in an error, after which the MAC defers EIFS (IEEE 802.11-2016
    /// 10.3.2.3.7); ns-2's behaviour. The default.
    RxError,
    /// Energy only: the channel is busy while it lasts, nothing else (no EIFS).
    #[serde(rename = "energy")]
    EnergyOnly,
}

/// Whether a frame that arrives while a radio is locked onto another, and is `capture_db`
/// stronger than it, takes the radio over (physical-layer capture of a later frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LateCapture {
    /// At any time (message-in-message capture): Lee et al. measured this on 802.11a
    /// (OFDM) Atheros radios ("An experimental study on the capture effect in 802.11a
    /// networks", WiNTECH 2007).
    Always,
    /// Only while the locked frame's PLCP preamble (SYNC + SFD) lasts, which is what
    /// Kochut et al. measured on 802.11b radios ("Sniffing out the correct physical layer
    /// capture model in 802.11b", ICNP 2004); later, as [`LateCapture::Never`]. The
    /// default: our PHY is 802.11b's.
    Preamble,
    /// Never: ns-2's reception (`Mac802_11::recv`; ns-3 without a frame capture model
    /// behaves alike). A later frame is never received; unless the locked frame beats it
    /// by `capture_db` both are lost, and the failed reception lasts until the later of
    /// the two ends.
    Never,
}

/// How stations get the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// DCF or EDCA contention ([`super::mac::WifiNet`]), with `WifiConfig::levels`.
    Contention,
    /// A fixed round-robin TDMA schedule ([`super::tdma::TdmaNet`], seed 001 section
    /// 3.3): one slot per radio node in id order, each sized for a data frame carrying
    /// an IP packet of `slot_bytes` at the data rate, then SIFS and the ACK.
    Tdma { slot_bytes: u32 },
}

/// Everything the radio and MAC need.
#[derive(Clone, Debug, PartialEq)]
pub struct WifiConfig {
    pub propagation: Propagation,
    pub fading: Fading,
    pub tx_power_dbm: f64,
    /// Weakest signal a radio locks onto and tries to decode.
    pub rx_threshold_dbm: f64,
    /// Weakest signal that makes carrier sense report busy.
    pub cs_threshold_dbm: f64,
    /// Thermal noise plus receiver noise figure over the 22 MHz channel.
    pub noise_dbm: f64,
    /// A later frame this much stronger than the one being received takes the receiver
    /// over; a frame that overlaps interference must also beat it by this much.
    pub capture_db: f64,
    /// Frames sensed but too weak to decode: a failed reception (EIFS) or energy only.
    pub sensed_frames: SensedFrames,
    /// When a frame arriving during a reception and `capture_db` stronger takes the
    /// receiver over.
    pub late_capture: LateCapture,
    /// Preamble detection threshold in dB (SINR over the first
    /// [`PREAMBLE_DETECTION`](super::channel::PREAMBLE_DETECTION) of a frame), or `None`:
    /// a frame that does not reach it is not received at all, so it ends in no PHY
    /// error and no EIFS (ns-3's `ThresholdPreambleDetectionModel`, 4 dB). `None`, the
    /// default: every frame above the receive threshold is locked onto.
    pub preamble_detection_db: Option<f64>,
    pub data_rate: DsssRate,
    pub basic_rate: DsssRate,
    pub preamble: Preamble,
    /// EDCA levels (one level = plain DCF), lowest priority first; at most 64.
    pub levels: Vec<EdcaLevel>,
    /// dot11ShortRetryLimit: attempts for frames sent without RTS, and for RTS.
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts for data frames protected by RTS/CTS.
    pub long_retry_limit: u32,
    /// Frames whose MPDU exceeds this many bytes are protected by RTS/CTS.
    pub rts_threshold_bytes: u32,
    /// A station whose NAV was last set by an RTS resets it when no PHY-RXSTART follows
    /// within (2 x aSIFSTime) + CTS_Time + aRxPHYStartDelay + (2 x aSlotTime) of the
    /// RTS's end (IEEE 802.11-2016 10.3.2.4 permits it; ns-3 does it). Off: the NAV
    /// lasts the whole announced exchange, as in ns-2.
    pub nav_reset_after_rts: bool,
    pub rate_control: RateControl,
    /// Frames the MAC holds (over all levels) before it stops pulling from the queue
    /// discipline.
    pub tx_buffer_frames: u32,
    /// A TDMA schedule's slots per round of the nodes listed (the others have one): a
    /// counterfactual; seed 001's schedule gives every node one slot in turn.
    pub tdma_slots: Vec<(NodeId, u32)>,
    /// Bytes of MAC framing added to each network packet in a data frame: the MAC header
    /// and FCS (28) plus LLC/SNAP encapsulation (8).
    pub data_overhead_bytes: u32,
    /// Scheduled per-link data-rate changes, applied by the world in time order (ties
    /// in list order).
    pub rate_changes: Vec<RateChange>,
    /// Scheduled node moves, applied by the world in time order (ties in list order,
    /// after the rate changes of the same instant).
    pub moves: Vec<NodeMove>,
    /// Contention (DCF/EDCA) or a TDMA schedule.
    pub access: Access,
    /// Directed links (from, to) whose `[[link]] loss` is the average frame loss of their
    /// own Rayleigh fading instead of an independent erasure (seed 002, 5.1: "a Rayleigh
    /// fading channel with average loss rates"); see [`super::channel::rayleigh_mean_mw`].
    pub faded_links: Vec<(NodeId, NodeId)>,
}

impl WifiConfig {
    /// 802.11b defaults: 11 Mb/s data, 1 Mb/s basic, long preamble, plain DCF, two-ray
    /// ground with thresholds for 250 m decode and 550 m carrier sense.
    pub fn dsss_default() -> Self {
        let propagation = Propagation::two_ray_ground_default();
        let tx = airqueue_phy::Dbm(20.0);
        WifiConfig {
            propagation,
            fading: Fading::None,
            faded_links: Vec::new(),
            tx_power_dbm: tx.0,
            rx_threshold_dbm: airqueue_phy::threshold_for_range(&propagation, tx, 250.0).0,
            cs_threshold_dbm: airqueue_phy::threshold_for_range(&propagation, tx, 550.0).0,
            noise_dbm: airqueue_phy::units::thermal_noise(
                airqueue_phy::dsss::NOISE_BANDWIDTH_HZ,
                airqueue_phy::Db(7.0),
            )
            .0,
            capture_db: 10.0,
            sensed_frames: SensedFrames::RxError,
            late_capture: LateCapture::Preamble,
            preamble_detection_db: None,
            data_rate: DsssRate::Mbps11,
            basic_rate: DsssRate::Mbps1,
            preamble: Preamble::Long,
            levels: airqueue_phy::edca::dcf().to_vec(),
            short_retry_limit: airqueue_phy::dsss::SHORT_RETRY_LIMIT,
            long_retry_limit: airqueue_phy::dsss::LONG_RETRY_LIMIT,
            rts_threshold_bytes: u32::MAX,
            nav_reset_after_rts: false,
            rate_control: RateControl::Constant,
            tx_buffer_frames: 1,
            tdma_slots: Vec::new(),
            data_overhead_bytes: airqueue_phy::dsss::DATA_OVERHEAD_BYTES
                + airqueue_phy::dsss::LLC_SNAP_BYTES,
            rate_changes: Vec::new(),
            moves: Vec::new(),
            access: Access::Contention,
        }
    }

    pub fn slot(&self) -> Time {
        airqueue_phy::dsss::SLOT
    }
    pub fn sifs(&self) -> Time {
        airqueue_phy::dsss::SIFS
    }
}
