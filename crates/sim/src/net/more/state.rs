//! MORE's per-node state machines for one flow (MORE, SIGCOMM 2007, section 4.2): the
//! source codes the current batch until it is ACKed, a forwarder earns TX credit on
//! packets from upstream and spends it one coded packet at a time, and the
//! destination decodes once it holds K innovative packets. Pure: `MoreNet` (`scheme.rs`)
//! feeds them arrivals and asks them for code vectors.

use super::basis::{random_coeffs, Basis, Coeffs};
use airqueue_kernel::{RngStream, Time};

/// The source of a MORE flow (MORE, 4.2.1).
#[derive(Clone, Debug)]
pub struct MoreSource {
    k: usize,
    batch: u32,
    /// When the current batch started (delay of its packets is counted from here).
    pub batch_started: Time,
}

impl MoreSource {
    pub fn new(k: usize, now: Time) -> Self {
        MoreSource {
            k,
            batch: 0,
            batch_started: now,
        }
    }

    pub fn batch(&self) -> u32 {
        self.batch
    }

    /// A fresh random combination of the current batch's native packets.
    pub fn code(&self, rng: &mut RngStream) -> (u32, Coeffs) {
        (self.batch, random_coeffs(self.k, rng))
    }

    /// The destination ACKed `batch`; returns whether the source moved on (an ACK of an
    /// older batch, e.g. a repeated one, changes nothing).
    pub fn on_ack(&mut self, batch: u32, now: Time) -> bool {
        if batch != self.batch {
            return false;
        }
        self.batch += 1;
        self.batch_started = now;
        true
    }
}

/// What a forwarder did with an arrival.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForwarderArrival {
    /// The packet added a degree of freedom to the forwarder's batch.
    pub innovative: bool,
    /// The packet was of an older batch than the forwarder's (ignored).
    pub stale: bool,
    /// Coded packets to queue now (whole credits earned).
    pub transmissions: u32,
}

/// A forwarder of a MORE flow (MORE, 4.2.2).
#[derive(Clone, Debug)]
pub struct MoreForwarder {
    tx_credit: f64,
    counter: f64,
    batch: u32,
    basis: Basis,
}

impl MoreForwarder {
    pub fn new(k: usize, tx_credit: f64) -> Self {
        MoreForwarder {
            tx_credit,
            counter: 0.0,
            batch: 0,
            basis: Basis::new(k),
        }
    }

    pub fn batch(&self) -> u32 {
        self.batch
    }

    pub fn rank(&self) -> usize {
        self.basis.rank()
    }

    /// Drops the batch and moves to `batch` (a newer batch was heard, or its ACK).
    pub fn flush_to(&mut self, batch: u32) {
        if batch > self.batch {
            self.batch = batch;
            self.basis.clear();
            self.counter = 0.0;
        }
    }

    /// A coded packet of `batch` was heard; `upstream`: its sender is farther from the
    /// destination (only those earn credit, MORE 4.2.2).
    pub fn on_packet(&mut self, batch: u32, coeffs: &Coeffs, upstream: bool) -> ForwarderArrival {
        if batch < self.batch {
            return ForwarderArrival {
                stale: true,
                ..Default::default()
            };
        }
        self.flush_to(batch);
        let innovative = self.basis.insert(coeffs);
        let mut transmissions = 0;
        // Every packet from upstream earns credit, innovative or not: the credit's
        // denominator counts all of them (MORE, 4.3: sum over upstream i of
        // z_i (1 - e_ij)). Earning on innovative ones only starves the chain once a
        // collision costs a downstream node one degree of freedom.
        if upstream {
            self.counter += self.tx_credit;
            while self.counter >= 1.0 {
                self.counter -= 1.0;
                transmissions += 1;
            }
        }
        ForwarderArrival {
            innovative,
            stale: false,
            transmissions,
        }
    }

    /// A fresh combination of what the forwarder holds of `batch`, if that is still its
    /// batch and it holds anything of it.
    pub fn code(&self, batch: u32, rng: &mut RngStream) -> Option<Coeffs> {
        (batch == self.batch && self.basis.rank() > 0).then(|| self.basis.combine(rng))
    }
}

/// What the destination did with an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DestinationArrival {
    /// A new degree of freedom of the current batch.
    Innovative,
    /// The packet's batch was decoded with it: ACK this batch.
    Decoded(u32),
    /// Nothing new for the current batch (a combination of what it holds).
    Redundant,
    /// A packet of a batch already decoded (its ACK is on its way).
    Old(u32),
}

/// The destination of a MORE flow (MORE, 4.2.3).
#[derive(Clone, Debug)]
pub struct MoreDestination {
    batch: u32,
    basis: Basis,
    decoded: u64,
}

