# ra45: pc.py for any twin workload (python pc2.py STEPS WORKERS NAME CONSTANT_HANDLES THREADS)
import sys
from tidegate import books as B
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.sim.model import build_model
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 4
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 4
orig_place = B.Books.place
def place(self, task, known, group, partners, candidates, stimulus_id=None, *a, **kw):
    cands = list(candidates)
    out = orig_place(self, task, known, group, partners, iter(cands), stimulus_id, *a, **kw)
    import traceback
    fr = traceback.extract_stack(limit=3)[-2]
    print("PLACE", str(task)[:22], "->", out and out[-4:], "partners", {k[-4:]: v for k, v in partners.items()},
          "cands", [c[-4:] for c in cands], "lacks", sorted(str(x)[:22] for x in (a[0] if a else kw.get("lacks")) or ()),
          "args", a[1:], {k: v for k, v in kw.items() if k != "lacks"}, "from", fr.lineno, fr.name)
    return out
B.Books.place = place
orig_adm = B.Books._admits
def _admits(self, book, w, task, est, cc, sid, *a, **kw):
    out = orig_adm(self, book, w, task, est, cc, sid, *a, **kw)
    print("  ADMIT", str(task)[:22], w[-4:], out, "cc", cc, "est %.0f" % (est/1e6), "a", a, kw, "proc", book.processing,
          "rp", book.roots_processing, "ru", book.roots_untouched, "owed", book.owed, "cap", book.cap, "held %.0f" % ((book.held+book.estimated)/1e6), "budget %.0f" % (book.budget/1e6))
    return out
B.Books._admits = _admits
from tidegate import policy
policy.CONSTANT_HANDLES=int(sys.argv[4]); policy.PAIR_SPREAD=0
w = build(sys.argv[3], steps, 190e6, store=True)
model = w.model()
r, = simulate(model, workers=workers, threads_per_worker=int(sys.argv[5]), seed=0, policy=["tidegate"], record_memory=False, processes=1)
print("makespan", r.makespan, [round(x/1e6) for x in r.peak_memory_per_worker])
