//! Run metrics: per-flow goodput and delay, time series, drops by node and reason, queue
//! samples, and the packet conservation law of DESIGN.md.
//!
//! Per-bin traces (each flow's deliveries per bin, queue lengths, TCP windows, sending
//! rates) are not kept for the whole run: a bin is closed as soon as simulated time
//! passes its end, and its rows go into [`Traces`], reused buffers that the driver drains
//! to a sink while the run goes (`airqueue_scenario::api`), so memory does not grow with
//! the run's length. A run nobody drains keeps every row (tests read them from
//! `RunOutcome::traces`); a run whose traces nobody reads turns them off.
//!
//! Goodput of a flow is the application payload bytes *delivered* to its sink inside its
//! active window `[max(start, warmup), min(stop, duration))`, divided by the window's
//! length: the rule of ns-3's PacketSink and FlowMonitor. Delay statistics come from the
//! same deliveries, and time-series bins count by delivery time. What the source put on
//! the network inside the window is kept apart as the flow's sent rate
//! ([`FlowMetrics::sent_bps`]).
//!
//! TCP flows' packets are not application data units: a TCP data packet or ACK that
//! reaches its transport endpoint is *delivered* for the conservation law
//! ([`Metrics::on_transport_delivered`]), duplicates included, while the flow's goodput
//! counts the bytes the receiver releases *in order* to the application
//! ([`Metrics::on_app_delivered`]), each segment once. A TCP flow's `packets_sent` counts
//! data segments put on the network (retransmissions included); its ACKs count only
//! towards conservation.

use crate::ids::{FlowId, NodeId};
use crate::net::{DropReason, Packet};
use crate::transport::tcp::TcpSample;
use airqueue_kernel::Time;
use std::collections::BTreeMap;

const REASONS: usize = DropReason::ALL.len();

/// Everything measured about one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowMetrics {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Payload bytes delivered to the application inside the active window.
    pub window_bytes: u64,
    /// Payload bytes the source put on the network inside the active window
    /// (retransmissions and coded packets included).
    pub window_sent_bytes: u64,
    pub window_start: Time,
    pub window_end: Time,
    /// Sum of end-to-end delays (ns) of packets delivered inside the active window.
    pub delay_sum_ns: u128,
    /// Sum of their squares (ns^2), for the delay's jitter.
    pub delay_sq_sum_ns2: u128,
    pub delay_count: u64,
    /// Delay (ns) of the last packet delivered inside the window, and the sum and number
    /// of the absolute differences between consecutive such delays: the delay variation
    /// of RFC 3550 6.4.1 (`|D(i-1, i)|`, unsmoothed) and RFC 3393's IPDV between
    /// consecutive deliveries.
    last_delay_ns: Option<u128>,
    pub delay_variation_sum_ns: u128,
    pub delay_variation_count: u64,
    /// Payload bytes and packets delivered so far in the open time-series bin
    /// ([`Metrics::open_bin`]).
    open_bin_bytes: u64,
    open_bin_packets: u64,
}

impl FlowMetrics {
    /// Application bits delivered per second over the active window.
    pub fn goodput_bps(&self) -> f64 {
        self.per_window_second(self.window_bytes)
    }

    /// Payload bits the source put on the network per second over the active window.
    pub fn sent_bps(&self) -> f64 {
        self.per_window_second(self.window_sent_bytes)
    }

    fn per_window_second(&self, bytes: u64) -> f64 {
        let span = (self.window_end.saturating_sub(self.window_start)).as_secs_f64();
        if span <= 0.0 {
            0.0
        } else {
            bytes as f64 * 8.0 / span
        }
    }

    /// Whether `t` lies inside the active window.
    #[inline]
    pub fn in_window(&self, t: Time) -> bool {
        t >= self.window_start && t < self.window_end
    }

    /// Mean one-way delay in seconds, `None` if nothing was delivered inside the window.
    pub fn mean_delay_s(&self) -> Option<f64> {
        (self.delay_count > 0).then(|| self.delay_sum_ns as f64 * 1e-9 / self.delay_count as f64)
    }

