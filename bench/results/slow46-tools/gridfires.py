"""How often IDLE_WAKE's wake runs in slow45's cells (naming None), tidegate only:
    PYTHONPATH=SRC python gridfires.py TAG"""
import contextlib, os, sys
from tidegate import policy
for kv in filter(None, os.environ.get("SW", "").split(",")):
    k, v = kv.split("="); setattr(policy, k, float(v) if "." in v else int(v))
sys.path.insert(0, "/tmp/slow46")
sys.argv = [sys.argv[0], "--tag", sys.argv[1], "--jitter", "0", "--seeds", "0"]
import jit  # (Counted, FIRES; runs no cell with --seeds 0)
import twin_slow_worker as T
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
CELLS = [(2, "group", f) for f in (3, 4, 5)] + [(2, "all", f) for f in (2.75, 3)] + \
    [(4, "worker", f) for f in (2, 2.5, 5)] + [(4, "group", f) for f in (2.5, 3, 4, 5)] + \
    [(4, "all", 2)] + [(3, "worker", f) for f in (2, 3, 4)] + [(3, "group", f) for f in (2, 3, 4)] + \
    [(3, "all", f) for f in (3, 4)] + [(2, "worker", f) for f in (2.2, 3)]
tot = 0
for nw, mode, f in CELLS:
    w = build("anomaly", 12, 32e6, store=False)
    model = build_model(w.graph, w.keys, sizes={**(w.sizes or {}), **T.REAL_SIZES}, durations=w.durations)
    if mode == "group":
        for k in model.durations:
            if type(k) is tuple and k[0].startswith("open") and k[1] in range(8, 12):
                model.durations[k] *= f
    ctx = T._slow_worker(f, "tcp://twin-w1:1", mode == "all") if mode != "group" else contextlib.nullcontext()
    policy.IDLE_WAKE = jit.Counted(1)
    jit.FIRES[0] = 0
    with ctx:
        r, = simulate(model, workers=nw, threads_per_worker=1, policy=["tidegate"], bandwidth=200e6, processes=1)
    tot += jit.FIRES[0] > 0
    print(f"{sys.argv[2] if False else ''}{nw}x1 {mode:6} x{f:<5} fires {jit.FIRES[0]:3d} makespan {r.makespan:.3f}", flush=True)
print("cells with a wake:", tot, "of", len(CELLS))
