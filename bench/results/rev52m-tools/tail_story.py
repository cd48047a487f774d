"""The trace behind TAIL_THREAD_FREE's tail gaps: a delayed(sum) of 40 loads of 0.5 s on
2 x 4; every poke (virtual time, stimulus, dask's queue, open workers?, roots in line,
books' processing a worker), every _tail_listed answer and every _decide of a load.

    PYTHONPATH=src python tail_story.py
"""
from tidegate.distributed import hooks
from tidegate.sim import simulate

n, w, t = 40, 2, 4
g = {("load", i): (lambda: None,) for i in range(n)}
g["total"] = (sum, [("load", i) for i in range(n)])
ev = []
P = hooks.Plugin
orig_tl, orig_poke, orig_dec = P._tail_listed, P._poke, P._decide


def now(self):
    return round(self.scheduler.loop.time(), 4)


def procs(self):
    return {a[-3:]: b.processing for a, b in self.books.workers.items()}


def tl(self, listed):
    out = list(orig_tl(self, listed))
    ev.append((now(self), "tail", self._ready.roots_queued(), out, procs(self)))
    return iter(out)


def pk(self, s, sid):
    ev.append((now(self), "poke", sid[:30], len(s.queued), bool(self._open),
               self._ready.roots_queued(), procs(self)))
    return orig_poke(self, s, sid)


def dec(self, ts, sid=None):
    out = orig_dec(self, ts, sid)
    ev.append((now(self), "decide", ts.key, out[0]))
    return out


P._tail_listed, P._poke, P._decide = tl, pk, dec
r, = simulate(g, keys=["total"], workers=w, threads_per_worker=t, latency=0.001,
              policy=["tidegate"], processes=1, record_memory=False,
              durations=lambda k: 0.01 if k == "total" else 0.5, sizes=lambda k: 1e6)
loads = sorted((x for x in r.trace.tasks if x.group == "load"), key=lambda x: x.start)
print("makespan", r.makespan)
for x in loads[-10:]:
    print(x.key, x.worker[-4:], x.thread, round(x.start, 3), round(x.stop, 3))
for e in ev:
    if 1.4 < e[0] < 2.6:
        print(e)
