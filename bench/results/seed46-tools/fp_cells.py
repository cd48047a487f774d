"""The twin fingerprints' configurations (bench/sim_fingerprints.py) as numbers: makespan,
busiest worker's peak and bytes moved of queue and of tidegate with a switch at OLD and NEW,
in one process (the fingerprints only say that a trace moved; this says by how much).

    PYTHONPATH=src python bench/results/seed44-tools/fp_cells.py [--only SUBSTRING]
        [--switch UNIT_STAGGER --old 0 --new 1]
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, bench)
import sim_fingerprints as F  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != bench]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="/20x4/tidegate")
    ap.add_argument("--switch", default="UNIT_STAGGER")
    ap.add_argument("--old", default="0")
    ap.add_argument("--new", default="1")
    a = ap.parse_args()
    import ast

    from tidegate import policy
    from tidegate.sim import simulate

    first = getattr(policy, a.switch)
    built = {}
    for name, g, opts in F.configs():
        if a.only not in name or opts.get("policy") != "tidegate":
            continue
        if g not in built:
            built[g] = F.graph(g)
        x, keys, sizes, durations = built[g]
        row = {}
        for side, v in (("queue", None), ("old", a.old), ("new", a.new)):
            o = dict(opts)
            if v is None:
                o["policy"] = "queue"
            else:
                setattr(policy, a.switch, ast.literal_eval(v))
            r = simulate(x, keys=keys, sizes=sizes, durations=durations, **o)
            row[side] = (r.makespan, max(r.peak_memory_per_worker), r.bytes_transferred)
        setattr(policy, a.switch, first)
        q = row["queue"]
        tag = "same" if row["old"] == row["new"] else "MOVED"
        print(f"{tag:5} {name:32} " + "  ".join(
            f"{s} {t / q[0]:.3f}/{p / q[1]:.3f}/{(b / q[2] if q[2] else 0):.3f}"
            for s, (t, p, b) in ((s, row[s]) for s in ("old", "new")))
            + f"   queue {q[0]:.3f}s {q[1] / 1e6:.0f}MB {q[2] / 1e6:.0f}MB", flush=True)


if __name__ == "__main__":
    main()
