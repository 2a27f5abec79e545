use super::*;
use crate::airtime::{self, Link};

const SIZES: [u32; 7] = [1, 2, 5, 10, 20, 50, 100];

fn backoffs() -> [Backoff; 5] {
    [
        Backoff::DCF,
        Backoff {
            retry: RetryLimit::Attempts(dsss::SHORT_RETRY_LIMIT),
            ..Backoff::DCF
        },
        Backoff {
            cw_min: 31,
            cw_max: 255,
            retry: RetryLimit::Unlimited,
        },
        Backoff {
            cw_min: 1,
            cw_max: 7,
            retry: RetryLimit::Attempts(4),
        },
        Backoff {
            cw_min: 15,
            cw_max: 15,
            retry: RetryLimit::Unlimited,
        },
    ]
}

/// Bianchi's eq. (7) exactly as printed (singular at p = 1/2).
fn bianchi_eq7(p: f64, w: f64, m: i32) -> f64 {
    2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)))
}

#[test]
fn tau_of_p_is_bianchis_eq7() {
    let b = Backoff::DCF;
    assert_eq!(b.max_stage(), 5);
    for k in 0..=100 {
        let p = k as f64 / 100.0;
        if (p - 0.5).abs() < 1e-9 {
            continue;
        }
        let ours = b.tau_of_p(p);
        let his = bianchi_eq7(p, 32.0, 5);
        assert!(
            (ours - his).abs() < 1e-12 * his.max(1.0),
            "p = {p}: {ours} vs {his}"
        );
    }
    // The removable singularity is handled: continuous through p = 1/2.
    let mid = b.tau_of_p(0.5);
    assert!((mid - b.tau_of_p(0.5 - 1e-7)).abs() < 1e-6);
    // p = 0: mean backoff (W - 1) / 2 slots plus the transmission slot.
    assert_eq!(b.tau_of_p(0.0), 2.0 / 33.0);
    // p = 1: every attempt at the maximum window.
    assert!((b.tau_of_p(1.0) - 2.0 / 1025.0).abs() < 1e-15);
}

#[test]
fn finite_retry_limit_converges_to_unlimited() {
    let unlimited = Backoff::DCF;
    let many = Backoff {
        retry: RetryLimit::Attempts(400),
        ..Backoff::DCF
    };
    for p in [0.0, 0.1, 0.3, 0.6] {
        assert!((unlimited.tau_of_p(p) - many.tau_of_p(p)).abs() < 1e-12);
    }
    // One attempt: tau = 1 / ((W0 + 1) / 2) whatever p.
    let once = Backoff {
        retry: RetryLimit::Attempts(1),
        ..Backoff::DCF
    };
    assert_eq!(once.tau_of_p(0.7), 2.0 / 33.0);
    assert!((once.drop_probability(0.7) - 0.7).abs() < 1e-15);
}

#[test]
fn fixed_point_satisfies_both_equations() {
    for b in backoffs() {
        for n in SIZES {
            let (tau, p) = solve_fixed_point(n, &b);
            assert!((0.0..=1.0).contains(&tau));
            let p_eq = 1.0 - (1.0 - tau).powi(n as i32 - 1);
            assert!((p - p_eq).abs() < 1e-12, "{b:?} n={n}");
            assert!(
                (tau - b.tau_of_p(p)).abs() < 1e-12,
                "{b:?} n={n}: {tau} vs {}",
                b.tau_of_p(p)
            );
        }
    }
}

#[test]
fn more_stations_transmit_less_and_collide_more() {
    for b in backoffs() {
        let mut prev = solve_fixed_point(1, &b);
        assert_eq!(prev.1, 0.0);
        for n in 2..=100 {
            let cur = solve_fixed_point(n, &b);
            assert!(cur.0 <= prev.0 + 1e-15, "{b:?} tau rises at n={n}");
            assert!(cur.1 > prev.1, "{b:?} p falls at n={n}");
            prev = cur;
        }
    }
}

/// Bianchi's Table I (FHSS, 1 Mb/s): slot 50 us, SIFS 28 us, DIFS 128 us, delta 1 us,
/// MAC header 272 bits + PHY header 128 bits, payload 8184 bits, ACK 112 bits + PHY header.
fn bianchi_table1_basic() -> (SlotDurations, u64) {
    let us = Time::from_micros;
    let h = 272 + 128;
    let payload = 8184;
    let ack = 112 + 128;
    let delta = 1;
    let durations = SlotDurations {
        empty: us(50),
        success: us(h + payload + 28 + delta + ack + 128 + delta),
        collision: us(h + payload + 128 + delta),
    };
    (durations, payload)
}

