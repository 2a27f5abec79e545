//! The sender's per-segment scoreboard for the outstanding window `[snd_una, snd_max)`: send
//! time, retransmitted and SACKed bits, plus the RFC 6675 (4) queries (IsLost, pipe, NextSeg).
//! A ring buffer preallocated to the window cap, so nothing allocates per segment.

use std::collections::VecDeque;

use airqueue_kernel::Time;

#[derive(Clone, Copy, Debug)]
struct Slot {
    sent_at: Time,
    retransmitted: bool,
    sacked: bool,
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    /// Segments newly cumulatively acknowledged.
    pub segments: u32,
    /// Whether any of them was ever retransmitted (Karn's rule: no RTT sample then).
    pub any_retransmitted: bool,
    /// Send time of the newest of them (the one whose arrival most likely triggered the ACK).
    pub newest_sent_at: Option<Time>,
}

/// Per-segment state of the outstanding window.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    base: u32,
    slots: VecDeque<Slot>,
    sacked: u32,
}

impl Scoreboard {
    pub fn with_capacity(window: usize) -> Self {
        Scoreboard {
            base: 0,
            slots: VecDeque::with_capacity(window),
            sacked: 0,
        }
    }

    /// First outstanding segment (SND.UNA / HighACK).
    pub fn base(&self) -> u32 {
        self.base
    }

    /// One past the highest segment ever sent (SND.MAX; RFC 6675 HighData + 1).
    pub fn end(&self) -> u32 {
        self.base + self.slots.len() as u32
    }

    /// Number of SACKed segments on the board.
    pub fn sacked_count(&self) -> u32 {
        self.sacked
    }

    fn slot(&self, seq: u32) -> Option<&Slot> {
        seq.checked_sub(self.base)
            .and_then(|i| self.slots.get(i as usize))
    }

    /// When `seq` was last sent and whether it has been sent more than once.
    pub fn sent(&self, seq: u32) -> Option<(Time, bool)> {
        self.slot(seq).map(|s| (s.sent_at, s.retransmitted))
    }

    pub fn is_sacked(&self, seq: u32) -> bool {
        self.slot(seq).is_some_and(|s| s.sacked)
    }

    /// Records a transmission of `seq` at `now`. `seq == end()` appends a new segment; an
    /// outstanding `seq` is a retransmission. Anything else is ignored.
    pub fn on_send(&mut self, seq: u32, now: Time) {
        if seq == self.end() {
            self.slots.push_back(Slot {
                sent_at: now,
                retransmitted: false,
                sacked: false,
            });
        } else if let Some(i) = seq.checked_sub(self.base) {
            if let Some(s) = self.slots.get_mut(i as usize) {
                s.sent_at = now;
                s.retransmitted = true;
            }
        }
    }

    /// Removes everything below `cum` (clamped to `end()`).
    pub fn advance(&mut self, cum: u32) -> Acked {
        let cum = cum.min(self.end());
        let mut acked = Acked::default();
        while self.base < cum {
            let Some(s) = self.slots.pop_front() else {
                break;
            };
            self.base += 1;
            acked.segments += 1;
            acked.any_retransmitted |= s.retransmitted;
            acked.newest_sent_at = Some(s.sent_at);
            if s.sacked {
                self.sacked -= 1;
            }
        }
        acked
    }

    /// RFC 2018 / RFC 6675 (5) step (B): marks the blocks' segments SACKed; returns how many
    /// were newly SACKed. Blocks outside the outstanding window are clipped or ignored.
    pub fn apply_sack(&mut self, blocks: impl Iterator<Item = (u32, u32)>) -> u32 {
        let mut newly = 0;
        for (start, end) in blocks {
            let lo = start.max(self.base);
            let hi = end.min(self.end());
            for seq in lo..hi {
                let s = &mut self.slots[(seq - self.base) as usize];
                if !s.sacked {
                    s.sacked = true;
                    newly += 1;
                }
            }
        }
        self.sacked += newly;
        newly
    }

    /// RFC 2018 (8) / RFC 6675 (5.1): after an RTO the sender ignores prior SACK
    /// information.
    pub fn clear_sacks(&mut self) {
        for s in self.slots.iter_mut() {
            s.sacked = false;
        }
        self.sacked = 0;
    }

    /// The `dupthresh`-th highest SACKed segment, `T`: by RFC 6675 (4) IsLost(s) holds
    /// exactly for `s < T` (at least DupThresh SACKed segments above `s`; with whole
    /// segments the "(DupThresh - 1) * SMSS bytes" clause is the same condition).
    fn lost_bound(&self, dupthresh: u32) -> Option<u32> {
        if dupthresh == 0 {
            return Some(self.end());
        }
        let mut count = 0;
        for (i, s) in self.slots.iter().enumerate().rev() {
            if s.sacked {
                count += 1;
                if count == dupthresh {
                    return Some(self.base + i as u32);
                }
            }
        }
        None
    }

