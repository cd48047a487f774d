"""(cpu39a) plugin_ops.py's count for one policy only (the other's is known): JSON line.
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
out = plugin_ops.count(model, workers, policy)
print(json.dumps({"workload": name, "scale": scale, "workers": workers, "policy": policy,
                  "src": os.path.dirname(os.path.dirname(tidegate.__file__)),
                  **{k: round(v, 1) for k, v in out.items()}}), flush=True)
