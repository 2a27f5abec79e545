"""Queue disciplines and rate controllers written in Python (``aq.run(..., queue=...,
cc=...)``, ``airqueue.extend``): the Python drop-tail is bit-identical to the built-in
one, the examples run, user errors stop the run with the user's own traceback, refused
classes are refused before it, and a Python controller paces a flow."""

from __future__ import annotations

import sys
import threading
import traceback
from collections import deque
from pathlib import Path

import pytest

import airqueue as aq

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES / "python"))
from diffq_backlog import DiffBacklog  # noqa: E402
from droptail import DropTail  # noqa: E402
from red import Red  # noqa: E402

WALL_CLOCK_KEYS = ("wall_seconds", "events_per_second")


def comparable(res: aq.Results) -> tuple[dict, dict, dict]:
    """What must match bit for bit: the summary without wall-clock keys (events, per-flow
    packets and goodput, drops), and the flows and drops tables."""
    summary = {k: v for k, v in res.summary.items() if k not in WALL_CLOCK_KEYS}
    return summary, res.flows.to_dict("list"), res.drops.to_dict("list")


@pytest.mark.parametrize(
    ("example", "duration"), [("star-wifi.toml", 2.0), ("tcp-chain.toml", 5.0)]
)
def test_python_droptail_is_bit_identical_to_the_builtin(example, duration):
    path = EXAMPLES / example
    builtin = aq.run(path, duration=duration, traces=False)
    python = aq.run(path, duration=duration, traces=False, queue=DropTail)
    assert builtin.summary["events"] > 10_000
    assert builtin.drops["packets"].sum() > 0
    assert comparable(python) == comparable(builtin)
    assert python.summary["conservation"]["holds"]


#: A CBR flow over three 802.11 hops at more than they carry: queues overflow.
OVERLOADED_CHAIN = {
    "name": "overloaded-chain",
    "duration": 2.0,
    "topology": {"kind": "chain", "nodes": 4, "spacing": 200},
    "queue": {"capacity": 10},
    "flow": [{"kind": "udp", "src": 0, "dst": 3, "rate": 3e6, "packet_size": 1000}],
}


def test_python_droptail_overflows_like_the_builtin():
    builtin = aq.run(OVERLOADED_CHAIN, traces=False)
    python = aq.run(OVERLOADED_CHAIN, traces=False, queue=DropTail)
    overflows = builtin.drops[builtin.drops["reason"] == "queue_overflow"]
    assert set(overflows["node"]) >= {0, 1}  # at the source and at a relay
    assert comparable(python) == comparable(builtin)


