"""seed45: a --patch for bench/ab_twin.py / wall29_small.py / trace_twin.py: every twin run
on a warm scheduler, i.e. with dask's distributed.scheduler.default-task-durations set to
each task prefix's average duration in the run's model (what a scheduler that computed the
same kind of graph before knows: dask keeps its task prefixes' averages for its lifetime).
Queue and tidegate alike.

    python bench/ab_twin.py --patch bench/results/seed45-tools/warm.py ...
"""
import statistics
import sys

import dask
from dask.utils import key_split

S = sys.modules["wall29_small"]
_twin = S.twin


def _warm(model, g):
    durations = model.durations if g is None else g[3]
    by = {}
    for k, d in durations.items():
        by.setdefault(key_split(k), []).append(d)
    return {p: statistics.mean(v) for p, v in by.items()}


def twin(model, g, *args, **kw):
    with dask.config.set({"distributed.scheduler.default-task-durations": _warm(model, g)}):
        return _twin(model, g, *args, **kw)


S.twin = twin