    /// Jitter of the one-way delay: its standard deviation over the packets delivered
    /// inside the window (population), seconds; `None` if nothing was delivered there.
    /// Exact integer arithmetic up to the final division, `n sum(d^2) - sum(d)^2`, while
    /// it fits in 128 bits; floating point beyond.
    pub fn delay_std_s(&self) -> Option<f64> {
        let n = self.delay_count as u128;
        if n == 0 {
            return None;
        }
        let exact = n
            .checked_mul(self.delay_sq_sum_ns2)
            .zip(self.delay_sum_ns.checked_mul(self.delay_sum_ns))
            .map(|(a, b)| a.saturating_sub(b) as f64);
        let spread = exact.unwrap_or_else(|| {
            let (nf, sum) = (n as f64, self.delay_sum_ns as f64);
            (nf * self.delay_sq_sum_ns2 as f64 - sum * sum).max(0.0)
        });
        Some(spread.sqrt() / n as f64 * 1e-9)
    }

    /// Jitter as the mean absolute difference between the one-way delays of consecutive
    /// packets delivered inside the window (RFC 3550 6.4.1's `D(i-1, i)`, averaged
    /// instead of smoothed), seconds; `None` before two deliveries there.
    pub fn delay_variation_s(&self) -> Option<f64> {
        (self.delay_variation_count > 0)
            .then(|| self.delay_variation_sum_ns as f64 * 1e-9 / self.delay_variation_count as f64)
    }

    /// One delay sample of a delivery inside the window.
    #[inline]
    fn add_delay(&mut self, delay_ns: u128) {
        self.delay_sum_ns += delay_ns;
        self.delay_sq_sum_ns2 += delay_ns * delay_ns;
        self.delay_count += 1;
        if let Some(last) = self.last_delay_ns {
            self.delay_variation_sum_ns += last.abs_diff(delay_ns);
            self.delay_variation_count += 1;
        }
        self.last_delay_ns = Some(delay_ns);
    }
}

/// One queue-length sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueSample {
    pub at: Time,
    pub node: NodeId,
    pub len_pkts: u32,
    /// DQM's reference length `q.ref` (packets) at `at`, for the node whose radio queue
    /// is DQM; `None` elsewhere.
    pub q_ref_pkts: Option<f64>,
    /// Mean queueing delay (seconds, enqueue to dequeue) of the packets that left the
    /// node's queue during the bin ending at `at`, for disciplines that sample it (DQM,
    /// CoDel, FQ-CoDel: `QueueDiscipline::sample`); `None` when none left or for others.
    pub queue_delay_s: Option<f64>,
}

/// One flow's deliveries in one closed time-series bin (the `timeseries` table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinRow {
    pub flow: FlowId,
    /// The bin's index: it spans `[bin * width, (bin + 1) * width)`, clipped to the run.
    pub bin: u64,
    /// Payload bytes and packets delivered to the flow's application in the bin.
    pub bytes: u64,
    pub packets: u64,
}

/// One TCP flow's window and timers at a bin boundary (the `cwnd` table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CwndRow {
    pub flow: FlowId,
    pub sample: TcpSample,
}

/// Which controller a [`RateRow`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateKind {
    /// A paced flow's source rate controller, by its scheme's `rates_kind`
    /// (`transport::RateScheme`): "diffq" (seed 000, 4.1), "flow_control" (backpressure,
    /// seed 002, eq. (5)), "external" (installed by the caller).
    Paced(&'static str),
    /// TFRC's allowed rate X (RFC 5348 4.3).
    Tfrc,
}

impl RateKind {
    /// The `kind` column's spelling.
    pub fn name(self) -> &'static str {
        match self {
            RateKind::Paced(kind) => kind,
            RateKind::Tfrc => "tfrc",
        }
    }
}

/// A rate-controlled flow's sending rate at a bin boundary (the `rates` table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateRow {
    pub flow: FlowId,
    pub at: Time,
    pub kind: RateKind,
    /// Application payload bit/s the source may send at.
    pub rate_bps: f64,
    /// The source queue the controller reads (DiffQ and flow control; `None` for TFRC).
    pub source_queue_pkts: Option<u32>,
}

/// Trace rows produced since the driver last drained them, in the order they were
/// closed (time first, then flow or node). Clearing keeps the buffers' capacity, so a
/// drained run appends without allocating once the buffers have grown to one flush.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    pub bins: Vec<BinRow>,
    pub queues: Vec<QueueSample>,
    pub cwnd: Vec<CwndRow>,
    pub rates: Vec<RateRow>,
}

