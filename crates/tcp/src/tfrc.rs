//! TFRC (RFC 5348) as two event-loop-free machines: a rate-based [`TfrcSender`] and a
//! [`TfrcReceiver`] that measures the loss event rate and reports it once per RTT.
//!
//! The shape follows the TCP machines of this crate: every input is a method call with
//! the current time, outputs go to an [`Outbox`] the caller drains (data packets or
//! feedback packets, and the command for the machine's single timer), and nothing
//! allocates per packet. The sender's second clock, its pacing, is not a timer command:
//! the caller asks [`TfrcSender::next_send_at`] after every call and sends when due with
//! [`TfrcSender::on_send_timer`].
//!
//! # Congestion signal
//!
//! [`CongestionSignal::Loss`] is TFRC: gaps in the sequence numbers are losses, and
//! losses within one RTT form one loss event (RFC 5348 5.2). [`CongestionSignal::EcnMarks`]
//! is seed 000's TFRC-ECN baseline: data packets are ECN-capable, losses are *not*
//! congestion (the receiver counts them but leaves them out of the loss event rate), and
//! packets that arrive with Congestion Experienced take their place: marks within one RTT
//! form one congestion event.
//!
//! # Simplifications against RFC 5348
//!
//! - Sequence numbers count whole packets; `s` is the payload size, fixed per flow.
//! - Loss detection (5.1) has no reordering allowance (NDUPACK = 0): a gap is a loss as
//!   soon as a higher sequence number arrives; late packets are ignored.
//! - `X_recv_set` (4.3) keeps only the most recent report (no data-limited handling and
//!   no idle-period rules of 4.4/8.2), and the sender is never application-limited.
//! - The no-feedback timer (4.4) halves the allowed rate and the kept `X_recv`
//!   (floored at `s / t_mbi`) instead of the full case analysis, and is restarted at
//!   `max(4R, 2s/X)`.
//! - Loss interval history discounting (5.5) is not implemented.
//! - The first loss interval (6.3.1) is synthesised from the receive rate over the last
//!   feedback interval by bisection of the throughput equation.
//! - The receiver sends feedback once per RTT (the RTT the data packets carry), at once
//!   on the first packet, on a new loss event, and on the first packet after an idle
//!   feedback timer; while the RTT is unknown it answers every packet.

use crate::{Outbox, TimerCmd};
use airqueue_kernel::Time;

/// RFC 5348 (4.3): the maximum back-off interval `t_mbi`, seconds.
pub const T_MBI_S: f64 = 64.0;
/// Bytes of the TFRC data header above UDP: sequence number, timestamp, RTT estimate
/// (32 bits each) and a word of flags (RFC 5348 3.2.1 lists the fields, not a layout).
pub const TFRC_DATA_HEADER_BYTES: u32 = 16;
/// Bytes of a feedback report above UDP: echoed timestamp, `t_delay`, `X_recv` and `p`
/// (32 bits each, RFC 5348 3.2.2).
pub const TFRC_FEEDBACK_BYTES: u32 = 16;

/// RFC 5348 (3.1), with `b = 1` and `t_RTO = 4R`: the allowed rate in bytes/s for packets
/// of `s` bytes, round-trip time `r_s` seconds and loss event rate `p` (`p > 0`).
pub fn throughput_equation(s: f64, r_s: f64, p: f64) -> f64 {
    let b = 1.0;
    let t_rto = 4.0 * r_s;
    let denom = r_s * (2.0 * b * p / 3.0).sqrt()
        + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p);
    s / denom
}

/// The loss event rate for which [`throughput_equation`] gives `x` bytes/s (bisection;
/// the equation decreases in `p`). Used for the first loss interval (RFC 5348 6.3.1).
pub fn invert_equation(s: f64, r_s: f64, x: f64) -> f64 {
    let (mut lo, mut hi) = (1e-8_f64, 1.0_f64);
    if throughput_equation(s, r_s, lo) <= x {
        return lo;
    }
    if throughput_equation(s, r_s, hi) >= x {
        return hi;
    }
    for _ in 0..60 {
        let mid = (lo * hi).sqrt();
        if throughput_equation(s, r_s, mid) > x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo * hi).sqrt()
}

