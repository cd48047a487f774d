# slow49: leaves_slower's bit-2 tail test with the tie passed (<=), as slow44's OFF_TIE
from tidegate import policy as _p
from tidegate.distributed import placement as _pl
def _ls(in_flight, threads, left=0, other_flight=0, pace=None, other=None):
    if not _p.OFF_SLOWER: return False
    if _p.OFF_SLOWER & 1 and in_flight >= threads: return True
    if not _p.OFF_SLOWER & 2 or pace is None or other is None: return False
    a, b = pace; c, d = other
    if a != a or b != b or c != c or d != d: return False
    return (left + other_flight) * max(c, d) <= min(a, b) + 1e-9
_pl.leaves_slower = _ls
