"""rechunk18: one run of a seed workload in this process, with where its time and memory go.

    PYTHONPATH=src python bench/results/rechunk18_diag.py tidegate 153e6 2 [trace.jsonl]
    PYTHONPATH=src python bench/results/rechunk18_diag.py threads 0 1          # dask threaded, 1 thread
    ALLOC=tight PYTHONPATH=src python bench/results/rechunk18_diag.py threads 0 1
        # dask threaded under tidegate's glibc settings (every block of 128 KiB or more a
        # fresh mapping): the one-thread floor for a run whose RSS must show what it holds
    WL=vorticity-files ...   # another workload (default rechunk-add)

Prints wall, the compute's user/sys CPU and minor faults, peak RSS above the start; for
tidegate its spill counts, busy seconds per group, seconds with 0/1/2 tasks running and
bytes spilled/loaded per group. Inputs (2 x 0.8 GB zarr, bench/rss.py's) are written once
to $INPUTS (default /tmp/rechunk18/inputs). Run each in a fresh process."""
import collections
import os
import resource
import shutil
import sys
import tempfile
import time

import dask

import tidegate
import tidegate.local
import tidegate.measure as measure
from tidegate.measure import RSSSampler
from tidegate.trace import collecting
from tidegate.workloads import build, make_inputs

sched, limit, threads = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
alloc = os.environ.get("ALLOC", "")
if alloc == "tight":  # tidegate's settings for the whole compute, whatever runs it
    measure.return_freed_memory_to_os(at_once=True)
elif alloc == "loose":  # none at all (tidegate's limit then does not hold)
    tidegate.local.return_freed_memory_to_os = lambda at_once=True: None
    tidegate.local.leave_freed_memory_to_glibc = lambda: None
    measure.tighten = lambda: True
folder = os.environ.get("INPUTS", "/tmp/rechunk18/inputs")
if not os.path.exists(os.path.join(folder, "b.zarr")):
    os.makedirs(folder, exist_ok=True)
    make_inputs(folder, 100)
inputs = {"a": os.path.join(folder, "a.zarr"), "b": os.path.join(folder, "b.zarr")}
out = tempfile.mkdtemp(prefix="rechunk18-out-")
work = build(os.environ.get("WL", "rechunk-add"), inputs, out)
stats = tidegate.RunStats()
kw = dict(scheduler="threads", num_workers=threads) if sched == "threads" else dict(
    scheduler=tidegate.get, num_workers=threads, memory_limit=limit, stats=stats)
with collecting() as traces, RSSSampler(0.01) as rss:
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    dask.compute(work, **kw)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
shutil.rmtree(out, ignore_errors=True)
print(f"{sched}{' ' + alloc if alloc else ''} {limit / 1e6:.0f}MB th={threads}: wall {wall:.2f} "
      f"user {r1.ru_utime - r0.ru_utime:.2f} sys {r1.ru_stime - r0.ru_stime:.2f} "
      f"faults {r1.ru_minflt - r0.ru_minflt} peak {rss.peak_above_baseline / 1e6:.0f}MB")
if sched == "threads":
    sys.exit()
s = stats
print(f"spilled {s.bytes_spilled / 1e6:.0f} loaded {s.bytes_loaded / 1e6:.0f} written "
      f"{s.spill_file_bytes / 1e6:.0f} spill_time {s.spill_time:.2f} dropped "
      f"{s.bytes_dropped / 1e6:.0f} recomputed {s.tasks_recomputed} core {s.core_time:.2f} "
      f"fewest {s.fewest_threads} gate {s.gate_refusals}")
tr = traces[0]
by = collections.defaultdict(lambda: [0, 0.0])
for t in tr.tasks:
    by[t.group][0] += 1
    by[t.group][1] += t.stop - t.start
for g, (n, d) in sorted(by.items(), key=lambda kv: -kv[1][1]):
    print(f"  {g:50s} n={n:4d} busy={d:6.2f}s")
ev = sorted([(t.start, 1) for t in tr.tasks] + [(t.stop, -1) for t in tr.tasks])
acc = collections.Counter()
cur, last = 0, ev[0][0]
for tt, d in ev:
    acc[cur] += tt - last
    cur, last = cur + d, tt
print("  seconds by tasks running:", {k: round(v, 2) for k, v in sorted(acc.items())})
moved = {"spill": collections.Counter(), "load": collections.Counter()}
for e in tr.spills:
    moved[e.direction][e.key.split("'")[1] if "'" in e.key else e.key] += e.nbytes
for k, c in moved.items():
    print(f"  {k} MB by group:", {g: round(v / 1e6) for g, v in c.items()})
if len(sys.argv) > 4:
    tr.save(sys.argv[4])
