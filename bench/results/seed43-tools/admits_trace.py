"""booklog.py with every Books._admits answer printed before the log (the first 40): the
worker's roots processing / untouched / owed against its cap, which refused a root.

    PYTHONPATH=src python bench/results/seed43-tools/admits_trace.py SHAPE LAG SEED [booklog's]
"""
import os
import runpy
import sys

from tidegate import books as B

o = B.Books._admits
cnt = [0]


def adm(self, book, w, task, est, *a, **k):
    r = o(self, book, w, task, est, *a, **k)
    cnt[0] += 1
    if cnt[0] < 40:
        print("ADMITS", r, str(task)[:60], w[-4:], dict(
            rp=book.roots_processing, ru=book.roots_untouched, owed=book.owed, cap=book.cap,
            proc=book.processing, thr=book.threads), a[:4])
    return r


B.Books._admits = adm
sys.argv = ["booklog"] + sys.argv[1:]
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "booklog.py"),
               run_name="__main__")
