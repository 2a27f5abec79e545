//! The network-coding (NC) layer of TCP-aware backpressure (seed 002, sections 4.1.3 and
//! 4.2.1): generation-based random linear coding at the edges of the wireless network,
//! below an unmodified TCP.
//!
//! - **Encoder** (at the source): segment `s` of block `b = s / H` first leaves as `a_k`,
//!   a combination of the block's packets `1..=k`, `k = s - bH + 1` (coded incrementally,
//!   nothing waits for the block to fill); a TCP retransmission or a repair combines all
//!   the block has coded so far.
//! - **Decoder** (at the destination): ACKs every packet with its frontier (newest block,
//!   its rank), which the encoder turns into TCP's cumulative ACK of the `rank`-th segment
//!   ("matches this ACK to packet eta_1 ..."): losses and reordering in the network are
//!   masked from TCP. Blocks are released in order once full rank.
//! - **Repair** ("a request with the block ID and the number of missing packets"): a gap
//!   (rank below the highest degree heard, or below the block size once a newer block
//!   began) still open `repair_delay` later is requested, with exponential backoff;
//!   asking within the newest block keeps TCP's window from stalling until its RTO.
//! - **Edge congestion is not masked** (4.2.1): a segment the source's own queue dropped
//!   is withheld from the ACKs built for TCP until TCP retransmits it.
//!
//! Coding is not carried out: over a large field (the paper's assumption) only *whether*
//! a packet adds a degree of freedom matters. Combinations with prefix supports `1..=d_j`
//! have rank `min over t of (t + #{j : d_j > t})` (König's theorem); a packet that leaves
//! the rank unchanged is dropped (`DropReason::CodingRedundancy`). A coded TCP flow's
//! endpoint (`tcp.rs`) turns the machines' outputs into packets and timers.

use std::collections::VecDeque;

use airqueue_kernel::Time;
use airqueue_tcp::{SackBlocks, TcpAck, TcpData, TimerCmd};

pub use crate::net::headers::{
    CodedData, CodingFeedback, FeedbackKind, CODING_FEEDBACK_BYTES, CODING_HEADER_BYTES,
    CODING_TSECR_BYTES,
};

/// Longest backoff between two repair requests for the same block, in `repair_delay`s.
const MAX_REQUEST_BACKOFF_SHIFT: u32 = 4;

/// Settings of a flow's NC layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodingConfig {
    /// `H`: packets per block (generation). The paper sets it to TCP's congestion window
    /// or its average (4.1.3).
    pub block_pkts: u16,
    /// How long a block may stay short of full rank after a newer block was heard of
    /// before the decoder asks for repair (the paper does not say when it asks).
    pub repair_delay: Time,
}

impl Default for CodingConfig {
    fn default() -> Self {
        CodingConfig {
            block_pkts: 32,
            repair_delay: Time::from_millis(200),
        }
    }
}

/// Counters of a flow's NC layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodingStats {
    /// Coded packets made from TCP transmissions (retransmissions included).
    pub coded_packets: u64,
    /// Repair packets sent on the decoder's request, or to close a cut block.
    pub repair_packets: u64,
    /// Repair requests the decoder sent.
    pub repair_requests: u64,
    /// Packets the decoder found redundant (no new degree of freedom).
    pub redundant_packets: u64,
    /// Blocks decoded and released to the application.
    pub blocks_decoded: u64,
    /// Segments dropped by the source's queue and left unmasked for TCP (4.2.1).
    pub unmasked_losses: u64,
}

/// The edge (source) side: codes TCP's segments, turns the decoder's feedback into TCP
/// ACKs, and makes repairs.
#[derive(Clone, Debug)]
pub struct CodingEncoder {
    block_pkts: u16,
    /// The newest block TCP has sent into, and how many of its packets are coded.
    current_block: u32,
    coded_in_current: u16,
    /// A cut block's size (the application stopped inside it).
    cut_size: Option<u16>,
    /// Segments of a finite transfer: its last block holds what is left (`None`:
    /// unbounded).
    transfer_pkts: Option<u32>,
    /// Highest position (`block * H + rank`) the decoder has reported.
    highest_ack: u32,
    /// The cumulative ACK last handed to TCP.
    last_cumulative: u32,
    /// Segments dropped by the source's queue that TCP has not retransmitted yet,
    /// ascending. Short: it holds one entry per edge drop within a window.
    holes: Vec<u32>,
    stats: CodingStats,
}

