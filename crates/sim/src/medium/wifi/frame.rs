//! MAC frames on the air and frames waiting in a station's transmit buffer.

use crate::ids::NodeId;
use crate::net::Packet;
use airqueue_kernel::Time;
use airqueue_phy::DsssRate;

/// The broadcast receiver address.
pub const BROADCAST: NodeId = NodeId(u32::MAX);

/// IEEE 802.11-2016 9.2.4.1.3 frame types used here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Data,
    Ack,
    Rts,
    Cts,
}

/// What a station is sending right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AirFrame {
    pub kind: FrameKind,
    pub dst: NodeId,
    pub rate: DsssRate,
    /// Duration/ID field (9.2.4.2): how long after this frame ends the medium stays
    /// reserved; overhearers set their NAV from it.
    pub nav: Time,
    pub seq: u16,
    pub retry: bool,
    /// Access category whose frame this is (data and RTS only).
    pub level: u8,
}

/// A network packet in the MAC's transmit buffer.
#[derive(Clone, Debug)]
pub struct MacFrame {
    pub pkt: Packet,
    pub next_hop: NodeId,
    pub level: u8,
    pub seq: u16,
    /// Failed attempts counted against dot11ShortRetryLimit (frames without RTS, RTS).
    pub short_retries: u32,
    /// Failed attempts counted against dot11LongRetryLimit (data after a CTS).
    pub long_retries: u32,
    /// The next hop has accepted a copy (so a later retry-limit drop loses nothing).
    /// Used only for packet accounting, never by the protocol.
    pub handed_over: bool,
    /// Channel time spent on this frame's attempts, for link-layer feedback.
    pub airtime: Time,
    /// Attempts put on the air: exchanges opened by this frame's DATA (or by its RTS).
    /// Unlike [`MacFrame::attempts`] it leaves out internal collisions, which never
    /// reach the air.
    pub aired: u32,
    /// Sum over the aired attempts of their data rate, in units of 0.5 Mb/s (each
    /// attempt reads the rate table, so with rate control attempts may differ).
    pub aired_half_mbps: u32,
    /// When the frame reached the head of its MAC queue (its access category's; TDMA's
    /// one buffer), where its channel access starts.
    pub head_at: Time,
    /// Backoff slots the frame's attempts counted down (10.3.4.3's Backoff Time =
    /// Random() x aSlotTime, in slots): for the first attempt the counter it found at the
    /// head (what remained of a post-backoff, or a fresh draw), then each retry's draw.
    /// Time the counter stayed frozen is not in it. Always 0 under TDMA.
    pub backoff_slots: u32,
    /// Sum of the idle interframe spaces the aired attempts waited before their backoff
    /// (AIFS/DIFS, or EIFS after an undecodable frame, 10.3.2.3.7). Zero under TDMA.
    pub ifs: Time,
}

impl MacFrame {
    pub fn attempts(&self) -> u32 {
        self.short_retries + self.long_retries + 1
    }
}
