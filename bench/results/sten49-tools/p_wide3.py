# sten49: --patch (multi.py / ab_twin / trace_twin): on a cluster's only worker, BESIDE_WIDE's
# clause where only roots process (the start) lets up to policy.WIDE_ALONE_START - 1 spread
# roots process (a switch this patch adds, 0: main's guard, e.g. 3: a third root at the
# start, 4: as BESIDE_WIDE_BUSY 0 there). Beside other work as main.
from tidegate import policy as _p
_p.WIDE_ALONE_START = 0
_aw = _p.asks_wide
def asks_wide(threads, roots_processing, processing, alone=True):
    if alone and processing <= roots_processing and _p.WIDE_ALONE_START:
        return bool(_p.BESIDE_WIDE) and threads >= _p.BESIDE_WIDE_THREADS \
            and 2 <= roots_processing < _p.WIDE_ALONE_START
    return _aw(threads, roots_processing, processing, alone)
_p.asks_wide = asks_wide
from tidegate import books as _b
_b.asks_wide = asks_wide
