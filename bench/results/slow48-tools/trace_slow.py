"""Per-worker timelines of bench/twin_slow_worker.py's run (queue and tidegate).

    PYTHONPATH=src python bench/results/slow38-tools/trace_slow.py [--factor 3] [--mode worker]
        [--workers 2] [--policy queue,tidegate]
"""
import argparse
import collections
import contextlib
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, "/work/wt/slow48/bench")
import twin_slow_worker as tsw  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402


def runs(factor, mode="worker", workers=2, steps=12, slow=range(8, 12)):
    w = build("anomaly", steps, 32e6, store=False)
    model = build_model(w.graph, w.keys, sizes={**(w.sizes or {}), **tsw.REAL_SIZES},
                        durations=w.durations)
    if mode == "group":
        for k in model.durations:
            if type(k) is tuple and k[0].startswith("open") and k[1] in slow:
                model.durations[k] *= factor
    ctx = tsw._slow_worker(factor, "tcp://twin-w1:1", mode == "all") if mode in ("worker", "all") else contextlib.nullcontext()
    with ctx:
        return simulate(model, workers=workers, threads_per_worker=1,
                        policy=["queue", "tidegate"], bandwidth=200e6, processes=1)


def show(r, name):
    print(f"== {name}: makespan {r.makespan:.3f} peak {max(r.peak_memory_per_worker)/1e6:.0f} MB")
    by = collections.defaultdict(list)
    for t in r.trace.tasks:
        by[t.worker].append(t)
    for w in sorted(by):
        print(" --", w)
        for t in sorted(by[w], key=lambda t: t.start):
            k = t.key if isinstance(t.key, str) else str(t.key)
            print(f"   {t.start:6.3f}-{t.stop:6.3f} {k[:60]:60} {t.nbytes/1e6:5.1f}MB")
    for tr in r.trace.transfers:
        print(f"   xfer {tr.start:6.3f}-{tr.stop:6.3f} {str(tr.key)[:50]:50} {tr.source[-4:]}->{tr.dest[-4:]} {tr.nbytes/1e6:.0f}MB")
    # held per worker over time, max
    mx = collections.defaultdict(int)
    for m in r.trace.memory:
        mx[m.worker] = max(mx[m.worker], m.held)
    print("   peak held:", {w[-4:]: round(v / 1e6) for w, v in mx.items()})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--factor", type=float, default=3)
    ap.add_argument("--mode", default="worker")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    for name, r in zip(("queue", "tidegate"), runs(a.factor, a.mode, a.workers)):
        show(r, name)
