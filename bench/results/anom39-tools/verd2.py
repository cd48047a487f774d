import tidegate.distributed.broadcast as _B
_o = _B.Broadcast.landed
def _landed(self, s, worker, keys):
    n = len(self.verdicts)
    _o(self, s, worker, keys)
    for v in self.verdicts[n:]:
        print("VERDICT", round(s.loop.time(), 4), str(v[0])[:30], v[2], "level", self.level, flush=True)
_B.Broadcast.landed = _landed
_o2 = _B.Broadcast._started
def _started(self, s, d, dest, src, sid):
    _o2(self, s, d, dest, src, sid)
    print("START", round(s.loop.time(), 4), str(d.key)[:30], dest[-6:], src[-6:], "per", self.per, "level", self.level, id(self), flush=True)
_B.Broadcast._started = _started
_i = _B.Broadcast.__init__
def _init(self, *a, **k):
    _i(self, *a, **k); print("NEW BROADCAST", id(self), flush=True)
_B.Broadcast.__init__ = _init
