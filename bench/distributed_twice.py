"""Several computations in a row on one LocalCluster: what the broadcast's learnt fan-out
(policy.BROADCAST_LEARN) decides per computation, and what it costs or saves.

The fan-out's verdict lives per plugin install (broadcast.Broadcast, made at _resync), not
per graph, so a later computation on the same scheduler starts with what the earlier ones
learnt (anom39, in the twin). This measures it on a real cluster: per pair, one fresh
cluster per mode (``--modes``, order alternated pair by pair), each running the workload
``--computations`` times; per computation: wall, peak managed bytes and RSS growth of the
busiest worker (reset between computations), bytes moved, the machine's 1-minute load,
and the plugin's broadcast record: level before/after, verdicts (copy durations, free?),
copies started, the most copies one holder had out at once per input, the broadcast's span
(first copy started to last copy landed, on the scheduler loop's clock).

    PYTHONPATH=src python bench/distributed_twice.py --only seed-anomaly --workers 4
        --threads 1 [--bandwidth 200e6] --pairs 6 --computations 2 --out X.json

Modes: learn0 / learn1 (tidegate with BROADCAST_LEARN 0 / 1), learn1f (1 with
BROADCAST_RATE_FLOOR 1), queue (dask's own queuing).
The scheduler runs in this process (LocalCluster), so the policy switch set here is the
scheduler's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from collections import deque

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
_spec = importlib.util.spec_from_file_location("tg_bench_distributed",
                                               os.path.join(_here, "distributed.py"))
B = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(B)

import dask  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402

import tidegate.distributed as td  # noqa: E402
from tidegate import policy  # noqa: E402
from tidegate.testing import QUIET_MEMORY  # noqa: E402


class _TimedLog(deque):
    """Broadcast.log with the scheduler loop's time of each copy's start appended."""

    def __init__(self, s, maxlen=10_000):
        super().__init__(maxlen=maxlen)
        self.s = s

    def append(self, item):
        super().append((*item, self.s.loop.time()))


def _landings(s, out: list) -> None:
    """Record (time, worker, keys) of every add-keys (outermost wrapper; the plugin's own
    watch stays inside it)."""
    original = s.stream_handlers["add-keys"]

    def add_keys(*args, keys=(), **kwargs):
        out.append((s.loop.time(), kwargs.get("worker", args[0] if args else None),
                    tuple(keys)))
        return original(*args, keys=keys, **kwargs)

    s.stream_handlers["add-keys"] = add_keys


def _slow_sender(bandwidth, fair=False):
    """A worker plugin: each worker's copies out (its get_data replies) share a link of
    ``bandwidth`` bytes/s. ``fair`` False: one after another, nbytes / bandwidth each (an
    asyncio lock, FIFO: the twin's sender model). True: the link shared equally by the
    copies on it at each moment (TCP's fair share; a fluid model stepped every 2 ms), so
    copies started together land together, each slowed alike. tidegate.demo.SlowNetwork
    slows each fetch into a worker alone, concurrent ones in parallel: senders free."""
    import asyncio

    from distributed.diagnostics.plugin import WorkerPlugin

    class SlowSender(WorkerPlugin):
        name = "tidegate-slow-sender"

        def __init__(self, bandwidth, fair):
            self.bandwidth, self.fair = float(bandwidth), bool(fair)

        def setup(self, worker):
            original, bw, fair, box = worker.handlers["get_data"], self.bandwidth, \
                self.fair, {}
            loop_time = asyncio.get_event_loop

            async def share(nbytes):
                active = box.setdefault("active", {})
                done = asyncio.Event()
                active[done] = float(nbytes)
                if "pump" not in box or box["pump"].done():
                    box["pump"] = asyncio.ensure_future(pump(active))
                await done.wait()

            async def pump(active):
                last = loop_time().time()
                while active:
                    await asyncio.sleep(0.002)
                    now = loop_time().time()
                    each = bw * (now - last) / len(active)
                    last = now
                    for ev in list(active):
                        active[ev] -= each
                        if active[ev] <= 0:
                            del active[ev]
                            ev.set()

            async def get_data(comm, keys, who=None, serializers=None):
                tasks = worker.state.tasks
                nbytes = sum((tasks[k].nbytes or 0) for k in keys if k in tasks)
                if fair:
                    await share(nbytes)
                else:
                    if "lock" not in box:
                        box["lock"] = asyncio.Lock()
                    async with box["lock"]:
                        await asyncio.sleep(nbytes / bw)
                return await original(comm, keys, who=who, serializers=serializers)

            worker.handlers["get_data"] = get_data

    return SlowSender(bandwidth, fair)


def _reset_peaks(dask_worker):
    p = dask_worker.plugins["tidegate-peak-memory"]
    p.base = p.rss = p.proc.memory_info().rss  # growth counted from here
    p.managed = dask_worker.state.nbytes
    return dask_worker.transfer_outgoing_bytes_total


def _peaks(dask_worker):
    p = dask_worker.plugins["tidegate-peak-memory"]
    p.sample()
    return {"rss": p.rss - p.base, "managed": p.managed,
            "sent": dask_worker.transfer_outgoing_bytes_total}


def _plugin(s):
    return next((v for v in s.plugins.values() if isinstance(v, td.Plugin)), None)


def _broadcast_record(b, log_from, lands, lands_from):
    """What the broadcast did in one computation: its copies (from b.log entries past
    ``log_from``) and their landings (``lands`` past ``lands_from``)."""
    log = list(b.log)[log_from:]
    starts: dict = {}  # (key, dest) -> (src, start)
    for key, dest, src, _sid, t in log:
        starts[key, dest] = (src, t)
    landed: dict = {}
    for t, worker, keys in lands[lands_from:]:
        for k in keys:
            if (k, worker) in starts and (k, worker) not in landed:
                landed[k, worker] = t
    per_key: dict = {}
    for (key, dest), (src, t) in starts.items():
        e = per_key.setdefault(str(key), {"copies": 0, "t0": t, "t1": t, "out": []})
        e["copies"] += 1
        e["t0"] = min(e["t0"], t)
        end = landed.get((key, dest))
        if end is not None:
            e["t1"] = max(e["t1"], end)
        e["out"].append((src, t, end, dest))
    summary = {}
    for key, e in per_key.items():
        # the most copies one holder had out at once (its fan-out as decided)
        most = 0
        for src, t, _, _d in e["out"]:
            n = sum(1 for s2, a, z, _d in e["out"] if s2 == src and a <= t and (z is None or z > t))
            most = max(most, n)
        hops = _hops(e["out"])
        summary[key[:48]] = {"copies": e["copies"], "most_at_once": most, "hops": hops,
                             "span_s": round(e["t1"] - e["t0"], 4)}
    return summary


def _hops(out) -> int:
    """Rounds of copies: a copy from a holder that itself received a copy of the input in
    this computation is one hop further than that one."""
    hop = {}  # receiver -> its copy's hop
    for dest, src, _t in sorted(((d, s, t) for s, t, _, d in out), key=lambda x: x[2]):
        hop[dest] = hop.get(src, 0) + 1
    return max(hop.values(), default=0)


def _drop_outputs() -> None:
    """This computation's zarr result (the disk is shared: each run's 256-384 MB)."""
    import shutil

    folder = B._INPUTS.get("folder")
    for e in os.scandir(folder) if folder else ():
        if e.is_dir() and e.name not in ("a.zarr", "b.zarr"):
            shutil.rmtree(e.path, ignore_errors=True)


def run_pair_member(workload, mode, computations, workers, threads, bandwidth, config,
                    outgoing=None, fair=False):
    from tidegate.demo import _worker_plugins

    SlowNetwork, PeakMemory = _worker_plugins()
    if mode.startswith("learn"):  # learn0, learn1; learn1f: with BROADCAST_RATE_FLOOR 1
        policy.BROADCAST_LEARN = int(mode[5])
        policy.BROADCAST_RATE_FLOOR = int(mode.endswith("f"))
    out = []
    with dask.config.set(config), LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=True, memory_limit=0,
        dashboard_address=":0",
    ) as cluster, Client(cluster) as client:
        client.register_plugin(PeakMemory())
        if bandwidth:
            client.register_plugin(SlowNetwork(bandwidth))
        if outgoing:
            client.register_plugin(_slow_sender(outgoing, fair))
        s = cluster.scheduler
        lands: list = []
        if mode != "queue":
            client.register_plugin(td.Plugin())
            _landings(s, lands)
        for c in range(computations):
            p = _plugin(s)
            b = p._broadcast if p is not None else None
            if b is not None and not isinstance(b.log, _TimedLog):
                b.log = _TimedLog(s)
            sent0 = client.run(_reset_peaks)
            rec = {"mode": mode, "computation": c, "load1": os.getloadavg()[0]}
            if b is not None:
                rec.update(level0=b.level, verdicts0=len(b.verdicts), copies0=b.copies,
                           log0=len(b.log))
                lands0 = len(lands)
            x = B.WORKLOADS[workload]()
            t0 = time.perf_counter()
            f = client.compute(x)
            wait(f)
            rec["wall_s"] = time.perf_counter() - t0
            f.result()
            del f
            _drop_outputs()
            stats = client.run(_peaks)
            rec["peak_managed_mb"] = max(v["managed"] for v in stats.values()) / 2**20
            rec["peak_rss_growth_mb"] = max(v["rss"] for v in stats.values()) / 2**20
            rec["transferred_mb"] = sum(v["sent"] - sent0[w] for w, v in stats.items()) / 2**20
            if b is not None:
                b = _plugin(s)._broadcast
                rec.update(level=b.level, per=b.per, best_rate_mbs=b.best_rate / 1e6,
                           dask_bandwidth_mbs=s.bandwidth / 1e6,
                           copies=b.copies - rec["copies0"],
                           verdicts=[(str(k)[:40], [round(d, 4) for d in ds], free)
                                     for k, ds, free in b.verdicts[rec["verdicts0"]:]],
                           broadcast=_broadcast_record(b, rec["log0"], lands, lands0),
                           errors=len(getattr(p, "errors", ()) or ()))
            out.append(rec)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="seed-anomaly")
    ap.add_argument("--modes", default="learn0,learn1")
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--computations", type=int, default=2)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bandwidth", type=float, default=None, help="bytes/s into each worker")
    ap.add_argument("--outgoing", type=float, default=None,
                    help="bytes/s out of each worker, its copies one after another")
    ap.add_argument("--fair", action="store_true",
                    help="--outgoing shared equally by a worker's copies at once (TCP)")
    ap.add_argument("--steps", type=int, default=48)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    B._INPUTS["steps"] = args.steps
    modes = args.modes.split(",")
    config = {**QUIET_MEMORY, "distributed.scheduler.worker-saturation": 1.1}
    runs = []
    try:
        for i in range(args.pairs):
            for w in args.only.split(","):
                order = modes if i % 2 == 0 else modes[::-1]
                for m in order:
                    try:
                        recs = run_pair_member(w, m, args.computations, args.workers,
                                               args.threads, args.bandwidth, config,
                                               args.outgoing, args.fair)
                    except Exception as e:
                        print(f"pair {i} {w} {m} failed: {e!r}", flush=True)
                        continue
                    for r in recs:
                        r.update(pair=i, workload=w)
                        runs.append(r)
                        bc = {k: (v["copies"], v["most_at_once"], v["span_s"])
                              for k, v in r.get("broadcast", {}).items()}
                        print(f"pair {i} {w} {m} c{r['computation']} load={r['load1']:.2f} "
                              f"wall={r['wall_s']:.2f} peak={r['peak_managed_mb']:.0f} "
                              f"moved={r['transferred_mb']:.0f} level {r.get('level0')}->"
                              f"{r.get('level')} verdicts={r.get('verdicts')} "
                              f"bc={bc}",
                              flush=True)
                    path_out = args.out
                    with open(path_out, "w") as fh:
                        json.dump({"command": "python bench/distributed_twice.py "
                                   + " ".join(argv or sys.argv[1:]), "runs": runs},
                                  fh, indent=1, default=str)
    finally:
        if "folder" in B._INPUTS:
            import shutil

            shutil.rmtree(B._INPUTS["folder"], ignore_errors=True)
    _summary(runs)


def _summary(runs):
    """Medians [min-max] per workload, mode and computation."""
    cells: dict = {}
    for r in runs:
        cells.setdefault((r["workload"], r["computation"], r["mode"]), []).append(r)
    for (w, c, m), rs in sorted(cells.items()):
        def f(k):
            xs = [r[k] for r in rs]
            return f"{statistics.median(xs):.2f} [{min(xs):.2f}-{max(xs):.2f}]"
        print(f"{w:14} c{c} {m:7} n={len(rs)} wall {f('wall_s')} peak {f('peak_managed_mb')} "
              f"moved {f('transferred_mb')} load {f('load1')}")


if __name__ == "__main__":
    main()
