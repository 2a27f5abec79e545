//! Channel-access parameter sets: one [`EdcaLevel`] per MAC priority level, as the MAC's
//! EDCA functions use them (IEEE 802.11-2016 10.22.2), and the presets the seeds use.

use std::fmt;

use airqueue_kernel::Time;

use crate::dsss;

/// The contention parameters of one priority level (one EDCAF).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EdcaLevel {
    /// AIFSN: AIFS = aSIFSTime + AIFSN * aSlotTime (IEEE 802.11-2016 10.3.2.3.6).
    pub aifsn: u8,
    /// CWmin, a value `2^k - 1`.
    pub cw_min: u16,
    /// CWmax, a value `2^k - 1`, `>= cw_min`.
    pub cw_max: u16,
}

/// Why a level's parameters are not usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdcaError {
    /// AIFSN below 2: only an AP may use 1, and DCF uses 2 (IEEE 802.11-2016 9.4.2.29).
    Aifsn(u8),
    /// CW values must be `2^k - 1` (the ECW encoding, 9.4.2.29) and `cw_min <= cw_max`.
    ContentionWindow { cw_min: u16, cw_max: u16 },
}

impl fmt::Display for EdcaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EdcaError::Aifsn(a) => write!(f, "aifsn must be at least 2, got {a}"),
            EdcaError::ContentionWindow { cw_min, cw_max } => write!(
                f,
                "cw_min and cw_max must be 2^k - 1 with cw_min <= cw_max, got cw_min = {cw_min}, cw_max = {cw_max}"
            ),
        }
    }
}

impl std::error::Error for EdcaError {}

impl EdcaLevel {
    /// From the exponent form of the EDCA Parameter Set element (IEEE 802.11-2016
    /// 9.4.2.29): `CW = 2^ECW - 1`. Seed 000's Table 1 lists CWmin/CWmax this way.
    pub const fn from_ecw(aifsn: u8, ecw_min: u8, ecw_max: u8) -> EdcaLevel {
        EdcaLevel {
            aifsn,
            cw_min: (1u16 << ecw_min) - 1,
            cw_max: (1u16 << ecw_max) - 1,
        }
    }

    /// AIFS for the 802.11b PHY: `aSIFSTime + AIFSN * aSlotTime` (10.3.2.3.6).
    pub const fn aifs(self) -> Time {
        dsss::aifs(self.aifsn)
    }

    /// The contention window after a failed attempt: `CW = min(2 (CW + 1) - 1, CWmax)`
    /// (IEEE 802.11-2016 10.3.3).
    pub const fn next_cw(self, cw: u16) -> u16 {
        let doubled = 2 * (cw as u32 + 1) - 1;
        if doubled >= self.cw_max as u32 {
            self.cw_max
        } else {
            doubled as u16
        }
    }

    /// Checks the constraints of the EDCA Parameter Set element.
    pub fn validate(self) -> Result<(), EdcaError> {
        if self.aifsn < 2 {
            return Err(EdcaError::Aifsn(self.aifsn));
        }
        let pow2_minus_1 = |cw: u16| (cw as u32 + 1).is_power_of_two();
        if !pow2_minus_1(self.cw_min) || !pow2_minus_1(self.cw_max) || self.cw_min > self.cw_max {
            return Err(EdcaError::ContentionWindow {
                cw_min: self.cw_min,
                cw_max: self.cw_max,
            });
        }
        Ok(())
    }
}

/// Legacy DCF as one level: AIFSN 2 (AIFS = DIFS), CWmin 31, CWmax 1023 (IEEE 802.11-2016
/// 10.3.2.3.5 and the HR/DSSS PHY characteristics table).
pub const DCF: [EdcaLevel; 1] = [EdcaLevel {
    aifsn: 2,
    cw_min: dsss::CW_MIN,
    cw_max: dsss::CW_MAX,
}];

/// Seed 000 (DiffQ, Warrier et al.), Table 1 "802.11e configuration parameters", levels
/// 0 (lowest priority) to 7 (highest): AIFS 7 6 6 6 3 3 3 2, CWmin exponents
/// 5 5 5 5 4 3 2 1, CWmax exponents 10 9 8 7 5 4 3 3 (section 5.5: the madwifi driver
/// was extended from the four 802.11e queues to eight levels). Verbatim from the paper.
///
/// The paper says level 0 "correspond to the default settings of IEEE 802.11b": true of
/// CW (31, 1023) but level 0's AIFSN 7 gives AIFS = 150 us, not DIFS = 50 us. We keep the
/// table as published (AIFS read as AIFSN, the unit madwifi's interface uses).
pub const DIFFQ8: [EdcaLevel; 8] = [
    EdcaLevel::from_ecw(7, 5, 10),
    EdcaLevel::from_ecw(6, 5, 9),
    EdcaLevel::from_ecw(6, 5, 8),
    EdcaLevel::from_ecw(6, 5, 7),
    EdcaLevel::from_ecw(3, 4, 5),
    EdcaLevel::from_ecw(3, 3, 4),
    EdcaLevel::from_ecw(3, 2, 3),
    EdcaLevel::from_ecw(2, 1, 3),
];

/// The one-level DCF preset, [`DCF`].
pub fn dcf() -> &'static [EdcaLevel] {
    &DCF
}

/// The eight DiffQ levels, [`DIFFQ8`]; index = priority level, higher = more aggressive.
pub fn diffq8() -> &'static [EdcaLevel] {
    &DIFFQ8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffq_table_1() {
        let t = diffq8();
        assert_eq!(t.len(), 8);
        let aifsn: Vec<u8> = t.iter().map(|l| l.aifsn).collect();
        let cw_min: Vec<u16> = t.iter().map(|l| l.cw_min).collect();
        let cw_max: Vec<u16> = t.iter().map(|l| l.cw_max).collect();
        assert_eq!(aifsn, [7, 6, 6, 6, 3, 3, 3, 2]);
        assert_eq!(cw_min, [31, 31, 31, 31, 15, 7, 3, 1]);
        assert_eq!(cw_max, [1023, 511, 255, 127, 31, 15, 7, 7]);
        for w in t.windows(2) {
            // Priority never decreases with the level.
            assert!(w[1].aifsn <= w[0].aifsn && w[1].cw_min <= w[0].cw_min);
            assert!(w[1].cw_max <= w[0].cw_max);
        }
        for l in t {
            l.validate().unwrap();
        }
        assert_eq!(t[0].aifs(), Time::from_micros(150));
        assert_eq!(t[7].aifs(), dsss::DIFS);
    }

    #[test]
    fn dcf_preset_and_doubling() {
        let l = dcf()[0];
        assert_eq!(l.aifs(), dsss::DIFS);
        let mut cw = l.cw_min;
        let mut seen = vec![cw];
        for _ in 0..7 {
            cw = l.next_cw(cw);
            seen.push(cw);
        }
        assert_eq!(seen, [31, 63, 127, 255, 511, 1023, 1023, 1023]);
    }

    #[test]
    fn validation() {
        let bad = EdcaLevel {
            aifsn: 1,
            cw_min: 31,
            cw_max: 1023,
        };
        assert_eq!(bad.validate(), Err(EdcaError::Aifsn(1)));
        let bad = EdcaLevel {
            aifsn: 2,
            cw_min: 30,
            cw_max: 1023,
        };
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("cw_min = 30"));
        let bad = EdcaLevel {
            aifsn: 2,
            cw_min: 63,
            cw_max: 31,
        };
        assert!(bad.validate().is_err());
    }
}
