"""One run of a probe24 workload in one mode on 2x1: at each worker's peak managed bytes,
what it holds, by group; and which worker ran how many tasks of each group."""
import sys, os, time, collections
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
import probe24_cluster as p
import dask
from distributed import Client, LocalCluster, wait, WorkerPlugin
from dask.utils import key_split
import tidegate.distributed as td
from tidegate.testing import QUIET_MEMORY


class Snap(WorkerPlugin):
    name = "snap"
    def setup(self, worker):
        self.w = worker; self.peak = 0; self.snap = None
        self.ran = collections.Counter(); self.fetched = collections.Counter()
    def transition(self, key, start, finish, **kw):
        st = self.w.state
        if finish == "memory":
            ts = st.tasks.get(key)
            if start in ("executing", "long-running"):
                self.ran[key_split(key)] += 1
            elif start == "flight":
                self.fetched[key_split(key)] += 1
        if st.nbytes > self.peak:
            self.peak = st.nbytes
            c = collections.Counter(); n = collections.Counter()
            for k, ts in st.tasks.items():
                if ts.state == "memory":
                    c[key_split(k)] += ts.nbytes or 0; n[key_split(k)] += 1
            self.snap = {g: (n[g], round(c[g] / 2**20, 1)) for g in c}


def get(dask_worker):
    pl = dask_worker.plugins["snap"]
    return {"peak": pl.peak / 2**20, "snap": pl.snap, "ran": dict(pl.ran),
            "fetched": dict(pl.fetched)}


def main(name, mode, workers=2):
    x = p.WORKLOADS[name]()
    with dask.config.set({**QUIET_MEMORY, "distributed.scheduler.worker-saturation": 1.1}), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=0,
                         dashboard_address=":0") as c, Client(c) as cl:
        cl.register_plugin(Snap())
        if mode == "tidegate":
            cl.register_plugin(td.Plugin())
        t0 = time.time()
        f = cl.compute(x); wait(f); f.result()
        wall = time.time() - t0
        r = cl.run(get)
    print(f"== {name} {mode} wall {wall:.1f}")
    for w, v in r.items():
        print(f" {w[-5:]} peak {v['peak']:.0f} MB  held at peak: {v['snap']}")
        print(f"        ran {v['ran']}\n        fetched {v['fetched']}")


if __name__ == "__main__":
    for mode in sys.argv[2].split(","):
        main(sys.argv[1], mode)


def story(dask_scheduler, group, n=400):
    pl = dask_scheduler.plugins["tidegate"]
    out = []
    for e in list(pl.books.log):
        s = " ".join(map(str, e))
        if group in s:
            out.append(s[:300])
    return out[:n]
