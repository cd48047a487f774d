"""An xarray groupby climatology under memory_limit (issue 10): departures from the monthly
means, their standard deviation in time, over 4 years of daily 200 x 500 fields (1.2 GB of
random input, 24 MB chunks; most temporaries are single ~800 KB steps). Each run is a fresh
process: dask threaded, and tidegate at each limit on this code (and on ``--against``'s,
interleaved), each followed in the same process by a dask threaded compute ("after"): a
limited compute must not leave the process slower. Prints a table of medians and writes JSON.

    python bench/climatology.py                          # 300 MB and 25% of threaded's peak
    python bench/climatology.py --against /tmp/base/src --reps 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from dask.utils import parse_bytes

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = """
import json, resource, sys, time
import dask.array as da, numpy as np, xarray as xr, tidegate
from tidegate.local import collect_stats
from tidegate.measure import RSSSampler
rng = da.random.default_rng(0)
t = np.arange(np.datetime64("2000-01-01"), np.datetime64("2004-01-01"), np.timedelta64(1, "D"))
x = rng.random((len(t), 200, 500), chunks=(30, 200, 500))
ds = xr.DataArray(x, dims=("time", "y", "x"), coords={"time": t})
y = (ds.groupby("time.month") - ds.groupby("time.month").mean()).std("time").data

def measured(**kw):
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    with RSSSampler(0.005) as rss, collect_stats() as stats:
        y.compute(**kw)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    s = stats[0] if stats else None
    return {"wall": time.perf_counter() - t0, "user": r1.ru_utime - r0.ru_utime,
            "sys": r1.ru_stime - r0.ru_stime, "faults": r1.ru_minflt - r0.ru_minflt,
            "peak": rss.peak_above_baseline, "written": s.spill_file_bytes if s else 0,
            "fewest_threads": s.fewest_threads if s else None}

limit = float(sys.argv[1])
if limit:
    out = measured(scheduler="tidegate", memory_limit=limit)
    out["after"] = measured(scheduler="threads")
else:
    out = measured(scheduler="threads")
print(json.dumps(out))
"""


def run(limit: float, src: str | None) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.path.abspath(src)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(limit)], capture_output=True,
                          text=True, env=env, timeout=900)  # fmt: skip
    if proc.returncode:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _median(runs: list[dict], key: str, sub: str | None = None) -> float:
    return statistics.median((r[sub] if sub else r)[key] for r in runs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--limits", default="300MB,25%",
                   help="comma-separated; 25%%: that share of threaded's peak (first rep)")
    p.add_argument("--against", default=None, help="a src folder: each limit on it too")
    p.add_argument("--json", default=os.path.join(HERE, "results", "climatology.json"))
    a = p.parse_args()
    codes = [("this", None)] + ([("base", a.against)] if a.against else [])
    cells: dict[str, list[dict]] = {"threaded": []}
    limits: list[tuple[str, float]] = []
    for rep in range(a.reps):
        cells["threaded"].append(run(0, None))
        if not limits:
            peak = cells["threaded"][0]["peak"]
            for x in a.limits.split(","):
                b = float(x[:-1]) / 100 * peak if x.endswith("%") else parse_bytes(x)
                limits.append((f"{b / 1e6:.0f} MB", b))
        for name, b in limits:
            order = codes if rep % 2 == 0 else codes[::-1]  # interleaved
            for code, src in order:
                cells.setdefault(f"{name} {code}", []).append(run(b, src))
    threaded = cells["threaded"]
    tw = _median(threaded, "wall")
    print(f"{'run':<16}{'wall s':>8}{'/thr':>6}{'user':>7}{'sys':>7}{'faults':>10}"
          f"{'peak MB':>9}{'/limit':>7}{'written MB':>11}{'threads':>8}"
          f"{'after wall':>11}{'after faults':>13}")
    rows = []
    for cell, rs in cells.items():
        b = next((v for n, v in limits if cell.startswith(n + " ")), None)
        row = {"cell": cell, "limit": b, "runs": rs,
               **{k: _median(rs, k) for k in ("wall", "user", "sys", "faults", "peak", "written")}}
        row["wall_over_threaded"] = row["wall"] / tw
        if b:
            row["peak_over_limit"] = row["peak"] / b
            row["after_wall"], row["after_faults"] = (_median(rs, "wall", "after"),
                                                      _median(rs, "faults", "after"))
        rows.append(row)
        after = (f"{row['after_wall']:>11.1f}{row['after_faults']:>13.0f}" if b else "")
        print(f"{cell:<16}{row['wall']:>8.1f}{row['wall_over_threaded']:>6.2f}{row['user']:>7.1f}"
              f"{row['sys']:>7.1f}{row['faults']:>10.0f}{row['peak'] / 1e6:>9.0f}"
              f"{row.get('peak_over_limit', 0):>7.2f}{row['written'] / 1e6:>11.0f}"
              f"{str(min((r['fewest_threads'] or 0) for r in rs)):>8}{after}")
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"reps": a.reps, "load": os.getloadavg(), "rows": rows}, f, indent=1)
    print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
