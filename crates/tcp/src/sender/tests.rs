//! Sender tests. Scripted ones drive the sender with the ACKs a real [`TcpReceiver`] sends
//! for a chosen arrival order, at chosen instants, so each test reads as a timeline.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::testnet::Net;
use crate::{ReceiverConfig, TcpReceiver};

fn ms(v: u64) -> Time {
    Time::from_millis(v)
}

/// A sender and a receiver wired by hand: the test decides which segments arrive when.
struct Script {
    tx: TcpSender,
    rx: TcpReceiver,
    txo: Outbox<TcpData>,
    rxo: Outbox<TcpAck>,
    now: Time,
    /// Latest transmission of each segment.
    wire: BTreeMap<u32, TcpData>,
    /// Every transmission, in order.
    log: Vec<(Time, TcpData)>,
    /// Marks these segments CE on their next arrival.
    ce: Vec<u32>,
}

impl Script {
    fn new(cfg: SenderConfig) -> Script {
        let mut s = Script {
            tx: TcpSender::new(cfg),
            rx: TcpReceiver::new(ReceiverConfig::default()),
            txo: Outbox::new(),
            rxo: Outbox::new(),
            now: Time::ZERO,
            wire: BTreeMap::new(),
            log: Vec::new(),
            ce: Vec::new(),
        };
        s.tx.poll_send(Time::ZERO, &mut s.txo);
        s.collect();
        s
    }

    fn collect(&mut self) -> Vec<TcpData> {
        let segs: Vec<TcpData> = self.txo.items.drain(..).collect();
        for d in &segs {
            self.wire.insert(d.seq, *d);
            self.log.push((self.now, *d));
        }
        self.txo.timer = None;
        segs
    }

    fn at(&mut self, t: Time) -> &mut Self {
        self.now = t;
        self
    }

    /// Segments `seqs` arrive in this order; each ACK goes straight back to the sender.
    /// Returns the segment numbers the sender transmitted in response.
    #[track_caller]
    fn arrive(&mut self, seqs: impl IntoIterator<Item = u32>) -> Vec<u32> {
        let mut sent = Vec::new();
        for seq in seqs {
            let mut d = *self.wire.get(&seq).expect("segment was sent");
            if let Some(i) = self.ce.iter().position(|&s| s == seq) {
                self.ce.remove(i);
                d.ce = d.mark_ce();
            }
            self.rx.on_data(&d, self.now, &mut self.rxo);
            let acks: Vec<TcpAck> = self.rxo.items.drain(..).collect();
            for a in acks {
                self.tx.on_ack(&a, self.now, &mut self.txo);
                sent.extend(self.collect().iter().map(|d| d.seq));
            }
        }
        sent
    }

    /// Every segment sent but not yet arrived, lowest first (one "round" of delivery).
    fn outstanding(&self) -> Vec<u32> {
        (self.rx.rcv_nxt()..self.tx.snd_max())
            .filter(|s| {
                !self
                    .rx
                    .out_of_order()
                    .iter()
                    .any(|&(a, b)| a <= *s && *s < b)
            })
            .collect()
    }

    fn rto(&mut self) -> Vec<u32> {
        self.tx.on_rto(self.now, &mut self.txo);
        self.collect().iter().map(|d| d.seq).collect()
    }

    fn retransmitted(&self) -> Vec<u32> {
        self.log
            .iter()
            .filter(|(_, d)| d.retransmission)
            .map(|(_, d)| d.seq)
            .collect()
    }
}

/// A sender in congestion avoidance with `cwnd` = ssthresh = `w` and `w` segments out.
fn tcp_established(variant: Variant, w: u32) -> Script {
    Script::new(SenderConfig {
        initial_cwnd: w,
        initial_ssthresh: Some(w as f64),
        max_window: 128,
        ..SenderConfig::new(variant)
    })
}

#[test]
fn three_dupacks_trigger_fast_retransmit() {
    // t=0: 0..9 sent (cwnd = ssthresh = 10). Segment 3 is lost.
    let mut s = tcp_established(Variant::NewReno, 10);
    assert_eq!(s.log.len(), 10);
    // t=100: 0,1,2 arrive -> ACK 1,2,3 slide the window: 10,11,12 go out.
    assert_eq!(s.at(ms(100)).arrive([0, 1, 2]), vec![10, 11, 12]);
    // 4, 5 -> dup ACKs 1 and 2: nothing happens (no limited transmit).
    assert_eq!(s.arrive([4, 5]), Vec::<u32>::new());
    assert_eq!(s.tx.dupacks(), 2);
    assert!(!s.tx.in_recovery());
    // 6 -> third dup ACK: retransmit 3, ssthresh = FlightSize/2 = (13-3)/2, cwnd = 5+3.
    assert_eq!(s.arrive([6]), vec![3]);
    assert!(s.log.last().unwrap().1.retransmission);
    assert_eq!(s.tx.ssthresh(), 5.0);
    assert_eq!(s.tx.cwnd(), 8.0);
    assert_eq!(s.tx.recover(), 13);
    assert_eq!(s.tx.stats().fast_retransmits, 1);
    // More dup ACKs inflate cwnd by one each; new data flows once cwnd > FlightSize (10).
    assert_eq!(s.arrive([7, 8]), Vec::<u32>::new());
    assert_eq!(s.arrive([9]), vec![13]);
    assert_eq!(s.arrive([10, 11, 12]), vec![14, 15, 16]);
    assert_eq!(s.tx.cwnd(), 14.0);
    // t=200: the retransmission arrives; ACK 13 covers recover: full ACK, recovery ends
    // with cwnd = min(ssthresh, FlightSize + 1) = min(5, 17 - 13 + 1).
    s.at(ms(200)).arrive([3]);
    assert_eq!(s.tx.phase(), Phase::Open);
    assert_eq!(s.tx.cwnd(), 5.0);
    assert_eq!(s.tx.stats().retransmissions, 1);
    assert_eq!(s.tx.stats().timeouts, 0);
}

