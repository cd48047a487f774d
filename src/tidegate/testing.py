"""Helpers for driving the core in tests and benchmarks: a graph from ``{key: deps}`` with
structural roots, and a driver that plays the runtime (finishes running tasks in a seeded
random order, checking what a runtime would: no input on disk at a Run)."""

from __future__ import annotations

import random

import numpy as np

from .core import Finished, Load, Release, Run, Spill
from .graph import TaskGraph
from .policy import find_roots


def make_graph(deps: dict, outputs, constants=(), marked=()) -> TaskGraph:
    """A TaskGraph with roots found by structure (``constants``/``marked``: task keys)."""
    g = TaskGraph.from_dependencies(deps, outputs)
    n = len(g)
    const = np.zeros(n, bool)
    mark = np.zeros(n, bool)
    index = {k: i for i, k in enumerate(g.keys)}
    const[[index[k] for k in constants]] = True
    mark[[index[k] for k in marked]] = True
    g.root = find_roots(g.dep_ptr, g.dep_idx, g.ndependents, const, mark)
    g.constant = const
    return g


def drive(core, seed=0, size=lambda i: 100, on_event=None, started=None):
    """Finish running tasks one at a time in a seeded random order until nothing runs;
    ``size(i)`` is task i's output bytes; ``on_event(core)`` after each. ``started``: the
    actions of a ``core.start()`` the caller made already. Returns ``(runs, releases)``."""
    rng = random.Random(seed)
    running, runs, releases = [], [], []
    on_disk: set = set()

    def take(actions):
        for a in actions:
            if type(a) is Run:
                assert not on_disk & set(core.graph.dependencies(a.task)), "input not loaded"
                running.append(a.task)
                runs.append(a.task)
            elif type(a) is Spill:
                assert a.task not in on_disk
                on_disk.add(a.task)
            elif type(a) is Load:
                on_disk.remove(a.task)
            else:
                assert type(a) is Release
                on_disk.discard(a.task)
                releases.append(a.task)

    take(core.start() if started is None else started)
    while running:
        i = running.pop(rng.randrange(len(running)))
        take(core.handle(Finished(i, size(i))))
        if on_event:
            on_event(core)
    return runs, releases


# dask.distributed's own memory management off (no spilling, pausing or killing), so that
# nothing hides overproduction: for LocalCluster tests, benches, the demo and the twin's
# fidelity harness.
QUIET_MEMORY = {
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
    "distributed.worker.memory.terminate": False,
}
