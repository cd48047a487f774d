"""(cpu48) test_plugin_remembered's audited run outside pytest: Books.audit on, the plugin's errors and audited kinds printed. PYTHONPATH=<src> python audit_run.py W STEPS WORKERS"""
import sys
from tidegate.books import Books
from tidegate.distributed import hooks
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
Books.audit = True
plugins = []
inst = hooks.Plugin.install
def rec(self, scheduler, apply=None):
    plugins.append(self); return inst(self, scheduler, apply)
hooks.Plugin.install = rec
name, steps, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
w = build(name, steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
p, = plugins
print(name, steps, workers, "errors", len(p.errors), p.errors[:1])
print(dict(p.books.audited))
