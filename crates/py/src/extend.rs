//! Python-written schemes on the Rust substrate (`aq.run(scenario, queue=..., cc=...)`).
//!
//! [`PyQdisc`] implements the core's `QueueDiscipline` by calling a Python object, and
//! [`PyRate`] its `RateController`; [`PyExtensions`] builds one per radio interface and
//! per paced flow through the user's factories. Everything else (radio, MAC, routing,
//! transport, metrics) stays in Rust, and the run releases the GIL except inside these
//! calls.
//!
//! * **Packets stay in Rust.** The adapter keeps each accepted packet in a slab slot;
//!   Python sees a read-only [`PacketView`] naming the slot and the packet's uid, and
//!   `dequeue` must hand back one of the views it holds: a view it no longer holds (or
//!   never held) is an error, not a second copy.
//! * **The adapter keeps the counters**, so `received = dropped + enqueued` and
//!   `len = enqueued - dequeued` hold whatever Python does, and `has_room` (what lets a
//!   saturating source fill the queue) is derived: fewer than `capacity` packets held and
//!   no refusal since the last packet left, so a discipline that refuses below capacity
//!   (an AQM) cannot make a source offer packets forever at one instant.
//! * **Errors stop the run.** An exception in user code is kept with the node, time and
//!   packet it happened at (the first one only); every adapter then goes quiet (refuses,
//!   hands out nothing, calls no Python) and the driver stops the run after its current
//!   step of simulated time (`api::Extensions::failure`). Python raises it with the
//!   user's exception as `__cause__`.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use airqueue_kernel::Time;
use airqueue_scenario::api::Extensions;
use airqueue_sim::medium::wifi::mac::TxStatus;
use airqueue_sim::net::{DropReason, Packet, Report, TransportHeader};
use airqueue_sim::qdisc::{
    Dequeued, Qdisc, QueueCounters, QueueDiscipline, QueueSample, Queued, Routes,
};
use airqueue_sim::transport::{RateController, RateUpdate, SourceView};
use airqueue_sim::{FlowId, NodeId};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The first failure of a run's Python code, shared by its adapters and its
/// [`PyExtensions`].
#[derive(Default)]
pub struct Failure {
    failed: AtomicBool,
    first: Mutex<Option<(String, PyErr)>>,
}

impl Failure {
    #[inline]
    fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Keeps `err` (the user's exception) with `context`, unless a failure came first.
    fn record(&self, context: String, err: PyErr) {
        let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        if first.is_none() {
            *first = Some((context, err));
        }
        self.failed.store(true, Ordering::Relaxed);
    }

    /// The message of the first failure, if any.
    fn message(&self) -> Option<String> {
        let first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        first.as_ref().map(|(m, _)| m.clone())
    }

    /// The user's exception of the first failure, with its traceback, for `__cause__`.
    pub fn take_exception(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        first.take().map(|(_, err)| err.into_value(py).into_any())
    }
}

/// `"ValueError: message"` of an exception.
fn describe(py: Python<'_>, err: &PyErr) -> String {
    let name = err
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "exception".to_owned());
    format!("{name}: {}", err.value(py))
}

/// A packet as Python sees it: read-only fields of a packet the adapter holds in Rust,
/// and a request to mark it Congestion Experienced.
#[pyclass(frozen, name = "Packet", module = "airqueue._core")]
pub struct PacketView {
    /// The adapter's slab slot that holds the packet.
    slot: u32,
    #[pyo3(get)]
    uid: u64,
    /// The flow, `None` for control packets.
    #[pyo3(get)]
    flow: Option<u32>,
    /// `"data"`, `"ack"` (TCP ACKs and every transport's feedback) or `"control"`.
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    src: u32,
    #[pyo3(get)]
    dst: u32,
    #[pyo3(get)]
    next_hop: u32,
    /// The neighbour it came from; the holding node itself for a packet generated here.
    #[pyo3(get)]
    prev_hop: u32,
    /// Bytes above the link layer (IP and every header, payload).
    #[pyo3(get)]
    size_bytes: u32,
    /// When the application created it, seconds.
    #[pyo3(get)]
    created: f64,
    /// The MAC level its flow asks for (`flow.priority`).
    #[pyo3(get)]
    priority: u8,
    #[pyo3(get)]
    ecn_capable: bool,
    /// `mark_ce()` was called: CE is set when the packet leaves the queue.
    ce: AtomicBool,
}

