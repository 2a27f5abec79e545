//! The TCP receiver as a pure state machine: cumulative ACKs, RFC 2018 SACK blocks, delayed
//! ACK (RFC 5681 4.2, RFC 1122 4.2.3.2) and ECN echo (RFC 3168 6.1.3).

use airqueue_kernel::Time;

use crate::wire::{SackBlocks, TcpAck, TcpData, MAX_SACK_BLOCKS};
use crate::{Outbox, TimerCmd};

/// Receiver parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// RFC 2018: report SACK blocks (on by default; a NewReno sender simply ignores them,
    /// but they still cost bytes on the air, so scenarios turn it off for non-SACK flows).
    pub sack: bool,
    /// RFC 5681 (4.2): delay ACKs for in-order data (off by default).
    pub delayed_ack: bool,
    /// RFC 5681 (4.2): ACK at least every this many full-sized segments (2).
    pub ack_every: u32,
    /// RFC 1122 (4.2.3.2): delayed-ACK timer, well under the 500 ms limit; 200 ms.
    pub delack_timeout: Time,
    /// Receive window in segments: a segment at or beyond `rcv_nxt + window` is not
    /// acceptable (RFC 9293 3.10.7.4) and is dropped with an immediate ACK. This bounds the
    /// out-of-order buffer whatever the input.
    pub window: u32,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            sack: true,
            delayed_ack: false,
            ack_every: 2,
            delack_timeout: Time::from_millis(200),
            window: 65_535,
        }
    }
}

/// Counters for per-flow traces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub segments_received: u64,
    /// Segments already received (below `rcv_nxt` or already buffered).
    pub duplicates: u64,
    /// Segments that arrived above a hole.
    pub out_of_order: u64,
    /// Segments outside the receive window, dropped.
    pub out_of_window: u64,
    pub ce_received: u64,
    pub acks_sent: u64,
}

