# sten47: --patch for bench/trace_twin.py: each admission of a stencil block (random_sample)
# on the twin's clock: worker, its book before (roots processing, untouched, owed, cap,
# processing, held MB), reserved there, spread, and the worker's held blocks; to env ADM_OUT.
import os as _os
from tidegate import books as _bk
from tidegate.sim import cluster as _cl
_out = open(_os.environ.get("ADM_OUT", "/tmp/sten47/adm.txt"), "w")
_CL = []
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
    if ok and "random_sample" in str(task):
        t = str(task)
        _out.write(f"{_now()*1000:7.1f} ADMIT {w[-6:]} {t[t.index(','):]} rp,ru,owed,cap,proc,MB="
                   f"{before} res={reserved} spread={spread} idle={book.processing == 0}\n")
    return ok
_bk.Books._admits = _admits
