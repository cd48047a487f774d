# --patch for multi.py / ab_twin.py: BESIDE_WIDE_BUSY 2 = the busy guard off only while the
# worker holds no result yet (book.held == 0: the graph's start there), on after.
import tidegate.books as _B
import tidegate.policy as _P

_orig_bw = _B.Books._beside_wide


def _bw(self, w, book, est):
    if _P.BESIDE_WIDE_BUSY == 2:
        _P.BESIDE_WIDE_BUSY = 0 if book.held == 0 else 1
        try:
            return _orig_bw(self, w, book, est)
        finally:
            _P.BESIDE_WIDE_BUSY = 2
    return _orig_bw(self, w, book, est)


_B.Books._beside_wide = _bw