impl CodingEncoder {
    pub fn new(cfg: &CodingConfig) -> Self {
        CodingEncoder {
            block_pkts: cfg.block_pkts.max(1),
            current_block: 0,
            coded_in_current: 0,
            cut_size: None,
            transfer_pkts: None,
            highest_ack: 0,
            last_cumulative: 0,
            holes: Vec::new(),
            stats: CodingStats::default(),
        }
    }

    /// An encoder for a transfer of `transfer_pkts` segments (`None`: unbounded), whose
    /// last block is short when the size is not a multiple of the block.
    pub fn for_transfer(cfg: &CodingConfig, transfer_pkts: Option<u32>) -> Self {
        CodingEncoder {
            transfer_pkts,
            ..CodingEncoder::new(cfg)
        }
    }

    pub fn stats(&self) -> CodingStats {
        self.stats
    }

    fn h(&self) -> u32 {
        self.block_pkts as u32
    }

    /// Packets coded so far in `block` (all of them for a block TCP has left).
    fn coded_in(&self, block: u32) -> u16 {
        match block.cmp(&self.current_block) {
            std::cmp::Ordering::Less => self.block_pkts,
            std::cmp::Ordering::Equal => self.coded_in_current,
            std::cmp::Ordering::Greater => 0,
        }
    }

    fn size_of(&self, block: u32) -> u16 {
        let left = self
            .transfer_pkts
            .map_or(u32::MAX, |n| n.saturating_sub(block * self.h()));
        match self.cut_size {
            Some(n) if block == self.current_block => n,
            _ => self.block_pkts.min(left.min(u16::MAX as u32) as u16),
        }
    }

    /// The coded packet for a segment TCP sends. A first transmission extends its block by
    /// one packet; a retransmission becomes a fresh combination of its block and lifts
    /// the segment's hole, if the source's queue had dropped it.
    pub fn encode(&mut self, seg: &TcpData) -> CodedData {
        let block = seg.seq / self.h();
        let k = (seg.seq % self.h()) as u16 + 1;
        if let Ok(i) = self.holes.binary_search(&seg.seq) {
            self.holes.remove(i);
        }
        if block > self.current_block {
            self.current_block = block;
            self.coded_in_current = 0;
            self.cut_size = None;
        }
        if block == self.current_block && k > self.coded_in_current {
            self.coded_in_current = k;
        }
        self.stats.coded_packets += 1;
        CodedData {
            seg: *seg,
            block,
            degree: self.coded_in(block).max(k),
            block_size: self.size_of(block),
            repair: false,
        }
    }

    /// A fresh combination of everything `block` has coded, sent by the NC layer itself
    /// (`None` for a block that has nothing coded yet). `template` gives the payload size
    /// and TCP options of the stand-in segment.
    pub fn repair(&mut self, block: u32, template: &TcpData, now: Time) -> Option<CodedData> {
        let degree = self.coded_in(block);
        if degree == 0 {
            return None;
        }
        self.stats.repair_packets += 1;
        Some(CodedData {
            seg: TcpData {
                seq: block * self.h() + degree as u32 - 1,
                retransmission: true,
                sent_at: now,
                cwr: false,
                ect: false,
                ce: false,
                ..*template
            },
            block,
            degree,
            block_size: self.size_of(block),
            repair: true,
        })
    }

    /// The application stopped: the current block ends with what it has coded. Returns
    /// that block if it is cut short, so the caller sends one closing repair that tells
    /// the decoder its size.
    pub fn cut(&mut self) -> Option<u32> {
        if self.coded_in_current == 0 || self.coded_in_current == self.block_pkts {
            return None;
        }
        self.cut_size = Some(self.coded_in_current);
        Some(self.current_block)
    }

