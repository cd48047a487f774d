"""bench/twin_slow_worker.py --mode worker at 2 x 1 over the tests' key namings
(tests/_namings.py, as test_placement's slow-worker test sums them): per naming loads per
worker, peak and makespan; the summed makespan and the worst peak against queuing's.
``--all``: every task of the slow worker slowed (a lagging process), not only its loads.

    PYTHONPATH=src python bench/results/slow38-tools/namings_slow.py [--factors 3,4] [--all]
        [--set OFF_SLOWER=0,SLOW_STEAL=0]
"""
import argparse
import contextlib
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "..")
sys.path.insert(0, os.path.join(root, "tests"))
sys.path.insert(0, os.path.join(root, "bench"))
import twin_slow_worker as bench  # noqa: E402
from _namings import NAMINGS, renamed  # noqa: E402
from tidegate import policy  # noqa: E402


@contextlib.contextmanager
def slow_all(factor, address):
    """Every task the worker at ``address`` runs takes ``factor`` times its duration."""
    from tidegate.sim import worker as simworker
    execute = simworker.SimWorker._execute

    def slowed(self, inst):
        if self.address != address:
            return execute(self, inst)
        durations = self.cluster.model.durations
        d = durations.get(inst.key, 0.0)
        durations[inst.key] = d * factor
        try:
            return execute(self, inst)
        finally:
            durations[inst.key] = d
    simworker.SimWorker._execute = slowed
    try:
        yield
    finally:
        simworker.SimWorker._execute = execute


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--factors", default="3,4")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--set", default="")
    a = ap.parse_args()
    for kv in filter(None, a.set.split(",")):
        k, v = kv.split("=")
        setattr(policy, k, type(getattr(policy, k))(float(v)))
    if a.all:
        bench._slow_worker = slow_all
    simulate = bench.simulate
    for f in map(float, a.factors.split(",")):
        spans = {"queue": 0.0, "tidegate": 0.0}
        worst = 0.0
        for salt in NAMINGS:
            bench.simulate = lambda model, salt=salt, **kw: simulate(renamed(model, salt), **kw)
            out = bench.run(f, mode="worker")
            t, q = out["tidegate"], out["queue"]
            spans["queue"] += q["makespan"]
            spans["tidegate"] += t["makespan"]
            worst = max(worst, t["peak"] / q["peak"])
            print(f"  x{f} naming {salt!r:12} tidegate {t['loads_per_worker']} "
                  f"{t['peak'] / 1e6:.0f} MB {t['makespan']:.3f} s  queue {q['loads_per_worker']} "
                  f"{q['peak'] / 1e6:.0f} MB {q['makespan']:.3f} s", flush=True)
        print(f"x{f}: summed makespan x{spans['tidegate'] / spans['queue']:.3f} queuing's, "
              f"worst peak x{worst:.3f}", flush=True)


if __name__ == "__main__":
    main()
