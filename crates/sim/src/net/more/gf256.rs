//! GF(2^8) arithmetic for MORE's random linear network coding (MORE, SIGCOMM 2007,
//! section 3.1: coded packets are random linear combinations over GF(2^8)).
//!
//! Log/antilog tables over the primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d),
//! with generator 2; both tables are built at compile time.

/// The field polynomial (x^8 + x^4 + x^3 + x^2 + 1).
pub const POLY: u16 = 0x11d;

/// `EXP[i] = 2^i` for i in 0..510 (doubled so `EXP[log a + log b]` needs no modulo).
static EXP: [u8; 510] = build_exp();
/// `LOG[a]` for a != 0 (`LOG[0]` is unused).
static LOG: [u8; 256] = build_log();

const fn build_exp() -> [u8; 510] {
    let mut t = [0u8; 510];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 510 {
        t[i] = x as u8;
        x <<= 1;
        if x & 0x100 != 0 {
            x ^= POLY;
        }
        i += 1;
    }
    t
}

const fn build_log() -> [u8; 256] {
    let exp = build_exp();
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 255 {
        t[exp[i] as usize] = i as u8;
        i += 1;
    }
    t
}

/// a * b in GF(2^8).
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        return 0;
    }
    EXP[LOG[a as usize] as usize + LOG[b as usize] as usize]
}

/// The multiplicative inverse of a non-zero element.
#[inline]
pub fn inv(a: u8) -> u8 {
    debug_assert!(a != 0, "zero has no inverse");
    EXP[255 - LOG[a as usize] as usize]
}

/// `dst += c * src`, element-wise (addition is XOR).
#[inline]
pub fn axpy(dst: &mut [u8], c: u8, src: &[u8]) {
    if c == 0 {
        return;
    }
    let lc = LOG[c as usize] as usize;
    for (d, &s) in dst.iter_mut().zip(src) {
        if s != 0 {
            *d ^= EXP[lc + LOG[s as usize] as usize];
        }
    }
}

/// `v *= c`, element-wise.
#[inline]
pub fn scale(v: &mut [u8], c: u8) {
    for x in v.iter_mut() {
        *x = mul(*x, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Carry-less multiplication reduced by the polynomial, bit by bit.
    fn slow_mul(mut a: u8, mut b: u8) -> u8 {
        let mut p = 0u8;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            let hi = a & 0x80 != 0;
            a <<= 1;
            if hi {
                a ^= (POLY & 0xff) as u8;
            }
            b >>= 1;
        }
        p
    }

    #[test]
    fn tables_agree_with_bitwise_multiplication() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), slow_mul(a, b), "{a} * {b}");
            }
        }
    }

    #[test]
    fn generator_is_primitive_and_inverses_hold() {
        // 2 generates all 255 non-zero elements exactly once.
        let mut seen = [false; 256];
        for &e in &EXP[..255] {
            assert!(!seen[e as usize]);
            seen[e as usize] = true;
        }
        assert!(!seen[0]);
        for a in 1..=255u8 {
            assert_eq!(mul(a, inv(a)), 1);
        }
        assert_eq!(mul(0x53, 0xca), slow_mul(0x53, 0xca));
    }

    #[test]
    fn axpy_and_scale() {
        let mut d = [1u8, 2, 3];
        axpy(&mut d, 7, &[0, 5, 9]);
        assert_eq!(d, [1, 2 ^ mul(7, 5), 3 ^ mul(7, 9)]);
        scale(&mut d, 0);
        assert_eq!(d, [0, 0, 0]);
    }
}