/// What the receiver treats as congestion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CongestionSignal {
    /// TFRC: lost packets (RFC 5348).
    #[default]
    Loss,
    /// TFRC-ECN (seed 000): CE-marked packets; losses are ignored.
    EcnMarks,
}

/// A TFRC data packet's header (RFC 5348 3.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TfrcData {
    pub seq: u32,
    pub payload_bytes: u32,
    /// The sender's timestamp.
    pub sent_at: Time,
    /// The sender's current RTT estimate (`Time::ZERO` while unknown).
    pub rtt: Time,
    /// RFC 3168 ECT codepoint (TFRC-ECN).
    pub ect: bool,
    /// RFC 3168 Congestion Experienced, set by a queue.
    pub ce: bool,
}

impl TfrcData {
    /// Sets CE on an ECN-capable packet; returns whether it was ECN-capable.
    pub fn mark_ce(&mut self) -> bool {
        if self.ect {
            self.ce = true;
        }
        self.ect
    }
}

/// A TFRC feedback report (RFC 5348 3.2.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TfrcFeedback {
    /// Timestamp of the last data packet received.
    pub t_recvdata: Time,
    /// Time between that packet's arrival and this report.
    pub t_delay: Time,
    /// Receive rate since the previous report, bytes/s.
    pub x_recv: f64,
    /// Loss event rate.
    pub p: f64,
}

/// Sender settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TfrcSenderConfig {
    /// `s`: payload bytes per packet.
    pub payload_bytes: u32,
    /// Mark data packets ECN-capable (TFRC-ECN).
    pub ecn: bool,
}

/// Sender counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TfrcSenderStats {
    pub packets_sent: u64,
    pub feedbacks: u64,
    pub nofeedback_expiries: u64,
}

/// The TFRC sender (RFC 5348 section 4).
#[derive(Clone, Debug)]
pub struct TfrcSender {
    cfg: TfrcSenderConfig,
    /// Allowed sending rate `X`, bytes/s.
    x: f64,
    /// Latest `X_recv`, bytes/s.
    x_recv: f64,
    /// Latest `p`.
    p: f64,
    /// Smoothed RTT `R`, seconds; `None` before the first feedback.
    r: Option<f64>,
    /// Time last doubled (slow start).
    tld: Time,
    next_seq: u32,
    /// When the next packet may go; `None` when stopped or not started.
    next_send: Option<Time>,
    last_send: Option<Time>,
    nofeedback_at: Option<Time>,
    stats: TfrcSenderStats,
}

impl TfrcSender {
    pub fn new(cfg: TfrcSenderConfig) -> Self {
        TfrcSender {
            cfg,
            // RFC 5348 (4.2): one packet per second until the first feedback.
            x: cfg.payload_bytes.max(1) as f64,
            x_recv: 0.0,
            p: 0.0,
            r: None,
            tld: Time::ZERO,
            next_seq: 0,
            next_send: None,
            last_send: None,
            nofeedback_at: None,
            stats: TfrcSenderStats::default(),
        }
    }

    fn s(&self) -> f64 {
        self.cfg.payload_bytes.max(1) as f64
    }

    /// RFC 5348 (4.2): `W_init = min(4s, max(2s, 4380))`, in bytes.
    fn w_init(&self) -> f64 {
        let s = self.s();
        (4.0 * s).min((2.0 * s).max(4380.0))
    }

    /// Allowed sending rate `X`, bytes/s.
    pub fn rate(&self) -> f64 {
        self.x
    }
    /// Smoothed RTT, seconds.
    pub fn rtt_s(&self) -> Option<f64> {
        self.r
    }
    /// Loss event rate last reported.
    pub fn p(&self) -> f64 {
        self.p
    }
    pub fn x_recv(&self) -> f64 {
        self.x_recv
    }
    pub fn stats(&self) -> TfrcSenderStats {
        self.stats
    }
    pub fn config(&self) -> &TfrcSenderConfig {
        &self.cfg
    }
    /// When the caller should call [`TfrcSender::on_send_timer`] next.
    pub fn next_send_at(&self) -> Option<Time> {
        self.next_send
    }

