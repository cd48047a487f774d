from tidegate import policy
from tidegate.sim import simulate
from tidegate.distributed import hooks, admission
import tidegate.distributed.placement as pl
n, w, t = 40, 2, 4
g = {("load", i): (lambda: None,) for i in range(n)}
g["total"] = (sum, [("load", i) for i in range(n)])
ev = []
P = hooks.Plugin
orig_tl, orig_poke, orig_dec = P._tail_listed, P._poke, P._decide
def now(self):
    return round(self.scheduler.loop.time(), 4) if hasattr(self.scheduler, "loop") else None
def tl(self, listed):
    out = list(orig_tl(self, listed))
    ev.append((now(self), "tail", self._ready.roots_queued(), out, {a[-3:]: b.processing for a, b in self.books.workers.items()}))
    return iter(out)
def pk(self, s, sid):
    ev.append((now(self), "poke", sid[:30], len(s.queued), bool(self._open), self._ready.roots_queued(), {a[-3:]: b.processing for a, b in self.books.workers.items()}))
    return orig_poke(self, s, sid)
def dec(self, ts, sid=None):
    out = orig_dec(self, ts, sid)
    ev.append((now(self), "decide", ts.key, out[0]))
    return out
P._tail_listed, P._poke, P._decide = tl, pk, dec
r, = simulate(g, keys=["total"], workers=w, threads_per_worker=t, latency=0.001, policy=["tidegate"],
              processes=1, durations=lambda k: 0.01 if k == "total" else 0.5, sizes=lambda k: 1e6, record_memory=False)
loads = sorted((x for x in r.trace.tasks if x.group == "load"), key=lambda x: x.start)
print("makespan", r.makespan)
for x in loads[-10:]:
    print(x.key, x.worker[-4:], x.thread, round(x.start, 3), round(x.stop, 3))
for e in ev:
    if e[0] is None or 1.4 < e[0] < 2.6:
        print(e)
