"""Does slow39's lags() fire on equal-speed workers of a loaded LocalCluster? Seed anomaly
(and stack-sum) on 2 x 1, tidegate plugin; records every lag found (Plugin._lag_seen)."""
import sys, time, subprocess, json
sys.path.insert(0, "/work/main/bench")
import importlib.util
_spec = importlib.util.spec_from_file_location("dbench", "/work/main/bench/distributed.py")
_m = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_m)
WORKLOADS = _m.WORKLOADS
import dask
from distributed import Client, LocalCluster, wait
import tidegate.distributed as td
import distributed as _d  # noqa


def _wrap(dask_scheduler):
    p = dask_scheduler.plugins["tidegate"]
    p._found = []
    orig = p._lag_seen

    def seen(reader, read, worker, startstops):
        orig(reader, read, worker, startstops)
        if p._lagging:
            p._found.append((reader, dict(p._lagging)))
    p._lag_seen = seen
    return True


def _get(dask_scheduler):
    p = dask_scheduler.plugins["tidegate"]
    return {"found": [(r, {k: v for k, v in l.items()}) for r, l in p._found],
            "readers": list(p._readers), "slow_groups": list(p._slow_groups)}


def one(workload, burners):
    procs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(burners)]
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=0,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            client.register_plugin(td.Plugin())
            client.run_on_scheduler(_wrap)
            x = WORKLOADS[workload]()
            t0 = time.perf_counter()
            f = client.compute(x); wait(f); wall = time.perf_counter() - t0
            del f
            out = client.run_on_scheduler(_get)
    finally:
        for p in procs:
            p.kill()
    return wall, out


if __name__ == "__main__":
    for workload in sys.argv[1].split(","):
        for burners in (0, 3, 6):
            for rep in range(int(sys.argv[2])):
                wall, out = one(workload, burners)
                print(json.dumps({"workload": workload, "burners": burners, "wall": round(wall, 2),
                                  "lag_found": len(out["found"]), "first": out["found"][:2],
                                  "readers": out["readers"]}), flush=True)
