# sten46: a spread root (a stencil's block) on a worker of 8+ threads meets a cap of
# env SPREAD8_CAP roots in flight (not saturation x threads): the experiment's form, via
# Books._admits (policy.may_admit_root's cap, where _admits passes spread).
import os
from tidegate import books as _bk
_C = float(os.environ.get("SPREAD8_CAP", "inf"))
_flag = [False]
_adm = _bk.Books._admits
def _admits(self, book, w, task, est, completes_consumer, stimulus_id, progress=True,
            reserved=0, spread=False, waiting=0, opens=0, awaits=None, pair=False,
            region=0, unit=0, wave=()):
    _flag[0] = bool(spread) and book.threads >= 8
    try:
        return _adm(self, book, w, task, est, completes_consumer, stimulus_id, progress,
                    reserved, spread, waiting, opens, awaits, pair, region, unit, wave)
    finally:
        _flag[0] = False
_bk.Books._admits = _admits
_mar = _bk.may_admit_root
def _may(rp, ru, cap, *a, **k):
    if _flag[0]:
        cap = min(cap, _C)
    return _mar(rp, ru, cap, *a, **k)
_bk.may_admit_root = _may
