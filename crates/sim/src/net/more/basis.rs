//! Incremental Gaussian elimination over GF(2^8): what a MORE node knows of a batch
//! (MORE, section 4.2.1: a node keeps the innovative packets it heard of the current
//! batch and checks each new arrival for innovativeness by Gaussian elimination).
//!
//! Only coefficient vectors are kept (payload bytes are never materialised); the rows
//! are in reduced row-echelon form, so a vector is innovative exactly when it does not
//! reduce to zero, and the destination decodes when the rank reaches the batch size.

use super::gf256::{axpy, inv, scale};
use airqueue_kernel::RngStream;

/// Largest batch size (MORE's K = 32): coefficient vectors are this many bytes.
pub const MAX_BATCH: usize = 32;

/// A coefficient vector: entry `k` multiplies the batch's native packet `k`.
pub type Coeffs = [u8; MAX_BATCH];

/// The span of the coded packets a node holds of one batch.
#[derive(Clone, Debug)]
pub struct Basis {
    k: usize,
    rank: usize,
    rows: [Coeffs; MAX_BATCH],
    /// `pivots[r]`: the leading column of row `r` (its entry is 1, and 0 in other rows).
    pivots: [u8; MAX_BATCH],
}

impl Basis {
    /// An empty basis for batches of `k` packets (`1 <= k <= MAX_BATCH`).
    pub fn new(k: usize) -> Self {
        assert!((1..=MAX_BATCH).contains(&k), "batch size {k} out of 1..=32");
        Basis {
            k,
            rank: 0,
            rows: [[0; MAX_BATCH]; MAX_BATCH],
            pivots: [0; MAX_BATCH],
        }
    }

    /// The batch size.
    pub fn batch(&self) -> usize {
        self.k
    }

    /// Number of independent vectors held.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Whether the batch can be decoded (rank = batch size).
    pub fn is_full(&self) -> bool {
        self.rank == self.k
    }

    /// Forgets everything (a new batch).
    pub fn clear(&mut self) {
        self.rank = 0;
    }

    /// `v` reduced by the held rows: zero exactly when `v` is in their span.
    fn reduce(&self, v: &Coeffs) -> Coeffs {
        let mut v = *v;
        for r in 0..self.rank {
            let c = v[self.pivots[r] as usize];
            if c != 0 {
                axpy(&mut v[..self.k], c, &self.rows[r][..self.k]);
            }
        }
        v
    }

    /// Whether `v` would add a degree of freedom.
    pub fn is_innovative(&self, v: &Coeffs) -> bool {
        self.reduce(v)[..self.k].iter().any(|&x| x != 0)
    }

    /// Adds `v` if it is innovative; returns whether it was.
    pub fn insert(&mut self, v: &Coeffs) -> bool {
        let mut v = self.reduce(v);
        let Some(p) = v[..self.k].iter().position(|&x| x != 0) else {
            return false;
        };
        let norm = inv(v[p]);
        scale(&mut v[..self.k], norm);
        // Keep the form reduced: clear column p from the other rows.
        for r in 0..self.rank {
            let c = self.rows[r][p];
            if c != 0 {
                axpy(&mut self.rows[r][..self.k], c, &v[..self.k]);
            }
        }
        self.rows[self.rank] = v;
        self.pivots[self.rank] = p as u8;
        self.rank += 1;
        true
    }

    /// A random linear combination of the held rows (MORE, 4.2.2: a forwarder sends a
    /// random combination of the packets it has of the batch); zero if nothing is held.
    pub fn combine(&self, rng: &mut RngStream) -> Coeffs {
        let mut out = [0u8; MAX_BATCH];
        for r in 0..self.rank {
            let c = random_byte(rng);
            axpy(&mut out[..self.k], c, &self.rows[r][..self.k]);
        }
        out
    }
}

/// A uniformly random field element.
#[inline]
pub fn random_byte(rng: &mut RngStream) -> u8 {
    (rng.next_u64() >> 56) as u8
}

/// A uniformly random non-zero coefficient vector of a `k`-packet batch, as the source
/// sends (MORE, 4.2.1): random coefficients over all `k` native packets.
pub fn random_coeffs(k: usize, rng: &mut RngStream) -> Coeffs {
    let mut out = [0u8; MAX_BATCH];
    loop {
        for x in &mut out[..k] {
            *x = random_byte(rng);
        }
        if out[..k].iter().any(|&x| x != 0) {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::StreamKey;

    fn rng() -> RngStream {
        RngStream::new(StreamKey::new(7, 0, "test.more"))
    }

    #[test]
    fn k_random_combinations_decode() {
        let mut r = rng();
        let mut decoded = 0;
        for _ in 0..50 {
            let mut b = Basis::new(MAX_BATCH);
            let mut sent = 0;
            while !b.is_full() {
                b.insert(&random_coeffs(MAX_BATCH, &mut r));
                sent += 1;
            }
            // Over GF(2^8) a random vector is dependent with probability <= 1/255 per
            // step, so 32 or at most a few more suffice.
            assert!(sent <= MAX_BATCH + 3, "needed {sent}");
            decoded += (sent == MAX_BATCH) as u32;
        }
        assert!(decoded >= 40, "only {decoded} of 50 decoded from exactly K");
    }

    #[test]
    fn combinations_of_held_rows_are_not_innovative() {
        let mut r = rng();
        let mut b = Basis::new(8);
        for _ in 0..5 {
            assert!(b.insert(&random_coeffs(8, &mut r)));
        }
        for _ in 0..20 {
            let c = b.combine(&mut r);
            assert!(!b.is_innovative(&c));
            assert!(!b.insert(&c));
        }
        assert_eq!(b.rank(), 5);
        // A unit vector outside the span (if any) is innovative: the span has dimension 5
        // of 8, so some unit vector is outside it.
        let outside = (0..8).any(|i| {
            let mut e = [0u8; MAX_BATCH];
            e[i] = 1;
            b.is_innovative(&e)
        });
        assert!(outside);
    }

    #[test]
    fn forwarder_recombination_carries_rank_downstream() {
        // A forwarder holding rank 4 can give a downstream node at most rank 4.
        let mut r = rng();
        let mut fwd = Basis::new(6);
        for _ in 0..4 {
            fwd.insert(&random_coeffs(6, &mut r));
        }
        let mut down = Basis::new(6);
        for _ in 0..30 {
            down.insert(&fwd.combine(&mut r));
        }
        assert_eq!(down.rank(), 4);
        let mut dup = [0u8; MAX_BATCH];
        dup[0] = 0;
        assert!(!down.insert(&dup), "the zero vector is never innovative");
        down.clear();
        assert_eq!(down.rank(), 0);
    }
}