#[test]
fn newreno_partial_ack_retransmits_next_hole() {
    // t=0: 0..9 sent; 3 and 6 are lost.
    let mut s = tcp_established(Variant::NewReno, 10);
    s.at(ms(100)).arrive([0, 1, 2]); // new data 10, 11, 12
    assert_eq!(s.arrive([4, 5, 7]), vec![3]); // third dup ACK: fast retransmit
    assert_eq!(s.tx.recover(), 13);
    // dup ACKs for 8..12 inflate cwnd to 13: window 3 + 13 lets 13, 14, 15 out.
    assert_eq!(s.arrive([8, 9, 10, 11, 12]), vec![13, 14, 15]);
    // t=200: retransmitted 3 arrives -> ACK 6 < recover: a partial ACK. RFC 6582: the next
    // hole (6) is retransmitted at once, cwnd deflated by 3 and plus 1, still in recovery.
    let sent = s.at(ms(200)).arrive([3]);
    assert_eq!(sent[0], 6);
    assert_eq!(s.tx.phase(), Phase::FastRecovery { partial_acks: 1 });
    assert_eq!(s.tx.cwnd(), 13.0 - 3.0 + 1.0);
    assert_eq!(s.tx.stats().fast_retransmits, 1); // no new episode
                                                  // t=300: 6 arrives -> ACK 16 covers recover: full ACK, out of recovery, cwnd = ssthresh.
    s.at(ms(300)).arrive([6]);
    assert_eq!(s.tx.phase(), Phase::Open);
    assert_eq!(s.tx.cwnd(), s.tx.ssthresh());
    assert_eq!(s.retransmitted(), vec![3, 6]);
    assert_eq!(s.tx.stats().timeouts, 0);
}

#[test]
fn sack_recovers_three_holes_within_one_rtt() {
    // t=0: 0..19 sent; 2, 5 and 8 are lost.
    let mut s = tcp_established(Variant::Sack, 20);
    let mut arrivals: Vec<u32> = (0..20).filter(|x| ![2, 5, 8].contains(x)).collect();
    s.at(ms(100)).arrive(arrivals.drain(..));
    // Within this one round of ACKs, every hole has been retransmitted once.
    assert_eq!(s.retransmitted(), vec![2, 5, 8]);
    assert!(matches!(s.tx.phase(), Phase::SackRecovery { .. }));
    assert_eq!(s.tx.ssthresh(), 10.0);
    assert!(s.tx.pipe() as f64 <= s.tx.cwnd());
    // t=200: the retransmissions (and the new data) arrive: the ACK passes RecoveryPoint.
    let outstanding = s.outstanding();
    s.at(ms(200)).arrive(outstanding);
    assert_eq!(s.tx.phase(), Phase::Open);
    assert_eq!(s.tx.stats().retransmissions, 3);
    assert_eq!(s.tx.stats().fast_retransmits, 1);
    assert_eq!(s.tx.stats().timeouts, 0);
}

#[test]
fn sack_rule3_retransmits_unsacked_below_highest_sack() {
    // t=0: 0..9 is the whole transfer; 0 and 7 are lost.
    let mut s = Script::new(SenderConfig {
        initial_cwnd: 10,
        app: AppData::Finite(10),
        ..SenderConfig::new(Variant::Sack)
    });
    // t=100: 1, 2, 3 arrive -> IsLost(0): recovery, cwnd = ssthresh = 5, retransmit 0.
    s.at(ms(100)).arrive([1, 2, 3]);
    assert_eq!(s.retransmitted(), vec![0]);
    assert_eq!(s.tx.cwnd(), 5.0);
    // 4, 5, 6, 8: 7 has only one SACKed segment above it, so it is not IsLost(); but pipe
    // is below cwnd and no new data exists: rule 3 retransmits it.
    s.arrive([4, 5, 6, 8]);
    assert_eq!(s.retransmitted(), vec![0, 7]);
    // t=200: both retransmissions arrive: recovery ends, no timeout.
    s.at(ms(200)).arrive([9, 0, 7]);
    assert!(s.tx.is_done());
    assert_eq!(s.tx.phase(), Phase::Open);
    assert_eq!(s.tx.stats().timeouts, 0);
}

#[test]
fn sack_rescue_retransmission_of_the_tail() {
    // t=0: 0..9 is the whole transfer; 0 and the last segment 9 are lost.
    let mut s = Script::new(SenderConfig {
        initial_cwnd: 10,
        app: AppData::Finite(10),
        ..SenderConfig::new(Variant::Sack)
    });
    // t=100: 1..8 arrive: recovery retransmits 0. Nothing SACKed above 9, so rules 1-3
    // never pick it, and HighACK has not passed RescueRxt yet.
    s.at(ms(100)).arrive(1..9);
    assert_eq!(s.retransmitted(), vec![0]);
    // t=200: 0 arrives -> partial ACK 9 > RescueRxt: rule 4 sends the rescue for 9.
    assert_eq!(s.at(ms(200)).arrive([0]), vec![9]);
    s.at(ms(300)).arrive([9]);
    assert!(s.tx.is_done());
    assert_eq!(s.tx.stats().timeouts, 0);
    assert_eq!(s.retransmitted(), vec![0, 9]);
}

