"""cpu32a (issue 9): policy.OWED_FAST audited over many graphs. Each owed root's fast
placement (Placement._owed_place: with mode 2 its opener's plan mirrored, where
policy.mirror_holds proves it) is compared with _decide's call of books.place on the root's
own plan (Books.audit's "owed"); plugin.errors counted per twin run.

    PYTHONPATH=src python bench/sessions/cpu32a_owed_sweep.py seed|probe|random|all [MODE]

"probe" reads probe24's pipelines as twins from /tmp/probe25/*.pkl (bench/probe25_twin.py
makes them). bench/results/cpu32a-findings.txt section 1 has the counts.
"""
import sys, os, random, pickle, traceback, logging
logging.disable(logging.CRITICAL)
sys.path[:] = [p for p in sys.path if 'bench' not in p]
from tidegate.books import Books
from tidegate.distributed import hooks
from tidegate.sim import simulate
import tidegate.policy as pol
Books.audit = True
part = sys.argv[1]; pol.OWED_FAST = int(sys.argv[2]) if len(sys.argv) > 2 else 2
plugins = []
inst = hooks.Plugin.install
def rec(self, scheduler, apply=None):
    plugins.append(self); return inst(self, scheduler, apply)
hooks.Plugin.install = rec
# count mirrored first placements (entries from the opener's plan)
from tidegate.distributed import placement as PL
mirrored = [0]
orig_mi = PL.mirrored_inputs
def mi(*a, **k):
    mirrored[0] += 1
    return orig_mi(*a, **k)
PL.mirrored_inputs = mi
tot = {"cases": 0, "owed": 0, "errors": 0, "mirrors": 0}
bad = []
def run(label, x, **kw):
    plugins.clear(); mirrored[0] = 0
    try:
        r = simulate(x, policy="tidegate", record_memory=False, **kw)
    except Exception as e:
        print("CRASH", label, repr(e)[:200], flush=True); return
    owed = errs = 0
    for p in plugins:
        owed += p.books.audited.get("owed", 0); errs += len(p.errors)
        for e in p.errors[:2]:
            bad.append((label, e[2][-600:]))
    tot["cases"] += 1; tot["owed"] += owed; tot["errors"] += errs; tot["mirrors"] += mirrored[0]
    print(f"{label:50s} owed {owed:5d} mirrors {mirrored[0]:4d} errors {errs}", flush=True)
    if errs:
        print(bad[-1][1], flush=True)

SHAPES = [(2, 1), (4, 1), (2, 2), (4, 2), (8, 2), (20, 4)]
if part in ("seed", "all"):
    from tidegate.sim.workloads import build
    from tidegate.sim import fidelity
    for g in ["anomaly", "rechunk-add", "stack-sum", "slice-add", "vorticity", "weighted",
              "running-total"]:
        for steps, cb in ((24, 50e6), (60, 190e6)):
            for store in (False, True):
                w = build(g, steps, cb, store=store)
                x = w.model() if store else w.graph
                kk = {} if store else dict(keys=w.keys, sizes=w.sizes, durations=w.durations)
                for wk, th in SHAPES:
                    run(f"{'s-' if store else ''}{g}/{steps}/{wk}x{th}", x, workers=wk,
                        threads_per_worker=th, **kk)
    for nm, fn in (("f-vorticity", fidelity.vorticity), ("f-unique", fidelity.unique_loaders),
                   ("f-stack-sum", fidelity.stack_sum), ("f-weighted", fidelity.weighted)):
        gg = fn(steps=24)
        for wk, th in SHAPES[:5]:
            run(f"{nm}/{wk}x{th}", gg.dsk, keys=gg.keys, sizes=gg.sizes, durations=gg.durations,
                workers=wk, threads_per_worker=th)
if part in ("probe", "all"):
    import cloudpickle
    for name in ("clim-anom-store", "map-blocks2", "resample-store", "rolling-max"):
        with open(f"/tmp/probe25/{name}.pkl", "rb") as f:
            dsk, out, took, size = cloudpickle.load(f)
        for wk, th in SHAPES:
            for seed in (0, 1):
                run(f"{name}/{wk}x{th}/s{seed}", dsk, keys=out, workers=wk,
                    threads_per_worker=th, sizes=lambda k: size.get(k, 0),
                    durations=lambda k: took.get(k, 1e-3), seed=seed)
if part in ("random", "all"):
    def inc(*a): return 0
    def random_graph(seed, n):
        rng = random.Random(seed)
        dsk, durations, sizes = {}, {}, {}
        for i in range(n):
            k = f"t{i}-{i}"
            deps = rng.sample(list(dsk), min(len(dsk), rng.choice([0, 1, 1, 2, 3]))) if i else []
            dsk[k] = (inc, *deps)
            durations[k] = rng.choice([0.0, 0.01, 0.1, 0.5])
            sizes[k] = rng.choice([0, 100, 10**6, 10**8])
        used = {d for v in dsk.values() for d in v[1:]}
        return dsk, [k for k in dsk if k not in used], durations, sizes
    def tree_graph(seed, n):  # loads in groups, reduced by trees of random width, reread
        rng = random.Random(seed)
        dsk, dur, sz = {}, {}, {}
        loads = []
        for i in range(n):
            k = f"load-{i}"; dsk[k] = (inc,); dur[k] = rng.choice([0.05, 0.1, 0.2]); sz[k] = 10**8
            loads.append(k)
            if rng.random() < 0.5:
                c = f"chunk-{i}"
                dsk[c] = (inc, k); dur[c] = 0.01; sz[c] = rng.choice([10**3, 10**8])
                loads[-1] = c
        level, lv = loads, 0
        width = rng.choice([2, 3, 4, 5])
        while len(level) > 1:
            nxt = []
            for j in range(0, len(level), width):
                c = f"comb{lv}-{j}"
                dsk[c] = (inc, *level[j:j + width]); dur[c] = 0.01; sz[c] = 10**3
                nxt.append(c)
            level, lv = nxt, lv + 1
        top = level[0]
        outs = []
        for i in range(n):
            if rng.random() < 0.7:
                k = f"sub-{i}"; dsk[k] = (inc, f"load-{i}", top); dur[k] = 0.05; sz[k] = 10**8
                s = f"store-{i}"; dsk[s] = (inc, k); dur[s] = 0.02; sz[s] = 0; outs.append(s)
        used = {d for v in dsk.values() for d in v[1:]}
        return dsk, [k for k in dsk if k not in used], dur, sz
    for seed in range(60):
        for n in (40, 150):
            dsk, keys, durations, sizes = random_graph(seed, n)
            wk, th = SHAPES[seed % len(SHAPES)]
            run(f"random/{seed}/{n}/{wk}x{th}", dsk, keys=keys, durations=durations,
                sizes=sizes, workers=wk, threads_per_worker=th)
    for seed in range(40):
        dsk, keys, durations, sizes = tree_graph(seed, 24 + 8 * (seed % 5))
        wk, th = SHAPES[seed % len(SHAPES)]
        run(f"tree/{seed}/{wk}x{th}", dsk, keys=keys, durations=durations,
            sizes=sizes, workers=wk, threads_per_worker=th)
print("TOTAL", tot, flush=True)
