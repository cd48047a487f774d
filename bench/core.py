"""Core cost alone: µs per task for the sans-I/O core, driven with no threads. CPU time
(process_time): stable on a shared machine.

The graph of bench/overhead.py (wide leaves, binary tree reduction) as a TaskGraph; the
driver finishes running tasks in batches as the thread runtime does (one handle_many per
batch of completions) and times start() plus every handle_many. Median of several reps.

    PYTHONPATH=src python bench/core.py [--tasks 100000] [--reps 5] [--workers 1] [--threads 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from tidegate.core import Finished, Run, Scheduler
from tidegate.graph import TaskGraph
from tidegate.policy import Policy, find_roots


def build(ntasks: int) -> TaskGraph:
    deps: dict = {}
    layer = []
    for i in range(ntasks // 2):
        deps[("leaf", i)] = []
        layer.append(("leaf", i))
    level = 0
    while len(layer) > 1:
        new = []
        for j in range(0, len(layer), 2):
            k = (f"reduce-{level}", j // 2)
            deps[k] = layer[j : j + 2]
            new.append(k)
        layer = new
        level += 1
    g = TaskGraph.from_dependencies(deps, layer)
    none = np.zeros(len(g), bool)
    g.root = find_roots(g.dep_ptr, g.dep_idx, g.ndependents, none, none)
    return g


def run_once(g: TaskGraph, workers: int, threads: int, budget: float) -> float:
    core = Scheduler(g, [(threads, budget)] * workers, Policy("tidegate", 1.1))
    elapsed = 0.0
    t0 = time.process_time()
    running = [a.task for a in core.start() if type(a) is Run]
    elapsed += time.process_time() - t0
    while running:
        events = [Finished(i, 80) for i in running]
        t0 = time.process_time()
        actions = core.handle_many(events)
        elapsed += time.process_time() - t0
        running = [a.task for a in actions if type(a) is Run]
    assert core.done
    return elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tasks", type=int, default=100_000)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--budget", type=float, default=math.inf)
    a = p.parse_args()
    g = build(a.tasks)
    times = [run_once(g, a.workers, a.threads, a.budget) for _ in range(a.reps)]
    us = statistics.median(times) / len(g) * 1e6
    spread = (min(times) / len(g) * 1e6, max(times) / len(g) * 1e6)
    print(f"{len(g)} tasks, {a.workers} x {a.threads} threads, budget {a.budget:g}: "
          f"core {us:.2f} µs/task (min {spread[0]:.2f}, max {spread[1]:.2f}, {a.reps} reps)")


if __name__ == "__main__":
    main()
