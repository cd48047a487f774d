"""(cpu38b, session 38) TaskState.state (a property: a Python frame) against its slot
``_state`` read directly, on a real dask TaskState, as admission.py's poke paths compare it.

    PYTHONPATH=src python bench/results/cpu38b-tools/timeit_state.py

Prints ns a read, best of 7 repeats of 1,000,000 (timeit)."""
import timeit

from distributed.scheduler import TaskState

ts = TaskState.__new__(TaskState)  # (no __init__: its signature varies by release)
ts._state = "queued"
for stmt in ('ts.state == "queued"', 'ts._state == "queued"'):
    best = min(timeit.repeat(stmt, globals={"ts": ts}, number=1_000_000, repeat=7))
    print(f"{stmt:24s} {best * 1e3:6.1f} ns a read")
