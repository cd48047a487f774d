from tidegate.distributed import placement as P
def _NOW(self, ts, p, addr, lacks):
    return not lacks
P._NOW = _NOW
