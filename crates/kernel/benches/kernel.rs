//! Bare-kernel throughput: how many events per second the queue and timers sustain.
//!
//! `hold` is the classic hold model: a queue kept at a constant population where every
//! popped event schedules one successor at a pseudo-random delay, which is what a network
//! simulation does in steady state. `timer_rearm` models TCP/MAC timers re-armed on every
//! packet.

use airqueue_kernel::{EventQueue, RngStream, StreamKey, Time, TimerEvent, Timers};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const EVENTS: u64 = 100_000;

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel/hold");
    g.throughput(Throughput::Elements(EVENTS));
    for population in [64usize, 1024, 16384] {
        g.bench_with_input(
            BenchmarkId::from_parameter(population),
            &population,
            |b, &pop| {
                b.iter(|| {
                    let mut rng = RngStream::new(StreamKey::new(1, 0, "bench"));
                    let mut q: EventQueue<u32> = EventQueue::with_capacity(pop);
                    for i in 0..pop {
                        q.schedule_in(
                            Time::from_nanos(rng.below_inclusive(1_000_000) as u64),
                            i as u32,
                        );
                    }
                    for _ in 0..EVENTS {
                        let (_, ev) = q.pop().unwrap();
                        q.schedule_in(
                            Time::from_nanos(rng.below_inclusive(1_000_000) as u64),
                            black_box(ev),
                        );
                    }
                    q.executed()
                })
            },
        );
    }
    g.finish();
}

fn timer_rearm(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel/timer_rearm");
    g.throughput(Throughput::Elements(EVENTS));
    g.bench_function("later_deadline", |b| {
        b.iter(|| {
            let mut q: EventQueue<TimerEvent> = EventQueue::new();
            let mut timers = Timers::new();
            let t = timers.create(0u32);
            for i in 0..EVENTS {
                timers.arm(t, Time::from_micros(1000 + i), &mut q, |e| e);
            }
            let mut fired = 0;
            while let Some((_, ev)) = q.pop() {
                fired += timers.fire(ev, &mut q, |e| e).is_some() as u32;
            }
            fired
        })
    });
    g.finish();
}

criterion_group!(benches, hold, timer_rearm);
criterion_main!(benches);
