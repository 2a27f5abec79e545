//! 802.11b timing: DSSS (IEEE 802.11-2016 clause 15) and HR/DSSS (clause 16) frame
//! durations, the DCF timing constants of that PHY, and per-rate reception thresholds.
//!
//! (The same clauses are numbered 16 and 17 in IEEE 802.11-2012.) Every timing function is
//! integer arithmetic on microseconds, allocation-free and cheap enough to call per frame.

use std::fmt;

use airqueue_kernel::Time;

use crate::units::Db;

/// The four 802.11b data rates: 1 and 2 Mb/s DSSS with DBPSK/DQPSK (IEEE 802.11-2016
/// clause 15), 5.5 and 11 Mb/s HR/DSSS with CCK (clause 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DsssRate {
    /// 1 Mb/s, DBPSK (clause 15).
    Mbps1,
    /// 2 Mb/s, DQPSK (clause 15).
    Mbps2,
    /// 5.5 Mb/s, CCK (clause 16).
    Mbps5_5,
    /// 11 Mb/s, CCK (clause 16).
    Mbps11,
}

impl DsssRate {
    pub const ALL: [DsssRate; 4] = [
        DsssRate::Mbps1,
        DsssRate::Mbps2,
        DsssRate::Mbps5_5,
        DsssRate::Mbps11,
    ];

    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.half_mbps() * 500_000
    }

    /// The rate in units of 0.5 Mb/s, the unit of the 802.11 Supported Rates element
    /// (IEEE 802.11-2016 9.4.2.3), which keeps every duration computation integral.
    const fn half_mbps(self) -> u64 {
        match self {
            DsssRate::Mbps1 => 2,
            DsssRate::Mbps2 => 4,
            DsssRate::Mbps5_5 => 11,
            DsssRate::Mbps11 => 22,
        }
    }

    /// The modulation's name as the standard spells it.
    pub const fn modulation(self) -> &'static str {
        match self {
            DsssRate::Mbps1 => "DBPSK",
            DsssRate::Mbps2 => "DQPSK",
            DsssRate::Mbps5_5 | DsssRate::Mbps11 => "CCK",
        }
    }

    /// The rate for a bit rate in b/s, if it is one of the four.
    pub const fn from_bps(bps: u64) -> Option<DsssRate> {
        match bps {
            1_000_000 => Some(DsssRate::Mbps1),
            2_000_000 => Some(DsssRate::Mbps2),
            5_500_000 => Some(DsssRate::Mbps5_5),
            11_000_000 => Some(DsssRate::Mbps11),
            _ => None,
        }
    }
}

impl fmt::Display for DsssRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DsssRate::Mbps1 => "1 Mb/s",
            DsssRate::Mbps2 => "2 Mb/s",
            DsssRate::Mbps5_5 => "5.5 Mb/s",
            DsssRate::Mbps11 => "11 Mb/s",
        })
    }
}

/// The PLCP preamble and header format (IEEE 802.11-2016 16.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Preamble {
    /// Long PPDU (16.2.2.2): 144 us preamble (128-bit SYNC + 16-bit SFD at 1 Mb/s) and a
    /// 48-bit PLCP header at 1 Mb/s (48 us): 192 us. Mandatory.
    #[default]
    Long,
    /// Short PPDU (16.2.2.3): 72 us preamble (56-bit SYNC + 16-bit SFD at 1 Mb/s) and the
    /// 48-bit header at 2 Mb/s (24 us): 96 us. Cannot carry a 1 Mb/s PSDU.
    Short,
}

impl Preamble {
    /// The preamble actually used for a PSDU at `rate`: the short PPDU cannot carry
    /// 1 Mb/s (16.2.2.3), so a short-preamble station sends 1 Mb/s frames with the long
    /// one. This keeps [`frame_duration`] total instead of failing on that combination.
    pub const fn effective(self, rate: DsssRate) -> Preamble {
        match (self, rate) {
            (Preamble::Short, DsssRate::Mbps1) => Preamble::Long,
            (p, _) => p,
        }
    }

    /// PLCP preamble alone (SYNC + SFD, without the PLCP header) in microseconds: 144
    /// or 72.
    const fn sync_sfd_us(self) -> u64 {
        match self {
            Preamble::Long => 144,
            Preamble::Short => 72,
        }
    }

    /// PLCP preamble + header duration in microseconds (192 or 96).
    const fn plcp_us(self) -> u64 {
        match self {
            Preamble::Long => 144 + 48,
            Preamble::Short => 72 + 24,
        }
    }
}