def test_same_seed_same_bits_with_randomised_python_code():
    sc = aq.load_scenario(EXAMPLES / "star-wifi.toml")
    runs = [
        comparable(aq.run(sc, duration=1.0, traces=False, queue=lambda n, c: Red(n, 10, seed=3)))
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert runs[0][0]["drops"].get("aqm", 0) > 0  # RED did drop early


def test_red_drops_early_and_conserves():
    res = aq.run(EXAMPLES / "star-wifi.toml", duration=1.0, traces=False, queue=Red)
    s = res.summary
    assert s["conservation"]["holds"]
    assert s["drops"].get("aqm", 0) > 0
    assert s["aggregate_goodput_bps"] > 1e6


def diffq_mesh(flows: int, duration: float, seed: int = 1) -> dict:
    from airqueue.reproduce.diffq_single_path import scheme_scenario

    sc = scheme_scenario(
        "DiffQ-UDP",
        name="pyext",
        duration=duration,
        nodes=46,
        area=(900.0, 900.0),
        flows=flows,
        packet_size=1400,
        queue_capacity=199,
        delayed_ack=True,
        routing="static",
    )
    sc["seed"] = seed
    return sc


def test_differential_backlog_runs_on_the_diffq_mesh():
    sc = diffq_mesh(flows=16, duration=3.0)
    res = aq.run(sc, traces=False, queue=DiffBacklog)
    s = res.summary
    assert s["conservation"]["holds"]
    assert len(res.flows) == 16
    assert 0.0 < s["jain_index"] <= 1.0
    assert s["aggregate_goodput_bps"] > 1e5


class Boom(aq.QueueDiscipline):
    """Raises at the first packet from its third node on."""

    def __init__(self, node: int, capacity: int) -> None:
        self.node = node
        self.fifo: deque[aq.Packet] = deque()

    def enqueue(self, packet: aq.Packet, now: float) -> bool:
        if self.node == 3:
            self.explode(packet)
        self.fifo.append(packet)
        return True

    def explode(self, packet: aq.Packet) -> None:
        raise ValueError(f"no room for {packet.uid} in my head")

    def dequeue(self, now: float) -> aq.Packet | None:
        return self.fifo.popleft() if self.fifo else None

    def __len__(self) -> int:
        return len(self.fifo)


def test_a_user_exception_names_node_time_packet_and_keeps_the_user_traceback():
    with pytest.raises(aq.UserCodeError) as info:
        aq.run(EXAMPLES / "star-wifi.toml", duration=2.0, traces=False, queue=Boom)
    message = str(info.value)
    assert "Boom.enqueue at node 3" in message
    assert "t = 0." in message and "packet uid " in message
    assert "ValueError: no room for" in message
    cause = info.value.__cause__
    assert isinstance(cause, ValueError)
    frames = [f.name for f in traceback.extract_tb(cause.__traceback__)]
    assert frames == ["enqueue", "explode"], frames  # the user's frames, nothing of ours


def test_a_user_exception_from_a_helper_thread_run_stops_too():
    # Runs from threads other than the main one (sweep workers) take the direct path.
    out: list[BaseException] = []

    def go() -> None:
        try:
            aq.run(EXAMPLES / "star-wifi.toml", duration=1.0, traces=False, queue=Boom)
        except BaseException as e:  # noqa: BLE001
            out.append(e)

    t = threading.Thread(target=go)
    t.start()
    t.join()
    assert isinstance(out[0], aq.UserCodeError)


class Liar(DropTail):
    """Returns a packet it has already handed out."""

    def dequeue(self, now: float) -> aq.Packet | None:
        if not self.fifo:
            return None
        self.last = self.fifo[0] if len(self.fifo) == 1 else self.fifo.popleft()
        return self.last


def test_returning_a_packet_twice_is_a_clear_error():
    with pytest.raises(aq.UserCodeError, match="does not hold"):
        aq.run(EXAMPLES / "star-wifi.toml", duration=1.0, traces=False, queue=Liar)


class NotABool(DropTail):
    def enqueue(self, packet, now):
        super().enqueue(packet, now)
        return "yes"


def test_enqueue_must_answer_true_or_false():
    with pytest.raises(aq.UserCodeError, match="enqueue must return True"):
        aq.run(EXAMPLES / "star-wifi.toml", duration=1.0, traces=False, queue=NotABool)


class WrongArity(aq.QueueDiscipline):
    def __init__(self, node, capacity):
        pass

    def enqueue(self, packet):  # missing `now`
        return True

    def dequeue(self, now):
        return None

    def __len__(self):
        return 0


class NoDequeue(aq.QueueDiscipline):
    def __init__(self, node, capacity):
        pass

    def enqueue(self, packet, now):
        return True

    def __len__(self):
        return 0


class NotASubclass:
    def __init__(self, node, capacity):
        pass


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        (WrongArity, r"WrongArity\.enqueue\(packet\) must take 2 arguments"),
        (NoDequeue, "NoDequeue must define dequeue"),
        (NotASubclass, "must subclass airqueue.QueueDiscipline"),
    ],
)
def test_a_refused_class_is_refused_before_the_run(cls, expected):
    with pytest.raises(aq.ConfigError, match=expected):
        aq.run(EXAMPLES / "star-wifi.toml", duration=1.0, queue=cls)


