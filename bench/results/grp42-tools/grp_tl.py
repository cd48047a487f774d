"""grp42: one clim-anom-store build's run per policy: per worker the tasks by group (count,
busy seconds), chunk loads' start times, idle thread-seconds, transfers in by group, and
the held bytes over time at a few instants (the peak worker's peak).

    PYTHONPATH=src python grp_tl.py FOLDER/gN.pkl WxT SEED [--set NAME=VALUE]
"""
import argparse
import collections

import cloudpickle
from dask.utils import key_split

import tidegate.policy as P
from tidegate.sim import simulate

ap = argparse.ArgumentParser()
ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
ap.add_argument("--set", action="append", default=[])
ap.add_argument("--policies", default="queue,tidegate")
a = ap.parse_args()
for kv in a.set:
    k, v = kv.split("=")
    setattr(P, k, int(v))
with open(a.build, "rb") as f:
    dsk, out, took, size = cloudpickle.load(f)
w, t = map(int, a.shape.split("x"))
for pol in a.policies.split(","):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=a.seed, bandwidth=1e9, processes=1, record_memory=True)
    peaks = [round(p / 1e6) for p in r.peak_memory_per_worker]
    print(f"== {pol} {a.shape} s{a.seed}: makespan {r.makespan:.3f} peaks {peaks}")
    by = collections.defaultdict(lambda: collections.Counter())
    busy = collections.defaultdict(float)
    loads = collections.defaultdict(list)
    for e in r.trace.tasks:
        g = key_split(e.key)
        by[e.worker][g] += 1
        busy[e.worker] += e.stop - e.start
        if g == "open_dataset-u":
            loads[e.worker].append(round(e.start, 2))
    tin = collections.defaultdict(lambda: collections.Counter())
    for x in r.trace.transfers:
        tin[x.dest][key_split(x.key)] += x.nbytes / 1e6
    # held over time per worker, sampled
    mem = sorted(r.trace.memory, key=lambda m: m.time)
    for wk in sorted(by):
        c = by[wk]
        print(f"  {wk[-5:]} busy {busy[wk]:.2f}s loads {len(loads[wk])} {sorted(loads[wk])}")
        print(f"        tasks " + ", ".join(f"{g[:14]} {n}" for g, n in c.most_common(7)))
        print(f"        in MB " + ", ".join(f"{g[:14]} {n:.0f}" for g, n in tin[wk].most_common(5)))
    T = r.makespan
    held = {}
    line = []
    steps = [T * i / 16 for i in range(17)]
    j = 0
    for s in steps:
        while j < len(mem) and mem[j].time <= s:
            held[mem[j].worker] = mem[j].held
            j += 1
        line.append(f"{s:4.2f}:" + "/".join(f"{held.get(wk, 0) / 1e6:.0f}" for wk in sorted(by)))
    print("  held MB over time: " + " ".join(line))