impl fmt::Display for Preamble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Preamble::Long => "long",
            Preamble::Short => "short",
        })
    }
}

/// PLCP preamble + header duration for a PSDU at `rate` (see [`Preamble::effective`]).
pub const fn plcp_duration(rate: DsssRate, preamble: Preamble) -> Time {
    Time::from_micros(preamble.effective(rate).plcp_us())
}

/// The PLCP preamble alone (SYNC + SFD, 144 or 72 us) of a PSDU at `rate`: the part of
/// a frame during which a receiver is still synchronising to it (see
/// [`Preamble::effective`]).
pub const fn preamble_duration(rate: DsssRate, preamble: Preamble) -> Time {
    Time::from_micros(preamble.effective(rate).sync_sfd_us())
}

/// PSDU duration in microseconds: the PLCP LENGTH field, `ceil(8 * bytes / rate[Mb/s])`
/// (IEEE 802.11-2016 16.2.3.5; at 11 Mb/s the length-extension bit disambiguates the
/// rounding for the receiver, the air time is still the ceiling).
const fn psdu_us(bytes: u64, rate: DsssRate) -> u64 {
    // 8 * bytes / (half_mbps / 2) = 16 * bytes / half_mbps, rounded up.
    (16 * bytes).div_ceil(rate.half_mbps())
}

/// Air time of the PSDU alone (no PLCP).
pub const fn psdu_duration(bytes: u32, rate: DsssRate) -> Time {
    Time::from_micros(psdu_us(bytes as u64, rate))
}

/// Air time of a whole PPDU carrying `bytes` of MPDU (MAC header, body and FCS):
/// PLCP preamble and header plus `ceil(8 * bytes / rate)` microseconds.
pub const fn frame_duration(bytes: u32, rate: DsssRate, preamble: Preamble) -> Time {
    Time::from_micros(preamble.effective(rate).plcp_us() + psdu_us(bytes as u64, rate))
}

const SLOT_US: u64 = 20;
const SIFS_US: u64 = 10;
const DIFS_US: u64 = SIFS_US + 2 * SLOT_US;
/// Ack at 1 Mb/s with the long PLCP: 192 + 14 * 8 = 304 us.
const ACK_1MBPS_US: u64 = Preamble::Long.plcp_us() + psdu_us(ACK_BYTES as u64, DsssRate::Mbps1);

/// aSlotTime, 20 us (IEEE 802.11-2016 clause 16, "HR/DSSS PHY characteristics" table;
/// the same for clause 15 DSSS).
pub const SLOT: Time = Time::from_micros(SLOT_US);
/// aSIFSTime, 10 us (same table).
pub const SIFS: Time = Time::from_micros(SIFS_US);
/// DIFS = aSIFSTime + 2 * aSlotTime = 50 us (IEEE 802.11-2016 10.3.2.3.5).
pub const DIFS: Time = Time::from_micros(DIFS_US);
/// PIFS = aSIFSTime + aSlotTime = 30 us (IEEE 802.11-2016 10.3.2.3.4).
pub const PIFS: Time = Time::from_micros(SIFS_US + SLOT_US);
/// EIFS = aSIFSTime + DIFS + AckTxTime = 10 + 50 + 304 = 364 us, where AckTxTime is an
/// Ack at the lowest mandatory rate (1 Mb/s, long PLCP) (IEEE 802.11-2016 10.3.2.3.7).
pub const EIFS: Time = Time::from_micros(SIFS_US + DIFS_US + ACK_1MBPS_US);
/// aCWmin = 31 (HR/DSSS PHY characteristics table).
pub const CW_MIN: u16 = 31;
/// aCWmax = 1023 (same table).
pub const CW_MAX: u16 = 1023;