impl Traces {
    /// Rows held, over every table.
    pub fn len(&self) -> usize {
        self.bins.len() + self.queues.len() + self.cwnd.len() + self.rates.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every row, keeping the buffers.
    pub fn clear(&mut self) {
        self.bins.clear();
        self.queues.clear();
        self.cwnd.clear();
        self.rates.clear();
    }

    /// Flow `flow`'s payload bytes per bin, in bin order (of the rows held).
    pub fn bin_bytes(&self, flow: FlowId) -> Vec<u64> {
        self.flow_bins(flow).map(|r| r.bytes).collect()
    }

    /// Flow `flow`'s delivered packets per bin, in bin order (of the rows held).
    pub fn bin_packets(&self, flow: FlowId) -> Vec<u64> {
        self.flow_bins(flow).map(|r| r.packets).collect()
    }

    fn flow_bins(&self, flow: FlowId) -> impl Iterator<Item = &BinRow> {
        self.bins.iter().filter(move |r| r.flow == flow)
    }
}

/// Counts of every packet's fate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

impl Conservation {
    /// DESIGN.md: every packet ever created is delivered, dropped with a reason, or in flight.
    pub fn holds(&self) -> bool {
        self.created == self.delivered + self.dropped + self.in_flight
    }
}

/// Where a flow's packets were dropped: the key of [`Metrics::flow_drops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowDropKey {
    pub flow: FlowId,
    pub node: NodeId,
    pub reason: DropReason,
    /// The dropping node created the packet (a flow's source for its data, its
    /// destination for TCP ACKs): the packet never left its origin.
    pub at_origin: bool,
}

/// DiffQ's relay overflows (seed 000, section 6.4, Fig. 15): what the sender and the
/// overflowing relay knew when a forwarded DiffQ packet found the relay's destination
/// queue full. A diagnostic of the ablation: were the sender's reports stale, and at
/// which MAC levels did the two stand?
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffqOverflows {
    /// Overflows at the first relay (the sender is the packet's source).
    pub first_relay: OverflowCounts,
    /// Overflows further along the path.
    pub deeper: OverflowCounts,
}

/// One side of [`DiffqOverflows`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OverflowCounts {
    pub drops: u64,
    /// The sender's level: its differential from the `qlen` the packet carries (its
    /// queue when it handed the packet to the MAC) less what its table holds for the
    /// relay at the drop, quantised as its scheduler does; levels above 7 count as 7.
    pub sender_level: [u64; 8],
    /// The relay's own level towards its routing next hop, at the drop.
    pub receiver_level: [u64; 8],
    /// How far the sender's table was below the relay's true queue: 0 (or above it),
    /// 1-4, 5-9, 10-19, 20 or more packets.
    pub stale_by: [u64; 5],
}

impl OverflowCounts {
    /// Counts one overflow.
    pub fn record(&mut self, sender_level: u8, receiver_level: u8, stale_by: i64) {
        self.drops += 1;
        self.sender_level[(sender_level as usize).min(7)] += 1;
        self.receiver_level[(receiver_level as usize).min(7)] += 1;
        let bucket = match stale_by {
            i64::MIN..=0 => 0,
            1..=4 => 1,
            5..=9 => 2,
            10..=19 => 3,
            _ => 4,
        };
        self.stale_by[bucket] += 1;
    }
}

/// All metrics of a run.
#[derive(Clone, Debug)]
pub struct Metrics {
    pub flows: Vec<FlowMetrics>,
    /// `drops[node][reason]`.
    pub drops: Vec<[u64; REASONS]>,
    /// Drops of flows' packets (data and TCP ACKs) by flow, node, reason and whether the
    /// node is the packet's origin; packets of no flow are counted in `drops` only.
    pub flow_drops: BTreeMap<FlowDropKey, u64>,
    /// DiffQ's relay overflows (all zero without DiffQ queues).
    pub diffq_overflows: DiffqOverflows,
    /// Closed trace rows not drained yet.
    pub traces: Traces,
    /// Whether trace rows are recorded at all (off: nobody reads them).
    pub keep_traces: bool,
    pub bin: Time,
    /// Time-series bins of the run, the last one clipped to its end.
    pub bins: u64,
    /// The first bin not closed yet: every flow's `open_bin_*` counts belong to it.
    pub open_bin: u64,
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
}

