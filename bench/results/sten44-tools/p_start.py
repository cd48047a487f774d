# --patch for bench/ab_twin.py / trace_twin.py (sten44): hypothesis test of the stencil
# 2 x 8's slow start. policy.NP_OFF 1: the plugin's books admit with no probe (sten43's
# p_noprobe.py); policy.NORES_START 1: no reservation (Books._reserve) while no root's size
# is known yet (books._roots_max 0).
exec(open("/work/wt/sten44/bench/results/sten43-tools/p_noprobe.py").read())
from tidegate import books as _b
_p.NORES_START = 0
_res = _b.Books._reserve
def _reserve(self, task, w, lacks, _o=_res):
    if _p.NORES_START and not self._roots_max:
        lacks = ()
    return _o(self, task, w, lacks)
_b.Books._reserve = _reserve
