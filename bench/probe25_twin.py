"""probe25 (issue 9): probe24's LocalCluster pipelines (bench/probe24_cluster.py) in the twin,
with each task's real size and duration: the optimised graph that ``Client.compute`` sends is
run once on dask's synchronous scheduler over the real inputs (/tmp/probe24-inputs), every
task timed and sized (dask.sizeof), and kept with the graph in /tmp/probe25/<name>.pkl (a
store's keys hold a fresh folder name: one graph for every variant of the code). Then queue
and tidegate run it at W x T; the twin is deterministic.

    PYTHONPATH=src python bench/probe25_twin.py clim-anom-store [--shape 2x1] [--seeds 0]
"""

from __future__ import annotations

import argparse
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import cloudpickle  # noqa: E402
import dask  # noqa: E402
import dask.local  # noqa: E402

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import graph_of  # noqa: E402

sys.path.append(_here)
from wall24_twin import Timer, load_bench  # noqa: E402

CACHE = "/tmp/probe25"


def model(name: str):
    """(graph, output keys, {key: seconds}, {key: bytes}), measured once and cached."""
    path = os.path.join(CACHE, name + ".pkl")
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        p24 = load_bench("probe24_cluster.py", "probe24_cluster")
        p24.make_inputs()
        with dask.config.set(delayed_pure=True):
            x = p24.WORKLOADS[name]()
        dsk, out, _, _ = graph_of(x, finalize=True)
        with Timer() as t:
            dask.local.get_sync(dsk, out)
        with open(path, "wb") as f:
            cloudpickle.dump((dsk, out, t.took, t.size), f)
    with open(path, "rb") as f:
        return cloudpickle.load(f)


def run(name: str, workers: int, threads: int, seed: int = 0, policies=("queue", "tidegate"),
        **kw):
    dsk, out, took, size = model(name)
    return simulate(dsk, keys=out, workers=workers, threads_per_worker=threads,
                    policy=list(policies), sizes=lambda k: size.get(k, 0),
                    durations=lambda k: took.get(k, 1e-3), seed=seed, **kw)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+")
    ap.add_argument("--shape", action="append")
    ap.add_argument("--seeds", default="0")
    a = ap.parse_args(argv)
    for name in a.names:
        for shape in a.shape or ["2x1"]:
            w, t = map(int, shape.split("x"))
            for seed in map(int, a.seeds.split(",")):
                for r in run(name, w, t, seed):
                    print(f"{name:16s} {shape} s{seed} {r.policy:9s} peak/worker MB "
                          f"{[round(p / 1e6, 1) for p in r.peak_memory_per_worker]} makespan "
                          f"{r.makespan:.3f} moved MB "
                          f"{sum(x.nbytes for x in r.trace.transfers) / 1e6:.1f}", flush=True)


if __name__ == "__main__":
    main()
