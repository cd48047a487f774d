import atexit
import tidegate.distributed.broadcast as _B
_made = []
_i = _B.Broadcast.__init__
def _init(self, *a, **k):
    _i(self, *a, **k); _made.append(self)
_B.Broadcast.__init__ = _init
atexit.register(lambda: print("END LEVEL", [(b.level, b.per, len(b.verdicts), [v[2] for v in b.verdicts]) for b in _made if b.copies]))
