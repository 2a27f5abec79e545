"""Random Early Detection (Floyd and Jacobson, IEEE/ACM ToN 1993) in Python, over a FIFO.

The average queue is an EWMA of the length at each arrival, decayed over idle time as if
``mean_pkt_time`` packets had left per second; between the two thresholds an arrival is
dropped (or CE-marked, RFC 3168, when ``ecn`` and the packet is ECN-capable) with
probability ``p_b / (1 - count * p_b)``, ``p_b`` rising linearly to ``max_p``; above
``max_threshold`` every arrival is. Draws come from a ``random.Random`` seeded from the
node and ``seed``: pass the run's seed (``queue=lambda n, c: Red(n, c, seed=7)``) to vary
them with it; never the unseeded global generator (runs must repeat bit for bit).
"""

import random
from collections import deque

import airqueue as aq


class Red(aq.QueueDiscipline):
    def __init__(
        self,
        node: int,
        capacity: int,
        *,
        seed: int = 1,
        min_threshold: float = 5,
        max_threshold: float = 15,
        max_p: float = 0.1,
        weight: float = 0.002,
        mean_pkt_time: float = 0.001,
        ecn: bool = False,
    ) -> None:
        self.capacity, self.min_th, self.max_th = capacity, min_threshold, max_threshold
        self.max_p, self.weight, self.mean_pkt_time, self.ecn = max_p, weight, mean_pkt_time, ecn
        self.rng = random.Random(f"red-{seed}-{node}")
        self.fifo: deque[aq.Packet] = deque()
        self.avg, self.count, self.idle_since = 0.0, -1, 0.0

    def enqueue(self, packet: aq.Packet, now: float) -> bool:
        if self.fifo:
            self.avg += self.weight * (len(self.fifo) - self.avg)
        else:  # idle: decay as if packets had left at the mean rate
            m = (now - self.idle_since) / self.mean_pkt_time
            self.avg *= (1 - self.weight) ** m
        if len(self.fifo) >= self.capacity:
            return False
        if self.avg >= self.max_th:
            signal = True
        elif self.avg >= self.min_th:
            self.count += 1
            p_b = self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
            p_a = p_b / max(1e-12, 1 - self.count * p_b)
            signal = self.rng.random() < p_a
        else:
            self.count, signal = -1, False
        if signal:
            self.count = 0
            if not (self.ecn and packet.mark_ce()):
                return False
        self.fifo.append(packet)
        return True

    def dequeue(self, now: float) -> aq.Packet | None:
        if not self.fifo:
            return None
        packet = self.fifo.popleft()
        if not self.fifo:
            self.idle_since = now
        return packet

    def __len__(self) -> int:
        return len(self.fifo)