#[test]
fn rto_backs_off_to_max_and_resets_after_sample() {
    // t=0: 0..3 sent; nothing comes back.
    let mut s = Script::new(SenderConfig {
        initial_cwnd: 4,
        ..SenderConfig::new(Variant::NewReno)
    });
    let mut deadlines = vec![s.tx.rto_deadline().unwrap().as_nanos() / 1_000_000_000];
    let flight_ssthresh = 2.0; // max(4/2, 2)
    for _ in 0..8 {
        let d = s.tx.rto_deadline().unwrap();
        // A stale expiry before the deadline is ignored.
        assert!(s.at(d.saturating_sub(ms(1))).rto().is_empty());
        assert_eq!(s.at(d).rto(), vec![0]); // RFC 6298 (5.4): retransmit the earliest
        deadlines.push(s.tx.rto_deadline().unwrap().as_nanos() / 1_000_000_000);
        assert_eq!(s.tx.cwnd(), 1.0);
        assert_eq!(s.tx.ssthresh(), flight_ssthresh); // held constant on repeats
    }
    // RTO 1, 2, 4, ..., 32, then capped at 60 s.
    assert_eq!(deadlines, vec![1, 3, 7, 15, 31, 63, 123, 183, 243]);
    assert_eq!(s.tx.stats().timeouts, 8);
    // The retransmitted 0 is ACKed: Karn, no sample, the backed-off RTO stays. Go-back-N:
    // cwnd 2 sends 1 and 2 again.
    let t = Time::from_secs(244);
    assert_eq!(s.at(t).arrive([0]), vec![1, 2]);
    assert_eq!(s.tx.srtt(), None);
    assert_eq!(s.tx.rto(), Time::from_secs(60));
    // 1, 2 were retransmitted too; 3's original is ACKed alongside: still no sample.
    s.at(t + ms(100)).arrive([1, 2, 3]);
    assert_eq!(s.tx.srtt(), None);
    // A fresh segment (4) is ACKed 100 ms after it was sent: a valid sample resets RTO.
    let sent_at = s.wire[&4].sent_at;
    assert!(!s.wire[&4].retransmission);
    s.at(sent_at + ms(100)).arrive([4]);
    assert_eq!(s.tx.srtt(), Some(ms(100)));
    assert_eq!(s.tx.rto(), ms(300));
    assert_eq!(s.tx.rto_estimator().backoffs(), 0);
}

#[test]
fn karn_versus_timestamps() {
    for timestamps in [false, true] {
        let mut s = Script::new(SenderConfig {
            initial_cwnd: 1,
            timestamps,
            ..SenderConfig::new(Variant::NewReno)
        });
        // t=0: 0 sent and lost; t=1 s: RTO retransmits it; t=1.05 s its ACK arrives.
        s.at(Time::from_secs(1)).rto();
        s.at(ms(1050)).arrive([0]);
        if timestamps {
            // The echoed TSval is the retransmission's: an unambiguous 50 ms sample.
            assert_eq!(s.tx.srtt(), Some(ms(50)));
            assert_eq!(s.tx.stats().rtt_samples, 1);
        } else {
            // Karn: ambiguous, no sample, backoff kept (RTO 2 s).
            assert_eq!(s.tx.srtt(), None);
            assert_eq!(s.tx.stats().rtt_samples, 0);
            assert_eq!(s.tx.rto(), Time::from_secs(2));
        }
    }
}

#[test]
fn dupacks_after_rto_do_not_restart_recovery() {
    // RFC 6582 (4): after an RTO, duplicate ACKs for data sent before it are ignored.
    let mut s = tcp_established(Variant::NewReno, 10);
    s.at(Time::from_secs(1)).rto(); // everything lost; recover = 10
    assert_eq!(s.tx.recover(), 10);
    // Late arrivals of the originals 1..9 (above the hole at 0) produce dup ACKs.
    s.at(ms(1010)).arrive(1..6);
    assert_eq!(s.tx.stats().fast_retransmits, 0);
    assert_eq!(s.tx.phase(), Phase::Open);
}

/// Delivers every outstanding segment, `rounds` times, one RTT (100 ms) apart, and returns
/// cwnd after each round.
fn cwnd_per_round(s: &mut Script, rounds: u64) -> Vec<f64> {
    (1..=rounds)
        .map(|k| {
            let out = s.outstanding();
            s.at(ms(100 * k)).arrive(out);
            s.tx.cwnd()
        })
        .collect()
}

#[test]
fn slow_start_doubles_per_rtt() {
    let mut s = Script::new(SenderConfig {
        initial_cwnd: 2,
        max_window: 256,
        ..SenderConfig::new(Variant::NewReno)
    });
    assert_eq!(cwnd_per_round(&mut s, 5), vec![4.0, 8.0, 16.0, 32.0, 64.0]);
}

#[test]
fn congestion_avoidance_grows_one_per_rtt() {
    let mut s = tcp_established(Variant::NewReno, 10);
    let w = cwnd_per_round(&mut s, 10);
    let mut prev = 10.0;
    for c in &w {
        // RFC 5681 eq. (3): floor(cwnd) ACKs per RTT, 1/cwnd each.
        assert!((0.8..=1.0).contains(&(c - prev)), "grew {}", c - prev);
        prev = *c;
    }
    let total = w.last().unwrap() - 10.0;
    assert!((8.5..=10.0).contains(&total), "grew {total} in 10 RTTs");
}

#[test]
fn few_grows_alpha_per_rtt() {
    let mut s = tcp_established(Variant::FEW, 10);
    let w = cwnd_per_round(&mut s, 20);
    let growth = w.last().unwrap() - 10.0;
    // 20 rounds of 0.01 per RTT = 0.2 packets.
    assert!((growth - 0.2).abs() < 0.01, "grew {growth}");
    assert_eq!(s.tx.snd_max() - s.tx.snd_una(), 10);
}