impl PacketView {
    fn of(q: &Queued, slot: u32) -> Self {
        let p = &q.pkt;
        let kind = match p.transport {
            TransportHeader::TcpAck(_)
            | TransportHeader::TfrcFeedback(_)
            | TransportHeader::CodingFeedback(_)
            | TransportHeader::MoreAck(_) => "ack",
            t if t.is_control() => "control",
            _ => "data",
        };
        PacketView {
            slot,
            uid: p.uid,
            flow: (p.flow != FlowId::NONE).then_some(p.flow.0),
            kind,
            src: p.src.0,
            dst: p.dst.0,
            next_hop: q.next_hop.0,
            prev_hop: q.prev_hop.0,
            size_bytes: p.size_bytes(),
            created: p.created.as_secs_f64(),
            priority: p.priority,
            ecn_capable: p.ecn_capable(),
            ce: AtomicBool::new(false),
        }
    }
}

#[pymethods]
impl PacketView {
    /// RFC 3168: marks the packet Congestion Experienced (set when it leaves the queue)
    /// and returns True if it is ECN-capable; returns False, changing nothing, otherwise
    /// (an AQM should then drop it).
    fn mark_ce(&self) -> bool {
        if self.ecn_capable {
            self.ce.store(true, Ordering::Relaxed);
        }
        self.ecn_capable
    }

    fn __repr__(&self) -> String {
        format!(
            "Packet(uid={}, flow={}, kind={:?}, src={}, dst={}, next_hop={}, prev_hop={}, \
             size_bytes={}, created={:.9})",
            self.uid,
            self.flow.map_or("None".to_owned(), |f| f.to_string()),
            self.kind,
            self.src,
            self.dst,
            self.next_hop,
            self.prev_hop,
            self.size_bytes,
            self.created
        )
    }
}

/// The bound methods of a user's queue discipline; the optional hooks are `None` when
/// the class keeps the base class's no-op (so they cost nothing).
struct QueueHooks {
    enqueue: Py<PyAny>,
    dequeue: Py<PyAny>,
    len: Py<PyAny>,
    report: Option<Py<PyAny>>,
    on_report: Option<Py<PyAny>>,
    on_tx_status: Option<Py<PyAny>>,
    priority: Option<Py<PyAny>>,
    queue_len: Option<Py<PyAny>>,
}

impl QueueHooks {
    /// Asks `airqueue.extend.queue_hooks` for `obj`'s methods (it checks their
    /// signatures and raises TypeError naming the problem).
    fn of(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let hooks = py
            .import("airqueue.extend")?
            .getattr("queue_hooks")?
            .call1((obj,))?;
        let t = hooks.cast_into::<PyTuple>()?;
        let opt = |i: usize| -> PyResult<Option<Py<PyAny>>> {
            let v = t.get_item(i)?;
            Ok((!v.is_none()).then(|| v.unbind()))
        };
        Ok(QueueHooks {
            enqueue: t.get_item(0)?.unbind(),
            dequeue: t.get_item(1)?.unbind(),
            len: t.get_item(2)?.unbind(),
            report: opt(3)?,
            on_report: opt(4)?,
            on_tx_status: opt(5)?,
            priority: opt(6)?,
            queue_len: opt(7)?,
        })
    }
}

