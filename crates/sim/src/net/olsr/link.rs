//! The link set and neighbour set of one node (RFC 3626 sections 4.2, 7, 8.1), with
//! olsrd's link quality.
//!
//! There is one interface per node, so a link tuple and a neighbour tuple describe the
//! same neighbour; they are kept together, in a dense vector by neighbour id.
//!
//! Link quality, ETX = 1 / (LQ * NLQ) (De Couto et al., MobiCom 2003): LQ is the fraction
//! of the neighbour's packets this node receives, NLQ what the neighbour reports, in its
//! own HELLOs, of ours. Two estimators ([`LqAlgorithm`]):
//!
//! * **`etx_ff`** ([`FfLq`], the default): olsrd's "Funkfeuer/Freifunk" ETX, its default
//!   `LinkQualityAlgorithm` from 0.5.6 through the 0.6 releases (`src/lq_plugin_default_ff.c`,
//!   `README-Olsr-Extensions` of 0.6.0). Every OLSR packet a neighbour sends carries a
//!   per-interface packet sequence number; each one received adds 1 to the current
//!   bin's `received` and the gap since the last one to its `total`
//!   (`default_lq_parser_ff`; a repeat is ignored, a jump of more than 256 counts as
//!   1). Once a second (`default_lq_ff_timer`) LQ = 255 * received / total over the last
//!   32 one-second bins (`LQ_FF_WINDOW`; a new link starts with 4 bins, each holding 3
//!   "lost" packets, and grows by one bin a second: `LQ_FF_QUICKSTART_INIT`). A HELLO
//!   that is overdue ages the link: a loss timer runs 1.5 HELLO intervals after each
//!   HELLO and then every interval (`olsr_expire_link_loss_timer`,
//!   `olsr_received_hello_handler` in `src/link_set.c`); each expiry since the last
//!   packet is a missed HELLO, and with more than one, `received` is scaled by
//!   (32 - missed * interval in s) / 32. What HELLOs and TCs advertise and routes use is
//!   a smoothed copy (`default_lq_ff_handle_lqchange`): it takes the new LQ and NLQ
//!   only when one moved by more than a tenth of its smoothed value (or rose to 255);
//!   when any link of the node did, every other link that differs takes its new value
//!   too, except links still at a perfect 255/255, and the routes are recomputed
//!   (`olsr_relevant_linkcost_change`). Below LQ or NLQ 0.1 (`MINIMAL_USEFUL_LQ`) a
//!   link's cost is infinite (`default_lq_calc_cost_ff`).
//! * **`hello_window`** ([`LqWindow`], the estimator of earlier airqueue releases; olsrd
//!   before 0.5.6 used a window over all its packets, `LinkQualityWinSize`): LQ is the fraction of the neighbour's last `lq_window`
//!   HELLOs received, seen from the gaps in a HELLO counter; it changes only when a
//!   HELLO arrives, every change is used at once, and a silent neighbour's link just
//!   expires after `neighb_hold_time`.

use crate::ids::NodeId;
use airqueue_kernel::Time;

/// The last `window` HELLO sequence numbers of a neighbour, received or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LqWindow {
    /// Bit k: HELLO `last - k` was received.
    bits: u64,
    last: u16,
    /// Sequence numbers the window covers so far (at most `window`).
    span: u32,
}

impl LqWindow {
    /// A window in which `received` of the last `span` HELLOs arrived (warm start).
    pub fn filled(received: u32, span: u32) -> Self {
        let received = received.min(span).min(64);
        LqWindow {
            bits: if received == 0 {
                0
            } else {
                u64::MAX >> (64 - received)
            },
            last: 0,
            span: span.min(64),
        }
    }

    /// HELLO `seq` arrived; `window` (1..=64) is the configured length.
    pub fn on_hello(&mut self, seq: u16, window: u32) {
        let mask = if window >= 64 {
            u64::MAX
        } else {
            (1u64 << window) - 1
        };
        if self.span == 0 {
            self.bits = 1;
            self.span = 1;
            self.last = seq;
            return;
        }
        let gap = seq.wrapping_sub(self.last) as u32;
        if gap == 0 || gap > 32768 {
            return; // a duplicate or an old HELLO
        }
        self.bits = if gap >= 64 { 1 } else { (self.bits << gap) | 1 } & mask;
        self.span = (self.span + gap).min(window);
        self.last = seq;
    }

