# tracer patch: print the books log (no 'withheld') at exit
import atexit, tidegate.books as _B
_BK = []
_oi = _B.Books.__init__
def _bi(self, *a, **k):
    _oi(self, *a, **k); _BK.append(self)
_B.Books.__init__ = _bi
def _dump():
    for b in _BK[-1:]:
        for e in b.log:
            if e[1] != "withheld":
                print("  LOG", *[str(x)[-28:] for x in e])
atexit.register(_dump)