    fn ipi(&self) -> Time {
        Time::from_secs_f64(self.s() / self.x.max(1e-9))
    }

    /// RFC 5348 (4.4): the no-feedback interval, `max(4R, 2s/X)` (2 s before any RTT).
    fn nofeedback_interval(&self) -> Time {
        match self.r {
            None => Time::from_secs(2),
            Some(r) => Time::from_secs_f64((4.0 * r).max(2.0 * self.s() / self.x)),
        }
    }

    fn arm_nofeedback(&mut self, now: Time, out: &mut Outbox<TfrcData>) {
        let at = now + self.nofeedback_interval();
        self.nofeedback_at = Some(at);
        out.timer = Some(TimerCmd::Arm(at));
    }

    /// The flow starts: the first packet goes now.
    pub fn start(&mut self, now: Time, out: &mut Outbox<TfrcData>) {
        self.next_send = Some(now);
        self.arm_nofeedback(now, out);
        self.on_send_timer(now, out);
    }

    /// The application stops: no more packets, no more timer.
    pub fn stop(&mut self, out: &mut Outbox<TfrcData>) {
        self.next_send = None;
        self.nofeedback_at = None;
        out.timer = Some(TimerCmd::Cancel);
    }

    /// The pacing clock: sends one packet if one is due.
    pub fn on_send_timer(&mut self, now: Time, out: &mut Outbox<TfrcData>) {
        let Some(due) = self.next_send else {
            return;
        };
        if now < due {
            return;
        }
        out.items.push(TfrcData {
            seq: self.next_seq,
            payload_bytes: self.cfg.payload_bytes,
            sent_at: now,
            rtt: self.r.map_or(Time::ZERO, Time::from_secs_f64),
            ect: self.cfg.ecn,
            ce: false,
        });
        self.next_seq += 1;
        self.stats.packets_sent += 1;
        self.last_send = Some(now);
        self.next_send = Some(now + self.ipi());
    }

    /// After `X` changed, the next packet goes one new inter-packet interval after the
    /// last one (never in the past).
    fn repace(&mut self, now: Time) {
        if let (Some(_), Some(last)) = (self.next_send, self.last_send) {
            self.next_send = Some((last + self.ipi()).max(now));
        }
    }

    /// RFC 5348 (4.3): a feedback report arrived.
    pub fn on_feedback(&mut self, fb: &TfrcFeedback, now: Time, out: &mut Outbox<TfrcData>) {
        self.stats.feedbacks += 1;
        let sample = now
            .saturating_sub(fb.t_recvdata)
            .saturating_sub(fb.t_delay)
            .as_secs_f64()
            .max(1e-6);
        let first = self.r.is_none();
        let r = match self.r {
            None => sample,
            Some(r) => 0.9 * r + 0.1 * sample,
        };
        self.r = Some(r);
        self.x_recv = fb.x_recv;
        self.p = fb.p;
        let s = self.s();
        // A report with no receive rate yet (the first) sets no limit.
        let recv_limit = if self.x_recv > 0.0 {
            2.0 * self.x_recv
        } else {
            f64::INFINITY
        };
        if fb.p > 0.0 {
            let x_calc = throughput_equation(s, r, fb.p);
            self.x = x_calc.min(recv_limit).max(s / T_MBI_S);
        } else if first {
            self.x = self.w_init() / r;
            self.tld = now;
        } else if now.saturating_sub(self.tld).as_secs_f64() >= r {
            // Slow start: double once per RTT, at most twice the receive rate.
            self.x = (2.0 * self.x).min(recv_limit).max(self.w_init() / r);
            self.tld = now;
        }
        if self.next_send.is_some() {
            self.arm_nofeedback(now, out);
        }
        self.repace(now);
    }

