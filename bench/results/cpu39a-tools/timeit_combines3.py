"""(cpu39a) Plugin._combines_of (main's loop counting here and n, copied below, against the
dropped form's _held_count in C) and tasks._on_their_way (main's loop against the dropped
form's, which asks "every input done or running" first in C): run on a tree with
dropped-c-forms.diff applied (/tmp/cpu39a/snap1/src; on the branch's head both sides are
main's); each timed at every call a real run makes
(twin anomaly 100x4, 1,000 steps unless given), min of REPS each on copies of the noted
combines, answers and prunings compared.
PYTHONPATH=src python bench/results/cpu39a-tools/timeit_combines3.py [REPS] [STEPS] [WORKERS]"""
import statistics, sys, time
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.distributed import hooks, tasks
from tidegate.distributed.tasks import _most_held
from tidegate.policy import awaits_combine

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
WORKERS = int(sys.argv[3]) if len(sys.argv) > 3 else 100


def old_on_their_way(ts, depth: int) -> bool:  # main a6d339f's
    for x in ts.dependencies:
        state = x._state
        if state == "memory" or state == "processing":
            continue
        if state != "waiting" or depth <= 1 or not old_on_their_way(x, depth - 1):
            return False
    return True


def old_combines_of(self, addr) -> list:  # main a6d339f's
    combs = self._combines.get(addr)
    if not combs:
        return []
    out = []
    gone = None
    for key, d in combs.items():
        if d._state == "waiting":
            here = n = 0
            for x in d.dependencies:
                who = x.who_has
                if who:
                    n += len(who)
                    for ws in who:
                        if ws.address == addr:
                            here += 1
                ws = x.processing_on
                if ws is not None:
                    n += 1
                    if ws.address == addr:
                        here += 1
            if here:
                most, way = here, False
                if awaits_combine(here, here, True):
                    if n - here > here:
                        most = _most_held(d)
                        way = awaits_combine(here, most, True) and old_on_their_way(d, 4)
                    else:
                        way = old_on_their_way(d, 4)
                out.append((here, most, way))
                continue
        if gone is None:
            gone = []
        gone.append(key)
    if gone is not None:
        for key in gone:
            del combs[key]
        if not combs:
            del self._combines[addr]
    return out


new = hooks.Plugin._combines_of
t_old, t_new = [], []
w_old, w_new = [], []


def timed(self, addr):
    saved = {a: dict(c) for a, c in self._combines.items()}
    pc = time.perf_counter_ns
    for f, into in ((old_combines_of, t_old), (new, t_new)):
        ts = []
        for _ in range(REPS):
            self._combines = {a: dict(c) for a, c in saved.items()}
            t0 = pc()
            a = f(self, addr)
            ts.append(pc() - t0)
        into.append(min(ts))
        if f is old_combines_of:
            ans, left = a, {k: set(v) for k, v in self._combines.items()}
        else:
            assert a == ans and left == {k: set(v) for k, v in self._combines.items()}
    # _on_their_way alone, at each noted combine still waiting
    for d in saved.get(addr, {}).values():
        if d._state != "waiting":
            continue
        for f, into in ((old_on_their_way, w_old), (tasks._on_their_way, w_new)):
            ts = []
            for _ in range(REPS):
                t0 = pc()
                a = f(d, 4)
                ts.append(pc() - t0)
            into.append(min(ts))
            if f is old_on_their_way:
                want = a
            else:
                assert a == want
    self._combines = {a: dict(c) for a, c in saved.items()}
    return new(self, addr)


hooks.Plugin._combines_of = timed
w = build("anomaly", STEPS, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=WORKERS, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
for name, a, b in (("_combines_of", t_old, t_new), ("_on_their_way", w_old, w_new)):
    print(f"{name}: {len(a)} calls; median ns a call old {statistics.median(a):.0f} new "
          f"{statistics.median(b):.0f}; us a task old {sum(a) / T / 1000:.2f} new "
          f"{sum(b) / T / 1000:.2f}")
