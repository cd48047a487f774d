"""pub30: the core (PYTHONPATH's src) on the real clim-anom-store graphs (probe24's groupby
anomaly over zarr, core26_drive.py's dumps: measured sizes, the body's views and buffers),
driven without threads: per (build, threads x budget, seed) the seeded drive's peak held and
spill (tidegate.testing.drive, as core26_drive.py) and the lock-step waves' ticks and peak
(moved.waves), and how many roots the books judged again (log "tidegate-rejudged").

    PYTHONHASHSEED=0 PYTHONPATH=SRC python bench/sessions/pub30_core_anom.py DIR CFGS SEEDS
        > OUT.json
    (DIR: core26_drive.py dump's folder; CFGS e.g. 2xinf,4xinf,2x2e8; SEEDS e.g. 10)
"""
import glob
import json
import os
import pickle
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.append(HERE)

from moved import waves  # noqa: E402
from tidegate import core as C  # noqa: E402
from tidegate.policy import Policy  # noqa: E402
from tidegate.testing import drive  # noqa: E402


def one(d, threads, budget):
    c = C.Scheduler(d["graph"], [(threads, budget)], Policy("tidegate"))
    c.views[:] = d["views"]
    c.buffer[:] = d["buffer"]
    return c


def rejudged(c) -> int:
    return len({e[0] for e in c.books.log if len(e) > 4 and e[1] == "landed"
                and e[4] == "tidegate-rejudged"})


out = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "g*.pkl"))):
    with open(path, "rb") as f:
        d = pickle.load(f)
    g = os.path.basename(path)[:-4]
    size = d["size"].__getitem__
    for cfg in sys.argv[2].split(","):
        threads, budget = int(cfg.split("x")[0]), float(cfg.split("x")[1])
        for seed in range(int(sys.argv[3])):
            c = one(d, threads, budget)
            drive(c, seed=seed, size=size)
            row = dict(peak_MB=round(c.workers[0].peak_held / 1e6, 1),
                       spilled_MB=round(c.bytes_spilled / 1e6, 1), rejudged=rejudged(c))
            c = one(d, threads, budget)
            ticks, spills = waves(c, size, seed)
            row.update(ticks=ticks, wave_peak_MB=round(c.workers[0].peak_held / 1e6, 1),
                       wave_spills=spills, wave_rejudged=rejudged(c))
            out[f"{g} {cfg} s{seed}"] = row
print(json.dumps(out))