/// Ack frame: Frame Control 2 + Duration 2 + RA 6 + FCS 4 = 14 bytes (IEEE 802.11-2016
/// 9.3.1.4).
pub const ACK_BYTES: u32 = 14;
/// CTS frame: same layout as Ack, 14 bytes (9.3.1.3).
pub const CTS_BYTES: u32 = 14;
/// RTS frame: Frame Control 2 + Duration 2 + RA 6 + TA 6 + FCS 4 = 20 bytes (9.3.1.2).
pub const RTS_BYTES: u32 = 20;
/// Three-address data frame header: FC 2 + Duration 2 + 3 addresses 18 + Sequence
/// Control 2 = 24 bytes (9.3.2.1, no QoS Control, no HT Control, no Address 4).
pub const DATA_HEADER_BYTES: u32 = 24;
/// Frame check sequence, 4 bytes (9.2.4.8).
pub const FCS_BYTES: u32 = 4;
/// MAC overhead of a data frame: header + FCS = 28 bytes.
pub const DATA_OVERHEAD_BYTES: u32 = DATA_HEADER_BYTES + FCS_BYTES;
/// LLC/SNAP encapsulation of an IP datagram in an 802.11 data frame, 8 bytes (RFC 1042).
/// Whether a scenario counts it is the MAC's business; it is not part of
/// [`DATA_OVERHEAD_BYTES`].
pub const LLC_SNAP_BYTES: u32 = 8;
/// dot11ShortRetryLimit default 7 (IEEE 802.11-2016 Annex C): a frame no longer than
/// dot11RTSThreshold (and an RTS) is discarded when its retry count reaches 7, i.e. after
/// 7 failed attempts (10.3.4.4).
pub const SHORT_RETRY_LIMIT: u32 = 7;
/// dot11LongRetryLimit default 4 (Annex C): the same for frames longer than
/// dot11RTSThreshold: discarded after 4 failed attempts.
pub const LONG_RETRY_LIMIT: u32 = 4;

/// Air time of an Ack (or CTS) at `basic_rate`.
pub const fn ack_duration(basic_rate: DsssRate, preamble: Preamble) -> Time {
    frame_duration(ACK_BYTES, basic_rate, preamble)
}

/// How long a transmitter waits, from the end of its data frame, for the *end* of the
/// Ack before it declares the attempt failed: `aSIFSTime + aSlotTime + AckTxTime`.
///
/// IEEE 802.11-2016 10.3.2.9 defines AckTimeout as `aSIFSTime + aSlotTime +
/// aRxPHYStartDelay` measured to the *start* of the response (PHY-RXSTART.indication),
/// after which the station waits for the frame to finish. A simulator that does not model
/// PHY-RXSTART would need two timers for that. The rule used here (the one ns-3 uses)
/// is one timer on the end of the Ack, and it decides identically whenever propagation
/// delays are below one slot: a responder starts its Ack exactly SIFS after the data
/// ended, so the Ack either ends by `SIFS + AckTxTime` or never comes; the extra slot is
/// the standard's allowance for turnaround and propagation.
pub const fn ack_timeout(basic_rate: DsssRate, preamble: Preamble) -> Time {
    Time::from_micros(
        SIFS_US
            + SLOT_US
            + preamble.effective(basic_rate).plcp_us()
            + psdu_us(ACK_BYTES as u64, basic_rate),
    )
}

/// CTSTimeout has the same form as AckTimeout in IEEE 802.11-2016 (aSIFSTime + aSlotTime +
/// aRxPHYStartDelay); the same end-of-frame rule as [`ack_timeout`] for the 14-byte CTS.
pub const fn cts_timeout(basic_rate: DsssRate, preamble: Preamble) -> Time {
    ack_timeout(basic_rate, preamble)
}

/// `AIFS[AC] = aSIFSTime + AIFSN[AC] * aSlotTime` (IEEE 802.11-2016 10.3.2.3.6); with
/// AIFSN = 2 it is DIFS.
pub const fn aifs(aifsn: u8) -> Time {
    Time::from_micros(SIFS_US + aifsn as u64 * SLOT_US)
}

/// Noise bandwidth used for 802.11b SINR and Eb/N0: the 22 MHz DSSS channel width
/// (the DSSS transmit spectrum mask, IEEE 802.11-2016 clause 15), as ns-3's DSSS error
/// model does.
pub const NOISE_BANDWIDTH_HZ: f64 = 22e6;

/// ns-2's `Phy/WirelessPhy set CPThresh_ 10.0`: a frame survives an overlapping one iff
/// it is at least 10 dB stronger. Rate-independent; for ns-2 comparability.
pub const NS2_CAPTURE_THRESHOLD: Db = Db(10.0);

