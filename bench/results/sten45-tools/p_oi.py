# sten45: prints each OWED_IDLE pass (worker, roots_max, each worker's roots in flight and held MB); --patch for bench/trace_twin.py
from tidegate import books as _bk
_o = _bk.Books._owed_idle
def _oi(self, w, book):
    r = _o(self, w, book)
    if r:
        print("OWED_IDLE yes", w[-6:], "roots_max", self._roots_max, "loaded", dict(self._loaded_max), "flight", book.roots_processing + book.roots_untouched, [(v[-6:], o.roots_processing + o.roots_untouched, round((o.held+o.estimated)/1e6)) for v, o in self.workers.items()])
    return r
_bk.Books._owed_idle = _oi
