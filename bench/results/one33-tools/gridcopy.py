import sys
sys.path.insert(0, "/work/wt/one33/tests")
from _namings import NAMINGS, renamed
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
import tidegate.policy as P
from dask.utils import key_split
w = build("weighted", 100, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
for v in (0, 2):
    P.TARGETS_NO_ROOT = v
    tot = {"q": 0, "t": 0}; nb = 0
    for salt in NAMINGS:
        q, t = simulate(renamed(model, salt), workers=8, threads_per_worker=4, policy=["queue", "tidegate"], bandwidth="200MB/s", processes=1, record_memory=False)
        copies = {}
        for x in t.trace.transfers:
            if x.nbytes > 10**7:
                copies.setdefault(x.dest, []).append(x)
        behind = [(dest[-5:], round(a.start,3), round(a.stop,3), round(b.start,3)) for dest, xs in copies.items()
                  for a, b in zip(sorted(xs, key=lambda x: x.start), sorted(xs, key=lambda x: x.start)[1:])
                  if a.key != b.key and b.start <= a.stop + 1e-9]
        nb += bool(behind)
        tot["q"] += q.makespan; tot["t"] += t.makespan
        print(v, salt, round(t.makespan, 3), round(q.makespan, 3), max(t.peak_memory_per_worker)/1e6, max(q.peak_memory_per_worker)/1e6, behind, flush=True)
    print("TARGETS", v, "sum t/q", round(tot["t"]/tot["q"], 4), "namings with a copy behind", nb)
