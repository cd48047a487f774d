# probe (not a rule): a root waiting for its reduction, the reduction known NOT to reduce,
# whose partners' worker holds its share of the group, goes to a free worker with a thread
# free that holds fewer (first_share_takes), rather than join its partners.
import math
from tidegate import policy as P_
from tidegate.distributed import placement as P
from tidegate.distributed.tasks import _of_group, _returned
from tidegate.policy import over_first_share, reduced_enough, first_share_takes
P_.KEEP_PROBE = 1
_orig = P.Placement._decide
def _decide(self, ts, stimulus_id=None):
    if P_.KEEP_PROBE:
        first = self._kept(ts)
        if first is not None:
            r = _returned(first.group)
            if r == r and not reduced_enough(r, self._size(ts)):
                s = self.scheduler
                size, running = len(ts.group), len(s.running)
                plan = self._plan(ts)
                found = self._partners(ts, set(), {}, set())
                if found:
                    p = max(found, key=found.__getitem__)
                    ws = s.workers.get(p)
                    if ws is not None and over_first_share(_of_group(ws, ts.group), 0, size, running):
                        for addr in self._free_iter():
                            b = self.books.workers.get(addr)
                            if addr == p or b is None or not first_share_takes(
                                    b.processing, b.threads, _of_group(s.workers[addr], ts.group), size, running):
                                continue
                            got = self.books.place(ts.key, math.nan, ts.group.name, {}, [addr], stimulus_id, set())
                            if got is not None:
                                return got, {}
                            break
    return _orig(self, ts, stimulus_id)
P.Placement._decide = _decide
