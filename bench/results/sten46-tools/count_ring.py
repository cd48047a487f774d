# sten46: counts policy.central_meetings calls and the lacks it left out, printed at exit
import atexit
from tidegate import policy as _p
_n = [0]
_cm = _p.central_meetings
def _count(inputs, task):
    _n[0] += 1
    return _cm(inputs, task)
_p.central_meetings = _count
atexit.register(lambda: print("central_meetings calls:", _n[0]))
