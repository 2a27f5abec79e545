//! A tiny deterministic event loop for tests: sender -> bottleneck FIFO (fixed service time
//! per packet, finite buffer) -> delay line -> receiver -> delay line -> sender, with
//! scripted loss hooks on both directions. Not part of the crate's API.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use airqueue_kernel::Time;

use crate::{Outbox, TcpAck, TcpData, TcpReceiver, TcpSender, TimerCmd};

#[derive(Clone, Copy, Debug)]
enum Ev {
    LinkDone,
    DataArrive(TcpData),
    AckArrive(TcpAck),
    Rto,
    DelAck,
}

pub type LossFn<T> = Box<dyn FnMut(&T, u64) -> bool>;

pub struct Net {
    pub now: Time,
    pub tx: TcpSender,
    pub rx: TcpReceiver,
    /// Bottleneck service time per data packet.
    pub service: Time,
    /// One-way propagation delay, each direction.
    pub delay: Time,
    pub queue_cap: usize,
    queue: VecDeque<TcpData>,
    busy: bool,
    heap: BinaryHeap<Reverse<(Time, u64, usize)>>,
    evs: Vec<Ev>,
    seq: u64,
    tx_out: Outbox<TcpData>,
    rx_out: Outbox<TcpAck>,
    /// Decides whether the n-th data segment leaving the sender is lost.
    pub data_loss: LossFn<TcpData>,
    /// Decides whether the n-th ACK leaving the receiver is lost.
    pub ack_loss: LossFn<TcpAck>,
    data_count: u64,
    ack_count: u64,
    pub queue_drops: u64,
    /// Integral of the waiting-queue length over time (packet * ns), from `measure_from`.
    pub queue_area: f64,
    pub measure_from: Time,
    last_change: Time,
    /// Every segment the sender emitted, with the time.
    pub sent: Vec<(Time, TcpData)>,
    /// Every ACK the sender processed, with the time.
    pub acks: Vec<(Time, TcpAck)>,
    pub events: u64,
}

impl Net {
    pub fn new(tx: TcpSender, rx: TcpReceiver, service: Time, delay: Time) -> Net {
        Net {
            now: Time::ZERO,
            tx,
            rx,
            service,
            delay,
            queue_cap: 1_000,
            queue: VecDeque::new(),
            busy: false,
            heap: BinaryHeap::new(),
            evs: Vec::new(),
            seq: 0,
            tx_out: Outbox::new(),
            rx_out: Outbox::new(),
            data_loss: Box::new(|_, _| false),
            ack_loss: Box::new(|_, _| false),
            data_count: 0,
            ack_count: 0,
            queue_drops: 0,
            queue_area: 0.0,
            measure_from: Time::ZERO,
            last_change: Time::ZERO,
            sent: Vec::new(),
            acks: Vec::new(),
            events: 0,
        }
    }

    fn schedule(&mut self, at: Time, ev: Ev) {
        self.evs.push(ev);
        self.heap.push(Reverse((at, self.seq, self.evs.len() - 1)));
        self.seq += 1;
    }

    fn account_queue(&mut self) {
        if self.now > self.measure_from {
            let from = self.last_change.max(self.measure_from);
            let dt = self.now.saturating_sub(from).as_nanos() as f64;
            self.queue_area += dt * self.queue.len() as f64;
        }
        self.last_change = self.now;
    }

    /// Mean number of packets waiting in the bottleneck queue since `measure_from`.
    pub fn mean_queue(&self) -> f64 {
        let span = self.now.saturating_sub(self.measure_from).as_nanos() as f64;
        if span > 0.0 {
            self.queue_area / span
        } else {
            0.0
        }
    }

    fn flush_tx(&mut self) {
        let mut out = std::mem::take(&mut self.tx_out);
        match out.timer {
            Some(TimerCmd::Arm(d)) => self.schedule(d, Ev::Rto),
            Some(TimerCmd::Cancel) | None => {}
        }
        for seg in out.items.drain(..) {
            self.sent.push((self.now, seg));
            let n = self.data_count;
            self.data_count += 1;
            if (self.data_loss)(&seg, n) {
                continue;
            }
            if self.queue.len() >= self.queue_cap {
                self.queue_drops += 1;
                continue;
            }
            self.account_queue();
            self.queue.push_back(seg);
            self.start_link();
        }
        out.clear();
        self.tx_out = out;
    }

    fn flush_rx(&mut self) {
        let mut out = std::mem::take(&mut self.rx_out);
        match out.timer {
            Some(TimerCmd::Arm(d)) => self.schedule(d, Ev::DelAck),
            Some(TimerCmd::Cancel) | None => {}
        }
        for ack in out.items.drain(..) {
            let n = self.ack_count;
            self.ack_count += 1;
            if (self.ack_loss)(&ack, n) {
                continue;
            }
            self.schedule(self.now + self.delay, Ev::AckArrive(ack));
        }
        out.clear();
        self.rx_out = out;
    }

    fn start_link(&mut self) {
        if !self.busy {
            if let Some(seg) = self.queue.pop_front() {
                self.busy = true;
                let done = self.now + self.service;
                self.schedule(done, Ev::LinkDone);
                self.schedule(done + self.delay, Ev::DataArrive(seg));
            }
        }
    }

    /// Starts the sender.
    pub fn start(&mut self) {
        self.tx.poll_send(self.now, &mut self.tx_out);
        self.flush_tx();
    }

    /// Runs one event; `false` when nothing is left.
    pub fn step(&mut self) -> bool {
        let Some(Reverse((at, _, idx))) = self.heap.pop() else {
            return false;
        };
        self.now = at;
        self.events += 1;
        match self.evs[idx] {
            Ev::LinkDone => {
                self.busy = false;
                self.account_queue();
                self.start_link();
            }
            Ev::DataArrive(seg) => {
                self.rx.on_data(&seg, self.now, &mut self.rx_out);
                self.flush_rx();
            }
            Ev::AckArrive(ack) => {
                self.acks.push((self.now, ack));
                self.tx.on_ack(&ack, self.now, &mut self.tx_out);
                self.flush_tx();
            }
            Ev::Rto => {
                self.tx.on_rto(self.now, &mut self.tx_out);
                self.flush_tx();
            }
            Ev::DelAck => {
                self.rx.on_delack_timer(self.now, &mut self.rx_out);
                self.flush_rx();
            }
        }
        true
    }

    /// Runs until `t` (inclusive) or until nothing is left.
    pub fn run_until(&mut self, t: Time) {
        while let Some(Reverse((at, _, _))) = self.heap.peek() {
            if *at > t {
                break;
            }
            self.step();
        }
        self.now = self.now.max(t);
        self.account_queue();
    }
}
