"""(cpu39b, session 39) Admission._refresh's calls that change nothing: open or closed, and whether the book's fields it reads differ from the worker's previous look. python refresh_same.py WORKLOAD SCALE
(from the worktree root, PYTHONHASHSEED=0 PYTHONPATH=<src>)"""
import collections, sys
sys.path.insert(0, "bench")
import plugin_ops
from tidegate.distributed import admission
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale = sys.argv[1], float(sys.argv[2])
A = admission.Admission
c = collections.Counter()
def snap(self, addr):
    book = self.books.workers.get(addr)
    return (self._looked.get(addr), addr in self._open, self._epoch,
            self._free_key.get(addr), self._count.get(addr), addr in self._idle,
            None if book is None else book.held, self._ready.added, len(self._parked),
            len(self._parked_kept), addr in self._waiting_on)
o = A._refresh
prev = {}
def refresh(self, addr):
    b = snap(self, addr)
    book = self.books.workers.get(addr)
    fields = None if book is None else (book.processing, book.roots_processing, book.roots_untouched, book.cap, book.owed, book.held, book.estimated, book.budget, book.version, addr in self.books.expecting)
    o(self, addr)
    a = snap(self, addr)
    same = a == b
    sameinputs = prev.get(addr) == fields
    prev[addr] = fields
    c[(same, "open" if b[1] else "closed", "fields same as last refresh" if sameinputs else "fields differ")] += 1
A._refresh = refresh
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
for k, v in c.most_common(): print(f"{v/T:.3f}", k)