    /// The source's own queue dropped `d` (4.2.1): a segment TCP sent is not masked, so TCP
    /// learns of the congestion. A segment the decoder's ACKs already cover stays masked
    /// (TCP took it as delivered; the block's repair recovers it).
    pub fn on_source_drop(&mut self, d: &CodedData) {
        if d.repair || d.seg.seq < self.highest_ack {
            return;
        }
        if let Err(i) = self.holes.binary_search(&d.seg.seq) {
            self.holes.insert(i, d.seg.seq);
            self.stats.unmasked_losses += 1;
        }
    }

    /// Decoder feedback. An ACK that moves the frontier, or that lets TCP's cumulative
    /// ACK move because a hole was retransmitted, becomes a TCP ACK (`Some`); an older
    /// or repeated one is absorbed, so reordering never shows up as duplicate ACKs. A
    /// repair request returns nothing here: the caller asks [`CodingEncoder::repair`]
    /// `fb.count` times.
    pub fn on_feedback(&mut self, fb: &CodingFeedback, now: Time) -> Option<TcpAck> {
        if fb.kind != FeedbackKind::Ack {
            return None;
        }
        let pos = fb.block * self.h() + fb.count as u32;
        let advanced = pos > self.highest_ack;
        self.highest_ack = self.highest_ack.max(pos);
        let ack = self.tcp_ack(fb.tsecr, now);
        if !advanced && ack.cumulative <= self.last_cumulative {
            return None;
        }
        self.last_cumulative = ack.cumulative;
        Some(ack)
    }

    /// TCP's view of the decoder's frontier: everything below it is acknowledged except
    /// the unmasked holes; the runs between holes are SACK blocks, the newest first
    /// (RFC 2018 (4)).
    fn tcp_ack(&self, tsecr: Option<Time>, now: Time) -> TcpAck {
        let top = self.highest_ack;
        let below: &[u32] = match self.holes.binary_search(&top) {
            Ok(i) | Err(i) => &self.holes[..i],
        };
        let mut sack = SackBlocks::EMPTY;
        let mut end = top;
        for &h in below.iter().rev() {
            sack.push((h + 1, end));
            end = h;
        }
        TcpAck {
            cumulative: below.first().copied().unwrap_or(top),
            sack,
            ece: false,
            tsecr,
            sent_at: now,
        }
    }
}

/// One block at the decoder.
#[derive(Clone, Debug)]
struct BlockRx {
    size: u16,
    rank: u16,
    /// `degrees[d]`: packets kept whose degree is `d` (index 0 unused).
    degrees: Vec<u16>,
    /// Highest degree heard of: the encoder has coded at least this many packets.
    max_degree: u16,
    /// When to ask for repair next (set while the block is known to miss packets).
    request_at: Option<Time>,
    requests: u32,
}

impl BlockRx {
    fn decoded(&self) -> bool {
        self.rank >= self.size
    }

    /// Degrees of freedom known to be missing: of a block older than the frontier, all
    /// it lacks (the encoder has moved on, so it coded the whole block); of the frontier
    /// block, the packets its highest degree shows were sent but are not in its rank.
    fn deficit(&self, older: bool) -> u16 {
        let sent = if older {
            self.size
        } else {
            self.max_degree.min(self.size)
        };
        sent.saturating_sub(self.rank)
    }

    /// `min over t of (t + #{packets of degree > t})`, over `t` in `0..=size`.
    fn rank_now(&self) -> u16 {
        let size = self.size as usize;
        let mut above: u32 = self.degrees[size + 1..].iter().map(|&c| c as u32).sum();
        let mut best = size as u32 + above;
        for t in (0..size).rev() {
            above += self.degrees[t + 1] as u32;
            best = best.min(t as u32 + above);
        }
        best as u16
    }
}

/// What the decoder did with an arriving coded packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The packet added a degree of freedom (else it is discarded as redundant).
    pub innovative: bool,
    /// Segments released in order to the application by this arrival.
    pub released_pkts: u32,
    /// The ACK to send back (always one per arrival: a lost ACK is made good by the next).
    pub ack: CodingFeedback,
}

/// The receiving side: ranks, decoding, in-order release, ACKs and repair requests.
#[derive(Clone, Debug)]
pub struct CodingDecoder {
    block_pkts: u16,
    repair_delay: Time,
    /// The oldest block not yet released; `blocks[0]` is it.
    base_block: u32,
    blocks: VecDeque<BlockRx>,
    /// Newest block heard of, and its rank.
    frontier: u32,
    frontier_rank: u16,
    /// Spare degree tables of released blocks (no allocation per block in steady state).
    spare: Vec<Vec<u16>>,
    deadline: Option<Time>,
    released_pkts: u64,
    stats: CodingStats,
}

