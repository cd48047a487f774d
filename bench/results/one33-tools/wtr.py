import sys
from tidegate.sim import simulate
from tidegate.sim.workloads import build
import tidegate.policy as P
from dask.utils import key_split
w = build("weighted", steps=24, chunk_bytes=50e6, store=False)
for v in (0, 1):
    P.TARGETS_NO_ROOT = v
    r = simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations, workers=20, threads_per_worker=4, policy="tidegate")
    print("TARGETS", v, "makespan", round(r.makespan, 3), "moved", r.bytes_transferred/1e6)
    ts = sorted(r.trace.tasks, key=lambda x: x.start)
    for x in ts[:12]:
        print(f"   {x.start:.3f}-{x.stop:.3f} {x.worker[-6:]} t{x.thread} {key_split(x.key)} {x.key if isinstance(x.key,str) else x.key[1:]} {x.nbytes/1e6:.0f}")
    last = sorted(r.trace.tasks, key=lambda x: x.stop)[-6:]
    for x in last:
        print(f"  end {x.start:.3f}-{x.stop:.3f} {x.worker[-6:]} t{x.thread} {key_split(x.key)} {x.key if isinstance(x.key,str) else x.key[1:]}")
    for x in sorted(r.trace.transfers, key=lambda x: x.start)[:8]:
        print(f"  xfer {x.start:.3f}-{x.stop:.3f} {key_split(x.key)} {x.source[-6:]}->{x.dest[-6:]} {x.nbytes/1e6:.0f}")
