import sys
from tidegate.distributed import placement as PL
orig = PL.Placement._fewer_readers
def guarded(self, ts, local, addr):
    out = orig(self, ts, local, addr)
    if out != addr:
        b = self.books.workers.get(out)
        if b is None or b.processing >= b.threads:
            return addr  # (no thread free at the fewer-readers holder: dask's balance stands)
    return out
PL.Placement._fewer_readers = guarded
exec(open("/tmp/rev51m/tie.py").read())
