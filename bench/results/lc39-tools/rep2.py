"""The flaky test's body, run N times (fresh cluster each), recording per run: the copies
(transfer logs), the plugin's named copies, raw flight/memory times of the weights on each
worker (one clock: processes=False), each worker's scheduler_delay at the copy and at the
read, stealing's log, and the workers' stories of the weights. Writes one JSON per run."""
import json, sys, time, os
sys.path.insert(0, "/work/wt/lc39/tests")
import dask, dask.array as da, numpy as np, distributed
from distributed import Client, WorkerPlugin
import tidegate.distributed as td
from conftest import VALIDATING as CONFIG


class Raw(WorkerPlugin):
    name = "lc39-raw"
    def setup(self, worker):
        self.worker = worker
        self.rows = []
    def transition(self, key, start, finish, **kw):
        if "random_sample" in str(key) and ("flight" in (start, finish) or finish in ("released", "memory")):
            self.rows.append((str(key), start, finish, time.time(), self.worker.scheduler_delay))


def one(i, out, sets):
    extra = {}
    if os.environ.get("AMM"):
        extra["distributed.scheduler.active-memory-manager.interval"] = os.environ["AMM"]
    with dask.config.set({**CONFIG, **extra}), distributed.LocalCluster(
        n_workers=4, threads_per_worker=1, processes=False, dashboard_address=":0",
        scheduler_kwargs={"plugins": [td.Plugin()]},
    ) as four, Client(four) as client:
        if sets:
            def apply(dask_scheduler, sets=sets):
                import tidegate.policy as P
                for k, v in sets.items():
                    setattr(P, k, v)
            client.run_on_scheduler(apply)
        client.register_plugin(Raw())
        x = da.random.random((600, 200), chunks=(10, 200))
        w = da.random.random((200, 1000), chunks=(200, 1000))
        xv, wv = dask.compute(x, w)
        got = (x @ w).sum().compute()
        assert np.isclose(got, (xv @ wv).sum())

        def received(dask_worker):
            return {"log": [(str(k), t["who"], t["start"], t["stop"]) for t in dask_worker.transfer_incoming_log
                            for k in t["keys"]],
                    "delay": dask_worker.scheduler_delay,
                    "raw": dask_worker.plugins["lc39-raw"].rows}
        logs = client.run(received)
        def sched(dask_scheduler):
            p = dask_scheduler._tidegate
            wk = [(w.name, 0, 0)]
            return dict(named=[(str(k), d, s_, str(st)) for k, d, s_, st in p._broadcast.log],
                        errors=list(map(str, p.errors)),
                        story=[tuple(map(str, r)) for k in wk for r in dask_scheduler.story(k)],
                        steals=[list(map(str, e)) for e in dask_scheduler.get_events("stealing")],
                        slow=str(p._slow_groups), wk=[str(k) for k in wk])
        sc = client.run_on_scheduler(sched)
        def wstory(dask_worker, key=(w.name, 0, 0)):
            return [tuple(map(str, r)) for r in dask_worker.state.story(key)]
        wst = client.run(wstory)
    moves = [(dest, k, who, a - L["delay"], b - L["delay"]) for dest, L in logs.items()
             for k, who, a, b in L["log"] if w.name in k]
    c1 = len(moves) == 3 and len({m[0] for m in moves}) == 3
    c2 = sorted((k, d, who) for d, k, who, a, b in moves) == sorted(tuple(n[:3]) for n in sc["named"])
    c3 = True
    for j, (d1, _, a, s1, e1) in enumerate(moves):
        for d2, _, b, s2, e2 in moves[j + 1:]:
            if s1 < e2 and s2 < e1 and a == b:
                c3 = False
    ok = c1 and c2 and c3 and not sc["errors"]
    rec = dict(i=i, ok=ok, c=(c1, c2, c3), moves=moves, logs=logs, sched=sc, wstory=wst,
               load=os.getloadavg())
    json.dump(rec, open(out % i, "w"), indent=1, default=str)
    return ok, (c1, c2, c3), len(moves), len(sc["named"]), len(sc["steals"])

if __name__ == "__main__":
    n = int(sys.argv[1]); out = sys.argv[2]
    sets = dict((a.split("=")[0], int(a.split("=")[1])) for a in sys.argv[3:])
    fails = 0
    for i in range(n):
        t = time.time()
        ok, c, nm, nn, ns = one(i, out, sets)
        fails += not ok
        print(i, "ok" if ok else "FAIL", c, nm, nn, "steals", ns, round(time.time() - t, 1), os.getloadavg()[0], flush=True)
    print("fails", fails, "of", n)
