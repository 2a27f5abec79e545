//! A queue discipline's own control broadcasts through the generic hooks
//! (`control_interval`, `control_reports`, `on_control_reports`): a discipline that is
//! not backpressure gets its idle broadcasts carried, heard by exactly its radio
//! neighbours with the entries it wrote, and none when it writes none.

mod common;

use airqueue_kernel::Time;
use airqueue_sim::medium::wifi::WifiConfig;
use airqueue_sim::net::DropReason;
use airqueue_sim::qdisc::registry::{self, Params, RegisteredQdisc, Scheme};
use airqueue_sim::qdisc::{
    Dequeued, DropTail, Qdisc, QueueCounters, QueueDiscipline, QueueReport, Queued, Routes,
};
use airqueue_sim::{FlowId, NodeId, World};
use common::{chain_positions, wifi_world};

/// A drop-tail queue that, when idle, broadcasts one entry naming itself (or nothing).
#[derive(Debug)]
struct Beacon {
    fifo: DropTail,
    node: NodeId,
    speaks: bool,
}

/// The entry node `n` broadcasts.
fn entry(n: NodeId) -> QueueReport {
    (FlowId(n.0), n, 7)
}

impl QueueDiscipline for Beacon {
    fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)> {
        QueueDiscipline::enqueue(&mut self.fifo, q, now)
    }
    fn dequeue(&mut self, routes: &dyn Routes, now: Time) -> Option<Dequeued> {
        QueueDiscipline::dequeue(&mut self.fifo, routes, now)
    }
    fn len(&self) -> usize {
        QueueDiscipline::len(&self.fifo)
    }
    fn has_room(&self, src: NodeId, dst: NodeId, next_hop: NodeId, with_report: bool) -> bool {
        QueueDiscipline::has_room(&self.fifo, src, dst, next_hop, with_report)
    }
    fn counters(&self) -> QueueCounters {
        QueueDiscipline::counters(&self.fifo)
    }
    fn control_interval(&self) -> Option<Time> {
        Some(Time::from_millis(100))
    }
    fn control_reports(&mut self, _now: Time, out: &mut Vec<QueueReport>) {
        assert!(out.is_empty(), "the body comes empty");
        if self.speaks {
            out.push(entry(self.node));
        }
    }
    fn on_control_reports(&mut self, from: NodeId, reports: &[QueueReport], _now: Time) -> bool {
        assert_eq!(
            reports,
            &[entry(from)],
            "node {:?} heard another body",
            self.node
        );
        false
    }
}

fn build(speaks: bool, node: NodeId) -> Qdisc {
    Box::new(Beacon {
        fifo: DropTail::new(50),
        node,
        speaks,
    })
}

static SPEAKS: Scheme = Scheme {
    name: "beacon",
    summary: "test: drop-tail with idle control broadcasts",
    default_capacity_pkts: 50,
    keys: &[],
    table_keys: &[],
    moves_packets_on_link_break: false,
    refuses_saturating_source: false,
    runs_at_access_point: false,
    check: registry::no_checks,
    build: |_, ctx| build(true, ctx.node),
};

static SILENT: Scheme = Scheme {
    name: "silent-beacon",
    build: |_, ctx| build(false, ctx.node),
    ..SPEAKS
};

/// A 3-node chain 200 m apart (the ends out of each other's decode range), no flows,
/// 2 s.
fn run(scheme: &'static Scheme) -> Vec<airqueue_sim::world::QueueControlStats> {
    let mut cfg = wifi_world(
        WifiConfig::dsss_default(),
        chain_positions(3, 200.0),
        vec![],
        Time::from_secs(2),
        1,
    );
    cfg.qdisc = RegisteredQdisc {
        scheme,
        params: Params::defaults(scheme),
    };
    World::new(cfg).run().queue_control
}

#[test]
fn an_idle_discipline_s_broadcasts_reach_exactly_its_neighbours() {
    let st = run(&SPEAKS);
    assert_eq!(st.len(), 3);
    for s in &st {
        // One every 75-100 ms for 2 s.
        assert!((19..=27).contains(&s.sent), "{st:?}");
        assert_eq!(s.entries_sent, s.sent, "{st:?}");
        assert_eq!(s.lost, 0, "{st:?}");
    }
    // The ends hear only the middle; the middle hears both ends (a frame lost to a
    // collision is heard by no one).
    assert!(
        st[0].received <= st[1].sent && st[2].received <= st[1].sent,
        "{st:?}"
    );
    assert!(st[1].received <= st[0].sent + st[2].sent, "{st:?}");
    assert!(st[0].received + 2 >= st[1].sent, "{st:?}");
    assert!(st[1].received + 4 >= st[0].sent + st[2].sent, "{st:?}");
}

#[test]
fn a_discipline_with_nothing_to_say_sends_nothing() {
    let st = run(&SILENT);
    assert_eq!(st.len(), 3, "the checks run");
    assert!(st.iter().all(|s| s.sent == 0 && s.received == 0), "{st:?}");
}
