# A probe (ab_twin / trace_twin --patch), not a rule: UNIT_STAGGER 6 is mode 5 (the wave's
# even share capping a worker's roots on a first compute too) where a root its wave's cap
# refuses on its partners' workers goes, with no partner, to the least loaded worker that
# admits it under the same cap (its pair split, one slice copied to the store) instead of
# waiting for its partner's worker's first unit to be consumed.
import tidegate.books as _B

_orig_place = _B.Books.place


def _place(self, task, known, group, partners, candidates, stimulus_id=None, lacks=None,
           shared=None, complete=(), *args, stagger=(), **kw):
    got = _orig_place(self, task, known, group, partners, candidates, stimulus_id, lacks,
                      shared, complete, *args, stagger=stagger, **kw)
    import tidegate.policy as P
    if got is not None or P.UNIT_STAGGER != 6 or not stagger or not partners:
        return got
    ws = self.workers
    order = sorted((w for w in ws if w not in partners),
                   key=lambda w: (ws[w].roots_processing + ws[w].roots_untouched
                                  + ws[w].processing) / ws[w].threads)
    return _orig_place(self, task, known, group, {}, order, stimulus_id, lacks, None, (),
                       stagger=stagger)


_B.Books.place = _place
