# lack53 probe of the combine view's narrower forms (Books.awaits), for cells_n.py --patch
# or cells_p.py. policy.AWAIT_MODE: 0 the view as it is; 1 off (tail52's probe);
# 2 no wait where w has a thread free and holds no more than the mean held of the workers;
# 3 no wait where w has a thread free and holds no more than the least held elsewhere +
#   AWAIT_K largest roots; 4 no wait where w has a thread free and holds >= AWAIT_K
#   largest roots (tail52's held probe with a free thread); 5: 2 and 4 both (a thread
#   free, no more than the mean held, at least AWAIT_K largest roots held); 6: no wait where
#   w has a thread free and no other worker has one without awaiting a combine itself (no
#   other worker could take the group now); 7: as 6, the other worker also with room in its
#   count (roots processing + untouched + owed < cap); 8: 6 where w holds >= AWAIT_K roots.
# policy.AWAIT_WORKERS: modes apply only on clusters of at most this many workers.
from tidegate import policy, books as B
policy.AWAIT_MODE = 0
policy.AWAIT_K = 1.0
policy.AWAIT_WORKERS = 10 ** 9
_aw = B.Books.awaits


def awaits(self, w):
    m = policy.AWAIT_MODE
    if not m:
        return _aw(self, w)
    if m == 1:
        return False
    if not _aw(self, w):
        return False
    ws = self.workers
    if len(ws) > policy.AWAIT_WORKERS:
        return True
    book = ws[w]
    if book.processing >= book.threads:
        return True
    if m == 2:
        return book.held > sum(b.held for b in ws.values()) / len(ws)
    if m == 3:
        least = min((b.held for a, b in ws.items() if a != w), default=0)
        return book.held > least + policy.AWAIT_K * self._roots_max
    if m == 4:
        return not (self._roots_max and book.held >= policy.AWAIT_K * self._roots_max)
    if m == 5:
        return not (self._roots_max and book.held >= policy.AWAIT_K * self._roots_max
                    and book.held <= sum(b.held for b in ws.values()) / len(ws))
    if m == 8 and not (self._roots_max and book.held >= policy.AWAIT_K * self._roots_max):
        return True  # (8: 6 where w holds at least AWAIT_K largest roots)
    if m in (6, 7, 8):
        for a, b in ws.items():
            if a == w or b.processing >= b.threads:
                continue
            if m == 7 and b.roots_processing + b.roots_untouched + b.owed >= b.cap:
                continue
            if a in self.noted and _aw(self, a):
                continue
            return True  # another worker could take the group now: w waits
        return False
    return True


B.Books.awaits = awaits
