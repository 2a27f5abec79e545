"""airqueue: a fast, deterministic simulator of congestion control, scheduling and queue
management in IEEE 802.11 networks.

>>> import airqueue
>>> res = airqueue.run("scenario.toml", seed=3)  # doctest: +SKIP
>>> res.flows  # doctest: +SKIP
"""

from airqueue import _core
from airqueue.errors import AirqueueError, ConfigError, SimulationError, UserCodeError
from airqueue.extend import Packet, QueueDiscipline, RateController
from airqueue.reproduce import ReproductionResult, reproduce, reproduce_all
from airqueue.results import TABLES, Results
from airqueue.runner import run
from airqueue.scenario import Scenario, load_scenario
from airqueue.store import load
from airqueue.sweeps import SweepSpec, sweep

__version__: str = _core.version()
__git_hash__: str = _core.git_hash()


def plot(source, **kwargs):  # type: ignore[no-untyped-def]
    """Plots sweep results; see ``airqueue.plots.plot`` (imports matplotlib on first use)."""
    from airqueue.plots import plot as _plot

    return _plot(source, **kwargs)


__all__ = [
    "TABLES",
    "AirqueueError",
    "ConfigError",
    "Packet",
    "QueueDiscipline",
    "RateController",
    "ReproductionResult",
    "Results",
    "Scenario",
    "SimulationError",
    "SweepSpec",
    "UserCodeError",
    "__version__",
    "load",
    "load_scenario",
    "plot",
    "reproduce",
    "reproduce_all",
    "run",
    "sweep",
]
