"""Python's cyclic garbage collector, held back while the twin builds or runs its
long-lived structures: the graph, dask.order's maps, the scheduler's and workers'
TaskStates are hundreds of thousands of objects that live as long as the run, and every
collection walked them again. Nothing here changes what is simulated."""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def paused():
    """No collection while building (a model, dask.order, the scheduler's TaskStates):
    almost everything allocated there survives, so collecting finds nothing and costs half
    of the build (100k tasks: 4.6 of 10 CPU s). Cyclic garbage made meanwhile is collected
    after, as usual."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def collect_young() -> None:
    """Free what a build left in reference cycles now (dask.order's maps, held by its
    closures: two sets and more per task), rather than freeze it for a whole run."""
    gc.collect(0)


@contextlib.contextmanager
def fewer():
    """While a run lasts: freeze what exists (collections skip it) and collect the young
    generation only after a million new objects. A run makes no cyclic garbage (checked:
    none after stack-sum, vorticity and anomaly under every policy), so collecting finds
    nothing; at 50,000 it still took 3% of a run, and full passes over everything a third
    before freezing. The threshold is a safety net for plugins that do. Restored after."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 1_000_000), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
