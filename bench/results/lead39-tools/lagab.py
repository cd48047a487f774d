"""Seed anomaly 2 x 1 LocalCluster, tidegate with slow39's LAG_CONSUMERS on / off alternated
(the scheduler runs in this process: the switch is read at call time)."""
import importlib.util, json, sys, statistics as st
from tidegate import policy
spec = importlib.util.spec_from_file_location("dbench", "/work/main/bench/distributed.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)

if __name__ == '__main__':
    rows = []
    for rep in range(int(sys.argv[2])):
        for on in (0, 1):
            policy.LAG_CONSUMERS = on
            r = m.run(sys.argv[1], "tidegate", {}, workers=2, threads=1)
            r["on"] = on
            rows.append(r)
            print(json.dumps(r), flush=True)
    for on in (0, 1):
        rs = [r for r in rows if r["on"] == on]
        for k in ("peak_managed_mb", "transferred_mb", "wall_s"):
            v = sorted(r[k] for r in rs)
            print(on, k, round(st.median(v), 1), [round(x, 1) for x in v])
