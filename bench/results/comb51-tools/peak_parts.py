"""The twin anomaly's busiest workers at their peak instant, their held bytes broken into
parts (units of one load, 190 MB): loads whose chunk-mean has not ended ("load, mean to
come"), loads whose chunk-mean ended (held for their store, "load, meaned"), chunk-means
waiting for their level-1 combine, partials of each tree level (L1..L4; "here" computed on
this worker, "copy" copied in), the aggregate, outputs; what was executing there and how
many loads it had run and would run in all.

    PYTHONPATH=src python bench/results/comb51-tools/peak_parts.py --workers 20 --steps 1000 \
        [--policy tidegate] [--top 3] [--naming N] [--set NAME=V ...]
"""
from __future__ import annotations

import argparse
import collections
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))  # bench/
from twin_peaks import watch_workers  # noqa: E402

sys.path.pop(0)
import dask.array as da  # noqa: E402
from dask._task_spec import convert_legacy_graph  # noqa: E402
from dask.utils import key_split  # noqa: E402

from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim import workloads as wl  # noqa: E402

UNIT = 189_969_032


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=20)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--policy", default="tidegate")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--naming", type=int, default=0)
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args(argv)
    for kv in a.set:
        k, v = kv.split("=")
        setattr(policy, k, type(getattr(policy, k))(float(v)))
    if a.naming:
        wl._open = lambda name, shape, chunks, s=f"-n{a.naming}": da.from_array(
            wl.NoData(shape), chunks=chunks, name=f"open-{name}{s}")
    w = wl.build("anomaly", a.steps, 190e6, store=False)
    g = convert_legacy_graph(dict(w.graph.__dask_graph__()))
    deps = {k: set(t.dependencies) for k, t in g.items()}
    kind = {k: key_split(k) for k in g}
    mean_of = {}  # load -> its chunk-mean
    level = {}
    for k in g:
        if kind[k] == "mean_chunk":
            for d in deps[k]:
                mean_of[d] = k

    def lvl(k):
        if k not in level:
            first = [d for d in deps[k] if kind[d] in ("mean_chunk", "mean_combine-partial")]
            level[k] = 1 + max((lvl(d) for d in first if kind[d] != "mean_chunk"), default=0)
        return level[k]

    ended: set = set()
    ran = collections.defaultdict(set)
    loads_run = collections.Counter()

    def parts(worker):
        c = collections.Counter()
        mine = ran[worker.address]
        for ts in worker.state.tasks.values():
            if ts.state != "memory":
                continue
            k, n = ts.key, kind.get(ts.key, "?")
            if n.startswith("open") and ts.nbytes > 1e6:
                c["load, meaned" if mean_of.get(k) in ended else "load, mean to come"] += ts.nbytes
            elif n == "mean_chunk":
                c["chunk-mean " + ("here" if k in mine else "copy")] += ts.nbytes
            elif n == "mean_combine-partial":
                c[f"L{lvl(k)} " + ("here" if k in mine else "copy")] += ts.nbytes
            elif n == "mean_agg-aggregate":
                c["aggregate " + ("here" if k in mine else "copy")] += ts.nbytes
            else:
                c[n] += ts.nbytes
        busy = sorted(f"{kind.get(t.key, '?')[:12]}" + (f"L{lvl(t.key)}" if kind.get(t.key) ==
                      "mean_combine-partial" else "") for t in worker.state.tasks.values()
                      if t.state == "executing")
        flight = sum(t.nbytes for t in worker.state.tasks.values() if t.state == "flight")
        return c, busy, flight, loads_run[worker.address]

    def on_end(worker, key):
        ended.add(key)
        ran[worker.address].add(key)
        if kind.get(key, "").startswith("open"):
            loads_run[worker.address] += 1

    with watch_workers(parts, on_end) as snap:
        (r,) = simulate(w.model(), workers=a.workers, threads_per_worker=a.threads,
                        policy=[a.policy], bandwidth="1e9", record_memory=False)
    print(f"anomaly {a.steps} steps {a.policy} {a.workers}x{a.threads} naming {a.naming} "
          f"{a.set}: peak {max(r.peak_memory_per_worker) / 1e9:.2f} GB, makespan "
          f"{r.makespan:.2f} s, moved {r.bytes_transferred / 1e9:.1f} GB")
    final = loads_run
    cats = sorted({c for v in snap.values() for c in v[2]})
    print(f"  every worker at its own peak ({len(snap)}), units: mean [min-max]")
    for c in ["peak"] + cats + ["loads in all"]:
        if c == "peak":
            xs = [v[0] / UNIT for v in snap.values()]
        elif c == "loads in all":
            xs = [final[a] for a in snap]
        else:
            xs = [v[2].get(c, 0) / UNIT for v in snap.values()]
        print(f"      {c:22s} {sum(xs) / len(xs):6.1f} [{min(xs):.1f}-{max(xs):.1f}]")
    for addr, (n, t, c, busy, flight, nl) in sorted(snap.items(), key=lambda kv: -kv[1][0])[
            :a.top]:
        short = addr.rsplit("-", 1)[-1].split(":")[0]
        print(f"  {short} {n / 1e9:.2f} GB = {n / UNIT:.1f} units at t={t:.2f} s; loads run "
              f"there by then {nl} (in all {final[addr]}); in flight to it "
              f"{flight / UNIT:.1f}; executing {' '.join(busy) or '-'}")
        for part, b in sorted(c.items(), key=lambda kv: -kv[1]):
            print(f"      {part:22s} {b / UNIT:6.1f}")


if __name__ == "__main__":
    main()
