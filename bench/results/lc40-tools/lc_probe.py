"""One seed workload run on a LocalCluster (as bench/distributed.py's run: fresh cluster,
spill/pause off, SlowNetwork, PeakMemory), plus: a per-worker timeline of managed bytes and
what each worker held at its peak, where each task ran (scheduler plugin), and the plugin's
books log (placed / withheld / landed).

    PYTHONPATH=SRC python lc_anom.py --workers 4 --mode tidegate --out X.json
        [--set POLICYNAME=VALUE ...] [--only seed-anomaly] [--folder F]
"""
import argparse
import json
import os
import tempfile
import time

import dask
from distributed import Client, LocalCluster, SchedulerPlugin, WorkerPlugin, wait

import tidegate.distributed as td
from tidegate.demo import _worker_plugins
from tidegate.testing import QUIET_MEMORY
from tidegate.workloads import build, make_inputs

ap = argparse.ArgumentParser()
ap.add_argument("--workers", type=int, default=4)
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--mode", default="tidegate")
ap.add_argument("--only", default="seed-anomaly")
ap.add_argument("--bandwidth", type=float, default=200e6)
ap.add_argument("--out", required=True)
ap.add_argument("--set", action="append", default=[])
ap.add_argument("--folder", default="/tmp/one33/lc/inputs")
ap.add_argument("--steps", type=int, default=48)
a = ap.parse_args()


def _apply(sets):
    import tidegate.policy as P
    for s in sets:
        k, v = s.split("=")
        setattr(P, k, type(getattr(P, k))(int(v)) if not isinstance(getattr(P, k), float)
                else float(v))


def _apply_on_scheduler(dask_scheduler, sets):
    _apply(sets)
    import tidegate.policy as P
    return {s.split("=")[0]: getattr(P, s.split("=")[0]) for s in sets}


PROBE = []


def _install_probe():
    import time as _t
    from tidegate.distributed.placement import Placement
    from tidegate import policy as _P
    orig_bh, orig_hh, orig_dw, orig_ce, orig_pl = (Placement._by_held, Placement._held_here,
        Placement._decide_worker_non_rootish, Placement._combine_elsewhere, Placement._place)
    cur = []

    def _held_here(self, addr, book, owner, est):
        h = orig_hh(self, addr, book, owner, est)
        if cur:
            cur[-1].append((addr[-5:], round(h / 2**20, 1), book.processing, book.roots_processing))
        return h

    def _by_held(self, ts, partners, lacks, plan, stimulus_id):
        cur.append([])
        try:
            out = orig_bh(self, ts, partners, lacks, plan, stimulus_id)
        finally:
            held = cur.pop()
        est = self.books.estimate(float("nan"), ts.group.name)
        PROBE.append((_t.time(), str(ts.key), "by_held", {k[-5:]: v for k, v in partners.items()},
                      round(est / 2**20, 1) if est == est else None, held,
                      None if out is None else (out[0] and out[0][-5:], {k[-5:]: v for k, v in out[1].items()})))
        return out

    def _state(s):
        return {w[-5:]: (len(ws.processing), round(ws.nbytes / 2**20, 1), round(ws.occupancy, 3))
                for w, ws in s.workers.items()}

    def _decide_worker_non_rootish(self, ts):
        out = orig_dw(self, ts)
        if len(ts.dependencies) >= 2:
            local = {}
            for d in ts.dependencies:
                for h in d.who_has or ():
                    local[h.address[-5:]] = local.get(h.address[-5:], 0) + 1
            PROBE.append((_t.time(), str(ts.key), "non_rootish", local,
                          out.address[-5:] if out is not None else None, _state(self.scheduler)))
        return out

    def _combine_elsewhere(self, ts, local, chosen):
        out = orig_ce(self, ts, local, chosen)
        PROBE.append((_t.time(), str(ts.key), "combine_elsewhere", chosen[-5:],
                      out.address[-5:] if out is not None else None))
        return out

    def _place(self, ts, stimulus_id=None):
        out = orig_pl(self, ts, stimulus_id)
        PROBE.append((_t.time(), str(ts.key), "place", out[0] and out[0][-5:],
                      {k[-5:]: v for k, v in (out[1] or {}).items()}, _state(self.scheduler)))
        return out

    Placement._by_held = _by_held
    Placement._held_here = _held_here
    Placement._decide_worker_non_rootish = _decide_worker_non_rootish
    Placement._combine_elsewhere = _combine_elsewhere
    Placement._place = _place


