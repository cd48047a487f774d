"""Workloads a user would try that the seed does not have (issue 10): xarray rolling means,
resampling, cumulative sums, differences, histograms, an all-to-all rechunk (topk along
time) and a time-series quantile, over 240 steps of 400 x 500 random fields (384 MB in
19.2 MB chunks). Each run is a fresh process: dask threaded first (its peak sets the
limits given as a share), then tidegate at each limit, 2 threads. Prints a table of medians
(peak / limit, wall / threaded's, bytes written / input, page faults) and writes JSON.
A limit tidegate refuses (ValueError before running) is shown with the limit it names.

    python bench/probes.py                                  # every case at 40% and 300 MB
    python bench/probes.py --cases rolling,topk --limits 40%,200MB --reps 3
    python bench/probes.py --against /tmp/base/src          # the same, on other code too
    python bench/probes.py --limits auto                    # tidegate's default limit
    python bench/probes.py --cases topk,quantile,resample --reps 3 --against /tmp/base/src
        # the all-to-all rechunks of session 16 (bench/results/views16-*, then bench/views.py)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from dask.utils import format_bytes, parse_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT = 240 * 400 * 500 * 8

CHILD = """
import json, re, resource, sys, time
import dask.array as da, numpy as np, xarray as xr, tidegate
from tidegate.local import collect_stats
from tidegate.measure import RSSSampler

case, limit = sys.argv[1], float(sys.argv[2])
x = da.random.default_rng(0).random((240, 400, 500), chunks=(12, 400, 500))
days = np.arange("2000-01-01", "2000-08-28", dtype="datetime64[D]")
t = xr.DataArray(x, dims=("time", "y", "x"), coords={"time": days})
y = {
    "rolling": lambda: t.rolling(time=5, center=True).mean().sum("time"),
    "resample": lambda: (t.resample(time="7D").mean() - t.mean("time")).std("time"),
    "cumsum": lambda: t.cumsum("time").max("time"),
    "diff": lambda: abs(t.diff("time")).mean("time"),
    "hist": lambda: da.histogram(x, bins=50, range=(0, 1))[0],
    "topk": lambda: da.topk(x.reshape(240, -1).T.rechunk((10000, 240)), 3, axis=1).sum(0),
    "quantile": lambda: t.chunk({"time": -1, "y": 50}).quantile(0.9, "time"),
}[case]()
y = getattr(y, "data", y)
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
out = {}
try:
    with RSSSampler(0.002) as rss, collect_stats() as stats:
        if limit:  # negative: tidegate's default ("auto") limit
            v = y.compute(scheduler="tidegate", num_workers=2,
                          memory_limit=limit if limit > 0 else None)
        else:
            v = y.compute(scheduler="threads", num_workers=2)
except ValueError as e:  # refused before running: the limit it names
    named = re.search(r"smallest memory_limit that would work is ([0-9.]+ [KMG]i?B)", str(e))
    print(json.dumps({"refused": named.group(1) if named else str(e)[:200]}))
    sys.exit(0)
r1 = resource.getrusage(resource.RUSAGE_SELF)
s = stats[0] if stats else None
print(json.dumps({"wall": time.perf_counter() - t0, "user": r1.ru_utime - r0.ru_utime,
                  "sys": r1.ru_stime - r0.ru_stime, "faults": r1.ru_minflt - r0.ru_minflt,
                  "peak": rss.peak_above_baseline, "written": s.spill_file_bytes if s else 0,
                  "fewest_threads": s.fewest_threads if s else None,
                  "peak_held": s.peak_held_bytes if s else 0,
                  "lowest_budget": s.lowest_budget if s else 0,
                  "check": float(np.nansum(np.asarray(v, dtype=float)))}))
"""

CASES = ("rolling", "resample", "cumsum", "diff", "hist", "topk", "quantile")


def run(case: str, limit: float, src: str | None) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.path.abspath(src)
    proc = subprocess.run([sys.executable, "-c", CHILD, case, str(limit)], capture_output=True,
                          text=True, env=env, timeout=900)  # fmt: skip
    if proc.returncode:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _limit(spec: str, threaded_peak: float) -> float:
    if spec == "auto":  # tidegate's default: a share of the memory available
        return -1.0
    if spec.endswith("%"):
        return max(32e6, float(spec[:-1]) / 100 * threaded_peak)
    return float(parse_bytes(spec))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--limits", default="40%,300MB",
                   help="comma-separated; 40%%: that share of threaded's median peak; "
                        "auto: tidegate's default limit")
    p.add_argument("--against", default=None, help="a src folder: each limit on it too")
    p.add_argument("--json", default=os.path.join(HERE, "results", "probes.json"))
    a = p.parse_args()
    codes = [("this", None)] + ([("base", a.against)] if a.against else [])
    results = []
    for case in a.cases.split(","):
        threaded = [run(case, 0, None) for _ in range(a.reps)]
        rows = [{"case": case, "mode": "threaded", "limit": 0, "runs": threaded}]
        peak = statistics.median(r["peak"] for r in threaded)
        for spec in a.limits.split(","):
            limit = _limit(spec, peak)
            runs = {code: [] for code, _ in codes}
            for rep in range(a.reps):  # interleaved, turning: the machine's load hits both alike
                for code, src in codes if rep % 2 == 0 else codes[::-1]:
                    runs[code].append(run(case, limit, src))
            rows += [{"case": case, "mode": f"tidegate ({code})", "limit": limit, "runs": rs}
                     for code, rs in runs.items()]  # fmt: skip
        results += rows
        _print(rows)
        os.makedirs(os.path.dirname(a.json), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump({"argv": sys.argv[1:], "load": os.getloadavg(), "input": INPUT,
                       "results": results}, f, indent=1)  # fmt: skip
    print(f"JSON: {a.json}")


def _print(rows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{rows[0]['case']}: medians (min-max) of {len(rows[0]['runs'])} run(s)")
    for col in ("mode", "limit", "peak MB", "peak/limit", "wall s", "wall/threaded",
                "written/input", "faults k", "threads"):  # fmt: skip
        table.add_column(col, justify="left" if col == "mode" else "right")
    base = statistics.median(r["wall"] for r in rows[0]["runs"])
    for row in rows:
        runs = row["runs"]
        if any("refused" in r for r in runs):
            table.add_row(row["mode"], format_bytes(int(row["limit"])),
                          f"refused, names {runs[0].get('refused')}", *[""] * 6)
            continue

        def spread(k, scale=1.0, fmt="{:.2f}"):  # median (min-max)
            xs = [r[k] / scale for r in runs]
            m = fmt.format(statistics.median(xs))
            return m if len(xs) == 1 else f"{m} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"

        lim = row["limit"]
        table.add_row(
            row["mode"], format_bytes(int(lim)) if lim > 0 else "auto" if lim else "-",
            spread("peak", 1e6, "{:.0f}"), spread("peak", lim) if lim > 0 else "-",
            spread("wall", 1, "{:.1f}"),
            spread("wall", base), spread("written", INPUT), spread("faults", 1e3, "{:.0f}"),
            str(runs[0]["fewest_threads"] or 2),
        )  # fmt: skip
    Console(width=150).print(table)


if __name__ == "__main__":
    main()
