"""timeit of Books.place answering a root that every candidate refuses (the KEPT_STEP walk)
with books.ALL_REFUSED 0 (the walk) and 1 (the memo), at the sizes the twin anomaly 100 x 4
sees at scale 1 (bench/results/cpu39c-tools/memo_stats.py: ~58 candidates a walk, ~13 of
them refused by the combine view, answered again).
    (needs books.ALL_REFUSED: apply all_refused.patch here first, against 21de372)
    PYTHONPATH=src python bench/results/cpu39c-tools/timeit_all_refused.py [CANDIDATES] [VIEWED] [miss]"""
import math
import sys
import timeit

from tidegate import books as bm
from tidegate.books import Books
from tidegate.policy import Policy

n = int(sys.argv[1]) if len(sys.argv) > 1 else 58
viewed = int(sys.argv[2]) if len(sys.argv) > 2 else 13
# "miss": the last candidate's book changes before each place (its version bumped): the
# walk is made and the memo saved anew each time (ALL_REFUSED's cost where it is not used)
miss = len(sys.argv) > 3 and sys.argv[3] == "miss"


def setup():
    b = Books(Policy("tidegate", 1.0))
    ws = [f"w{i:03d}" for i in range(n)]
    for w in ws:
        b.add_worker(w, 4, math.inf)
        b.on_run(f"busy-{w}", w, False, "x", math.nan)
        # (the first ``viewed`` with room for more: refused by the combine view alone)
        for i in range(b.workers[w].cap - (3 if w in ws[:viewed] else 0)):
            b.on_run(f"r-{w}{i}", w, True, "r", math.nan)
    b.on_run("u-0", ws[0], True, "u", math.nan)
    b.on_finished("u-0", 1e8, (), False, True)  # a root's size known: no probe
    if viewed:
        # a combine view: the first ``viewed`` workers' refusals depend on it (refused by
        # the combine alone), answered the same at each ask
        noted = set(ws[:viewed])
        b.combines = lambda w: [(2, 2, True)] if w in noted else []
        b.noted = noted
    kw = {"lacks": {"v"}, "commits": True} if viewed else {}
    return b, ws, kw


import gc

runs = {}
for memo in (0, 1):
    bm.ALL_REFUSED = memo
    b, ws, kw = setup()
    for _ in range(3):
        assert b.place("u", math.nan, "u", {}, iter(ws), **kw) is None
    if memo:
        assert b._all_refused is not None, "no memo: the walk did not take KEPT_STEP's way"
        assert len(b._all_refused[5]) == viewed, b._all_refused[5]
    runs[memo] = (b, ws, kw, [])
number = 2000
gc.disable()
for _ in range(9):  # alternated: the machine is shared
    for memo, (b, ws, kw, times) in runs.items():
        bm.ALL_REFUSED = memo
        last = b.workers[ws[-1]]

        def once(b=b, ws=ws, kw=kw, last=last):
            if miss:
                last.version += 1
            return b.place("u", math.nan, "u", {}, iter(ws), **kw)

        times.append(timeit.timeit(once, number=number) / number * 1e6)
for memo, (b, ws, kw, times) in runs.items():
    times.sort()
    print(f"ALL_REFUSED={memo} candidates={n} viewed={viewed}{' miss' if miss else ''}: median {times[4]:.2f} us a "
          f"place (range {times[0]:.2f}-{times[-1]:.2f}, 9 x {number}, alternated)")