#[test]
fn ecn_halves_once_per_rtt_and_sets_cwr() {
    let mut s = Script::new(SenderConfig {
        initial_cwnd: 20,
        initial_ssthresh: Some(20.0),
        max_window: 128,
        ecn: true,
        ..SenderConfig::new(Variant::NewReno)
    });
    assert!(s.log.iter().all(|(_, d)| d.ect && !d.cwr));
    // t=100: 0 and 5 arrive CE-marked: one reduction only.
    s.ce = vec![0, 5];
    s.at(ms(100)).arrive(0..20);
    assert_eq!(s.tx.stats().ecn_reductions, 1);
    assert_eq!(s.tx.cwnd(), 10.0);
    assert_eq!(s.tx.ssthresh(), 10.0);
    // The first new segment after the reduction carries CWR, and only it.
    let cwr: Vec<u32> = s
        .log
        .iter()
        .filter(|(_, d)| d.cwr)
        .map(|(_, d)| d.seq)
        .collect();
    assert_eq!(cwr, vec![20]);
    // t=200: the next window arrives clean: the CWR stops the echo, no reduction.
    let out = s.outstanding();
    s.at(ms(200)).arrive(out);
    assert!(!s.rx.ece());
    assert_eq!(s.tx.stats().ecn_reductions, 1);
    // t=300: a fresh CE mark in the next window: one more halving.
    let out = s.outstanding();
    s.ce = vec![out[1]];
    s.at(ms(300)).arrive(out);
    assert_eq!(s.tx.stats().ecn_reductions, 2);
}

#[test]
fn finite_transfer_stops_and_completes() {
    let mut s = Script::new(SenderConfig {
        initial_cwnd: 4,
        app: AppData::Finite(6),
        ..SenderConfig::new(Variant::Sack)
    });
    let out = s.outstanding();
    s.at(ms(100)).arrive(out);
    let out = s.outstanding();
    assert_eq!(out, vec![4, 5]);
    s.at(ms(200)).arrive(out);
    assert!(s.tx.is_done());
    assert_eq!(s.tx.rto_deadline(), None);
    s.tx.add_app_data(2);
    s.tx.poll_send(ms(300), &mut s.txo);
    assert_eq!(
        s.collect().iter().map(|d| d.seq).collect::<Vec<_>>(),
        vec![6, 7]
    );
}

/// A DiffQ-TCP style sender: SACK recovery, no congestion control, paced, `w` =
/// max_window.
fn tcp_paced(w: u32) -> Script {
    Script::new(SenderConfig {
        max_window: w,
        congestion_control: false,
        paced: true,
        ..SenderConfig::new(Variant::Sack)
    })
}

/// One pacing tick; returns what the sender put on the wire.
fn tick(s: &mut Script) -> Vec<u32> {
    let now = s.now;
    let sent = s.tx.pace_tick(now, &mut s.txo);
    let segs: Vec<u32> = s.collect().iter().map(|d| d.seq).collect();
    assert_eq!(sent, !segs.is_empty());
    segs
}

#[test]
fn paced_sender_sends_one_segment_per_tick_and_nothing_on_its_own() {
    // Nothing at the start, and no timer: nothing is outstanding.
    let mut s = tcp_paced(8);
    assert!(s.log.is_empty());
    assert_eq!(s.tx.rto_deadline(), None);
    assert_eq!((s.tx.cwnd(), s.tx.ssthresh()), (8.0, 8.0));
    // One new segment per tick; the RTO timer starts with the first one on the wire.
    for k in 0..5u32 {
        assert_eq!(tick(s.at(ms(10 * k as u64))), vec![k]);
    }
    assert_eq!(s.tx.rto_deadline(), Some(ms(0) + s.tx.rto()));
    // ACKs open no burst: sending is the ticks' business.
    assert_eq!(s.at(ms(100)).arrive(0..5), Vec::<u32>::new());
    // Only the receiver's window stops new data: 8 outstanding, the next tick sends none.
    for k in 5..13 {
        assert_eq!(tick(s.at(ms(100 + k))), vec![k as u32]);
    }
    assert_eq!(s.tx.flight_size(), 8);
    assert!(tick(&mut s).is_empty());
}

