# sten49: --patch for bench/trace_twin.py: every admission ask of a stencil block
# (random_sample) on the twin's clock, admitted or withheld, with the worker's book before
# (roots processing, untouched, owed, cap, processing, held MB); repeats of the same answer on
# the same book at the same time are written once. To env ADM_OUT.
import os as _os
from tidegate import books as _bk
from tidegate.sim import cluster as _cl
_out = open(_os.environ.get("ADM_OUT", "/tmp/sten49/adm.txt"), "w")
_CL = []
_last = [None]
_stf = _cl.SimScheduler.stimulus_task_finished
def _fin(self, *a, **k):
    if not _CL:
        _CL.append(self.cluster)
    return _stf(self, *a, **k)
_cl.SimScheduler.stimulus_task_finished = _fin
def _now():
    return _CL[0].clock.now if _CL else -1
_adm = _bk.Books._admits
def _admits(self, book, w, task, est, completes_consumer, stimulus_id, progress=True,
            reserved=0, spread=False, waiting=0, opens=0, awaits=None, pair=False,
            region=0, unit=0, wave=(), cuts=0):
    before = (book.roots_processing, book.roots_untouched, book.owed, book.cap,
              book.processing, round((book.held + book.estimated) / 1e6))
    ok = _adm(self, book, w, task, est, completes_consumer, stimulus_id, progress, reserved,
              spread, waiting, opens, awaits, pair, region, unit, wave, cuts)
    if "random_sample" in str(task):
        t = str(task)
        line = (f"{_now()*1000:7.1f} {'ADMIT' if ok else 'wait '} {w[-6:]} "
                f"rp,ru,owed,cap,proc,MB={before} spread={spread} waiting={waiting}")
        if ok or line != _last[0]:
            _out.write(line + f" {t[t.index(','):]}\n")
        _last[0] = line
    return ok
_bk.Books._admits = _admits