    /// RFC 5348 (4.4), simplified: the no-feedback timer expired.
    pub fn on_nofeedback_timer(&mut self, now: Time, out: &mut Outbox<TfrcData>) {
        match self.nofeedback_at {
            Some(at) if now >= at => {}
            _ => return,
        }
        self.stats.nofeedback_expiries += 1;
        let s = self.s();
        self.x = (self.x / 2.0).max(s / T_MBI_S);
        self.x_recv = (self.x_recv / 2.0).max(s / (2.0 * T_MBI_S));
        self.arm_nofeedback(now, out);
        self.repace(now);
    }
}

/// Receiver settings.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TfrcReceiverConfig {
    pub signal: CongestionSignal,
}

/// Receiver counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TfrcReceiverStats {
    pub received: u64,
    /// Sequence numbers skipped (lost or, rarely, late).
    pub lost: u64,
    pub ce_received: u64,
    /// Arrivals below the highest sequence number seen (ignored).
    pub late: u64,
    /// Congestion events (loss events, or mark events under TFRC-ECN).
    pub loss_events: u64,
    pub feedbacks: u64,
}

/// Most recent closed loss intervals kept (RFC 5348 5.4: n = 8).
pub const LOSS_INTERVALS: usize = 8;

/// RFC 5348 (5.4) average loss interval of `open` (`I_0`) and the closed intervals
/// `closed` (`I_1..I_n`, most recent first, `n <= 8`); `None` with no closed interval.
pub fn average_loss_interval(open: f64, closed: &[f64]) -> Option<f64> {
    let n = closed.len().min(LOSS_INTERVALS);
    if n == 0 {
        return None;
    }
    let w = |i: usize| -> f64 {
        if i < n / 2 {
            1.0
        } else {
            2.0 * (n - i) as f64 / (n + 2) as f64
        }
    };
    let interval = |i: usize| if i == 0 { open } else { closed[i - 1] };
    let (mut tot0, mut tot1, mut wtot) = (0.0, 0.0, 0.0);
    for (i, closed_i) in closed.iter().enumerate().take(n) {
        tot0 += interval(i) * w(i);
        tot1 += closed_i * w(i);
        wtot += w(i);
    }
    Some(tot0.max(tot1) / wtot)
}

/// The TFRC receiver (RFC 5348 sections 5 and 6).
#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    cfg: TfrcReceiverConfig,
    /// Next expected sequence number and the last in-order arrival's timestamp.
    expected: u32,
    last_ts: Time,
    /// Sender's RTT estimate from the latest data packet (seconds, 0 = unknown).
    rtt_s: f64,
    /// Closed intervals, most recent first.
    closed: [f64; LOSS_INTERVALS],
    n_closed: usize,
    /// First sequence number and sender timestamp of the current congestion event.
    event_seq: Option<u32>,
    event_ts: Time,
    /// Current loss event rate.
    p: f64,
    /// Feedback bookkeeping.
    last_fb: Option<Time>,
    bytes_since_fb: u64,
    last_x_recv: f64,
    last_data_ts: Time,
    last_data_arrival: Time,
    data_since_fb: bool,
    fb_at: Option<Time>,
    /// Payload size of the latest packet (`s`).
    last_s: u32,
    stats: TfrcReceiverStats,
}

impl TfrcReceiver {
    pub fn new(cfg: TfrcReceiverConfig) -> Self {
        TfrcReceiver {
            cfg,
            expected: 0,
            last_ts: Time::ZERO,
            rtt_s: 0.0,
            closed: [0.0; LOSS_INTERVALS],
            n_closed: 0,
            event_seq: None,
            event_ts: Time::ZERO,
            p: 0.0,
            last_fb: None,
            bytes_since_fb: 0,
            last_x_recv: 0.0,
            last_data_ts: Time::ZERO,
            last_data_arrival: Time::ZERO,
            data_since_fb: false,
            fb_at: None,
            last_s: 0,
            stats: TfrcReceiverStats::default(),
        }
    }