    /// The fraction of the window's HELLOs received (0 before the first).
    pub fn lq(&self) -> f64 {
        if self.span == 0 {
            return 0.0;
        }
        let mask = if self.span >= 64 {
            u64::MAX
        } else {
            (1u64 << self.span) - 1
        };
        (self.bits & mask).count_ones() as f64 / self.span as f64
    }
}

/// How a node measures link quality (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LqAlgorithm {
    /// olsrd's default `etx_ff`: packet sequence-number gaps in 1 s bins, aging of
    /// overdue HELLOs, a 10% hysteresis on what is advertised and routed on.
    #[default]
    EtxFf,
    /// The fraction of the last `lq_window` HELLOs received; every change is used.
    HelloWindow,
}

/// How a node prices a link: hops or ETX, and with which estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    pub etx: bool,
    pub algorithm: LqAlgorithm,
}

impl Metric {
    /// The cost of a link with qualities `lq` and `nlq` (fractions): 1 per hop without
    /// ETX; ETX = 1 / (LQ * NLQ) otherwise, infinite when either is 0 or, with `etx_ff`,
    /// below olsrd's `MINIMAL_USEFUL_LQ` (a byte under 25 of 255).
    #[inline]
    pub fn cost(self, lq: f64, nlq: f64) -> f64 {
        if self.etx && self.algorithm == LqAlgorithm::EtxFf {
            let min = FF_MIN_USEFUL_LQ as f64 / 255.0 - 1e-9;
            if lq < min || nlq < min {
                return f64::INFINITY;
            }
        }
        link_cost(self.etx, lq, nlq)
    }
}

/// `etx_ff`'s window: one-second bins (olsrd `LQ_FF_WINDOW`).
pub const FF_WINDOW: usize = 32;
/// Bins a new link starts with (olsrd `LQ_FF_QUICKSTART_INIT`).
pub const FF_QUICKSTART_BINS: u8 = 4;
/// "Lost" packets each bin of a new link holds (`default_lq_clear_ff_hello`).
pub const FF_NEW_LINK_TOTAL: u16 = 3;
/// A sequence-number gap beyond this is a restart, counted as 1 (`default_lq_parser_ff`).
pub const FF_SEQ_JUMP: u32 = 256;
/// 255 x `MINIMAL_USEFUL_LQ` (0.1), truncated as olsrd does: a lower LQ or NLQ byte
/// makes the link's cost infinite (`LINK_COST_BROKEN`).
pub const FF_MIN_USEFUL_LQ: u8 = 25;

/// olsrd's `etx_ff` state of one link (`struct default_lq_ff_hello`); LQ values are
/// bytes, 255 = 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FfLq {
    received: [u16; FF_WINDOW],
    total: [u16; FF_WINDOW],
    /// The bin packets go to now.
    active: u8,
    /// Bins in use (grows from [`FF_QUICKSTART_BINS`] to [`FF_WINDOW`]).
    window: u8,
    last_seq: u16,
    /// The latest measured LQ and the last NLQ the neighbour reported.
    pub lq: u8,
    pub nlq: u8,
    /// What HELLOs and TCs advertise and routes use (the hysteresis' output).
    pub smoothed_lq: u8,
    pub smoothed_nlq: u8,
}

impl Default for FfLq {
    /// A new link (`default_lq_clear_ff_hello`): 4 bins of 3 lost packets, LQ 0.
    fn default() -> Self {
        FfLq {
            received: [0; FF_WINDOW],
            total: [FF_NEW_LINK_TOTAL; FF_WINDOW],
            active: 0,
            window: FF_QUICKSTART_BINS,
            last_seq: 0,
            lq: 0,
            nlq: 0,
            smoothed_lq: 0,
            smoothed_nlq: 0,
        }
    }
}