/// A queue discipline written in Python (see the module documentation).
pub struct PyQdisc {
    node: NodeId,
    /// The class name, for error messages.
    class: String,
    hooks: QueueHooks,
    /// The packets held, by slab slot; `free` lists the empty slots.
    slots: Vec<Option<Queued>>,
    free: Vec<u32>,
    held: usize,
    capacity_pkts: usize,
    /// A packet was refused since the last one left: `has_room` says no.
    refused: bool,
    counters: QueueCounters,
    failure: Arc<Failure>,
}

impl fmt::Debug for PyQdisc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PyQdisc")
            .field("node", &self.node)
            .field("class", &self.class)
            .field("held", &self.held)
            .field("counters", &self.counters)
            .finish()
    }
}

impl PyQdisc {
    fn new(
        py: Python<'_>,
        obj: &Bound<'_, PyAny>,
        node: NodeId,
        capacity_pkts: u32,
        failure: Arc<Failure>,
    ) -> PyResult<Self> {
        let class = obj.get_type().name()?.to_string();
        Ok(PyQdisc {
            node,
            class,
            hooks: QueueHooks::of(py, obj)?,
            slots: Vec::new(),
            free: Vec::new(),
            held: 0,
            capacity_pkts: capacity_pkts as usize,
            refused: false,
            counters: QueueCounters::default(),
            failure,
        })
    }

    /// Records an exception of `method` at `now` (about packet `uid`, if any).
    fn fail(&self, py: Python<'_>, method: &str, now: Option<Time>, uid: Option<u64>, err: PyErr) {
        let at = now
            .map(|t| format!(", t = {:.9} s", t.as_secs_f64()))
            .unwrap_or_default();
        let packet = uid.map(|u| format!(", packet uid {u}")).unwrap_or_default();
        let context = format!(
            "queue discipline {}.{method} at node {}{at}{packet}: {}",
            self.class,
            self.node,
            describe(py, &err)
        );
        self.failure.record(context, err);
    }

    fn slot_for(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.slots.push(None);
            (self.slots.len() - 1) as u32
        })
    }

    /// Python's answer to `enqueue(view, now)`: accept or refuse.
    fn offer(&self, py: Python<'_>, q: &Queued, slot: u32, now: Time) -> PyResult<bool> {
        let view = Bound::new(py, PacketView::of(q, slot))?;
        let answer = self.hooks.enqueue.call1(py, (view, now.as_secs_f64()))?;
        answer.extract::<bool>(py).map_err(|_| {
            PyTypeError::new_err(format!(
                "enqueue must return True (accept) or False (refuse), got {}",
                answer.bind(py).repr().map_or("?".into(), |r| r.to_string())
            ))
        })
    }

    /// Python's `dequeue(now)`, checked: the slot of a view this adapter holds, or `None`.
    fn pull(&self, py: Python<'_>, now: Time) -> PyResult<Option<(u32, bool)>> {
        let answer = self.hooks.dequeue.call1(py, (now.as_secs_f64(),))?;
        let answer = answer.bind(py);
        if answer.is_none() {
            return Ok(None);
        }
        let view = answer.cast::<PacketView>().map_err(|_| {
            PyTypeError::new_err(format!(
                "dequeue must return one of the packets given to enqueue, or None; got {}",
                answer.repr().map_or("?".into(), |r| r.to_string())
            ))
        })?;
        let view = view.get();
        let holds = (self.slots.get(view.slot as usize))
            .and_then(Option::as_ref)
            .is_some_and(|q| q.pkt.uid == view.uid);
        if !holds {
            return Err(PyValueError::new_err(format!(
                "dequeue returned packet uid {} which this queue does not hold (already \
                 dequeued, refused, or given to another node's queue)",
                view.uid
            )));
        }
        Ok(Some((view.slot, view.ce.load(Ordering::Relaxed))))
    }

    /// The report written on a packet towards `dst` as it leaves, and its MAC level.
    fn stamp(&self, py: Python<'_>, d: &mut Dequeued) -> PyResult<()> {
        if let Some(report) = &self.hooks.report {
            let v = report.call1(py, (d.pkt.dst.0,))?;
            let value = v.extract::<i64>(py).ok();
            let r = value
                .and_then(|v| u32::try_from(v).ok())
                .and_then(Report::new)
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "report must return an int in 0..={} (a 16-bit field on the air), got \
                         {}",
                        Report::MAX,
                        v.bind(py).repr().map_or("?".into(), |r| r.to_string())
                    ))
                })?;
            d.pkt.report = Some(r);
        }
        Ok(())
    }

    fn level(&self, py: Python<'_>, view: &Bound<'_, PacketView>) -> PyResult<Option<u8>> {
        let Some(priority) = &self.hooks.priority else {
            return Ok(None);
        };
        let v = priority.call1(py, (view,))?;
        v.extract::<u8>(py).map(Some).map_err(|_| {
            PyValueError::new_err(format!(
                "priority must return an int in 0..=255 (the MAC caps it at its top level), \
                 got {}",
                v.bind(py).repr().map_or("?".into(), |r| r.to_string())
            ))
        })
    }
}

