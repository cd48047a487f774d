"""slow48b: PACE_LAST in place of IDLE_TOP (fires = the gate said leave it). slow48: jit.py (slow46) with IDLE_TOP in place of IDLE_WAKE: fires = idle_takes' IDLE_TOP
operand tested (the IDLE_HELD test failed, the pace test passed); MOVED against IDLE_TOP 0.
Equal-speed workers, every task's duration jittered (x U(1-j, 1+j), drawn per key from a
seeded generator): how often IDLE_WAKE's wake runs (Admission._refresh's branch entered) and
whether the schedule moves against IDLE_WAKE 0, in the same process.

    PYTHONPATH=SRC python jit.py [--jitter 0.2,0.4] [--seeds 6] [--workers 2,3,4]
        [--steps 12,24] [--threads 1] [--tag T] [--out OUT.jsonl]
switches from env SW="NAME=V,..." (as tsw42.py). One line per run.
"""
import argparse, json, os, random, sys

from tidegate import policy
for kv in filter(None, os.environ.get("SW", "").split(",")):
    k, v = kv.split("=")
    assert hasattr(policy, k), k
    setattr(policy, k, float(v) if "." in v else int(v))
BENCH = os.environ.get("BENCH", "/work/wt/slow48b/bench")
sys.path.insert(0, BENCH)
import twin_slow_worker as T
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

FIRES = [0]
from tidegate.distributed import placement as _PL
def _count(f):
    def g(*a):
        r = f(*a)
        FIRES[0] += bool(r) and bool(policy.PACE_LAST)
        return r
    return g
_PL.paced_move_waits = _count(_PL.paced_move_waits)
_PL._moved_with = _count(_PL._moved_with)


class Counted(int):
    """IDLE_WAKE's value, counting the truth tests made in Admission._refresh (the wake's
    branch: its other operands were true)."""
    def __bool__(self):
        if sys._getframe(1).f_code.co_name == "idle_takes" and int(self):
            FIRES[0] += 1
        return bool(int(self))


def one(steps, workers, threads, jitter, seed, wake):
    w = build("anomaly", steps, 32e6, store=False)
    model = build_model(w.graph, w.keys, sizes={**(w.sizes or {}), **T.REAL_SIZES},
                        durations=w.durations)
    rnd = random.Random(f"jit-{seed}")
    for k in sorted(model.durations, key=repr):
        model.durations[k] *= 1 + jitter * (2 * rnd.random() - 1)
    policy.PACE_LAST = wake
    FIRES[0] = 0
    r, = simulate(model, workers=workers, threads_per_worker=threads, policy=["tidegate"],
                  bandwidth=200e6, processes=1)
    return {"fires": FIRES[0], "makespan": r.makespan,
            "peak": max(r.peak_memory_per_worker), "bytes": r.bytes_transferred}


ap = argparse.ArgumentParser()
ap.add_argument("--jitter", default="0.2,0.4")
ap.add_argument("--seeds", type=int, default=6)
ap.add_argument("--workers", default="3,4")
ap.add_argument("--steps", default="12,24")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--tag", default="")
ap.add_argument("--out", default="/tmp/slow48b/jitlast.jsonl")
a = ap.parse_args()
fired = moved = n = 0
for j in map(float, a.jitter.split(",")):
    for steps in map(int, a.steps.split(",")):
        for nw in map(int, a.workers.split(",")):
            for seed in range(a.seeds):
                on = one(steps, nw, a.threads, j, seed, 1)
                off = one(steps, nw, a.threads, j, seed, 0)
                mv = (on["makespan"], on["peak"], on["bytes"]) != \
                    (off["makespan"], off["peak"], off["bytes"])
                n += 1; fired += on["fires"] > 0; moved += mv
                print(f"{a.tag:8} j{j} s{steps} w{nw}x{a.threads} seed {seed} fires "
                      f"{on['fires']:3d} time {on['makespan'] / off['makespan']:.4f} peak "
                      f"{on['peak'] / off['peak']:.3f} bytes "
                      f"{on['bytes'] / max(off['bytes'], 1):.3f}{' MOVED' if mv else ''}",
                      flush=True)
                with open(a.out, "a") as f:
                    f.write(json.dumps({"tag": a.tag, "sw": os.environ.get("SW", ""),
                                        "jitter": j, "steps": steps, "workers": nw,
                                        "threads": a.threads, "seed": seed, "on": on,
                                        "off": off}) + "\n")
print(f"{a.tag}: {n} runs, wake fired in {fired}, schedule moved in {moved}")