/// Minimum SINR for a frame at `rate` to be received, threshold model.
///
/// Not from the standard, which only specifies receiver sensitivities. Derived here so the
/// table agrees with [`bit_error_rate`]:
/// - 1 and 2 Mb/s: the SINR at which a 1024-byte PSDU sees a frame error rate of 8 %
///   under the DBPSK/DQPSK bit-error curves of [`bit_error_rate`] (8 % at 1024 octets is
///   the criterion of the receiver minimum input sensitivity in clauses 15 and 16):
///   -3.09 dB and 1.55 dB. The 13.4 dB spreading gain of the 11-chip Barker code over
///   the 22 MHz noise bandwidth is why 1 Mb/s works below 0 dB.
/// - 5.5 and 11 Mb/s (CCK, no closed-form BER): the DQPSK threshold plus
///   `10 log10(R / 2 Mb/s)`, i.e. the same Eb/N0 as 2 Mb/s: 5.95 dB and 8.96 dB. CCK's
///   coding gain over uncoded DQPSK makes this slightly conservative.
pub const fn sinr_threshold(rate: DsssRate) -> Db {
    match rate {
        DsssRate::Mbps1 => Db(-3.09),
        DsssRate::Mbps2 => Db(1.55),
        DsssRate::Mbps5_5 => Db(5.95),
        DsssRate::Mbps11 => Db(8.96),
    }
}

/// Bit error rate at `sinr` for the DSSS rates, with `Eb/N0 = SINR * B / R` over the
/// 22 MHz noise bandwidth ([`NOISE_BANDWIDTH_HZ`]):
/// - 1 Mb/s DBPSK: `Pb = exp(-Eb/N0) / 2`, exact for differentially coherent BPSK
///   (Proakis, *Digital Communications*, 4th ed., 5.2.8).
/// - 2 Mb/s DQPSK (Gray-coded): the high-SNR approximation
///   `Pb = (sqrt 2 + 1) / sqrt(8 pi sqrt 2) * exp(-(2 - sqrt 2) Eb/N0) / sqrt(Eb/N0)`, the
///   closed form ns-3's `DsssErrorRateModel` uses; capped at 0.5.
///
/// `None` for CCK (5.5 and 11 Mb/s): its error rate has no simple closed form (ns-3 needs
/// numerical integration); use [`sinr_threshold`] for those rates.
pub fn bit_error_rate(rate: DsssRate, sinr: Db) -> Option<f64> {
    let snr = sinr.to_ratio();
    let eb_n0 = snr * NOISE_BANDWIDTH_HZ / rate.bps() as f64;
    match rate {
        DsssRate::Mbps1 => Some(0.5 * (-eb_n0).exp()),
        DsssRate::Mbps2 => {
            if eb_n0 <= 0.0 {
                return Some(0.5);
            }
            let sqrt2 = std::f64::consts::SQRT_2;
            let k = (sqrt2 + 1.0) / (8.0 * std::f64::consts::PI * sqrt2).sqrt();
            Some((k * (-(2.0 - sqrt2) * eb_n0).exp() / eb_n0.sqrt()).min(0.5))
        }
        DsssRate::Mbps5_5 | DsssRate::Mbps11 => None,
    }
}

