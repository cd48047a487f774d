# hypothesis test (sten42): the stencil's blocks placed in compact quadrants (not a rule:
# key indices read, 6 x 6 grid on four workers): does a compact region per worker cut
# tidegate's peak on 4 x 8 at 10 ms?
import math
import tidegate.policy as _p
from tidegate.distributed import placement as _pl
_p.PQ_QUAD = 0
_orig = _pl.Placement._place
def _place(self, ts, stimulus_id=None):
    k = ts.key
    if not (_p.PQ_QUAD and isinstance(k, tuple) and len(k) == 3
            and k[0].startswith("random_sample")):
        return _orig(self, ts, stimulus_id)
    books = self.books
    addrs = sorted(books.workers)
    if len(addrs) != 4:
        return _orig(self, ts, stimulus_id)
    i, j = k[1], k[2]
    target = addrs[(i // 3) * 2 + (j // 3)]
    if target not in self._open:
        return None, {target: 1}
    addr = books.place(ts.key, math.nan, ts.group.name, {target: 1}, iter([target]),
                       stimulus_id, set(), {}, set(), 2, False)
    return addr, {target: 1}
_pl.Placement._place = _place
