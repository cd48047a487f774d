# tail52 probe: policy.AWAIT_PROBE = K > 0 makes Books.awaits False on a worker holding at
# least K of the largest root's bytes (its loads kept: the combine's overlap a small part of
# what it holds); 0 leaves the view as it is. For cells_n.py --patch.
from tidegate import policy, books as B
policy.AWAIT_PROBE = 0
_aw = B.Books.awaits
def awaits(self, w):
    k = policy.AWAIT_PROBE
    if k and self._roots_max and self.workers[w].held >= k * self._roots_max:
        return False
    return _aw(self, w)
B.Books.awaits = awaits