    /// Current loss event rate `p`.
    pub fn p(&self) -> f64 {
        self.p
    }
    pub fn stats(&self) -> TfrcReceiverStats {
        self.stats
    }
    /// Closed loss intervals, most recent first.
    pub fn loss_intervals(&self) -> &[f64] {
        &self.closed[..self.n_closed]
    }

    fn recompute_p(&mut self) {
        let Some(start) = self.event_seq else {
            self.p = 0.0;
            return;
        };
        let open = (self.expected.saturating_sub(start)) as f64;
        self.p = average_loss_interval(open, &self.closed[..self.n_closed])
            .map_or(0.0, |m| 1.0 / m.max(1.0));
    }

    /// The receive rate since the last report, bytes/s.
    fn x_recv(&self, now: Time) -> f64 {
        match self.last_fb {
            Some(t) if now > t => self.bytes_since_fb as f64 / (now - t).as_secs_f64(),
            _ => self.last_x_recv,
        }
    }

    /// A congestion indication (lost or marked packet `seq`, sent about `ts`). Returns
    /// whether it started a new congestion event (RFC 5348 5.2).
    fn indication(&mut self, seq: u32, ts: Time, now: Time) -> bool {
        match self.event_seq {
            None => {
                // RFC 5348 (6.3.1): the first interval from the receive rate.
                let s = self.cfg_s();
                let r = if self.rtt_s > 0.0 { self.rtt_s } else { 0.1 };
                let x = self.x_recv(now).max(s);
                let p0 = invert_equation(s, r, x);
                self.closed[0] = 1.0 / p0;
                self.n_closed = 1;
            }
            Some(start) => {
                if ts.saturating_sub(self.event_ts).as_secs_f64() <= self.rtt_s {
                    return false;
                }
                self.closed.copy_within(0..LOSS_INTERVALS - 1, 1);
                self.closed[0] = seq.saturating_sub(start).max(1) as f64;
                self.n_closed = (self.n_closed + 1).min(LOSS_INTERVALS);
            }
        }
        self.event_seq = Some(seq);
        self.event_ts = ts;
        self.stats.loss_events += 1;
        true
    }

    /// Payload size of the latest packet, used as `s` for the first interval.
    fn cfg_s(&self) -> f64 {
        self.last_s.max(1) as f64
    }

    /// A data packet arrived.
    pub fn on_data(&mut self, d: &TfrcData, now: Time, out: &mut Outbox<TfrcFeedback>) {
        self.stats.received += 1;
        self.last_s = d.payload_bytes;
        if d.rtt > Time::ZERO {
            self.rtt_s = d.rtt.as_secs_f64();
        }
        if d.seq < self.expected {
            self.stats.late += 1;
            return;
        }
        self.bytes_since_fb += d.payload_bytes as u64;
        let mut new_event = false;
        if d.seq > self.expected {
            let gap = d.seq - self.expected;
            self.stats.lost += gap as u64;
            if self.cfg.signal == CongestionSignal::Loss {
                let (s0, t0) = (self.expected.saturating_sub(1), self.last_ts);
                let span = (d.seq - s0) as f64;
                let dt = d.sent_at.saturating_sub(t0).as_nanos() as f64;
                for l in self.expected..d.seq {
                    let frac = (l - s0) as f64 / span;
                    let ts = t0 + Time::from_nanos((dt * frac) as u64);
                    new_event |= self.indication(l, ts, now);
                }
            }
        }
        if d.ce {
            self.stats.ce_received += 1;
            if self.cfg.signal == CongestionSignal::EcnMarks {
                new_event |= self.indication(d.seq, d.sent_at, now);
            }
        }
        self.expected = d.seq + 1;
        self.last_ts = d.sent_at;
        self.last_data_ts = d.sent_at;
        self.last_data_arrival = now;
        self.data_since_fb = true;
        let old_p = self.p;
        self.recompute_p();
        let first = self.last_fb.is_none();
        let idle = self.fb_at.is_none();
        if first || idle || self.rtt_s == 0.0 || (new_event && self.p > old_p) {
            self.send_feedback(now, out);
        }
    }