/// Probability that `bits` independent bits all arrive intact: `(1 - ber)^bits`.
pub fn frame_success_probability(ber: f64, bits: u64) -> f64 {
    let ber = ber.clamp(0.0, 1.0);
    (bits as f64 * (-ber).ln_1p()).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plcp_lengths() {
        assert_eq!(
            plcp_duration(DsssRate::Mbps11, Preamble::Long),
            Time::from_micros(192)
        );
        assert_eq!(
            plcp_duration(DsssRate::Mbps11, Preamble::Short),
            Time::from_micros(96)
        );
        // Short PPDU cannot carry 1 Mb/s: the long one is used.
        assert_eq!(
            plcp_duration(DsssRate::Mbps1, Preamble::Short),
            Time::from_micros(192)
        );
        assert_eq!(
            plcp_duration(DsssRate::Mbps2, Preamble::Short),
            Time::from_micros(96)
        );
    }

    #[test]
    fn frame_durations_round_up_to_the_microsecond() {
        // 1528-byte MPDU (1500 payload + 28) at 11 Mb/s: 12224 / 11 = 1111.27 -> 1112 us.
        assert_eq!(
            frame_duration(1528, DsssRate::Mbps11, Preamble::Long),
            Time::from_micros(192 + 1112)
        );
        // At 5.5 Mb/s: 12224 / 5.5 = 2222.5 -> 2223 us.
        assert_eq!(
            psdu_duration(1528, DsssRate::Mbps5_5),
            Time::from_micros(2223)
        );
        // Exact multiples do not round: 11 bytes at 11 Mb/s = 8 us.
        assert_eq!(psdu_duration(11, DsssRate::Mbps11), Time::from_micros(8));
        assert_eq!(psdu_duration(12, DsssRate::Mbps11), Time::from_micros(9));
        assert_eq!(
            psdu_duration(1000, DsssRate::Mbps2),
            Time::from_micros(4000)
        );
        assert_eq!(psdu_duration(0, DsssRate::Mbps1), Time::ZERO);
        // Ack at 1 Mb/s long: 192 + 112 = 304 us; at 2 Mb/s short: 96 + 56 = 152 us.
        assert_eq!(
            ack_duration(DsssRate::Mbps1, Preamble::Long),
            Time::from_micros(304)
        );
        assert_eq!(
            ack_duration(DsssRate::Mbps2, Preamble::Short),
            Time::from_micros(152)
        );
    }

    #[test]
    fn durations_never_undercount_bits() {
        for rate in DsssRate::ALL {
            for bytes in 0..3000u32 {
                let t = psdu_duration(bytes, rate);
                let exact_ns = bytes as f64 * 8.0 * 1e9 / rate.bps() as f64;
                assert!(t.as_nanos() as f64 >= exact_ns - 1e-6);
                assert!((t.as_nanos() as f64) < exact_ns + 1000.0);
            }
        }
    }

    #[test]
    fn mac_timing_constants() {
        assert_eq!(DIFS, Time::from_micros(50));
        assert_eq!(PIFS, Time::from_micros(30));
        assert_eq!(EIFS, Time::from_micros(364));
        assert_eq!(
            EIFS,
            SIFS + DIFS + ack_duration(DsssRate::Mbps1, Preamble::Long)
        );
        assert_eq!(aifs(2), DIFS);
        assert_eq!(aifs(7), Time::from_micros(150));
        assert_eq!(
            ack_timeout(DsssRate::Mbps1, Preamble::Long),
            Time::from_micros(10 + 20 + 304)
        );
        assert_eq!(
            ack_timeout(DsssRate::Mbps2, Preamble::Short),
            SIFS + SLOT + ack_duration(DsssRate::Mbps2, Preamble::Short)
        );
        assert_eq!(DATA_OVERHEAD_BYTES, 28);
    }

    #[test]
    fn rates_display_and_convert() {
        assert_eq!(DsssRate::Mbps5_5.to_string(), "5.5 Mb/s");
        assert_eq!(DsssRate::Mbps5_5.bps(), 5_500_000);
        for r in DsssRate::ALL {
            assert_eq!(DsssRate::from_bps(r.bps()), Some(r));
        }
        assert_eq!(DsssRate::from_bps(6_000_000), None);
        assert_eq!(Preamble::Short.to_string(), "short");
    }

    #[test]
    fn thresholds_agree_with_ber_curves() {
        // At the threshold, a 1024-byte PSDU succeeds with probability ~92 %.
        for rate in [DsssRate::Mbps1, DsssRate::Mbps2] {
            let thr = sinr_threshold(rate);
            let at = frame_success_probability(bit_error_rate(rate, thr).unwrap(), 8192);
            assert!((at - 0.92).abs() < 0.01, "{rate}: {at}");
            let above = bit_error_rate(rate, thr + Db(1.0)).unwrap();
            assert!(frame_success_probability(above, 8192) > 0.99);
        }
        let d2 = sinr_threshold(DsssRate::Mbps2);
        let d11 = sinr_threshold(DsssRate::Mbps11);
        assert!(((d11 - d2).0 - 10.0 * 5.5f64.log10()).abs() < 0.01);
        let mut prev = Db(f64::NEG_INFINITY);
        for r in DsssRate::ALL {
            assert!(sinr_threshold(r) > prev);
            prev = sinr_threshold(r);
        }
        assert_eq!(bit_error_rate(DsssRate::Mbps11, Db(20.0)), None);
    }

    #[test]
    fn ber_is_monotone_and_bounded() {
        for rate in [DsssRate::Mbps1, DsssRate::Mbps2] {
            let mut prev = 0.5;
            for tenth_db in -200..200 {
                let b = bit_error_rate(rate, Db(tenth_db as f64 / 10.0)).unwrap();
                assert!((0.0..=0.5).contains(&b));
                assert!(b <= prev + 1e-15, "{rate} at {tenth_db}");
                prev = b;
            }
        }
        assert_eq!(frame_success_probability(0.0, 12_000), 1.0);
        assert_eq!(frame_success_probability(1.0, 1), 0.0);
    }
}