#[test]
fn paced_sender_defers_recovery_to_ticks_and_keeps_its_window() {
    let mut s = tcp_paced(20);
    for k in 0..20 {
        tick(s.at(ms(k)));
    }
    // t=100: 2, 5 and 8 are lost. SACK recovery starts but sends nothing on the ACK;
    // cwnd and ssthresh stay at the receiver's window (RFC 6675 would halve both).
    let arrivals: Vec<u32> = (0..20).filter(|x| ![2, 5, 8].contains(x)).collect();
    assert_eq!(s.at(ms(100)).arrive(arrivals), Vec::<u32>::new());
    assert!(matches!(s.tx.phase(), Phase::SackRecovery { .. }));
    assert_eq!((s.tx.cwnd(), s.tx.ssthresh()), (20.0, 20.0));
    assert_eq!(s.tx.stats().fast_retransmits, 1);
    // The next ticks retransmit each hole once, at the tick's time, then new data flows.
    assert_eq!(tick(s.at(ms(110))), vec![2]);
    assert_eq!(tick(s.at(ms(120))), vec![5]);
    assert_eq!(tick(s.at(ms(130))), vec![8]);
    assert_eq!(tick(s.at(ms(140))), vec![20]);
    assert_eq!(s.retransmitted(), vec![2, 5, 8]);
    assert_eq!(s.wire[&5].sent_at, ms(120));
    // t=200: 2 and 5 arrive, the retransmission of 8 is lost too. The RTO fires: counted
    // and backed off, window untouched, and again nothing leaves until a tick, which
    // goes back to SND.UNA (SACK information forgotten, RFC 2018 (8)) one segment at a
    // time and restarts the timer then.
    s.at(ms(200)).arrive([2, 5]);
    let d = s.tx.rto_deadline().unwrap();
    assert_eq!(s.at(d).rto(), Vec::<u32>::new());
    assert_eq!(s.tx.stats().timeouts, 1);
    assert_eq!(s.tx.rto_deadline(), None);
    assert_eq!((s.tx.cwnd(), s.tx.ssthresh()), (20.0, 20.0));
    let t = d + ms(50);
    assert_eq!(tick(s.at(t)), vec![8]);
    assert_eq!(s.tx.rto_deadline(), Some(t + s.tx.rto()));
    // The window stays open, but the rest of the go-back-N waits for the first ACK
    // after the timeout (RFC 5682 2.1 step 1): 9..19, which did arrive, are not sent
    // again on the ticks in between.
    for k in 1..=5u64 {
        assert!(tick(s.at(t + ms(k))).is_empty());
    }
    s.at(t + ms(100)).arrive([8]);
    assert_eq!(s.tx.snd_una(), 20);
    // Not shown spurious (no timestamps): the go-back-N resumes at SND.UNA, 20, then new
    // data.
    assert_eq!(tick(s.at(t + ms(110))), vec![20]);
    assert_eq!(tick(s.at(t + ms(120))), vec![21]);
    assert_eq!(s.retransmitted(), vec![2, 5, 8, 8, 20]);
}

#[test]
fn without_congestion_control_an_rto_resends_one_segment_until_an_ack() {
    // Unpaced: the RTO would otherwise put the whole receiver's window back on the wire
    // at once (cwnd is pinned at it).
    let mut s = Script::new(SenderConfig {
        max_window: 10,
        congestion_control: false,
        ..SenderConfig::new(Variant::Sack)
    });
    assert_eq!(s.log.len(), 10);
    let d = s.tx.rto_deadline().unwrap();
    assert_eq!(s.at(d).rto(), vec![0]);
    assert_eq!(s.tx.cwnd(), 10.0, "the window itself is untouched");
    // A second timeout on the same data resends SND.UNA again, and only it.
    let d2 = s.tx.rto_deadline().unwrap();
    assert_eq!(s.at(d2).rto(), vec![0]);
    // A duplicate ACK (1 arrives, 0 still missing) is the first ACK: conventional
    // recovery (RFC 5682 2.1 step 2a), the go-back-N goes on within the window.
    assert_eq!(s.at(d2 + ms(10)).arrive([1]), (2..10).collect::<Vec<u32>>());
    assert_eq!(s.tx.stats().timeouts, 2);
}

/// A DiffQ-TCP sender with timestamps (window 8) that sent `0..sent`, one per tick, and
/// whose RTO has just fired; returns it with the time of the timeout.
fn paced_with_timestamps_after_rto(sent: u32) -> (Script, Time) {
    let mut s = Script::new(SenderConfig {
        max_window: 8,
        congestion_control: false,
        paced: true,
        timestamps: true,
        ..SenderConfig::new(Variant::Sack)
    });
    for k in 0..sent {
        tick(s.at(ms(k as u64)));
    }
    let d = s.tx.rto_deadline().unwrap();
    s.at(d).rto();
    (s, d)
}

#[test]
fn paced_timeout_that_was_a_loss_goes_back_after_the_first_ack() {
    // 0..5 left, 0 was lost.
    let (mut s, d) = paced_with_timestamps_after_rto(6);
    assert_eq!(tick(s.at(d + ms(1))), vec![0]);
    assert!(tick(s.at(d + ms(2))).is_empty(), "1..5 wait for an ACK");
    // The retransmission of 0 arrives and its ACK echoes its own timestamp: a genuine
    // timeout (RFC 3522), so 1..5, never acknowledged, go again, one per tick.
    s.at(d + ms(50)).arrive([0]);
    assert_eq!(s.tx.stats().spurious_timeouts, 0);
    assert_eq!(tick(s.at(d + ms(60))), vec![1]);
    assert_eq!(tick(s.at(d + ms(70))), vec![2]);
}

#[test]
fn ending_pacing_flushes_deferred_recovery_and_the_window() {
    let mut s = tcp_paced(10);
    for k in 0..6 {
        tick(s.at(ms(k)));
    }
    // 1 is lost; the ACKs for 2..6 start recovery, deferred.
    assert_eq!(s.at(ms(50)).arrive([0, 2, 3, 4, 5]), Vec::<u32>::new());
    // The flow stops pacing: the retransmission and the rest of the window go at once.
    s.tx.set_app_data(AppData::Finite(8));
    let now = s.now;
    s.tx.end_pacing(now, &mut s.txo);
    let sent: Vec<u32> = s.collect().iter().map(|d| d.seq).collect();
    assert_eq!(sent, vec![1, 6, 7]);
    // From here on ACKs clock the sender again.
    assert_eq!(s.at(ms(80)).arrive([1]), Vec::<u32>::new());
    assert_eq!(s.tx.snd_una(), 6);
}

#[test]
fn without_congestion_control_ece_is_ignored() {
    let mut s = Script::new(SenderConfig {
        max_window: 10,
        initial_cwnd: 2,
        ecn: true,
        congestion_control: false,
        ..SenderConfig::new(Variant::NewReno)
    });
    // The initial window is the receiver's, not RFC 5681's.
    assert_eq!(s.log.len(), 10);
    s.ce = vec![0];
    s.at(ms(100)).arrive(0..10);
    assert_eq!(s.tx.cwnd(), 10.0);
    assert_eq!(s.tx.snd_max(), 20);
}

