"""chain24: the resample chain (probe24, issue 9) in the twin: ds.resample(time="7D").mean()
.to_zarr over a zarr store of 30-day chunks (tidegate.sim.workloads.resample, as
tests/test_chain24.py builds it), simulated at W x T with queue and tidegate, with the sizes
and durations measured on the real graph (since session 27; chain24's own numbers were made
with every non-load task sized as a day's plane: ``res27_twin.py --model chain24``).

    python bench/sessions/chain24_twin.py [W [T]]
"""
import os
import sys

import cloudpickle

from tidegate.sim import simulate
from tidegate.sim.workloads import resample, resample_durations, resample_sizes

if __name__ == "__main__":
    W = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    T = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    cache = "/tmp/chain24/graph.pkl"  # one graph for every variant (the store's keys hold a uuid)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    if not os.path.exists(cache):
        x = resample("/tmp/chain24/in.zarr").graph
        with open(cache, "wb") as f:
            cloudpickle.dump((dict(x.__dask_graph__()), x.__dask_keys__()), f)
    with open(cache, "rb") as f:
        x, keys = cloudpickle.load(f)
    for r in simulate(x, keys=keys, workers=W, threads_per_worker=T, policy=["queue", "tidegate"],
                      sizes=resample_sizes(), durations=resample_durations()):
        print(r.policy, [round(p / 1e6, 1) for p in r.peak_memory_per_worker], round(r.makespan, 3),
              round(sum(t.nbytes for t in r.trace.transfers) / 1e6, 1))
