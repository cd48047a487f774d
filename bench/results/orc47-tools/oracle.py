"""An offline plan for the twin's anomaly (``a - a.mean(axis=0)``), driven into the twin.

orc47 (session 47, issue 9): what is the lowest peak per worker ANY schedule of this graph
reaches in the twin (dask's real tree reduction, each chunk loaded once, dask's worker state
machines, 1 GB/s)? A plan says, computed offline with the whole graph and every size known:

- ``where[key]``: the worker (index) of every task;
- ``order[w]``: worker w's roots (loads) in release order, at most ``cap[w]`` processing at once;
- ``gates[key]``: keys that must have finished (run to memory once) before ``key`` may go to
  its worker; a gated task waits in dask's ``no-worker`` state until then (roots and
  combines alike).

:class:`Oracle` installs the plan on the twin's scheduler as tidegate's plugin installs its
hooks (on the instance): ``is_rootish`` says no to every task, so every ready task comes
through ``decide_worker_non_rootish``, which answers from ``where`` (None while withheld:
dask parks it in ``no-worker``); ``stimulus_queue_slots_maybe_opened``, which dask calls
after every stimulus's transitions, releases what the plan lets go (dask's own
``no-worker -> processing`` transition, which asks ``decide_worker_non_rootish`` again).
Work stealing is off (it would move the plan's tasks). Nothing else of dask is replaced: the
workers fetch, run by priority and free as dask's WorkerState does.

    python bench/results/orc47-tools/oracle.py --workers 100 --plan whole
    python bench/results/orc47-tools/oracle.py --workers 20 --plan hosts --hosts 2 ...
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
from collections import defaultdict

import dask.config
from dask.utils import key_split
from distributed.diagnostics.plugin import SchedulerPlugin

from tidegate.sim import SimResult
from tidegate.sim.cluster import SimCluster
from tidegate.sim.workloads import build
from tidegate.trace import Trace

C = 189_969_032  # one load (and one chunk-mean, one aggregate): 190 MB


# -- the graph ------------------------------------------------------------------------------
class Tree:
    """The anomaly's tasks by role: loads[i], cms[i], stores[i] by step i; combines by
    level (1: of 4 chunk-means, 2+: of 4 partials), each with its children and its leaves
    (steps); the aggregate; the shared handle (original-open-u)."""

    def __init__(self, model) -> None:
        dsk = model.dsk
        self.model = model
        self.loads, self.cms, self.stores = {}, {}, {}
        self.handle = None
        self.agg = None
        for k, node in dsk.items():
            g = key_split(k[0] if isinstance(k, tuple) else k)
            if g == "open-u" and isinstance(k, tuple):
                self.loads[k[1]] = k
            elif g == "mean_chunk":
                self.cms[k[1]] = k
            elif g == "store-map":
                self.stores[k[1]] = k
            elif g == "mean_agg-aggregate":
                self.agg = k
            elif not isinstance(k, tuple):
                self.handle = k
        self.children = {k: sorted(dsk[k].dependencies, key=lambda d: d[1])
                         for k in dsk if key_split(k[0] if isinstance(k, tuple) else k)
                         in ("mean_combine-partial", "mean_agg-aggregate")}
        step = {v: i for i, v in self.cms.items()}
        self.level, self.leaves = {}, {}

        def walk(k):
            if k in step:
                return 0, [step[k]]
            lv, leaves = 0, []
            for c in self.children[k]:
                a, b = walk(c)
                lv, leaves = max(lv, a + 1), leaves + b
            self.level[k], self.leaves[k] = lv, sorted(leaves)
            return lv, self.leaves[k]

        walk(self.agg)
        self.n = len(self.loads)
        self.by_level = defaultdict(list)
        for k, lv in self.level.items():
            if k != self.agg:
                self.by_level[lv].append(k)
        for lv in self.by_level:
            self.by_level[lv].sort(key=lambda k: self.leaves[k][0])
        self.parent = {c: k for k, cs in self.children.items() for c in cs}
        # a chunk-mean's level-1 combine
        self.l1_of = {i: self.parent[self.cms[i]] for i in self.cms}


# -- the plan -------------------------------------------------------------------------------
class Plan:
    def __init__(self, workers: int, threads: int) -> None:
        self.workers = workers
        self.where: dict = {}
        self.order: list[list] = [[] for _ in range(workers)]
        self.cap = [threads] * workers
        self.gates: dict = {}
        self.priority: dict = {}  # key -> a tuple replacing dask.order's (None: dask's)
        self.name = "?"


class Oracle(SchedulerPlugin):
    """The plan's hooks on a twin scheduler (see the module)."""

    name = "orc47-oracle"

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.done: set = set()
        self.released: set = set()  # gated or root keys let go
        self.processing = [0] * plan.workers  # roots processing per worker
        self.next = [0] * plan.workers  # index into plan.order[w]
        self.roots = {k: w for w, ks in enumerate(plan.order) for k in ks}
        self.waiting_gate: set = set()  # non-root keys parked in no-worker by their gate

    def install(self, s) -> None:
        self.s = s
        self.addr = list(s.workers)  # sorted addresses: index i is twin worker i
        assert len(self.addr) == self.plan.workers
        s.is_rootish = lambda ts: False
        s.decide_worker_non_rootish = self.decide
        s.stimulus_queue_slots_maybe_opened = self.release
        create = s._create_taskstate_from_graph

        @functools.wraps(create)  # the twin reads its signature
        def created(*a, **kw):
            out = create(*a, **kw)
            for k, p in self.plan.priority.items():
                ts = s.tasks.get(k)
                if ts is not None:
                    ts.priority = p
            self.release(stimulus_id="orc47-start")
            return out

        s._create_taskstate_from_graph = created
        s.add_plugin(self, name=self.name)
        # Also on a tick: a worker's data freed (release-worker-data) is no stimulus that
        # calls stimulus_queue_slots_maybe_opened, and may be what a waiting task needs.
        s.periodic_callbacks.add("orc47", lambda: self.release(stimulus_id="orc47-tick"), 0.02)
        s.periodic_callbacks["orc47"].start()

    # SchedulerPlugin's hooks the scheduler calls
    def transition(self, key, start, finish, *args, **kwargs) -> None:
        if start == "processing":
            w = self.roots.get(key)
            if w is not None:
                self.processing[w] -= 1
            if finish == "memory":
                self.done.add(key)
        elif finish == "processing":
            w = self.roots.get(key)
            if w is not None:
                self.processing[w] += 1

    def _open(self, key) -> bool:
        gate = self.plan.gates.get(key)
        return not gate or all(g in self.done for g in gate)

    def decide(self, ts):
        key = ts.key
        w = self.plan.where.get(key)
        if w is None:  # not in the plan (none expected): anywhere
            return self.s.workers[self.addr[0]]
        if key in self.roots or key in self.plan.gates:
            if key not in self.released:
                if key not in self.roots:
                    self.waiting_gate.add(key)
                return None
        return self.s.workers[self.addr[w]]

    def release(self, *, stimulus_id: str) -> None:
        s = self.s
        recs = {}
        for key in list(self.waiting_gate):
            if self._open(key):
                self.waiting_gate.discard(key)
                self.released.add(key)
                ts = s.tasks[key]
                if ts.state == "no-worker":
                    recs[key] = "processing"
        order, cap, nxt, proc = self.plan.order, self.plan.cap, self.next, self.processing
        for w in range(self.plan.workers):
            n = proc[w]
            while nxt[w] < len(order[w]) and n < cap[w]:
                key = order[w][nxt[w]]
                if not self._open(key) or s.tasks[key].state != "no-worker":
                    break
                nxt[w] += 1
                self.released.add(key)
                ts = s.tasks[key]
                if ts.state == "no-worker":
                    recs[key] = "processing"
                    n += 1
        if recs:
            s.transitions(recs, stimulus_id)


