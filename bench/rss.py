"""memory_limit against what top shows (issue 10): peak RSS above the level at compute
start vs the limit, wall time vs dask threaded, bytes written to disk vs the input.

The seed workloads (zarr in, zarr out; the anomaly among them) and the per-file vorticity
pipeline, each under dask threaded and under tidegate at 300 MB, 400 MB and 25% of
threaded's peak on that workload (from the first rep), plus 128 MB for the two vorticity
pipelines, 140, 170 and 200 MB for plain vorticity and 180 MB and 200 MiB for vorticity-files
(below their working set). Every run is a
fresh process (tidegate.compare); reps are interleaved. Prints a table of medians (with
min-max of the peak ratio) and writes JSON.

    python bench/rss.py                 # 2 reps, 2 x 0.8 GB of input in 32 MB chunks
    python bench/rss.py --reps 1 --steps 40
    python bench/rss.py --workloads vorticity --limits 140MB,170MB   # only these cells
    python bench/rss.py --limits 300MB,25%   # 25%: of threaded's peak on that workload
    python bench/rss.py --against /tmp/base/src   # each tidegate cell also on that code,
                                                 # interleaved (rows "<limit> base")
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import tempfile

from dask.utils import parse_bytes
from rich.console import Console
from rich.table import Table

from tidegate.compare import run_isolated
from tidegate.trace import Trace
from tidegate.workloads import CHUNK_BYTES, NAMES, make_inputs

HERE = os.path.dirname(os.path.abspath(__file__))
# Below the vorticity pipelines' working set: 128 MB (the issue's); for plain vorticity, whose
# smallest limit accepted is 133 MiB, 140, 170 and 200 MB too (at 140 MB it once overshot to
# 1.19-1.34x: a task started beside a value still on its way to disk, fixed in local.py).
# vorticity-files is refused below 200 MiB (its step holds two reads and three grid fields:
# measure.one_thread_needs); 128 and 180 MB show the refusal, 200 MiB that the limit named holds.
BELOW_WORKING_SET = {"vorticity": (128e6, 140e6, 170e6, 200e6),
                     "vorticity-files": (128e6, 180e6, 200 * 2**20)}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measured(*args):
    """run_isolated, the child's CPU seconds (user + system, graph building and reading the
    inputs included: steadier than wall time on a loaded machine) and, for tidegate, how
    many tasks ran at once on average (task seconds over wall seconds, from its trace:
    below the thread count, threads waited)."""
    c0 = _children_cpu()
    with tempfile.TemporaryDirectory(prefix="tidegate-trace-") as d:
        path = os.path.join(d, "trace.jsonl")
        m = run_isolated(*args, trace_path=path)
        cpu = _children_cpu() - c0
        at_once = None
        if os.path.exists(path):
            tasks = Trace.load(path).tasks
            if tasks:
                span = max(t.stop for t in tasks) - min(t.start for t in tasks)
                at_once = sum(t.stop - t.start for t in tasks) / span if span > 0 else None
    return m, cpu, at_once


def _usage(m) -> dict:
    """The compute's own user and system CPU seconds and minor page faults (older
    tidegate.compare: none)."""
    u = m.usage or {}
    return {k: u[k] for k in ("utime", "stime", "minflt") if k in u}


def _said(m) -> str:
    u = _usage(m)
    if not u:
        return ""
    return f" (compute: user {u['utime']:.2f} s, sys {u['stime']:.2f} s, {u['minflt']} faults)"


@contextlib.contextmanager
def _pythonpath(src):
    """Children started inside run the code in ``src`` (None: this process's)."""
    if src is None:
        yield
        return
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.path.abspath(src)
    try:
        yield
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


def limits_for(workload: str, threaded_peak: float, only=None) -> list[tuple[str, float]]:
    if only:  # --limits: these cells only; "25%": that share of threaded's peak
        return [(f"{x} threaded", float(x[:-1]) / 100 * threaded_peak) if x.endswith("%")
                else (f"{parse_bytes(x) / 1e6:.0f} MB", parse_bytes(x)) for x in only]
    out = [("300 MB", 300e6), ("400 MB", 400e6), ("25% threaded", 0.25 * threaded_peak)]
    out += [(f"{b / 1e6:.0f} MB", b) for b in BELOW_WORKING_SET.get(workload, ())]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--steps", type=int, default=100, help="time steps per input (100: 0.8 GB)")
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workloads", default=",".join(NAMES))
    p.add_argument("--limits", default=None,
                   help="comma-separated memory limits instead of the grid (e.g. 140MB,25%%: a "
                        "share of threaded's peak)")
    p.add_argument("--against", default=None,
                   help="a src folder: run every tidegate cell on it too, alternating order")
    p.add_argument("--round", type=int, default=0,
                   help="with --against: an odd round starts with the other code")
    p.add_argument("--json", default=os.path.join(HERE, "results", "rss.json"))
    a = p.parse_args()
    codes = [None] if a.against is None else [None, a.against]
    workloads = a.workloads.split(",")
    only = a.limits.split(",") if a.limits else None
    console = Console(width=160)
    folder = tempfile.mkdtemp(prefix="tidegate-bench-")
    runs: list[dict] = []
    threaded_peak: dict[str, float] = {}
    flip = [a.round]  # which code runs first in each cell: alternates from cell to cell
    try:
        inputs = make_inputs(folder, a.steps)
        in_bytes = 2 * a.steps * CHUNK_BYTES // 4
        console.print(f"inputs: 2 x {in_bytes / 2e9:.2f} GB zarr, {CHUNK_BYTES / 1e6:.0f} MB "
                      f"chunks; {a.threads} threads, {a.reps} reps")  # fmt: skip
        for rep in range(a.reps):
            for w in workloads:
                m, cpu, _ = measured(w, "threads", inputs, a.threads)
                threaded_peak.setdefault(w, m.peak_rss)
                runs.append({"workload": w, "limit_name": "threaded", "limit": None,
                             "wall": m.wall_time, "peak": m.peak_rss, "written": 0,
                             "cpu": cpu, **_usage(m)})  # fmt: skip
                console.print(f"  rep {rep} {w:16s} threaded      {m.wall_time:6.2f} s "
                              f"{m.peak_rss / 1e6:6.0f} MB, cpu {cpu:6.2f} s{_said(m)}",
                              highlight=False)  # fmt: skip
                cells = []  # each cell on both codes, which first alternating from cell to cell
                for name, limit in limits_for(w, threaded_peak[w], only):
                    flip[0] += 1
                    cells += [(name, limit, c) for c in (codes[::-1] if flip[0] % 2 else codes)]
                for name, limit, code in cells:
                    if code is not None:
                        name = f"{name} base"
                    row = {"workload": w, "limit_name": name, "limit": limit}
                    try:
                        with _pythonpath(code):
                            m, cpu, at_once = measured(w, "tidegate", inputs, a.threads,
                                                             limit)  # fmt: skip
                    except RuntimeError as exc:
                        msg = str(exc).strip().splitlines()[-1]
                        if "smallest memory_limit" not in msg:
                            raise
                        row |= {"refused": msg}
                        console.print(f"  rep {rep} {w:16s} {name:13s} refused: {msg[-90:]}",
                                      highlight=False)  # fmt: skip
                    else:
                        row |= {"wall": m.wall_time, "peak": m.peak_rss,
                                "written": m.written, "spilled": m.spilled, "cpu": cpu,
                                "at_once": at_once, **_usage(m)}  # fmt: skip
                        st = m.stats or {}  # tidegate's RunStats (older code: fewer fields)
                        gated = ""
                        if "gate_refusals" in st:  # the fewer-at-once gate
                            row |= {"gate_refusals": st["gate_refusals"],
                                    "gate_idle": st["gate_idle_time"],
                                    "gate_free": st["gate_refusals_with_room"],
                                    "gate_room_now": st["gate_refusals_with_room_now"],
                                    "fewest_threads": st["fewest_threads"],
                                    "limit_for_all": st["limit_for_all_threads"]}  # fmt: skip
                            gated = (f", gate {row['gate_refusals']} waits ({row['gate_free']} "
                                     f"with room by RSS, {row['gate_room_now']} if running tasks "
                                     f"grow no more), {row['gate_idle']:.1f} s idle, threads >= "
                                     f"{row['fewest_threads']}")  # fmt: skip
                            if row["limit_for_all"]:
                                gated += (f"; said: about {row['limit_for_all'] / 1e6:.0f} MB "
                                          f"would run all {a.threads}")  # fmt: skip
                        once = f"{at_once:4.2f}" if at_once is not None else "   -"
                        console.print(f"  rep {rep} {w:16s} {name:13s} {m.wall_time:6.2f} s "
                                      f"{m.peak_rss / 1e6:6.0f} MB (limit {limit / 1e6:.0f}), "
                                      f"{m.written / 1e6:6.0f} MB written, cpu {cpu:6.2f} s, "
                                      f"{once} tasks at once{_said(m)}{gated}",
                                      highlight=False)  # fmt: skip
                    runs.append(row)
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    table = Table(title=f"median of {a.reps} fresh-process runs; input {in_bytes / 1e9:.2f} GB")
    for col in ("workload", "limit", "limit MB", "peak MB", "peak/limit (min-max)",
                "wall s", "wall/threaded", "cpu/threaded", "written/input", "at once",
                "gate waits (room by RSS)", "gate idle s"):  # fmt: skip
        table.add_column(col, justify="left" if col in ("workload", "limit") else "right")
    summary = []
    for w in workloads:
        base = [r for r in runs if r["workload"] == w and r["limit_name"] == "threaded"]
        base_wall = statistics.median(r["wall"] for r in base)
        base_cpu = statistics.median(r["cpu"] for r in base)
        table.add_row(w, "threaded", "-", f"{statistics.median(r['peak'] for r in base) / 1e6:.0f}",
                      "-", f"{base_wall:.2f}", "1.00", "1.00", "-", "-", "-", "-")  # fmt: skip
        names = [n for n, _ in limits_for(w, threaded_peak[w], only)]
        if a.against is not None:
            names = [m for n in names for m in (n, f"{n} base")]
        for name in names:
            rs = [r for r in runs if r["workload"] == w and r["limit_name"] == name]
            if any("refused" in r for r in rs):
                table.add_row(w, name, f"{rs[0]['limit'] / 1e6:.0f}", "refused", "-", "-", "-",
                              "-", "-", "-", "-", "-")  # fmt: skip
                summary.append({"workload": w, "limit_name": name, "limit": rs[0]["limit"],
                                "refused": rs[0]["refused"]})  # fmt: skip
                continue
            ratios = [r["peak"] / r["limit"] for r in rs]
            wall = statistics.median(r["wall"] for r in rs)
            row = {
                "workload": w, "limit_name": name, "limit": rs[0]["limit"],
                "peak": statistics.median(r["peak"] for r in rs),
                "peak_over_limit": statistics.median(ratios), "peak_over_limit_max": max(ratios),
                "wall": wall, "wall_over_threaded": wall / base_wall,
                "cpu_over_threaded": statistics.median(r["cpu"] for r in rs) / base_cpu,
                "written_over_input": statistics.median(r["written"] for r in rs) / in_bytes,
                "at_once": statistics.median(o) if (o := [r["at_once"] for r in rs
                                                         if r.get("at_once")]) else None,
            }  # fmt: skip
            for k in ("utime", "stime", "minflt"):
                if all(k in r for r in rs):
                    row[k] = statistics.median(r[k] for r in rs)
            if all("gate_refusals" in r for r in rs):
                for k in ("gate_refusals", "gate_free", "gate_idle"):
                    row[k] = statistics.median(r[k] for r in rs)
            summary.append(row)
            table.add_row(w, name, f"{row['limit'] / 1e6:.0f}", f"{row['peak'] / 1e6:.0f}",
                          f"{row['peak_over_limit']:.2f} ({min(ratios):.2f}-{max(ratios):.2f})",
                          f"{wall:.2f}", f"{row['wall_over_threaded']:.2f}",
                          f"{row['cpu_over_threaded']:.2f}",
                          f"{row['written_over_input']:.2f}",
                          f"{row['at_once']:.2f}" if row["at_once"] else "-",
                          f"{row['gate_refusals']:.0f} ({row['gate_free']:.0f})"
                          if "gate_refusals" in row else "-",
                          f"{row['gate_idle']:.1f}" if "gate_idle" in row else "-")  # fmt: skip
    console.print(table)
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"args": vars(a), "summary": summary, "runs": runs}, f, indent=1)
    console.print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
