"""What a worker holds at its peak, for queue and tidegate on the tie graph: per policy
the peak worker, the peak's time, and the keys held then (by prefix), plus the task
timeline of that worker up to the peak.
usage: peak_trace.py N SHAPE MB SEED [switch=value ...]"""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tidegate.policy as P
from tidegate.sim import worker as simworker
from tie_probe import run

n, shape, mb, seed = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
for a in sys.argv[5:]:
    if a.startswith("trial="):  # a trial form from trials.py
        import trials
        trials.install(a.split("=", 1)[1])
        continue
    k, v = a.split("=")
    setattr(P, k, int(v))
snaps = {}
orig = simworker.SimWorker.handle_stimulus if hasattr(simworker, "SimWorker") else None
cls = [c for c in vars(simworker).values() if isinstance(c, type) and hasattr(c, "sample")
       and hasattr(c, "handle_stimulus")][0]
orig = cls.handle_stimulus


def wrapped(self, *events):
    orig(self, *events)
    held = self.state.nbytes
    best = snaps.get(self.address)
    if best is None or held > best[0]:
        data = sorted(str(k) for k in self.state.data)
        snaps[self.address] = (held, self.clock.now, data,
                               [(str(t.key), t.state) for t in self.state.tasks.values()
                                if t.state in ("executing", "ready", "waiting", "flight",
                                               "fetch", "constrained")])


cls.handle_stimulus = wrapped
for pol in ("queue", "tidegate"):
    snaps.clear()
    r = run(n, shape, pol, seed, mb * 1e6)
    w, (held, t, data, pending) = max(snaps.items(), key=lambda kv: kv[1][0])
    print(f"== {pol} time {r.makespan:.3f} peak {held/1e6:.0f} MB on {w[-6:]} at {t:.3f} "
          f"moved {r.bytes_transferred/1e6:.0f}")
    groups = {}
    for k in data:
        groups.setdefault(k.split("'")[1], []).append(k.split(",")[-1].strip(" )"))
    for g, ks in sorted(groups.items()):
        print(f"   holds {g}: {len(ks)} {' '.join(ks)}")
    pend = {}
    for k, st in pending:
        pend.setdefault(st, []).append(k.split("'")[1] + k.split(",")[-1].strip(" )"))
    for st, ks in pend.items():
        print(f"   {st}: {' '.join(sorted(ks))}")
    ts = sorted((x for x in r.trace.tasks if x.worker == w and x.start <= t + 1e-9),
                key=lambda x: x.start)
    print("   ran:", " ".join(f"{x.key.strip('()').replace(', ', '').replace(chr(39), '')}"
                             f"@{x.start:.2f}-{x.stop:.2f}" for x in ts))
    ins = [x for x in r.trace.transfers if x.dest == w and x.start <= t]
    outs = [x for x in r.trace.transfers if x.source == w and x.start <= t]
    print("   in:", " ".join(f"{x.key.strip('()').replace(', ', '').replace(chr(39), '')}"
                            f"@{x.start:.2f}-{x.stop:.2f}" for x in ins))
    print("   out:", " ".join(f"{x.key.strip('()').replace(', ', '').replace(chr(39), '')}"
                             f"@{x.start:.2f}-{x.stop:.2f}" for x in outs))
