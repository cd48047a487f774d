import os, sys, time, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests"))
import dask
from distributed import Client
import tidegate.distributed as td
from tidegate.distributed import server
from conftest import VALIDATING, local_cluster
import test_plugin_safety as T

def state(dask_scheduler):
    s = dask_scheduler
    st = s.extensions["stealing"]
    return {"idle": [w for w in s.idle], "saturated": [w.address for w in s.saturated],
            "stealable": {w: [len(l) for l in v] for w, v in st.stealable.items()},
            "key_stealable": len(st.key_stealable),
            "occ": {w.address: (len(w.processing), w.occupancy) for w in s.workers.values()},
            "get_thief": type(st._get_thief).__name__, "thief_name": getattr(st._get_thief, "__name__", None)}

with local_cluster(VALIDATING, n_workers=2, threads_per_worker=2, resources={"GPU": 1}) as cluster:
    with dask.config.set(VALIDATING), Client(cluster) as client:
        client.register_plugin(td.Plugin(saturation=1.1, memory_limit="1GB", interval="50ms"))
        a = sorted(client.scheduler_info()["workers"])[0]
        naps = client.compute(T._naps(a, "g"), optimize_graph=False)
        T._until(lambda: sum(client.run_on_scheduler(T._naps_on).values()) == 8)
        print(client.run_on_scheduler(state))
        added = client.sync(T._new_worker, cluster.scheduler_address)
        time.sleep(0.2)
        print(client.run_on_scheduler(state))
        calls = collections.Counter()
        for name in ("_scan", "_own_holders"):
            f = getattr(server, name)
            def w(*a, _f=f, _n=name, **k):
                calls[_n] += 1
                r = _f(*a, **k)
                calls[_n + "->" + str(type(r).__name__)] += 1
                return r
            setattr(server, name, w)
        def bal(dask_scheduler):
            st = dask_scheduler.extensions["stealing"]
            orig = st._get_thief
            res = []
            def gt(*a, **k):
                r = orig(*a, **k); res.append(r); return r
            st._get_thief = gt
            try:
                st.balance()
            finally:
                st._get_thief = orig
            return [str(r) for r in res], list(st.stealing_log if hasattr(st, 'stealing_log') else [])[-3:]
        print(client.run_on_scheduler(bal), dict(calls))
        T._GATES["g"].set()
        client.gather(naps)
        client.sync(added.close)
        td.uninstall(client)
