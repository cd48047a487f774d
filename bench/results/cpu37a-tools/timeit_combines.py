"""(cpu37a) Plugin._combines_of + books.awaits, base (main 36814c4's, copied below) against
this tree's, timed on the calls a real run makes (twin anomaly 100x4 1,000 steps: at each
call, both run REPS times on copies of the noted combines, their answers compared, then the
real call goes on). Median ns a call each, and the sum over the run's calls per task.
python bench/results/cpu37a-tools/timeit_combines.py [REPS]"""
import statistics, sys, time
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.distributed import hooks
from tidegate.distributed.tasks import _on_their_way
from tidegate.policy import awaits_combine

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def old_combines_of(self, addr) -> list:  # main 36814c4's
    combs = self._combines.get(addr)
    if not combs:
        return []
    out = []
    for key, d in list(combs.items()):
        state = d.state
        if state == "waiting":
            held: dict = {}
            for x in d.dependencies:
                for ws in x.who_has or ():
                    held[ws.address] = held.get(ws.address, 0) + 1
                ws = x.processing_on
                if ws is not None:
                    held[ws.address] = held.get(ws.address, 0) + 1
            here = held.get(addr, 0)
            if here:
                out.append((here, max(held.values()), _on_their_way_old(d, 4)))
                continue
        del combs[key]
    if not combs:
        del self._combines[addr]
    return out


def _on_their_way_old(ts, depth):
    for x in ts.dependencies:
        state = x.state
        if state == "memory" or state == "processing":
            continue
        if state != "waiting" or depth <= 1 or not _on_their_way_old(x, depth - 1):
            return False
    return True


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
            a = awaits(f(self, addr))
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
for name, t in (("base", t_old), ("new", t_new)):
    print(f"{name:5s} median {statistics.median(t):7.0f} ns a call (min of {REPS}), "
          f"sum {sum(t) / T / 1000:6.2f} us a task")
