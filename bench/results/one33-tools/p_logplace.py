from tidegate import books as _B
_op = _B.Books.place
def _place(self, task, known, group, partners, candidates, stimulus_id=None, lacks=None,
           shared=None, complete=(), spread=False, commits=False, further=False, wide=False,
           deep=False, gather=False, **kw):
    candidates = list(candidates)
    r = _op(self, task, known, group, partners, candidates, stimulus_id, lacks, shared, complete,
            spread, commits, further, wide, deep, gather, **kw)
    sh = lambda d: {str(k)[-4:]: v for k, v in (d or {}).items()}
    print("PLACE", str(task)[-30:], "->", str(r)[-4:], "partners", sh(partners), "shared",
          sh(shared), "cand", [str(c)[-4:] for c in candidates], "lacks", len(lacks or ()),
          "spread", spread, "gather", gather, kw,
          "complete", [str(c)[-4:] for c in complete])
    return r
_B.Books.place = _place
