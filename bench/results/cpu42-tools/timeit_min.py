"""(cpu42, cpu41's tool with the merged names; run it on base src: the mirror is kept there) MIRROR_MIN's trade timed at every real owed first placement of one twin run
whose opener's meeting has one entry (a pair's one lacked root): the mirror (MIRROR_MIN 1:
_mirrored_inputs_fast of the opener's plan, then _mirror_holds_fast of the root) against
the root's own plan (MIRROR_MIN 2: Placement._plan's meeting_plan call, the plugin's
arguments), each REPS times on a fresh copy of the kept chains, thread time, min per call.
PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=src python
    bench/results/cpu41-tools/timeit_min.py WORKLOAD STEPS WORKERS [REPS=5]"""
import sys, time
from tidegate import policy
from tidegate.distributed import placement
from tidegate.distributed.tasks import _constant, _dependencies, _dependents, _group
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name, steps, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
clock = time.thread_time_ns
sums = [0, 0, 0]  # calls, mirror ns, own plan ns
orig = placement.Placement._mirrored


def _best(f):
    b = None
    for _ in range(reps):
        t0 = clock()
        f()
        t = clock() - t0
        b = t if b is None or t < b else b
    return b


def mirrored(self, ts, opener):
    kept = self._opened.get(opener)
    if kept is not None and kept[2] is False:
        plan = kept[1]
        entries = [e for e in plan.inputs if e]
        if len(entries) == 1 and len(entries[0]) == 1:
            s = self.scheduler
            out = policy.mirrored_inputs(plan, _dependents, _dependencies,
                                               constant=_constant, chains=dict(self._chains))
            if out is not None and id(ts) in out[1]:
                meeting, got = out[0], out[1][id(ts)]

                def mirror():
                    policy.mirrored_inputs(plan, _dependents, _dependencies,
                                                 constant=_constant, chains=dict(self._chains))
                    policy.mirror_holds(ts, meeting, got[2], _dependents, _dependencies,
                                              group=_group, unique=True)

                def own():
                    policy.meeting_plan(ts, _dependents, _dependencies, constant=_constant,
                                        chains=dict(self._chains), group=_group,
                                        halo_depth=policy.halo_depth(s.total_nthreads,
                                                                     len(s.workers)),
                                        unique=True)

                # (the dict copies timed in both: their cost is subtracted below)
                copy = _best(lambda: dict(self._chains))
                sums[0] += 1
                sums[1] += _best(mirror) - copy
                sums[2] += _best(own) - copy
    return orig(self, ts, opener)


placement.Placement._mirrored = mirrored
w = build(name, steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
         record_memory=False)
n, a, b = sums
print(f"{name} {steps} x{workers}: {n} one-entry first placements; mirror {a / max(n, 1):.0f} ns, "
      f"own plan {b / max(n, 1):.0f} ns a call ({b / max(a, 1):.3f}x)")