    /// RFC 6675 (4) IsLost(seq).
    pub fn is_lost(&self, seq: u32, dupthresh: u32) -> bool {
        !self.is_sacked(seq) && self.lost_bound(dupthresh).is_some_and(|t| seq < t)
    }

    /// One past the highest SACKed segment, if any.
    pub fn high_sacked(&self) -> Option<u32> {
        self.slots
            .iter()
            .rposition(|s| s.sacked)
            .map(|i| self.base + i as u32 + 1)
    }

    /// RFC 6675 (4) SetPipe(): for every un-SACKed outstanding segment, one if it is not
    /// lost, plus one if it was retransmitted in this recovery (`seq <= high_rxt`).
    pub fn pipe(&self, high_rxt: Option<u32>, dupthresh: u32) -> u32 {
        let lost_below = self.lost_bound(dupthresh).unwrap_or(self.base);
        let mut pipe = 0;
        for (i, s) in self.slots.iter().enumerate() {
            if s.sacked {
                continue;
            }
            let seq = self.base + i as u32;
            if seq >= lost_below {
                pipe += 1;
            }
            if high_rxt.is_some_and(|h| seq <= h) {
                pipe += 1;
            }
        }
        pipe
    }

    /// RFC 6675 (4) NextSeg() rule 1: the first un-SACKed segment above HighRxt that
    /// IsLost().
    pub fn next_lost(&self, high_rxt: Option<u32>, dupthresh: u32) -> Option<u32> {
        let bound = self.lost_bound(dupthresh)?;
        self.first_unsacked_between(high_rxt, bound)
    }

    /// RFC 6675 (4) NextSeg() rule 3: the first un-SACKed segment above HighRxt that lies
    /// below the highest SACKed segment (rule 1 without IsLost).
    pub fn next_unsacked_below_high_sack(&self, high_rxt: Option<u32>) -> Option<u32> {
        let bound = self.high_sacked()?;
        self.first_unsacked_between(high_rxt, bound)
    }

    /// RFC 6675 (4) NextSeg() rule 4: the highest outstanding un-SACKed segment.
    pub fn highest_unsacked(&self) -> Option<u32> {
        self.slots
            .iter()
            .rposition(|s| !s.sacked)
            .map(|i| self.base + i as u32)
    }

    fn first_unsacked_between(&self, after: Option<u32>, below: u32) -> Option<u32> {
        let lo = match after {
            Some(h) => h.saturating_add(1).max(self.base),
            None => self.base,
        };
        (lo..below.min(self.end())).find(|&seq| !self.is_sacked(seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten segments 0..10 outstanding; SACKs for 2, 4, 6..8 (holes 0, 1, 3, 5, 8, 9).
    fn board() -> Scoreboard {
        let mut b = Scoreboard::with_capacity(16);
        for seq in 0..10 {
            b.on_send(seq, Time::from_millis(seq as u64));
        }
        let n = b.apply_sack([(2, 3), (4, 5), (6, 8)].into_iter());
        assert_eq!(n, 4);
        b
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_above() {
        let b = board();
        // SACKed above: seq 0 -> 4, 1 -> 4, 3 -> 3, 5 -> 2, 8 -> 0.
        assert!(b.is_lost(0, 3));
        assert!(b.is_lost(1, 3));
        assert!(b.is_lost(3, 3));
        assert!(!b.is_lost(5, 3));
        assert!(!b.is_lost(8, 3));
        assert!(!b.is_lost(2, 3)); // SACKed segments are never lost
    }

    #[test]
    fn pipe_counts_unsacked_not_lost_and_retransmitted() {
        let b = board();
        // Not lost and un-SACKed: 5, 8, 9 -> 3. Retransmitted 0 and 1: +2.
        assert_eq!(b.pipe(None, 3), 3);
        assert_eq!(b.pipe(Some(1), 3), 5);
    }

    #[test]
    fn next_seg_rules() {
        let b = board();
        assert_eq!(b.next_lost(None, 3), Some(0));
        assert_eq!(b.next_lost(Some(1), 3), Some(3));
        assert_eq!(b.next_lost(Some(3), 3), None);
        assert_eq!(b.next_unsacked_below_high_sack(Some(3)), Some(5));
        assert_eq!(b.next_unsacked_below_high_sack(Some(5)), None);
        assert_eq!(b.highest_unsacked(), Some(9));
    }

    #[test]
    fn advance_reports_karn_ambiguity() {
        let mut b = board();
        b.on_send(0, Time::from_millis(50));
        let a = b.advance(2);
        assert_eq!(a.segments, 2);
        assert!(a.any_retransmitted);
        assert_eq!(a.newest_sent_at, Some(Time::from_millis(1)));
        let a = b.advance(3);
        assert!(!a.any_retransmitted);
        assert_eq!(b.sacked_count(), 3);
        assert_eq!(b.advance(100).segments, 7);
        assert_eq!(b.sacked_count(), 0);
        assert_eq!(b.base(), 10);
    }
}