def test_a_factory_returning_a_wrong_object_is_a_clear_error():
    with pytest.raises(aq.UserCodeError, match="must return an airqueue.QueueDiscipline"):
        aq.run(EXAMPLES / "star-wifi.toml", duration=1.0, queue=lambda node, cap: object())


class ConstantRate(aq.RateController):
    update_interval = 0.05
    initial_rate_bps = 100e3

    def __init__(self, flow: int, src: int, dst: int) -> None:
        self.calls = 0

    def update(self, now, queue_pkts, sent_pkts, acked_pkts):
        self.calls += 1
        return 400e3


#: One saturating UDP flow over two hops, asking for source rate control (``cc``).
PACED = {
    "name": "paced",
    "duration": 4.0,
    "warmup": 1.0,
    "topology": {"kind": "chain", "nodes": 3, "spacing": 200},
    "flow": [
        {
            "kind": "udp",
            "src": 0,
            "dst": 2,
            "rate": "saturate",
            "packet_size": 1000,
            "cc": "external",
        }
    ],
}


def test_a_python_controller_paces_a_saturating_flow_at_its_rate():
    res = aq.run(PACED, traces=False, cc=ConstantRate)
    flow = res.flows.iloc[0]
    # 400 kb/s of payload, far below what two hops carry: sent and delivered at the rate.
    assert flow["sent_bps"] == pytest.approx(400e3, rel=0.01)
    assert flow["goodput_bps"] == pytest.approx(400e3, rel=0.02)


def test_a_controller_sees_its_source_and_is_called_every_interval():
    seen: list[tuple] = []

    class Recording(ConstantRate):
        def update(self, now, queue_pkts, sent_pkts, acked_pkts):
            seen.append((now, queue_pkts, sent_pkts, acked_pkts))
            return 400e3

    aq.run(PACED, traces=False, cc=Recording)
    times = [t for t, *_ in seen]
    assert times[0] == pytest.approx(0.05) and len(seen) == 79  # 0.05 .. 3.95 s
    assert all(b - a == pytest.approx(0.05) for a, b in zip(times, times[1:], strict=False))
    sent = [s for _, _, s, _ in seen]
    # 400 kb/s of 1000-byte packets: 50 a second (one right at the start).
    assert sent == sorted(sent) and abs(sent[-1] - 3.95 * 50) <= 2
    assert {a for *_, a in seen} == {None}  # UDP has no feedback


def test_external_cc_without_a_controller_is_a_clear_error():
    with pytest.raises(aq.ConfigError, match=r"flow\[0\]\.cc: \"external\" takes its rate"):
        aq.run(PACED, traces=False)


class Failing(ConstantRate):
    def update(self, now, queue_pkts, sent_pkts, acked_pkts):
        if now > 0.5:
            raise RuntimeError("controller gave up")
        return 400e3


def test_a_controller_exception_names_flow_node_and_time():
    with pytest.raises(aq.UserCodeError, match=r"Failing.update of flow 0 at node 0, t = 0\.5"):
        aq.run(PACED, traces=False, cc=Failing)


def test_a_sweep_runs_a_python_queue_on_dask_like_the_builtin():
    kw = {"seeds": [1, 2], "duration": 0.5, "progress": False}
    builtin = aq.sweep(EXAMPLES / "star-wifi.toml", serial=True, **kw)
    python = aq.sweep(EXAMPLES / "star-wifi.toml", workers=1, queue=DropTail, **kw)
    assert python.attrs["failed"] == [] and python.attrs["executed"] == 2
    assert set(python["run_id"]).isdisjoint(builtin["run_id"])  # the scheme is in the id
    columns = ["seed", "id", "packets_sent", "packets_delivered", "goodput_bps"]
    pd_builtin = builtin[columns].sort_values(["seed", "id"]).reset_index(drop=True)
    pd_python = python[columns].sort_values(["seed", "id"]).reset_index(drop=True)
    assert pd_python.equals(pd_builtin)


