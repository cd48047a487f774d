# sten44: sten41-tools/p_scan.py with _admits's region argument.
# --patch for bench/trace_twin.py (sten41): a log of poke's scan on the twin's clock, to the
# file named by env ARRIVE_OUT: ComputeTask arrivals (ARRIVE), the scheduler hearing of a
# task's end (FIN) and sending one (SEND), every Books._admits answer for a random_sample
# root (ADMIT / refuse, with the worker book's counts), Admission._wake (WAKE: roots parked
# on the worker, may_take_spread), _wake_lacked, _park (PARK), _poke (POKE: the blocked
# root, _stalled, free workers) and Placement._decide (DECIDE, before 0.021 s). Times
# before the first task end print as -1. (A wrapper of Placement._place changed the run's
# decisions, not found why: not used.) Built from sten40-tools/p_arrive.py.
import os as _os
from tidegate.sim import worker as _sw
from distributed.worker_state_machine import ComputeTaskEvent as _CTE
_out = open(_os.environ.get("ARRIVE_OUT", "/tmp/arrive.txt"), "w")
_CL = []
def _now():
    return _CL[0].clock.now if _CL else -1
_h = _sw.SimWorker.handle_stimulus
def _handle(self, *events):
    for e in events:
        if isinstance(e, _CTE):
            _out.write(f"{self.clock.now:.4f} ARRIVE {self.address[-6:]} {e.key}\n")
    return _h(self, *events)
_sw.SimWorker.handle_stimulus = _handle
from tidegate.sim import cluster as _cl
_stf = _cl.SimScheduler.stimulus_task_finished
def _fin(self, *a, **k):
    if not _CL:
        _CL.append(self.cluster)
    _out.write(f"{self.cluster.clock.now:.4f} FIN {k.get('worker','?')[-6:]} {k.get('key')}\n")
    return _stf(self, *a, **k)
_cl.SimScheduler.stimulus_task_finished = _fin
_stw = _cl.SimScheduler.send_task_to_worker
def _send(self, worker, ts):
    if not _CL:
        _CL.append(self.cluster)
    _out.write(f"{self.cluster.clock.now:.4f} SEND {worker[-6:]} {ts.key}\n")
    return _stw(self, worker, ts)
_cl.SimScheduler.send_task_to_worker = _send
from tidegate import books as _bk
_adm = _bk.Books._admits
def _admits(self, book, w, task, est, completes_consumer, stimulus_id, progress=True, reserved=0, spread=False, waiting=0, opens=0, awaits=None, pair=False, region=0):
    before = (book.roots_processing, book.roots_untouched, book.owed, book.cap, book.processing, book.threads, book.passes, round((book.held + book.estimated)/1e6))
    ok = _adm(self, book, w, task, est, completes_consumer, stimulus_id, progress, reserved, spread, waiting, opens, awaits, pair, region)
    if "random_sample" in str(task):
        _out.write(f"{_now():.4f} {'ADMIT' if ok else 'refuse'} {w[-6:]} {task} rp,ru,owed,cap,proc,thr,passes,MB={before} spread={spread} opens={opens} res={reserved}\n")
    return ok
_bk.Books._admits = _admits
from tidegate.distributed import admission as _ad
_wk = _ad.Admission._wake
def _wake(self, k):
    b = self.books.workers.get(k)
    w = self._waiting_on.get(k, ())
    mts = self.books.may_take_spread(k) if b is not None else None
    _out.write(f"{_now():.4f} WAKE {k[-6:]} parked={len(w)} may_take_spread={mts} rp,ru,owed,cap,proc={(b.roots_processing, b.roots_untouched, b.owed, b.cap, b.processing) if b else None}\n")
    return _wk(self, k)
_ad.Admission._wake = _wake
_wl = _ad.Admission._wake_lacked
def _wake_lacked(self, lacks):
    _out.write(f"{_now():.4f} WAKE_LACKED {len(lacks)}\n")
    return _wl(self, lacks)
_ad.Admission._wake_lacked = _wake_lacked
_pk = _ad.Admission._park
def _park(self, ts, on):
    _out.write(f"{_now():.4f} PARK {ts.key} on {[str(k)[-6:] if isinstance(k,str) else k for k in on]}\n")
    return _pk(self, ts, on)
_ad.Admission._park = _park
_pko = _ad.Admission._poke
def _poke(self, s, sid):
    b = self._blocked
    _out.write(f"{_now():.4f} POKE blocked={None if b is None else (b[0].key[1:], b[1], self._epoch)} stalled={self._stalled} open={len(self._open)} free={list(self._free)}\n")
    return _pko(self, s, sid)
_ad.Admission._poke = _poke
from tidegate.distributed import placement as _plm
_dc = _plm.Placement._decide
def _decide(self, ts, sid):
    r = _dc(self, ts, sid)
    if _now() < 0.021:
        _out.write(f"{_now():.4f} DECIDE {ts.key[1:]} -> {r[0]} partners={r[1]} lacked={len(self._lacked or ())}\n")
    return r
_plm.Placement._decide = _decide
