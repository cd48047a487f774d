"""(cpu39b, session 39) How many calls of Admission._refresh and Admission._poke change
nothing, in one twin run (not traced: wrappers snapshot what each call may change).

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39b-tools/noop_calls.py \
        [WORKLOAD] [SCALE] [WORKERS]

_refresh(addr): a call "changes nothing" when the worker's entries in _looked, _open,
_free_key, _count, _idle, its book's held bytes and _epoch are as before and no parked
task went back in line (_wake's effect: _ready.added, _parked size). Callers counted by the
caller's caller (_update's caller, or _refresh_some/_refresh_each).
_poke: split by where it ended: its early return (``not held and (not _open or ...
_still_blocked())``) or the scan; a scan that started, parked or changed nothing counted."""
import collections
import sys

sys.path.insert(0, "bench")
import plugin_ops  # noqa: E402
from tidegate.distributed import admission, hooks  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
nworkers = int(sys.argv[3]) if len(sys.argv) > 3 else 100
A = admission.Admission
stats = collections.Counter()
why = collections.Counter()
callers = collections.Counter()


def snap(self, addr):
    book = self.books.workers.get(addr)
    return (self._looked.get(addr), addr in self._open, self._epoch,
            self._free_key.get(addr), self._count.get(addr), addr in self._idle,
            None if book is None else book.held, self._ready.added, len(self._parked),
            len(self._parked_kept), addr in self._waiting_on)


orig_refresh = A._refresh


def refresh(self, addr):
    before = snap(self, addr)
    f = sys._getframe(1)
    caller = f.f_code.co_name
    if caller == "_update":
        caller = "_update<" + f.f_back.f_code.co_name
    orig_refresh(self, addr)
    after = snap(self, addr)
    stats["refresh"] += 1
    same = before == after
    stats["refresh_same"] += same
    callers[(caller, same)] += 1
    if not same:
        names = ("looked", "open", "epoch", "free_key", "count", "idle", "held", "ready",
                 "parked", "parked_kept", "waiting_on")
        why[tuple(n for n, a, b in zip(names, before, after) if a != b)] += 1


def psnap(self, s):
    return (len(s.queued), sum(len(ws.processing) for ws in ()), self._ready.added,
            len(self._parked), self._blocked, self._stalled, self._wave is not None,
            self._epoch, len(self._open), len(self._free))


orig_poke = A._poke
started = [0]
orig_start = None


def _poke(self, s, stimulus_id):
    before = psnap(self, s)
    n0 = started[0]
    cur[0] = collections.Counter()
    ret = orig_poke(self, s, stimulus_id)
    mine, cur[0] = cur[0], None
    stats["_poke"] += 1
    if started[0] == n0:
        stats["_poke_no_start"] += 1
        if psnap(self, s) == before:
            stats["_poke_same"] += 1
            noop_lines.update(mine)
    return ret


orig_poke_outer = A.poke


def poke(self, stimulus_id):
    stats["poke"] += 1
    return orig_poke_outer(self, stimulus_id)


from tidegate.distributed import placement  # noqa: E402
orig_start = placement.Placement._start


def _start(self, *a, **k):
    started[0] += 1
    return orig_start(self, *a, **k)


# early return: trace the line in _poke
early_line = None
import inspect  # noqa: E402
src, first = inspect.getsourcelines(orig_poke)
for i, l in enumerate(src):
    if l.strip() == "return" and early_line is None and "held" in src[i - 1]:
        early_line = first + i
counts_early = [0]
lines_hit = collections.Counter()
noop_lines = collections.Counter()
cur = [None]


def tracer(frame, event, arg):
    if frame.f_code is orig_poke.__code__:
        def local(fr, ev, a):
            if ev == "line":
                lines_hit[fr.f_lineno] += 1
                if cur[0] is not None:
                    cur[0][fr.f_lineno] += 1
                if fr.f_lineno == early_line:
                    counts_early[0] += 1
            return local
        return local
    return None


A._refresh = refresh
A._poke = _poke
A.poke = poke
placement.Placement._start = _start
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
sys.settrace(tracer)
import threading  # noqa: E402
threading.settrace(tracer)
r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
sys.settrace(None)
T = len(r.trace.tasks)
print(f"{name} scale {scale} {nworkers}x4: {T} tasks")
print(f"  poke {stats['poke'] / T:.3f} a task; _poke {stats['_poke'] / T:.3f} "
      f"(early return {counts_early[0] / T:.3f}, no start {stats['_poke_no_start'] / T:.3f}, "
      f"nothing changed {stats['_poke_same'] / T:.3f}); starts {started[0] / T:.3f}")
print(f"  _refresh {stats['refresh'] / T:.3f} a task, changed nothing "
      f"{stats['refresh_same'] / T:.3f}")
for (c, same), v in sorted(callers.items(), key=lambda kv: -kv[1]):
    print(f"    {c:40s} {'same' if same else 'changed':8s} {v / T:.3f}")
print("  _poke lines hit a task:", " ".join(f"{l}:{v / T:.3f}" for l, v in sorted(lines_hit.items())))
print("  _poke lines hit a task, in calls that changed nothing:", " ".join(f"{l}:{v / T:.3f}" for l, v in sorted(noop_lines.items())))
print("  what changed:")
for k, v in why.most_common(12):
    print(f"    {v / T:.3f} {k}")
