"""(cpu36a, session 36) The anomaly 100 x 4 (scale 0.5) bytecodes with one of cpu36a's two parts
patched out: no_holds (Broadcast._holds answers no: gate always), no_placed (a reader the
look lets go goes back in line, as before). python bench/sessions/cpu36a_split.py MODE"""
import sys, os, json
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.distributed import broadcast
from tidegate.distributed.admission import Admission
mode = sys.argv[1]
if mode == "no_holds":
    broadcast.Broadcast._holds = lambda self, s, ts, ws: False
elif mode == "no_placed":
    def back_in_line(self, s, c, looked, examined, skipped, stimulus_id):
        self._ready.add(c)
        return looked, examined
    Admission._placed_held = back_in_line
w = build("anomaly", 500, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
t = plugin_ops.count(model, 100, "tidegate")
print(mode, json.dumps({k: round(v, 1) for k, v in t.items()}))