impl QueueDiscipline for PyQdisc {
    fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        let accepted = if self.failure.failed() {
            false
        } else {
            let slot = self.slot_for();
            let answer = Python::attach(|py| match self.offer(py, &q, slot, now) {
                Ok(a) => a,
                Err(e) => {
                    self.fail(py, "enqueue", Some(now), Some(q.pkt.uid), e);
                    false
                }
            });
            if answer {
                self.slots[slot as usize] = Some(q);
                self.held += 1;
                self.counters.enqueued += 1;
                return Ok(());
            }
            self.free.push(slot);
            false
        };
        debug_assert!(!accepted);
        self.counters.dropped += 1;
        self.refused = true;
        let reason = if self.held >= self.capacity_pkts {
            DropReason::QueueOverflow
        } else {
            DropReason::Aqm
        };
        Err((q, reason))
    }

    fn dequeue(&mut self, _routes: &dyn Routes, now: Time) -> Option<Dequeued> {
        if self.held == 0 || self.failure.failed() {
            return None;
        }
        Python::attach(|py| {
            let (slot, ce) = match self.pull(py, now) {
                Ok(Some(x)) => x,
                Ok(None) => return None,
                Err(e) => {
                    self.fail(py, "dequeue", Some(now), None, e);
                    return None;
                }
            };
            let mut q = self.slots[slot as usize].take().expect("checked by pull");
            self.free.push(slot);
            self.held -= 1;
            self.counters.dequeued += 1;
            self.refused = false;
            if ce {
                q.pkt.mark_ce();
            }
            let uid = q.pkt.uid;
            let level = match &self.hooks.priority {
                None => Ok(None),
                Some(_) => {
                    Bound::new(py, PacketView::of(&q, slot)).and_then(|view| self.level(py, &view))
                }
            };
            let mut d = Dequeued::at_own_priority(q);
            let done = level
                .map(|l| {
                    if let Some(l) = l {
                        d.priority = l;
                    }
                })
                .and_then(|()| self.stamp(py, &mut d));
            if let Err(e) = done {
                self.fail(py, "dequeue", Some(now), Some(uid), e);
            }
            // Even after a failure the packet goes on, so every packet stays accounted.
            Some(d)
        })
    }

    fn len(&self) -> usize {
        self.held
    }

    fn has_room(&self, _src: NodeId, _dst: NodeId, _next_hop: NodeId, _with_report: bool) -> bool {
        self.held < self.capacity_pkts && !self.refused && !self.failure.failed()
    }

    fn counters(&self) -> QueueCounters {
        self.counters
    }

    fn on_report(&mut self, from: NodeId, pkt: &Packet, now: Time) -> bool {
        let (Some(hook), Some(r)) = (&self.hooks.on_report, pkt.report) else {
            return false;
        };
        if self.failure.failed() {
            return false;
        }
        Python::attach(|py| {
            if let Err(e) = hook.call1(py, (from.0, pkt.dst.0, r.value())) {
                self.fail(py, "on_report", Some(now), Some(pkt.uid), e);
            }
        });
        false
    }

    fn on_tx_status(&mut self, status: &TxStatus, now: Time) {
        let Some(hook) = &self.hooks.on_tx_status else {
            return;
        };
        if self.failure.failed() {
            return;
        }
        Python::attach(|py| {
            let args = (status.next_hop.0, status.success, status.attempts);
            if let Err(e) = hook.call1(py, args) {
                self.fail(py, "on_tx_status", Some(now), None, e);
            }
        });
    }

    /// The source rate control of a paced flow reads it (once per update): the
    /// discipline's `queue_len(dst)` if it defines one, else the whole length (a FIFO's).
    fn queue_len_for(&self, dst: NodeId) -> usize {
        let Some(hook) = &self.hooks.queue_len else {
            return self.held;
        };
        if self.failure.failed() {
            return self.held;
        }
        Python::attach(|py| {
            let len = hook
                .call1(py, (dst.0,))
                .and_then(|v| v.extract::<usize>(py));
            len.unwrap_or_else(|e| {
                self.fail(py, "queue_len", None, None, e);
                self.held
            })
        })
    }

    /// Once per output bin: checks that the Python object's `len()` agrees with the
    /// packets it holds (a discipline that loses or duplicates views is a bug to report).
    fn sample(&mut self) -> Option<QueueSample> {
        if self.failure.failed() {
            return None;
        }
        Python::attach(|py| {
            let len = self
                .hooks
                .len
                .call0(py)
                .and_then(|v| v.extract::<usize>(py));
            let err = match len {
                Ok(len) if len == self.held => return,
                Ok(len) => PyValueError::new_err(format!(
                    "len() returned {len} but the queue holds {} packets (accepted and not \
                     yet dequeued)",
                    self.held
                )),
                Err(e) => e,
            };
            self.fail(py, "__len__", None, None, err);
        });
        None
    }
}