impl CodingDecoder {
    pub fn new(cfg: &CodingConfig) -> Self {
        CodingDecoder {
            block_pkts: cfg.block_pkts.max(1),
            repair_delay: cfg.repair_delay,
            base_block: 0,
            blocks: VecDeque::new(),
            frontier: 0,
            frontier_rank: 0,
            spare: Vec::new(),
            deadline: None,
            released_pkts: 0,
            stats: CodingStats::default(),
        }
    }

    pub fn stats(&self) -> CodingStats {
        self.stats
    }

    /// Segments released to the application so far.
    pub fn released(&self) -> u64 {
        self.released_pkts
    }

    fn new_block(&mut self) -> BlockRx {
        let mut degrees = self.spare.pop().unwrap_or_default();
        degrees.clear();
        degrees.resize(self.block_pkts as usize + 1, 0);
        BlockRx {
            size: self.block_pkts,
            rank: 0,
            degrees,
            max_degree: 0,
            request_at: None,
            requests: 0,
        }
    }

    /// A coded packet arrived. `timer` receives the repair timer's command, if it changed.
    pub fn on_data(&mut self, d: &CodedData, now: Time, timer: &mut Option<TimerCmd>) -> Arrival {
        let mut innovative = false;
        let mut released = 0;
        if d.block >= self.base_block {
            let i = (d.block - self.base_block) as usize;
            while self.blocks.len() <= i {
                let b = self.new_block();
                self.blocks.push_back(b);
            }
            let h = self.block_pkts;
            let b = &mut self.blocks[i];
            b.size = b.size.min(d.block_size.clamp(1, h));
            let degree = d.degree.clamp(1, h) as usize;
            b.max_degree = b.max_degree.max(degree as u16);
            if !b.decoded() {
                b.degrees[degree] += 1;
                let rank = b.rank_now();
                if rank > b.rank {
                    b.rank = rank;
                    innovative = true;
                } else {
                    b.degrees[degree] -= 1;
                }
            }
            if d.block >= self.frontier {
                self.frontier = d.block;
                self.frontier_rank = self.blocks[i].rank;
            }
            released = self.release();
        }
        if !innovative {
            self.stats.redundant_packets += 1;
        }
        self.schedule_requests(now, timer);
        Arrival {
            innovative,
            released_pkts: released,
            ack: CodingFeedback {
                kind: FeedbackKind::Ack,
                block: self.frontier,
                count: self.frontier_rank,
                tsecr: d.seg.timestamps.then_some(d.seg.sent_at),
            },
        }
    }

    /// Releases the decoded blocks at the front, in order; returns their packets.
    fn release(&mut self) -> u32 {
        let mut released = 0;
        while self.blocks.front().is_some_and(BlockRx::decoded) {
            let b = self.blocks.pop_front().expect("front exists");
            released += b.size as u32;
            self.spare.push(b.degrees);
            self.base_block += 1;
            self.stats.blocks_decoded += 1;
        }
        self.released_pkts += released as u64;
        released
    }

    /// Every block known to miss packets gets a request time, `repair_delay` after the
    /// gap was first seen (packets merely reordered arrive in the meantime); a block whose
    /// gap closed loses it. The timer follows the earliest.
    fn schedule_requests(&mut self, now: Time, timer: &mut Option<TimerCmd>) {
        let older = self.frontier.saturating_sub(self.base_block) as usize;
        let mut earliest: Option<Time> = None;
        for (i, b) in self.blocks.iter_mut().enumerate() {
            if b.deficit(i < older) == 0 {
                b.request_at = None;
                continue;
            }
            let at = *b.request_at.get_or_insert(now + self.repair_delay);
            earliest = Some(earliest.map_or(at, |e| e.min(at)));
        }
        if earliest != self.deadline {
            self.deadline = earliest;
            *timer = Some(earliest.map_or(TimerCmd::Cancel, TimerCmd::Arm));
        }
    }