#[test]
fn vegas_keeps_alpha_to_beta_packets_queued() {
    // Bottleneck 10 ms per packet, 20 ms each way: BaseRTT 50 ms, BDP 5 packets.
    let cfg = SenderConfig {
        initial_cwnd: 2,
        max_window: 100,
        ..SenderConfig::new(Variant::VEGAS)
    };
    let mut net = Net::new(
        TcpSender::new(cfg),
        TcpReceiver::new(ReceiverConfig::default()),
        ms(10),
        ms(20),
    );
    net.measure_from = Time::from_secs(10);
    net.start();
    net.run_until(Time::from_secs(60));
    let q = net.mean_queue();
    assert!((1.0..=3.0).contains(&q), "mean queue {q}");
    let cwnd = net.tx.cwnd();
    assert!((6.0..=8.0).contains(&cwnd), "cwnd {cwnd}");
    assert_eq!(net.queue_drops, 0);
    assert_eq!(net.tx.stats().retransmissions, 0);
}

/// The start of both Vegas retransmission scripts: 0..7 out at t=0 (cwnd = ssthresh =
/// 8), 0, 1, 2 arrive at t=100 ms (three RTT samples of 100 ms, so the fine-grained
/// timeout is at most SRTT + 2 RTTVAR = 200 ms, plus a sixteenth), 3 is lost, 4 arrives
/// at t=101 ms. Returns the script and cwnd before the second duplicate ACK.
fn vegas_loses_segment_3(variant: Variant) -> (Script, f64) {
    let mut s = tcp_established(variant, 8);
    // The window slides by 3 (NewReno), or by 4 when Vegas's epoch adds one (diff < alpha).
    let sent = s.at(ms(100)).arrive([0, 1, 2]);
    assert_eq!(sent[..3], [8, 9, 10]);
    // One duplicate ACK 101 ms after 3 left: not yet past any timeout (>= SRTT).
    assert_eq!(s.at(ms(101)).arrive([4]), Vec::<u32>::new());
    assert_eq!(s.tx.dupacks(), 1);
    let cwnd = s.tx.cwnd();
    (s, cwnd)
}

#[test]
fn vegas_retransmits_on_a_duplicate_ack_once_the_fine_timeout_passed() {
    // Brakmo & Peterson 1995, 3.1: the second duplicate ACK comes 1 s after segment 3
    // left, far past the fine-grained timeout: Vegas retransmits at once, NewReno waits
    // for the third duplicate ACK.
    let (mut vegas, cwnd) = vegas_loses_segment_3(Variant::VEGAS);
    assert_eq!(vegas.at(ms(1000)).arrive([5]), vec![3]);
    assert_eq!(vegas.tx.stats().fast_retransmits, 1);
    assert_eq!(vegas.retransmitted(), vec![3]);
    // A quarter off the window (3.1), not half; cwnd inflated by the two duplicates.
    let win = cwnd.floor();
    assert_eq!(vegas.tx.ssthresh(), win - (win / 4.0).floor());
    assert_eq!(vegas.tx.cwnd(), vegas.tx.ssthresh() + 2.0);

    let (mut newreno, _) = vegas_loses_segment_3(Variant::NewReno);
    assert_eq!(newreno.at(ms(1000)).arrive([5]), Vec::<u32>::new());
    assert_eq!(newreno.tx.stats().fast_retransmits, 0);
    // Both still retransmit on the third duplicate ACK (NewReno now, Vegas is already
    // recovering and only inflates).
    assert_eq!(newreno.arrive([6]), vec![3]);
    assert_eq!(newreno.tx.ssthresh(), 4.0); // FlightSize (3..10) / 2
}

#[test]
fn vegas_checks_the_first_new_ack_after_a_retransmission() {
    // 3.1: the first two new ACKs after a retransmission retransmit the segment they wait
    // for if it has been out past the fine-grained timeout. Segment 3 is retransmitted at
    // t=1 s; the duplicates for everything else sent so far inflate cwnd and send new
    // data, whose first segment is lost too. The retransmission of 3 arrives at t=2 s: the ACK covers the recovery
    // point, recovery ends, and that ACK retransmits the lost new segment at once.
    let (mut s, _) = vegas_loses_segment_3(Variant::VEGAS);
    assert_eq!(s.at(ms(1000)).arrive([5]), vec![3]);
    let recover = s.tx.recover();
    let dups: Vec<u32> = (6..recover).collect();
    let new_data = s.arrive(dups);
    assert_eq!(new_data.first(), Some(&recover));
    let sent = s.at(ms(2000)).arrive([3]);
    assert_eq!(s.tx.phase(), Phase::Open);
    assert_eq!(sent.first(), Some(&recover), "{sent:?}");
    assert_eq!(s.retransmitted(), vec![3, recover]);
    assert_eq!(s.tx.stats().fast_retransmits, 1);
    assert_eq!(s.tx.stats().timeouts, 0);
}

