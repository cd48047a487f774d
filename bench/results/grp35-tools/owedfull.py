# prototype: a root owed to a worker whose count is full only of loaded data waiting (no root
# loading there, untouched >= cap), with a thread idle and its opener's data waiting: asked out of line.
import tidegate.distributed.admission as _A
_OF_MODE = globals().get("_OF_MODE", 1)
_orig_poke = _A.Admission._poke
def _poke(self, s, stimulus_id):
    _orig_poke(self, s, stimulus_id)
    books = self.books
    if not books.owed:
        return
    ready = self._ready
    for r, (w, opener) in list(books.owed.items()):
        if r not in books.owed:
            continue
        book = books.workers.get(w)
        if book is None or book.roots_processing or book.roots_untouched < book.cap:
            continue
        ts = s.tasks.get(r)
        if ts is None or ts.state != "queued" or ts not in ready:
            continue
        if not books.data_waits(opener):
            continue
        wst = s.workers.get(w)
        if wst is None or len(wst.processing) >= wst.nthreads:
            continue
        if _OF_MODE == 2:
            plan = self._plan(ts)
            if plan.meetings:
                lacks, spread = self._walk(ts, plan)[1::3]
                if lacks or spread:
                    continue
        addr, _ = self._place(ts, stimulus_id)
        if addr is None:
            if _OF_MODE >= 3:
                addr = w  # the reservation's slot is counted already
            else:
                continue
        ws = s.workers.get(addr)
        if ws in s.running:
            self._start(ts, ws, stimulus_id)
            self._wake_lacked(self._lacked)
        if ts in ready:
            ready.discard(ts)
            if ts.state == "queued":
                ready.add(ts)
        self._update()
_A.Admission._poke = _poke
