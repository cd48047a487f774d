"""Run one workload under one scheduler in a fresh process and measure it.

A fresh process per run keeps peak RSS honest: a Python process rarely gives memory back,
so a second run in the same process would inherit the first one's heap.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass

SCHEDULERS = ("threads", "tidegate", "priority")
USAGE = ("utime", "stime", "minflt", "majflt", "nvcsw", "nivcsw")


@dataclass
class Measurement:
    workload: str
    scheduler: str
    memory_limit: float | None
    wall_time: float  # seconds, compute only (graph construction excluded)
    peak_rss: int  # bytes above the process's RSS just before compute
    tasks: int
    samples: list  # (seconds, bytes above baseline), thinned for plots
    spilled: int = 0  # bytes tidegate moved to disk
    peak_held: float = 0.0  # tidegate's own count of held bytes
    written: int = 0  # bytes tidegate wrote to spill files
    stats: dict | None = None  # tidegate's RunStats
    # The compute's own rusage (graph building and input reads excluded): user and system
    # CPU seconds, minor page faults, context switches (voluntary, involuntary).
    usage: dict | None = None


def _measure(workload: str, scheduler: str, inputs: dict, out: str, threads: int, memory_limit,
             trace_path: str | None = None):
    import dask

    import tidegate

    from .measure import RSSSampler
    from .workloads import build

    work = build(workload, inputs, out)
    ntasks = len(work.__dask_graph__())
    stats = None
    if scheduler == "threads":
        kwargs = {"scheduler": "threads", "num_workers": threads}
    else:
        kwargs = {
            "scheduler": tidegate.get,
            "num_workers": threads,
            "memory_limit": memory_limit,
            "policy": "priority" if scheduler == "priority" else "tidegate",
            "stats": (stats := tidegate.RunStats()),
        }
    from .trace import collecting

    with collecting() as traces, RSSSampler(0.01) as rss:
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        dask.compute(work, **kwargs)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
    if trace_path and traces:  # tidegate's runs leave their trace for reports
        traces[0].save(trace_path)
    step = max(1, len(rss.samples) // 400)
    samples = [(round(t, 3), max(0, b - rss.baseline)) for t, b in rss.samples[::step]]
    return Measurement(
        workload, scheduler, memory_limit, wall, rss.peak_above_baseline, ntasks, samples,
        stats.bytes_spilled if stats else 0, stats.peak_held_bytes if stats else 0.0,
        stats.spill_file_bytes if stats else 0, asdict(stats) if stats else None,
        {k: getattr(r1, f"ru_{k}") - getattr(r0, f"ru_{k}") for k in USAGE},
    )  # fmt: skip


def run_isolated(
    workload: str,
    scheduler: str,
    inputs: dict,
    threads: int = 2,
    memory_limit: float | None = None,
    timeout: float = 900,
    trace_path: str | None = None,
) -> Measurement:
    """Measure one run in a child process; its output zarr is removed afterwards.
    ``trace_path``: where a tidegate run saves its trace (JSON lines)."""
    if scheduler not in SCHEDULERS:
        raise ValueError(f"scheduler must be one of {SCHEDULERS}, got {scheduler!r}")
    out = tempfile.mkdtemp(prefix="tidegate-out-")
    try:
        cmd = [
            sys.executable, "-X", "faulthandler", "-m", "tidegate.compare",
            "--workload", workload, "--scheduler", scheduler,
            "--inputs", json.dumps(inputs), "--out", out, "--threads", str(threads),
        ]  # fmt: skip
        if memory_limit is not None:
            cmd += ["--memory-limit", str(memory_limit)]
        if trace_path is not None:
            cmd += ["--trace", str(trace_path)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode:
            raise RuntimeError(f"{workload} under {scheduler} failed (exit {proc.returncode}):\n"
                               f"{proc.stderr[-4000:]}")
        return Measurement(**json.loads(proc.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--workload", required=True)
    p.add_argument("--scheduler", required=True, choices=SCHEDULERS)
    p.add_argument("--inputs", required=True, help="JSON {name: zarr path}")
    p.add_argument("--out", required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory-limit", type=float, default=None)
    p.add_argument("--trace", default=None, help="save tidegate's trace here (JSON lines)")
    a = p.parse_args(argv)
    m = _measure(a.workload, a.scheduler, json.loads(a.inputs), a.out, a.threads, a.memory_limit,
                 a.trace)
    print(json.dumps(asdict(m)))


if __name__ == "__main__":
    main()
