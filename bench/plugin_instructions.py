"""Machine instructions executed per task in the twin's scheduler work (what plugin_cpu.py
times), tidegate against dask's queuing, counted by valgrind's callgrind: as exact as
plugin_ops.py's bytecodes, whatever the machine's load, but weighing each bytecode, dict
look-up and hash by what it costs in C. A proxy for the CPU ratio on a shared machine,
where process time swings 10-20% between runs.

    PYTHONHASHSEED=0 python bench/plugin_instructions.py [--workers 20] [--scale 0.2]
                                                         [--only stack-sum]

Needs valgrind and a C compiler (a 3-line helper toggles callgrind's counting around each
piece of scheduler work, built into a temporary directory). Counting is ~60x slower than
a plain run: 20 workers at scale 0.2 (stack-sum and anomaly) take ~20 minutes. One
process runs every workload and policy; each run's counts are dumped apart.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

# Steps per workload at scale 1, as in plugin_cpu.py (every seed workload).
STEPS = {"stack-sum": 2000, "vorticity": 2000, "slice-add": 2000, "anomaly": 1000,
         "running-total": 1000, "rechunk-add": 1000, "weighted": 1000}
HELPER = """#include <valgrind/callgrind.h>
void toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""


def count(args) -> None:
    """Inside valgrind: run every workload under both policies, dumping each run apart."""
    from tidegate.sim import cluster as sim_cluster
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    lib = ctypes.CDLL(args.helper)
    original = sim_cluster.SimCluster.scheduler_work

    def counted(cluster, fn, *a, **kwargs):
        def run(*b):
            lib.toggle()
            try:
                return fn(*b)
            finally:
                lib.toggle()

        original(cluster, run, *a, **kwargs)

    sim_cluster.SimCluster.scheduler_work = counted
    for name in args.only or ["stack-sum", "anomaly"]:
        w = build(name, int(STEPS[name] * args.scale), 190e6, store=False)
        model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
        for policy in ("queue", "tidegate"):
            lib.dump(b"setup")  # zeroes the counts: the next dump is this run's alone
            r = simulate(model, workers=args.workers, threads_per_worker=4, policy=policy,
                         bandwidth="1GB/s", record_memory=False)
            lib.dump(f"run {name} {policy} {len(r.trace.tasks)}".encode())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=20)
    ap.add_argument("--scale", type=float, default=0.2)
    ap.add_argument("--only", action="append", choices=sorted(STEPS))
    ap.add_argument("--helper", help=argparse.SUPPRESS)  # set when run inside valgrind
    args = ap.parse_args(argv)
    if args.helper:
        return count(args)
    tmp = tempfile.mkdtemp(prefix="plugin_instructions-")
    try:
        with open(os.path.join(tmp, "toggle.c"), "w") as f:
            f.write(HELPER)
        helper = os.path.join(tmp, "toggle.so")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", helper,
                        os.path.join(tmp, "toggle.c")], check=True)  # fmt: skip
        out = os.path.join(tmp, "callgrind.out")
        rest = [a for a in (argv if argv is not None else sys.argv[1:])]
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                        f"--callgrind-out-file={out}", sys.executable, os.path.abspath(__file__),
                        *rest, "--helper", helper],
                       check=True, stderr=subprocess.DEVNULL)  # fmt: skip
        runs: dict = {}
        for path in glob.glob(out + ".*"):
            with open(path) as f:
                text = f.read()
            label = re.search(r"Trigger: Client Request: run (\S+) (\S+) (\d+)", text)
            total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
            if label and total:
                name, policy, tasks = label.groups()
                runs.setdefault(name, {})[policy] = int(total.group(1)) / int(tasks)
        for name, r in runs.items():
            print(json.dumps({"workload": name, "workers": args.workers, "scale": args.scale,
                              "queue_instructions_per_task": round(r["queue"]),
                              "tidegate_instructions_per_task": round(r["tidegate"]),
                              "ratio": round(r["tidegate"] / r["queue"], 3)}), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
