# snd47: an ab_twin / trace_twin --patch (experiment, not a rule kept): policy.SND_BUSY_LINK
# (0 off, 1 on). With it, Placement._combine_elsewhere skips a candidate other than dask's
# choice that has copies on their way to it (placement._incoming > 0): a moved combine's
# inputs would queue behind those on the receiver's link (twin seed anomaly 5 x 4, senders
# free: the second moved partial's three chunk-means waited 0.12 s behind the first's).
from tidegate import policy
from tidegate.distributed import placement as P

policy.SND_BUSY_LINK = 0
_incoming = P._incoming
_orig = P.Placement._combine_elsewhere


def _combine_elsewhere(self, ts, local, chosen):
    if not policy.SND_BUSY_LINK:
        return _orig(self, ts, local, chosen)
    s = self.scheduler
    saved = {}
    for addr, ws in s.workers.items():  # (a busy receiver hidden as "no thread free")
        book = self.books.workers.get(addr)
        if addr != chosen and book is not None and _incoming(ws) > 0:
            saved[addr] = book.processing
            book.processing = max(book.processing, book.threads)
    try:
        return _orig(self, ts, local, chosen)
    finally:
        for addr, n in saved.items():
            self.books.workers[addr].processing = n


P.Placement._combine_elsewhere = _combine_elsewhere
