import tidegate.distributed.placement as PL
orig = PL.Placement._combine_elsewhere
def ce(self, ts, local, chosen):
    r = orig(self, ts, local, chosen)
    bw = self.books.workers
    print("  CE", ts.key[0][:12], ts.key[1], chosen[-6:], "->", r.address[-6:] if r is not None else None, {a[-6:]: round(v/1e6) for a, v in local.items()},
          {a[-6:]: (round(w.nbytes/1e6), bw[a].processing, bw[a].roots_processing) for a, w in self.scheduler.workers.items()})
    return r
PL.Placement._combine_elsewhere = ce