/// The TCP receiver. See the module documentation.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    cfg: ReceiverConfig,
    /// Next expected segment (RCV.NXT).
    rcv_nxt: u32,
    /// Out-of-order data above `rcv_nxt`: sorted, disjoint, non-adjacent `[start, end)`.
    ooo: Vec<(u32, u32)>,
    /// Recently received out-of-order segments, most recent first (RFC 2018 (4) order).
    recent: [Option<u32>; MAX_SACK_BLOCKS],
    /// RFC 7323 (4.3): TS.Recent.
    ts_recent: Option<Time>,
    /// RFC 7323 (4.3): Last.ACK.sent.
    last_ack_sent: u32,
    /// RFC 3168 (6.1.3): echo ECE until a CWR arrives.
    ece: bool,
    /// In-order segments received since the last ACK.
    unacked: u32,
    delack_deadline: Option<Time>,
    delivered: u64,
    stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        TcpReceiver {
            cfg: ReceiverConfig {
                ack_every: cfg.ack_every.max(1),
                window: cfg.window.max(1),
                ..cfg
            },
            rcv_nxt: 0,
            ooo: Vec::with_capacity(8),
            recent: [None; MAX_SACK_BLOCKS],
            ts_recent: None,
            last_ack_sent: 0,
            ece: false,
            unacked: 0,
            delack_deadline: None,
            delivered: 0,
            stats: ReceiverStats::default(),
        }
    }

    pub fn config(&self) -> &ReceiverConfig {
        &self.cfg
    }
    /// Next expected segment.
    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }
    /// Segments delivered in order to the application so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    /// The out-of-order ranges held, lowest first.
    pub fn out_of_order(&self) -> &[(u32, u32)] {
        &self.ooo
    }
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
    /// Whether ACKs currently carry ECE.
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// Processes one data segment; returns how many segments became deliverable in order
    /// (for the application). ACKs and delayed-ACK timer commands go to `out`.
    pub fn on_data(&mut self, seg: &TcpData, now: Time, out: &mut Outbox<TcpAck>) -> u32 {
        self.stats.segments_received += 1;
        // RFC 3168 (6.1.3): CWR stops the echo; a CE mark (re)starts it.
        if seg.cwr {
            self.ece = false;
        }
        if seg.ect && seg.ce {
            self.ece = true;
            self.stats.ce_received += 1;
        }
        if seg.timestamps && self.ts_recent.is_none() {
            self.ts_recent = Some(seg.sent_at);
        }
        let seq = seg.seq;

        // RFC 9293 (3.10.7.4): unacceptable segments are answered with an ACK.
        if seq >= self.rcv_nxt.saturating_add(self.cfg.window) {
            self.stats.out_of_window += 1;
            self.send_ack(now, out);
            return 0;
        }
        // A duplicate: RFC 5681 (4.2) immediate ACK.
        if seq < self.rcv_nxt || self.buffered(seq) {
            self.stats.duplicates += 1;
            self.send_ack(now, out);
            return 0;
        }

        if seq > self.rcv_nxt {
            // RFC 5681 (4.2): an out-of-order segment is acknowledged immediately, with
            // its block first (RFC 2018 (4)).
            self.stats.out_of_order += 1;
            let range = self.insert_ooo(seq);
            self.note_recent(seq, range);
            self.send_ack(now, out);
            return 0;
        }

        // In order. RFC 7323 (4.3): TS.Recent from the segment at Last.ACK.sent.
        if seg.timestamps && seq == self.last_ack_sent {
            self.ts_recent = Some(seg.sent_at);
        }
        let filled_gap = !self.ooo.is_empty();
        self.rcv_nxt += 1;
        if let Some(&(start, end)) = self.ooo.first() {
            if start == self.rcv_nxt {
                self.rcv_nxt = end;
                self.ooo.remove(0);
            }
        }
        let delivered = self.rcv_nxt - seq;
        self.delivered += delivered as u64;

        if filled_gap || !self.cfg.delayed_ack {
            // RFC 5681 (4.2): a segment filling all or part of a gap is ACKed at once.
            self.send_ack(now, out);
        } else {
            // RFC 5681 (4.2) / RFC 1122 (4.2.3.2): ACK every second full-sized segment,
            // and within the delayed-ACK timeout otherwise.
            self.unacked += 1;
            if self.unacked >= self.cfg.ack_every {
                self.send_ack(now, out);
            } else if self.delack_deadline.is_none() {
                let d = now.saturating_add(self.cfg.delack_timeout);
                self.delack_deadline = Some(d);
                out.timer = Some(TimerCmd::Arm(d));
            }
        }
        delivered
    }

    /// The delayed-ACK timer fired. Stale expiries are ignored.
    pub fn on_delack_timer(&mut self, now: Time, out: &mut Outbox<TcpAck>) {
        match self.delack_deadline {
            Some(d) if now >= d => {
                self.delack_deadline = None;
                self.send_ack(now, out);
            }
            _ => {}
        }
    }

    fn buffered(&self, seq: u32) -> bool {
        self.find_range(seq).is_some()
    }

    fn find_range(&self, seq: u32) -> Option<(u32, u32)> {
        let i = self.ooo.partition_point(|&(start, _)| start <= seq);
        let &(start, end) = self.ooo.get(i.checked_sub(1)?)?;
        (seq >= start && seq < end).then_some((start, end))
    }

    /// Adds `seq` (not yet held, above `rcv_nxt`) to the out-of-order ranges, merging with
    /// neighbours; returns the range that now holds it.
    fn insert_ooo(&mut self, seq: u32) -> (u32, u32) {
        let i = self.ooo.partition_point(|&(start, _)| start <= seq);
        let joins_prev = i > 0 && self.ooo[i - 1].1 == seq;
        let joins_next = i < self.ooo.len() && self.ooo[i].0 == seq + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.ooo[i - 1].1 = self.ooo[i].1;
                self.ooo.remove(i);
                self.ooo[i - 1]
            }
            (true, false) => {
                self.ooo[i - 1].1 = seq + 1;
                self.ooo[i - 1]
            }
            (false, true) => {
                self.ooo[i].0 = seq;
                self.ooo[i]
            }
            (false, false) => {
                self.ooo.insert(i, (seq, seq + 1));
                self.ooo[i]
            }
        }
    }

    /// RFC 2018 (4): the newest segment's block goes first; older reported blocks follow,
    /// minus those merged into the newest.
    fn note_recent(&mut self, seq: u32, (start, end): (u32, u32)) {
        let mut next = [None; MAX_SACK_BLOCKS];
        next[0] = Some(seq);
        let mut n = 1;
        for s in self.recent.iter().flatten() {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if *s < start || *s >= end {
                next[n] = Some(*s);
                n += 1;
            }
        }
        self.recent = next;
    }

    /// RFC 2018 (4): first the block of the most recent segment, then the most recently
    /// reported other blocks, then any other held ranges (highest first) to fill the option.
    fn sack_blocks(&self) -> SackBlocks {
        let mut blocks = SackBlocks::EMPTY;
        if !self.cfg.sack {
            return blocks;
        }
        for s in self.recent.iter().flatten() {
            if let Some(r) = self.find_range(*s) {
                if !blocks.as_slice().contains(&r) {
                    blocks.push(r);
                }
            }
        }
        for r in self.ooo.iter().rev() {
            if blocks.len() == MAX_SACK_BLOCKS {
                break;
            }
            if !blocks.as_slice().contains(r) {
                blocks.push(*r);
            }
        }
        blocks
    }

    fn send_ack(&mut self, now: Time, out: &mut Outbox<TcpAck>) {
        if self.delack_deadline.take().is_some() {
            out.timer = Some(TimerCmd::Cancel);
        }
        self.unacked = 0;
        self.last_ack_sent = self.rcv_nxt;
        self.stats.acks_sent += 1;
        out.items.push(TcpAck {
            cumulative: self.rcv_nxt,
            sack: self.sack_blocks(),
            ece: self.ece,
            tsecr: self.ts_recent,
            sent_at: now,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seg(seq: u32) -> TcpData {
        TcpData {
            seq,
            payload_bytes: 1000,
            retransmission: false,
            sent_at: Time::from_millis(seq as u64),
            timestamps: false,
            cwr: false,
            ect: true,
            ce: false,
        }
    }

    fn rx(cfg: ReceiverConfig) -> (TcpReceiver, Outbox<TcpAck>) {
        (TcpReceiver::new(cfg), Outbox::new())
    }

    /// Delivers `seqs` in turn and returns the last ACK sent.
    #[track_caller]
    fn feed(r: &mut TcpReceiver, out: &mut Outbox<TcpAck>, seqs: &[u32]) -> TcpAck {
        for &s in seqs {
            r.on_data(&seg(s), Time::ZERO, out);
        }
        *out.items.last().expect("an ACK")
    }

    #[test]
    fn in_order_acks_every_segment_by_default() {
        let (mut r, mut out) = rx(ReceiverConfig::default());
        for s in 0..5 {
            assert_eq!(r.on_data(&seg(s), Time::ZERO, &mut out), 1);
        }
        let cums: Vec<u32> = out.items.iter().map(|a| a.cumulative).collect();
        assert_eq!(cums, vec![1, 2, 3, 4, 5]);
        assert!(out.items.iter().all(|a| a.sack.is_empty()));
        assert_eq!(r.delivered(), 5);
    }

    #[test]
    fn sack_blocks_most_recent_first() {
        // Timeline: 0 arrives, 1 lost, then 2, 4, 6, 3 (merges 2..5), 8.
        let (mut r, mut out) = rx(ReceiverConfig::default());
        feed(&mut r, &mut out, &[0]);
        let a = feed(&mut r, &mut out, &[2]);
        assert_eq!((a.cumulative, a.sack.as_slice()), (1, &[(2, 3)][..]));
        let a = feed(&mut r, &mut out, &[4]);
        assert_eq!(a.sack.as_slice(), &[(4, 5), (2, 3)]);
        let a = feed(&mut r, &mut out, &[6]);
        assert_eq!(a.sack.as_slice(), &[(6, 7), (4, 5), (2, 3)]);
        let a = feed(&mut r, &mut out, &[3]);
        assert_eq!(a.sack.as_slice(), &[(2, 5), (6, 7)]);
        let a = feed(&mut r, &mut out, &[8]);
        assert_eq!(a.sack.as_slice(), &[(8, 9), (2, 5), (6, 7)]);
        let a = feed(&mut r, &mut out, &[10]);
        // Only three fit: the oldest reported block (6..7) gives way.
        assert_eq!(a.sack.as_slice(), &[(10, 11), (8, 9), (2, 5)]);
        // The hole at 1 is filled: everything up to 5 is delivered at once.
        assert_eq!(r.on_data(&seg(1), Time::ZERO, &mut out), 4);
        let a = *out.items.last().unwrap();
        assert_eq!(a.cumulative, 5);
        assert_eq!(a.sack.as_slice(), &[(10, 11), (8, 9), (6, 7)]);
        assert_eq!(r.out_of_order(), &[(6, 7), (8, 9), (10, 11)]);
    }

    #[test]
    fn duplicates_are_acked_and_not_delivered_twice() {
        let (mut r, mut out) = rx(ReceiverConfig::default());
        feed(&mut r, &mut out, &[0, 1, 3]);
        assert_eq!(r.on_data(&seg(1), Time::ZERO, &mut out), 0);
        assert_eq!(r.on_data(&seg(3), Time::ZERO, &mut out), 0);
        assert_eq!(r.stats().duplicates, 2);
        assert_eq!(out.items.len(), 5);
        assert_eq!(r.delivered(), 2);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        // 0 ---- 1 ---- (ACK 2) ---- 2 ---- ... 200 ms ... (ACK 3)
        let cfg = ReceiverConfig {
            delayed_ack: true,
            ..ReceiverConfig::default()
        };
        let (mut r, mut out) = rx(cfg);
        let t0 = Time::from_millis(10);
        r.on_data(&seg(0), t0, &mut out);
        assert!(out.items.is_empty());
        assert_eq!(out.timer, Some(TimerCmd::Arm(t0 + Time::from_millis(200))));
        r.on_data(&seg(1), t0 + Time::from_millis(1), &mut out);
        assert_eq!(out.items.len(), 1);
        assert_eq!(out.items[0].cumulative, 2);
        assert_eq!(out.timer, Some(TimerCmd::Cancel));
        out.clear();
        r.on_data(&seg(2), Time::from_millis(20), &mut out);
        assert!(out.items.is_empty());
        // A stale or early expiry does nothing.
        r.on_delack_timer(Time::from_millis(100), &mut out);
        assert!(out.items.is_empty());
        r.on_delack_timer(Time::from_millis(220), &mut out);
        assert_eq!(out.items.len(), 1);
        assert_eq!(out.items[0].cumulative, 3);
        out.clear();
        // Out-of-order and gap-filling segments are ACKed at once.
        r.on_data(&seg(4), Time::from_millis(300), &mut out);
        assert_eq!(out.items.len(), 1);
        r.on_data(&seg(3), Time::from_millis(301), &mut out);
        assert_eq!(out.items.len(), 2);
        assert_eq!(out.items[1].cumulative, 5);
    }

    #[test]
    fn ecn_echo_until_cwr() {
        let (mut r, mut out) = rx(ReceiverConfig::default());
        assert!(!feed(&mut r, &mut out, &[0]).ece);
        let mut marked = seg(1);
        marked.ce = true;
        r.on_data(&marked, Time::ZERO, &mut out);
        assert!(out.items.last().unwrap().ece);
        assert!(feed(&mut r, &mut out, &[2, 3]).ece);
        let mut cwr = seg(4);
        cwr.cwr = true;
        r.on_data(&cwr, Time::ZERO, &mut out);
        assert!(!out.items.last().unwrap().ece);
        assert!(!feed(&mut r, &mut out, &[5]).ece);
    }

    #[test]
    fn timestamps_echo_left_edge_segment() {
        let cfg = ReceiverConfig {
            delayed_ack: true,
            ..ReceiverConfig::default()
        };
        let (mut r, mut out) = rx(cfg);
        let s = |seq: u32, at: u64| TcpData {
            timestamps: true,
            sent_at: Time::from_millis(at),
            ..seg(seq)
        };
        r.on_data(&s(0, 100), Time::ZERO, &mut out);
        r.on_data(&s(1, 101), Time::ZERO, &mut out);
        // RFC 7323 (4.3): a delayed ACK echoes the earlier segment.
        assert_eq!(out.items[0].tsecr, Some(Time::from_millis(100)));
        r.on_data(&s(3, 103), Time::ZERO, &mut out);
        assert_eq!(out.items[1].tsecr, Some(Time::from_millis(100)));
        r.on_data(&s(2, 150), Time::ZERO, &mut out);
        assert_eq!(out.items[2].tsecr, Some(Time::from_millis(150)));
    }

    #[test]
    fn out_of_window_segments_are_dropped() {
        let (mut r, mut out) = rx(ReceiverConfig {
            window: 4,
            ..ReceiverConfig::default()
        });
        let a = feed(&mut r, &mut out, &[u32::MAX, 4]);
        assert_eq!(a.cumulative, 0);
        assert!(a.sack.is_empty());
        assert_eq!(r.stats().out_of_window, 2);
    }

    proptest! {
        /// Any arrival order, with duplicates and garbage, delivers each segment once and
        /// in order, keeps the buffer sorted and disjoint, and SACK blocks name held data.
        #[test]
        fn any_arrival_order_delivers_once(
            order in proptest::collection::vec(0u32..60, 0..300),
            delayed_ack in any::<bool>(),
        ) {
            let (mut r, mut out) = rx(ReceiverConfig { delayed_ack, ..ReceiverConfig::default() });
            let mut delivered = 0u64;
            for (i, s) in order.iter().chain((0..60).collect::<Vec<_>>().iter()).enumerate() {
                delivered += r.on_data(&seg(*s), Time::from_millis(i as u64), &mut out) as u64;
                let ooo = r.out_of_order();
                prop_assert!(ooo.windows(2).all(|w| w[0].1 < w[1].0));
                prop_assert!(ooo.first().is_none_or(|&(a, _)| a > r.rcv_nxt()));
                if let Some(a) = out.items.last() {
                    for (lo, hi) in a.sack.iter() {
                        prop_assert!(lo >= a.cumulative && lo < hi);
                    }
                }
                out.items.clear();
            }
            prop_assert_eq!(delivered, 60);
            prop_assert_eq!(r.delivered(), 60);
            prop_assert_eq!(r.rcv_nxt(), 60);
        }
    }
}
