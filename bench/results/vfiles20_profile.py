"""vfiles20: where vorticity-files' time goes, in CPU seconds (load-insensitive where it can be).

    PYTHONPATH=src python bench/results/vfiles20_profile.py CELLS [--reps N] [--against SRC]
        [--steps 100] [--json OUT]

CELLS: comma-separated, each "threads1", "threads2" (dask threaded on 1 or 2 threads) or a
memory limit for tidegate on 2 threads ("300MB"). With --against, each tidegate cell also runs
on that src (cell name "<limit> base"). Every run is a fresh process (this file run as a child).

Per run: the compute's wall, process CPU (user+sys, rusage), minor faults; per task function
(read, vorticity arithmetic, zarr store), the CPU the calling thread spent in it
(time.thread_time around the call), its wall, and how the functions overlapped: seconds with
0/1/2 heavy calls (vorticity or store) and with 0/1/2 of any call running. "rest" = process
CPU - the functions' CPU (scheduling, hand-offs, the RSS sampler, malloc_trim, page zeroing
outside the calls). Under tidegate: gate refusals, idle seconds, threads fitted, from RunStats,
and from its trace the seconds with 0/1/2 tasks running."""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def child(cell, inputs, out, steps):
    import dask
    import dask.array.core as dac
    import tidegate
    from tidegate import workloads as W
    from tidegate.measure import RSSSampler
    from tidegate.trace import collecting

    rec, lock = [], threading.Lock()

    def wrap(name, fn):
        def inner(*a, **k):
            c0, t0 = time.thread_time(), time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                t1, c1 = time.perf_counter(), time.thread_time()
                with lock:
                    rec.append((name, threading.get_ident(), t0, t1, c1 - c0))
        inner.__name__ = fn.__name__
        inner.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        return inner

    W._read_step = wrap("read", W._read_step)
    W._vorticity_step = wrap("vorticity", W._vorticity_step)
    dac.load_store_chunk = wrap("store", dac.load_store_chunk)
    work = W.build("vorticity-files", inputs, out)
    if cell.startswith("threads"):
        kw = {"scheduler": "threads", "num_workers": int(cell[7:])}
        stats = None
    else:
        from dask.utils import parse_bytes
        stats = tidegate.RunStats()
        kw = {"scheduler": tidegate.get, "num_workers": 2,
              "memory_limit": float(parse_bytes(cell.split()[0])), "stats": stats}
    with collecting() as traces, RSSSampler(0.01) as rss:
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        dask.compute(work, **kw)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    g_cpu, g_wall, g_n = defaultdict(float), defaultdict(float), defaultdict(int)
    for name, _, a, b, c in rec:
        g_cpu[name] += c
        g_wall[name] += b - a
        g_n[name] += 1
    r = {"cell": cell, "wall": wall, "cpu": cpu, "user": r1.ru_utime - r0.ru_utime,
         "sys": r1.ru_stime - r0.ru_stime, "minflt": r1.ru_minflt - r0.ru_minflt,
         "peak": rss.peak_above_baseline, "load": os.getloadavg()[0],
         "fn_cpu": {k: round(v, 3) for k, v in g_cpu.items()},
         "fn_wall": {k: round(v, 3) for k, v in g_wall.items()}, "fn_n": dict(g_n),
         "rest_cpu": round(cpu - sum(g_cpu.values()), 3)}
    r["heavy_conc"] = conc([(a, b) for n, _, a, b, _ in rec if n != "read"], t0, t0 + wall)
    r["any_conc"] = conc([(a, b) for _, _, a, b, _ in rec], t0, t0 + wall)
    if stats is not None:
        s = stats
        r.update(gate_refusals=s.gate_refusals, gate_idle=round(s.gate_idle_time, 3),
                 fewest=s.fewest_threads, written=s.spill_file_bytes, dropped=s.bytes_dropped,
                 recomputed=s.tasks_recomputed, limit_for_all=s.limit_for_all_threads)
        for k in ("core_time", "spill_time", "lowest_budget", "peak_held_bytes"):
            if hasattr(s, k):
                r[k] = getattr(s, k)
        if traces:
            tasks = traces[0].tasks
            r["task_conc"] = conc([(t.start, t.stop) for t in tasks], None, None)
            gs = defaultdict(float)
            for t in tasks:
                gs[t.group] += t.stop - t.start
            r["task_groups"] = {k: round(v, 2) for k, v in sorted(gs.items(), key=lambda kv: -kv[1])}
    return r


def conc(spans, lo, hi):
    if not spans:
        return {}
    ev = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    lo = ev[0][0] if lo is None else lo
    out, n, last = defaultdict(float), 0, lo
    for t, d in ev:
        out[n] += t - last
        n, last = n + d, t
    if hi is not None:
        out[n] += hi - last
    return {k: round(v, 3) for k, v in sorted(out.items())}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        cell, inputs, out, steps = sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], int(sys.argv[5])
        print(json.dumps(child(cell, inputs, out, steps)))
        return
    p = argparse.ArgumentParser()
    p.add_argument("cells")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--against", default=None)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--inputs", default=None, help="a folder with a.zarr, b.zarr (made if absent)")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    cells = []
    for c in a.cells.split(","):
        cells.append((c, None))
        if a.against and not c.startswith("threads"):
            cells.append((c + " base", a.against))
    folder = a.inputs or tempfile.mkdtemp(prefix="vfiles20-in-")
    from tidegate.workloads import make_inputs
    if not os.path.exists(os.path.join(folder, "b.zarr")):
        make_inputs(folder, a.steps)
    inputs = {n: os.path.join(folder, f"{n}.zarr") for n in "ab"}
    runs = []
    try:
        for rep in range(a.reps):
            for cell, src in (cells if rep % 2 == 0 else cells[::-1]):
                out = tempfile.mkdtemp(prefix="vfiles20-out-")
                env = dict(os.environ)
                if src:
                    env["PYTHONPATH"] = src
                try:
                    proc = subprocess.run([sys.executable, __file__, "--child", cell,
                                           json.dumps(inputs), out, str(a.steps)],
                                          capture_output=True, text=True, env=env, timeout=900)
                finally:
                    shutil.rmtree(out, ignore_errors=True)
                if proc.returncode:
                    print(proc.stderr[-3000:], file=sys.stderr)
                    continue
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                r["rep"] = rep
                runs.append(r)
                print(json.dumps(r), flush=True)
    finally:
        if a.inputs is None:
            shutil.rmtree(folder, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