def run(model, plan: Plan, *, threads: int = 4, bandwidth: float = 1e9, seed: int = 0,
        watch=None):
    """The twin as tidegate.sim._run builds it for dask's queuing, with the oracle's hooks
    instead of a policy, stealing off."""
    trace = Trace(meta={"name": "oracle", "body": "twin", "policy": "oracle"})
    cfg = {"distributed.scheduler.worker-saturation": 1.1,
           "distributed.admin.low-level-log-length": 100}
    opts = dict(workers=plan.workers, threads_per_worker=threads, bandwidth=bandwidth,
                latency=0.001, outgoing_bandwidth=None, scheduler_time=100e-6, loop_lag=0.0,
                thread_lag=None, memory_limit=0, stealing=False, validate=False,
                record_memory=False)
    with dask.config.set(cfg):
        cluster = SimCluster(model, trace=trace, seed=seed, **opts)
        make = getattr(plan, "controller", None)
        oracle = make(plan) if make else Oracle(plan)
        oracle.install(cluster.scheduler)
        try:
            makespan = cluster.run()
        except Exception as exc:  # a plan that deadlocks: say where
            s = cluster.scheduler
            pend = getattr(oracle, "pending", {})
            projs = sorted(((oracle.proj(w) / C if hasattr(oracle, "proj") else 0), w)
                           for w in range(plan.workers))
            print(f"STALLED at t={cluster.clock.now:.2f}: {type(exc).__name__}; "
                  f"{len(pend)} combines wait ({sorted(set(getattr(oracle.tree, 'level', {}).get(k, -1) for k in pend))}); "
                  f"lowest projections {[(round(p, 1), w) for p, w in projs[:5]]}; "
                  f"loads left {sum(len(o) for o in plan.order) - sum(oracle.next)}")
            raise SystemExit(2)
    return SimResult(policy="oracle", peak_memory_per_worker=[w.peak for w in
                     cluster.workers.values()], makespan=makespan,
                     bytes_transferred=cluster.bytes_transferred, trace=trace,
                     messages=cluster.messages, unknown_sizes=model.unknown), oracle


