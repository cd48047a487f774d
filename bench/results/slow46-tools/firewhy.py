import sys, random
from tidegate import policy
sys.path.insert(0, "/work/wt/slow46/bench")
import twin_slow_worker as T
from tidegate.distributed import admission, hooks
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
policy.WAKE_SAMPLES = int(sys.argv[1]) if len(sys.argv) > 1 else 3
ref = admission.Admission._refresh
def refresh(self, addr, *a, **k):
    if self._uneven and self._waiting_on:
        print("refresh", addr, {g: {w: tuple(round(x, 3) for x in p) for w, p in ps.items()} for g, ps in self._pace.items() if g in self._uneven})
    return ref(self, addr, *a, **k)
admission.Admission._refresh = refresh
steps, nw, seed = 12, 4, 3
w = build("anomaly", steps, 32e6, store=False)
model = build_model(w.graph, w.keys, sizes={**(w.sizes or {}), **T.REAL_SIZES}, durations=w.durations)
rnd = random.Random(f"jit-{seed}")
for k in sorted(model.durations, key=repr):
    model.durations[k] *= 1 + 0.4 * (2 * rnd.random() - 1)
print(sorted((repr(k)[-6:], round(v, 3)) for k, v in model.durations.items() if "open" in str(k)))
r, = simulate(model, workers=nw, threads_per_worker=1, policy=["tidegate"], bandwidth=200e6, processes=1)