#[test]
fn bianchi_table1_throughput_falls_with_n() {
    let (durations, payload) = bianchi_table1_basic();
    for m in [3u32, 5] {
        let b = Backoff {
            cw_min: 31,
            cw_max: (32 << m) - 1,
            retry: RetryLimit::Unlimited,
        };
        let mut prev = f64::INFINITY;
        for n in [5, 10, 15, 20, 30, 40, 50] {
            let s = saturation(n, &b, &durations, payload).unwrap();
            // Normalised to the 1 Mb/s channel.
            let norm = s.throughput_bps / 1e6;
            assert!(norm < prev, "m={m} n={n}");
            assert!((0.5..0.9).contains(&norm), "m={m} n={n}: {norm}");
            prev = norm;
        }
    }
}

#[test]
fn one_station_is_the_airtime_budget() {
    // n = 1: tau = 2 / (W + 1), so the mean idle time per frame is (1/tau - 1) slots =
    // (W - 1) / 2 = CWmin / 2 = 15.5 slots, exactly the air-time budget's mean backoff.
    for (rate, preamble, payload) in [
        (DsssRate::Mbps11, Preamble::Long, 1500),
        (DsssRate::Mbps2, Preamble::Short, 200),
        (DsssRate::Mbps1, Preamble::Long, 1000),
    ] {
        let model = DsssSaturation {
            data_rate: rate,
            preamble,
            ..DsssSaturation::new(1, payload)
        };
        let s = model.evaluate().unwrap();
        let link = Link {
            data_rate: rate,
            preamble,
            ..Link::default()
        };
        let budget = airtime::saturation_goodput_bps(payload, &link, dsss::CW_MIN);
        assert_eq!(s.p, 0.0);
        assert!(
            (s.throughput_bps - budget).abs() < 1e-9 * budget,
            "{} vs {budget}",
            s.throughput_bps
        );
    }
}

#[test]
fn dsss_durations() {
    let m = DsssSaturation::new(10, 1500);
    let d = m.durations();
    // DATA = 192 + ceil(1528 * 8 / 11) = 192 + 1112 = 1304 us; ACK = 304 us.
    assert_eq!(d.success, Time::from_micros(1304 + 10 + 304 + 50));
    assert_eq!(d.collision, Time::from_micros(1304 + 364));
    let difs = DsssSaturation {
        recovery: CollisionRecovery::Difs,
        ..m
    };
    assert_eq!(difs.durations().collision, Time::from_micros(1304 + 50));
    let rts = DsssSaturation {
        access: Access::RtsCts,
        ..m
    };
    // RTS = 192 + 160 = 352 us, CTS = 304 us.
    assert_eq!(rts.durations().collision, Time::from_micros(352 + 364));
    assert_eq!(
        rts.durations().success,
        Time::from_micros(352 + 10 + 304 + 10 + 1304 + 10 + 304 + 50)
    );
    // EIFS costs throughput relative to DIFS.
    let se = m.evaluate().unwrap().throughput_bps;
    let sd = difs.evaluate().unwrap().throughput_bps;
    assert!(se < sd);
}

#[test]
fn invalid_inputs_are_errors() {
    let m = DsssSaturation::new(0, 1500);
    assert_eq!(m.evaluate(), Err(BianchiError::NoStations));
    let m = DsssSaturation {
        backoff: Backoff {
            cw_min: 63,
            cw_max: 31,
            retry: RetryLimit::Unlimited,
        },
        ..DsssSaturation::new(3, 1500)
    };
    assert!(m.evaluate().unwrap_err().to_string().contains("cw_min"));
    let m = DsssSaturation {
        backoff: Backoff {
            retry: RetryLimit::Attempts(0),
            ..Backoff::DCF
        },
        ..DsssSaturation::new(3, 1500)
    };
    assert_eq!(m.evaluate(), Err(BianchiError::ZeroAttempts));
}

