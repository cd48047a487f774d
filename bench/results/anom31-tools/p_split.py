# experiment: _split gives an idle worker as many waiting roots as it has threads free
# (SPLIT_MORE 1) or as its books admit (SPLIT_MORE 2), not one.
import heapq, math
from itertools import filterfalse
import tidegate.policy as P
import tidegate.distributed.admission as A
P.SPLIT_MORE = 0
_orig_split = A.Admission._split if hasattr(A, "Admission") else None
cls = [c for c in vars(A).values() if isinstance(c, type) and "_split" in vars(c)][0]
_orig = cls._split
def _split(self, s, stimulus_id):
    if not P.SPLIT_MORE:
        return _orig(self, s, stimulus_id)
    running, workers, books = s.running, s.workers, self.books
    idle = sorted(a for a in self._idle if workers.get(a) in running
                  and books.workers.get(a) is not None and books.workers[a].processing == 0)
    free = [a for a in self._free_iter() if a not in self._idle] if self._parked_kept else []
    if not idle and not free:
        return
    if idle:
        waiting = [ts for ts, on in self._parked.items()
                   if ts.state == "queued" and on and not isinstance(on[0], tuple)]
    else:
        waiting = [ts for ts in self._parked_kept if ts.state == "queued"]
    share = {a: (workers[a].nthreads if P.SPLIT_MORE == 1 else 10**9) for a in idle}
    given = dict.fromkeys(idle, 0)
    taken = set()
    n = sum(min(share[a], len(waiting)) for a in idle) + len(free)
    for ts in heapq.nsmallest(n, waiting, key=lambda t: t.priority):
        lacks = set()
        kept = ts in self._parked_kept
        partners, allowed = self._broadcast.restrict(
            s, ts, self._partners(ts, lacks, {}, None), idle + free if kept else idle, stimulus_id)
        for addr in filterfalse(taken.__contains__, allowed):
            book = books.workers.get(addr)
            if book is None or (book.processing and not kept and not given.get(addr)):
                continue
            if kept and self._heavier(ts, addr):
                continue
            got = books.place(ts.key, math.nan, ts.group.name, {}, [addr], stimulus_id,
                              {r.key for r in lacks})
            if got is not None:
                self._unpark(ts)
                self._start(ts, workers[got], stimulus_id)
                if got in given:
                    given[got] += 1
                    if given[got] >= share[got]:
                        taken.add(got)
                else:
                    taken.add(got)
                self._update()
                break
            else:
                taken.add(addr)
            break
cls._split = _split
