"""KEPT_SHARE's cost per decision: the tasks _of_group walks (a worker's processing and
has_what) within Placement._kept_share and _past_share_at, per call and per task, on the
twin's anomaly (build(), 190 MB, store form); queue vs tidegate KEPT_SHARE 0 / 3.

  PYTHONPATH=src python probe_kept.py --steps 400,1000 --shapes 8x4,2x2 [--kw "{...}"]
"""
import argparse

from tidegate import policy
from tidegate.distributed import held_choice
from tidegate.sim import simulate
from tidegate.sim.workloads import build

ap = argparse.ArgumentParser()
ap.add_argument("--steps", default="400")
ap.add_argument("--shapes", default="8x4")
ap.add_argument("--name", default="anomaly")
ap.add_argument("--chunk", type=float, default=190e6)
ap.add_argument("--kw", default="{}")
ap.add_argument("--seed", type=int, default=0)
a = ap.parse_args()
kw = eval(a.kw)

st = {"bound_skips": 0, "kept_calls": 0, "past_calls": 0, "walked": 0, "of_group": 0, "placed": 0}
where = []
of_group = held_choice._of_group


def counting(ws, group):
    if where:
        st["of_group"] += 1
        st["walked"] += len(ws.processing) + len(ws.has_what)
    return of_group(ws, group)


held_choice._of_group = counting
P = held_choice.HeldChoice
kept, past = P._kept_share, P._past_share_at


def kept_w(self, *args):
    st["kept_calls"] += 1
    ts, partners = args[0], args[1]
    p = max(partners, key=partners.__getitem__)
    ws = self.scheduler.workers.get(p)
    share = -(-len(ts.group) // len(self.scheduler.running))
    if ws is not None and len(ws.processing) + len(ws.has_what) < share:
        st["bound_skips"] = st.get("bound_skips", 0) + 1
    where.append(1)
    try:
        out = kept(self, *args)
    finally:
        where.pop()
    st["placed"] += out is not None
    return out


def past_w(self, *args):
    st["past_calls"] += 1
    ts, w = args
    ws = self.scheduler.workers.get(w)
    share = -(-len(ts.group) // len(self.scheduler.running))
    if ws is not None and len(ws.processing) + len(ws.has_what) < share:
        st["bound_skips"] = st.get("bound_skips", 0) + 1  # (an exact cheap bound: no walk)
    where.append(1)
    try:
        return past(self, *args)
    finally:
        where.pop()


P._kept_share, P._past_share_at = kept_w, past_w
for steps in map(int, a.steps.split(",")):
    model = build(a.name, steps, a.chunk, store=True).model()
    ntasks = len(model.keys) if hasattr(model, "keys") else None
    for shape in a.shapes.split(","):
        w, t = map(int, shape.split("x"))
        q, = simulate(model, workers=w, threads_per_worker=t, seed=a.seed, policy=["queue"],
                      record_memory=False, processes=1, **kw)
        out = []
        for v in (0, 3):
            policy.KEPT_SHARE = v
            for k in st:
                st[k] = 0
            d, = simulate(model, workers=w, threads_per_worker=t, seed=a.seed,
                          policy=["tidegate"], record_memory=False, processes=1, **kw)
            n = len(d.trace.tasks) if getattr(d, "trace", None) is not None else 0
            out.append("K%d time %.3f peak %.3f bytes %.2f %s tasks %d" % (
                v, d.makespan / q.makespan,
                max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker),
                d.bytes_transferred / max(q.bytes_transferred, 1), dict(st), n))
        policy.KEPT_SHARE = 3
        print(f"{a.name} {steps} {shape}: " + " | ".join(out), flush=True)
