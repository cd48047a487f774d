"""After each confirmed steal in the twin: do the plugin's books match dask's processing?"""
import sys
from distributed.stealing import WorkStealing
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name, steps, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
orig = WorkStealing.move_task_confirm
seen = {"calls": 0, "moved": 0, "off": 0, "first": None}

def probe(self, *, key, state, stimulus_id, worker=None):
    ts = self.scheduler.tasks.get(key)
    before = ts.processing_on if ts is not None else None
    def offs():
        s = self.scheduler
        p = s.__dict__.get("_tidegate")
        return sorted((ws.address, p.books.workers[ws.address].processing, len(ws.processing))
                      for ws in s.workers.values()
                      if ws.address in p.books.workers
                      and p.books.workers[ws.address].processing != len(ws.processing))
    pre = offs()
    orig(self, key=key, state=state, stimulus_id=stimulus_id, worker=worker)
    post = offs()
    print("confirm", key, state, "moved" if ts.processing_on is not before else "-",
          "pre", pre, "post", post)
    seen["calls"] += 1
    s = self.scheduler
    p = s.__dict__.get("_tidegate")
    if p is None or ts is None:
        return
    if ts.processing_on is not before:
        seen["moved"] += 1
    for ws in s.workers.values():
        b = p.books.workers.get(ws.address)
        if b is not None and b.processing != len(ws.processing):
            seen["off"] += 1
            if seen["first"] is None:
                seen["first"] = (key, ws.address, b.processing, len(ws.processing))
            break

WorkStealing.move_task_confirm = probe
if len(sys.argv) > 4:
    from tidegate import policy
    from tidegate.distributed import server
    server._inputs_all_here = lambda ts, plugin: False
    policy.FIRST_SHARE = 0
    policy.STEAL_SPLIT = 0
w = build(name, steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
print(name, steps, workers, seen)
