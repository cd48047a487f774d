"""(cpu37b, session 37) plugin_ops.py's bytecodes a task (tidegate only) with switches set,
one process: each change's own part of a total.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu37b-tools/ops_switch.py \
        WORKLOAD WORKERS MODULE.NAME=VALUE[,MODULE.NAME=VALUE...] [...]
"""
import importlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, workers = sys.argv[1], int(sys.argv[2])
w = build(name, int(plugin_ops.STEPS[name] * 0.5), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
for setting in sys.argv[3:]:
    saved = []
    for part in setting.split(","):
        target, value = part.split("=")
        mod, attr = target.rsplit(".", 1)
        m = importlib.import_module(mod)
        saved.append((m, attr, getattr(m, attr)))
        setattr(m, attr, eval(value))
    t = plugin_ops.count(model, workers, "tidegate")
    for m, attr, v in saved:
        setattr(m, attr, v)
    print(f"{name} {workers}x4 {setting}: total {t['ops_per_task']:.1f} plugin "
          f"{t['plugin_ops_per_task']:.1f} calls {t['calls_per_task']:.1f} a task", flush=True)
