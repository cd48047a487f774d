"""model14 (issue 9): the twin's default durations (old model vs new) against measured task
times, per group, for the seed workloads' arithmetic and the stencil, on real numpy data.

Each workload of tidegate.sim.workloads is built over in-memory arrays (``--steps`` steps of
``--chunk-mb`` MB, so its loads are cheap getters and not comparable: the model's loads are
from object storage at 200 MB/s), run with dask's synchronous scheduler ``--repeat`` times,
each task timed by dask's callbacks; median per group. The models are built in child
processes (``--old`` and this checkout's src), side by side in one run; JSON out.
Compare shapes, not scale: the model's COMPUTE_RATE (1 GB/s) is a nominal machine.

    PYTHONPATH=$PWD/src python bench/results/model14-measured.py --old /tmp/model14-base/src \
        [--out bench/results/model14-measured.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict

import dask
import dask.array as da
import numpy as np
from dask.callbacks import Callback
from dask.utils import key_split

from tidegate.sim.workloads import WORKLOADS, side_for


def collections(steps: int, chunk_bytes: float) -> dict:
    side = side_for(chunk_bytes)
    rng = np.random.default_rng(0)
    shape, chunks = (steps, side, side), (1, side, side)
    a = da.from_array(rng.random(shape), chunks=chunks, name="open-u")
    b = da.from_array(rng.random(shape), chunks=chunks, name="open-v")
    grid = [da.from_array(rng.random((side, side)), chunks=side, name=f"open-{g}")
            for g in ("dx", "dy", "area")]
    out = {n: f(a, b, grid, side) for n, f in WORKLOADS.items() if f is not None}
    s = da.random.RandomState(0).random((6000, 6000), chunks=1000)
    out["stencil"] = s.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)
    return out


class Timer(Callback):
    def __init__(self):
        super().__init__()
        self.start, self.times = {}, defaultdict(list)

    def _pretask(self, key, dsk, state):
        self.start[key] = time.perf_counter()

    def _posttask(self, key, result, dsk, state, id):
        name = key[0] if type(key) is tuple else key
        self.times[key_split(name)].append(time.perf_counter() - self.start.pop(key))


def measure(cols: dict, repeat: int) -> dict:
    out = {}
    for name, x in cols.items():
        runs = defaultdict(list)
        for _ in range(repeat):
            with Timer() as t:
                dask.compute(x, scheduler="sync")
            for g, ts in t.times.items():
                runs[g].append(statistics.median(ts))
        out[name] = {g: statistics.median(v) for g, v in runs.items()}
    return out


CHILD = r"""
import json, statistics, sys
sys.path.insert(0, sys.argv[3])
from collections import defaultdict
from dask.utils import key_split
from tidegate.sim.model import build_model
mod = __import__("model14_measured")
cols = mod.collections(int(sys.argv[1]), float(sys.argv[2]))
out = {}
for name, x in cols.items():
    m = build_model(x)
    g = defaultdict(list)
    for k in m.dsk:
        n = k[0] if type(k) is tuple else k
        g[key_split(n)].append(m.durations[k])
    out[name] = {n: statistics.median(v) for n, v in g.items()}
json.dump(out, sys.stdout)
"""


def model_of(src: str, steps: int, chunk_bytes: float) -> dict:
    here = os.path.dirname(os.path.abspath(__file__))
    link = os.path.join("/tmp", f"model14-measured-{os.getpid()}")
    os.makedirs(link, exist_ok=True)
    target = os.path.join(link, "model14_measured.py")
    if not os.path.exists(target):
        os.symlink(os.path.join(here, "model14-measured.py"), target)
    env = dict(os.environ, PYTHONPATH=src, PYTHONHASHSEED="0")
    res = subprocess.run([sys.executable, "-c", CHILD, str(steps), str(chunk_bytes), link],
                         env=env, check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=os.path.abspath("src"))
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--chunk-mb", type=float, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    cb = args.chunk_mb * 1e6
    old, new = model_of(args.old, args.steps, cb), model_of(args.new, args.steps, cb)
    real = measure(collections(args.steps, cb), args.repeat)
    print(f"load {os.getloadavg()[0]:.1f}; ms per task (median): measured / old model / new model")
    for wl in real:
        for g in sorted(real[wl]):
            o, n = old[wl].get(g, float("nan")), new[wl].get(g, float("nan"))
            flag = "" if o == n else "  *"
            print(f"{wl:14s} {g:28s} {real[wl][g] * 1e3:8.2f} {o * 1e3:8.2f} {n * 1e3:8.2f}{flag}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "measured": real, "old": old, "new": new},
                      f, indent=1)


if __name__ == "__main__":
    main()
