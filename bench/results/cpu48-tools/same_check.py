"""(cpu48) Ask anyway and compare: every answer Placement._withheld_same gives is also found
the full way (_place with the memo dropped: its prologue, _still_withheld, its asks) and
compared, with the state each leaves behind (the log's entry, _entry, _lacked,
_parks_further, _withheld). No other audit on (Books.audit off): the run is the run.
PYTHONHASHSEED=0 PYTHONPATH=<src> python same_check.py W SCALE WORKERS [W2 ...]"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402
from tidegate.distributed import placement  # noqa: E402

n = collections.Counter()
orig = placement.Placement._withheld_same


def checked(self, ts, seen, stimulus_id):
    n["gate asked"] += 1
    out = orig(self, ts, seen, stimulus_id)
    if out is None:
        return out
    n["same (skipped)"] += 1
    log = self.books.log
    got = (out, log[-1], self._entry, set(self._lacked), self._parks_further, self._withheld)
    log.pop()
    self._withheld_seen = None
    full = self._place(ts, stimulus_id)  # (memo dropped: the full way, memo made anew)
    found = (full, log[-1], self._entry, set(self._lacked), self._parks_further,
             self._withheld)
    if found != got or full[1] is not out[1] or found[2] is not got[2]:
        n["DIFFERENT"] += 1
        print("DIFFERENT", ts.key, got, found)
    else:
        n["identical"] += 1
    return full


placement.Placement._withheld_same = checked
scale, workers = float(sys.argv[2]), int(sys.argv[3])
for name in [sys.argv[1]] + sys.argv[4:]:
    n.clear()
    w = build(name, int(plugin_ops.STEPS.get(name, 1000) * scale), 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
    T = len(r.trace.tasks)
    assert T == len(model.dsk)
    print(f"{name} {workers} x 4 scale {scale}: {T} tasks; " + ", ".join(
        f"{k} {v} ({v / T:.3f} a task)" for k, v in n.items()), flush=True)