impl FfLq {
    /// The warm start: a full window whose past 31 bins held one packet each, of which
    /// the fraction `ratio` arrived (evenly spread), the current bin still empty, LQ
    /// and NLQ already published; the next sequence number expected is 1.
    pub fn filled(ratio: f64, nlq: u8) -> Self {
        let past = FF_WINDOW - 1;
        let r = (ratio.clamp(0.0, 1.0) * past as f64).round() as usize;
        let mut f = FfLq {
            total: [1; FF_WINDOW],
            window: FF_WINDOW as u8,
            nlq,
            smoothed_nlq: nlq,
            ..FfLq::default()
        };
        f.total[0] = 0;
        f.received[0] = 0;
        for k in 1..FF_WINDOW {
            f.received[k] = ((k * r) / past - ((k - 1) * r) / past) as u16;
        }
        f.lq = Self::ratio_byte(r as u32, past as u32);
        f.smoothed_lq = f.lq;
        f
    }

    /// 255 x received / total, truncated (olsrd's fixed-point `fpmtoi`).
    #[inline]
    fn ratio_byte(received: u32, total: u32) -> u8 {
        (255 * received.min(total)).checked_div(total).unwrap_or(0) as u8
    }

    /// A packet with sequence number `seq` arrived (`default_lq_parser_ff`); `false` for a
    /// repeat of the last one, which is ignored.
    pub fn on_packet(&mut self, seq: u16) -> bool {
        if seq == self.last_seq {
            return false;
        }
        let mut gap = seq.wrapping_sub(self.last_seq) as u32;
        if gap > FF_SEQ_JUMP {
            gap = 1;
        }
        let a = self.active as usize;
        self.received[a] = self.received[a].saturating_add(1);
        self.total[a] = self.total[a].saturating_add(gap as u16);
        self.last_seq = seq;
        true
    }

    /// The once-a-second timer (`default_lq_ff_timer`): LQ from the window, less the
    /// share of `missed_s` seconds of overdue HELLOs when more than one HELLO is
    /// overdue (`missed` of them); then the next bin starts empty.
    pub fn tick(&mut self, missed: u32, missed_s: u32) {
        if (self.window as usize) < FF_WINDOW {
            self.window += 1;
        }
        let (mut received, mut total) = (0u32, 0u32);
        for k in 0..self.window as usize {
            received += self.received[k] as u32;
            total += self.total[k] as u32;
        }
        if missed > 1 {
            let w = FF_WINDOW as u32;
            received = if missed_s > w {
                0
            } else {
                received * (w - missed_s) / w
            };
        }
        self.lq = Self::ratio_byte(received, total);
        self.active = ((self.active as usize + 1) % FF_WINDOW) as u8;
        let a = self.active as usize;
        self.received[a] = 0;
        self.total[a] = 0;
    }

    /// Whether the measured LQ or NLQ moved far enough from the published one to be
    /// published (`default_lq_ff_handle_lqchange`: more than a tenth of the published
    /// value, integer arithmetic, or up to a perfect 255).
    pub fn relevant_change(&self) -> bool {
        let moved = |now: u8, old: u8| {
            let tenth = old / 10;
            match now.cmp(&old) {
                std::cmp::Ordering::Greater => now == 255 || now - old > tenth,
                std::cmp::Ordering::Less => old - now > tenth,
                std::cmp::Ordering::Equal => false,
            }
        };
        moved(self.lq, self.smoothed_lq) || moved(self.nlq, self.smoothed_nlq)
    }

    /// Publishes the measured values.
    #[inline]
    pub fn publish(&mut self) {
        self.smoothed_lq = self.lq;
        self.smoothed_nlq = self.nlq;
    }

    /// Whether a link published at a perfect 255/255 (left alone when another link's
    /// change drags the rest along).
    #[inline]
    pub fn perfect(&self) -> bool {
        self.smoothed_lq == 255 && self.smoothed_nlq == 255
    }

    /// Whether the measured values differ from the published ones.
    #[inline]
    pub fn unpublished(&self) -> bool {
        self.lq != self.smoothed_lq || self.nlq != self.smoothed_nlq
    }
}