/// A source rate controller written in Python: `update(now, queue_pkts, sent_pkts,
/// acked_pkts) -> rate_bps` every `update_interval` seconds.
pub struct PyRate {
    flow: FlowId,
    src: NodeId,
    class: String,
    update: Py<PyAny>,
    interval: Time,
    rate_bps: f64,
    updates: u64,
    decreases: u64,
    failure: Arc<Failure>,
}

impl fmt::Debug for PyRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PyRate")
            .field("flow", &self.flow)
            .field("class", &self.class)
            .field("rate_bps", &self.rate_bps)
            .finish()
    }
}

/// A rate a controller may return: finite and positive, bit/s.
fn rate_of(py: Python<'_>, v: &Py<PyAny>, what: &str) -> PyResult<f64> {
    match v.extract::<f64>(py) {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(PyValueError::new_err(format!(
            "{what} must be a finite rate in bit/s > 0, got {}",
            v.bind(py).repr().map_or("?".into(), |r| r.to_string())
        ))),
    }
}

impl PyRate {
    fn new(
        py: Python<'_>,
        obj: &Bound<'_, PyAny>,
        flow: FlowId,
        src: NodeId,
        failure: Arc<Failure>,
    ) -> PyResult<Self> {
        let class = obj.get_type().name()?.to_string();
        let hooks = py
            .import("airqueue.extend")?
            .getattr("rate_hooks")?
            .call1((obj,))?;
        let (update, interval_s, initial): (Py<PyAny>, f64, Py<PyAny>) = hooks.extract()?;
        if !(interval_s.is_finite() && interval_s >= 1e-6) {
            return Err(PyValueError::new_err(format!(
                "{class}.update_interval must be a finite number of seconds >= 1e-6, got \
                 {interval_s}"
            )));
        }
        let rate_bps = rate_of(py, &initial, &format!("{class}.initial_rate_bps"))?;
        Ok(PyRate {
            flow,
            src,
            class,
            update,
            interval: Time::from_secs_f64(interval_s),
            rate_bps,
            updates: 0,
            decreases: 0,
            failure,
        })
    }
}

