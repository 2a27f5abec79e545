//! The link set and neighbour set of one node (RFC 3626 sections 4.2, 7, 8.1), with
//! olsrd's link quality.
//!
//! There is one interface per node, so a link tuple and a neighbour tuple describe the
//! same neighbour; they are kept together, in a dense vector by neighbour id.
//!
//! Link quality (olsrd's ETX): LQ is the fraction of the neighbour's last `lq_window`
//! HELLOs this node received, seen from the gaps in their HELLO sequence numbers; NLQ is
//! what the neighbour reports, in its own HELLOs, of ours. ETX = 1 / (LQ * NLQ)
//! (De Couto et al., MobiCom 2003). LQ changes only when a HELLO arrives: a neighbour
//! that falls silent is not marked down by a timer as olsrd does, its link expires
//! after `neighb_hold_time` instead.

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
    pub lq: LqWindow,
    /// What the neighbour reports of our HELLOs.
    pub nlq: f64,
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
}
