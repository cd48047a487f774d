"""A truly slow worker on a LocalCluster 2 x 1 of a loaded machine: every thread of worker
0 reniced by K (nice +K: its share of a busy cpu falls, ~1.25x per step), worker 1 as is. Records every lag sample (as
lagrec.py). usage: PYTHONPATH=SRC python lagslow.py K RUNS TAG"""
import sys, os, time, json, subprocess
sys.argv += []
import lagrec
from distributed import Client, LocalCluster, wait
import tidegate, tidegate.distributed as td


def one(k):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=0,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        pids = client.run(os.getpid)
        addrs = sorted(pids)
        for tid in os.listdir(f"/proc/{pids[addrs[0]]}/task"):  # (every thread of it)
            os.setpriority(os.PRIO_PROCESS, int(tid), k)
        burn = []
        try:
            client.register_plugin(td.Plugin())
            client.run_on_scheduler(lagrec._wrap)
            x = lagrec.WORKLOADS["seed-anomaly"]()
            t0 = time.perf_counter()
            f = client.compute(x); wait(f); wall = time.perf_counter() - t0
            del f
            rec = client.run_on_scheduler(lagrec._get)
        finally:
            for b in burn:
                b.kill()
    return wall, rec, addrs[0][-5:]


if __name__ == "__main__":
    k, runs, tag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    for rep in range(runs):
        wall, rec, slow = one(k)
        fired = [r for r in rec if r["lagging"]]
        print(json.dumps({"tag": tag, "nice": k, "slow": slow, "workers": 2,
                          "wall": round(wall, 2), "fired": len(fired),
                          "max_lag": max((max(r["lagging"].values()) for r in fired), default=0),
                          "who": sorted({w for r in fired for w in r["lagging"]}),
                          "samples": len(rec), "rec": rec}), flush=True)
