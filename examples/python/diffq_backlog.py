"""A differential-backlog scheduler in the spirit of DiffQ (seed 000, section 4.1), in
Python: one FIFO per destination; every packet leaving carries this node's backlog for
its destination (``report``); what neighbours report is kept (``on_report``); the MAC
gets the head of the destination queue with the largest differential backlog
``|Q_i(d)| - |Q_j(d)|`` towards its next hop ``j``, at an EDCA level that grows with
that differential (``ceil(8 qd / D)``, capped at 7, as DiffQ's eight levels).

Run it on a DiffQ scenario (``mac.levels = "diffq8"``; flows with ``cc = "diffq"`` keep
DiffQ's source pacing) with ``aq.run(scenario, queue=DiffBacklog)``.
"""

from collections import deque

import airqueue as aq

#: Per-destination queue limit, packets: DiffQ's ``D``, which also sets the level step.
D = 40
LEVELS = 8


class DiffBacklog(aq.QueueDiscipline):
    def __init__(self, node: int, capacity: int) -> None:
        self.capacity = capacity
        self.queues: dict[int, deque[aq.Packet]] = {}
        self.heard: dict[tuple[int, int], int] = {}  # (neighbour, dst) -> its backlog
        self.held = 0
        self.level: dict[int, int] = {}  # uid -> EDCA level, set as it leaves

    def enqueue(self, packet: aq.Packet, now: float) -> bool:
        q = self.queues.setdefault(packet.dst, deque())
        if len(q) >= D or self.held >= self.capacity:
            return False
        q.append(packet)
        self.held += 1
        return True

    def differential(self, dst: int, q: deque[aq.Packet]) -> int:
        nxt = q[0].next_hop
        return len(q) - (0 if nxt == dst else self.heard.get((nxt, dst), 0))

    def dequeue(self, now: float) -> aq.Packet | None:
        best, best_qd = None, None
        for dst in sorted(self.queues):  # sorted: ties go the same way every run
            q = self.queues[dst]
            if not q:
                continue
            qd = self.differential(dst, q)
            if best_qd is None or qd > best_qd:
                best, best_qd = q, qd
        if best is None or best_qd is None:
            return None
        packet = best.popleft()
        self.held -= 1
        self.level[packet.uid] = min(LEVELS - 1, max(0, -(-best_qd * LEVELS // D)))
        return packet

    def priority(self, packet: aq.Packet) -> int:
        return self.level.pop(packet.uid, 0)

    def report(self, dst: int) -> int:
        return len(self.queues.get(dst, ()))

    def on_report(self, neighbour: int, dst: int, value: int) -> None:
        self.heard[neighbour, dst] = value

    def queue_len(self, dst: int) -> int:  # what DiffQ's source rate control reads
        return len(self.queues.get(dst, ()))

    def __len__(self) -> int:
        return self.held