    /// The repair timer fired: a request for every block with a gap that is due, for the
    /// packets it misses; repeated with exponential backoff while the gap stays.
    pub fn on_timer(
        &mut self,
        now: Time,
        out: &mut Vec<CodingFeedback>,
        timer: &mut Option<TimerCmd>,
    ) {
        if self.deadline.is_none_or(|d| d > now) {
            return;
        }
        let older = self.frontier.saturating_sub(self.base_block) as usize;
        for (i, b) in self.blocks.iter_mut().enumerate() {
            let missing = b.deficit(i < older);
            if missing == 0 || b.request_at.is_none_or(|at| at > now) {
                continue;
            }
            out.push(CodingFeedback {
                kind: FeedbackKind::Repair,
                block: self.base_block + i as u32,
                count: missing,
                tsecr: None,
            });
            self.stats.repair_requests += 1;
            let backoff = 1u64 << (b.requests + 1).min(MAX_REQUEST_BACKOFF_SHIFT);
            b.requests += 1;
            b.request_at = Some(now + self.repair_delay.times(backoff));
        }
        self.deadline = None;
        self.schedule_requests(now, timer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(h: u16) -> CodingConfig {
        CodingConfig {
            block_pkts: h,
            repair_delay: Time::from_millis(100),
        }
    }

    fn seg(seq: u32, retx: bool) -> TcpData {
        TcpData {
            seq,
            payload_bytes: 1000,
            retransmission: retx,
            sent_at: Time::from_millis(seq as u64),
            timestamps: false,
            cwr: false,
            ect: false,
            ce: false,
        }
    }

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// Where a test's one missing segment went.
    #[derive(Clone, Copy, PartialEq)]
    enum Missing {
        /// Lost in the network (masked).
        Network,
        /// Dropped by the source's own queue (shown to TCP).
        Edge,
    }

    /// Segments `0..n` with blocks of `h`, all delivered at 0 ms except `missing`; returns
    /// both ends, the decoder's last timer command and the TCP ACKs the feedback made.
    fn stream(
        h: u16,
        n: u32,
        missing: u32,
        how: Missing,
    ) -> (CodingEncoder, CodingDecoder, Option<TimerCmd>, Vec<TcpAck>) {
        let (mut enc, mut dec) = (CodingEncoder::new(&cfg(h)), CodingDecoder::new(&cfg(h)));
        let mut timer = None;
        let mut acks = Vec::new();
        for s in 0..n {
            let d = enc.encode(&seg(s, false));
            if s == missing {
                if how == Missing::Edge {
                    enc.on_source_drop(&d);
                }
                continue;
            }
            let a = dec.on_data(&d, ms(0), &mut timer);
            acks.extend(enc.on_feedback(&a.ack, ms(0)));
        }
        (enc, dec, timer, acks)
    }

    fn cumulative(acks: &[TcpAck]) -> Vec<u32> {
        acks.iter().map(|a| a.cumulative).collect()
    }

    #[test]
    fn first_transmissions_code_prefixes_of_their_block() {
        let mut enc = CodingEncoder::new(&cfg(4));
        let d: Vec<_> = (0..6).map(|s| enc.encode(&seg(s, false))).collect();
        let got: Vec<_> = d.iter().map(|c| (c.block, c.degree)).collect();
        assert_eq!(got, [(0, 1), (0, 2), (0, 3), (0, 4), (1, 1), (1, 2)]);
        // A retransmission of a segment of a finished block combines the whole block.
        let r = enc.encode(&seg(1, true));
        assert_eq!((r.block, r.degree), (0, 4));
        // Of the current block: everything coded so far.
        let r = enc.encode(&seg(4, true));
        assert_eq!((r.block, r.degree), (1, 2));
    }

    #[test]
    fn header_counts_one_coefficient_byte_per_member() {
        let mut enc = CodingEncoder::new(&cfg(4));
        let d = enc.encode(&seg(2, false));
        assert_eq!(d.header_bytes(), CODING_HEADER_BYTES + 3 + 20);
    }

    /// Maximum bipartite matching between packets and the block members they combine
    /// (Kuhn's augmenting paths): the rank of generic combinations.
    fn max_matching(degrees: &[usize], size: usize) -> usize {
        fn augment(
            p: usize,
            deg: &[usize],
            seen: &mut [bool],
            owner: &mut [Option<usize>],
        ) -> bool {
            for m in 0..deg[p] {
                if !seen[m] {
                    seen[m] = true;
                    if owner[m].is_none_or(|q| augment(q, deg, seen, owner)) {
                        owner[m] = Some(p);
                        return true;
                    }
                }
            }
            false
        }
        let deg: Vec<usize> = degrees.iter().map(|&d| d.min(size)).collect();
        let mut owner = vec![None; size];
        (0..deg.len())
            .filter(|&p| augment(p, &deg, &mut vec![false; size], &mut owner))
            .count()
    }

    proptest::proptest! {
        /// The closed-form rank equals the maximum matching for any multiset of degrees.
        #[test]
        fn rank_formula_is_the_maximum_matching(
            size in 1usize..12,
            degrees in proptest::collection::vec(1usize..12, 0..20),
        ) {
            let degrees: Vec<usize> = degrees.into_iter().map(|d| d.min(size)).collect();
            let mut b = BlockRx {
                size: size as u16,
                rank: 0,
                degrees: vec![0; size + 1],
                max_degree: 0,
                request_at: None,
                requests: 0,
            };
            for &d in &degrees {
                b.degrees[d] += 1;
            }
            proptest::prop_assert_eq!(b.rank_now() as usize, max_matching(&degrees, size));
        }
    }

    #[test]
    fn lossless_stream_decodes_every_block_and_acks_each_packet() {
        let (mut enc, mut dec) = (CodingEncoder::new(&cfg(4)), CodingDecoder::new(&cfg(4)));
        let mut timer = None;
        let mut acks = Vec::new();
        let mut released = 0;
        for s in 0..8 {
            let d = enc.encode(&seg(s, false));
            let a = dec.on_data(&d, ms(s as u64), &mut timer);
            assert!(a.innovative);
            released += a.released_pkts;
            acks.push(enc.on_feedback(&a.ack, ms(s as u64)).unwrap().cumulative);
        }
        assert_eq!(acks, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(released, 8);
        assert_eq!(dec.stats().blocks_decoded, 2);
        assert_eq!(timer, None);
    }

    /// A packet lost in the network is masked: the ACKs keep advancing, the block waits
    /// for one repair, which the decoder asks for `repair_delay` after a newer block
    /// appears.
    #[test]
    fn network_loss_is_masked_and_repaired_on_request() {
        let (mut enc, mut dec) = (CodingEncoder::new(&cfg(4)), CodingDecoder::new(&cfg(4)));
        let mut timer = None;
        let mut last_ack = 0;
        let mut released = 0;
        for s in 0..6 {
            let d = enc.encode(&seg(s, false));
            if s == 1 {
                continue; // lost on the way
            }
            let a = dec.on_data(&d, ms(10), &mut timer);
            released += a.released_pkts;
            if let Some(ack) = enc.on_feedback(&a.ack, ms(10)) {
                assert!(ack.sack.is_empty());
                last_ack = ack.cumulative;
            }
        }
        // Block 0 has rank 3 of 4: nothing released, yet TCP is acknowledged up to 6.
        assert_eq!((released, last_ack), (0, 6));
        assert_eq!(timer, Some(TimerCmd::Arm(ms(110))));
        let mut reqs = Vec::new();
        let mut t2 = None;
        dec.on_timer(ms(110), &mut reqs, &mut t2);
        assert_eq!(
            reqs,
            [CodingFeedback {
                kind: FeedbackKind::Repair,
                block: 0,
                count: 1,
                tsecr: None
            }]
        );
        // Asked again after 2 x repair_delay if nothing comes.
        assert_eq!(t2, Some(TimerCmd::Arm(ms(310))));
        assert_eq!(enc.on_feedback(&reqs[0], ms(120)), None);
        let r = enc.repair(0, &seg(0, false), ms(120)).unwrap();
        assert_eq!((r.block, r.degree, r.repair), (0, 4, true));
        let a = dec.on_data(&r, ms(130), &mut t2);
        assert!(a.innovative);
        assert_eq!(a.released_pkts, 4); // block 0; block 1 still has rank 2 of 4
        assert_eq!(t2, Some(TimerCmd::Cancel));
        // A second copy of the repair is redundant.
        let again = dec.on_data(&r, ms(140), &mut t2);
        assert!(!again.innovative);
        assert_eq!(dec.stats().redundant_packets, 1);
    }

    /// Reordering is invisible to TCP: an older frontier never produces a TCP ACK.
    #[test]
    fn reordered_packets_never_yield_duplicate_acks() {
        let (mut enc, mut dec) = (CodingEncoder::new(&cfg(8)), CodingDecoder::new(&cfg(8)));
        let sent: Vec<_> = (0..8).map(|s| enc.encode(&seg(s, false))).collect();
        let mut timer = None;
        let mut acks = Vec::new();
        for i in [0usize, 3, 1, 2, 6, 4, 5, 7] {
            let a = dec.on_data(&sent[i], ms(1), &mut timer);
            assert!(a.innovative, "packet {i}");
            if let Some(ack) = enc.on_feedback(&a.ack, ms(1)) {
                acks.push(ack.cumulative);
            }
        }
        assert_eq!(acks, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(dec.stats().blocks_decoded, 1);
    }

    /// Section 4.2.1: a drop in the source's own queue shows through as a hole, with
    /// duplicate ACKs and SACK blocks above it, until TCP retransmits the segment.
    #[test]
    fn edge_drop_is_unmasked_until_retransmitted() {
        let (mut enc, mut dec, mut timer, acks) = stream(8, 5, 2, Missing::Edge);
        assert_eq!(cumulative(&acks), [1, 2, 2, 2]);
        assert_eq!(acks[3].sack.as_slice(), &[(3, 4)]);
        assert_eq!(enc.stats().unmasked_losses, 1);
        // TCP retransmits 2: the hole is gone and the retransmission fills the block.
        let r = enc.encode(&seg(2, true));
        assert_eq!(r.degree, 5);
        let a = dec.on_data(&r, ms(2), &mut timer);
        assert!(a.innovative);
        let ack = enc.on_feedback(&a.ack, ms(2)).unwrap();
        assert_eq!((ack.cumulative, ack.sack.len()), (5, 0));
    }

    /// A retransmitted hole in an older block than the frontier leaves the frontier where
    /// it is; TCP must still hear that the hole is filled, or it would time out forever.
    #[test]
    fn retransmitted_hole_behind_the_frontier_is_acknowledged() {
        let (mut enc, mut dec, mut timer, acks) = stream(2, 4, 0, Missing::Edge);
        assert_eq!(cumulative(&acks), [0, 0, 0]);
        let r = enc.encode(&seg(0, true));
        let a = dec.on_data(&r, ms(2), &mut timer);
        assert!(a.innovative);
        assert_eq!(
            (a.ack.block, a.ack.count),
            (1, 2),
            "the frontier does not move"
        );
        let ack = enc
            .on_feedback(&a.ack, ms(2))
            .expect("TCP hears of the filled hole");
        assert_eq!((ack.cumulative, ack.sack.len()), (4, 0));
        // The same frontier again is absorbed.
        assert_eq!(enc.on_feedback(&a.ack, ms(3)), None);
    }

    #[test]
    fn drop_of_an_acknowledged_segment_or_a_repair_stays_masked() {
        let mut enc = CodingEncoder::new(&cfg(4));
        let d0 = enc.encode(&seg(0, false));
        let fb = CodingFeedback {
            kind: FeedbackKind::Ack,
            block: 0,
            count: 2,
            tsecr: None,
        };
        enc.on_feedback(&fb, ms(1)).unwrap();
        enc.on_source_drop(&d0);
        let r = enc.repair(0, &seg(0, false), ms(1)).unwrap();
        enc.on_source_drop(&r);
        assert_eq!(enc.stats().unmasked_losses, 0);
    }

    /// A gap inside the newest block is repaired too: TCP's ACKs stop at the block's rank.
    #[test]
    fn gap_in_the_frontier_block_is_requested() {
        let (mut enc, mut dec, mut timer, acks) = stream(8, 4, 1, Missing::Network);
        assert_eq!(
            cumulative(&acks),
            [1, 2, 3],
            "TCP hears of 3 of the 4 segments"
        );
        assert_eq!(timer, Some(TimerCmd::Arm(ms(100))));
        let mut reqs = Vec::new();
        dec.on_timer(ms(100), &mut reqs, &mut timer);
        assert_eq!((reqs[0].block, reqs[0].count), (0, 1));
        let r = enc.repair(0, &seg(0, false), ms(100)).unwrap();
        assert_eq!(r.degree, 4);
        let a = dec.on_data(&r, ms(101), &mut timer);
        assert_eq!(enc.on_feedback(&a.ack, ms(101)).unwrap().cumulative, 4);
        assert_eq!(timer, Some(TimerCmd::Cancel));
    }

    /// A packet that was only late closes the gap before the request is due.
    #[test]
    fn late_packet_cancels_the_request() {
        let (mut enc, mut dec) = (CodingEncoder::new(&cfg(8)), CodingDecoder::new(&cfg(8)));
        let sent: Vec<_> = (0..3).map(|s| enc.encode(&seg(s, false))).collect();
        let mut timer = None;
        dec.on_data(&sent[0], ms(0), &mut timer);
        dec.on_data(&sent[2], ms(1), &mut timer);
        assert_eq!(timer, Some(TimerCmd::Arm(ms(101))));
        dec.on_data(&sent[1], ms(50), &mut timer);
        assert_eq!(timer, Some(TimerCmd::Cancel));
        let mut reqs = Vec::new();
        dec.on_timer(ms(101), &mut reqs, &mut timer);
        assert!(reqs.is_empty());
    }

    /// A finite transfer's last block is as long as what is left, so it decodes.
    #[test]
    fn last_block_of_a_finite_transfer_is_short() {
        let mut enc = CodingEncoder::for_transfer(&cfg(4), Some(6));
        let mut dec = CodingDecoder::new(&cfg(4));
        let mut timer = None;
        let mut released = 0;
        for s in 0..6 {
            let d = enc.encode(&seg(s, false));
            assert_eq!(d.block_size, if s < 4 { 4 } else { 2 });
            released += dec.on_data(&d, ms(1), &mut timer).released_pkts;
        }
        assert_eq!(released, 6);
        assert_eq!(dec.stats().blocks_decoded, 2);
    }

    #[test]
    fn cut_block_is_closed_with_its_real_size() {
        let (mut enc, mut dec) = (CodingEncoder::new(&cfg(8)), CodingDecoder::new(&cfg(8)));
        let mut timer = None;
        let mut released = 0;
        for s in 0..3 {
            let d = enc.encode(&seg(s, false));
            released += dec.on_data(&d, ms(1), &mut timer).released_pkts;
        }
        assert_eq!(released, 0);
        assert_eq!(enc.cut(), Some(0));
        let close = enc.repair(0, &seg(0, false), ms(2)).unwrap();
        assert_eq!((close.block_size, close.degree), (3, 3));
        let a = dec.on_data(&close, ms(2), &mut timer);
        assert!(!a.innovative);
        assert_eq!(a.released_pkts, 3);
    }

    #[test]
    fn repeated_requests_back_off_exponentially() {
        let mut dec = CodingDecoder::new(&cfg(2));
        let mut enc = CodingEncoder::new(&cfg(2));
        let mut timer = None;
        let _lost = enc.encode(&seg(0, false));
        let d1 = enc.encode(&seg(1, false));
        let d2 = enc.encode(&seg(2, false));
        dec.on_data(&d1, ms(0), &mut timer);
        dec.on_data(&d2, ms(0), &mut timer);
        let mut at = Vec::new();
        let mut out = Vec::new();
        let mut now = ms(100);
        for _ in 0..6 {
            let mut t = None;
            dec.on_timer(now, &mut out, &mut t);
            let Some(TimerCmd::Arm(next)) = t else {
                panic!("timer not re-armed: {t:?}")
            };
            at.push((next - now).as_nanos() / 1_000_000);
            now = next;
        }
        assert_eq!(at, [200, 400, 800, 1600, 1600, 1600]);
        assert_eq!(out.len(), 6);
        assert!(out.iter().all(|r| r.block == 0 && r.count == 1));
    }
}