impl Metrics {
    pub fn new(node_count: usize, windows: &[(Time, Time)], duration: Time, bin: Time) -> Self {
        let bin = Time::from_nanos(bin.as_nanos().max(1));
        let bins = duration.as_nanos().div_ceil(bin.as_nanos());
        let flows = windows
            .iter()
            .map(|&(s, e)| FlowMetrics {
                window_start: s,
                window_end: e,
                ..FlowMetrics::default()
            })
            .collect();
        Metrics {
            flows,
            drops: vec![[0; REASONS]; node_count],
            flow_drops: BTreeMap::new(),
            diffq_overflows: DiffqOverflows::default(),
            traces: Traces::default(),
            keep_traces: true,
            bin,
            bins,
            open_bin: 0,
            created: 0,
            delivered: 0,
            dropped: 0,
        }
    }

    #[inline]
    pub fn on_created(&mut self, pkt: &Packet) {
        self.created += 1;
        if let Some(f) = self.flows.get_mut(pkt.flow.index()) {
            f.packets_sent += 1;
            f.bytes_sent += pkt.payload_bytes as u64;
            if f.in_window(pkt.created) {
                f.window_sent_bytes += pkt.payload_bytes as u64;
            }
        }
    }

    #[inline]
    pub fn on_delivered(&mut self, pkt: &Packet, now: Time) {
        self.delivered += 1;
        if pkt.flow.index() >= self.flows.len() {
            return;
        }
        let in_bin = self.enter_bin(now);
        let f = &mut self.flows[pkt.flow.index()];
        f.packets_delivered += 1;
        f.bytes_delivered += pkt.payload_bytes as u64;
        if f.in_window(now) {
            f.window_bytes += pkt.payload_bytes as u64;
            f.add_delay((now - pkt.created).as_nanos() as u128);
        }
        if in_bin {
            f.open_bin_bytes += pkt.payload_bytes as u64;
            f.open_bin_packets += 1;
        }
    }

    /// Closes the bins that end at or before `now` and tells whether `now` falls in a
    /// bin of the run (deliveries at the very end of the last whole bin do not).
    #[inline]
    fn enter_bin(&mut self, now: Time) -> bool {
        let b = now.as_nanos() / self.bin.as_nanos();
        if b > self.open_bin {
            self.close_bins(b);
        }
        b < self.bins
    }

    /// Closes every bin before bin `until` (capped at the run's last): one row per flow
    /// and bin, in bin order, then flow order. Called as deliveries and bin boundaries
    /// pass, so the open bin's counts are never more than one bin old.
    pub fn close_bins(&mut self, until: u64) {
        let until = until.min(self.bins);
        while self.open_bin < until {
            for (i, f) in self.flows.iter_mut().enumerate() {
                if self.keep_traces {
                    self.traces.bins.push(BinRow {
                        flow: FlowId(i as u32),
                        bin: self.open_bin,
                        bytes: f.open_bin_bytes,
                        packets: f.open_bin_packets,
                    });
                }
                f.open_bin_bytes = 0;
                f.open_bin_packets = 0;
            }
            self.open_bin += 1;
        }
    }

    /// Closes the bins that end at or before `now` (a bin boundary's sample).
    pub fn close_bins_before(&mut self, now: Time) {
        self.close_bins(now.as_nanos() / self.bin.as_nanos());
    }

    /// Closes every bin left: the run ended.
    pub fn close_all_bins(&mut self) {
        self.close_bins(self.bins);
    }

    /// Records a queue sample (if traces are kept).
    #[inline]
    pub fn record_queue(&mut self, sample: QueueSample) {
        if self.keep_traces {
            self.traces.queues.push(sample);
        }
    }

    /// Records a TCP flow's window sample (if traces are kept).
    #[inline]
    pub fn record_cwnd(&mut self, flow: FlowId, sample: TcpSample) {
        if self.keep_traces {
            self.traces.cwnd.push(CwndRow { flow, sample });
        }
    }

    /// Records a rate-controlled flow's rate sample (if traces are kept).
    #[inline]
    pub fn record_rate(&mut self, row: RateRow) {
        if self.keep_traces {
            self.traces.rates.push(row);
        }
    }

    /// A packet that carries no application data of a flow (a TCP ACK) was created: it
    /// counts for conservation only.
    #[inline]
    pub fn on_created_control(&mut self) {
        self.created += 1;
    }

    /// A TCP data packet (duplicates included) or ACK reached its endpoint: delivered for
    /// the conservation law. Application bytes are counted by [`Metrics::on_app_delivered`].
    #[inline]
    pub fn on_transport_delivered(&mut self) {
        self.delivered += 1;
    }

