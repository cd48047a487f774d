"""Tidegate-only plugin_ops count (queue's is the same for every src): W SCALE WORKERS NFUNC"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale, workers, nf = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
t = plugin_ops.count(model, workers, "tidegate", nf)
fs = t.pop("functions", {})
print(json.dumps({"workload": name, "scale": scale, "workers": workers,
                  **{k: round(v, 1) for k, v in t.items()}}), flush=True)
for f, v in fs.items():
    print(f"  {v['ops_per_task']:8.1f} ops/task {v['calls_per_task']:7.2f} calls/task  {f}")
