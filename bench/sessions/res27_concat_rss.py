"""res27 (issue 9, b): where concat-nc's RSS goes (xr.concat of 8 netCDF3 files read with
xarray's scipy engine; bench/probe24_cluster.py's concat_nc). A worker plugin samples
/proc/self/status every 10 ms: peak RssAnon (heap: numpy arrays, what managed bytes
count), peak RssFile (file-backed pages mapped into the process: scipy's netcdf_file
mmaps the file) and peak VmRSS, on a fresh LocalCluster 2 x 1 per run, modes interleaved.

    python bench/sessions/res27_concat_rss.py [--reps 2] [--modes queue,tidegate]
        [--workload concat-nc]
"""
import argparse
import json
import os
import statistics
import sys
import time

import tidegate.distributed as td  # (first: importing tidegate drops bench/ from sys.path)

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
import dask  # noqa: E402
import probe24_cluster as p  # noqa: E402
from distributed import Client, LocalCluster, WorkerPlugin, wait  # noqa: E402

from tidegate.testing import QUIET_MEMORY  # noqa: E402


def _status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                out[k] = int(v.split()[0]) * 1024
    return out


class Rss(WorkerPlugin):
    name = "res27-rss"

    def setup(self, worker):
        from tornado.ioloop import PeriodicCallback

        self.worker = worker
        self.base = _status()
        self.peak = dict(self.base)
        self.managed = 0
        self.pc = PeriodicCallback(self.sample, 10)
        self.pc.start()

    def sample(self):
        for k, v in _status().items():
            if v > self.peak.get(k, 0):
                self.peak[k] = v
        self.managed = max(self.managed, self.worker.state.nbytes)


def _get(dask_worker):
    pl = dask_worker.plugins["res27-rss"]
    pl.sample()
    return {"base": pl.base, "peak": pl.peak, "managed": pl.managed}


def one(workload, mode):
    x = p.WORKLOADS[workload]()
    with dask.config.set(QUIET_MEMORY), LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit=0,
            dashboard_address=":0") as c, Client(c) as cl:
        cl.register_plugin(Rss())
        if mode == "tidegate":
            cl.register_plugin(td.Plugin())
        t0 = time.time()
        f = cl.compute(x)
        wait(f)
        wall = time.time() - t0
        r = cl.run(_get)
    mb = 2**20
    row = {"mode": mode, "wall": wall, "load1": os.getloadavg()[0]}
    for k in ("VmRSS", "RssAnon", "RssFile"):
        row[k] = max(v["peak"][k] for v in r.values()) / mb
    row["managed"] = max(v["managed"] for v in r.values()) / mb
    return row


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--modes", default="queue,tidegate")
    ap.add_argument("--workload", default="concat-nc")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    p.make_inputs()
    modes = a.modes.split(",")
    rows = []
    for rep in range(a.reps):
        for mode in (modes if rep % 2 == 0 else modes[::-1]):
            row = one(a.workload, mode)
            rows.append(row)
            print(f"rep {rep} {mode:9s} " + " ".join(
                f"{k}={v:.1f}" for k, v in row.items() if k != "mode"), flush=True)
    for mode in modes:
        rs = [r for r in rows if r["mode"] == mode]
        print(f"median {mode:9s} " + " ".join(
            f"{k}={statistics.median(r[k] for r in rs):.1f}"
            for k in ("VmRSS", "RssAnon", "RssFile", "managed", "wall")))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