    /// A transport released `packets` segments carrying `bytes` application bytes in
    /// order to flow `flow`'s application at `now`, on the arrival of a packet sent at
    /// `sent` (one delay sample per such arrival). Goodput counts them by delivery time
    /// inside the flow's window. Conservation is not touched (see
    /// [`Metrics::on_transport_delivered`]).
    #[inline]
    pub fn on_app_delivered(
        &mut self,
        flow: FlowId,
        packets: u64,
        bytes: u64,
        sent: Time,
        now: Time,
    ) {
        if flow.index() >= self.flows.len() {
            return;
        }
        let in_bin = self.enter_bin(now);
        let f = &mut self.flows[flow.index()];
        f.packets_delivered += packets;
        f.bytes_delivered += bytes;
        if f.in_window(now) {
            f.window_bytes += bytes;
            f.add_delay(now.saturating_sub(sent).as_nanos() as u128);
        }
        if in_bin {
            f.open_bin_bytes += bytes;
            f.open_bin_packets += packets;
        }
    }

    #[inline]
    pub fn on_dropped(&mut self, node: NodeId, reason: DropReason) {
        self.dropped += 1;
        self.drops[node.index()][reason.index()] += 1;
    }

    /// Packet `pkt` was dropped at `node`: counted in `drops` and, for a flow's packet,
    /// in `flow_drops`.
    pub fn on_packet_dropped(&mut self, node: NodeId, reason: DropReason, pkt: &Packet) {
        self.on_dropped(node, reason);
        if pkt.flow.index() < self.flows.len() {
            let key = FlowDropKey {
                flow: pkt.flow,
                node,
                reason,
                at_origin: pkt.src == node,
            };
            *self.flow_drops.entry(key).or_insert(0) += 1;
        }
    }

    /// Total drops per reason over all nodes.
    pub fn drops_by_reason(&self) -> [u64; REASONS] {
        let mut out = [0; REASONS];
        for node in &self.drops {
            for (o, d) in out.iter_mut().zip(node) {
                *o += d;
            }
        }
        out
    }

    pub fn flow(&self, id: FlowId) -> &FlowMetrics {
        &self.flows[id.index()]
    }
}

/// Jain's fairness index (Jain, Chiu, Hawe 1984): (sum x)^2 / (n sum x^2); `None` when
/// there are no flows or every flow got nothing.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    (!x.is_empty() && sq > 0.0).then(|| sum * sum / (x.len() as f64 * sq))
}

