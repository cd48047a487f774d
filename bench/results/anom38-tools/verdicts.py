import tidegate.distributed.broadcast as _B
_orig = _B.Broadcast.landed
def _landed(self, s, worker, keys):
    n = len(self.verdicts)
    _orig(self, s, worker, keys)
    for v in self.verdicts[n:]:
        print("VERDICT", round(s.loop.time(), 4), v, "per", self.per)
_B.Broadcast.landed = _landed
_o2 = _B.Broadcast._started
def _started(self, s, d, dest, src, sid):
    _o2(self, s, d, dest, src, sid)
    print("START", round(s.loop.time(), 4), str(d.key)[:30], dest[-6:], src[-6:], sid, "per", self.per)
_B.Broadcast._started = _started