class LockedFactory:
    """A factory that holds a lock, which cannot be pickled to a Dask worker."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __call__(self, node: int, capacity: int) -> DropTail:
        return DropTail(node, capacity)


def test_a_sweep_refuses_a_factory_it_cannot_send_to_workers():
    with pytest.raises(aq.ConfigError, match="cannot be sent to the sweep's Dask workers"):
        aq.sweep(EXAMPLES / "star-wifi.toml", seeds=1, duration=0.5, queue=LockedFactory())
    # In this process it needs no pickling.
    df = aq.sweep(
        EXAMPLES / "star-wifi.toml",
        seeds=1,
        duration=0.5,
        queue=LockedFactory(),
        serial=True,
        progress=False,
    )
    assert df.attrs["failed"] == [] and len(df) == 20


class ZeroRate(ConstantRate):
    def update(self, now, queue_pkts, sent_pkts, acked_pkts):
        return 0.0


class HugeReport(DropTail):
    def report(self, dst):
        return 70_000


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"cc": ZeroRate}, r"update must be a finite rate in bit/s > 0, got 0\.0"),
        ({"cc": ConstantRate, "queue": HugeReport}, r"report must return an int in 0\.\.=65534"),
    ],
)
def test_a_wrong_return_value_is_a_clear_error(kwargs, expected):
    with pytest.raises(aq.UserCodeError, match=expected):
        aq.run(PACED, traces=False, **kwargs)


def test_an_external_controller_shows_in_the_rates_table():
    res = aq.run(PACED, cc=ConstantRate)
    rates = res.rates
    assert set(rates["kind"]) == {"external"}
    assert rates[rates["t_s"] >= 0.5]["rate_bps"].eq(400e3).all()


def test_hooks_see_reports_transmit_status_and_set_the_mac_level():
    heard: list[tuple[int, int, int, int]] = []
    status: list[tuple[int, int, bool, int]] = []
    levels: list[int] = []

    class Hooked(DropTail):
        def __init__(self, node: int, capacity: int) -> None:
            super().__init__(node, capacity)
            self.node = node

        def report(self, dst: int) -> int:
            return 1000 + len(self)

        def on_report(self, neighbour: int, dst: int, value: int) -> None:
            heard.append((self.node, neighbour, dst, value))

        def on_tx_status(self, next_hop: int, success: bool, attempts: int) -> None:
            status.append((self.node, next_hop, success, attempts))

        def priority(self, packet: aq.Packet) -> int:
            levels.append(packet.priority)
            return 0

    res = aq.run(EXAMPLES / "tcp-chain.toml", duration=2.0, traces=False, queue=Hooked)
    assert res.summary["conservation"]["holds"]
    # A chain: every report comes from a node within two positions, for a flow's end.
    assert heard and all(abs(n - j) <= 2 and d in (0, 4) for n, j, d, _ in heard)
    assert all(1000 <= v <= 1000 + 50 for *_, v in heard)
    assert status and all(abs(n - j) == 1 and a >= 1 for n, j, _, a in status)
    assert any(ok for *_, ok, _ in status)
    # Asked for every departure: each frame sent reports its status once it is done.
    assert len(levels) >= len(status) and set(levels) == {0}


def test_a_python_controller_paces_tcp_and_sees_its_acks():
    seen: list[int | None] = []

    class Watching(ConstantRate):
        def update(self, now, queue_pkts, sent_pkts, acked_pkts):
            seen.append(acked_pkts)
            return 400e3

    tcp = dict(PACED, flow=[{"kind": "tcp", "src": 0, "dst": 2, "packet_size": 1000}])
    tcp["flow"][0]["cc"] = "external"
    res = aq.run(tcp, traces=False, cc=Watching)
    assert seen[0] is not None and seen == sorted(seen) and seen[-1] > 150
    assert res.flows.iloc[0]["goodput_bps"] == pytest.approx(400e3, rel=0.03)
