"""seed45: the twin fingerprints' configurations (bench/sim_fingerprints.py) as numbers,
queue and tidegate at UNIT_STAGGER OLD / NEW in one process, on a warm scheduler (dask's
distributed.scheduler.default-task-durations set to each task prefix's average in the
model, queue's run too) or cold (--cold). tidegate / queuing: time / peak / bytes moved.

    PYTHONPATH=src python bench/results/seed45-tools/fp_warm.py [--only /20x4/tidegate]
        [--old 0 --new 3] [--cold]
"""
import argparse
import ast
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, bench)
import sim_fingerprints as F  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != bench]


def prefixes(x, keys, sizes, durations):
    from dask.utils import key_split

    from tidegate.sim.model import Model, build_model

    m = x if isinstance(x, Model) else build_model(x, keys, sizes=sizes, durations=durations)
    by = {}
    for k, d in m.durations.items():
        by.setdefault(key_split(k), []).append(d)
    return m, {p: statistics.mean(v) for p, v in by.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="/20x4/tidegate")
    ap.add_argument("--switch", default="UNIT_STAGGER")
    ap.add_argument("--old", default="0")
    ap.add_argument("--new", default="3")
    ap.add_argument("--cold", action="store_true")
    a = ap.parse_args()
    import dask

    from tidegate import policy
    from tidegate.sim import simulate

    first = getattr(policy, a.switch)
    built = {}
    moved = 0
    n = 0
    for name, g, opts in F.configs():
        if a.only not in name or opts.get("policy") != "tidegate":
            continue
        if g not in built:
            built[g] = prefixes(*F.graph(g))
        model, warm = built[g]
        cfg = {} if a.cold else {"distributed.scheduler.default-task-durations": warm}
        row = {}
        with dask.config.set(cfg):
            for side, v in (("queue", None), ("old", a.old), ("new", a.new)):
                o = dict(opts)
                if v is None:
                    o["policy"] = "queue"
                else:
                    setattr(policy, a.switch, ast.literal_eval(v))
                r = simulate(model, **o)
                row[side] = (r.makespan, max(r.peak_memory_per_worker), r.bytes_transferred)
        setattr(policy, a.switch, first)
        q = row["queue"]
        n += 1
        same = row["old"] == row["new"]
        moved += not same
        print(f"{'same' if same else 'MOVED':5} {name:34} " + "  ".join(
            f"{s} {t / q[0]:.3f}/{p / q[1]:.3f}/{(b / q[2] if q[2] else 0):.3f}"
            for s, (t, p, b) in ((s, row[s]) for s in ("old", "new")))
            + f"   queue {q[0]:.3f}s {q[1] / 1e6:.0f}MB {q[2] / 1e6:.0f}MB", flush=True)
    print(f"{moved} of {n} moved ({'cold' if a.cold else 'warm'}, {a.switch} {a.old} -> {a.new})")


if __name__ == "__main__":
    main()
