"""Bianchi's saturation throughput of 802.11 DCF, basic access ("Performance analysis of
the IEEE 802.11 distributed coordination function", IEEE JSAC 18(3), 2000, eqs. 7, 9,
13-15), for the 802.11b star: ``n`` stations always backlogged, all in range.

Bianchi's collision time ends with DIFS; a station that could not decode a collision
waits EIFS instead (IEEE 802.11-2016 10.3.2.3.7), which ``after_collision="eifs"`` puts
in its place.
"""

from __future__ import annotations

import math

SLOT_S = 20e-6
SIFS_S = 10e-6
DIFS_S = SIFS_S + 2 * SLOT_S
PLCP_LONG_S = 192e-6
ACK_BYTES = 14
#: MAC header + FCS (28) and LLC/SNAP (8), then IP (20) and UDP (8) headers.
DATA_OVERHEAD_BYTES = 28 + 8 + 20 + 8


def _frame_s(nbytes: int, rate_bps: float) -> float:
    # DSSS/CCK: whole microseconds (IEEE 802.11-2016 16.3.4, LENGTH field rounding).
    return PLCP_LONG_S + math.ceil(nbytes * 8 / rate_bps * 1e6) * 1e-6


def tau(n: int, cw_min: int = 31, stages: int = 5) -> float:
    """Per-slot transmission probability of a station (Bianchi eqs. 7 and 9, solved by
    bisection on p)."""
    w = cw_min + 1

    def tau_of(p: float) -> float:
        return 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** stages))

    lo, hi = 0.0, 0.999
    for _ in range(200):
        p = (lo + hi) / 2
        t = tau_of(p) if abs(1 - 2 * p) > 1e-12 else 2 / (w + 1 + stages * w / 2)
        if 1 - (1 - t) ** (n - 1) > p:
            lo = p
        else:
            hi = p
    p = (lo + hi) / 2
    return tau_of(p) if abs(1 - 2 * p) > 1e-12 else 2 / (w + 1 + stages * w / 2)


def saturation_bps(
    n: int,
    payload_bytes: int = 1000,
    data_rate_bps: float = 11e6,
    basic_rate_bps: float = 1e6,
    after_collision: str = "difs",
) -> float:
    """Aggregate payload throughput of ``n`` saturated stations, bit/s."""
    t = tau(n)
    p_tr = 1 - (1 - t) ** n
    p_s = n * t * (1 - t) ** (n - 1) / p_tr
    data = _frame_s(payload_bytes + DATA_OVERHEAD_BYTES, data_rate_bps)
    ack = _frame_s(ACK_BYTES, basic_rate_bps)
    t_s = data + SIFS_S + ack + DIFS_S
    eifs = SIFS_S + ack + DIFS_S
    t_c = data + (eifs if after_collision == "eifs" else DIFS_S)
    slot = (1 - p_tr) * SLOT_S + p_tr * p_s * t_s + p_tr * (1 - p_s) * t_c
    return p_s * p_tr * payload_bytes * 8 / slot