impl MoreDestination {
    pub fn new(k: usize) -> Self {
        MoreDestination {
            batch: 0,
            basis: Basis::new(k),
            decoded: 0,
        }
    }

    /// Batches decoded so far.
    pub fn decoded(&self) -> u64 {
        self.decoded
    }

    pub fn rank(&self) -> usize {
        self.basis.rank()
    }

    pub fn on_packet(&mut self, batch: u32, coeffs: &Coeffs) -> DestinationArrival {
        if batch < self.batch {
            return DestinationArrival::Old(batch);
        }
        if batch > self.batch {
            // The source moved on without this batch decoded here: cannot happen, as the
            // source advances only on this node's ACK; follow it anyway.
            self.batch = batch;
            self.basis.clear();
        }
        if !self.basis.insert(coeffs) {
            return DestinationArrival::Redundant;
        }
        if self.basis.is_full() {
            self.basis.clear();
            self.batch += 1;
            self.decoded += 1;
            return DestinationArrival::Decoded(batch);
        }
        DestinationArrival::Innovative
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::StreamKey;

    fn rng() -> RngStream {
        RngStream::new(StreamKey::new(3, 1, "test.more.state"))
    }

    #[test]
    fn source_advances_only_on_its_batch_ack() {
        let mut s = MoreSource::new(4, Time::ZERO);
        assert_eq!(s.code(&mut rng()).0, 0);
        assert!(!s.on_ack(1, Time::from_secs(1)));
        assert!(s.on_ack(0, Time::from_secs(1)));
        assert_eq!((s.batch(), s.batch_started), (1, Time::from_secs(1)));
        assert!(
            !s.on_ack(0, Time::from_secs(2)),
            "a repeated ACK changes nothing"
        );
    }

    #[test]
    fn forwarder_spends_credit_from_upstream_only() {
        let mut r = rng();
        let mut f = MoreForwarder::new(4, 1.5);
        let a = f.on_packet(0, &random_coeffs(4, &mut r), true);
        assert_eq!((a.innovative, a.transmissions), (true, 1)); // counter 0.5 left
        let b = f.on_packet(0, &random_coeffs(4, &mut r), true);
        assert_eq!(b.transmissions, 2); // 0.5 + 1.5 = 2
                                        // From downstream: innovative, but no credit.
        let c = f.on_packet(0, &random_coeffs(4, &mut r), false);
        assert_eq!((c.innovative, c.transmissions), (true, 0));
        // A combination of what it holds is not innovative but still earns credit.
        let held = f.code(0, &mut r).unwrap();
        let d = f.on_packet(0, &held, true);
        assert_eq!((d.innovative, d.transmissions), (false, 1));
        assert_eq!(f.rank(), 3);
    }

    #[test]
    fn forwarder_flushes_on_a_newer_batch_and_ignores_older() {
        let mut r = rng();
        let mut f = MoreForwarder::new(4, 0.6);
        f.on_packet(0, &random_coeffs(4, &mut r), true); // counter 0.6
        let a = f.on_packet(1, &random_coeffs(4, &mut r), true);
        // Flushed: rank 1 of batch 1, counter restarted at 0.6 (no transmission).
        assert_eq!((f.batch(), f.rank(), a.transmissions), (1, 1, 0));
        assert!(
            f.code(0, &mut r).is_none(),
            "nothing to send for the old batch"
        );
        assert!(f.code(1, &mut r).is_some());
        let old = f.on_packet(0, &random_coeffs(4, &mut r), true);
        assert!(old.stale && !old.innovative);
        f.flush_to(2);
        assert_eq!((f.batch(), f.rank()), (2, 0));
        assert!(f.code(2, &mut r).is_none());
    }

    #[test]
    fn destination_decodes_after_k_innovative_packets() {
        let mut r = rng();
        let src = MoreSource::new(8, Time::ZERO);
        let mut d = MoreDestination::new(8);
        let mut last = None;
        let mut sent = 0;
        while d.decoded() == 0 {
            let (b, c) = src.code(&mut r);
            last = Some(d.on_packet(b, &c));
            sent += 1;
        }
        assert_eq!(last, Some(DestinationArrival::Decoded(0)));
        assert!(sent >= 8);
        let (b, c) = src.code(&mut r);
        assert_eq!(d.on_packet(b, &c), DestinationArrival::Old(0));
        let mut s2 = src.clone();
        s2.on_ack(0, Time::ZERO);
        let (b, c) = s2.code(&mut r);
        assert_eq!(d.on_packet(b, &c), DestinationArrival::Innovative);
        assert_eq!(d.on_packet(b, &c), DestinationArrival::Redundant);
    }
}