/// Missed HELLOs of a link at `now` (olsrd's `missed_hellos`): expiries of the loss
/// timer, which runs 1.5 `interval`s after the last HELLO (`last_hello`) and then every
/// `interval`, since the last packet counted from the neighbour (`last_packet`), which
/// resets the count.
pub fn missed_hellos(last_hello: Time, last_packet: Time, interval: Time, now: Time) -> u32 {
    let h = interval.as_nanos().max(1);
    let first = last_hello.as_nanos() + h + h / 2;
    let now = now.as_nanos();
    if now < first {
        return 0;
    }
    let last_k = (now - first) / h;
    let p = last_packet.as_nanos();
    let first_k = if p < first { 0 } else { (p - first) / h + 1 };
    if last_k < first_k {
        0
    } else {
        (last_k - first_k + 1).min(u32::MAX as u64) as u32
    }
}

/// What a node knows of one neighbour: link tuple (4.2.1), neighbour tuple (4.3.1),
/// its 2-hop neighbours (4.3.2), whether it selected this node as MPR (4.3.4).
#[derive(Clone, Debug, Default)]
pub struct Link {
    /// L_ASYM_time.
    pub asym_until: Time,
    /// L_SYM_time.
    pub sym_until: Time,
    /// L_time: the tuple exists while `until > now`.
    pub until: Time,
    /// `hello_window`'s estimator.
    pub lq: LqWindow,
    /// `hello_window`: what the neighbour reports of our HELLOs.
    pub nlq: f64,
    /// `etx_ff`'s estimator.
    pub ff: FfLq,
    /// `etx_ff`: when the last HELLO and the last counted packet came.
    pub last_hello: Time,
    pub last_packet: Time,
    /// MS_time of the MPR selector tuple.
    pub selector_until: Time,
    /// The symmetric neighbours this neighbour announced, with the cost of its link to
    /// each (2-hop tuples, 8.2.1), valid while `two_hop_until > now`.
    pub two_hop: Vec<(NodeId, f64)>,
    pub two_hop_until: Time,
}

impl Link {
    #[inline]
    pub fn exists(&self, now: Time) -> bool {
        self.until > now
    }

    /// Symmetric link, hence symmetric neighbour (8.1).
    #[inline]
    pub fn is_sym(&self, now: Time) -> bool {
        self.sym_until > now
    }

    #[inline]
    pub fn is_selector(&self, now: Time) -> bool {
        self.selector_until > now && self.is_sym(now)
    }

    /// The LQ and NLQ in use (advertised and routed on) as fractions.
    #[inline]
    pub fn quality(&self, algorithm: LqAlgorithm) -> (f64, f64) {
        match algorithm {
            LqAlgorithm::HelloWindow => (self.lq.lq(), self.nlq),
            LqAlgorithm::EtxFf => (
                self.ff.smoothed_lq as f64 / 255.0,
                self.ff.smoothed_nlq as f64 / 255.0,
            ),
        }
    }

    /// The cost of this link under `m`.
    #[inline]
    pub fn cost(&self, m: Metric) -> f64 {
        let (lq, nlq) = self.quality(m.algorithm);
        m.cost(lq, nlq)
    }

    /// The 2-hop neighbours through this neighbour, empty unless it is symmetric.
    #[inline]
    pub fn two_hops(&self, now: Time) -> &[(NodeId, f64)] {
        if self.is_sym(now) && self.two_hop_until > now {
            &self.two_hop
        } else {
            &[]
        }
    }
}

/// One node's link set (RFC 3626 4.2.1): a tuple for each neighbour it has a link tuple
/// with, found by the neighbour's id through a dense index, so that the tuples take
/// memory in proportion to the neighbours rather than to the network. An id without a
/// tuple reads as an empty one (expired, no quality); writing to it makes its tuple.
#[derive(Clone, Debug)]
pub struct LinkSet {
    slot: Vec<u32>,
    tuples: Vec<Link>,
    empty: Link,
}

impl LinkSet {
    const NO_SLOT: u32 = u32::MAX;

