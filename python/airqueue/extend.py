"""Queue disciplines and source rate controllers written in Python, run on the Rust core.

``aq.run(scenario, queue=Factory, cc=Factory)`` puts them in place of the scenario's:

* ``queue``: ``Factory(node, capacity)`` builds one :class:`QueueDiscipline` per radio
  interface (wired links keep the scenario's discipline). ``capacity`` is the scenario's
  ``queue.capacity``, whatever its ``queue.kind``.
* ``cc``: ``Factory(flow, src, dst)`` builds one :class:`RateController` per flow whose
  ``cc`` key gives it a source rate controller (``cc = "diffq"`` or ``"backpressure"``);
  it replaces that controller, and the flow keeps everything else its ``cc`` implies
  (DiffQ's header on its packets, the queue its controller reads).

Scenario files stay data: code reaches a run only through these arguments. The radio,
MAC, routing, transport and metrics stay in Rust; only the calls below go to Python.

Determinism: the same scenario, seed and code give the same bits. Code that draws random
numbers must seed them from the run (e.g. ``random.Random(f"{seed}-{node}")``), never
from the clock or the global ``random`` module's unseeded state.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from airqueue._core import Packet

__all__ = ["Packet", "QueueDiscipline", "RateController", "check_factory"]


class QueueDiscipline:
    """Base class of a queue discipline written in Python: one instance per radio
    interface, built by ``Factory(node, capacity)``.

    Required: ``enqueue(packet, now) -> bool`` (accept, or refuse: the packet is dropped,
    as an overflow when the queue holds ``capacity`` packets or more, else as an AQM drop),
    ``dequeue(now) -> Packet | None`` (called when the MAC has room; return one of the
    packets you accepted and still hold, or None), and ``__len__`` (packets held; checked
    against the core's count once per output bin). ``now`` is in seconds.

    ``packet`` is a read-only view of a packet that stays in Rust: ``uid``, ``flow``
    (None for control packets), ``kind`` ("data", "ack" or "control"), ``src``, ``dst``,
    ``next_hop``, ``prev_hop`` (the node itself for a packet generated here),
    ``size_bytes``, ``created`` (s), ``priority``, ``ecn_capable``, and ``mark_ce()``
    (RFC 3168: returns False for a packet that is not ECN-capable).

    The core lets a saturating source fill the queue while it holds fewer than
    ``capacity`` packets and has refused none since the last one left.

    Optional hooks (the base class's do nothing and cost nothing):

    * ``report(dst) -> int``: a value in 0..65534 written on every packet towards
      ``dst`` as it leaves (a 4-byte header on the air);
    * ``on_report(neighbour, dst, value)``: a report decoded or overheard from a
      neighbour;
    * ``on_tx_status(next_hop, success, attempts)``: the MAC's outcome of a frame sent;
    * ``priority(packet) -> int``: the MAC (EDCA) level of a packet leaving, instead of
      its own ``priority``;
    * ``queue_len(dst) -> int``: the queue a packet towards ``dst`` waits in, which the
      source rate control of a paced flow reads (default: the whole length, a FIFO's).
    """

    def enqueue(self, packet: Packet, now: float) -> bool:
        raise NotImplementedError

    def dequeue(self, now: float) -> Packet | None:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def report(self, dst: int) -> int:
        return 0

    def on_report(self, neighbour: int, dst: int, value: int) -> None:
        return None

    def on_tx_status(self, next_hop: int, success: bool, attempts: int) -> None:
        return None

    def priority(self, packet: Packet) -> int:
        return packet.priority

    def queue_len(self, dst: int) -> int:
        return len(self)


class RateController:
    """Base class of a source rate controller written in Python: one instance per flow
    that asks for rate control, built by ``Factory(flow, src, dst)``.

    ``update(now, queue_pkts, sent_pkts, acked_pkts) -> rate_bps`` is called every
    ``update_interval`` seconds with what the source sees locally: its queue for the
    flow (packets), the packets it has sent, and for TCP the segments cumulatively
    acknowledged (None for other transports). It returns the rate (bit/s of payload, > 0)
    at which the source sends until the next update; ``initial_rate_bps`` applies before
    the first.
    """

    update_interval: float = 0.1
    initial_rate_bps: float = 1e6

    def update(self, now: float, queue_pkts: int, sent_pkts: int, acked_pkts: int | None) -> float:
        raise NotImplementedError


_QUEUE_REQUIRED = {"enqueue": 2, "dequeue": 1, "__len__": 0}
_QUEUE_HOOKS = {"report": 1, "on_report": 3, "on_tx_status": 3, "priority": 1, "queue_len": 1}
_RATE_REQUIRED = {"update": 4}


def _arity_problem(owner: str, name: str, method: Any, arity: int) -> str | None:
    """Why ``method`` (bound) cannot be called with ``arity`` positional arguments."""
    if not callable(method):
        return f"{owner}.{name} must be a method, got {method!r}"
    try:
        sig = inspect.signature(method)
    except (TypeError, ValueError):
        return None  # a builtin without a signature: trust it
    try:
        sig.bind(*range(arity))
    except TypeError:
        return f"{owner}.{name}{sig} must take {arity} argument{'s' * (arity != 1)}"
    return None


def _problems(obj_or_cls: Any, required: dict[str, int], hooks: dict[str, int]) -> list[str]:
    owner = obj_or_cls.__name__ if isinstance(obj_or_cls, type) else type(obj_or_cls).__name__
    probe = obj_or_cls
    if isinstance(obj_or_cls, type):
        # Bind the methods to a stand-in so that `self` is not counted.
        probe = obj_or_cls.__new__(obj_or_cls)
    problems = []
    for name, arity in required.items():
        method = getattr(probe, name, None)
        if method is None:
            problems.append(f"{owner} has no {name} method")
            continue
        base = getattr(QueueDiscipline, name, None) or getattr(RateController, name, None)
        if getattr(type(probe), name, None) is base and base is not None:
            problems.append(f"{owner} must define {name} (the base class's raises)")
            continue
        problem = _arity_problem(owner, name, method, arity)
        if problem:
            problems.append(problem)
    for name, arity in hooks.items():
        method = getattr(probe, name, None)
        if method is not None:
            problem = _arity_problem(owner, name, method, arity)
            if problem:
                problems.append(problem)
    return problems


def check_factory(factory: Any, what: str) -> None:
    """Refuses, before the run, a ``queue`` or ``cc`` factory that cannot work: not
    callable, or a class whose methods are missing or take the wrong arguments. Raises
    TypeError naming each problem. (A factory function is checked on what it returns,
    when the run builds its instances.)"""
    if not callable(factory):
        raise TypeError(f"{what}: expected a class or factory callable, got {factory!r}")
    arity = 2 if what == "queue" else 3
    args = "(node, capacity)" if what == "queue" else "(flow, src, dst)"
    if isinstance(factory, type):
        base = QueueDiscipline if what == "queue" else RateController
        required, hooks = (
            (_QUEUE_REQUIRED, _QUEUE_HOOKS) if what == "queue" else (_RATE_REQUIRED, {})
        )
        problems = _problems(factory, required, hooks)
        if not issubclass(factory, base):
            problems.insert(0, f"{factory.__name__} must subclass airqueue.{base.__name__}")
        init = _arity_problem(factory.__name__, "__init__", factory, arity)
        if init:
            problems.append(f"{factory.__name__} must be built as {factory.__name__}{args}")
        if problems:
            raise TypeError(f"{what}={factory.__name__} refused: " + "; ".join(problems))
        return
    problem = _arity_problem(what, "factory", factory, arity)
    if problem:
        raise TypeError(f"{what}: the factory must be callable as factory{args}: {problem}")


def queue_hooks(obj: Any) -> tuple[Callable[..., Any] | None, ...]:
    """The methods the core calls on a queue discipline ``obj`` (called by the core for
    each instance a factory builds): enqueue, dequeue, __len__, then each optional hook
    or None where ``obj`` keeps the base class's no-op. Raises TypeError naming what is
    wrong."""
    if not isinstance(obj, QueueDiscipline):
        raise TypeError(f"the queue factory must return an airqueue.QueueDiscipline, got {obj!r}")
    problems = _problems(obj, _QUEUE_REQUIRED, _QUEUE_HOOKS)
    if problems:
        raise TypeError(f"{type(obj).__name__} refused: " + "; ".join(problems))
    cls = type(obj)
    hooks = tuple(
        None if getattr(cls, name) is getattr(QueueDiscipline, name) else getattr(obj, name)
        for name in _QUEUE_HOOKS
    )
    return (obj.enqueue, obj.dequeue, obj.__len__, *hooks)


def rate_hooks(obj: Any) -> tuple[Callable[..., Any], float, Any]:
    """``(update, update_interval, initial_rate_bps)`` of a rate controller ``obj`` (the
    core checks the numbers). Raises TypeError naming what is wrong."""
    if not isinstance(obj, RateController):
        raise TypeError(f"the cc factory must return an airqueue.RateController, got {obj!r}")
    problems = _problems(obj, _RATE_REQUIRED, {})
    if problems:
        raise TypeError(f"{type(obj).__name__} refused: " + "; ".join(problems))
    try:
        interval = float(obj.update_interval)
    except (TypeError, ValueError):
        raise TypeError(
            f"{type(obj).__name__}.update_interval must be a number of seconds, "
            f"got {obj.update_interval!r}"
        ) from None
    return obj.update, interval, obj.initial_rate_bps
