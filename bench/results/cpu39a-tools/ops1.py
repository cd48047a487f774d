"""(cpu39a) plugin_ops.py's count for one policy only (the other's is known): JSON line.
The same run untraced first: what a process does once (lazy set-up inside the scheduler's
work) is not counted (plugin_ops.py's queue run, first, takes it; uncounted, this script's
tidegate counts were ~13-15 bytecodes a task above plugin_ops.py's).
PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=<src> python
    bench/results/cpu39a-tools/ops1.py WORKLOAD SCALE WORKERS [POLICY=tidegate]"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402
import tidegate  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
policy = sys.argv[4] if len(sys.argv) > 4 else "tidegate"
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
from tidegate.sim import simulate  # noqa: E402
simulate(model, workers=workers, threads_per_worker=4, policy=policy, bandwidth="1GB/s",
         record_memory=False)  # (untraced: the process's one-time work done)
out = plugin_ops.count(model, workers, policy)
print(json.dumps({"workload": name, "scale": scale, "workers": workers, "policy": policy,
                  "src": os.path.dirname(os.path.dirname(tidegate.__file__)),
                  **{k: round(v, 1) for k, v in out.items()}}), flush=True)
