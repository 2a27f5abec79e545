//! TCP segment headers as plain values, with the sizes they would have on the air.
//! Sequence numbers count whole segments (see the crate documentation).

use airqueue_kernel::Time;

/// IPv4 (20 bytes) + TCP (20 bytes) headers without options.
pub const TCPIP_HEADER_BYTES: u32 = 40;
/// RFC 7323 (3): the Timestamps option is 10 bytes (kind, length, TSval, TSecr).
pub const TIMESTAMP_OPTION_BYTES: u32 = 10;
/// RFC 2018 (3): a SACK option is 2 bytes of kind and length, plus 8 bytes per block.
pub const SACK_OPTION_BASE_BYTES: u32 = 2;
/// RFC 2018 (3): each SACK block is two 32-bit edges.
pub const SACK_BLOCK_BYTES: u32 = 8;
/// RFC 2018 (3): at most 3 blocks fit next to the Timestamps option (4 without it); this
/// model always reports at most 3.
pub const MAX_SACK_BLOCKS: usize = 3;

/// TCP options are padded to a multiple of 4 bytes (RFC 9293 3.1, data offset in words).
fn padded_options(raw: u32) -> u32 {
    raw.div_ceil(4) * 4
}

/// A data segment. `seq` is a segment number; the payload is `payload_bytes` long and is not
/// materialised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpData {
    /// Segment number (the `seq`-th MSS of the stream).
    pub seq: u32,
    /// Payload length in bytes (the sender's MSS).
    pub payload_bytes: u32,
    /// Whether this transmission is a retransmission (bookkeeping; not on the air).
    pub retransmission: bool,
    /// When the sender sent it. Always filled for metrics; it is *on the air* (as the
    /// RFC 7323 TSval) only when `timestamps` is true.
    pub sent_at: Time,
    /// RFC 7323: the Timestamps option is present (adds 12 bytes with padding).
    pub timestamps: bool,
    /// RFC 3168 (6.1.2): Congestion Window Reduced flag.
    pub cwr: bool,
    /// RFC 3168 (5): ECN-Capable Transport codepoint in the IP header (ECT(0)).
    pub ect: bool,
    /// RFC 3168 (5): Congestion Experienced, set by a router's AQM instead of dropping
    /// (only meaningful when `ect`).
    pub ce: bool,
}

impl TcpData {
    /// Bytes on the air: headers, options, payload.
    pub fn size_bytes(&self) -> u32 {
        let opts = if self.timestamps {
            padded_options(TIMESTAMP_OPTION_BYTES)
        } else {
            0
        };
        TCPIP_HEADER_BYTES + opts + self.payload_bytes
    }

    /// RFC 3168 (5): what an AQM does instead of dropping an ECN-capable packet. Returns
    /// `false` (and changes nothing) when the packet is not ECN-capable, so the AQM drops it.
    pub fn mark_ce(&mut self) -> bool {
        if self.ect {
            self.ce = true;
        }
        self.ect
    }
}

/// Up to [`MAX_SACK_BLOCKS`] half-open segment ranges `[start, end)`, first block first
/// (RFC 2018 (4): the first block holds the most recently received segment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u32, u32); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    pub const EMPTY: SackBlocks = SackBlocks {
        blocks: [(0, 0); MAX_SACK_BLOCKS],
        len: 0,
    };

    /// Builds blocks from a slice (extra blocks and empty ranges are ignored).
    pub fn from_slice(blocks: &[(u32, u32)]) -> SackBlocks {
        let mut s = SackBlocks::EMPTY;
        for &b in blocks {
            s.push(b);
        }
        s
    }

    /// Appends a block; returns `false` when full or when the range is empty.
    pub fn push(&mut self, (start, end): (u32, u32)) -> bool {
        if start >= end || self.len as usize >= MAX_SACK_BLOCKS {
            return false;
        }
        self.blocks[self.len as usize] = (start, end);
        self.len += 1;
        true
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.len as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.as_slice().iter().copied()
    }
}

/// A pure acknowledgment (the reverse direction carries no data in this model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpAck {
    /// Next expected segment number: everything below it has arrived.
    pub cumulative: u32,
    /// RFC 2018 SACK blocks (empty when SACK is off or nothing is out of order).
    pub sack: SackBlocks,
    /// RFC 3168 (6.1.3): ECN-Echo.
    pub ece: bool,
    /// RFC 7323 (4.3): TSecr, the echoed `sent_at` of the segment that last advanced the
    /// left edge; `None` when the Timestamps option is off.
    pub tsecr: Option<Time>,
    /// When the receiver sent this ACK (bookkeeping; not on the air).
    pub sent_at: Time,
}

impl TcpAck {
    /// Bytes on the air: headers plus the Timestamps and SACK options, padded to 4 bytes
    /// (RFC 2018 (3): 2 + 8 n bytes for n blocks; RFC 7323 (3): 10 bytes).
    pub fn size_bytes(&self) -> u32 {
        let mut raw = 0;
        if self.tsecr.is_some() {
            raw += TIMESTAMP_OPTION_BYTES;
        }
        if !self.sack.is_empty() {
            raw += SACK_OPTION_BASE_BYTES + SACK_BLOCK_BYTES * self.sack.len() as u32;
        }
        TCPIP_HEADER_BYTES + padded_options(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(blocks: &[(u32, u32)], ts: bool) -> TcpAck {
        TcpAck {
            cumulative: 0,
            sack: SackBlocks::from_slice(blocks),
            ece: false,
            tsecr: ts.then_some(Time::ZERO),
            sent_at: Time::ZERO,
        }
    }

    #[test]
    fn ack_sizes_follow_rfc2018_padding() {
        assert_eq!(ack(&[], false).size_bytes(), 40);
        assert_eq!(ack(&[(2, 3)], false).size_bytes(), 40 + 12); // 10 -> 12
        assert_eq!(ack(&[(2, 3), (5, 6)], false).size_bytes(), 40 + 20); // 18 -> 20
        assert_eq!(ack(&[(2, 3), (5, 6), (8, 9)], false).size_bytes(), 40 + 28); // 26 -> 28
        assert_eq!(ack(&[], true).size_bytes(), 40 + 12);
        assert_eq!(ack(&[(2, 3), (5, 6), (8, 9)], true).size_bytes(), 40 + 36);
    }

    #[test]
    fn data_size_and_ce_marking() {
        let mut d = TcpData {
            seq: 0,
            payload_bytes: 1460,
            retransmission: false,
            sent_at: Time::ZERO,
            timestamps: false,
            cwr: false,
            ect: false,
            ce: false,
        };
        assert_eq!(d.size_bytes(), 1500);
        d.timestamps = true;
        assert_eq!(d.size_bytes(), 1512);
        assert!(!d.mark_ce());
        assert!(!d.ce);
        d.ect = true;
        assert!(d.mark_ce());
        assert!(d.ce);
    }

    #[test]
    fn sack_blocks_cap_and_ignore_empty() {
        let s = SackBlocks::from_slice(&[(1, 2), (3, 3), (4, 5), (6, 7), (8, 9)]);
        assert_eq!(s.as_slice(), &[(1, 2), (4, 5), (6, 7)]);
    }
}
