//! Collision-free air-time budgets for one saturated sender: the throughput a MAC must
//! reach exactly when nobody contends (validation ladder step 2, DESIGN.md), for one-way
//! traffic and for a TCP data/ACK exchange over one hop.
//!
//! Each channel access costs `DIFS + mean backoff + DATA + SIFS + ACK`: the DCF's
//! post-transmission backoff (IEEE 802.11-2016 10.3.4.3) makes a saturated sender draw a
//! fresh backoff, uniform on `0..=CWmin`, before every frame, so the mean is `CWmin / 2`
//! slots (15.5 slots = 310 us for 802.11b).

pub use airqueue_phy::access::{access_time, mean_backoff, Link};

/// Payload goodput in bit/s of one saturated sender with no contention and no losses.
pub fn saturation_goodput_bps(payload_bytes: u32, link: &Link, cw_min: u16) -> f64 {
    payload_bytes as f64 * 8.0 / access_time(payload_bytes, link, cw_min).as_secs_f64()
}

/// A bulk TCP transfer over one hop: data segments one way, TCP ACKs the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpExchange {
    /// Application bytes per segment (the MSS).
    pub segment_payload_bytes: u32,
    /// IP + TCP header bytes on every datagram: 40 without options (RFC 791, RFC 9293),
    /// 52 with timestamps (RFC 7323).
    pub ip_tcp_header_bytes: u32,
    /// Data segments acknowledged by one TCP ACK: 1, or 2 with delayed ACKs
    /// (RFC 9293 3.8.6.3 / RFC 1122 4.2.3.2: at least every second full-sized segment).
    pub segments_per_ack: u32,
}

impl TcpExchange {
    /// MSS 1460, 40-byte headers, an ACK for every segment.
    pub const fn new(segment_payload_bytes: u32) -> TcpExchange {
        TcpExchange {
            segment_payload_bytes,
            ip_tcp_header_bytes: 40,
            segments_per_ack: 1,
        }
    }
}

/// TCP goodput in bit/s of application payload over one hop when the channel carries,
/// per `k = segments_per_ack` segments, `k` data accesses and one ACK access, each with
/// its full DIFS and mean backoff and no collisions between sender and receiver. This is
/// the serialized budget (as in Jun, Peddabachagari, Sichitiu, "Theoretical maximum
/// throughput of IEEE 802.11 and its applications", NCA 2003): an upper bound when the
/// two stations' backoffs never collide; their occasional collisions lower it slightly,
/// and overlapping backoffs raise it slightly.
pub fn tcp_goodput_bps(tcp: &TcpExchange, link: &Link, cw_min: u16) -> f64 {
    let k = tcp.segments_per_ack.max(1);
    let data = access_time(
        tcp.segment_payload_bytes + tcp.ip_tcp_header_bytes,
        link,
        cw_min,
    );
    let ack = access_time(tcp.ip_tcp_header_bytes, link, cw_min);
    let cycle = data.times(k as u64) + ack;
    (k as u64 * tcp.segment_payload_bytes as u64 * 8) as f64 / cycle.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::Time;
    use airqueue_phy::dsss::{DsssRate, Preamble};

    #[test]
    fn one_sender_budget_by_hand() {
        // 1500 B at 11 Mb/s, long preamble: DIFS 50 + backoff 310 + DATA 1304 + SIFS 10
        // + ACK 304 = 1978 us per 12000 bits = 6.0667 Mb/s.
        let link = Link::default();
        assert_eq!(mean_backoff(31), Time::from_micros(310));
        assert_eq!(access_time(1500, &link, 31), Time::from_micros(1978));
        let g = saturation_goodput_bps(1500, &link, 31);
        assert!((g - 12000.0 / 1978e-6).abs() < 1e-6);
        // Short preamble, 2 Mb/s Ack: DATA 96 + 1112, ACK 96 + 56.
        let short = Link {
            basic_rate: DsssRate::Mbps2,
            preamble: Preamble::Short,
            ..link
        };
        assert_eq!(
            access_time(1500, &short, 31),
            Time::from_micros(50 + 310 + 96 + 1112 + 10 + 152)
        );
    }

    #[test]
    fn tcp_budget() {
        let link = Link::default();
        let tcp = TcpExchange::new(1460);
        // Data: 1500 B datagram = 1978 us. TCP ACK: 40 B datagram, 68 B MPDU, DATA =
        // 192 + ceil(544 / 11) = 242 us, so DIFS 50 + 310 + 242 + SIFS 10 + ACK 304 = 916 us.
        assert_eq!(
            access_time(40, &link, 31),
            Time::from_micros(50 + 310 + 242 + 10 + 304)
        );
        let g1 = tcp_goodput_bps(&tcp, &link, 31);
        assert!((g1 - 1460.0 * 8.0 / (1978e-6 + 916e-6)).abs() < 1e-6);
        let delayed = TcpExchange {
            segments_per_ack: 2,
            ..tcp
        };
        let g2 = tcp_goodput_bps(&delayed, &link, 31);
        assert!(g2 > g1);
        assert!(g2 < saturation_goodput_bps(1460, &link, 31));
    }
}
