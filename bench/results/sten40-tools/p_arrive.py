# --patch for trace_twin: log every ComputeTaskEvent's arrival at a worker (twin clock) to
# the file named by env ARRIVE_OUT.
import os as _os
from tidegate.sim import worker as _sw
from distributed.worker_state_machine import ComputeTaskEvent as _CTE
_out = open(_os.environ.get("ARRIVE_OUT", "/tmp/sten40/arrive.txt"), "w")
_h = _sw.SimWorker.handle_stimulus
def _handle(self, *events):
    for e in events:
        if isinstance(e, _CTE):
            _out.write(f"{self.clock.now:.4f} {self.address[-6:]} {e.key} prio={e.priority}\n")
    _out.flush()
    return _h(self, *events)
_sw.SimWorker.handle_stimulus = _handle
from tidegate.sim import cluster as _cl
_stf = _cl.SimScheduler.stimulus_task_finished
def _fin(self, *a, **k):
    _out.write(f"{self.cluster.clock.now:.4f} SCHED-FIN {k.get('worker','?')[-6:]} {k.get('key')}\n")
    return _stf(self, *a, **k)
_cl.SimScheduler.stimulus_task_finished = _fin
_stw = _cl.SimScheduler.send_task_to_worker
def _send(self, worker, ts):
    _out.write(f"{self.cluster.clock.now:.4f} SCHED-SEND {worker[-6:]} {ts.key}\n")
    return _stw(self, worker, ts)
_cl.SimScheduler.send_task_to_worker = _send
_tr = _cl.QuietSimScheduler._transition
def _transition(self, key, finish, stimulus_id, **kw):
    ts = self.tasks.get(key)
    start = ts.state if ts is not None else None
    out = _tr(self, key, finish, stimulus_id, **kw)
    if _os.environ.get("ARRIVE_KEYS") and any(s in str(key) for s in _os.environ["ARRIVE_KEYS"].split(";")):
        ws = ts.processing_on.address[-6:] if ts is not None and ts.processing_on else ""
        _out.write(f"{self.cluster.clock.now:.4f} TR {key} {start}->{finish} {ws} {stimulus_id}\n")
    return out
_cl.QuietSimScheduler._transition = _transition
from tidegate import books as _bk
_adm = _bk.Books._admits
def _admits(self, book, w, task, est, completes_consumer, stimulus_id, progress=True, reserved=0, spread=False, waiting=0, opens=0, awaits=None, pair=False):
    before = (book.roots_processing, book.roots_untouched, book.owed, book.cap, book.processing, book.threads, book.passes, round((book.held + book.estimated)/1e6))
    ok = _adm(self, book, w, task, est, completes_consumer, stimulus_id, progress, reserved, spread, waiting, opens, awaits, pair)
    if ok and _os.environ.get("ARRIVE_ADM"):
        _out.write(f"ADMIT {w[-6:]} {task} rp,ru,owed,cap,proc,thr,passes,heldMB={before} spread={spread} opens={opens} reserved={reserved} stim={stimulus_id}\n")
    return ok
_bk.Books._admits = _admits
