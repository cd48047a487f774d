import os, sys, collections, runpy
from tidegate.distributed.hooks import Plugin
G = {}
orig_install = Plugin.install
def install(self, s, *a, **k):
    G["s"] = s; G["p"] = self
    return orig_install(self, s, *a, **k)
Plugin.install = install
from tidegate.sim import worker as simw
W = {}
oi = simw.SimWorker.__init__
def wi(self, cluster, address, *a, **k):
    oi(self, cluster, address, *a, **k); W[address] = self
simw.SimWorker.__init__ = wi
G2 = {}
try:
    runpy.run_path("/tmp/rev50m/probe_spread.py", run_name="__main__", init_globals=G2)
except Exception as exc:
    print("EXC", type(exc).__name__, exc)
    s, p = G["s"], G["p"]
    st = collections.Counter(ts.state for ts in s.tasks.values())
    print("states", dict(st))
    print("plugin errors", [e[:2] for e in p.errors])
    for ts in s.tasks.values():
        if ts.state not in ("memory", "released", "forgotten") :
            print(ts.key, ts.state, "on", ts.processing_on and ts.processing_on.address,
                  "deps", [(d.key, d.state, [w.address for w in (d.who_has or ())]) for d in ts.dependencies][:3],
                  "waiting_on", [d.key for d in (ts.waiting_on or ())][:3])
            break
    proc = [ts for ts in s.tasks.values() if ts.state == "processing"]
    print("processing", len(proc), collections.Counter(ts.processing_on.address for ts in proc))
    print("books", {a: (b.processing, b.threads) for a, b in p.books.workers.items()},
          "dask", {a: len(w.processing) for a, w in s.workers.items()})
    if proc:
        ts = proc[0]
        print("first processing", ts.key, "deps", [(d.key, d.state, [w.address for w in (d.who_has or ())]) for d in ts.dependencies])
    for ts in proc[:5] + [t for t in proc if str(t.key).startswith("('day")][:5]:
        a = ts.processing_on.address
        wt = W[a].state.tasks.get(ts.key)
        print("  ", ts.key, "sched on", a, "worker says", wt and wt.state,
              "other worker", {b: (w.state.tasks.get(ts.key) and w.state.tasks[ts.key].state) for b, w in W.items() if b != a})
    import gc
    mods = [m for m in gc.get_objects() if isinstance(m, dict) and "MOVED" in m and "spread_off" in m]
    MOVED = mods[0]["MOVED"] if mods else {}
    print("moved", len(MOVED), "stuck processing moved:", sum(t.key in MOVED for t in proc), "of", len(proc))
    print("stuck day slices", sum("'day'" in str(t.key) for t in proc), "stores", sum("'store'" in str(t.key) for t in proc))
    print("stuck stores whose day slice moved", sum(("day",) + t.key[1:] in MOVED for t in proc if t.key[0] == "store"))
    print("sample moved", list(MOVED.items())[:3])
    for a, w in W.items():
        ws_ = w.state
        print("worker", a, "tasks", len(ws_.tasks), collections.Counter(t.state for t in ws_.tasks.values()),
              "executing", ws_.executing_count if hasattr(ws_, "executing_count") else None,
              "ready", len(ws_.ready), "free_threads", w.free_threads)
        bc = s.stream_comms.get(a)
        print("   stream to worker:", type(bc).__name__, {k: (len(v) if hasattr(v, "__len__") else v) for k, v in vars(bc).items() if k in ("buffer", "please_stop", "closed", "_closed", "next_deadline", "batches", "queue", "pending")})
    k = proc[0].key
    for a, w in W.items():
        lg = [e for e in w.state.log if e[0] == k]
        print("wlog", a, k, lg[-6:])
    print("slog", [e for e in s.transition_log if e[0] == k][-8:])
    print("story", s.story(k)[-8:] if hasattr(s, "story") else None)
    ext = s.extensions.get("stealing")
    print("stealing in_flight", ext and len(ext.in_flight))
    print("queued", len(s.queued), "unrunnable", len(s.unrunnable))
