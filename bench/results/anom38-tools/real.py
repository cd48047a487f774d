"""What a real LocalCluster gives the broadcast's fan-out rule (policy.BROADCAST_LEARN):
each copy's time from the scheduler's acquire-replicas to its add-keys, the verdicts, and
dask's own bandwidth estimates (Scheduler.bandwidth, bandwidth_workers, bandwidth_types).

    PYTHONPATH=src python bench/results/anom38-tools/real.py [--bandwidth 200e6]
        [--only seed-anomaly] [--workers 4] [--threads 1] [--learn 0,1] [--steps 48]
"""
import argparse
import importlib.util
import json
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.abspath(os.path.join(here, "..", ".."))
spec = importlib.util.spec_from_file_location("tg_bench_distributed", os.path.join(bench, "distributed.py"))
B = importlib.util.module_from_spec(spec)
spec.loader.exec_module(B)

import dask  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402

import tidegate.distributed as td  # noqa: E402
from tidegate import policy  # noqa: E402


def one(workload, learn, workers, threads, bandwidth):
    from tidegate.demo import _worker_plugins
    SlowNetwork, PeakMemory = _worker_plugins()
    policy.BROADCAST_LEARN = learn
    with dask.config.set(B.QUIET_MEMORY if isinstance(B.QUIET_MEMORY, dict) else {}), LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=True, memory_limit=0,
        dashboard_address=":0",
    ) as cluster, Client(cluster) as client:
        if bandwidth:
            client.register_plugin(SlowNetwork(bandwidth))
        plugin = td.Plugin()
        client.register_plugin(plugin)
        x = B.WORKLOADS[workload]()
        t0 = time.perf_counter()
        f = client.compute(x)
        wait(f)
        wall = time.perf_counter() - t0
        del f
        s = cluster.scheduler
        p = next(v for v in s.plugins.values() if isinstance(v, td.Plugin))
        b = p._broadcast
        return {
            "workload": workload, "learn": learn, "bandwidth": bandwidth, "wall_s": wall,
            "copies": b.copies, "verdicts": [(str(k)[:40], d, w) for k, d, w in b.verdicts],
            "best_rate": b.best_rate, "per_at_end": b.per, "level": b.level,
            "timed": [(str(k)[:30], r[-5:], sd[-5:], sid, round(t, 4)) for k, r, sd, sid, t in list(b.timed)[:20]],
            "s.bandwidth": s.bandwidth,
            "bandwidth_workers": {str(k): v for k, v in s.bandwidth_workers.items()},
            "bandwidth_types": dict(s.bandwidth_types),
        }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bandwidth", type=float, default=None)
    ap.add_argument("--only", default="seed-anomaly")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--learn", default="0,1")
    ap.add_argument("--steps", type=int, default=48)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    B._INPUTS["steps"] = a.steps
    out = []
    for w in a.only.split(","):
        for learn in map(int, a.learn.split(",")):
            r = one(w, learn, a.workers, a.threads, a.bandwidth)
            print(json.dumps(r, default=str), flush=True)
            out.append(r)
    if a.out:
        json.dump(out, open(a.out, "w"), indent=1, default=str)


if __name__ == "__main__":
    main()