/// A 60-s bulk transfer of `variant` over a 10-ms bottleneck with a 10-packet drop-tail
/// buffer: the variant recovers its losses and keeps the link busy.
fn fills_a_drop_tail_bottleneck(variant: Variant) {
    let cfg = SenderConfig {
        max_window: 100,
        ..SenderConfig::new(variant)
    };
    let rx = TcpReceiver::new(ReceiverConfig::default());
    let mut net = Net::new(TcpSender::new(cfg), rx, ms(10), ms(20));
    net.queue_cap = 10;
    net.start();
    net.run_until(Time::from_secs(60));
    assert!(net.queue_drops > 0, "{variant:?}");
    assert!(net.tx.stats().fast_retransmits > 0, "{variant:?}");
    // 6000 packet times in 60 s; allow the slow-start losses and the saw-tooth.
    assert!(
        net.rx.delivered() > 5000,
        "{variant:?}: delivered {}",
        net.rx.delivered()
    );
}

#[test]
fn newreno_fills_a_drop_tail_bottleneck() {
    // The same bottleneck with a 10-packet buffer: NewReno saw-tooths through losses.
    fills_a_drop_tail_bottleneck(Variant::NewReno);
}

#[test]
fn cubic_recovers_with_sack_from_seventy_percent() {
    // The SACK test's losses under CUBIC: the same retransmissions, ssthresh = 0.7 cwnd
    // (RFC 9438 4.6) instead of half the flight.
    let mut s = tcp_established(Variant::Cubic, 20);
    s.at(ms(100)).arrive([0, 1]);
    let before = s.tx.cwnd();
    let arrivals: Vec<u32> = (3..20).filter(|x| ![5, 8].contains(x)).collect();
    s.arrive(arrivals);
    assert_eq!(s.retransmitted(), vec![2, 5, 8]);
    assert!(matches!(s.tx.phase(), Phase::SackRecovery { .. }));
    assert_eq!(s.tx.ssthresh(), before * 0.7);
    let outstanding = s.outstanding();
    s.at(ms(200)).arrive(outstanding);
    assert_eq!(s.tx.phase(), Phase::Open);
    // Congestion avoidance climbs back towards the window of the loss: below W_max the
    // curve is concave, so it gains more per round than NewReno's one segment at first.
    let w = cwnd_per_round(&mut s, 3);
    assert!(
        w[0] > s.tx.ssthresh() && w[2] <= 20.0 + 1e-9,
        "rounds {w:?}"
    );
}

#[test]
fn cubic_timeout_takes_seventy_percent_and_undoes_with_eifel() {
    // 0..10 leave at t=0 and are merely delayed past the RTO.
    let mut s = tcp_with_timestamps(Variant::Cubic);
    let (original, curve) = (s.wire[&0], s.tx.cubic);
    let d = s.tx.rto_deadline().unwrap();
    assert_eq!(s.at(d).rto(), vec![0]);
    // Loss window of one, ssthresh 0.7 cwnd (RFC 9438 4.8).
    assert_eq!((s.tx.cwnd(), s.tx.ssthresh()), (1.0, 7.0));
    assert_ne!(s.tx.cubic, curve);
    // The original's ACK makes the timeout spurious: RFC 4015's ssthresh and CUBIC's
    // state from before it (RFC 9438 4.9).
    deliver_copy(s.at(d + ms(10)), original);
    assert_eq!(s.tx.stats().spurious_timeouts, 1);
    assert_eq!(s.tx.ssthresh(), 10.0);
    assert_eq!(s.tx.cubic, curve);
}

#[test]
fn cubic_fills_a_drop_tail_bottleneck() {
    fills_a_drop_tail_bottleneck(Variant::Cubic);
}

