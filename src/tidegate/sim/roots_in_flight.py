"""Roots in flight per worker for the twin's memory samples: the distributed Recorder's
count (:class:`tidegate.trace.RootsInFlight`, tidegate's structural root test for every
policy alike), fed by the simulated scheduler's transitions as a scheduler plugin."""

from __future__ import annotations

from distributed.diagnostics.plugin import SchedulerPlugin

from ..distributed.tasks import _structural_root
from ..trace import RootsInFlight


class RootsInFlightPlugin(SchedulerPlugin):
    name = "tidegate-twin-roots-in-flight"

    def __init__(self, scheduler, workers: dict) -> None:
        self.scheduler = scheduler
        self.workers = workers  # address -> SimWorker
        self.roots = RootsInFlight(_structural_root, self._changed)

    def transition(self, key, start, finish, *args, stimulus_id=None, **kwargs) -> None:
        ts = self.scheduler.tasks.get(key)
        if ts is not None:
            self.roots.transition(ts, start, finish, kwargs.get("worker"))

    def _changed(self, address, n: int) -> None:
        w = self.workers.get(address)
        if w is not None:
            w.roots_in_flight = n
            w.sample()  # a memory sample per change, as for held bytes
