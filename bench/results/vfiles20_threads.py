"""vfiles20: CPU seconds per thread of one vorticity-files run in this process (tidegate at a
limit, or dask threaded with "threads"), by Python thread name: the workers, tidegate's RSS
sampler, zarr's event loop and codec pool, the calling thread. A monitor reads
/proc/self/task/*/stat every 0.2 s and keeps each thread's last reading.

    PYTHONPATH=src python bench/results/vfiles20_threads.py 400e6|threads [FOLDER]
"""
import os, sys, threading, time, collections
import dask
import tidegate
from tidegate.workloads import build

arg = sys.argv[1]
folder = sys.argv[2] if len(sys.argv) > 2 else "/tmp/vfiles20-in"
tick = os.sysconf("SC_CLK_TCK")
last, names, stop = {}, {}, threading.Event()


def read():
    for tid in os.listdir("/proc/self/task"):
        try:
            f = open(f"/proc/self/task/{tid}/stat").read()
        except OSError:
            continue
        parts = f[f.rindex(")") + 2:].split()
        last[int(tid)] = (int(parts[11]) + int(parts[12])) / tick
    for t in threading.enumerate():
        if t.native_id:
            names[t.native_id] = t.name


def monitor():
    while not stop.wait(0.2):
        read()


y = build("vorticity-files", {n: f"{folder}/{n}.zarr" for n in "ab"}, "/tmp/vfiles20-thr-out")
read()
before = dict(last)
m = threading.Thread(target=monitor, name="monitor", daemon=True)
m.start()
t0 = time.perf_counter()
if arg == "threads":
    dask.compute(y, scheduler="threads", num_workers=2)
    stats = None
else:
    stats = tidegate.RunStats()
    dask.compute(y, scheduler=tidegate.get, num_workers=2, memory_limit=float(arg), stats=stats)
wall = time.perf_counter() - t0
stop.set(); m.join(); read()
by = collections.defaultdict(float)
for tid, c in last.items():
    name = names.get(tid, f"tid{tid}")
    if tid == threading.main_thread().native_id:
        name = "main"
    key = name.split("-")[0] if name.startswith(("ThreadPoolExecutor", "Thread")) else name
    by[key] += c - before.get(tid, 0.0)
print(f"{arg}: wall {wall:.2f} s, load {os.getloadavg()[0]:.1f}; cpu by thread: " +
      ", ".join(f"{k} {v:.2f}" for k, v in sorted(by.items(), key=lambda kv: -kv[1]) if v > 0.005))
if stats:
    print(f"  core_time {stats.core_time:.2f} s, recomputed {stats.tasks_recomputed}, gate {stats.gate_refusals}")
