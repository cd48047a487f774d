"""Do two versions of the twin make the same decisions? A sha256 of each run's whole trace
(every task end, transfer, memory sample and the meta) plus its summary, over a spread of
configurations: every seed workload x eager/queue/tidegate on 4x2 and 20x4 workers, and
variants for each twin option (lags constant and drawn, thread lag, receivers-only network,
a memory limit, stealing off, another seed, validation on, plugin options); then every
seed workload in its store form (``s-<name>``: stores returning None, one final task, see
tidegate.sim.workloads; session 9). A code without the store form skips those: they are
listed as new, not compared.

    python bench/sim_fingerprints.py [--against OTHER/src] [--only SUBSTRING]

Each code runs in its own process; prints one line per configuration and the count that
match. A speed change that claims "traces unchanged" should show every line identical.
"""

from __future__ import annotations

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import argparse
import hashlib
import json
import math
import re
import subprocess
from pathlib import Path


def configs() -> list[tuple[str, str, dict]]:
    """(name, graph, options) triples; graph names are built by ``graph()``."""
    out = []
    graphs = ["stack-sum", "slice-add", "rechunk-add", "weighted", "vorticity",
              "running-total", "anomaly", "f-vorticity", "f-unique"]
    for g in graphs:
        for workers, threads in ((4, 2), (20, 4)):
            for p in ("eager", "queue", "tidegate"):
                out.append((f"{g}/{workers}x{threads}/{p}", g,
                            dict(workers=workers, threads_per_worker=threads, policy=p)))
    variants = {
        "lag": dict(loop_lag=0.003),
        "drawn": dict(loop_lag=[0.001, 0.004, 0.02], seed=1),
        "thread-lag": dict(loop_lag=0.001, thread_lag=[0.002, 0.01]),
        "receivers": dict(outgoing_bandwidth=math.inf),
        "memlimit": dict(worker_memory_limit="400MB"),
        "nosteal": dict(stealing=False),
        "seed3": dict(seed=3),
        "validate": dict(validate=True),
        "norecord": dict(record_memory=False),
        "budget": dict(memory_limit="200MB"),
    }
    for name, extra in variants.items():
        for g in ("vorticity", "anomaly", "f-unique"):
            for p in ("eager", "queue", "tidegate"):
                if name == "budget" and p != "tidegate":
                    continue
                out.append((f"{g}/8x2/{p}/{name}", g,
                            dict(workers=8, threads_per_worker=2, policy=p, **extra)))
    for g in graphs[:7]:  # the seed workloads in their store form
        for workers, threads in ((4, 2), (20, 4)):
            for p in ("eager", "queue", "tidegate"):
                out.append((f"s-{g}/{workers}x{threads}/{p}", "s-" + g,
                            dict(workers=workers, threads_per_worker=threads, policy=p)))
    return out


def graph(name: str):
    """(x, keys, sizes, durations) for simulate."""
    if name.startswith("f-"):
        from tidegate.sim import fidelity

        g = {"vorticity": fidelity.vorticity, "unique": fidelity.unique_loaders}[name[2:]](steps=24)
        return g.dsk, g.keys, g.sizes, g.durations
    from tidegate.sim.workloads import build

    if name.startswith("s-"):  # TypeError on a code without the store form
        return build(name[2:], steps=24, chunk_bytes=50e6, store=True).model(), None, None, None
    w = build(name, steps=24, chunk_bytes=50e6, store=False)
    return w.graph, w.keys, w.sizes, w.durations


def digest(r) -> str:
    t = r.trace
    text = "".join(repr(part) for part in (t.tasks, t.transfers, t.memory, t.spills))
    text += json.dumps(t.meta, sort_keys=True, default=repr)
    text += repr((r.peak_memory_per_worker, r.makespan, r.bytes_transferred, r.messages))
    # dask's tokens in key names, numbered by first appearance: older dask tokenizes the
    # workloads' data stand-ins at random, which says nothing about the schedule
    tokens: dict = {}
    text = re.sub(r"[0-9a-f]{32}", lambda m: str(tokens.setdefault(m[0], len(tokens))), text)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def child(only: str) -> dict:
    from tidegate.sim import simulate

    built: dict = {}
    out = {}
    for name, g, opts in configs():
        if only and only not in name:
            continue
        if g not in built:
            try:
                built[g] = graph(g)
            except TypeError:
                if not g.startswith("s-"):
                    raise
                built[g] = None  # this code has no store form
        if built[g] is None:
            continue
        x, keys, sizes, durations = built[g]
        r = simulate(x, keys=keys, sizes=sizes, durations=durations, **opts)
        out[name] = digest(r)
    return out


def run(src: str, only: str) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, __file__, "--child", "--only", only], env=env,
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", default=None, metavar="SRC")
    ap.add_argument("--only", default="")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", default=None, help="write {config: digest} of this code here")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.only)))
        return
    here = str(Path(__file__).resolve().parents[1] / "src")
    mine = run(here, args.only)
    if args.json:
        Path(args.json).write_text(json.dumps(mine, indent=1))
    if not args.against:
        for k, v in mine.items():
            print(f"{v}  {k}")
        print(f"{len(mine)} runs")
        return
    theirs = run(args.against, args.only)
    same = new = 0
    for k, v in mine.items():
        if k not in theirs:  # a configuration the other code cannot run
            new += 1
            print(f"NEW   {v}  {'-' * 16}  {k}")
            continue
        ok = theirs[k] == v
        same += ok
        print(f"{'same' if ok else 'DIFF'}  {v}  {theirs.get(k)}  {k}")
    print(f"{same} of {len(mine) - new} identical" + (f"; {new} new, not compared" if new else ""))
    sys.exit(0 if same == len(mine) - new else 1)


if __name__ == "__main__":
    main()
