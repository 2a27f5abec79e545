//! MORE's process at each node when it runs in user space, as in seed 000's testbed
//! (section 6.1: "MORE packets are delivered to the application at every hop for
//! coding", with the cost of context switches, system calls and coding). One process
//! per node serves its work in order, one job at a time: each coded packet a forwarder
//! or the destination receives goes up to it, and each coded packet a node sends is
//! made by it; with `process_acks`, each batch ACK a node receives goes up to it too. A
//! job takes its flow's `send_cost` or `receive_cost` on average, drawn
//! uniformly from half to one and a half times it: processor time varies, and equal
//! fixed times would keep two sources' broadcasts in step, colliding every time.
//! Receptions wait in a socket buffer of `receive_buffer` packets, and one that finds it
//! full is lost. Pure: [`MoreNet`] (`scheme.rs`) submits jobs and is woken when the head
//! one is done.
//!
//! [`MoreNet`]: super::MoreNet

use super::basis::Coeffs;
use super::MoreAck;
use crate::ids::{FlowId, NodeId};
use crate::net::Packet;
use airqueue_kernel::{RngStream, StreamKey, Time};
use std::collections::VecDeque;

/// Work for a node's MORE process.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// Coded packet `pkt` (code vector `coeffs`) heard from `from`, to go up to the
    /// process; `at_destination`: this is the flow's destination.
    Receive {
        from: NodeId,
        pkt: Packet,
        coeffs: Coeffs,
        at_destination: bool,
    },
    /// A coded packet of `flow` to make for batch `batch` (the source's current one:
    /// `MoreData::CURRENT_BATCH`).
    Code { flow: FlowId, batch: u32 },
    /// Batch ACK `pkt` (`ack`), to go up to the process before it is passed on or, at
    /// the source, acted on (`process_acks`).
    Ack { pkt: Packet, ack: MoreAck },
}

/// A reception refused: the socket buffer was full (the packet is lost there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketFull;

/// One node's process: its jobs in order with their mean costs (the head one is being
/// served), the receptions among them, and its draws of processor time.
#[derive(Clone, Debug)]
struct NodeProcess {
    jobs: VecDeque<(Job, Time)>,
    receptions: u32,
    rng: RngStream,
}

impl NodeProcess {
    /// When a job of mean cost `cost` begun now is done.
    fn done_at(&mut self, now: Time, cost: Time) -> Time {
        let ns = cost.as_nanos() as f64 * self.rng.uniform_range(0.5, 1.5);
        now + Time::from_nanos(ns.round() as u64)
    }
}

/// The MORE processes of all nodes.
#[derive(Clone, Debug, Default)]
pub struct Processes {
    nodes: Vec<NodeProcess>,
}

impl Processes {
    /// The processes of `node_count` nodes; each draws its processor times from a
    /// stream keyed (`seed`, node, "more.process").
    pub fn new(node_count: usize, seed: u64) -> Self {
        let node = |n: usize| NodeProcess {
            jobs: VecDeque::new(),
            receptions: 0,
            rng: RngStream::new(StreamKey::new(seed, n as u32, "more.process")),
        };
        Processes {
            nodes: (0..node_count).map(node).collect(),
        }
    }

    /// Adds `job`, costing `cost`, at `node`. `Ok(Some(t))`: the process was idle and
    /// starts on it, so wake it at `t`; `Ok(None)`: it waits its turn. `Err`: a reception
    /// that found `receive_buffer` receptions already waiting.
    pub fn submit(
        &mut self,
        node: NodeId,
        job: Job,
        cost: Time,
        receive_buffer: u32,
        now: Time,
    ) -> Result<Option<Time>, SocketFull> {
        let p = &mut self.nodes[node.index()];
        if matches!(job, Job::Receive { .. }) {
            if p.receptions >= receive_buffer {
                return Err(SocketFull);
            }
            p.receptions += 1;
        }
        p.jobs.push_back((job, cost));
        Ok((p.jobs.len() == 1).then(|| p.done_at(now, cost)))
    }

    /// The head job at `node` is done now: it, and when to wake the process for the next
    /// one, if any.
    pub fn finish(&mut self, node: NodeId, now: Time) -> Option<(Job, Option<Time>)> {
        let p = &mut self.nodes[node.index()];
        let (job, _) = p.jobs.pop_front()?;
        if matches!(job, Job::Receive { .. }) {
            p.receptions -= 1;
        }
        let next = p.jobs.front().map(|&(_, cost)| cost);
        Some((job, next.map(|cost| p.done_at(now, cost))))
    }

