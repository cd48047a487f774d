# sten47 experiment: every new graph's roots queued for poke (hooks' _queue_new, which main
# sets only for a graph with priority annotations): they start best first, not in the order
# dask's update_graph walk offers them. Only on the A/B side with SPREAD_RING on (env
# QNEW_BOTH=1: both sides).
import os
from tidegate import policy as _p
from tidegate.distributed import hooks as _h
_both = os.environ.get("QNEW_BOTH") == "1"
_ng = _h.Plugin._new_graph
def _new_graph(self, scheduler, kwargs):
    _ng(self, scheduler, kwargs)
    if _both or _p.SPREAD_RING:
        self._queue_new = True
_h.Plugin._new_graph = _new_graph
