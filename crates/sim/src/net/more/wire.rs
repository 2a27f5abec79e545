//! MORE's headers as packets carry them, and the arena their coefficient vectors live in.
//!
//! On the air a coded packet carries (MORE, section 5.1 and Fig. 4 of its paper) a type,
//! the batch size and forwarder count, the flow and batch ids, the code vector (one
//! byte per batch packet) and the forwarder list with each forwarder's TX credit; we lay
//! that out as [`MORE_FIXED_HEADER_BYTES`] + K + [`MORE_FORWARDER_ENTRY_BYTES`] per
//! forwarder. The batch ACK is [`MORE_ACK_BYTES`].
//!
//! Why an arena: the code vector is 32 bytes and [`crate::net::Packet`] must stay small
//! (it moves by value through queues), and a `Box` per coded packet would allocate on
//! the hot path. The header holds a 4-byte [`CoeffHandle`] into the scheme's
//! [`CoeffArena`], whose slots are recycled through a free list. A slot is taken when a
//! coded packet is handed to the MAC and released exactly once: when its broadcast ends
//! (every receiver of the frame has already read the vector: the MAC reports all the
//! receptions of a frame before its end, `WifiOutput::BroadcastDone`) or when the packet
//! is dropped.

use super::basis::Coeffs;

/// Type, batch size, forwarder count (one byte each, one reserved), flow id and batch id
/// (32 bits each).
pub const MORE_FIXED_HEADER_BYTES: u32 = 12;
/// A forwarder list entry: a 32-bit address and a 16-bit fixed-point TX credit.
pub const MORE_FORWARDER_ENTRY_BYTES: u32 = 6;
/// The batch ACK: type and reserved bytes, flow id, batch id.
pub const MORE_ACK_BYTES: u32 = 12;

/// Where a coded packet's coefficient vector is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoeffHandle(u32);

impl CoeffHandle {
    /// A transmission opportunity still waiting in a queue: its vector is drawn when the
    /// MAC takes it (see `MoreData`).
    pub const UNFILLED: CoeffHandle = CoeffHandle(u32::MAX);

    pub fn is_filled(self) -> bool {
        self != Self::UNFILLED
    }
}

/// A MORE data packet's header.
///
/// Packets wait in queues as transmission opportunities: the node's credit (or the
/// source's backlog) earned them, and their code vector is drawn from what the node holds
/// of the batch when the MAC takes them (MORE, 4.2.2: a forwarder transmits a fresh
/// combination of what it has when it gets the medium), so a vector is never stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoreData {
    /// Batch id; `MoreData::CURRENT_BATCH` on the source's unfilled packets.
    pub batch: u32,
    pub coeffs: CoeffHandle,
    /// Batch size K.
    pub batch_k: u8,
    /// Number of forwarders in the header's list.
    pub forwarders: u8,
}

impl MoreData {
    /// The batch of a source's unfilled packet: whichever is current when it is sent.
    pub const CURRENT_BATCH: u32 = u32::MAX;

    /// Header bytes on the air (above IP).
    pub fn header_bytes(&self) -> u32 {
        MORE_FIXED_HEADER_BYTES
            + self.batch_k as u32
            + MORE_FORWARDER_ENTRY_BYTES * self.forwarders as u32
    }
}

/// The destination's batch ACK, unicast to the source (MORE, 4.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoreAck {
    pub batch: u32,
}

impl MoreAck {
    pub fn size_bytes(&self) -> u32 {
        MORE_ACK_BYTES
    }
}

/// Slots of coefficient vectors with a free list (no allocation once warmed up).
#[derive(Clone, Debug, Default)]
pub struct CoeffArena {
    slots: Vec<Coeffs>,
    free: Vec<u32>,
}

impl CoeffArena {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `c` and returns its handle.
    pub fn alloc(&mut self, c: Coeffs) -> CoeffHandle {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = c;
                CoeffHandle(i)
            }
            None => {
                self.slots.push(c);
                CoeffHandle(self.slots.len() as u32 - 1)
            }
        }
    }

    /// The vector behind a filled handle.
    pub fn get(&self, h: CoeffHandle) -> &Coeffs {
        &self.slots[h.0 as usize]
    }

    /// Returns a slot to the free list (no-op for `UNFILLED`).
    pub fn release(&mut self, h: CoeffHandle) {
        if h.is_filled() {
            debug_assert!(!self.free.contains(&h.0), "coefficient slot freed twice");
            self.free.push(h.0);
        }
    }

    /// Slots currently holding a packet's vector.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_layout() {
        let d = MoreData {
            batch: 3,
            coeffs: CoeffHandle::UNFILLED,
            batch_k: 32,
            forwarders: 2,
        };
        assert_eq!(d.header_bytes(), 12 + 32 + 12);
        assert_eq!(MoreAck { batch: 0 }.size_bytes(), 12);
        assert!(std::mem::size_of::<MoreData>() <= 12);
    }

    #[test]
    fn arena_recycles_slots() {
        let mut a = CoeffArena::new();
        let x = a.alloc([1; 32]);
        let y = a.alloc([2; 32]);
        assert_eq!(a.live(), 2);
        a.release(x);
        let z = a.alloc([3; 32]);
        assert_eq!(z, x, "the freed slot is reused");
        assert_eq!(a.get(z), &[3; 32]);
        assert_eq!(a.get(y), &[2; 32]);
        a.release(CoeffHandle::UNFILLED);
        assert_eq!(a.live(), 2);
    }
}
