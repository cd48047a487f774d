# tail52 probe: policy.AWAIT_PROBE = 1 makes Books.awaits answer False (the combine view's
# withholding off); 0 leaves it. For cells_n.py --patch.
from tidegate import policy, books as B
policy.AWAIT_PROBE = 0
_aw = B.Books.awaits
def awaits(self, w):
    if policy.AWAIT_PROBE:
        return False
    return _aw(self, w)
B.Books.awaits = awaits
