"""Rich progress bars on stderr: a sweep's runs done, running, failed and the time
remaining; one run's simulated seconds."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["RunProgress", "SweepProgress"]


class SweepProgress:
    """Counts runs as they finish; draws a bar on stderr when ``enabled``.

    ``total`` is the number of runs to execute (runs already in the store are not counted,
    so the ETA reflects the work left); ``skipped`` is shown beside it.
    """

    def __init__(self, total: int, *, skipped: int = 0, enabled: bool = True) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.running = 0
        self.skipped = skipped
        self._progress: Progress | None = None
        self._task = None
        if enabled:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("running {task.fields[running]}"),
                TextColumn("failed {task.fields[failed]}"),
                TextColumn("skipped {task.fields[skipped]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._task = self._progress.add_task(
                "sweep", total=total, running=0, failed=0, skipped=skipped
            )

    def __enter__(self) -> SweepProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._refresh()
            self._progress.stop()

    def set_running(self, n: int) -> None:
        self.running = n
        self._refresh()

    def finished(self, *, ok: bool) -> None:
        """One run finished (``ok``) or failed."""
        self.done += 1
        if not ok:
            self.failed += 1
        self._refresh()

    def _refresh(self) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(
                self._task,
                completed=self.done,
                running=self.running,
                failed=self.failed,
                skipped=self.skipped,
            )


class RunProgress:
    """One run's simulated seconds reached of its duration; gone when closed."""

    def __init__(self, label: str) -> None:
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:.1f} / {task.total:.1f} simulated s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        # The total is the run's duration, known once the core has validated the scenario.
        self._task = self._progress.add_task(escape(label), total=0.0)
        self._progress.start()

    def update(self, simulated_s: float, duration_s: float) -> None:
        if duration_s > 0:
            self._progress.update(self._task, completed=simulated_s, total=duration_s)

    def close(self) -> None:
        self._progress.stop()
