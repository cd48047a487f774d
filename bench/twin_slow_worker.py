"""The anomaly (``a - a.mean(axis=0)``: 12 loads of 32 MB, a tree reduction in groups of 4)
in the twin at 2 workers x 1 thread, 200 MB/s, with the loads of one reduction group (the
one the second worker starts with) ``f`` times their modelled duration: a worker running
behind, as one does on a loaded machine. The chunk-means and partial means are sized as
the LocalCluster measures them (8 MB and 16 MB: 4 time steps per chunk; the twin's own size
model says 32 MB and 8 MB). Deterministic; prints loads per worker, peak, makespan, bytes
moved for queue and tidegate per factor.

    python bench/twin_slow_worker.py [--factors 1,1.5,2,3] [--mode group|worker|all]
        [--workers 2] [--steps 12] [--namings] [--out OUT.json]

``--mode worker``: every load the second worker runs takes ``f`` times its duration
instead (then queuing, which gives a free slot the next load, piles too: 7/5 at f =
1.5-2, 9/3 at 3). ``--mode all``: every task the second worker runs (loads, chunk-means,
combines, stores): a process lagging throughout, as on a loaded machine.
``--namings``: each factor over the tests' five namings of the keys (tests/_namings.py;
dask.order's ties and the twin's hashing follow key text), with the summed makespans'
ratio and the worst peak ratio, as tests/test_placement.py judges them.

Why: on a LocalCluster 2x1 the seed anomaly's peak is set by how many of the 12 loads the
busiest worker holds (all are held until the mean is whole): 6/6 244 MiB, 8/4 305 MiB.
Its spread is this timing (bench/results/anom23-findings.txt).
"""

from __future__ import annotations

import argparse
import contextlib
import collections
import json
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

REAL_SIZES = {"mean_chunk": 8000328, "mean_combine-partial": 16000320}


@contextlib.contextmanager
def _slow_worker(factor: float, address: str, every: bool = False):
    """Every load (``every``: every task) the worker at ``address`` runs takes ``factor``
    times its duration."""
    from tidegate.sim import worker as simworker
    execute = simworker.SimWorker._execute

    def slowed(self, inst):
        key = inst.key
        durations = self.cluster.model.durations
        if self.address != address or not (
                every or type(key) is tuple and key[0].startswith("open")):  # fmt: skip
            return execute(self, inst)
        d = durations.get(key, 0.0)
        durations[key] = d * factor
        try:
            return execute(self, inst)
        finally:
            durations[key] = d
    simworker.SimWorker._execute = slowed
    try:
        yield
    finally:
        simworker.SimWorker._execute = execute


def run(factor: float, slow=range(8, 12), mode: str = "group", workers: int = 2,
        steps: int = 12) -> dict:
    """``mode`` "group": the loads of one reduction group (``slow``) are ``factor`` times
    slower wherever they run; "worker": every load the second worker runs is; "all":
    every task the second worker runs is."""
    w = build("anomaly", steps, 32e6, store=False)
    model = build_model(w.graph, w.keys, sizes={**(w.sizes or {}), **REAL_SIZES},
                        durations=w.durations)  # fmt: skip
    if mode == "group":
        for k in model.durations:
            if type(k) is tuple and k[0].startswith("open") and k[1] in slow:
                model.durations[k] *= factor
    out = {}
    ctx = _slow_worker(factor, "tcp://twin-w1:1", mode == "all") if mode in ("worker", "all") \
        else contextlib.nullcontext()  # fmt: skip
    with ctx:
        results = simulate(model, workers=workers, threads_per_worker=1,
                           policy=["queue", "tidegate"], bandwidth=200e6, processes=1)
    for policy, r in zip(("queue", "tidegate"), results):
        loads = collections.Counter(t.worker for t in r.trace.tasks if t.group.startswith("open-"))
        out[policy] = {"loads_per_worker": sorted(loads.values(), reverse=True),
                       "peak": max(r.peak_memory_per_worker), "makespan": r.makespan,
                       "bytes_transferred": r.bytes_transferred}
    return out


def namings(factor: float, mode: str = "group", workers: int = 2, steps: int = 12) -> dict:
    """``run`` over the tests' key namings (tests/_namings.py): per naming, and the summed
    makespans' ratio and worst peak ratio (tidegate against queuing)."""
    sys.path.insert(0, os.path.join(_here, "..", "tests"))
    from _namings import NAMINGS, renamed

    global simulate
    plain = simulate
    out, spans, worst = {}, {"queue": 0.0, "tidegate": 0.0}, 0.0
    try:
        for salt in NAMINGS:
            simulate = lambda model, salt=salt, **kw: plain(renamed(model, salt), **kw)  # noqa
            r = out[str(salt)] = run(factor, mode=mode, workers=workers, steps=steps)
            t, q = r["tidegate"], r["queue"]
            spans["queue"] += q["makespan"]
            spans["tidegate"] += t["makespan"]
            worst = max(worst, t["peak"] / q["peak"])
            print(f"x{factor:<5} naming {salt!s:5} tidegate {t['loads_per_worker']} "
                  f"{t['peak'] / 1e6:4.0f} MB {t['makespan']:.3f} s  queue "
                  f"{q['loads_per_worker']} {q['peak'] / 1e6:4.0f} MB {q['makespan']:.3f} s",
                  flush=True)  # fmt: skip
    finally:
        simulate = plain
    out["time"] = spans["tidegate"] / spans["queue"]
    out["worst_peak"] = worst
    print(f"x{factor:<5} summed makespan x{out['time']:.3f} queuing's, worst peak "
          f"x{worst:.3f}", flush=True)  # fmt: skip
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--factors", default="1,1.25,1.5,1.75,2,2.5,3,4")
    ap.add_argument("--mode", choices=("group", "worker", "all"), default="group")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=12, help="loads (one per 32 MB chunk)")
    ap.add_argument("--namings", action="store_true",
                    help="each factor over the tests' five key namings (tests/_namings.py)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    res = {}
    for f in map(float, args.factors.split(",")):
        if args.namings:
            res[f] = namings(f, mode=args.mode, workers=args.workers, steps=args.steps)
            continue
        res[f] = run(f, mode=args.mode, workers=args.workers, steps=args.steps)
        for p, v in res[f].items():
            print(f"x{f:<5} {p:9} loads/worker {v['loads_per_worker']}  "
                  f"peak {v['peak'] / 1e6:4.0f} MB  "
                  f"makespan {v['makespan']:.2f} s  moved {v['bytes_transferred'] / 1e6:4.0f} MB",
                  flush=True)  # fmt: skip
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": "python bench/twin_slow_worker.py "
                                  + " ".join(argv or sys.argv[1:]),
                       "results": res}, f, indent=1)  # fmt: skip


if __name__ == "__main__":
    main()
