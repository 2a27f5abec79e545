//! Fairness summaries of per-flow throughputs: Jain's index and the sum-of-log utility
//! (proportional fairness), as reported by `airqueue run --json`.

/// Jain's fairness index `(sum x)^2 / (n sum x^2)` (R. Jain, D. Chiu, W. Hawe, DEC-TR-301,
/// 1984): 1 when all equal, `1/n` when one flow has everything. `None` for no flows or when
/// every throughput is zero (0/0). Negative or NaN entries are a caller bug
/// (`debug_assert!`).
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    debug_assert!(xs.iter().all(|x| *x >= 0.0), "negative or NaN throughput");
    let (sum, sum_sq) = xs.iter().fold((0.0, 0.0), |(s, q), x| (s + x, q + x * x));
    if xs.is_empty() || sum_sq == 0.0 {
        return None;
    }
    Some(sum * sum / (xs.len() as f64 * sum_sq))
}

/// Sum-of-log utility `sum ln x_i` (Kelly 1997, proportional fairness), the objective the
/// DiffQ and backpressure seeds maximise. Any zero throughput gives `-inf`.
pub fn log_utility(xs: &[f64]) -> f64 {
    xs.iter().map(|x| x.ln()).sum()
}

/// [`log_utility`] with each throughput raised to at least `floor` (e.g. 1 bit/s), so a
/// starved flow costs `ln(floor)` instead of making the sum `-inf`.
pub fn log_utility_floored(xs: &[f64], floor: f64) -> f64 {
    xs.iter().map(|x| x.max(floor).ln()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_extremes() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[7.0, 0.0, 0.0, 0.0]), Some(0.25));
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
        // (1 + 3)^2 / (2 * 10) = 0.8; scale invariant.
        assert_eq!(jain_index(&[1.0, 3.0]), Some(0.8));
        assert_eq!(jain_index(&[1e6, 3e6]), Some(0.8));
    }

    #[test]
    fn log_utility_values() {
        let u = log_utility(&[1.0, std::f64::consts::E, 10.0]);
        assert!((u - (1.0 + 10f64.ln())).abs() < 1e-12);
        assert_eq!(log_utility(&[1.0, 0.0]), f64::NEG_INFINITY);
        assert_eq!(log_utility(&[]), 0.0);
        assert!((log_utility_floored(&[0.0, 100.0], 1.0) - 100f64.ln()).abs() < 1e-12);
        // Equal split beats unequal split of the same total.
        assert!(log_utility(&[5.0, 5.0]) > log_utility(&[9.0, 1.0]));
    }
}
