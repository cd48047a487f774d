# ab_twin / trace_twin patch: a tree reduction's combine (3+ inputs of one group) placed
# where held + estimated + copied-in bytes are least (XC bits: 1 on; 2 holders only;
# 4 count book.estimated; 8 count owed roots * est; 16 margin of one input)
import math
import tidegate.distributed.placement as _PL
import tidegate.policy as _PP
_PP.XC = 0
_on = _PL.Placement._decide_worker_non_rootish
LOG = []
def _dw(self, ts):
    ws = _on(self, ts)
    if not _PP.XC or ws is None or len(ts.dependencies) < 3:
        return ws
    deps = ts.dependencies
    g = None
    for d in deps:
        if d.nbytes <= 0 or not d.who_has:
            return ws
        if g is None:
            g = d.group
        elif d.group is not g:
            return ws
    if _PP.XC & 64:  # a reduction's first combine of loads kept for their reduction
        d = next(iter(deps))
        if len(d.dependents) != 1 or len(d.dependencies) != 1:
            return ws
        (r,) = d.dependencies
        if self._kept(r) is not d:
            return ws
    if _PP.XC & 128:  # candidates: holders and the 3 least loaded free for roots
        import itertools
        self._update()
        extra = [a for a in itertools.islice(self._free_iter(), 3)]
    s = self.scheduler
    local = {}
    total = 0
    for d in deps:
        total += d.nbytes
        for h in d.who_has:
            local[h.address] = local.get(h.address, 0) + d.nbytes
    books = self.books.workers
    def held(w):
        h = w.nbytes
        b = books.get(w.address)
        if b is not None:
            if _PP.XC & 4:
                h += b.estimated
        if _PP.XC & 32:  # inputs still to come to its tasks processing
            seen = set()
            for t in w.processing:
                for d in t.dependencies:
                    if d not in seen and w not in (d.who_has or ()):
                        seen.add(d)
                        h += d.nbytes if d.nbytes > 0 else 0
        return h
    def peak(w):
        return held(w) + total - local.get(w.address, 0)
    cand = [s.workers[a] for a in local] if _PP.XC & 2 else s.running
    if _PP.XC & 128:
        cand = [s.workers[a] for a in set(local) | set(extra) if s.workers.get(a) in s.running]
    best = min(cand, key=lambda w: (peak(w), w.address))
    margin = max(d.nbytes for d in deps) if _PP.XC & 16 else 0
    if peak(best) + margin < peak(ws):
        LOG.append((s._tg_now() if hasattr(s, '_tg_now') else None, ts.key, ws.address, best.address,
                    {w.address: peak(w) / 2**20 for w in cand}))
        return best
    return ws
_PL.Placement._decide_worker_non_rootish = _dw
