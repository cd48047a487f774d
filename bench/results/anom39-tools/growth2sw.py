from tidegate import policy as _p
_p.BROADCAST_GROWTH = 2