fn variant_strategy() -> impl Strategy<Value = Variant> {
    prop_oneof![
        Just(Variant::NewReno),
        Just(Variant::Sack),
        Just(Variant::VEGAS),
        Just(Variant::FEW),
        Just(Variant::Cubic),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the (finite) loss pattern on data and ACKs, a finite transfer completes
    /// in order, and SND.UNA never moves backwards; with congestion control off too,
    /// whose timeouts resend one segment until an ACK arrives.
    #[test]
    fn lossy_channel_delivers_everything(
        variant in variant_strategy(),
        data_loss in proptest::collection::vec(any::<bool>(), 0..120),
        ack_loss in proptest::collection::vec(any::<bool>(), 0..120),
        delayed_ack in any::<bool>(),
        timestamps in any::<bool>(),
        congestion_control in any::<bool>(),
        n in 1u32..150,
    ) {
        let cfg = SenderConfig {
            app: AppData::Finite(n),
            max_window: 32,
            timestamps,
            congestion_control,
            ..SenderConfig::new(variant)
        };
        let rcfg = ReceiverConfig { delayed_ack, ..ReceiverConfig::default() };
        let mut net = Net::new(TcpSender::new(cfg), TcpReceiver::new(rcfg), ms(2), ms(5));
        net.data_loss = Box::new(move |_, i| data_loss.get(i as usize).copied().unwrap_or(false));
        net.ack_loss = Box::new(move |_, i| ack_loss.get(i as usize).copied().unwrap_or(false));
        net.start();
        let mut una = 0;
        while net.step() {
            prop_assert!(net.tx.snd_una() >= una);
            una = net.tx.snd_una();
            prop_assert!(net.tx.snd_nxt() >= una && net.tx.snd_nxt() <= net.tx.snd_max());
            prop_assert!(net.events < 1_000_000);
        }
        prop_assert_eq!(net.rx.delivered(), n as u64);
        prop_assert!(net.tx.is_done());
    }

    /// Arbitrary ACKs, RTO expiries and polls never panic and keep the invariants.
    #[test]
    fn arbitrary_inputs_never_panic(
        variant in variant_strategy(),
        congestion_control in any::<bool>(),
        ops in proptest::collection::vec(
            (0u8..4, 0u32..40, proptest::collection::vec((0u32..45, 0u32..45), 0..4), any::<bool>()),
            0..200,
        ),
    ) {
        let mut tx = TcpSender::new(SenderConfig {
            ecn: true,
            congestion_control,
            ..SenderConfig::new(variant)
        });
        let mut out = Outbox::new();
        let mut now = Time::ZERO;
        for (op, cum, blocks, ece) in ops {
            now += ms(7);
            match op {
                0 => tx.poll_send(now, &mut out),
                1 => tx.on_rto(tx.rto_deadline().unwrap_or(now).max(now), &mut out),
                _ => {
                    let ack = TcpAck {
                        cumulative: cum,
                        sack: crate::SackBlocks::from_slice(&blocks),
                        ece,
                        tsecr: None,
                        sent_at: now,
                    };
                    tx.on_ack(&ack, now, &mut out);
                }
            }
            prop_assert!(tx.snd_una() <= tx.snd_nxt() && tx.snd_nxt() <= tx.snd_max());
            prop_assert!(tx.cwnd() >= 1.0 && tx.cwnd().is_finite());
            prop_assert!(tx.flight_size() <= tx.config().max_window);
            out.clear();
        }
    }
}

/// Delivers this exact copy of a segment (not the latest transmission) and feeds the
/// ACKs back; returns what the sender sent in response.
fn deliver_copy(s: &mut Script, d: TcpData) -> Vec<u32> {
    s.rx.on_data(&d, s.now, &mut s.rxo);
    let acks: Vec<TcpAck> = s.rxo.items.drain(..).collect();
    let mut sent = Vec::new();
    for a in acks {
        s.tx.on_ack(&a, s.now, &mut s.txo);
        sent.extend(s.collect().iter().map(|d| d.seq));
    }
    sent
}

fn tcp_with_timestamps(variant: Variant) -> Script {
    Script::new(SenderConfig {
        initial_cwnd: 10,
        initial_ssthresh: Some(10.0),
        max_window: 64,
        timestamps: true,
        ..SenderConfig::new(variant)
    })
}

#[test]
fn eifel_undoes_a_spurious_timeout() {
    for variant in [Variant::NewReno, Variant::Sack] {
        // 0..10 leave at t=0 and are merely delayed past the RTO.
        let mut s = tcp_with_timestamps(variant);
        let original = s.wire[&0];
        let d = s.tx.rto_deadline().unwrap();
        assert_eq!(
            s.at(d).rto(),
            vec![0],
            "{variant:?}: go-back-N starts with SND.UNA"
        );
        assert_eq!(s.tx.cwnd(), 1.0);
        // The original 0 arrives: its ACK echoes TSval 0, older than the retransmission
        // (RFC 3522): spurious. The sender resumes with new data, not 1..9 again, and
        // ssthresh is pipe_prev = max(FlightSize 10, ssthresh 10) (RFC 4015).
        let sent = deliver_copy(s.at(d + ms(10)), original);
        assert_eq!(s.tx.stats().spurious_timeouts, 1, "{variant:?}");
        assert_eq!(s.tx.ssthresh(), 10.0);
        assert_eq!(s.tx.cwnd(), 9.0 + 1.0, "FlightSize 9 + min(acked 1, IW)");
        assert_eq!(sent, vec![10], "{variant:?}: new data only");
        let again: Vec<u32> = s.at(d + ms(20)).arrive(1..10);
        assert!(again.iter().all(|&q| q >= 11), "{variant:?}: {again:?}");
        assert_eq!(s.retransmitted(), vec![0]);
    }
}

#[test]
fn eifel_undo_lets_sack_recovery_repair_a_real_hole() {
    // 0..10 are delayed past the RTO and 3 is lost on the way. The undone timeout must
    // not keep its guard on `recover` (SND.MAX at the timeout), or the hole, SACKed all
    // around, would wait for the next RTO.
    let mut s = tcp_with_timestamps(Variant::Sack);
    let original = s.wire[&0];
    let d = s.tx.rto_deadline().unwrap();
    s.at(d).rto();
    deliver_copy(s.at(d + ms(10)), original);
    assert_eq!(s.tx.stats().spurious_timeouts, 1);
    s.at(d + ms(20)).arrive([1, 2]);
    assert_eq!(s.tx.snd_una(), 3);
    let sent = s.at(d + ms(30)).arrive([4, 5, 6]);
    assert_eq!(s.tx.stats().fast_retransmits, 1, "SACK recovery started");
    assert!(sent.contains(&3), "{sent:?}");
    assert_eq!(s.tx.stats().timeouts, 1);
}

#[test]
fn eifel_keeps_a_genuine_timeout() {
    // 0 is lost; its retransmission arrives, so the ACK echoes the retransmission's own
    // timestamp: the timeout stands and go-back-N goes on from 1.
    let mut s = tcp_with_timestamps(Variant::NewReno);
    let d = s.tx.rto_deadline().unwrap();
    s.at(d).rto();
    let sent = s.at(d + ms(10)).arrive([0]);
    assert_eq!(s.tx.stats().spurious_timeouts, 0);
    assert_eq!(
        sent,
        vec![1, 2],
        "slow start from cwnd 1: two segments for one ACK"
    );
    assert_eq!(s.tx.ssthresh(), 5.0);
}

#[test]
fn eifel_detects_a_paced_timeout_before_the_retransmission_leaves() {
    let (mut s, d) = paced_with_timestamps_after_rto(4);
    // The ACK for the original 0 arrives before the next tick sent anything.
    s.at(d + ms(1)).arrive([0]);
    assert_eq!(s.tx.stats().spurious_timeouts, 1);
    // The next tick goes on with new data, not back to 1.
    assert_eq!(tick(s.at(d + ms(2))), vec![4]);
    assert!(s.retransmitted().is_empty());
}
