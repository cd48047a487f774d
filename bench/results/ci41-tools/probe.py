import os, sys, time, collections, threading
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests"))
import dask, dask.array as da, numpy as np
from dask import delayed
import distributed
from distributed import Client, Worker
import tidegate.distributed as td
from tidegate.books import Books
from tidegate.distributed import placement, server
from conftest import VALIDATING, local_cluster
import test_plugin_safety as T

counts = collections.Counter()
def wrap(obj, attr, name):
    f = obj.__dict__[attr]
    def w(*a, **k):
        counts[name] += 1
        return f(*a, **k)
    setattr(obj, attr, w)
wrap(Books, "add_worker", "add_worker"); wrap(Books, "on_stopped", "on_stopped")
wrap(placement, "further_by_plan", "further_by_plan"); wrap(placement, "further_meeting", "further_meeting")
wrap(server, "_scan", "scan")
wrap(placement, "further_plan", "further_plan")

def nap(i):
    time.sleep(0.05); return float(i)

which = sys.argv[1:]
with local_cluster(VALIDATING, n_workers=2, threads_per_worker=2, resources={"GPU": 1}) as cluster:
    with dask.config.set(VALIDATING), Client(cluster) as client:
        client.register_plugin(td.Plugin(saturation=1.1, memory_limit="1GB", interval="50ms"))
        t0 = time.time()
        a = sorted(client.scheduler_info()["workers"])[0]
        extra = []
        if "anom" in which:
            x = da.random.RandomState(1).random((16, 50, 50), chunks=(1, 50, 50))
            extra.append((x - x.mean(axis=0)).sum())
        if "radd" in which:
            x = da.random.RandomState(1).random((16, 40), chunks=(1, 40))
            y = da.random.RandomState(2).random((16, 40), chunks=(1, 40))
            extra.append((x.rechunk((2, 20)) + y.rechunk((2, 20))).sum())
        futs = []
        if "pin" in which:
            with dask.annotate(workers=[a], allow_other_workers=True):
                pinned = [delayed(nap)(i, dask_key_name=f"nap-{i:02d}") for i in range(16)]
            futs = client.compute(pinned, optimize_graph=False)
        w = None
        if "add" in which:
            async def start():
                return await Worker(cluster.scheduler_address, nthreads=1)
            w = client.sync(start)
        got = dask.compute(*T.workload(1), *extra)
        if futs: client.gather(futs)
        if w is not None:
            client.sync(w.close)
        print(which, dict(counts), "errors", client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tidegate.errors)[:2], f"{time.time()-t0:.1f}s")
        td.uninstall(client)
