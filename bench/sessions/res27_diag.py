"""res27 (issue 9): why the LocalCluster's resample-store holds more than the twin. One run
of a probe24 workload on a LocalCluster (2 x 1 by default) in each mode given, recording
over time, per worker:
- from the workers (a WorkerPlugin): every transition's time, and the loads (``open_dataset``
  keys) in memory on the worker then, with its managed bytes; at its peak managed bytes,
  which keys it held;
- from the scheduler (in-process with LocalCluster): every task's start/end on its worker,
  and for tidegate the books of the worker a root goes to when it is sent there
  (roots_processing, untouched, owed, passes), and why it was let in (the admission path).

    python bench/sessions/res27_diag.py resample-store tidegate,queue [--workers 2] [--out F.json]

Prints a per-worker timeline of loads (start, end, released) and what was held at the peak.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
import probe24_cluster as p  # noqa: E402
import dask  # noqa: E402
from dask.utils import key_split  # noqa: E402
from distributed import Client, LocalCluster, SchedulerPlugin, WorkerPlugin, wait  # noqa: E402

import tidegate.books as B  # noqa: E402
import tidegate.distributed as td  # noqa: E402
from tidegate.testing import QUIET_MEMORY  # noqa: E402

ROOT = "open_dataset"


class Held(WorkerPlugin):
    name = "res27-held"

    def setup(self, worker):
        self.w = worker
        self.t0 = time.time()
        self.events = []  # (t, key, start, finish, loads in memory, managed)
        self.peak = 0
        self.at_peak = None

    def transition(self, key, start, finish, **kw):
        st = self.w.state
        if ROOT in str(key) or finish == "memory" or start == "memory":
            loads = sum(1 for k, ts in st.tasks.items() if ts.state == "memory" and ROOT in str(k))
            self.events.append((time.time(), str(key), start, finish, loads, st.nbytes))
        if st.nbytes > self.peak:
            self.peak = st.nbytes
            self.at_peak = sorted((str(k), ts.nbytes) for k, ts in st.tasks.items()
                                  if ts.state == "memory")


def _get(dask_worker):
    pl = dask_worker.plugins["res27-held"]
    return {"events": pl.events, "peak": pl.peak, "at_peak": pl.at_peak}


class Sched(SchedulerPlugin):
    """Start and end of each task on its worker, with the tidegate books of that worker."""
    name = "res27-sched"

    def __init__(self, scheduler):
        self.events = []
        self.s = scheduler

    def transition(self, key, start, finish, *args, **kw):
        ts = self.s.tasks.get(key)
        if ts is None:
            return
        w = None
        if finish == "processing" and ts.processing_on is not None:
            w = ts.processing_on.address
        elif start == "processing":
            w = kw.get("worker")
        book = None
        tg = self.s.plugins.get("tidegate")
        if tg is not None and w is not None:
            b = tg.books.workers.get(w)
            if b is not None:
                book = (b.roots_processing, b.roots_untouched, b.owed, b.passes, b.processing)
        self.events.append((time.time(), str(key), start, finish, w, book))


WHY = collections.Counter()
_orig = B.may_admit_root


def _why(rp, ru, cap, cc, held, est, budget, idle, owed=0, beside=False, queued=0,
         passes=0, pass_cap=float("inf")):
    r = _orig(rp, ru, cap, cc, held, est, budget, idle, owed, beside, queued, passes, pass_cap)
    if r:
        if idle:
            WHY["idle"] += 1
        elif beside and not (rp + ru + owed < cap):
            WHY["beside"] += 1
        elif rp + ru + owed < cap:
            WHY["count"] += 1
        else:
            WHY[f"completes(passes={passes})"] += 1
    return r


B.may_admit_root = _why


def short(k):
    # ('open_dataset-u-<tok>', 3, 0, 0) -> u3
    for v in ("-u-", "-v-"):
        if ROOT + v in k:
            parts = k.split(",")
            return v[1] + (parts[1].strip() if len(parts) > 1 else "?")
    return key_split(k)[:14]


def one(name, mode, workers, threads):
    WHY.clear()
    x = p.WORKLOADS[name]()
    with dask.config.set({**QUIET_MEMORY}), LocalCluster(
            n_workers=workers, threads_per_worker=threads, processes=True, memory_limit=0,
            dashboard_address=":0") as c, Client(c) as cl:
        cl.register_plugin(Held())
        sp = Sched(c.scheduler)
        c.scheduler.add_plugin(sp)
        if mode == "tidegate":
            cl.register_plugin(td.Plugin())
        t0 = time.time()
        f = cl.compute(x)
        wait(f)
        wall = time.time() - t0
        r = cl.run(_get)
        log = []
        tg = c.scheduler.plugins.get("tidegate")
        if tg is not None:
            log = [tuple(map(str, e)) for e in tg.books.log]
    return {"name": name, "mode": mode, "wall": wall, "t0": t0, "why": dict(WHY),
            "workers": r, "sched": sp.events, "log": log}


def report(res):
    t0 = res["t0"]
    print(f"== {res['name']} {res['mode']} wall {res['wall']:.1f} s  admissions {res['why']}")
    for w, v in res["workers"].items():
        print(f" worker {w[-5:]}: peak managed {v['peak'] / 2**20:.1f} MB; "
              "loads in memory at peak:",
              [short(k) for k, _ in v["at_peak"] if ROOT in k],
              "others:",
              collections.Counter(key_split(k) for k, _ in v["at_peak"] if ROOT not in k))
        mx = max((e[4] for e in v["events"]), default=0)
        print(f"   most loads in memory at once: {mx}")
    # timeline of loads per worker, from the scheduler: sent (processing), done (memory)
    byw = collections.defaultdict(list)
    for t, k, s, f, w, book in res["sched"]:
        if ROOT in k and f == "processing":
            byw[w].append(f"{t - t0:5.2f} +{short(k)}{'' if book is None else list(book)}")
        elif ROOT in k and s == "processing" and f == "memory":
            byw[w].append(f"{t - t0:5.2f} ={short(k)}")
        elif ROOT in k and s == "memory":
            byw[None].append(f"{t - t0:5.2f} -{short(k)}")
    for w, lines in byw.items():
        print(f" scheduler's view, {'any worker' if w is None else w[-5:]} "  # None: releases
              "(+ sent [rp, untouched, owed, passes, processing] before, = done):")
        for i in range(0, len(lines), 6):
            print("   " + "  ".join(lines[i:i + 6]))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("modes")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    p.make_inputs()
    out = []
    for mode in a.modes.split(","):
        res = one(a.name, mode, a.workers, a.threads)
        out.append(res)
        if a.out:
            with open(a.out, "w") as f:
                json.dump(out, f)
        report(res)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
