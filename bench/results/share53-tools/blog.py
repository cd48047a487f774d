# anom51: the books' whole log of one twin run of build(NAME, STEPS) (190 MB, simulate's
# defaults), tidegate, seed S; switches X=V.  python blog.py anomaly 24 4x4 [S] [X=V ...]
import sys
from collections import deque
from tidegate import policy
from tidegate import books as B
from tidegate.sim import simulate
from tidegate.sim.workloads import build
name, steps, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seed = 0
for a in sys.argv[4:]:
    if "=" in a:
        k, v = a.split("=")
        setattr(policy, k, eval(v))
    else:
        seed = int(a)
import os
for p in os.environ.get("PATCH", "").split(","):
    if p:
        exec(open(p).read())
made = []
orig = B.Books.__init__
def init(self, *a, **kw):
    orig(self, *a, **kw)
    self.log = deque(maxlen=None)
    made.append(self)
B.Books.__init__ = init
W, T = map(int, shape.split("x"))
model = build(name, steps, 190e6, store=True).model()
r, = simulate(model, workers=W, threads_per_worker=T, seed=seed, policy=["tidegate"],
              record_memory=False, processes=1)
def sh(x):
    s = str(x).replace("tcp://twin-", "").replace("'open-u', ", "u")
    return s
for b in made:
    for e in b.log:
        print(" ".join(sh(x) for x in e)[:200])
print("makespan", round(r.makespan, 3), [round(x / 1e6) for x in r.peak_memory_per_worker])