    /// The feedback timer expired (RFC 5348 6.2).
    pub fn on_feedback_timer(&mut self, now: Time, out: &mut Outbox<TfrcFeedback>) {
        match self.fb_at {
            Some(at) if now >= at => {}
            _ => return,
        }
        if self.data_since_fb {
            self.send_feedback(now, out);
        } else {
            // Nothing to report: wait for the next data packet.
            self.fb_at = None;
            out.timer = Some(TimerCmd::Cancel);
        }
    }

    fn send_feedback(&mut self, now: Time, out: &mut Outbox<TfrcFeedback>) {
        let x_recv = if self.last_fb.is_some() {
            self.x_recv(now)
        } else {
            0.0
        };
        out.items.push(TfrcFeedback {
            t_recvdata: self.last_data_ts,
            t_delay: now.saturating_sub(self.last_data_arrival),
            x_recv,
            p: self.p,
        });
        self.stats.feedbacks += 1;
        self.last_x_recv = x_recv;
        self.last_fb = Some(now);
        self.bytes_since_fb = 0;
        self.data_since_fb = false;
        if self.rtt_s > 0.0 {
            let at = now + Time::from_secs_f64(self.rtt_s);
            self.fb_at = Some(at);
            out.timer = Some(TimerCmd::Arm(at));
        } else {
            self.fb_at = None;
            out.timer = Some(TimerCmd::Cancel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    #[test]
    fn equation_matches_hand_computation() {
        // s = 1460, R = 0.1 s, p = 0.01, b = 1, t_RTO = 0.4 s:
        // R*sqrt(2p/3) = 0.1 * 0.0816497 = 0.00816497
        // t_RTO * 3*sqrt(3p/8) * p * (1 + 32p^2) = 0.4 * 0.1837117 * 0.01 * 1.0032
        //   = 0.00073720
        // X = 1460 / 0.00890217 = 164005 bytes/s.
        let x = throughput_equation(1460.0, 0.1, 0.01);
        assert!(close(x, 164_005.0, 1e-4), "X = {x}");
        // p = 0.1: 0.1*0.2581989 + 0.4*0.5809475*0.1*1.32 = 0.0258199 + 0.0306740
        let x = throughput_equation(1000.0, 0.1, 0.1);
        assert!(close(x, 1000.0 / 0.0564939, 1e-4), "X = {x}");
        // The inverse finds p back.
        let p = invert_equation(1460.0, 0.1, 164_005.0);
        assert!(close(p, 0.01, 1e-4), "p = {p}");
    }

    #[test]
    fn loss_interval_average_uses_rfc_weights() {
        // n = 8: weights 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2 (sum 6).
        let closed = [100.0; 8];
        assert_eq!(average_loss_interval(50.0, &closed), Some(100.0));
        // A long open interval counts when it raises the mean:
        // I_tot0 = 400*1 + 100*(1+1+1+0.8+0.6+0.4+0.2) = 400 + 500 = 900 -> 150.
        assert_eq!(average_loss_interval(400.0, &closed), Some(150.0));
        // Distinct closed intervals, most recent first:
        // I_tot1 = 10+20+30+40 + 50*0.8 + 60*0.6 + 70*0.4 + 80*0.2 = 100 + 120 = 220
        let closed = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0];
        let m = average_loss_interval(0.0, &closed).unwrap();
        assert!(close(m, 220.0 / 6.0, 1e-12), "{m}");
        // n = 2: weights 1, 2*(2-1)/4 = 0.5.
        let m = average_loss_interval(0.0, &[10.0, 40.0]).unwrap();
        assert!(close(m, (10.0 + 40.0 * 0.5) / 1.5, 1e-12), "{m}");
        assert_eq!(average_loss_interval(5.0, &[]), None);
    }

    const MS: u64 = 1_000_000;

    fn data(seq: u32, t_ms: u64, rtt_ms: u64) -> TfrcData {
        TfrcData {
            seq,
            payload_bytes: 1000,
            sent_at: Time::from_nanos(t_ms * MS),
            rtt: Time::from_millis(rtt_ms),
            ect: true,
            ce: false,
        }
    }

    /// Feeds packets 0..n sent every ms, skipping `lost`, marking `marked`.
    fn feed(rx: &mut TfrcReceiver, range: std::ops::Range<u32>, lost: &[u32], marked: &[u32]) {
        let mut out = Outbox::new();
        for seq in range {
            if lost.contains(&seq) {
                continue;
            }
            let mut d = data(seq, seq as u64, 100);
            d.ce = marked.contains(&seq);
            let now = Time::from_nanos((seq as u64 + 50) * MS);
            rx.on_data(&d, now, &mut out);
        }
    }

    #[test]
    fn losses_within_one_rtt_are_one_event() {
        let mut rx = TfrcReceiver::new(TfrcReceiverConfig::default());
        // Losses at 100, 101, 150 (within 100 ms of each other): one event; 400: another.
        feed(&mut rx, 0..1000, &[100, 101, 150, 400], &[]);
        let st = rx.stats();
        assert_eq!(st.lost, 4);
        assert_eq!(st.loss_events, 2);
        assert_eq!(rx.loss_intervals().len(), 2);
        assert_eq!(rx.loss_intervals()[0], 300.0);
        assert!(rx.p() > 0.0);
    }

    #[test]
    fn ecn_mode_ignores_losses_and_reacts_to_marks() {
        let cfg = TfrcReceiverConfig {
            signal: CongestionSignal::EcnMarks,
        };
        let mut rx = TfrcReceiver::new(cfg);
        feed(&mut rx, 0..500, &[100, 200, 300], &[]);
        assert_eq!(rx.stats().lost, 3);
        assert_eq!(rx.stats().loss_events, 0);
        assert_eq!(rx.p(), 0.0);
        // Marks at 600 and 650 (one RTT apart at most): one event; 900: a second.
        feed(&mut rx, 500..1200, &[], &[600, 650, 900]);
        assert_eq!(rx.stats().ce_received, 3);
        assert_eq!(rx.stats().loss_events, 2);
        assert_eq!(rx.loss_intervals()[0], 300.0);
        assert!(rx.p() > 0.0);
        // The loss-based receiver sees the same marks as nothing.
        let mut rx = TfrcReceiver::new(TfrcReceiverConfig::default());
        feed(&mut rx, 0..1200, &[], &[600, 650, 900]);
        assert_eq!(rx.stats().loss_events, 0);
        assert_eq!(rx.p(), 0.0);
    }

    fn fb(now_ms: u64, rtt_ms: u64, x_recv: f64, p: f64) -> TfrcFeedback {
        TfrcFeedback {
            t_recvdata: Time::from_millis(now_ms - rtt_ms),
            t_delay: Time::ZERO,
            x_recv,
            p,
        }
    }

    #[test]
    fn slow_start_doubles_per_rtt_bounded_by_twice_x_recv() {
        let mut tx = TfrcSender::new(TfrcSenderConfig {
            payload_bytes: 1000,
            ecn: false,
        });
        let mut out = Outbox::new();
        tx.start(Time::ZERO, &mut out);
        assert_eq!(out.items.len(), 1);
        assert_eq!(tx.rate(), 1000.0); // one packet per second
                                       // First feedback: R = 100 ms, X = W_init / R = 4000 / 0.1.
        tx.on_feedback(&fb(100, 100, 0.0, 0.0), Time::from_millis(100), &mut out);
        assert!(close(tx.rate(), 40_000.0, 1e-9), "{}", tx.rate());
        // One RTT later with a receive rate that allows it: doubles.
        tx.on_feedback(&fb(200, 100, 1e6, 0.0), Time::from_millis(200), &mut out);
        assert!(close(tx.rate(), 80_000.0, 1e-9), "{}", tx.rate());
        // Less than an RTT later: unchanged.
        tx.on_feedback(&fb(250, 100, 1e6, 0.0), Time::from_millis(250), &mut out);
        assert!(close(tx.rate(), 80_000.0, 1e-9), "{}", tx.rate());
        // Bounded by 2 * X_recv.
        tx.on_feedback(
            &fb(400, 100, 50_000.0, 0.0),
            Time::from_millis(400),
            &mut out,
        );
        assert!(close(tx.rate(), 100_000.0, 1e-9), "{}", tx.rate());
    }

    #[test]
    fn rate_drops_when_p_jumps() {
        let mut tx = TfrcSender::new(TfrcSenderConfig {
            payload_bytes: 1460,
            ecn: false,
        });
        let mut out = Outbox::new();
        tx.start(Time::ZERO, &mut out);
        tx.on_feedback(&fb(100, 100, 0.0, 0.0), Time::from_millis(100), &mut out);
        tx.on_feedback(&fb(200, 100, 1e7, 0.01), Time::from_millis(200), &mut out);
        let x1 = tx.rate();
        assert!(close(x1, 164_005.0, 1e-3), "{x1}");
        // p quadruples: the square-root law roughly halves the rate.
        tx.on_feedback(&fb(300, 100, 1e7, 0.04), Time::from_millis(300), &mut out);
        let x2 = tx.rate();
        assert!(x2 < 0.55 * x1 && x2 > 0.35 * x1, "{x1} -> {x2}");
        // The no-feedback timer halves it.
        let at = match out.timer {
            Some(TimerCmd::Arm(at)) => at,
            t => panic!("timer {t:?}"),
        };
        tx.on_nofeedback_timer(at, &mut out);
        assert!(close(tx.rate(), x2 / 2.0, 1e-9));
        assert_eq!(tx.stats().nofeedback_expiries, 1);
    }

    #[test]
    fn sender_paces_at_the_allowed_rate() {
        let mut tx = TfrcSender::new(TfrcSenderConfig {
            payload_bytes: 1000,
            ecn: true,
        });
        let mut out = Outbox::new();
        tx.start(Time::ZERO, &mut out);
        tx.on_feedback(&fb(100, 100, 0.0, 0.0), Time::from_millis(100), &mut out);
        // 40 kB/s = one 1000-byte packet per 25 ms.
        let mut t = tx.next_send_at().unwrap();
        for _ in 0..40 {
            tx.on_send_timer(t, &mut out);
            t = tx.next_send_at().unwrap();
        }
        assert_eq!(out.items.len(), 41);
        assert!(out.items.iter().all(|d| d.ect));
        let gap = out.items[10].sent_at - out.items[9].sent_at;
        assert_eq!(gap, Time::from_millis(25));
        tx.stop(&mut out);
        assert_eq!(tx.next_send_at(), None);
    }

    #[test]
    fn receiver_reports_once_per_rtt() {
        let mut rx = TfrcReceiver::new(TfrcReceiverConfig::default());
        let mut out = Outbox::new();
        // 1 packet per ms for 1 s, RTT 100 ms: the first packet, then one per timer.
        let mut fb_timer: Option<Time> = None;
        for seq in 0..1000u32 {
            let now = Time::from_millis(seq as u64 + 50);
            if let Some(at) = fb_timer {
                if at <= now {
                    rx.on_feedback_timer(at, &mut out);
                }
            }
            rx.on_data(&data(seq, seq as u64, 100), now, &mut out);
            match out.timer.take() {
                Some(TimerCmd::Arm(at)) => fb_timer = Some(at),
                Some(TimerCmd::Cancel) => fb_timer = None,
                None => {}
            }
        }
        let n = out.items.len();
        assert!((9..=11).contains(&n), "{n} reports");
        let last = out.items.last().unwrap();
        assert!(close(last.x_recv, 1e6, 0.02), "X_recv {}", last.x_recv);
        assert_eq!(last.p, 0.0);
    }
}
