"""rev50m probe: _first_split's cost per call and roots it starts whose park was not
_first_share's (entries added by decide_worker_rootish / _owed_first while not parked)."""
import sys, time
from tidegate import policy
from tidegate.distributed import admission as adm, placement as pl
from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate
from tidegate.sim.workloads import build

C = dict(calls=0, first_len=0, asks=0, of_group=0, starts=0, starts_not_first=0,
         added_unparked=0, fs_hits=0, pokes=0, max_first=0)
inside = [0]
orig_place, orig_fs, orig_park, orig_fsplit = Plugin._place, Plugin._first_share, Plugin._park, Plugin._first_split
orig_start = Plugin._start
orig_takes = adm.first_share_takes
orig_of_group = adm._of_group
orig_poke = Plugin._poke
legit = {}

def place(self, ts, stimulus_id=None):
    self._probe_fs = None
    return orig_place(self, ts, stimulus_id)

def fs(self, ts, partners, lacks, sid):
    out = orig_fs(self, ts, partners, lacks, sid)
    if out is not None:
        C["fs_hits"] += 1
        self._probe_fs = ts
    return out

def park(self, ts, on):
    legit[ts] = getattr(self, "_probe_fs", None) is ts
    return orig_park(self, ts, on)

def fsplit(self, s, sid):
    C["calls"] += 1
    C["first_len"] += len(self._first_parked)
    C["max_first"] = max(C["max_first"], len(self._first_parked))
    inside[0] += 1
    t = time.perf_counter()
    try:
        return orig_fsplit(self, s, sid)
    finally:
        inside[0] -= 1
        C["secs"] = C.get("secs", 0) + time.perf_counter() - t

def start(self, ts, ws, sid):
    if inside[0]:
        C["starts"] += 1
        if ts in self._parked and not legit.get(ts, False):
            C["starts_not_first"] += 1
    return orig_start(self, ts, ws, sid)

def takes(*a):
    if inside[0]:
        C["asks"] += 1
    return orig_takes(*a)

def of_group(ws, g):
    if inside[0]:
        C["of_group"] += 1
    return orig_of_group(ws, g)

def poke(self, *a, **k):
    C["pokes"] += 1
    return orig_poke(self, *a, **k)

Plugin._place, Plugin._first_share, Plugin._park, Plugin._first_split = place, fs, park, fsplit
Plugin._start = start
Plugin._poke = poke
adm.first_share_takes = takes
adm._of_group = of_group

import os
for kv in os.environ.get("SETS", "").split():
    k, v = kv.split("="); setattr(policy, k, int(v))
steps, workers, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = len(sys.argv) <= 4 or sys.argv[4] != "nostore"
model = build("anomaly", steps, 190e6, store=store).model()
t0 = time.perf_counter()
(t,) = simulate(model, workers=workers, threads_per_worker=threads, seed=0,
                policy=["tidegate"], record_memory=False, processes=1, **({"saturation": float(os.environ["SAT"])} if os.environ.get("SAT") else {}))
cpu = time.perf_counter() - t0
print(f"anomaly {steps} {workers}x{threads} store={store}: cpu {cpu:.1f}s makespan {t.makespan:.3f}", C)
