"""weighted 100x4 200MB/s limited (the fingerprints' config), makespan per seed, LEARN values."""
import math, os, sys, tempfile
sys.path.insert(0, "/work/wt/anom39/bench")
import plugin_fingerprints as P
from tidegate import policy
from tidegate.sim import simulate
name, shape, out = sys.argv[1], sys.argv[2], sys.argv[3]
if len(sys.argv) > 6: exec(open(sys.argv[6]).read())
vals = sys.argv[4].split(","); seeds = [int(x) for x in sys.argv[5].split(",")]
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = P._zarr_inputs(folder)
for nm, opts, steps, popts, store in P.configs("all"):
    if nm != name or f"{opts['workers']}x{opts['threads_per_worker']}" != shape or popts:
        continue
    model = P.config_model(nm, steps, store, paths, folder)
    extra = {} if out == "limited" else {"outgoing_bandwidth": math.inf}
    for seed in seeds:
        row = []
        for v in vals:
            policy.BROADCAST_LEARN = int(v)
            r = simulate(model, policy="tidegate", seed=seed, **opts, **extra)
            row.append(r.makespan)
        q = simulate(model, policy="queue", seed=seed, **opts, **extra).makespan
        print(f"seed {seed} queue {q:.3f} " + " ".join(f"L{v} {m:.3f} ({m/q:.3f})" for v, m in zip(vals, row)), flush=True)
    break
