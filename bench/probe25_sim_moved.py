"""probe25: peak / makespan / bytes of sim_fingerprints' traces (graph name, W x T), queue
and tidegate, under whatever tidegate is on PYTHONPATH.
    python bench/probe25_sim_moved.py running-total:4x2 s-running-total:4x2"""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import sim_fingerprints as sf
from tidegate.sim import simulate
for arg in sys.argv[1:]:
    name, shape = arg.split(":")
    w, t = map(int, shape.split("x"))
    x, keys, sizes, durations = sf.graph(name)
    for r in simulate(x, keys=keys, sizes=sizes, durations=durations, workers=w, threads_per_worker=t,
                      policy=["queue", "tidegate"], processes=1):
        print(f"{name} {shape} {r.policy:9s} peak {max(r.peak_memory_per_worker)/1e6:8.1f} MB  "
              f"makespan {r.makespan:7.3f} s  moved {r.bytes_transferred/1e6:8.1f} MB", flush=True)
