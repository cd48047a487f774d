"""Seed anomaly on a LocalCluster of equal workers (N x 1): every lag sample recorded.
usage: PYTHONPATH=SRC python lagrec.py WORKLOAD WORKERS RUNS TAG  (prints one json a run)"""
import os, sys, time, json, importlib.util
# (the repository's bench/distributed.py, two folders up from this file)
_spec = importlib.util.spec_from_file_location("dbench", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "distributed.py"))
_m = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_m)
WORKLOADS = _m.WORKLOADS
from distributed import Client, LocalCluster, wait
import tidegate, tidegate.distributed as td


def _wrap(dask_scheduler):
    p = dask_scheduler.plugins["tidegate"]
    p._rec = []
    orig = p._lag_seen

    def seen(reader, read, worker, startstops):
        orig(reader, read, worker, startstops)
        root, paces = read
        p._rec.append({"w": worker[-5:], "mine": list(paces.get(worker, ())),
                       "ref": p._lag_ref.get(reader, (None,))[0],
                       "roots": {k[-5:]: list(v) for k, v in p._pace.get(root, {}).items()},
                       "reads": {k[-5:]: list(v) for k, v in paces.items()},
                       "lagging": {k[-5:]: v for k, v in p._lagging.items()}})
    p._lag_seen = seen
    return True


def _get(dask_scheduler):
    return dask_scheduler.plugins["tidegate"]._rec


def one(workload, workers):
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=0,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        client.register_plugin(td.Plugin())
        client.run_on_scheduler(_wrap)
        x = WORKLOADS[workload]()
        t0 = time.perf_counter()
        f = client.compute(x); wait(f); wall = time.perf_counter() - t0
        del f
        rec = client.run_on_scheduler(_get)
    return wall, rec


if __name__ == "__main__":
    workload, workers, runs, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    for rep in range(runs):
        wall, rec = one(workload, workers)
        fired = [r for r in rec if r["lagging"]]
        print(json.dumps({"tag": tag, "src": tidegate.__file__, "workers": workers,
                          "wall": round(wall, 2), "fired": len(fired),
                          "max_lag": max((max(r["lagging"].values()) for r in fired), default=0),
                          "samples": len(rec), "rec": rec}), flush=True)
