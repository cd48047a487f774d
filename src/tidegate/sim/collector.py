"""Python's cyclic garbage collector, held back while the twin builds or runs its
long-lived structures: the graph, dask.order's maps, the scheduler's and workers'
TaskStates are hundreds of thousands of objects that live as long as the run, and every
collection walked them again. Nothing here changes what is simulated."""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def paused(keep: bool = False):
    """No collection while building (a model, dask.order, the scheduler's TaskStates):
    almost everything allocated there survives, so collecting finds nothing and costs half
    of the build (100k tasks: 4.6 of 10 CPU s). Cyclic garbage made meanwhile is collected
    after, as usual; or, with ``keep`` (a build that makes none), what was built goes to
    the oldest generation unlooked at (100k tasks: the young collection after the model's
    build took 0.26 CPU s and found nothing)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep:
            _to_oldest()
        if was:
            gc.enable()


def _to_oldest() -> None:
    """Every object tracked now moves to the oldest generation, without a collection. Only
    when nothing is frozen: unfreezing would thaw what someone else froze."""
    if not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()


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
        # Everything the run made moves to the oldest generation without a look: the
        # young one may hold nearly a million live objects by now, and the next young
        # collection would walk them all (0.4 CPU s at 40k tasks).
        gc.freeze()  # what the run made joins the frozen, then all of it the oldest
        gc.unfreeze()
        gc.set_threshold(*thresholds)
