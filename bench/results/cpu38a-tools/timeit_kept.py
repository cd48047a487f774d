"""(cpu38a) Books.place for a root without partners refused by every candidate, its
refusals kept (the twin anomaly's openers: ~33-60 free workers asked a call, 4.4 kept
refusals a task at 100 x 4, 1,000 steps): time a call with every refusal kept, with and
without the body's view of combines noted (``awaited``). Run with each tree:
PYTHONPATH=<src> python bench/results/cpu38a-tools/timeit_kept.py [CANDIDATES]"""
import math, sys, time, timeit
from tidegate.books import Books
import tidegate.books as books_module

n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
b = Books(log_size=10**8)
ws = [f"w{i}" for i in range(100)]
for w in ws:
    book = b.add_worker(w, 4, math.inf)
    for k in range(book.cap):
        b.on_run(f"{w}-r{k}", w, True, "g", 1e6)
    b.on_run(f"{w}-x", w, False, "x", math.nan)
cands = ws[:n]
out = {}
for view in (False, True):
    if view:
        b.combines = lambda w: None
        b.noted = {}
        kw = dict(lacks={"other"}, commits=True)
    else:
        kw = {}
    assert b.place("r", math.nan, "g", {}, list(cands), None, **kw) is None
    b.log.clear()
    t = min(timeit.repeat(lambda: b.place("r", math.nan, "g", {}, iter(cands), None, **kw),
                          number=2000, repeat=7, timer=time.thread_time)) / 2000
    assert all(e[1] == "withheld" for e in b.log) and len(b.log) == 7 * 2000 * n
    b.log.clear()
    out[view] = t
print(f"{books_module.__file__} KEPT_STEP={getattr(books_module, 'KEPT_STEP', '-')} "
      f"candidates {n}: {out[False] * 1e6:.2f} us a call ({out[False] / n * 1e9:.0f} ns a "
      f"refusal); with the view noted {out[True] * 1e6:.2f} us ({out[True] / n * 1e9:.0f} ns)")
