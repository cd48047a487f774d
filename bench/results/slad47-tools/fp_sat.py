"""fp_cells with tidegate.saturation OLD vs NEW (queue alongside)."""
import argparse, os, sys
import dask
bench = "/work/wt/slad47/bench"
sys.path.insert(0, bench)
import sim_fingerprints as F
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != bench]
ap = argparse.ArgumentParser()
ap.add_argument("--only", default="/20x4/tidegate")
ap.add_argument("--old", default="1.1")
ap.add_argument("--new", default="0.75")
a = ap.parse_args()
from tidegate.sim import simulate
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
            r = simulate(x, keys=keys, sizes=sizes, durations=durations, **o)
        else:
            with dask.config.set({"tidegate.saturation": float(v)}):
                r = simulate(x, keys=keys, sizes=sizes, durations=durations, **o)
        row[side] = (r.makespan, max(r.peak_memory_per_worker), r.bytes_transferred)
    q = row["queue"]
    tag = "same" if row["old"] == row["new"] else "MOVED"
    print(f"{tag:5} {name:32} " + "  ".join(
        f"{s} {t / q[0]:.3f}/{p / q[1]:.3f}/{(b / q[2] if q[2] else 0):.3f}"
        for s, (t, p, b) in ((s, row[s]) for s in ("old", "new")))
        + f"   queue {q[0]:.3f}s {q[1] / 1e6:.0f}MB {q[2] / 1e6:.0f}MB", flush=True)
