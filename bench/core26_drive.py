"""core26: core25b_drive.py, paired. ``dump NAME N DIR``: N graph builds of probe24's
pipeline (build k: the keys' random token from uuid4 seeded k, so its own dask.order ties), each run once by
tidegate.get unbudgeted, pickled with the measured sizes and the body's views/buffers.
``drive DIR CFGS``: the core of PYTHONPATH's src driven on every pickled build (seeds
0-2, tidegate.testing.drive): base and new then see the same graphs. Deterministic.

    PYTHONPATH=SRC python bench/core26_drive.py dump clim-anom-store 6 /tmp/core26/anom
    PYTHONPATH=SRC python bench/core26_drive.py drive /tmp/core26/anom 1x2.85e8,2x2e8
"""
import glob
import json
import os
import pickle
import sys

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]


def dump(name, n, folder):
    import dask

    import tidegate
    from tidegate import core as C

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import probe24_cluster as p

    import random
    import uuid

    os.makedirs(folder, exist_ok=True)
    for k in range(n):
        # build k: uuid4 seeded k (the keys' random token), as core25b_real.py's SEED k
        rng = random.Random(k)
        uuid.uuid4 = lambda rng=rng: uuid.UUID(int=rng.getrandbits(128), version=4)
        out = os.path.join(p.FOLDER, f"core26-out-{k}")
        import shutil

        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        p._out = lambda out=out: out
        x = {"clim-anom-store": p.clim_anom_store, "rolling-max": p.rolling_max}[name]()
        cores = []
        init = C.Scheduler.__init__

        def keep(self, *a, **kw):
            init(self, *a, **kw)
            cores.append(self)

        C.Scheduler.__init__ = keep
        try:
            dask.compute(x, scheduler=tidegate.get, num_workers=1, memory_limit="none")
        finally:
            C.Scheduler.__init__ = init
        (ran,) = cores
        with open(os.path.join(folder, f"g{k}.pkl"), "wb") as f:
            pickle.dump(dict(graph=ran.graph, size=list(ran.nbytes), views=list(ran.views),
                             buffer=list(ran.buffer)), f)
        print(k, len(ran.graph), flush=True)


def load(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def drive_all(folder, cfgs, seeds=(0, 1, 2)):
    from tidegate import core as C
    from tidegate.policy import Policy
    from tidegate.testing import drive

    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "g*.pkl"))):
        d = load(path)
        g = os.path.basename(path)[:-4]
        for cfg in cfgs.split(","):
            threads, budget = int(cfg.split("x")[0]), float(cfg.split("x")[1])
            for seed in seeds:
                c = C.Scheduler(d["graph"], [(threads, budget)], Policy())
                if not os.environ.get("CORE26_NOVIEWS"):  # the body's views and buffers
                    c.views[:] = d["views"]
                    c.buffer[:] = d["buffer"]
                if os.environ.get("CORE26_NOPULL"):
                    c._pulls = False
                drive(c, seed=seed, size=d["size"].__getitem__)
                out[f"{g} {cfg} s{seed}"] = dict(
                    peak_MB=round(c.workers[0].peak_held / 1e6, 1),
                    spilled_MB=round(c.bytes_spilled / 1e6, 1), peak_roots=c.peak_roots_held)
    return out


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        print(json.dumps(drive_all(sys.argv[2], sys.argv[3])))