impl RateController for PyRate {
    fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    fn update_clock(&self) -> RateUpdate {
        RateUpdate::Every(self.interval)
    }

    fn on_update(&mut self, source_queue_pkts: usize, may_rise: bool) -> f64 {
        self.on_update_seen(&SourceView {
            now: Time::ZERO,
            queue_pkts: source_queue_pkts,
            may_rise,
            sent_pkts: 0,
            acked_pkts: None,
        })
    }

    fn on_update_seen(&mut self, seen: &SourceView) -> f64 {
        if self.failure.failed() {
            return self.rate_bps;
        }
        let rate = Python::attach(|py| {
            let args = (
                seen.now.as_secs_f64(),
                seen.queue_pkts,
                seen.sent_pkts,
                seen.acked_pkts,
            );
            let r = self
                .update
                .call1(py, args)
                .and_then(|v| rate_of(py, &v, "update"));
            r.map_err(|e| {
                let context = format!(
                    "rate controller {}.update of flow {} at node {}, t = {:.9} s: {}",
                    self.class,
                    self.flow,
                    self.src,
                    seen.now.as_secs_f64(),
                    describe(py, &e)
                );
                self.failure.record(context, e);
            })
        });
        if let Ok(r) = rate {
            self.updates += 1;
            if r < self.rate_bps {
                self.decreases += 1;
            }
            self.rate_bps = r;
        }
        self.rate_bps
    }

    fn counts(&self) -> (u64, u64) {
        (self.updates, self.decreases)
    }
}

/// The user's factories for one run: `queue(node, capacity)` and `cc(flow, src, dst)`.
pub struct PyExtensions {
    pub queue: Option<Py<PyAny>>,
    pub cc: Option<Py<PyAny>>,
    pub failure: Arc<Failure>,
}

impl PyExtensions {
    /// Calls `factory(*args)` and builds an adapter from what it returns; an exception
    /// (the factory's or the check's) is kept for `__cause__`.
    fn build<T>(
        &self,
        factory: &Py<PyAny>,
        args: &[u32],
        what: String,
        adapt: impl FnOnce(Python<'_>, &Bound<'_, PyAny>) -> PyResult<T>,
    ) -> Result<T, String> {
        Python::attach(|py| {
            let built = PyTuple::new(py, args)
                .and_then(|args| factory.call1(py, args))
                .and_then(|obj| adapt(py, obj.bind(py)));
            built.map_err(|e| {
                let message = format!("{what}: {}", describe(py, &e));
                self.failure.record(message.clone(), e);
                message
            })
        })
    }
}

impl Extensions for PyExtensions {
    fn queue(&mut self, node: NodeId, capacity_pkts: u32) -> Option<Result<Qdisc, String>> {
        let factory = self.queue.as_ref()?;
        let failure = Arc::clone(&self.failure);
        Some(self.build(
            factory,
            &[node.0, capacity_pkts],
            format!("building the queue discipline of node {node}"),
            |py, obj| {
                PyQdisc::new(py, obj, node, capacity_pkts, failure).map(|q| Box::new(q) as Qdisc)
            },
        ))
    }

    fn rate(
        &mut self,
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
    ) -> Option<Result<Box<dyn RateController>, String>> {
        let factory = self.cc.as_ref()?;
        let failure = Arc::clone(&self.failure);
        Some(self.build(
            factory,
            &[flow.0, src.0, dst.0],
            format!("building the rate controller of flow {flow}"),
            |py, obj| {
                PyRate::new(py, obj, flow, src, failure)
                    .map(|c| Box::new(c) as Box<dyn RateController>)
            },
        ))
    }

    fn failure(&mut self) -> Option<String> {
        if !self.failure.failed() {
            return None;
        }
        self.failure.message()
    }
}
