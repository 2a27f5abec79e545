"""Drop-tail FIFO in Python: the reference ``queue.kind = "droptail"`` (without ECN
marking) written against ``airqueue.QueueDiscipline``. It gives results bit-identical to
the built-in one (tests/test_extend.py checks events, per-flow counts and drops).

    import airqueue as aq
    from droptail import DropTail
    aq.run("examples/star-wifi.toml", queue=DropTail)
"""

from collections import deque

import airqueue as aq


class DropTail(aq.QueueDiscipline):
    """First in, first out; an arrival finding ``capacity`` packets is refused."""

    def __init__(self, node: int, capacity: int) -> None:
        self.capacity = capacity
        self.fifo: deque[aq.Packet] = deque()

    def enqueue(self, packet: aq.Packet, now: float) -> bool:
        if len(self.fifo) >= self.capacity:
            return False
        self.fifo.append(packet)
        return True

    def dequeue(self, now: float) -> aq.Packet | None:
        return self.fifo.popleft() if self.fifo else None

    def __len__(self) -> int:
        return len(self.fifo)
