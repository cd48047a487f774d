from tidegate.distributed import placement as PL
orig = PL.Placement._fewer_readers
def guarded(self, ts, local, addr):
    out = orig(self, ts, local, addr)
    if out != addr:
        b, c = self.books.workers.get(out), self.books.workers.get(addr)
        if b is None or c is None or b.processing / b.threads > c.processing / c.threads:
            return addr  # (busier than the plugin's answer: its balance stands)
    return out
