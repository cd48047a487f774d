"""(cpu37c) Books.place's inclusive time (thread CPU time around every call: its admits
closure, _admits, books.awaits -> the body's _combines_of) in one twin run, with the src on
PYTHONPATH; plus the asks of the body's view (_combines_of calls). Alternate trees with
time_place.sh. python bench/results/cpu37c-tools/time_place.py [WORKLOAD STEPS WORKERS]"""
import sys, time
from tidegate import books
from tidegate.distributed import hooks
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
workers = int(sys.argv[3]) if len(sys.argv) > 3 else 100
acc = [0, 0, 0]
place, comb = books.Books.place, hooks.Plugin._combines_of
pc = time.thread_time_ns  # (CPU time: the machine is shared)


def timed(*a, **k):
    t0 = pc()
    try:
        return place(*a, **k)
    finally:
        acc[0] += pc() - t0
        acc[1] += 1


def counted(self, addr):
    acc[2] += 1
    return comb(self, addr)


books.Books.place = timed
hooks.Plugin._combines_of = counted
w = build(name, steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False, processes=1)
T = len(r.trace.tasks)
print(f"{books.__file__} tasks {T} place calls {acc[1]} asks {acc[2]} "
      f"place {acc[0] / T / 1000:.2f} us a task")
