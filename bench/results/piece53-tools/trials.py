"""Trial forms (not in src), installed by sweep_runs.py's / peak_trace.py's trial=NAME
(several joined by +):
  resv_none: an opener whose meetings lack more roots than its worker's cap reserves none
             (tie52's reserve_trial.py; in src as policy.RESERVE_CAP 1).
  resv_some: it reserves only as many as its worker's cap leaves (cap - slots used).
  lacks_inflight: a lacked root whose input is processing is not reserved (in src as
             policy.LACK_INPUT_RUNNING 1).
  li_other, li_capN, backlog_refuses: see below and piece53-findings.txt section 4."""
from tidegate import books as _B

_orig_reserve = _B.Books._reserve


def _resv_none(self, task, w, lacks):
    book = self.workers.get(w)
    if lacks and book is not None and len(lacks) > book.cap:
        lacks = ()
    return _orig_reserve(self, task, w, lacks)


def _resv_some(self, task, w, lacks):
    book = self.workers.get(w)
    if lacks and book is not None:
        room = max(0, int(book.cap) - book.slots_used)
        lacks = [r for r in lacks if r not in self._owed and r not in self._processing][:room]
    return _orig_reserve(self, task, w, lacks)


# lacks_inflight: a lacked root one of whose inputs is a root in flight (placed, its data
# not landed: a handle by structure whose size is unknown, as the pieces' root R) is not
# reserved: it runs where that input is, not on the opener's worker.
_sched = []


def _lacks_inflight_install():
    from tidegate.distributed import Plugin
    orig_install = Plugin.install

    def install(self, scheduler):
        _sched[:] = [scheduler]
        return orig_install(self, scheduler)

    Plugin.install = install
    cls = _B.Books
    orig_place = cls.place

    def place(self, task, known, group, partners, candidates, stimulus_id=None,
              lacks=None, *a, **kw):
        if lacks and _sched:
            tasks = _sched[0].tasks
            proc = self._processing

            def inflight(r):
                ts = tasks.get(r)
                return ts is not None and any(d.key in proc for d in ts.dependencies)
            lacks = {r for r in lacks if not inflight(r)}
        return orig_place(self, task, known, group, partners, candidates, stimulus_id,
                          lacks, *a, **kw)

    cls.place = place


# li_other: as lacks_inflight, but only where that input is in flight on another worker
# than the opener's (Books._reserve patched: the worker is known there).
def _li_other_install():
    from tidegate.distributed import Plugin
    orig_install = Plugin.install

    def install(self, scheduler):
        _sched[:] = [scheduler]
        return orig_install(self, scheduler)

    Plugin.install = install
    orig = _B.Books._reserve

    def _reserve(self, task, w, lacks):
        if lacks and _sched:
            tasks = _sched[0].tasks
            proc = self._processing

            def elsewhere(r):
                ts = tasks.get(r)
                return ts is not None and any(
                    d.key in proc and proc[d.key][0] != w for d in ts.dependencies)
            lacks = [r for r in lacks if not elsewhere(r)]
        return orig(self, task, w, lacks)

    _B.Books._reserve = _reserve


# li_cap: in-flight lacks (as lacks_inflight) reserved on the opener's worker only up to
# LI_ROOM of them at once (0: none, as lacks_inflight; -1: cap - threads).
LI_ROOM = [-1]


def _li_cap_install():
    from tidegate.distributed import Plugin
    orig_install = Plugin.install

    def install(self, scheduler):
        _sched[:] = [scheduler]
        return orig_install(self, scheduler)

    Plugin.install = install
    orig = _B.Books._reserve

    def _reserve(self, task, w, lacks):
        book = self.workers.get(w)
        if lacks and _sched and book is not None:
            tasks = _sched[0].tasks
            proc = self._processing

            def inflight(r):
                ts = tasks.get(r)
                return ts is not None and any(d.key in proc for d in ts.dependencies)
            room = LI_ROOM[0] if LI_ROOM[0] >= 0 else max(0, int(book.cap) - book.threads)
            room -= sum(1 for r, (ww, _) in self._owed.items() if ww == w and inflight(r))
            keep = []
            for r in lacks:
                if inflight(r) and r not in self._owed and r not in proc:
                    if room <= 0:
                        continue
                    room -= 1
                keep.append(r)
            lacks = keep
        return orig(self, task, w, lacks)

    _B.Books._reserve = _reserve


# backlog_refuses: a worker with a partner backlog (policy.partner_backlogged) admits no
# root (its threads cut the pieces others' loads wait for); idle ones still may.
def _backlog_refuses_install():
    import tidegate.policy as P
    orig = _B.Books._admits

    def _admits(self, book, w, task, *a, **kw):
        if book.processing and P.partner_backlogged(book.processing, book.threads):
            self.log.append((task, "withheld", w, None))
            return False
        return orig(self, book, w, task, *a, **kw)

    _B.Books._admits = _admits


def install(name):
    for n in name.split("+"):
        if n == "backlog_refuses":
            _backlog_refuses_install()
        elif n.startswith("li_cap"):
            if n[6:]:
                LI_ROOM[0] = int(n[6:])
            _li_cap_install()
        elif n == "li_other":
            _li_other_install()
        elif n == "lacks_inflight":
            _lacks_inflight_install()
        else:
            _B.Books._reserve = {"resv_none": _resv_none, "resv_some": _resv_some}[n]


# lack_root: as LACK_INPUT_RUNNING 1, but only where the running input is booked as a root
# itself (R, a spread root placed by the books), not any task processing.
def _lack_root_install():
    import tidegate.policy as P
    from tidegate.distributed import placement as PL
    P.LACK_INPUT_RUNNING = 1

    def _reserved_lacks(self, lacks):
        proc = self.books._processing
        return {r.key for r in lacks if not any(
            proc.get(d.key, (None, 0, False))[2] for d in r.dependencies)}

    PL.Placement._reserved_lacks = _reserved_lacks


_INSTALL = install


def install(name):  # noqa: F811
    rest = []
    for n in name.split("+"):
        if n == "lack_root":
            _lack_root_install()
        else:
            rest.append(n)
    if rest:
        _INSTALL("+".join(rest))
