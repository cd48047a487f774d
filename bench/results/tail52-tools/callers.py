import sys, traceback, collections
from tidegate import books as B
from tidegate.sim import simulate
from tidegate.sim.workloads import build
cnt = collections.Counter()
orig = B.Books.place
def place(self, *a, **kw):
    st = traceback.extract_stack(limit=6)[:-1]
    r = orig(self, *a, **kw)
    cnt[(tuple(f"{f.name}:{f.lineno}" for f in st[-3:]), r is not None)] += 1
    return r
B.Books.place = place
name, steps, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
W, T = map(int, shape.split("x"))
model = build(name, steps, 190e6, store=True).model()
r, = simulate(model, workers=W, threads_per_worker=T, seed=0, policy=["tidegate"], record_memory=False, processes=1)
for k, v in cnt.most_common(): print(v, k)
