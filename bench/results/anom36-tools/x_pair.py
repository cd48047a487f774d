import tidegate.books as _B
_op = _B.Books.place
def _place(self, *a, **k):
    if k.get("commits"):
        k["pair"] = True
    return _op(self, *a, **k)
_B.Books.place = _place
