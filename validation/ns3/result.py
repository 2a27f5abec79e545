"""What one run of either simulator gives, and the figures compared."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FlowResult:
    flow: int
    goodput_bps: float


@dataclass
class RunResult:
    simulator: str  # "airqueue" | "ns-3"
    scenario: str
    seed: int
    flows: list[FlowResult]
    #: Drop and routing counters by name (each simulator's own names).
    counters: dict[str, float] = field(default_factory=dict)

    @property
    def aggregate_bps(self) -> float:
        return sum(f.goodput_bps for f in self.flows)

    @property
    def jain(self) -> float:
        return jain_index([f.goodput_bps for f in self.flows])

    def starved(self, threshold_bps: float) -> int:
        """Flows below ``threshold_bps``."""
        return sum(1 for f in self.flows if f.goodput_bps < threshold_bps)


def jain_index(xs: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1 for no flow or all zero."""
    s, s2 = sum(xs), sum(x * x for x in xs)
    if not xs or s2 == 0.0:
        return 1.0
    return s * s / (len(xs) * s2)
