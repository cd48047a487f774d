"""(cpu37c) Plugin._combines_of + books.awaits: cpu37a's (copied below: _most_held at every
ask with two or more inputs here) against this tree's (the most held counted only where the
holders elsewhere could outnumber here's), timed at every call a real run makes (twin
anomaly 100x4 1,000 steps, with this tree's Books: the view asked last), min of REPS each on
copies of the noted combines, answers and prunings compared.
python bench/results/cpu37c-tools/timeit_combines2.py [REPS]"""
import statistics, sys, time
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.distributed import hooks
from tidegate.distributed.tasks import _most_held, _on_their_way
from tidegate.policy import awaits_combine

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def old_combines_of(self, addr) -> list:  # cpu37a's (2cc441e)
    combs = self._combines.get(addr)
    if not combs:
        return []
    out = []
    gone = None
    for key, d in combs.items():
        if d._state == "waiting":
            here = 0
            for x in d.dependencies:
                for ws in x.who_has or ():
                    if ws.address == addr:
                        here += 1
                ws = x.processing_on
                if ws is not None and ws.address == addr:
                    here += 1
            if here:
                most, way = here, False
                if awaits_combine(here, here, True):
                    most = _most_held(d)
                    way = awaits_combine(here, most, True) and _on_their_way(d, 4)
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


def awaits(combines):
    for here, most, way in combines:
        if awaits_combine(here, most, way):
            return True
    return False


new = hooks.Plugin._combines_of
t_old, t_new, n = [], [], [0]


def timed(self, addr):
    saved = {a: dict(c) for a, c in self._combines.items()}
    pc = time.perf_counter_ns
    for f, into in ((old_combines_of, t_old), (new, t_new)):
        ts = []
        for _ in range(REPS):
            self._combines = {a: dict(c) for a, c in saved.items()}
            t0 = pc()
            a = f(self, addr)
            a = awaits(a)
            ts.append(pc() - t0)
        into.append(min(ts))
        if f is old_combines_of:
            ans, left = a, {k: set(v) for k, v in self._combines.items()}
        else:
            assert a == ans and left == {k: set(v) for k, v in self._combines.items()}
    self._combines = saved
    self.books.noted = saved
    n[0] += 1
    return new(self, addr)


hooks.Plugin._combines_of = timed
w = build("anomaly", 1000, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
             record_memory=False, processes=1)
T = len(r.trace.tasks)
print(f"{n[0]} calls ({n[0] / T:.2f} a task), answers and prunings equal")
for name, t in (("cpu37a", t_old), ("new", t_new)):
    print(f"{name:6s} median {statistics.median(t):7.0f} ns a call (min of {REPS}), "
          f"sum {sum(t) / T / 1000:6.2f} us a task")
