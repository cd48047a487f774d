# sten49: --patch for bench/trace_twin.py: the scan blocker (Admission._still_blocked True), each
# _place / _park of a stencil block, each _wake and Books.may_take_spread answer, on the
# twin clock, to env WAKE_OUT.
import os as _os
from tidegate import books as _bk
from tidegate.sim import cluster as _cl
from tidegate.distributed import admission as _adm
_out = open(_os.environ.get("WAKE_OUT", "/tmp/sten49/wake.txt"), "w")
_CL = []
_stf = _cl.SimScheduler.stimulus_task_finished
def _fin(self, *a, **k):
    if not _CL:
        _CL.append(self.cluster)
    return _stf(self, *a, **k)
_cl.SimScheduler.stimulus_task_finished = _fin
def _now():
    return _CL[0].clock.now if _CL else -1
_mts = _bk.Books.may_take_spread
def may_take_spread(self, w):
    r = _mts(self, w)
    b = self.workers[w]
    _out.write(f"{_now()*1000:7.1f} mts {r} rp={b.roots_processing} ru={b.roots_untouched} proc={b.processing} owed={b.owed}\n")
    return r
_bk.Books.may_take_spread = may_take_spread
for _cls in [c for c in vars(_adm).values() if isinstance(c, type) and hasattr(c, "_wake")]:
    _w = _cls._wake
    def _wake(self, k, _w=_w):
        n = len(self._waiting_on.get(k, ()))
        _out.write(f"{_now()*1000:7.1f} wake {k} parked={n} queued={sum(1 for t in self.scheduler.queued)}\n")
        return _w(self, k)
    _cls._wake = _wake
from tidegate.distributed import hooks as _ins
import inspect as _insp
_P = _ins.Plugin if hasattr(_ins, "Plugin") else None
for _name in ("_place", "_park"):
    _f = getattr(_P, _name)
    def _wrap(self, ts, *a, _f=_f, _name=_name, **k):
        r = _f(self, ts, *a, **k)
        if "random_sample" in str(ts.key):
            kk = str(ts.key)
            _out.write(f"{_now()*1000:7.1f} {_name} {kk[kk.index(','):]} -> {r if _name=='_place' else a}\n")
        return r
    setattr(_P, _name, _wrap)
_sb = _P._still_blocked
def _still_blocked(self):
    r = _sb(self)
    if r:
        _out.write(f"{_now()*1000:7.1f} still_blocked {self._blocked[0].key}\n")
    return r
_P._still_blocked = _still_blocked
