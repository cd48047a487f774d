"""Every Books.place of a root in a build() workload's twin run: the caller, the partners
asked, the answer, and the virtual time (the scheduler's clock).
PYTHONPATH=src python places.py NAME STEPS SHAPE [SEED] [--patch FILE] [--grep open]"""
import runpy
import sys
import time as _t
import traceback

from tidegate import books as B
from tidegate.sim import simulate
from tidegate.sim.workloads import build

args = sys.argv[1:]
while "--patch" in args:
    i = args.index("--patch")
    runpy.run_path(args[i + 1])
    del args[i:i + 2]
pat = None
if "--grep" in args:
    i = args.index("--grep")
    pat = args[i + 1]
    del args[i:i + 2]
name, steps, shape = args[0], int(args[1]), args[2]
seed = int(args[3]) if len(args) > 3 else 0
orig = B.Books.place
clock = [None]


def place(self, task, known, group, partners, candidates, *a, **kw):
    candidates = list(candidates)
    st = traceback.extract_stack(limit=4)[:-1]
    r = orig(self, task, known, group, partners, candidates, *a, **kw)
    if pat is None or pat in str(task):
        now = clock[0]() if clock[0] else 0
        print(f"{now:8.3f} {str(task)[:40]:40} -> {r} partners {dict(partners)} "
              f"lacks {len(kw.get('lacks') or ())} via {st[-2].name}:{st[-2].lineno}")
    return r


B.Books.place = place
from tidegate.distributed import install as I  # noqa: E402
_inst = I.Install._install if hasattr(I, "Install") else None
model = build(name, steps, 190e6, store=True).model()
W, T = map(int, shape.split("x"))
import distributed.scheduler as DS  # noqa: E402
_orig_time = _t.time
clock[0] = lambda: DS.time() if hasattr(DS, "time") else 0
r, = simulate(model, workers=W, threads_per_worker=T, seed=seed, policy=["tidegate"],
              record_memory=False, processes=1)
print("makespan", r.makespan)
