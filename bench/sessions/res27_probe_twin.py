"""res27: probe24's pipelines in the twin with their measured sizes and durations
(bench/probe25_twin.py's models), queue and tidegate with policy.FREES_SLOT 0 (main's
decisions) and 3 (res27), at the shapes given.

    PROBE24_FOLDER=... python bench/sessions/res27_probe_twin.py resample-store clim-anom-store
        --shape 2x1 --shape 2x2
"""
import argparse
import importlib.util
import os

import tidegate.policy as P

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
spec = importlib.util.spec_from_file_location("probe25_twin", os.path.join(here, "probe25_twin.py"))
pt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pt)

ap = argparse.ArgumentParser()
ap.add_argument("names", nargs="+")
ap.add_argument("--shape", action="append")
a = ap.parse_args()
for name in a.names:
    for shape in a.shape or ["2x1"]:
        w, t = map(int, shape.split("x"))
        P.FREES_SLOT = 0
        q, main = pt.run(name, w, t)
        P.FREES_SLOT = 3
        (new,) = pt.run(name, w, t, policies=("tidegate",))
        P.FREES_SLOT = 3
        pq = max(q.peak_memory_per_worker) / 1e6

        def f(r):
            return (f"{max(r.peak_memory_per_worker) / 1e6:7.1f} MB {r.makespan:6.3f} s "
                    f"{sum(x.nbytes for x in r.trace.transfers) / 1e6:7.1f} MB moved")
        print(f"{name:16s} {shape}: queue {f(q)} | main {f(main)} | new {f(new)} | peak "
              f"main/q {max(main.peak_memory_per_worker) / 1e6 / pq:.2f} new/q "
              f"{max(new.peak_memory_per_worker) / 1e6 / pq:.2f}", flush=True)