class Timeline(WorkerPlugin):
    name = "one33-timeline"

    def setup(self, worker):
        self.worker = worker
        self.t0 = time.time()
        self.events = []  # (t, key, finish, managed)
        self.peak = 0
        self.at_peak = []

    def transition(self, key, start, finish, **kw):
        st = self.worker.state
        n = st.nbytes
        if finish in ("memory", "executing", "released", "forgotten", "flight"):
            self.events.append((time.time(), str(key), start, finish, n))
        if n > self.peak:
            self.peak = n
            self.at_peak = [(str(k), st.tasks[k].nbytes) for k in st.data.keys()
                            if k in st.tasks]


def _timeline(dask_worker):
    p = dask_worker.plugins["one33-timeline"]
    return {"events": p.events, "peak": p.peak, "at_peak": p.at_peak}


class Where(SchedulerPlugin):
    name = "one33-where"

    def start(self, scheduler):
        self.s = scheduler
        self.rows = []

    def transition(self, key, start, finish, *args, **kw):
        if finish == "processing":
            ts = self.s.tasks.get(key)
            w = ts.processing_on.address if ts is not None and ts.processing_on else None
            self.rows.append((time.time(), str(key), "processing", w))
        elif finish == "memory" and start == "processing":
            ts = self.s.tasks.get(key)
            self.rows.append((time.time(), str(key), "memory", kw.get("worker"),
                              ts.nbytes if ts is not None else None))


def _where(dask_scheduler):
    p = dask_scheduler.plugins["one33-where"]
    out = {"rows": p.rows}
    tg = getattr(dask_scheduler, "_tidegate", None)
    if tg is not None:
        out["log"] = [tuple(str(x) for x in e) for e in tg.books.log]
    return out


def main():
    if not os.path.exists(os.path.join(a.folder, "DONE")):
        os.makedirs(a.folder, exist_ok=True)
        paths = make_inputs(a.folder, a.steps)
        json.dump(paths, open(os.path.join(a.folder, "DONE"), "w"))
    paths = json.load(open(os.path.join(a.folder, "DONE")))
    _apply(a.set)
    if os.environ.get('LC40_PROBE', '1') == '1':
        _install_probe()
    SlowNetwork, PeakMemory = _worker_plugins()
    config = {**QUIET_MEMORY, "distributed.scheduler.worker-saturation": 1.1}
    load1 = os.getloadavg()[0]
    with dask.config.set(config), LocalCluster(
            n_workers=a.workers, threads_per_worker=a.threads, processes=True,
            memory_limit=0, dashboard_address=":0") as cluster, Client(cluster) as client:
        client.register_plugin(PeakMemory())
        client.register_plugin(Timeline())
        if a.bandwidth:
            client.register_plugin(SlowNetwork(a.bandwidth))
        client.register_plugin(Where())
        sets = {}
        if a.mode == "tidegate":
            client.register_plugin(td.Plugin())
            if a.set:
                sets = client.run_on_scheduler(_apply_on_scheduler, sets=a.set)
        out_folder = tempfile.mkdtemp(dir=a.folder)
        x = build(a.only.removeprefix("seed-"), paths, out_folder)
        t0 = time.perf_counter()
        f = client.compute(x)
        wait(f)
        wall = time.perf_counter() - t0
        f.result()
        del f
        from tidegate.demo import _peaks
        stats = client.run(_peaks)
        tl = client.run(_timeline)
        where = client.run_on_scheduler(_where)
    import shutil
    shutil.rmtree(out_folder, ignore_errors=True)  # (lc40: 366 MB a run; the disk filled)
    res = {
        "mode": a.mode, "sets": sets, "load1": load1, "load1_end": os.getloadavg()[0],
        "wall_s": wall,
        "peak_managed_mb": max(s["managed"] for s in stats.values()) / 2**20,
        "managed_mb": {w: s["managed"] / 2**20 for w, s in stats.items()},
        "transferred_mb": sum(s["sent"] for s in stats.values()) / 2**20,
        "timeline": tl, "where": where, "probe": PROBE,
    }
    json.dump(res, open(a.out, "w"))
    print(f"{a.mode} {sets} load {load1:.2f} wall {wall:.2f} managed "
          f"{res['peak_managed_mb']:.1f} per worker "
          f"{[round(v) for v in res['managed_mb'].values()]} moved "
          f"{res['transferred_mb']:.1f}")


if __name__ == "__main__":
    main()
