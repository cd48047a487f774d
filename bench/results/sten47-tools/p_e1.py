# sten47 experiment E1: a spread root (a stencil's block) on a worker of 8+ threads passes the
# count (not by beside, not idle) only while fewer than env E1_RP roots process there.
import os
from tidegate import books as _bk
_B = float(os.environ.get("E1_RP", "inf"))
_flag = [False]
_adm = _bk.Books._admits
def _admits(self, book, w, task, est, completes_consumer, stimulus_id, progress=True,
            reserved=0, spread=False, waiting=0, opens=0, awaits=None, pair=False,
            region=0, unit=0, wave=(), cuts=0):
    _flag[0] = bool(spread) and book.threads >= 8
    try:
        return _adm(self, book, w, task, est, completes_consumer, stimulus_id, progress,
                    reserved, spread, waiting, opens, awaits, pair, region, unit, wave, cuts)
    finally:
        _flag[0] = False
_bk.Books._admits = _admits
_mar = _bk.may_admit_root
def _may(rp, ru, cap, completes, held, est, budget, idle, owed=0, beside=False, *a, **k):
    if _flag[0] and not idle and not beside and rp >= _B:
        return False
    return _mar(rp, ru, cap, completes, held, est, budget, idle, owed, beside, *a, **k)
_bk.may_admit_root = _may