    /// The empty link set of a node in a network of `n`.
    pub fn new(n: usize) -> Self {
        LinkSet {
            slot: vec![Self::NO_SLOT; n],
            tuples: Vec::new(),
            empty: Link::default(),
        }
    }

    /// The network's size (ids run below it).
    #[inline]
    pub fn len(&self) -> usize {
        self.slot.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.slot.is_empty()
    }
}

impl std::ops::Index<usize> for LinkSet {
    type Output = Link;

    #[inline]
    fn index(&self, x: usize) -> &Link {
        match self.slot[x] {
            Self::NO_SLOT => &self.empty,
            s => &self.tuples[s as usize],
        }
    }
}

impl std::ops::IndexMut<usize> for LinkSet {
    #[inline]
    fn index_mut(&mut self, x: usize) -> &mut Link {
        if self.slot[x] == Self::NO_SLOT {
            self.slot[x] = self.tuples.len() as u32;
            self.tuples.push(Link::default());
        }
        &mut self.tuples[self.slot[x] as usize]
    }
}

/// Cost of a link with the given qualities: ETX = 1 / (LQ * NLQ), infinite when either
/// is 0; 1 per hop with `etx == false`.
#[inline]
pub fn link_cost(etx: bool, lq: f64, nlq: f64) -> f64 {
    if !etx {
        return 1.0;
    }
    let p = lq * nlq;
    if p > 0.0 {
        1.0 / p
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lq_counts_the_gaps_in_hello_sequence_numbers() {
        let mut w = LqWindow::default();
        assert_eq!(w.lq(), 0.0);
        w.on_hello(100, 10);
        assert_eq!(w.lq(), 1.0);
        // 101 and 102 lost.
        w.on_hello(103, 10);
        assert!((w.lq() - 2.0 / 4.0).abs() < 1e-12);
        for s in 104..=109 {
            w.on_hello(s, 10);
        }
        // Window of 10: 100..=109 with two lost.
        assert!((w.lq() - 0.8).abs() < 1e-12);
        w.on_hello(110, 10); // 100 leaves the window
        assert!((w.lq() - 0.8).abs() < 1e-12);
        w.on_hello(111, 10);
        w.on_hello(112, 10);
        w.on_hello(113, 10); // 101..102 leave
        assert_eq!(w.lq(), 1.0);
        // A duplicate and an old HELLO change nothing.
        w.on_hello(113, 10);
        w.on_hello(50, 10);
        assert_eq!(w.lq(), 1.0);
        // Wrap-around: 65535 -> 1 lost 0.
        let mut w = LqWindow::default();
        w.on_hello(65535, 10);
        w.on_hello(1, 10);
        assert!((w.lq() - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn etx_is_the_inverse_of_both_delivery_ratios() {
        assert_eq!(link_cost(true, 0.5, 0.8), 2.5);
        assert_eq!(link_cost(true, 0.0, 1.0), f64::INFINITY);
        assert_eq!(link_cost(false, 0.1, 0.1), 1.0);
        assert!((LqWindow::filled(7, 10).lq() - 0.7).abs() < 1e-12);
    }

    #[test]
    fn ff_counts_every_packet_and_the_gaps_between_them() {
        let mut f = FfLq::filled(1.0, 255);
        assert_eq!((f.lq, f.smoothed_lq, f.smoothed_nlq), (255, 255, 255));
        // Packets 1..=40, one a second, with every fourth lost: 30 of 40 arrive.
        for s in 1..=40u16 {
            if s % 4 != 0 {
                assert!(f.on_packet(s));
            }
            f.tick(0, 0);
        }
        // The window now holds only these: 32 one-second bins, 24 of the last 32.
        assert_eq!(f.lq, (255 * 24 / 32) as u8, "{}", f.lq);
        // A repeat is ignored; a jump past 256 counts as one packet.
        assert!(!f.on_packet(39));
        let mut g = FfLq::filled(1.0, 255);
        assert!(g.on_packet(1000));
        g.tick(0, 0);
        assert_eq!(g.lq, 255, "a restart is not 999 losses");
        // Wrap-around: 65535 then 1 lost 0.
        let mut h = FfLq::filled(1.0, 255);
        h.on_packet(65535);
        h.on_packet(1);
        assert_eq!(h.total.iter().map(|&t| t as u32).sum::<u32>(), 31 + 1 + 2);
    }

    #[test]
    fn ff_new_links_start_pessimistic_and_grow_their_window() {
        let mut f = FfLq::default();
        assert_eq!(f.window, FF_QUICKSTART_BINS);
        // One packet a second, none lost: the 3 phantom losses of each bin fade out as
        // the window grows and its bins are reused.
        let mut seen = Vec::new();
        for s in 1..=40u16 {
            f.on_packet(s);
            f.tick(0, 0);
            seen.push(f.lq);
        }
        assert!(seen[0] < 100, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[1] >= w[0]), "{seen:?}");
        assert_eq!(f.window as usize, FF_WINDOW);
        assert_eq!(*seen.last().unwrap(), 255);
    }

    #[test]
    fn ff_overdue_hellos_age_the_link_quality() {
        let h = Time::from_secs(2);
        let t = Time::from_millis;
        // Loss timer 3 s after the HELLO at 10 s, then every 2 s; packets reset it.
        assert_eq!(missed_hellos(t(10_000), t(10_000), h, t(12_999)), 0);
        assert_eq!(missed_hellos(t(10_000), t(10_000), h, t(13_000)), 1);
        assert_eq!(missed_hellos(t(10_000), t(10_000), h, t(15_000)), 2);
        assert_eq!(missed_hellos(t(10_000), t(10_000), h, t(21_000)), 5);
        // A TC at 14 s reset the count after the first expiry.
        assert_eq!(missed_hellos(t(10_000), t(14_000), h, t(14_500)), 0);
        assert_eq!(missed_hellos(t(10_000), t(14_000), h, t(15_000)), 1);
        // One missed HELLO costs nothing, two cost 2 x 2 s of the 32 s window.
        let mut f = FfLq::filled(1.0, 255);
        f.tick(1, 2);
        assert_eq!(f.lq, 255);
        let mut f = FfLq::filled(1.0, 255);
        f.tick(2, 4);
        // The warm window holds 31 of 31; 31 x 28 / 32 = 27 of them count.
        assert_eq!(f.lq, (255 * 27 / 31) as u8);
        // More missed time than the window: nothing left.
        let mut f = FfLq::filled(1.0, 255);
        f.tick(17, 34);
        assert_eq!(f.lq, 0);
    }

    #[test]
    fn ff_publishes_only_changes_past_a_tenth() {
        let mut f = FfLq::filled(0.5, 200);
        let base = f.smoothed_lq;
        // 16 of 31 packets: 255 x 16 / 31 = 131; a tenth of it is 13.
        assert_eq!(base, 131);
        f.lq = base - 13;
        assert!(!f.relevant_change());
        f.lq = base + 13;
        assert!(!f.relevant_change());
        f.lq = base - 14;
        assert!(f.relevant_change());
        // NLQ too; and rising to a perfect 255 always counts.
        f.lq = base;
        f.nlq = 200 - 20;
        assert!(!f.relevant_change());
        f.nlq = 200 - 21;
        assert!(f.relevant_change());
        let mut g = FfLq::filled(1.0, 250);
        g.nlq = 255;
        assert!(g.relevant_change());
        g.publish();
        assert!(g.perfect() && !g.unpublished());
    }

    #[test]
    fn ff_cost_is_broken_below_a_tenth() {
        let m = Metric {
            etx: true,
            algorithm: LqAlgorithm::EtxFf,
        };
        assert_eq!(m.cost(24.0 / 255.0, 1.0), f64::INFINITY);
        assert!((m.cost(25.0 / 255.0, 1.0) - 255.0 / 25.0).abs() < 1e-9);
        let w = Metric {
            algorithm: LqAlgorithm::HelloWindow,
            ..m
        };
        assert!(w.cost(24.0 / 255.0, 1.0).is_finite());
        let hops = Metric { etx: false, ..m };
        assert_eq!(hops.cost(0.0, 0.0), 1.0);
    }
}
