# small46 4(b): twin build() rechunk-add of STEPS on WxT, tidegate with its open-u / open-v
# roots forced (FORCE: none, one = a load a worker, u_i v_i side by side pairs: uv), queue.
import math, os, sys
from tidegate.distributed import placement as P
from tidegate.sim import simulate
from tidegate.sim.workloads import build
orig = P.Placement._place
def _place(self, ts, stimulus_id=None):
    mode = os.environ.get("FORCE", "none")
    k = ts.key
    if mode == "none" or not isinstance(k, tuple) or not k[0].startswith("open-"):
        return orig(self, ts, stimulus_id)
    s = self.scheduler
    addrs = sorted(s.workers, key=lambda a: int(a.split("-w")[1].split(":")[0]))
    W = len(addrs)
    arr = 0 if k[0] == "open-u" else 1
    i = k[1]
    if mode == "one":  # unit j = loads 2j, 2j+1 of both: u pair then v pair on 4 workers
        t = addrs[(4 * (i // 2) + 2 * arr + i % 2) % W]
    elif mode == "uv":  # u_i and v_i on one worker (the adds' inputs meet, merges' do not)
        t = addrs[i % W]
    return self.books.place(ts.key, math.nan, ts.group.name, {}, iter((t,)), stimulus_id,
                            set(), {}, {t}), {}
P.Placement._place = _place
steps, shape = int(sys.argv[1]), sys.argv[2]
W, T = map(int, shape.split("x"))
model = build("rechunk-add", steps, 190e6, store=True).model()
for seed in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1):
    q, = simulate(model, workers=W, threads_per_worker=T, seed=seed, policy=["queue"], processes=1)
    print("seed", seed, "queue", round(q.makespan, 3), max(q.peak_memory_per_worker) // 1e6,
          "moved", q.bytes_transferred // 1e6, flush=True)
    for m in ("none", "one", "uv"):
        os.environ["FORCE"] = m
        r, = simulate(model, workers=W, threads_per_worker=T, seed=seed, policy=["tidegate"],
                      processes=1)
        print("  ", m, round(r.makespan, 3), f"({r.makespan / q.makespan:.3f}x)",
              [round(x / 1e6) for x in r.peak_memory_per_worker],
              f"({max(r.peak_memory_per_worker) / max(q.peak_memory_per_worker):.3f}x)",
              "moved", round(r.bytes_transferred / 1e6), flush=True)
