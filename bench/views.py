"""All-to-all rechunks below their working set (issue 10): limit overshoot and spill thrash.

Three probes of one input (a 384 MB random array in 19.2 MB chunks) whose every output
chunk needs a piece of every input chunk: ``topk`` (a transpose rechunked to rows, then
``da.topk``), ``quantile`` (xarray, ``.chunk({"time": -1, "y": 50}).quantile(0.9)``) and
``resample`` (``(t.resample(time="7D").mean() - t.mean("time")).std("time")``). Each cell
runs in a fresh process; rounds are interleaved (the order reversed every other round):
dask threaded (2 threads), then tidegate at 40% of threaded's median peak and at 300 MB,
with this tree's code and, given ``--base SRC``, with another tree's. Prints medians and
ranges of peak RSS above the start (and against the limit), wall time and bytes written
to disk; writes every run to JSON.

    python bench/views.py --reps 3 --base /tmp/old/src --json bench/results/views-NAME.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
CASES = ("topk", "quantile", "resample")


def workload(case: str):
    import dask.array as da
    import numpy as np
    import xarray as xr

    x = da.random.default_rng(0).random((240, 400, 500), chunks=(12, 400, 500))
    days = np.arange("2000-01-01", "2000-09-28", dtype="datetime64[D]")[:240]
    t = xr.DataArray(x, dims=("time", "y", "x"), coords={"time": days})
    if case == "topk":
        return da.topk(x.reshape(240, -1).T.rechunk((10000, 240)), 3, axis=1).sum(0)
    if case == "quantile":
        return t.chunk({"time": -1, "y": 50}).quantile(0.9, "time").data
    if case == "resample":
        return (t.resample(time="7D").mean() - t.mean("time")).std("time").data
    raise SystemExit(f"unknown case {case!r}")


def child(case: str, limit: float) -> None:
    """One compute in this process: print its peak RSS above the start, wall, written."""
    import psutil

    y = workload(case)
    proc = psutil.Process()
    base = proc.memory_info().rss
    peak, stop = [base], threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], proc.memory_info().rss)
            time.sleep(0.002)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    t0 = time.perf_counter()
    out = {"written": 0.0}
    if limit:
        import tidegate

        st = tidegate.RunStats()
        try:
            y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit, stats=st)
        except ValueError as e:  # refused before running: the limit is below one task
            print(json.dumps({"peak": 0, "wall": 0, "written": 0, "refused": str(e)[:200]}))
            return
        out = {"written": st.spill_file_bytes, "peak_held": st.peak_held_bytes,
               "lowest_budget": st.lowest_budget}  # fmt: skip
    else:
        y.compute(scheduler="threads", num_workers=2)
    wall = time.perf_counter() - t0
    stop.set()
    th.join()
    print(json.dumps({"peak": peak[0] - base, "wall": wall, **out}))


def run(case: str, limit: float, src: str) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    cmd = ["nice", "-n", "5", sys.executable, __file__, "--child", case, str(limit)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--base", help="another tree's src/ to compare with (old code)")
    p.add_argument("--json", default=os.path.join(HERE, "results", "views.json"))
    a = p.parse_args()
    if a.child:
        return child(a.child[0], float(a.child[1]))
    codes = [("new", SRC)] + ([("base", a.base)] if a.base else [])
    runs = []

    def record(case, cell, code, limit, rep, r):
        runs.append({"case": case, "cell": cell, "code": code, "limit": limit, "rep": rep,
                     "load": os.getloadavg()[0], **r})  # fmt: skip
        lim = f" limit {limit / 1e6:.1f} MB" if limit else ""
        if r.get("refused"):
            print(f"{case:9} {cell:12} {code:5} rep {rep}: refused{lim}", flush=True)
            return
        print(f"{case:9} {cell:12} {code:5} rep {rep}: peak {r['peak'] / 1e6:6.1f} MB{lim}  "
              f"wall {r['wall']:5.2f} s  written {r['written'] / 1e6:7.1f} MB  "
              f"load {runs[-1]['load']:.1f}", flush=True)  # fmt: skip

    for case in a.cases.split(","):
        for rep in range(a.reps):
            record(case, "threaded", "-", 0.0, rep, run(case, 0.0, SRC))
        threaded = statistics.median(r["peak"] for r in runs if r["case"] == case)
        cells = [("40% threaded", 0.4 * threaded), ("300 MB", 300e6)]
        order = [(cell, lim, code, src) for cell, lim in cells for code, src in codes]
        for rep in range(a.reps):
            for cell, lim, code, src in order if rep % 2 == 0 else order[::-1]:
                record(case, cell, code, lim, rep, run(case, lim, src))
    table(runs, a.reps)
    with open(a.json, "w") as f:
        json.dump({"reps": a.reps, "base": a.base, "runs": runs}, f, indent=1)
    print(f"wrote {a.json}")


def table(runs: list, reps: int) -> None:
    from rich.console import Console
    from rich.table import Table

    def spread(rs, key, scale=1e6, fmt="{:.0f}"):
        xs = [r[key] / scale for r in rs]
        return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"

    t = Table(title=f"medians (min-max) of {reps} interleaved fresh-process runs, 2 threads")
    for col in ("case", "cell", "code", "limit MB", "peak MB", "peak / limit", "wall s",
                "/ threaded", "written MB", "written / input"):  # fmt: skip
        t.add_column(col)
    cells = list(dict.fromkeys((r["case"], r["cell"], r["code"]) for r in runs))
    for case, cell, code in cells:
        rs = [r for r in runs if (r["case"], r["cell"], r["code"]) == (case, cell, code)]
        if any(r.get("refused") for r in rs):
            t.add_row(case, cell, code, f"{rs[0]['limit'] / 1e6:.0f}", "refused", *"-" * 5)
            continue
        thr = statistics.median(r["wall"] for r in runs if r["case"] == case
                                and r["cell"] == "threaded")  # fmt: skip
        lim = rs[0]["limit"]
        ratio = [r["peak"] / lim for r in rs] if lim else []
        t.add_row(case, cell, code, f"{lim / 1e6:.0f}" if lim else "-", spread(rs, "peak"),
                  f"{statistics.median(ratio):.2f} ({min(ratio):.2f}-{max(ratio):.2f})"
                  if ratio else "-", spread(rs, "wall", 1, "{:.2f}"),
                  f"{statistics.median(r['wall'] for r in rs) / thr:.2f}",
                  spread(rs, "written"), f"{statistics.median(r['written'] for r in rs) / 384e6:.2f}")  # fmt: skip
    Console(width=160).print(t)


if __name__ == "__main__":
    main()
