"""python cuts.py BUILD.pkl WxT SEED [NAME=V ...]: every Placement._cut_holder call (time,
key, dask's choice and the holder with their books: processing, held MB; the answer), where
each shuffle-split ran and whether its chunk was copied there, and each worker's peak (twin
held MB, time). grp49: the groupby store's shuffle-splits."""
import collections
import sys

import cloudpickle
from dask.utils import key_split

import tidegate.distributed.placement as PL
import tidegate.policy as P
import tidegate.sim.worker as simworker
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
for kv in sys.argv[4:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
CLOCK = [None]
PEAK = {}
cls = simworker.SimWorker
h = cls.handle_stimulus


def hs(self, *ev):
    CLOCK[0] = self.clock
    o = h(self, *ev)
    n = self.state.nbytes
    if n > PEAK.get(self.address, (0,))[0]:
        PEAK[self.address] = (n, self.clock.now)
    return o


cls.handle_stimulus = hs
CALLS = []
DEPS = []
orig = PL.Placement._cut_holder


def cut(self, ts, ws):
    at = orig(self, ts, ws)
    b = self.books.workers
    big = [d for d in ts.dependencies if d.nbytes > 0 and P.pulls_consumer(d.nbytes, self.books.roots_max)]
    hold = [hh.address for d in big for hh in d.who_has or ()]
    DEPS.append([(key_split(d.key)[:20], round(d.nbytes / 1e6, 2), len(d.dependents)) for d in ts.dependencies])
    CALLS.append((CLOCK[0].now if CLOCK[0] else 0, ts.key, ws.address,
                  b[ws.address].processing, round(b[ws.address].held / 1e6),
                  [(a.split('-')[-1], b[a].processing, round(b[a].held / 1e6)) for a in hold],
                  at.address if at is not None else None))
    return at


PL.Placement._cut_holder = cut
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
print("makespan", round(r.makespan, 3), "peaks", {a[-5:]: (round(p / 1e6), round(tm, 3))
                                                  for a, (p, tm) in sorted(PEAK.items())})
ran = {e.key: (e.worker, e.start, e.stop) for e in r.trace.tasks}
moved = collections.defaultdict(list)
for x in r.trace.transfers:
    moved[str(x.key)].append((x.dest.split('-')[-1], round(x.start, 3), round(x.stop, 3), round(x.nbytes / 1e6)))
print("t key | dask's choice proc held | holders (w proc held) | answer | ran")
for c, dd in zip(CALLS, DEPS):
    k = str(c[1])
    if key_split(c[1]) != "shuffle-split" and c[6] is None:
        continue
    wk, st, sp = ran.get(k, ("?", 0, 0))
    print(f"{c[0]:.3f} {key_split(c[1])[:24]:24s} {k[-14:]:14s} | {c[2].split('-')[-1]} {c[3]:3d} {c[4]:4d} | {c[5]} | "
          f"{(c[6] or '-').split('-')[-1]} | {wk.split('-')[-1]} {st:.3f}-{sp:.3f} | {dd}")
print("shuffle-splits: chunk copied to the split's worker")
S = {str(k): k for k in dsk}
from dask.core import get_dependencies  # noqa: E402
for k, (wk, st, sp) in sorted(ran.items(), key=lambda i: i[1][1]):
    if key_split(k) != "shuffle-split":
        continue
    deps = [str(d) for d in get_dependencies(dsk, S[k])]
    chunk = [d for d in deps if max(size.get(d, 0), size.get(S.get(d), 0)) > 1e6]
    cp = [m for d in chunk for m in moved.get(d, ()) if m[0] == wk.split('-')[-1]]
    src = [ran[d][0].split('-')[-1] for d in chunk if d in ran]
    print(f"  {k[-30:]:30s} on {wk.split('-')[-1]} {st:.3f} chunk made on {src} copies here {cp}")
