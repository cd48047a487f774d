# small46: the twin build() workload's trace, tidegate (and queue with -q), switches per run:
# python tr.py NAME STEPS WxT [X=V ...] [-q] [--pc: every Books.place printed]
import sys
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build

name, steps, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for a in sys.argv[4:]:
    if "=" in a:
        k, v = a.split("=")
        setattr(policy, k, eval(v))
if "--pc" in sys.argv:
    from tidegate import books as B
    orig = B.Books.place

    def place(self, task, known, group, partners, candidates, stimulus_id=None, *a, **kw):
        import traceback
        cands = list(candidates)
        out = orig(self, task, known, group, partners, iter(cands), stimulus_id, *a, **kw)
        fr = traceback.extract_stack(limit=3)[-2]
        print("PLACE", str(task)[:40], "->", out and out[-4:], "partners",
              {k[-4:]: v for k, v in partners.items()}, "cands", [c[-4:] for c in cands],
              "args", [x if not isinstance(x, (set, dict)) else sorted(str(y)[-4:] for y in x)
                       for x in a[1:]], {k: v for k, v in kw.items() if k != "lacks"},
              "from", fr.lineno, fr.name)
        return out
    B.Books.place = place
    orig_adm = B.Books._admits

    def _admits(self, book, w, task, est, cc, sid, *a, **kw):
        out = orig_adm(self, book, w, task, est, cc, sid, *a, **kw)
        print("  ADMIT", str(task)[:40], w[-4:], out, "cc", cc, "est %.0f" % (est / 1e6), a,
              "proc", book.processing, "rp", book.roots_processing, "ru",
              book.roots_untouched, "cap", book.cap)
        return out
    B.Books._admits = _admits
W, T = map(int, shape.split("x"))
w = build(name, steps, 190e6, store=True)
model = w.model()
pols = ["queue", "tidegate"] if "-q" in sys.argv else ["tidegate"]
for pol in pols:
    r, = simulate(model, workers=W, threads_per_worker=T, seed=0, policy=[pol],
                  record_memory=False, processes=1)
    print("==", pol, "makespan", round(r.makespan, 3),
          [round(x / 1e6) for x in r.peak_memory_per_worker],
          "moved", round(r.bytes_transferred / 1e6))
    for t in sorted(r.trace.tasks, key=lambda t: t.start):
        print("  %-60s %s %.3f %.3f" % (str(t.key)[:60], t.worker[-6:] if isinstance(t.worker, str)
                                      else t.worker, t.start, t.stop))
