# sten49b screen (not in src): policy.BESIDE_LEAST n = a spread root's beside bypass
# (books' may_load_beside answer in Books._admits) only where the worker holds no more than
# every other worker plus n roots (Books._holds_least with n x the root's estimate), on
# workers of 2 to 7 threads; 0 = as trial49. For multi.py --patch ... --var bl:BESIDE_LEAST=1.
from tidegate import books as _bk
from tidegate import policy as _pol

_pol.BESIDE_LEAST = 0
_pol.BESIDE_LEAST_SECOND = 0  # 1: only where a root processes there (the second test's case)
_cur = [None]
_mlb = _bk.may_load_beside


def _may_load_beside(threads, *a, **k):
    ok = _mlb(threads, *a, **k)
    if _pol.BESIDE_LEAST_SECOND and not (a[0] if a else k['roots_processing']):
        return ok
    c = _cur[0]
    if ok and _pol.BESIDE_LEAST and c is not None and 2 <= threads < 8:
        self, w, book, est = c
        if book.threads == threads and not self._holds_least(w, book, est * _pol.BESIDE_LEAST):
            return False
    return ok


_bk.may_load_beside = _may_load_beside
_adm = _bk.Books._admits


def _admits(self, book, w, task, est, *a, **k):
    _cur[0] = (self, w, book, est)
    try:
        return _adm(self, book, w, task, est, *a, **k)
    finally:
        _cur[0] = None


_bk.Books._admits = _admits