# -- what a worker holds at its peak --------------------------------------------------------
def composition(worker) -> dict:
    """Held chunks on a twin worker by role, in units of C (loads, chunk-means, partials,
    aggregate), and its tasks executing."""
    out = defaultdict(float)
    for t in worker.state.tasks.values():
        if t.state == "memory" and t.nbytes > 1e6:
            g = key_split(t.key[0] if isinstance(t.key, tuple) else t.key)
            role = {"open-u": "L", "mean_chunk": "cm", "mean_agg-aggregate": "agg"}.get(g, "P")
            out[role] += t.nbytes / C
    return (dict(out),)


def run_watched(model, plan, **kw):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    from twin_peaks import watch_workers

    with watch_workers(composition, lambda w, k: None) as snap:
        r, oracle = run(model, plan, **kw)
    return r, oracle, snap


def report(r, snap, queue=None, top=3) -> dict:
    peak = max(r.peak_memory_per_worker)
    out = {"plan": r.policy, "peak": peak, "peak_c": peak / C, "makespan": r.makespan,
           "moved": r.bytes_transferred}
    q = f" ({peak / queue['peak_per_worker']:.3f}x queue's, makespan " \
        f"{r.makespan / queue['makespan']:.2f}x, moved " \
        f"{r.bytes_transferred / queue['bytes_transferred']:.2f}x)" if queue else ""
    print(f"peak {peak / 1e9:.3f} GB = {peak / C:.2f} C{q}; makespan {r.makespan:.2f} s; "
          f"moved {r.bytes_transferred / 1e9:.1f} GB")
    for a, (n, t, comp) in sorted(snap.items(), key=lambda kv: -kv[1][0])[:top]:
        parts = " ".join(f"{k}={v:.0f}" for k, v in sorted(comp.items()))
        print(f"  {str(a).split('//')[-1]} {n / C:.2f} C at t={t:.2f}: {parts}")
    return out


def main(argv=None):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from plans import PLANS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=100)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--plan", default="whole", choices=sorted(PLANS))
    ap.add_argument("--set", action="append", default=[], help="param=value for the plan")
    ap.add_argument("--queue", default=None, help="twin_workloads JSON with queue's row")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    params = {}
    for s in args.set:
        k, v = s.split("=", 1)
        params[k] = float(v) if "." in v else int(v) if v.lstrip("-").isdigit() else v
    model = build("anomaly", args.steps, 190e6, store=False).model()
    tree = Tree(model)
    plan = PLANS[args.plan](tree, args.workers, args.threads, **params)
    queue = None
    if args.queue:
        queue = json.load(open(args.queue))["results"]["anomaly"]["queue"]
    r, oracle, snap = run_watched(model, plan, threads=args.threads)
    r.policy = f"{args.plan} {params}"
    out = report(r, snap, queue, args.top)
    out["forced"] = getattr(oracle, "forced", 0)
    ends = {}
    for t in r.trace.tasks:
        ends.setdefault(t.group, []).append(t.stop)
    out["phases"] = {g: (round(min(v), 2), round(max(v), 2)) for g, v in ends.items()
                     if g in ("open-u", "mean_agg-aggregate", "store-map")}
    print("  phases (first, last end):", out["phases"])
    if out["forced"]:
        print(f"  (progress rule forced {out['forced']} steps past the cap)")
    out["tasks"] = len(r.trace.tasks)
    assert out["tasks"] == len(model.dsk), (out["tasks"], len(model.dsk))
    if args.out:
        with open(args.out, "a") as f:
            f.write(json.dumps({**out, "workers": args.workers, "params": params}) + "\n")


if __name__ == "__main__":
    main()
