# A verdict kept from an earlier computation on this scheduler: Broadcast starts at level 23
import tidegate.distributed.broadcast as _B
_i = _B.Broadcast.__init__
def _init(self, *a, **k):
    _i(self, *a, **k)
    self.level = 23
    self._nw = -1
_B.Broadcast.__init__ = _init
from tidegate import policy as _pp
_pp.BROADCAST_KEEP = 0  # (no worker joins in the twin; the prior's hosts are not known)
