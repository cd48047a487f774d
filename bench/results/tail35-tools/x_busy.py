import tidegate.books as _B
import tidegate.policy as _PP
import tidegate.distributed.placement as _PL
_PP.XBUSY = 0
def _full(book):
    m = _PP.XBUSY
    if m == 2: return book.processing >= book.cap
    if m == 3: return book.threads >= 3 and book.processing >= book.cap
    if m == 4: return book.processing >= book.cap + 1
    if m == 5: return book.processing >= 2 * book.threads
    if m == 6: return book.processing > book.threads + 1
    return False
_oa = _B.Books._admits
def _adm(self, book, w, task, est, completes_consumer, stimulus_id, progress=True,
         reserved=0, spread=False, waiting=0, opens=0, awaits=None):
    if _PP.XBUSY and opens and getattr(self, "_xpair", None) == task and _full(book):
        self.log.append((task, "withheld", w, stimulus_id))
        return False
    return _oa(self, book, w, task, est, completes_consumer, stimulus_id, progress, reserved, spread, waiting, opens, awaits)
_B.Books._admits = _adm
_oc = _PL.Placement._commits
def _com(self, ts, plan):
    r = _oc(self, ts, plan)
    self.books._xpair = ts.key if (r and not plan.further) else None
    return r
_PL.Placement._commits = _com
