"""What a worker holds at its peak managed bytes, by group (a WorkerPlugin), and a
tidegate admission counter (which rule of policy.may_admit_root let each root in):
    python bench/sessions/probe24_admissions.py resample-store tidegate,queue
    BOUND=2 python bench/sessions/probe24_admissions.py resample-store tidegate
        # (past-count passes bounded at 2x cap)
"""
import sys, collections
import os; sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
import probe24_held as diag, dask, time
from distributed import Client, LocalCluster, wait
import tidegate.distributed as td
import tidegate.policy as P, tidegate.books as B
COUNT = collections.Counter()
import os
BOUND = float(os.environ.get('BOUND', 0))
orig = P.may_admit_root
def may_admit_root(rp, ru, cap, cc, held, est, budget, idle, owed=0, beside=False, queued=0,
                   *rest):  # rest: passes, pass_cap (since probe24)
    r = orig(rp, ru, cap, cc, held, est, budget, idle, owed, beside, queued, *rest)
    import os
    if r and BOUND and not idle and not beside and not (rp + ru + owed < cap) \
            and rp + ru + owed >= BOUND * cap:
        COUNT["refused-by-bound"] += 1
        return False
    if r:
        if idle: COUNT["idle"] += 1
        elif beside and not (rp + ru + owed < cap): COUNT["beside-past-count"] += 1
        elif rp + ru + owed < cap: COUNT["count"] += 1
        else: COUNT["completes-past-count"] += 1
    return r
B.may_admit_root = may_admit_root
if __name__ == "__main__":
    name, modes = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        P.MEETING_SPREAD = int(sys.argv[3])
    for mode in modes.split(","):
        COUNT.clear()
        x = diag.p.WORKLOADS[name]()
        with dask.config.set({**diag.QUIET_MEMORY}), LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, memory_limit=0,
                dashboard_address=":0") as c, Client(c) as cl:
            cl.register_plugin(diag.Snap())
            if mode == "tidegate": cl.register_plugin(td.Plugin())
            t0 = time.time(); f = cl.compute(x); wait(f); wall = time.time() - t0
            print("==", name, mode, "spread", P.MEETING_SPREAD, "bound", BOUND,
                  f"wall {wall:.1f}", dict(COUNT))
            for w, v in cl.run(diag.get).items():
                print(" ", w[-5:], round(v["peak"]), v["snap"], "fetched",
                      sum(v["fetched"].values()))
