"""core26 (core25b's drive, paired): the core alone on the real graphs of probe24's two target
pipelines (xarray + zarr, as tidegate.get ingests them), driven without threads with each
task's measured size: peak held bytes per (graph build, threads x budget, seed).
``dump NAME N DIR``: N graph builds of probe24's pipeline NAME (clim-anom-store or
rolling-max; build k: the keys' random token from uuid4 seeded k, so its own dask.order ties),
each run once by tidegate.get unbudgeted, pickled with the measured sizes and the body's
views/buffers.
``drive DIR CFGS``: the core of PYTHONPATH's src driven on every pickled build (seeds
0-2, tidegate.testing.drive): base and new then see the same graphs. Deterministic with
PYTHONHASHSEED fixed (tidy27: without it two dumps of one seed gave rolling-max peaks of
88/75/109 MB against 100/99/78: set iteration orders differ per process).

    PYTHONHASHSEED=0 PYTHONPATH=SRC python bench/core26_drive.py
        dump clim-anom-store 6 /tmp/core26/anom
    PYTHONHASHSEED=0 PYTHONPATH=SRC python bench/core26_drive.py
        drive /tmp/core26/anom 1x2.85e8,2x2e8
"""
import glob
import json
import os
import pickle
import sys

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]


def dump(name, n, folder):
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    from probe24_graphs import build, unbudgeted_core

    os.makedirs(folder, exist_ok=True)
    for k in range(n):  # build k: uuid4 seeded k, as core25b_real.py's SEED k
        ran = unbudgeted_core(build(name, f"core26-out-{k}", seed=k))
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
                # CORE26_POLICY=priority: strict priority, no withholding (one28: dask
                # threaded's order, the reference a budgeted run is held against)
                c = C.Scheduler(d["graph"], [(threads, budget)],
                                Policy(os.environ.get("CORE26_POLICY", "tidegate")))
                if not os.environ.get("CORE26_NOVIEWS"):  # the body's views and buffers
                    c.views[:] = d["views"]
                    c.buffer[:] = d["buffer"]
                # one28: policy.FREES_SLOT (0: every completing pass counts) and
                # FREES_SLOT_THREADS (the most threads where it applies; base28: 1, plugin only)
                import tidegate.policy as P
                if os.environ.get("CORE26_FREES_SLOT"):
                    P.FREES_SLOT = int(os.environ["CORE26_FREES_SLOT"])
                if os.environ.get("CORE26_FREES_SLOT_THREADS"):
                    P.FREES_SLOT_THREADS = int(os.environ["CORE26_FREES_SLOT_THREADS"])
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
