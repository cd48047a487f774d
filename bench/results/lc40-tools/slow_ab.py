"""HEAVY_PARTNER 0 / 1 on bench/twin_slow_worker.py's runs (the twin's anomaly, one group or
one worker slower), 2 and 4 workers: tidegate's loads per worker, peak, makespan, moved."""
import importlib.util
import sys

from tidegate import policy

spec = importlib.util.spec_from_file_location("tsw", sys.argv[1] + "/bench/twin_slow_worker.py")
tsw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tsw)
diff = 0
for workers in (2, 4):
    for mode in ("group", "worker", "all"):
        for factor in (1.0, 1.5, 2.0, 3.0):
            res = {}
            for v in (0, 1):
                policy.HEAVY_PARTNER = v
                res[v] = tsw.run(factor, mode=mode, workers=workers)
            a, b = res[0]["tidegate"], res[1]["tidegate"]
            q = res[0]["queue"]
            same = a == b
            diff += not same
            print(f"{workers}x1 {mode:6} x{factor}: {'same' if same else 'DIFF'} "
                  f"off {a['loads_per_worker']} {a['peak'] / 1e6:.0f} MB {a['makespan']:.3f} s "
                  f"{a['bytes_transferred'] / 1e6:.0f} MB | on {b['loads_per_worker']} "
                  f"{b['peak'] / 1e6:.0f} MB {b['makespan']:.3f} s {b['bytes_transferred'] / 1e6:.0f} MB"
                  f" | queue {q['peak'] / 1e6:.0f} MB {q['makespan']:.3f} s", flush=True)
print("cells differing:", diff)