    /// Batch ACKs waiting for, or being served by, the processes of all nodes.
    pub fn acks(&self) -> usize {
        (self.nodes.iter())
            .flat_map(|p| p.jobs.iter())
            .filter(|(j, _)| matches!(j, Job::Ack { .. }))
            .count()
    }

    /// Receptions waiting at all nodes.
    pub fn receptions(&self) -> impl Iterator<Item = &Job> {
        (self.nodes.iter())
            .flat_map(|p| p.jobs.iter().map(|(j, _)| j))
            .filter(|j| matches!(j, Job::Receive { .. }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(flow: u32) -> Job {
        Job::Code {
            flow: FlowId(flow),
            batch: 0,
        }
    }

    fn receive(uid: u64) -> Job {
        let pkt = Packet {
            uid,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            seq: 0,
            payload_bytes: 1000,
            transport: crate::net::TransportHeader::Udp,
            ttl: 64,
            priority: 0,
            created: Time::ZERO,
            diffq: None,
            report: None,
        };
        Job::Receive {
            from: NodeId(0),
            pkt,
            coeffs: [0; super::super::MAX_BATCH],
            at_destination: false,
        }
    }

    /// Whether `at` is `from` plus half to one and a half times `cost`.
    fn within(at: Option<Time>, from: Time, cost: Time) -> bool {
        let lo = from + Time::from_nanos(cost.as_nanos() / 2);
        at.is_some_and(|t| t >= lo && t <= lo + cost)
    }

    #[test]
    fn jobs_are_served_in_order_one_at_a_time_each_for_about_its_cost() {
        let mut p = Processes::new(2, 1);
        let (ms, t0) = (Time::from_millis(1), Time::from_secs(1));
        let first = p.submit(NodeId(1), code(0), ms, 4, t0).unwrap();
        assert!(within(first, t0, ms), "{first:?}");
        let two = Time::from_millis(2);
        assert_eq!(p.submit(NodeId(1), code(1), two, 4, t0), Ok(None));
        assert!(within(
            p.submit(NodeId(0), code(2), ms, 4, t0).unwrap(),
            t0,
            ms
        ));
        let t1 = first.unwrap();
        let (job, next) = p.finish(NodeId(1), t1).unwrap();
        assert!(job == code(0) && within(next, t1, two), "{next:?}");
        let (job, next) = p.finish(NodeId(1), next.unwrap()).unwrap();
        assert_eq!((job, next), (code(1), None));
        assert_eq!(p.finish(NodeId(1), t0), None);
    }

    #[test]
    fn processor_times_vary_around_the_cost_and_average_it() {
        let mut p = Processes::new(1, 7);
        let (ms, mut now) = (Time::from_millis(1), Time::ZERO);
        let (mut lo, mut hi, n) = (u64::MAX, 0, 2000);
        for _ in 0..n {
            let done = p.submit(NodeId(0), code(0), ms, 1, now).unwrap().unwrap();
            let took = (done - now).as_nanos();
            (lo, hi) = (lo.min(took), hi.max(took));
            p.finish(NodeId(0), done);
            now = done;
        }
        assert!(
            lo >= 500_000 && hi <= 1_500_000 && hi - lo > 900_000,
            "{lo} {hi}"
        );
        let mean = now.as_nanos() as f64 / n as f64;
        assert!((mean - 1e6).abs() < 0.03e6, "{mean}");
    }

    #[test]
    fn a_full_receive_buffer_loses_receptions_but_takes_work_to_send() {
        let mut p = Processes::new(1, 1);
        let (ms, t0) = (Time::from_millis(1), Time::ZERO);
        assert!(p.submit(NodeId(0), receive(1), ms, 2, t0).is_ok());
        assert!(p.submit(NodeId(0), receive(2), ms, 2, t0).is_ok());
        assert_eq!(p.submit(NodeId(0), receive(3), ms, 2, t0), Err(SocketFull));
        assert_eq!(p.submit(NodeId(0), code(0), ms, 2, t0), Ok(None));
        assert_eq!(p.receptions().count(), 2);
        p.finish(NodeId(0), t0 + ms);
        assert!(p.submit(NodeId(0), receive(4), ms, 2, t0).is_ok());
        assert_eq!(p.submit(NodeId(0), receive(5), ms, 2, t0), Err(SocketFull));
    }
}
