# anom51: every Placement._first_share ask printed with its inputs (blog.py's patch)
from tidegate.distributed import placement as P
from tidegate import policy as POL
_orig_fs = P.Placement._first_share
def _fs(self, ts, partners, lacks, stimulus_id):
    out = _orig_fs(self, ts, partners, lacks, stimulus_id)
    p = max(partners, key=partners.__getitem__)
    b = self.books.workers.get(p)
    W = self.scheduler.workers
    free = [(a[-4:], P._of_group(W[a], ts.group), self.books.workers[a].roots_processing,
             self.books.workers[a].processing) for a in self._free_iter()]
    print("FS", ts.key[1], stimulus_id, "p", p[-4:], "flight", b.roots_processing,
          b.roots_untouched, "cap", b.cap, "ofgroup", P._of_group(W[p], ts.group),
          "free", free, "->", out and out[0])
    return out
P.Placement._fs_orig = _orig_fs
P.Placement._first_share = _fs
