"""bench/twin_slow_worker.py's runs, tidegate only (queuing's cached: it does not read
tidegate's src), switches from env SW="NAME=V,...".

    PYTHONPATH=SRC python tsw42.py --tag T --cells worker:2.2,worker:2.5,group:4 [--workers 2]
Prints one line per cell (summed over five namings) and writes OUT jsonl.
"""
import argparse, collections, contextlib, json, os, sys, fcntl
here = os.path.dirname(os.path.abspath(__file__))
BENCH = os.environ.get("BENCH", "/work/wt/slow48/bench")
from tidegate import policy
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(BENCH, "..", "tests"))
for kv in filter(None, os.environ.get("SW", "").split(",")):
    k, v = kv.split("=")
    assert hasattr(policy, k), k
    setattr(policy, k, float(v) if "." in v else int(v))
import twin_slow_worker as T
if os.environ.get("PATCH"):
    exec(open(os.environ["PATCH"]).read())
from _namings import NAMINGS, renamed
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

CACHE = os.environ.get("CACHE", "/tmp/tsw42-queue-cache.json")
STEPS = int(os.environ.get("STEPS", "12"))  # (slow48: another length; its own CACHE)


def one(factor, mode, workers, salt, policies):
    w = build("anomaly", STEPS, 32e6, store=False)
    model = build_model(w.graph, w.keys, sizes={**(w.sizes or {}), **T.REAL_SIZES},
                        durations=w.durations)
    if mode == "group":
        for k in model.durations:
            if type(k) is tuple and k[0].startswith("open") and k[1] in range(8, 12):  # group 2
                model.durations[k] *= factor
    ctx = T._slow_worker(factor, "tcp://twin-w1:1", mode == "all") \
        if mode in ("worker", "all") else contextlib.nullcontext()
    with ctx:
        rs = simulate(renamed(model, salt), workers=workers, threads_per_worker=1,
                      policy=list(policies), bandwidth=200e6, processes=1)
    out = {}
    for p, r in zip(policies, rs):
        loads = collections.Counter(t.worker for t in r.trace.tasks
                                    if t.group.startswith("open-"))
        out[p] = {"loads": sorted(loads.values(), reverse=True),
                  "peak": max(r.peak_memory_per_worker), "makespan": r.makespan,
                  "bytes": r.bytes_transferred}
    return out


def cache_get(key):
    try:
        with open(CACHE) as f:
            return json.load(f).get(key)
    except FileNotFoundError:
        return None


def cache_put(key, val):
    with open(CACHE + ".lock", "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        try:
            with open(CACHE) as f:
                d = json.load(f)
        except FileNotFoundError:
            d = {}
        d[key] = val
        with open(CACHE + ".tmp", "w") as f:
            json.dump(d, f)
        os.replace(CACHE + ".tmp", CACHE)


ap = argparse.ArgumentParser()
ap.add_argument("--tag", required=True)
ap.add_argument("--cells", required=True)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--out", default="/tmp/tsw42-runs.jsonl")
a = ap.parse_args()
for cell in a.cells.split(","):
    mode, f = cell.split(":")
    f = float(f)
    tq = tt = 0.0
    worst = worstb = 0.0
    rows = []
    for salt in NAMINGS:
        key = f"{mode}:{f}:{a.workers}:{salt}"
        q = cache_get(key)
        if q is None:
            r = one(f, mode, a.workers, salt, ("queue", "tidegate"))
            q = r["queue"]
            cache_put(key, q)
        else:
            r = one(f, mode, a.workers, salt, ("tidegate",))
        t = r["tidegate"]
        tq += q["makespan"]; tt += t["makespan"]
        worst = max(worst, t["peak"] / q["peak"])
        worstb = max(worstb, t["bytes"] / q["bytes"])
        rows.append({"salt": salt, "t": t, "q": q})
    line = (f"{a.tag:10} {mode:6} x{f:<5} w{a.workers} time {tt / tq:.3f} peak {worst:.3f} "
            f"bytes {worstb:.3f}  " + " ".join(
                f"{'/'.join(map(str, r['t']['loads']))}:{r['t']['makespan']:.3f}"
                f"|{r['q']['makespan']:.3f}" for r in rows))
    print(line, flush=True)
    with open(a.out, "a") as fo:
        fo.write(json.dumps({"tag": a.tag, "sw": os.environ.get("SW", ""), "patch": os.environ.get("PATCH", ""),
                             "src": os.environ.get("PYTHONPATH"), "mode": mode, "factor": f,
                             "workers": a.workers, "time": tt / tq, "peak": worst,
                             "bytes": worstb, "rows": rows}) + "\n")
