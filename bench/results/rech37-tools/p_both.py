# tracer patch: every root decision with full block coords, time, books per worker, and
# each worker's memory timeline (changes only) for WATCH worker(s)
import os, re
import tidegate.sim.cluster as _C
import tidegate.sim.worker as _SW
import tidegate.distributed.placement as _P
_CL = []
_orig_init = _C.SimCluster.__init__
def _init(self, *a, **k):
    _orig_init(self, *a, **k); _CL.append(self)
_C.SimCluster.__init__ = _init
def _k(k):
    s = str(k)
    m = re.findall(r"\d+", s.split(",", 1)[1]) if "," in s else []
    g = s.split("'")[1] if "'" in s else s
    g = re.sub(r"-[0-9a-f]{20,}.*", "", g)[:8]
    return g + "(" + ",".join(m) + ")"
def _now():
    return _CL[-1].clock.now if _CL else -1
_orig_place = _P.Placement._place
def _place(self, ts, stimulus_id=None):
    r = _orig_place(self, ts, stimulus_id)
    bk = self.books
    parts = []
    for a, b in bk.workers.items():
        parts.append(f"{a[-4:-2]}:h{b.held/1e6:.0f}+e{b.estimated/1e6:.0f} o{b.owed} "
                     f"rp{b.roots_processing} ru{b.roots_untouched} p{b.processing}")
    print(f"  @{_now():.4f} PLACE {_k(ts.key)} -> {str(r[0])[-4:-2] if r[0] else None} "
          f"lacked={[_k(x) for x in (self._lacked or ())]} | " + " ".join(parts))
    return r
_P.Placement._place = _place
def _find():
    for n in dir(_SW):
        c = getattr(_SW, n)
        if isinstance(c, type) and hasattr(c, "sample") and hasattr(c, "handle_stimulus"):
            return c
_WC = _find()
_orig_sample = _WC.sample
_LAST = {}
WATCH = os.environ.get("WATCH", "w1").split(",")
def _sample(self):
    if any(self.address.endswith(w + ":1") for w in WATCH):
        ks = sorted(_k(k) + ("" if ts.state == "memory" else "~" + ts.state[:2])
                    for k, ts in self.state.tasks.items()
                    if ts.nbytes and ts.nbytes > 5e5 and ts.state in ("memory", "flight"))
        ex = sorted(_k(k) for k, ts in self.state.tasks.items() if ts.state == "executing")
        rd = sorted(_k(k) for k, ts in self.state.tasks.items() if ts.state in ("ready", "constrained"))
        sig = (self.state.nbytes, tuple(ks), tuple(ex))
        if _LAST.get(self.address) != sig:
            _LAST[self.address] = sig
            print(f"  @{self.clock.now:.4f} MEM {self.address[-4:-2]} {self.state.nbytes/1e6:.0f} MB {ks} EXEC {ex} READY {rd}")
    _orig_sample(self)
_WC.sample = _sample
# tracer patch: when each WATCH worker receives compute-task, and each task's inputs
import os, re
import tidegate.sim.worker as _SW3
def _find3():
    for n in dir(_SW3):
        c = getattr(_SW3, n)
        if isinstance(c, type) and hasattr(c, "sample") and hasattr(c, "handle_stimulus"):
            return c
_WC3 = _find3()
_ohs = _WC3.handle_stimulus
def _k3(k):
    s = str(k)
    m = re.findall(r"\d+", s.split(",", 1)[1]) if "," in s else []
    g = s.split("'")[1] if "'" in s else s
    g = re.sub(r"-[0-9a-f]{20,}.*", "", g)[:8]
    return g + "(" + ",".join(m) + ")"
_W3 = os.environ.get("WATCH", "w1").split(",")
def _hs(self, *evs):
    if any(self.address.endswith(w + ":1") for w in _W3):
        for ev in evs:
            if type(ev).__name__ == "ComputeTaskEvent":
                print(f"  @{self.clock.now:.4f} RECV {self.address[-4:-2]} {_k3(ev.key)} prio={ev.priority} deps={[_k3(d) for d in ev.who_has]}")
    return _ohs(self, *evs)
_WC3.handle_stimulus = _hs