/// Sum of natural logs of per-flow goodputs in bit/s (the proportional-fairness utility
/// DiffQ reports). A flow with zero goodput would make it minus infinity; it is counted as
/// 1 bit/s (log 0) so the figure stays comparable, and starved flows are reported apart.
pub fn log_utility(goodputs_bps: &[f64]) -> f64 {
    goodputs_bps.iter().map(|g| g.max(1.0).ln()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_bounds() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), Some(1.0));
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
        assert_eq!(jain_index(&[]), None);
    }

    #[test]
    fn delay_jitter_is_the_standard_deviation_of_the_delays() {
        let mut m = two_flows();
        assert_eq!(m.flows[0].delay_std_s(), None);
        // Delays 10, 20, 30 ms: mean 20 ms, population deviation sqrt(200/3) ms.
        for (sent, at) in [(0, 10), (100, 120), (200, 230)] {
            let (sent, now) = (Time::from_millis(sent), Time::from_millis(at));
            m.on_app_delivered(FlowId(0), 1, 10, sent, now);
        }
        let f = &m.flows[0];
        assert!((f.mean_delay_s().unwrap() - 0.020).abs() < 1e-12);
        let want = (200.0f64 / 3.0).sqrt() * 1e-3;
        assert!((f.delay_std_s().unwrap() - want).abs() < 1e-12);
        // One equal delay throughout: no jitter.
        let mut m = two_flows();
        for k in 0..4 {
            let sent = Time::from_millis(100 * k);
            m.on_app_delivered(FlowId(1), 1, 10, sent, sent + Time::from_millis(7));
        }
        assert_eq!(m.flows[1].delay_std_s(), Some(0.0));
    }

    #[test]
    fn delay_variation_is_the_mean_difference_of_consecutive_delays() {
        let mut m = two_flows();
        // Delays 10, 30, 20, 20 ms in delivery order: differences 20, 10, 0 ms.
        for (sent, at) in [(0, 10), (100, 130), (200, 220), (300, 320)] {
            let (sent, now) = (Time::from_millis(sent), Time::from_millis(at));
            m.on_app_delivered(FlowId(0), 1, 10, sent, now);
            if at == 10 {
                assert_eq!(
                    m.flows[0].delay_variation_s(),
                    None,
                    "one delivery: no pair"
                );
            }
        }
        assert!((m.flows[0].delay_variation_s().unwrap() - 0.010).abs() < 1e-12);
        // A steady ramp of delays has a large deviation but a small variation.
        let mut m = two_flows();
        for k in 0..100u64 {
            let sent = Time::from_millis(10 * k);
            m.on_app_delivered(FlowId(1), 1, 10, sent, sent + Time::from_millis(k));
        }
        let f = &m.flows[1];
        assert!((f.delay_variation_s().unwrap() - 0.001).abs() < 1e-12);
        assert!(f.delay_std_s().unwrap() > 0.025);
    }

    /// Two flows, 1-s bins, a 2.5-s run: three bins, the last one half long.
    fn two_flows() -> Metrics {
        let window = (Time::ZERO, Time::from_millis(2500));
        Metrics::new(
            1,
            &[window, window],
            Time::from_millis(2500),
            Time::from_secs(1),
        )
    }

    fn deliver(m: &mut Metrics, flow: u32, bytes: u64, at_ms: u64) {
        let now = Time::from_millis(at_ms);
        m.on_app_delivered(FlowId(flow), 1, bytes, now, now);
    }

    #[track_caller]
    fn rows(m: &Metrics) -> Vec<(u32, u64, u64, u64)> {
        (m.traces.bins.iter())
            .map(|r| (r.flow.0, r.bin, r.bytes, r.packets))
            .collect()
    }

    #[test]
    fn bins_close_as_time_passes_one_row_per_flow() {
        let mut m = two_flows();
        deliver(&mut m, 0, 100, 0);
        deliver(&mut m, 1, 7, 999);
        assert!(m.traces.bins.is_empty(), "bin 0 is still open");
        // A delivery exactly at 1 s belongs to bin 1 and closes bin 0 first.
        deliver(&mut m, 0, 5, 1000);
        assert_eq!(rows(&m), [(0, 0, 100, 1), (1, 0, 7, 1)]);
        // The sample at 2 s closes bin 1; nothing is delivered in bin 2.
        m.close_bins_before(Time::from_secs(2));
        m.close_all_bins();
        assert_eq!(
            rows(&m)[2..],
            [(0, 1, 5, 1), (1, 1, 0, 0), (0, 2, 0, 0), (1, 2, 0, 0)]
        );
        // Closing again, or a delivery at the very end, adds no row.
        deliver(&mut m, 1, 9, 2500);
        m.close_all_bins();
        assert_eq!(m.traces.bins.len(), 6);
        assert_eq!(m.traces.bin_bytes(FlowId(0)), [100, 5, 0]);
        assert_eq!(m.traces.bin_packets(FlowId(1)), [1, 0, 0]);
    }

    #[test]
    fn draining_between_bins_loses_no_row() {
        let mut kept = two_flows();
        let mut drained = two_flows();
        let mut streamed = Vec::new();
        for (flow, bytes, at_ms) in [(0, 1, 10), (1, 2, 1500), (0, 3, 1501), (1, 4, 2400)] {
            deliver(&mut kept, flow, bytes, at_ms);
            deliver(&mut drained, flow, bytes, at_ms);
            streamed.append(&mut drained.traces.bins);
        }
        kept.close_all_bins();
        drained.close_all_bins();
        streamed.append(&mut drained.traces.bins);
        assert_eq!(streamed, kept.traces.bins);
    }

    #[test]
    fn without_traces_nothing_is_kept_and_counts_stay() {
        let mut m = two_flows();
        m.keep_traces = false;
        deliver(&mut m, 0, 100, 0);
        deliver(&mut m, 0, 100, 1200);
        m.record_queue(QueueSample {
            at: Time::from_secs(1),
            node: NodeId(0),
            len_pkts: 3,
            q_ref_pkts: None,
            queue_delay_s: None,
        });
        m.close_all_bins();
        assert!(m.traces.is_empty());
        assert_eq!(m.open_bin, 3);
        assert_eq!(m.flows[0].window_bytes, 200);
    }

    #[test]
    fn log_utility_clamps_starved_flows() {
        assert!((log_utility(&[std::f64::consts::E, 0.0]) - 1.0).abs() < 1e-12);
    }
}