/// SplitMix64, enough for a test-only Monte Carlo.
struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Simulates Bianchi's slotted backoff process itself (each virtual slot, stations at
/// counter 0 transmit, the others count down; a collision doubles the window) and returns
/// (tau, p, throughput). Checks the solver against the process it models; the decoupling
/// approximation makes them agree to within about a percent.
fn monte_carlo(
    n: usize,
    b: &Backoff,
    d: &SlotDurations,
    payload_bits: u64,
    slots: u64,
) -> (f64, f64, f64) {
    let mut rng = SplitMix(0x5EED + n as u64);
    let m = b.max_stage();
    let mut stage = vec![0u32; n];
    let mut counter: Vec<u64> = (0..n).map(|_| rng.below(b.window(0) as u64)).collect();
    let (mut attempts, mut collided, mut idle, mut succ, mut coll) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut tx = Vec::with_capacity(n);
    for _ in 0..slots {
        tx.clear();
        tx.extend((0..n).filter(|&i| counter[i] == 0));
        for c in counter.iter_mut() {
            *c = c.saturating_sub(1);
        }
        attempts += tx.len() as u64;
        match tx.len() {
            0 => idle += 1,
            1 => {
                succ += 1;
                stage[tx[0]] = 0;
                counter[tx[0]] = rng.below(b.window(0) as u64);
            }
            k => {
                coll += 1;
                collided += k as u64;
                for &i in &tx {
                    stage[i] = (stage[i] + 1).min(m);
                    counter[i] = rng.below(b.window(stage[i]) as u64);
                }
            }
        }
    }
    let time = idle as f64 * d.empty.as_secs_f64()
        + succ as f64 * d.success.as_secs_f64()
        + coll as f64 * d.collision.as_secs_f64();
    (
        attempts as f64 / (n as f64 * slots as f64),
        collided as f64 / attempts as f64,
        succ as f64 * payload_bits as f64 / time,
    )
}

#[test]
fn agrees_with_monte_carlo_of_the_backoff_process() {
    let model = DsssSaturation::new(0, 1000);
    let d = model.durations();
    for n in [5u32, 20] {
        let s = DsssSaturation { n, ..model }.evaluate().unwrap();
        let (tau, p, thr) = monte_carlo(n as usize, &Backoff::DCF, &d, 8000, 400_000);
        let rel = |a: f64, b: f64| (a - b).abs() / b;
        assert!(rel(tau, s.tau) < 0.03, "n={n} tau {tau} vs {}", s.tau);
        assert!(rel(p, s.p) < 0.03, "n={n} p {p} vs {}", s.p);
        assert!(
            rel(thr, s.throughput_bps) < 0.02,
            "n={n} S {thr} vs {}",
            s.throughput_bps
        );
    }
}

/// `cargo test -p airqueue-analytic bianchi_table -- --nocapture` prints the reference table.
#[test]
fn bianchi_table() {
    let mb = |s: Saturation| s.throughput_bps / 1e6;
    println!();
    println!("802.11b saturation throughput (Bianchi), 11 Mb/s data, 1 Mb/s basic, long preamble,");
    println!("CW 31..1023, 28 B MAC overhead, payload = MSDU bytes, throughput in Mb/s of payload");
    println!(
        "{:>7} {:>4} {:>8} {:>7} {:>10} {:>10} {:>12} {:>10}",
        "payload", "n", "tau", "p", "basic+DIFS", "basic+EIFS", "EIFS,7 tries", "RTS+EIFS"
    );
    for payload in [1000u32, 1500] {
        let link = Link::default();
        println!(
            "{:>7} {:>4} {:>8} {:>7} {:>10.3} {:>10} {:>12} {:>10}   (one sender, air-time budget)",
            payload,
            1,
            "-",
            "-",
            airtime::saturation_goodput_bps(payload, &link, dsss::CW_MIN) / 1e6,
            "",
            "",
            ""
        );
        for n in [5u32, 10, 20, 50] {
            let eifs = DsssSaturation::new(n, payload);
            let difs = DsssSaturation {
                recovery: CollisionRecovery::Difs,
                ..eifs
            };
            let retry = DsssSaturation {
                backoff: Backoff {
                    retry: RetryLimit::Attempts(dsss::SHORT_RETRY_LIMIT),
                    ..Backoff::DCF
                },
                ..eifs
            };
            let rts = DsssSaturation {
                access: Access::RtsCts,
                ..eifs
            };
            let e = eifs.evaluate().unwrap();
            println!(
                "{:>7} {:>4} {:>8.5} {:>7.4} {:>10.3} {:>10.3} {:>12.3} {:>10.3}",
                payload,
                n,
                e.tau,
                e.p,
                mb(difs.evaluate().unwrap()),
                mb(e),
                mb(retry.evaluate().unwrap()),
                mb(rts.evaluate().unwrap()),
            );
        }
    }
}
