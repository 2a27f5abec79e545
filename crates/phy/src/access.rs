//! The air time of one collision-free channel access (IEEE 802.11-2016 10.3): what a
//! frame costs a DCF sender that wins the medium at once. The analytic air-time budgets
//! (`airqueue_analytic::airtime`) and DQM's per-packet channel time (seed 004, eq. (1))
//! build on it.

use crate::dsss::{self, DsssRate, Preamble};
use airqueue_kernel::Time;

/// The PHY and MAC framing of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub data_rate: DsssRate,
    /// Rate of the MAC Ack.
    pub basic_rate: DsssRate,
    pub preamble: Preamble,
    /// MAC bytes added to every MSDU: header + FCS = 28 ([`dsss::DATA_OVERHEAD_BYTES`]),
    /// plus [`dsss::LLC_SNAP_BYTES`] if the MAC model counts LLC/SNAP.
    pub mac_overhead_bytes: u32,
}

impl Default for Link {
    /// 11 Mb/s data, 1 Mb/s Ack, long preamble, 28 bytes of MAC overhead.
    fn default() -> Link {
        Link {
            data_rate: DsssRate::Mbps11,
            basic_rate: DsssRate::Mbps1,
            preamble: Preamble::Long,
            mac_overhead_bytes: dsss::DATA_OVERHEAD_BYTES,
        }
    }
}

/// Mean backoff before a frame when every attempt succeeds: `cw_min / 2` slots
/// (uniform on `0..=cw_min`, IEEE 802.11-2016 10.3.3). Exact in integer ns since a slot is
/// an even number of ns.
pub const fn mean_backoff(cw_min: u16) -> Time {
    Time::from_nanos(cw_min as u64 * dsss::SLOT.as_nanos() / 2)
}

/// One complete channel access carrying an MSDU of `msdu_bytes`:
/// `DIFS + mean backoff + DATA + SIFS + ACK`.
pub fn access_time(msdu_bytes: u32, link: &Link, cw_min: u16) -> Time {
    dsss::DIFS
        + mean_backoff(cw_min)
        + dsss::frame_duration(
            msdu_bytes + link.mac_overhead_bytes,
            link.data_rate,
            link.preamble,
        )
        + dsss::SIFS
        + dsss::ack_duration(link.basic_rate, link.preamble)
}
